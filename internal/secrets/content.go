package secrets

import (
	"bytes"
	"path"
	"strings"

	"github.com/kontext-dev/kontext/internal/lazyregexp"
)

// Content rules: what makes a file a secret whatever its name. They apply
// to the files kontext shows or indexes (ctx_read, blame, patches, the
// documentation index, the bootstrap's inline files and the heuristics'
// reads); the import parser, which never shows what it reads, goes by the
// path alone. Each rule starts with a literal test, so text without the
// rule's marker costs a few memchr-speed scans.
var (
	kubeKeyData   = lazyregexp.New(`(?m)^[ \t-]*client-key-data:[ \t]*[A-Za-z0-9+/=]{16,}`)
	kubeConfig    = lazyregexp.New(`(?m)^kind:[ \t]*Config[ \t]*$`)
	kubeUserCreds = lazyregexp.New(`(?m)^[ \t]+(?:token|password|client-key-data):[ \t]*["']?[^\s"'$]{8,}`)
	dockerAuth    = lazyregexp.New(`"auth"[ \t]*:[ \t]*"[A-Za-z0-9+/=]{8,}"`)
	npmAuth       = lazyregexp.New(`(?m)(?:^|:)[ \t]*_(?:authToken|auth|password)[ \t]*=[ \t]*[^\s$"'{]{6,}`)
	netrcMachine  = lazyregexp.New(`(?m)^[ \t]*machine[ \t]+\S+`)
	netrcPassword = lazyregexp.New(`(?m)(?:^|[ \t])password[ \t]+\S+`)
	iniPassword   = lazyregexp.New(`(?m)^[ \t]*password[ \t]*[=:][ \t]*\S{4,}`)
	awsCredsFile  = lazyregexp.New(`(?m)^[ \t]*aws_secret_access_key[ \t]*=[ \t]*[A-Za-z0-9/+=]{20,}`)
)

// SecretContent reports, by the name of the rule that recognised it, a file
// whose content is a credential: a PEM, OpenSSH or PGP private key, a
// service-account JSON key (in any file: a key is a key), or, in a file
// that is neither code nor documentation by its extension, a kubeconfig
// with credentials, a Docker registry login, an npm, PyPI, netrc or AWS
// credentials file (the parser of a format, or its manual, has the format's
// shape without being a credential). p is the file's path, "" when unknown.
// It returns "" for anything else, including ordinary files that mention a
// secret: those are redacted value by value on the way out, not withheld
// whole.
func SecretContent(p string, data []byte) string {
	has := func(s string) bool { return bytes.Contains(data, []byte(s)) }
	switch {
	case has("PRIVATE KEY") && len(findPrivateKeys(string(data))) > 0:
		return "private-key"
	case has(`"service_account"`) && has(`"private_key`):
		return "gcp-service-account"
	}
	if codeOrDocs(p) {
		return ""
	}
	switch {
	case has("client-key-data:") && kubeKeyData.Regexp().Match(data),
		has("kind:") && has("users:") && kubeConfig.Regexp().Match(data) && kubeUserCreds.Regexp().Match(data):
		return "kubeconfig"
	case has(`"auths"`) && dockerAuth.Regexp().Match(data):
		return "docker-auth"
	case has("_auth") || has("_password"):
		if npmAuth.Regexp().Match(data) {
			return "npm-auth"
		}
	}
	switch {
	case has("machine") && has("password") && netrcMachine.Regexp().Match(data) && netrcPassword.Regexp().Match(data):
		return "netrc"
	case (has("[pypi") || has("[distutils]")) && iniPassword.Regexp().Match(data):
		return "pypirc"
	case has("aws_secret_access_key") && awsCredsFile.Regexp().Match(data):
		return "aws-credentials"
	}
	return ""
}

// codeOrDocs reports a path whose extension names source code or
// documentation.
func codeOrDocs(p string) bool {
	switch strings.ToLower(path.Ext(p)) {
	case ".go", ".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs", ".py", ".rs", ".java", ".kt", ".kts",
		".rb", ".php", ".cs", ".ex", ".exs", ".swift", ".scala", ".c", ".h", ".cc", ".cpp", ".hpp", ".m", ".sh", ".bash",
		".zsh", ".ps1", ".pl", ".lua", ".dart", ".groovy", ".clj", ".hs", ".ml", ".r", ".jl", ".zig", ".nim", ".vue", ".svelte",
		".md", ".markdown", ".rst", ".adoc", ".asciidoc", ".html", ".htm", ".tex", ".org":
		return true
	}
	return false
}
