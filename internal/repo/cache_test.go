package repo

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func cachePath(t *testing.T, dir string) string {
	t.Helper()
	f := &repoFixture{t: t, dir: dir}
	common := f.git("rev-parse", "--path-format=absolute", "--git-common-dir")
	return filepath.Join(cacheLocation(Options{}, dir, common), cacheFile)
}

// TestWarmRestart: a new engine on an analysed root starts from the
// persistent cache — no file is parsed — and answers exactly what the
// first engine did (the JSON byte for byte, so no empty list became null).
func TestWarmRestart(t *testing.T) {
	f := newRepo(t, layeredApp)
	opts := testOptions(t)
	e1 := NewEngine(opts)
	first := snapshot(t, e1, f.dir)
	e1.Close()
	if !fileExists(cachePath(t, f.dir)) {
		t.Fatalf("no cache at %s", cachePath(t, f.dir))
	}

	e2 := newEngine(t, opts)
	warm := snapshot(t, e2, f.dir)
	st := e2.Stats()
	if st.FullScans != 0 || st.CacheLoads != 1 || st.FilesParsed != 0 {
		t.Fatalf("a restart with nothing changed did %+v, want one cache load and no parsing", st)
	}
	if !warm.Incremental {
		t.Fatal("the warm snapshot says it was computed from scratch")
	}
	a, _ := json.Marshal(first.Graph)
	b, _ := json.Marshal(warm.Graph)
	if string(a) != string(b) {
		t.Fatal("the graph from the cache marshals differently from the one saved")
	}
	sameAsScratch(t, warm, opts, "warm restart")
}

// TestRestartAfterOfflineEdits: changes made while no engine ran — edits,
// a new directory, a deletion, an ignore rule, a commit — are found by
// their fingerprints, and only those files are read again.
func TestRestartAfterOfflineEdits(t *testing.T) {
	f := newRepo(t, layeredApp)
	opts := testOptions(t)
	e1 := NewEngine(opts)
	snapshot(t, e1, f.dir)
	e1.Close()

	f.write(map[string]string{"src/domain/order.ts": "export interface Order { id: string }\nexport const offline = 1;\n"})
	f.remove("src/infrastructure/cache.ts")
	f.commit("Offline work")
	f.write(map[string]string{
		"src/reporting/report.ts":  "import type { Order } from '../domain/order';\n\nexport function report(o: Order) { return o.id; }\n",
		"src/reporting/summary.ts": "export const summary = 0;\n",
		".gitignore":               "dist/\n*.log\nsummary.ts\n",
	})

	e2 := newEngine(t, opts)
	warm := snapshot(t, e2, f.dir)
	st := e2.Stats()
	if st.FullScans != 0 || st.CacheLoads != 1 {
		t.Fatalf("restart after offline edits: %+v, want a cache load and no full scan", st)
	}
	// The three written files and .gitignore (and nothing unchanged).
	if st.FilesParsed > 4 {
		t.Fatalf("%d files parsed after four changed", st.FilesParsed)
	}
	if !contains(symbolsOf(warm.Graph, "src/domain/order.ts"), "offline") || !hasFile(warm.Graph, "src/reporting/report.ts") ||
		hasFile(warm.Graph, "src/reporting/summary.ts") || hasFile(warm.Graph, "src/infrastructure/cache.ts") {
		t.Fatal("offline changes not seen")
	}
	if warm.History.Commits[0].Subject != "Offline work" {
		t.Fatal("the history was not re-read after HEAD moved")
	}
	sameAsScratch(t, warm, opts, "restart after offline edits")
}

// TestUnusableCacheStartsCold: a damaged cache, or one written with other
// options, is not trusted.
func TestUnusableCacheStartsCold(t *testing.T) {
	f := newRepo(t, layeredApp)
	opts := testOptions(t)
	e1 := NewEngine(opts)
	snapshot(t, e1, f.dir)
	e1.Close()
	path := cachePath(t, f.dir)

	other := opts
	other.Scan.ModuleDepth = 3
	e2 := newEngine(t, other)
	snapshot(t, e2, f.dir)
	if st := e2.Stats(); st.FullScans != 1 || st.CacheLoads != 0 {
		t.Fatalf("a cache of other options was used: %+v", st)
	}
	e2.Close()

	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data[:len(data)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	e3 := newEngine(t, opts)
	snap := snapshot(t, e3, f.dir)
	if st := e3.Stats(); st.FullScans != 1 || st.CacheLoads != 0 {
		t.Fatalf("a damaged cache was used: %+v", st)
	}
	sameAsScratch(t, snap, opts, "after a damaged cache")
}

// TestCacheOutsideGit: a tree outside git gets no cache unless CacheDir
// names one.
func TestCacheOutsideGit(t *testing.T) {
	f := newTree(t, layeredApp)
	opts := testOptions(t)
	e1 := NewEngine(opts)
	snapshot(t, e1, f.dir)
	e1.Close()
	e2 := newEngine(t, opts)
	snapshot(t, e2, f.dir)
	if st := e2.Stats(); st.CacheLoads != 0 || st.FullScans != 1 {
		t.Fatalf("outside git without CacheDir: %+v", st)
	}
	entries, _ := os.ReadDir(f.dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), "kontext") {
			t.Fatalf("the engine wrote %s into the tree", e.Name())
		}
	}

	opts.CacheDir = t.TempDir()
	e3 := NewEngine(opts)
	snapshot(t, e3, f.dir)
	e3.Close()
	e4 := newEngine(t, opts)
	snap := snapshot(t, e4, f.dir)
	if st := e4.Stats(); st.CacheLoads != 1 || st.FullScans != 0 {
		t.Fatalf("outside git with CacheDir: %+v", st)
	}
	sameAsScratch(t, snap, opts, "outside git, from CacheDir")
}

