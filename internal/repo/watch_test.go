package repo

import (
	"bytes"
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
)

// TestWatcherStopsWatchingIgnoredDirectories: build output appearing in
// the tree is watched only until the next analysis finds it ignored;
// after that its churn is not even an event.
func TestWatcherStopsWatchingIgnoredDirectories(t *testing.T) {
	f := newRepo(t, layeredApp)
	opts := testOptions(t)
	e := newEngine(t, opts)
	snap := snapshot(t, e, f.dir)
	if mode := e.Detection(f.dir); !strings.HasPrefix(mode, "fsnotify, ") {
		t.Fatalf("detection %q, want the watcher", mode)
	}
	f.write(map[string]string{"dist/assets/app.js": "x", "dist/index.html": "x", "src/new/kept.ts": "export const kept = 1;\n"})
	next := snapshot(t, e, f.dir)
	if !hasFile(next.Graph, "src/new/kept.ts") || hasFile(next.Graph, "dist/index.html") {
		t.Fatal("the listing is wrong")
	}
	rs, _ := e.rootState(f.dir)
	w := rs.det.(*watcher)
	w.mu.Lock()
	distWatched := w.watched[f.path("dist")] || w.watched[f.path("dist/assets")]
	newWatched := w.watched[f.path("src/new")]
	w.mu.Unlock()
	if distWatched || !newWatched {
		t.Fatalf("after the analysis: dist watched %v (want false), src/new watched %v (want true)", distWatched, newWatched)
	}
	f.write(map[string]string{"dist/assets/app.js": "rebuilt", "dist/assets/chunk.js": "new"})
	w.sync(context.Background())
	if w.pending() {
		t.Fatalf("changes in an ignored directory are still events: %+v", w.take())
	}
	if again := snapshot(t, e, f.dir); again != next {
		t.Fatal("a rebuild of ignored output made a new snapshot")
	}
	// Un-ignored, the directory is watched and listed again.
	f.write(map[string]string{".gitignore": "*.log\n"})
	shown := snapshot(t, e, f.dir)
	if !hasFile(shown.Graph, "dist/assets/chunk.js") {
		t.Fatal("a directory no longer ignored is not listed")
	}
	f.write(map[string]string{"dist/assets/later.js": "export const later = 1;\n"})
	if later := snapshot(t, e, f.dir); !hasFile(later.Graph, "dist/assets/later.js") {
		t.Fatal("a file added to a no longer ignored directory is not seen")
	}
	sameAsScratch(t, snapshot(t, e, f.dir), opts, "after un-ignoring dist")
	_ = snap
}

// TestFallsBackToSweeping: when the watcher cannot watch every directory
// (inotify limits), the engine says so in a log line and sweeps instead —
// and answers stay fresh.
func TestFallsBackToSweeping(t *testing.T) {
	maxWatchesForTest = 3
	defer func() { maxWatchesForTest = 0 }()
	f := newRepo(t, layeredApp)
	var logs bytes.Buffer
	opts := testOptions(t)
	opts.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	opts.SweepInterval = -1
	e := newEngine(t, opts)
	snapshot(t, e, f.dir)
	if mode := e.Detection(f.dir); !strings.HasPrefix(mode, "stat sweep") {
		t.Fatalf("detection %q, want the sweep", mode)
	}
	if !strings.Contains(logs.String(), "cannot watch the tree; sweeping file metadata instead") || !strings.Contains(logs.String(), "inotify limits") {
		t.Fatalf("no log line says why and which mode:\n%s", logs.String())
	}
	f.write(map[string]string{"src/domain/order.ts": "export const swept = 1;\n"})
	next := snapshot(t, e, f.dir)
	if !contains(symbolsOf(next.Graph, "src/domain/order.ts"), "swept") {
		t.Fatal("the sweep did not see an edit")
	}
	sameAsScratch(t, next, opts, "sweeping")
	_ = filepath.Join
}
