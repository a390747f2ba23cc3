package tools

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/kontext-dev/kontext/internal/gittest"
)

// A focus of 2,000 levels took 47.7 s: the brief tried an AGENTS.md in
// every one of them, each through the (then quadratic) path guard. Only
// the levels that exist are tried now.
func TestBriefFocusTriesOnlyExistingDirectories(t *testing.T) {
	dir, svc, o := openTestService(t)
	gittest.WriteFile(t, dir, "src/pay/AGENTS.md", "Amounts are integer cents.\n")
	gittest.WriteFile(t, dir, "src/AGENTS.md", "Run go test ./src/... first.\n")
	deep := "src/pay/" + strings.Repeat("level/", 2000) + "x.go"
	f := newFocus([]string{deep, "./src/pay/", "missing/" + strings.Repeat("a/", 2000)}, nil)
	got := nestedRuleFiles(o, f)
	want := []string{"src/pay/AGENTS.md", "src/AGENTS.md"}
	if !slices.Equal(got, want) {
		t.Fatalf("nested rule files %q, want %q", got, want)
	}
	text := brief(context.Background(), svc, o, []string{deep}, 20000, false)
	for _, w := range []string{"src/pay/AGENTS.md: Amounts are integer cents.", "src/AGENTS.md: Run go test"} {
		if !strings.Contains(text, w) {
			t.Errorf("the brief lacks %q:\n%s", w, text)
		}
	}
	if strings.Index(text, "src/pay/AGENTS.md") > strings.Index(text, "src/AGENTS.md") {
		t.Errorf("the deeper rules come first:\n%s", text)
	}
}
