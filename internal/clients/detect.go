package clients

import (
	"os"
	"path/filepath"
)

// agentSigns are how a repository or a shell shows which agent its user
// has: a client's own directory or file in the repository, or a variable
// its integrated terminal sets. The first match wins, so the more specific
// signs come first (Cursor's terminal also says TERM_PROGRAM=vscode).
var agentSigns = []struct {
	id     string
	env    string // set, and non-empty, in the client's terminal
	envVal string // the value env must have; "" is any
	file   string // relative to the repository's top level
}{
	{id: "claude-code", env: "CLAUDECODE"},
	{id: "cursor", env: "CURSOR_TRACE_ID"},
	{id: "zed", env: "ZED_TERM"},
	{id: "vscode", env: "TERM_PROGRAM", envVal: "vscode"},
	{id: "claude-code", file: ".mcp.json"},
	{id: "cursor", file: ".cursor"},
	{id: "vscode", file: ".vscode/mcp.json"},
	{id: "zed", file: ".zed"},
	{id: "gemini", file: ".gemini"},
	{id: "codex", file: ".codex"},
	{id: "kiro", file: ".kiro"},
	{id: "opencode", file: "opencode.json"},
	{id: "continue", file: ".continue"},
}

// Detect names the agent the user of repo most likely has, from the
// terminal it runs in and the repository's files, or "" when nothing says.
func Detect(repo string, getenv func(string) string) string {
	for _, s := range agentSigns {
		switch {
		case s.env != "":
			if v := getenv(s.env); v != "" && (s.envVal == "" || v == s.envVal) {
				return s.id
			}
		case repo != "":
			if _, err := os.Stat(filepath.Join(repo, filepath.FromSlash(s.file))); err == nil {
				return s.id
			}
		}
	}
	return ""
}

// ConnectHint is the one line that tells someone who just set up a
// repository how to connect their agent to it (kontext init ends with it).
func ConnectHint(repo string, getenv func(string) string) string {
	if id := Detect(repo, getenv); id != "" {
		c, _ := Lookup(id)
		return "Agent not connected yet? kontext config " + id + " --write connects " + c.Title + " (kontext config --list names the others)."
	}
	return "Agent not connected yet? kontext config <client> --write connects it, e.g. kontext config claude-code --write (kontext config --list names the clients)."
}
