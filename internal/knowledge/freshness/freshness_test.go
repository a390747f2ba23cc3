package freshness

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kontext-dev/kontext/internal/git"
	"github.com/kontext-dev/kontext/internal/gittest"
	"github.com/kontext-dev/kontext/internal/knowledge/store"
)

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
	gittest.Run(h.t, h.dir, nil, "add", ".")
	date := fmt.Sprintf("2026-01-%02dT12:00:00Z", day)
	gittest.Run(h.t, h.dir, []string{"GIT_AUTHOR_DATE=" + date, "GIT_COMMITTER_DATE=" + date}, "commit", "-q", "-m", fmt.Sprintf("change %d", h.n))
}

func entry(id, date, file string, paths ...string) *store.Entry {
	return &store.Entry{ID: id, Kind: store.KindDecision, Status: store.StatusAccepted, Date: date, Path: file, Paths: paths}
}

func TestStale(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	gittest.Run(t, dir, nil, "init", "-q", "-b", "main")
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
		// Not in history (recorded, never committed): fresh, however
		// much its paths changed since its date.
		entry("web", "2026-01-01", ".ai/decisions/web.md", "src/web"),
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
	want := []Stale{{ID: "rest", Commits: 3, Since: "2026-01-03"}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("threshold 2: %v, want %v", got, want)
	}
	// web: days 5 and 6 touch src/web after its date, but it is not
	// committed: fresh even with threshold 1.
	got, _ = c.Stale(ctx, repo, entries, 1)
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
	gittest.Run(t, dir, nil, "init", "-q", "-b", "main")
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
	gittest.Run(t, dir, nil, "init", "-q", "-b", "main")
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

// The count starts at the commit that last changed the decision: one
// recorded minutes ago with an old date (the bootstrap dates decisions by
// their history) is fresh, and revising one settles it again. One whose
// file was last committed before the pass reaches is counted from its
// date.
func TestStaleCountsFromTheLastChange(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	gittest.Run(t, dir, nil, "init", "-q", "-b", "main")
	h := &history{t: t, dir: dir}
	h.commit(1, ".ai/decisions/early.md") // dated the 4th, the oldest date: the pass starts on the 3rd
	for day := 2; day <= 6; day++ {
		h.commit(day, "src/api/a.go", "src/web/w.js")
	}
	h.commit(7, ".ai/decisions/rest.md") // dated the 5th, recorded on the 7th
	h.commit(8, "src/api/a.go")
	h.commit(9, "src/web/w.js", ".ai/decisions/web.md")
	h.commit(10, "src/web/w.js")
	h.commit(11, "src/web/w.js")
	h.commit(12, "src/web/w.js")
	h.commit(13, ".ai/decisions/web.md") // revised: settled again
	h.commit(14, "src/web/w.js", "src/api/a.go")
	repo, err := git.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	entries := []*store.Entry{
		entry("rest", "2026-01-05", ".ai/decisions/rest.md", "src/api/**"),
		entry("web", "2026-01-06", ".ai/decisions/web.md", "src/web/**"),
		entry("early", "2026-01-04", ".ai/decisions/early.md", "src/web/**"),
	}
	var c Checker
	got, err := c.Stale(ctx, repo, entries, 1)
	if err != nil {
		t.Fatal(err)
	}
	// rest: days 8 and 14 (2); web: day 14 only (1, not more than 1);
	// early: its file's commit (day 1) is before the pass (from the 3rd):
	// days 4, 5, 6, 9–12 and 14 after its date (8).
	want := []Stale{{ID: "early", Commits: 8, Since: "2026-01-04"}, {ID: "rest", Commits: 2, Since: "2026-01-07"}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("%v, want %v", got, want)
	}
}
