package secrets

import (
	"path"
	"strings"
)

// IsSecretFile reports whether a file must never be read, indexed or quoted:
// environment files (but not their .example/.sample/.template/.dist
// templates), SSH and TLS keys, keystores, Terraform state and variables,
// package-manager and git credentials, service-account JSON and
// configuration files named after secrets. path may be relative or
// absolute, with slashes or the OS separator.
func IsSecretFile(p string) bool {
	p = strings.ReplaceAll(p, `\`, "/")
	for _, seg := range strings.Split(strings.ToLower(path.Dir(p)), "/") {
		if seg == ".ssh" || seg == ".gnupg" {
			return true
		}
	}
	name := strings.ToLower(path.Base(p))
	if strings.HasPrefix(name, ".env") {
		for _, ok := range []string{".example", ".sample", ".template", ".dist"} {
			if strings.HasSuffix(name, ok) {
				return false
			}
		}
		return true
	}
	for _, key := range []string{"id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "id_ecdsa_sk", "id_ed25519_sk"} {
		if name == key || strings.HasPrefix(name, key+".") || strings.HasPrefix(name, key+"_") {
			return true
		}
	}
	switch name {
	case "credentials.json", "credentials", ".npmrc", ".pypirc", ".netrc", "_netrc", ".git-credentials",
		".htpasswd", "auth.json", ".pgpass", ".dockercfg", "secrets.env":
		return true
	}
	ext := path.Ext(name)
	switch ext {
	case ".pem", ".key", ".p12", ".pfx", ".keystore", ".jks", ".tfstate", ".tfvars", ".ppk", ".asc", ".gpg", ".kdbx":
		return true
	}
	if strings.HasSuffix(name, ".tfstate.backup") || strings.HasSuffix(name, ".tfvars.json") {
		return true
	}
	if strings.HasPrefix(name, "service-account") || strings.HasPrefix(name, "service_account") ||
		(strings.Contains(name, "service") && strings.Contains(name, "account") && ext == ".json") {
		return ext == ".json"
	}
	if strings.Contains(name, "secret") {
		switch ext {
		case ".json", ".yaml", ".yml", ".env", ".txt", ".toml", ".ini", ".conf", ".cfg", ".properties", ".xml", ".config", "":
			return true
		}
	}
	return false
}
