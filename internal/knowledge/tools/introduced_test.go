package tools

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	spec "github.com/kontext-dev/kontext/gen/toolsets/knowledge"
	"github.com/kontext-dev/kontext/internal/gittest"

	"github.com/kontext-dev/kontext/internal/knowledge"
)

// kontext log and ctx_why <sha> follow renames: an ADR folder moved from
// doc/ to docs/architecture/ was introduced by the commit that wrote it,
// and the move is shown as a move.
func TestLogAndWhyFollowRenames(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	gittest.Git(t, dir, "init", "-q", "-b", "main")
	gittest.WriteFile(t, dir, "doc/adr/0001-use-go.md", "# 1. Use Go\n\nDate: 2017-06-30\n\n## Status\n\nAccepted\n\n## Decision\n\nWe write the services in Go.\n")
	gittest.Git(t, dir, "add", ".")
	gittest.Git(t, dir, "commit", "-q", "-m", "Record the decision to use Go")
	added := strings.TrimSpace(gitOut(t, dir, "rev-parse", "HEAD"))
	gittest.WriteFile(t, dir, "doc/adr/0002-use-postgres.md", "# 2. Use Postgres\n\nDate: 2018-01-02\n\n## Status\n\nAccepted\n\n## Decision\n\nOrders live in Postgres.\n")
	gittest.Git(t, dir, "add", ".")
	gittest.Git(t, dir, "commit", "-q", "-m", "Record Postgres")
	second := strings.TrimSpace(gitOut(t, dir, "rev-parse", "HEAD"))
	gittest.Git(t, dir, "mv", "doc", "docs")
	gittest.Git(t, dir, "commit", "-q", "-m", "Rename doc to docs")
	gittest.Git(t, dir, "mv", "docs/adr", "docs/decisions")
	gittest.WriteFile(t, dir, ".ai/kontext.toml", "[store]\ndir = \".ai\"\n\n[store.kinds.decision]\npath = \"docs/decisions\"\nstyle = \"fields\"\nnumbering = \"sequential\"\n")
	gittest.Git(t, dir, "add", ".")
	gittest.Git(t, dir, "commit", "-q", "-m", "Move the decisions and set up kontext")
	moved := strings.TrimSpace(gitOut(t, dir, "rev-parse", "HEAD"))

	svc := knowledge.NewService(dir)
	svc.Getenv = func(k string) string {
		if k == "KONTEXT_CONFIG_DIR" {
			return filepath.Join(dir, ".no-user-config")
		}
		return ""
	}
	t.Cleanup(func() { svc.Close() })
	h := New(svc)
	res, err := h.CtxLog(ctx, &spec.CtxLogInput{Kind: "decision", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	log := resultText(t, res)
	if !strings.Contains(log, "0001-use-go  Use Go  [accepted]  (introduced in "+added[:8]+")") ||
		!strings.Contains(log, "0002-use-postgres  Use Postgres  [accepted]  (introduced in "+second[:8]+")") {
		t.Errorf("kontext log does not follow the renames (added in %s and %s):\n%s", added[:8], second[:8], log)
	}
	res, err = h.CtxWhy(ctx, &spec.CtxWhyInput{Target: added, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if why := resultText(t, res); !strings.Contains(why, "## Knowledge it introduced\n- kx:0001-use-go Use Go\n") {
		t.Errorf("ctx_why of the commit that wrote the ADR:\n%s", why)
	}
	res, err = h.CtxWhy(ctx, &spec.CtxWhyInput{Target: moved, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	why := resultText(t, res)
	for _, want := range []string{
		"- R docs/adr/0001-use-go.md → docs/decisions/0001-use-go.md\n",
		"## Knowledge it only moved\n",
		"- kx:0001-use-go Use Go: moved from docs/adr/0001-use-go.md; introduced in git:" + added[:8] + "\n",
	} {
		if !strings.Contains(why, want) {
			t.Errorf("ctx_why of the move lacks %q:\n%s", want, why)
		}
	}
	if strings.Contains(why, "## Knowledge it introduced") {
		t.Errorf("the move is not where the ADRs came from:\n%s", why)
	}
}

func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %v: %v", args, err)
	}
	return string(out)
}
