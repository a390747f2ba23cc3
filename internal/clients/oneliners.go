package clients

import (
	"encoding/base64"
	"strings"
)

// The clients' own add commands (sources beside each preset), as
// arguments: ShellJoin quotes them for a POSIX shell.

func claudeCommandLine(s Spec) ([]string, error) {
	return append([]string{"claude", "mcp", "add", "--scope", string(s.Scope), s.name(), "--", s.Command}, s.argv()...), nil
}

func codexCommandLine(s Spec) ([]string, error) {
	return append([]string{"codex", "mcp", "add", s.name(), "--", s.Command}, s.argv()...), nil
}

// geminiCommandLine passes the server's arguments after `--`, where
// Gemini's parser takes them as the server's and never as its own flags.
// The command has no option for cwd, so --write is the way to get one.
func geminiCommandLine(s Spec) ([]string, error) {
	argv := []string{"gemini", "mcp", "add", "--scope", string(s.Scope), s.name(), s.Command}
	if args := s.argv(); len(args) > 0 {
		argv = append(append(argv, "--"), args...)
	}
	return argv, nil
}

// vscodeInstall is the server as `code --add-mcp` and the install link
// take it: the mcp.json entry with its name inside.
type vscodeInstall struct {
	Name    string   `json:"name"`
	Type    string   `json:"type"`
	Command string   `json:"command"`
	Args    []string `json:"args"`
}

func vscodeInstallJSON(s Spec) (string, error) {
	raw, err := marshalJSON(vscodeInstall{Name: s.name(), Type: "stdio", Command: s.Command, Args: s.argv()})
	return string(raw), err
}

func vscodeCommandLine(s Spec) ([]string, error) {
	config, err := vscodeInstallJSON(s)
	if err != nil {
		return nil, err
	}
	return []string{"code", "--add-mcp", config}, nil
}

// vscodeLink is vscode:mcp/install?<JSON>, the JSON escaped as
// encodeURIComponent does, since VS Code reads it back with
// decodeURIComponent (in which + is not a space).
func vscodeLink(s Spec) (string, error) {
	config, err := vscodeInstallJSON(s)
	if err != nil {
		return "", err
	}
	return "vscode:mcp/install?" + encodeURIComponent(config), nil
}

// cursorLink carries the server's JSON, without its name, in base64.
func cursorLink(s Spec) (string, error) {
	raw, err := marshalJSON(commandArgsServer{Command: s.Command, Args: s.argv()})
	if err != nil {
		return "", err
	}
	config := base64.StdEncoding.EncodeToString(raw)
	return "cursor://anysphere.cursor-deeplink/mcp/install?name=" + encodeURIComponent(s.name()) + "&config=" + encodeURIComponent(config), nil
}

// encodeURIComponent escapes s as JavaScript's function of that name does:
// everything but letters, digits and - _ . ! ~ * ' ( ) as UTF-8 %XX.
func encodeURIComponent(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', strings.IndexByte("-_.!~*'()", c) >= 0:
			b.WriteByte(c)
		default:
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		}
	}
	return b.String()
}

// ShellJoin quotes each argument for a POSIX shell (sh, bash, zsh) and
// joins them: arguments made only of safe characters stay bare, the others
// are single-quoted, a single quote inside written as '\”.
func ShellJoin(argv []string) string {
	quoted := make([]string, len(argv))
	for i, a := range argv {
		quoted[i] = shellQuote(a)
	}
	return strings.Join(quoted, " ")
}

func shellQuote(a string) string {
	if a == "" {
		return "''"
	}
	safe := true
	for _, r := range a {
		if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || strings.ContainsRune("-_./:=@%+,", r)) {
			safe = false
			break
		}
	}
	if safe {
		return a
	}
	return "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
}
