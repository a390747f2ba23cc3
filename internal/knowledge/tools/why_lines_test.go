package tools

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	spec "github.com/kontext-dev/kontext/gen/toolsets/knowledge"
	"github.com/kontext-dev/kontext/internal/git"
	"github.com/kontext-dev/kontext/internal/gittest"
	"github.com/kontext-dev/kontext/internal/knowledge"
)

// ctx_why on lines reads the commits blame names in one git log: it ran
// one git process per commit (up to 500 per call), which a flood of calls
// multiplied.
func TestWhyLinesReadsTheirCommitsInOneProcess(t *testing.T) {
	dir, _ := openTest(t)
	lines := []string{"package src", "", "func a() {}", "func b() {}", "func c() {}", "func d() {}"}
	for i := 2; i < len(lines); i++ {
		gittest.WriteFile(t, dir, "src/api.go", strings.Join(lines[:i+1], "\n")+"\n")
		gittest.Git(t, dir, "commit", "-q", "-am", "Add line "+lines[i])
	}
	svc := knowledge.NewService(dir)
	svc.Getenv = func(string) string { return "" }
	t.Cleanup(func() { svc.Close() })
	h := New(svc)
	target := "src/api.go:1-6"
	// The first call opens the service (git rev-parse, config, branch).
	if _, err := h.CtxWhy(context.Background(), &spec.CtxWhyInput{Target: target}); err != nil {
		t.Fatal(err)
	}
	before := git.Processes().Started
	res, err := h.CtxWhy(context.Background(), &spec.CtxWhyInput{Target: target})
	started := git.Processes().Started - before
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	for _, c := range res.Content {
		var block struct{ Text string }
		if err := json.Unmarshal(c, &block); err != nil {
			t.Fatal(err)
		}
		text.WriteString(block.Text)
	}
	for _, want := range []string{"Add line func a() {}", "Add line func b() {}", "shop"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("ctx_why %s lacks %q:\n%s", target, want, text.String())
		}
	}
	// blame, then HEAD and one log for the lines' commits, whatever their
	// number (11 processes before: a HEAD and a log per commit).
	if started > 3 {
		t.Errorf("ctx_why on 6 lines of 5 commits started %d git processes", started)
	}
}

// A request cancelled (or timed out) before its git work starts none of
// it: the git layer checks the context before taking a process slot.
func TestCancelledWhyStartsNoGit(t *testing.T) {
	dir, _ := openTest(t)
	svc := knowledge.NewService(dir)
	svc.Getenv = func(string) string { return "" }
	t.Cleanup(func() { svc.Close() })
	h := New(svc)
	if _, err := h.CtxWhy(context.Background(), &spec.CtxWhyInput{Target: "src/api.go"}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	before := git.Processes().Started
	for _, target := range []string{"src/api.go", "src/api.go:1-1", "package"} {
		if _, err := h.CtxWhy(ctx, &spec.CtxWhyInput{Target: target}); !errors.Is(err, context.Canceled) {
			t.Errorf("ctx_why %s with a cancelled context: %v", target, err)
		}
	}
	if n := git.Processes().Started - before; n != 0 {
		t.Errorf("cancelled requests started %d git processes", n)
	}
}
