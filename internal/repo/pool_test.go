package repo

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestConcurrentFirstCallsShareOneAnalysis: callers arriving together for
// a root wait for one analysis and get the same snapshot.
func TestConcurrentFirstCallsShareOneAnalysis(t *testing.T) {
	f := newRepo(t, layeredApp)
	opts := testOptions(t)
	e := newEngine(t, opts)
	// Hold the analysis at its first report until every caller is waiting.
	release := make(chan struct{})
	var once sync.Once
	progressHook = func(root, msg string) {
		if root == f.dir {
			once.Do(func() { <-release })
		}
	}
	defer func() { progressHook = nil }()
	const callers = 8
	snaps := make([]*Snapshot, callers)
	errs := make([]error, callers)
	var wg sync.WaitGroup
	for i := 0; i < callers; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			snaps[i], errs[i] = e.Snapshot(context.Background(), f.dir)
		}(i)
	}
	waitFor(t, func() bool {
		rs, _ := e.rootState(f.dir)
		rs.mu.Lock()
		defer rs.mu.Unlock()
		return rs.run != nil && rs.run.waiters == callers
	})
	close(release)
	wg.Wait()
	for i := range snaps {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if snaps[i] != snaps[0] {
			t.Fatal("concurrent callers got different snapshots")
		}
	}
	if n := e.Stats().FullScans; n != 1 {
		t.Fatalf("%d analyses for %d concurrent first calls, want 1", n, callers)
	}
	// The other roots of the engine are their own analyses.
	g := newRepo(t, map[string]string{"main.go": "package main\n\nfunc main() {}\n", "go.mod": "module example.com/x\n\ngo 1.22\n"})
	progressHook = nil
	if snapshot(t, e, g.dir) == snaps[0] {
		t.Fatal("two roots share a snapshot")
	}
	if n := e.Stats().FullScans; n != 2 {
		t.Fatalf("%d analyses for two roots", n)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
		time.Sleep(time.Millisecond)
	}
}

// TestCancelMidAnalysis: a caller that gives up mid-analysis gets its
// context's error at once; the analysis it alone waited for stops, writes
// no cache, and the next call analyses again, correctly.
func TestCancelMidAnalysis(t *testing.T) {
	f := newRepo(t, layeredApp)
	opts := testOptions(t)
	e := newEngine(t, opts)
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	progressHook = func(root, msg string) {
		if root == f.dir && strings.HasPrefix(msg, "parsing") {
			cancel()
			<-stopped // the analysis goes on only once the caller has returned
		}
	}
	defer func() { progressHook = nil }()
	began := time.Now()
	_, err := e.Snapshot(ctx, f.dir)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled call returned %v", err)
	}
	if took := time.Since(began); took > 5*time.Second {
		t.Fatalf("the cancelled call took %v", took)
	}
	close(stopped)
	progressHook = nil
	// The abandoned analysis ends without publishing anything.
	rs, _ := e.rootState(f.dir)
	waitFor(t, func() bool { rs.mu.Lock(); defer rs.mu.Unlock(); return rs.run == nil })
	if rs.cur != nil {
		t.Fatal("a cancelled analysis was published")
	}
	if n := e.Stats().FullScans; n != 0 {
		t.Fatalf("the cancelled analysis counted as complete (%d)", n)
	}
	cacheFile := cachePath(t, f.dir)
	if fileExists(cacheFile) {
		t.Fatal("a cancelled analysis wrote the cache")
	}
	snap := snapshot(t, e, f.dir)
	sameAsScratch(t, snap, opts, "after a cancelled analysis")
	e.Close()
	if !fileExists(cacheFile) {
		t.Fatal("no cache after a complete analysis")
	}
}

// TestOneWaiterCancels: when one of two callers gives up, the analysis
// goes on for the other.
func TestOneWaiterCancels(t *testing.T) {
	f := newRepo(t, layeredApp)
	opts := testOptions(t)
	e := newEngine(t, opts)
	release := make(chan struct{})
	var once sync.Once
	progressHook = func(root, msg string) {
		if root == f.dir {
			once.Do(func() { <-release })
		}
	}
	defer func() { progressHook = nil }()
	ctx, cancel := context.WithCancel(context.Background())
	first := make(chan error, 1)
	go func() { _, err := e.Snapshot(ctx, f.dir); first <- err }()
	second := make(chan *Snapshot, 1)
	go func() { s, _ := e.Snapshot(context.Background(), f.dir); second <- s }()
	waitFor(t, func() bool {
		rs, _ := e.rootState(f.dir)
		rs.mu.Lock()
		defer rs.mu.Unlock()
		return rs.run != nil && rs.run.waiters == 2
	})
	cancel()
	if err := <-first; !errors.Is(err, context.Canceled) {
		t.Fatalf("the cancelled caller got %v", err)
	}
	close(release)
	s := <-second
	if s == nil {
		t.Fatal("the remaining caller got no snapshot")
	}
	sameAsScratch(t, s, opts, "after one of two callers cancelled")
}

// TestCancelledUpdateKeepsChanges: an update abandoned midway loses none
// of the changes it took; the next call applies them.
func TestCancelledUpdateKeepsChanges(t *testing.T) {
	f := newRepo(t, layeredApp)
	opts := testOptions(t)
	e := newEngine(t, opts)
	snapshot(t, e, f.dir)
	f.write(map[string]string{"src/domain/order.ts": "export const cancelledEdit = 1;\n"})
	ctx, cancel := context.WithCancel(context.Background())
	progressHook = func(root, msg string) {
		if root == f.dir && strings.HasPrefix(msg, "updating") {
			cancel()
			time.Sleep(20 * time.Millisecond)
		}
	}
	if _, err := e.Snapshot(ctx, f.dir); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v", err)
	}
	progressHook = nil
	next := snapshot(t, e, f.dir)
	if !contains(symbolsOf(next.Graph, "src/domain/order.ts"), "cancelledEdit") {
		t.Fatal("the edit an abandoned update took was lost")
	}
	sameAsScratch(t, next, opts, "after an abandoned update")
}
