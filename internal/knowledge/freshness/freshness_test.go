package freshness

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/kontext-dev/kontext/internal/git"
	"github.com/kontext-dev/kontext/internal/knowledge/store"
)

func gitCmd(t *testing.T, dir string, env []string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=T", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// history commits files at given days of January 2026.
type history struct {
	t   *testing.T
	dir string
	n   int
}

func (h *history) commit(day int, files ...string) {
	h.t.Helper()
	h.n++
	for _, f := range files {
		p := filepath.Join(h.dir, filepath.FromSlash(f))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(fmt.Sprintf("change %d\n", h.n)), 0o644)
	}
	gitCmd(h.t, h.dir, nil, "add", ".")
	date := fmt.Sprintf("2026-01-%02dT12:00:00Z", day)
	gitCmd(h.t, h.dir, []string{"GIT_AUTHOR_DATE=" + date, "GIT_COMMITTER_DATE=" + date}, "commit", "-q", "-m", fmt.Sprintf("change %d", h.n))
}

func entry(id, date, file string, paths ...string) *store.Entry {
	return &store.Entry{ID: id, Kind: store.KindDecision, Status: store.StatusAccepted, Date: date, Path: file, Paths: paths}
}

func TestStale(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	gitCmd(t, dir, nil, "init", "-q", "-b", "main")
	h := &history{t: t, dir: dir}
	h.commit(1, "src/api/a.go", "src/web/w.js")
	h.commit(2, "src/api/a.go") // before the decisions
	// The REST decision is committed on day 3 with a date of day 1: its
	// commit, not its date, starts the count.
	h.commit(3, ".ai/decisions/rest.md", "src/api/a.go")
	h.commit(4, "src/api/a.go")
	h.commit(5, "src/api/b.go", "src/web/w.js")
	h.commit(6, "src/web/w.js")
	h.commit(7, "src/api/v1/c.go")
	repo, err := git.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()

	entries := []*store.Entry{
		entry("rest", "2026-01-01", ".ai/decisions/rest.md", "src/api/**"),
		// Not in history (never committed): counted from its date.
		entry("web", "2026-01-05", ".ai/decisions/web.md", "src/web"),
		entry("quiet", "2026-01-01", ".ai/decisions/quiet.md", "docs/**"),
		{ID: "retired", Kind: store.KindDecision, Status: store.StatusSuperseded, Date: "2026-01-01", Paths: []string{"src/**"}},
		{ID: "undated", Kind: store.KindDecision, Paths: []string{"src/**"}},
		{ID: "note", Kind: store.KindLearning, Date: "2026-01-01", Paths: []string{"src/**"}},
	}
	var c Checker
	got, err := c.Stale(ctx, repo, entries, 2)
	if err != nil {
		t.Fatal(err)
	}
	want := []Stale{{ID: "rest", Commits: 3, Since: "2026-01-01"}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("threshold 2: %v, want %v", got, want)
	}
	// web: days 5 and 6 touch src/web since its date: 2, not more than 2;
	// with threshold 1 it is stale.
	got, _ = c.Stale(ctx, repo, entries, 1)
	want = []Stale{{ID: "rest", Commits: 3, Since: "2026-01-01"}, {ID: "web", Commits: 2, Since: "2026-01-05"}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("threshold 1: %v, want %v", got, want)
	}
	if got, _ := c.Stale(ctx, repo, entries, 3); len(got) != 0 {
		t.Errorf("threshold 3: %v", got)
	}
}

func TestStaleIsCachedPerHead(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	gitCmd(t, dir, nil, "init", "-q", "-b", "main")
	h := &history{t: t, dir: dir}
	h.commit(1, ".ai/decisions/rest.md")
	h.commit(2, "src/api/a.go")
	h.commit(3, "src/api/a.go")
	repo, _ := git.Open(ctx, dir)
	defer repo.Close()
	entries := []*store.Entry{entry("rest", "2026-01-01", ".ai/decisions/rest.md", "src/api/**")}
	file := filepath.Join(t.TempDir(), "freshness.json")

	c := &Checker{File: file}
	if got, _ := c.Stale(ctx, repo, entries, 1); len(got) != 1 || got[0].Commits != 2 {
		t.Fatalf("got %v", got)
	}
	// Another process reads the file; a planted answer proves it did not
	// run git again.
	data, _ := os.ReadFile(file)
	planted := []byte(string(data[:len(data)-len(`"commits":2,"since":"2026-01-01"}]}`)]) + `"commits":99,"since":"2026-01-01"}]}`)
	os.WriteFile(file, planted, 0o644)
	c2 := &Checker{File: file}
	if got, _ := c2.Stale(ctx, repo, entries, 1); len(got) != 1 || got[0].Commits != 99 {
		t.Fatalf("the cache file was not used: %v (%s)", got, planted)
	}
	// A new commit is a new HEAD: computed again.
	h.commit(4, "src/api/a.go")
	if got, _ := c2.Stale(ctx, repo, entries, 1); len(got) != 1 || got[0].Commits != 3 {
		t.Fatalf("after a commit: %v", got)
	}
}

func TestQuickAnswersWithTheLastResultWhileComputing(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	gitCmd(t, dir, nil, "init", "-q", "-b", "main")
	h := &history{t: t, dir: dir}
	h.commit(1, ".ai/decisions/rest.md")
	h.commit(2, "src/api/a.go")
	h.commit(3, "src/api/a.go")
	repo, _ := git.Open(ctx, dir)
	defer repo.Close()
	entries := []*store.Entry{entry("rest", "2026-01-01", ".ai/decisions/rest.md", "src/api/**")}

	var c Checker
	got, fresh := c.Quick(ctx, repo, entries, 1, 0)
	if fresh && (len(got) != 1 || got[0].Commits != 2) {
		t.Fatalf("fresh answer %v", got)
	}
	if !fresh && len(got) != 0 {
		t.Fatalf("nothing known yet, got %v", got)
	}
	if got, fresh = c.Quick(ctx, repo, entries, 1, time.Minute); !fresh || len(got) != 1 || got[0].Commits != 2 {
		t.Fatalf("after waiting: %v (fresh %v)", got, fresh)
	}
	h.commit(4, "src/api/a.go")
	got, fresh = c.Quick(ctx, repo, entries, 1, 0)
	if want := 2; !fresh && (len(got) != 1 || got[0].Commits != want) {
		t.Fatalf("while computing, the last answer: %v", got)
	}
	if got, _ = c.Quick(ctx, repo, entries, 1, time.Minute); len(got) != 1 || got[0].Commits != 3 {
		t.Fatalf("the new answer: %v", got)
	}
}
