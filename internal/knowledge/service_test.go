package knowledge

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/kontext-dev/kontext/internal/fswatch"
	"github.com/kontext-dev/kontext/internal/gittest"
	"github.com/kontext-dev/kontext/internal/repo"
)

// openTest opens the knowledge of a new repository with one commit.
func openTest(t *testing.T) (string, *Opened) {
	t.Helper()
	dir, _, o := openTestService(t)
	return dir, o
}

// openTestService is openTest with the service that opened the store.
func openTestService(t *testing.T) (string, *Service, *Opened) {
	t.Helper()
	dir := t.TempDir()
	gittest.Git(t, dir, "init", "-q", "-b", "main")
	gittest.WriteFile(t, dir, "README.md", "# shop\n\nA shop.\n")
	gittest.WriteFile(t, dir, "src/api.go", "package src\n")
	gittest.Git(t, dir, "add", ".")
	gittest.Git(t, dir, "commit", "-q", "-m", "shop")
	svc := NewService(dir)
	svc.Getenv = func(k string) string {
		if k == "KONTEXT_CONFIG_DIR" {
			return filepath.Join(dir, ".no-user-config")
		}
		return ""
	}
	t.Cleanup(func() { svc.Close() })
	o, err := svc.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return dir, svc, o
}

// Concurrent first searches (the MCP server answers tools/call requests
// in parallel) share one index: none is opened twice and left unclosed.
func TestSearchIndexIsOpenedOnce(t *testing.T) {
	_, o := openTest(t)
	const n = 8
	got := make([]any, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ix, err := o.SearchIndex(context.Background())
			if err != nil {
				t.Error(err)
				return
			}
			got[i] = ix
		}()
	}
	wg.Wait()
	for i := range got {
		if got[i] != got[0] {
			t.Fatalf("call %d got another index than call 0", i)
		}
	}
}

// The knowledge store's watch and the repo engine's share one watcher of
// the work tree (one inotify instance), and each lets it go on close.
func TestStoreAndEngineShareOneWatcher(t *testing.T) {
	dir, svc, o := openTestService(t)
	svc.Engine = repo.NewEngine(repo.Options{})
	tree := o.Root.Dir()
	if n := fswatch.Shared(tree); n != 1 {
		t.Fatalf("the store's watch: %d parts on %s, want 1", n, tree)
	}
	if _, err := svc.Engine.Snapshot(context.Background(), dir); err != nil {
		t.Fatal(err)
	}
	if mode := svc.Engine.Detection(dir); !strings.HasPrefix(mode, "fsnotify") {
		t.Skipf("the engine does not watch here (%s)", mode)
	}
	if n := fswatch.Shared(tree); n != 2 {
		t.Errorf("the store and the engine: %d parts on %s, want 2", n, tree)
	}
	svc.Engine.Close()
	if n := fswatch.Shared(tree); n != 1 {
		t.Errorf("after the engine closed: %d parts, want 1", n)
	}
	svc.Close()
	if n := fswatch.Shared(tree); n != 0 {
		t.Errorf("after both closed: %d parts, want 0", n)
	}
}
