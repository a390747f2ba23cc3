package fswatch

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
)

// next waits for w's next event under dir's name (other events are
// skipped), failing after a while.
func next(t *testing.T, w *Watcher, name string) {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		select {
		case ev, ok := <-w.Events:
			if !ok {
				t.Fatalf("events closed waiting for %s", name)
			}
			if ev.Name == name {
				return
			}
		case err := <-w.Errors:
			t.Fatalf("error waiting for %s: %v", name, err)
		case <-deadline:
			t.Fatalf("no event for %s", name)
		}
	}
}

// none checks that w hears nothing about name for a moment.
func none(t *testing.T, w *Watcher, name string) {
	t.Helper()
	deadline := time.After(200 * time.Millisecond)
	for {
		select {
		case ev := <-w.Events:
			if ev.Name == name {
				t.Fatalf("heard %v, which is not its directory's", ev)
			}
		case <-deadline:
			return
		}
	}
}

func touch(t *testing.T, p string) {
	t.Helper()
	if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// Two parts of one tree share one watcher: a directory both watch is
// watched once and heard by both; a part hears nothing of the other's
// directories; a part's Remove and Close leave the other's watches.
func TestPartsShareOneWatcher(t *testing.T) {
	root := t.TempDir()
	shared, own := filepath.Join(root, "shared"), filepath.Join(root, "own")
	os.Mkdir(shared, 0o755)
	os.Mkdir(own, 0o755)

	a, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Open(root + "/")
	if err != nil {
		t.Fatal(err)
	}
	if a.hub != b.hub || a.Parts() != 2 {
		t.Fatalf("two parts of %s: %d parts, same hub %v", root, a.Parts(), a.hub == b.hub)
	}
	other, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if other.hub == a.hub {
		t.Fatal("another tree shares the watcher")
	}
	other.Close()

	for _, err := range []error{a.Add(shared), a.Add(own), b.Add(shared)} {
		if err != nil {
			t.Fatal(err)
		}
	}
	if n := a.WatchCount(); n != 2 {
		t.Fatalf("%d watches, want 2 (shared is watched once)", n)
	}
	touch(t, filepath.Join(shared, "f"))
	next(t, a, filepath.Join(shared, "f"))
	next(t, b, filepath.Join(shared, "f"))
	touch(t, filepath.Join(own, "g"))
	next(t, a, filepath.Join(own, "g"))
	none(t, b, filepath.Join(own, "g"))

	b.Remove(shared)
	touch(t, filepath.Join(shared, "h"))
	next(t, a, filepath.Join(shared, "h"))
	none(t, b, filepath.Join(shared, "h"))

	b.Add(shared)
	b.Close()
	if _, ok := <-b.Events; ok {
		t.Fatal("a closed part's events are open")
	}
	touch(t, filepath.Join(shared, "i"))
	next(t, a, filepath.Join(shared, "i"))
	if a.Parts() != 1 || a.WatchCount() != 2 {
		t.Fatalf("after b closed: %d parts, %d watches", a.Parts(), a.WatchCount())
	}
}

// A watched directory that is removed loses its watch; made again and
// added again, it is watched again.
func TestRemovedDirectoryIsWatchedAgain(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "d")
	os.Mkdir(dir, 0o755)
	w, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.Add(root)
	w.Add(dir)
	os.RemoveAll(dir)
	deadline := time.After(5 * time.Second)
	for gone := false; !gone; {
		select {
		case ev := <-w.Events:
			gone = ev.Name == dir && ev.Has(fsnotify.Remove)
		case <-deadline:
			t.Fatal("no removal event")
		}
	}
	os.Mkdir(dir, 0o755)
	next(t, w, dir)
	if err := w.Add(dir); err != nil {
		t.Fatal(err)
	}
	touch(t, filepath.Join(dir, "f"))
	next(t, w, filepath.Join(dir, "f"))
}

// The last part's Close stops the watcher; the next Open starts another.
func TestLastCloseStopsTheWatcher(t *testing.T) {
	root := t.TempDir()
	a, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	h := a.hub
	a.Close()
	a.Close() // twice is harmless
	b, err := Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if b.hub == h {
		t.Fatal("a stopped watcher was reused")
	}
	if err := b.Add(root); err != nil {
		t.Fatal(err)
	}
	touch(t, filepath.Join(root, "f"))
	next(t, b, filepath.Join(root, "f"))
}
