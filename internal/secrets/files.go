package secrets

import (
	"fmt"
	"path"
	"strings"
)

// IsSecretFile reports whether a file must never be read, indexed, blamed,
// diffed or quoted, by its path alone. It is the one list of the whole
// program (the knowledge and the repo toolsets, the hooks, the bootstrap):
//
//   - environment files (.env, .env.*, *.env, .envrc), but not their
//     .example/.sample/.template/.dist templates;
//   - SSH, TLS and PGP keys and keystores (id_rsa*, id_dsa*, id_ecdsa*,
//     id_ed25519*, *.pem, *.key, *.crt, *.p12, *.pfx, *.p8, *.jks, *.keystore,
//     *.ppk, *.asc, *.gpg, …) and everything under .ssh/ and .gnupg/;
//   - cloud, cluster and registry credentials: .aws/, .azure/,
//     .config/gcloud/, kubeconfigs (.kube/config, kubeconfig*, *.kubeconfig),
//     .docker/config.json, .dockercfg, .vault-token, .s3cfg, .boto,
//     service-account JSON, Terraform state and variables;
//   - package-manager, database and git credentials: .npmrc, .pypirc,
//     .netrc, .git-credentials, .htpasswd, auth.json, .pgpass, .my.cnf,
//     .cargo/credentials(.toml), .gem/credentials, .terraformrc;
//   - data files named after secrets, credentials, passwords or private keys
//     (client_secret.json, credentials.yaml, passwords.txt, …; secrets.go is
//     code and docs/secrets.md documentation, so neither is one);
//   - editor and backup copies of all of these (id_rsa~, .env.bak, …).
//
// p may be relative or absolute, with slashes or the OS separator; case and
// surrounding white space do not matter. Files whose content gives them
// away whatever their name (a PEM private key in notes.txt) are found by
// SecretContent.
func IsSecretFile(p string) bool {
	p = strings.TrimSpace(p)
	if p == "" {
		return false
	}
	if strings.IndexByte(p, '\\') >= 0 {
		p = strings.ReplaceAll(p, `\`, "/")
	}
	p = asciiLower(p)
	if strings.Contains(p, "/.") || strings.Contains(p, "//") || strings.HasPrefix(p, ".") && (p == "." || strings.HasPrefix(p, "./") || strings.HasPrefix(p, "..")) || strings.HasSuffix(p, "/") {
		p = path.Clean(p)
	}
	dir, name := path.Split(p)
	name = strings.TrimSpace(name)
	if secretDir(strings.TrimSuffix(dir, "/"), name) {
		return true
	}
	name = withoutBackupSuffix(name)
	if isTemplate(name) {
		return false
	}
	return secretName(name)
}

// secretDir reports the directories whose files are all secrets, and the
// files that are secrets because of the directory they are in.
func secretDir(dir, name string) bool {
	if name == ".ssh" || name == ".gnupg" {
		return true // the directory itself
	}
	if dir == "" {
		return false
	}
	prev, last := "", ""
	for rest := dir; rest != ""; {
		seg := rest
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			seg, rest = rest[:i], rest[i+1:]
		} else {
			rest = ""
		}
		seg = strings.TrimSpace(seg)
		switch seg {
		case ".ssh", ".gnupg", ".aws", ".azure", ".password-store":
			return true
		case "gcloud":
			if prev == ".config" {
				return true
			}
		case "secrets", ".secrets":
			if dataExt(path.Ext(name)) {
				return true
			}
		}
		prev, last = seg, seg
	}
	switch {
	case last == ".kube" && name == "config",
		last == ".docker" && name == "config.json",
		last == ".cargo" && (name == "credentials" || name == "credentials.toml"),
		last == ".gem" && name == "credentials",
		last == ".terraform.d" && strings.HasPrefix(name, "credentials"):
		return true
	}
	return false
}

// backupExts are what editors and people append to a copy.
var backupExts = map[string]bool{".bak": true, ".backup": true, ".orig": true, ".old": true, ".save": true, ".swp": true, ".swo": true, ".tmp": true, ".copy": true}

func withoutBackupSuffix(name string) string {
	for range 4 {
		if n := len(name); n > 1 && name[n-1] == '~' {
			name = name[:n-1]
			continue
		}
		ext := path.Ext(name)
		if !backupExts[ext] || len(ext) == len(name) {
			break
		}
		name = name[:len(name)-len(ext)]
		if ext == ".swp" || ext == ".swo" {
			// Vim's swap file of .env is ..env.swp.
			name = strings.TrimPrefix(name, ".")
		}
	}
	// Emacs keeps #name# while a file is being edited.
	if len(name) > 2 && name[0] == '#' && name[len(name)-1] == '#' {
		name = name[1 : len(name)-1]
	}
	return name
}

// isTemplate reports the committed templates of secret files
// (.env.example, credentials.sample.json), which hold no secret.
func isTemplate(name string) bool {
	switch path.Ext(name) {
	case ".example", ".sample", ".template", ".dist":
		return true
	}
	if strings.IndexByte(name, '.') < 0 {
		return false
	}
	return strings.Contains(name, ".example.") || strings.Contains(name, ".sample.") || strings.Contains(name, ".template.") ||
		strings.HasPrefix(name, "example.") || strings.HasPrefix(name, "sample.") || strings.HasPrefix(name, "template.")
}

// secretNames are files that are secrets by their name alone.
var secretNames = map[string]bool{
	"credentials": true, ".npmrc": true, ".pypirc": true, ".netrc": true, "_netrc": true, ".git-credentials": true,
	".htpasswd": true, ".htdigest": true, "htpasswd": true, "auth.json": true, ".pgpass": true, ".dockercfg": true,
	".vault-token": true, ".s3cfg": true, ".my.cnf": true, ".mylogin.cnf": true, ".boto": true, ".terraformrc": true,
	"terraform.rc": true, ".envrc": true, ".env": true, "kubeconfig": true,
	".authinfo": true, ".passwd-s3fs": true,
}

// secretExts are extensions of keys, keystores, certificates, encrypted
// stores and infrastructure state.
var secretExts = map[string]bool{
	".pem": true, ".key": true, ".crt": true, ".der": true, ".p12": true, ".pfx": true, ".pkcs12": true, ".p8": true,
	".keystore": true, ".jks": true, ".jceks": true, ".bks": true, ".ppk": true, ".asc": true, ".gpg": true,
	".kdbx": true, ".keychain": true, ".keychain-db": true, ".keytab": true, ".ovpn": true, ".kubeconfig": true,
	".tfstate": true, ".tfvars": true, ".env": true,
}

// keyFiles are the names ssh-keygen gives private keys (and their .pub).
var keyFiles = []string{"id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "id_xmss"}

func secretName(name string) bool {
	if secretNames[name] {
		return true
	}
	if strings.HasPrefix(name, ".env.") || strings.HasPrefix(name, ".env-") || strings.HasPrefix(name, ".env_") {
		return true
	}
	for _, k := range keyFiles {
		if strings.HasPrefix(name, k) {
			return true
		}
	}
	ext := path.Ext(name)
	if secretExts[ext] || strings.Contains(name, ".tfstate") || strings.HasSuffix(name, ".tfvars.json") {
		return true
	}
	if strings.HasPrefix(name, "kubeconfig") {
		return true
	}
	if ext == ".json" && (strings.HasPrefix(name, "service-account") || strings.HasPrefix(name, "service_account") ||
		strings.HasPrefix(name, "serviceaccount") || strings.Contains(name, "service") && strings.Contains(name, "account")) {
		return true
	}
	if !dataExt(ext) {
		return false // code and documentation about secrets are neither
	}
	for _, word := range []string{"secret", "credential", "passw", "private_key", "private-key", "privatekey"} {
		if strings.Contains(name, word) {
			return true
		}
	}
	return false
}

// dataExt reports the extensions of files that hold data rather than code
// or prose: a file named after secrets with one of these holds them.
func dataExt(ext string) bool {
	switch ext {
	case "", ".json", ".yaml", ".yml", ".env", ".txt", ".toml", ".ini", ".conf", ".cfg", ".cnf", ".properties",
		".xml", ".config", ".csv", ".tsv", ".enc", ".dat", ".db", ".sqlite", ".plist", ".jsonc", ".json5", ".hcl", ".tfvars":
		return true
	}
	return false
}

// maxNamed is how many left-out paths a note names.
const maxNamed = 10

// LeftOut is the line a view that dropped secret files says so with:
// "1 secret file left out: .env", "" when it dropped none.
func LeftOut(paths []string) string {
	if len(paths) == 0 {
		return ""
	}
	word := "files"
	if len(paths) == 1 {
		word = "file"
	}
	named := paths
	more := ""
	if len(named) > maxNamed {
		named = named[:maxNamed]
		more = fmt.Sprintf(" (+%d more)", len(paths)-maxNamed)
	}
	return fmt.Sprintf("%d secret %s left out: %s%s", len(paths), word, strings.Join(named, ", "), more)
}