// TestCancelledWarmStartKeepsTheCache: a warm start abandoned midway
// leaves the cache as it was, and the next start is correct.
func TestCancelledWarmStartKeepsTheCache(t *testing.T) {
	f := newRepo(t, layeredApp)
	opts := testOptions(t)
	e1 := NewEngine(opts)
	snapshot(t, e1, f.dir)
	e1.Close()
	path := cachePath(t, f.dir)
	before, _ := os.ReadFile(path)
	f.write(map[string]string{"src/domain/order.ts": "export const afterCache = 1;\n"})

	e2 := newEngine(t, opts)
	ctx, cancel := context.WithCancel(context.Background())
	progressHook = func(root, msg string) {
		if root == f.dir && strings.HasPrefix(msg, "updating") {
			cancel()
			time.Sleep(20 * time.Millisecond)
		}
	}
	_, err := e2.Snapshot(ctx, f.dir)
	progressHook = nil
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v", err)
	}
	e2.Close()
	after, _ := os.ReadFile(path)
	if string(before) != string(after) {
		t.Fatal("an abandoned warm start changed the cache")
	}
	e3 := newEngine(t, opts)
	snap := snapshot(t, e3, f.dir)
	if !contains(symbolsOf(snap.Graph, "src/domain/order.ts"), "afterCache") {
		t.Fatal("the edit is not seen")
	}
	sameAsScratch(t, snap, opts, "after an abandoned warm start")
}

// TestKilledMidAnalysis kills a kontext process in the middle of an
// analysis (after a complete one left a cache, and files changed since):
// the cache is intact, no temporary file is mistaken for it, and the next
// start is correct.
func TestKilledMidAnalysis(t *testing.T) {
	if os.Getenv("KONTEXT_REPO_CHILD") != "" {
		t.Skip("the child runs TestHelperAnalyse")
	}
	f := newRepo(t, layeredApp)
	opts := testOptions(t)
	e1 := NewEngine(opts)
	snapshot(t, e1, f.dir)
	e1.Close()
	path := cachePath(t, f.dir)
	before, _ := os.ReadFile(path)
	f.write(map[string]string{"src/domain/order.ts": "export const beforeKill = 1;\n", "src/new/thing.ts": "export const thing = 1;\n"})

	for _, phase := range []string{"checking", "updating"} {
		killAt(t, f.dir, phase)
		after, _ := os.ReadFile(path)
		if string(before) != string(after) {
			t.Fatalf("killed at %q: the cache changed", phase)
		}
	}
	e2 := newEngine(t, opts)
	snap := snapshot(t, e2, f.dir)
	if st := e2.Stats(); st.CacheLoads != 1 {
		t.Fatalf("the cache was not used after the kill: %+v", st)
	}
	if !hasFile(snap.Graph, "src/new/thing.ts") || !contains(symbolsOf(snap.Graph, "src/domain/order.ts"), "beforeKill") {
		t.Fatal("changes made before the kill are not seen")
	}
	sameAsScratch(t, snap, opts, "after a killed analysis")
}

// TestKilledFirstAnalysis: a process killed during the first analysis of a
// root leaves no cache behind, and the next start analyses correctly.
func TestKilledFirstAnalysis(t *testing.T) {
	if os.Getenv("KONTEXT_REPO_CHILD") != "" {
		t.Skip("the child runs TestHelperAnalyse")
	}
	f := newRepo(t, layeredApp)
	killAt(t, f.dir, "parsing")
	if fileExists(cachePath(t, f.dir)) {
		t.Fatal("a killed analysis left a cache")
	}
	opts := testOptions(t)
	e := newEngine(t, opts)
	sameAsScratch(t, snapshot(t, e, f.dir), opts, "after a killed first analysis")
}

// killAt runs TestHelperAnalyse on dir in a child process and kills it
// (SIGKILL) once the analysis reports phase.
func killAt(t *testing.T, dir, phase string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperAnalyse$", "-test.v")
	cmd.Env = append(os.Environ(), "KONTEXT_REPO_CHILD="+dir, "KONTEXT_REPO_CHILD_PHASE="+phase)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	reached := false
	for sc.Scan() {
		if strings.Contains(sc.Text(), "PAUSED "+phase) {
			reached = true
			break
		}
	}
	cmd.Process.Kill()
	cmd.Wait()
	if !reached {
		t.Fatalf("the child never reached %q", phase)
	}
}

// TestHelperAnalyse is the child of TestKilledMidAnalysis: it analyses a
// root and stops forever at a phase, saying so on stdout.
func TestHelperAnalyse(t *testing.T) {
	dir := os.Getenv("KONTEXT_REPO_CHILD")
	if dir == "" {
		t.Skip("run by TestKilledMidAnalysis")
	}
	phase := os.Getenv("KONTEXT_REPO_CHILD_PHASE")
	progressHook = func(root, msg string) {
		if strings.HasPrefix(msg, phase) {
			fmt.Printf("PAUSED %s\n", phase)
			select {}
		}
	}
	opts := testOptions(t)
	opts.Detect = DetectSweep // a killed watcher would leave its barrier directory
	e := NewEngine(opts)
	e.Snapshot(context.Background(), dir)
}
