package clients

import (
	"os"
	"path/filepath"
	"testing"
)

func TestDetect(t *testing.T) {
	none := func(string) string { return "" }
	repo := t.TempDir()
	if got := Detect(repo, none); got != "" {
		t.Errorf("an empty repository and shell suggest %q", got)
	}
	if got := ConnectHint(repo, none); got != "Agent not connected yet? kontext config <client> --write connects it, e.g. kontext config claude-code --write (kontext config --list names the clients)." {
		t.Errorf("hint %q", got)
	}
	// .vscode alone is editor settings, not an MCP client.
	if err := os.MkdirAll(filepath.Join(repo, ".vscode"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := Detect(repo, none); got != "" {
		t.Errorf(".vscode/ alone suggests %q", got)
	}
	if err := os.MkdirAll(filepath.Join(repo, ".cursor"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := Detect(repo, none); got != "cursor" {
		t.Errorf("with .cursor/: %q", got)
	}
	if got := ConnectHint(repo, none); got != "Agent not connected yet? kontext config cursor --write connects Cursor (kontext config --list names the others)." {
		t.Errorf("hint %q", got)
	}
	// The terminal outranks the files, and Cursor's terminal outranks VS Code's.
	env := map[string]string{"TERM_PROGRAM": "vscode"}
	getenv := func(k string) string { return env[k] }
	if got := Detect(repo, getenv); got != "vscode" {
		t.Errorf("in VS Code's terminal: %q", got)
	}
	env["CURSOR_TRACE_ID"] = "x"
	if got := Detect(repo, getenv); got != "cursor" {
		t.Errorf("in Cursor's terminal: %q", got)
	}
	env["CLAUDECODE"] = "1"
	if got := Detect(repo, getenv); got != "claude-code" {
		t.Errorf("in Claude Code: %q", got)
	}
	for _, s := range agentSigns {
		if _, ok := Lookup(s.id); !ok {
			t.Errorf("sign for unknown client %q", s.id)
		}
	}
}
