package cli

import (
	"slices"
	"testing"
)

func TestSuggest(t *testing.T) {
	commands := []string{"mcp", "tools", "call", "brief", "search", "read", "why", "log", "capture", "inbox", "prepare-commit", "settings", "check", "status", "analyze", "impact", "config", "hooks", "init", "scan", "history", "render", "completion", "version"}
	for _, tc := range []struct {
		typed string
		want  []string
	}{
		{"stauts", []string{"status"}},
		{"serach", []string{"search"}},
		{"STATUS", []string{"status"}},
		{"analyse", []string{"analyze"}},
		{"lgo", []string{"log"}},
		{"tool", []string{"tools"}},
		{"prep", []string{"prepare-commit"}}, // the one command it begins
		{"ver", []string{"version"}},
		{"xyzzy", nil},
		{"foo", nil},                // two steps from log is not close for three letters
		{"s", nil},                  // one letter is close to too much
		{"re", nil},                 // so are two
		{"sta", []string{"status"}}, // the one command it begins
		{"in", nil},
	} {
		got := suggest(tc.typed, commands)
		if !slices.Equal(got, tc.want) {
			t.Errorf("suggest(%q) = %q, want %q", tc.typed, got, tc.want)
		}
	}
	if got := suggest("che", []string{"check", "chess"}); got != nil {
		t.Errorf("two commands begin with che, suggest(che) = %q, want none", got)
	}
	if got := didYouMean("tcsh", []string{"bash", "zsh", "fish", "powershell"}, quoted); got != "" {
		t.Errorf("didYouMean(tcsh) = %q, want nothing", got)
	}
	if got := didYouMean("zhs", []string{"bash", "zsh", "fish", "powershell"}, quoted); got != ` — did you mean "zsh"?` {
		t.Errorf("didYouMean(zhs) = %q", got)
	}
}
