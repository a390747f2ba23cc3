package index

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kontext-dev/kontext/internal/git"

	"github.com/kontext-dev/kontext/internal/gittest"
)

// testRepo is a real git repository in a temp dir.
type testRepo struct {
	t    testing.TB
	dir  string
	repo *git.Repo
	date int // advances so that commits have distinct, ordered dates
}

func newTestRepo(t testing.TB) *testRepo {
	t.Helper()
	dir := t.TempDir()
	r := &testRepo{t: t, dir: dir}
	r.git("init", "-q", "-b", "main")
	r.git("config", "user.name", "Ada Lovelace")
	r.git("config", "user.email", "ada@example.com")
	r.git("config", "commit.gpgsign", "false")
	repo, err := git.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { repo.Close() })
	r.repo = repo
	return r
}

func (r *testRepo) git(args ...string) string {
	r.t.Helper()
	date := "2026-01-02T03:04:05Z"
	if r.date > 0 {
		date = "2026-02-" + twoDigits(r.date%28+1) + "T10:00:00Z"
	}
	return gittest.Run(r.t, r.dir, append(gittest.Identity("Ada Lovelace", "ada@example.com"), gittest.At(date)...), args...)
}

func twoDigits(n int) string {
	if n < 10 {
		return "0" + string(rune('0'+n))
	}
	return string(rune('0'+n/10)) + string(rune('0'+n%10))
}

func (r *testRepo) write(rel, body string) {
	r.t.Helper()
	p := filepath.Join(r.dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

func (r *testRepo) remove(rel string) {
	r.t.Helper()
	if err := os.Remove(filepath.Join(r.dir, filepath.FromSlash(rel))); err != nil {
		r.t.Fatal(err)
	}
}

// commit writes files and commits them with message.
func (r *testRepo) commit(message string, files ...string) string {
	r.t.Helper()
	for i := 0; i+1 < len(files); i += 2 {
		r.write(files[i], files[i+1])
	}
	r.date++
	r.git("add", "-A")
	r.git("commit", "-q", "--allow-empty", "-m", message)
	return strings.TrimSpace(r.git("rev-parse", "HEAD"))
}

// localSources are the three local sources over r, entries in memory.
func (r *testRepo) localSources(entries *MemorySource) []Source {
	r.t.Helper()
	docs, err := NewDocsSource(r.repo, DocsOptions{})
	if err != nil {
		r.t.Fatal(err)
	}
	return []Source{NewCommitsSource(r.repo, CommitsOptions{}), docs, entries}
}

func openIndex(t testing.TB, dir string, minInterval time.Duration, sources ...Source) *Index {
	t.Helper()
	ix, err := Open(context.Background(), Options{
		Dir:         dir,
		Sources:     sources,
		MinInterval: minInterval,
		Logf:        func(format string, args ...any) { t.Logf(format, args...) },
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return ix
}

func search(t testing.TB, ix *Index, q Query) []Hit {
	t.Helper()
	hits, err := ix.Search(context.Background(), q)
	if err != nil {
		t.Fatalf("search %q: %v", q.Text, err)
	}
	return hits
}

func uris(hits []Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.URI
	}
	return out
}

func has(hits []Hit, uri string) bool {
	for _, h := range hits {
		if h.URI == uri {
			return true
		}
	}
	return false
}

func rank(hits []Hit, uri string) int {
	for i, h := range hits {
		if h.URI == uri {
			return i
		}
	}
	return -1
}
