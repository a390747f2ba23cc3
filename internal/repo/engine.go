// Package repo is the repository engine: one analysis per root (scan for
// the facts, analyze for the heuristics), shared by every tool of the repo
// toolset, the knowledge bootstrap and the analyze and impact commands.
//
// The engine keeps each root's analysis and keeps it fresh. A watcher
// (fsnotify; a throttled stat sweep where watching is impossible) collects
// what changed; the next call re-analyses only that — scan.Update re-reads
// the changed files, the per-file observations of those files are redone,
// the whole-graph heuristics are recomputed from memory, and git history
// is re-read only when HEAD moved. A call that finds nothing changed costs
// a round trip through the watcher. Analyses persist under the git common
// directory, so a restarted process checks fingerprints instead of
// re-reading the tree.
package repo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kontext-dev/kontext/internal/git"
	"github.com/kontext-dev/kontext/internal/repo/analyze"
	"github.com/kontext-dev/kontext/internal/repo/model"
	"github.com/kontext-dev/kontext/internal/repo/scan"
)

// Snapshot is one consistent analysis of a repository root. It is shared:
// callers read it and never change it. A call that finds nothing changed
// returns the same *Snapshot as the previous one, so callers may key
// derived data on its identity.
type Snapshot struct {
	Root    string
	Graph   *model.Graph
	History *analyze.History // nil outside a git work tree
	Git     *git.Repo        // nil outside a git work tree
	At      time.Time
	// Took is how long the analysis that produced this snapshot took.
	Took time.Duration
	// Incremental says it was derived from a previous analysis (in this
	// process or the persistent cache) rather than computed from scratch.
	Incremental bool
}

// DetectMode says how an engine notices changes between calls.
type DetectMode int

const (
	// DetectAuto watches the tree (fsnotify) and falls back to sweeping
	// when watching is impossible (inotify limits, an unsupported
	// filesystem).
	DetectAuto DetectMode = iota
	// DetectSweep compares the files' metadata with their fingerprints,
	// at most once per SweepInterval: for one-shot commands, which gain
	// nothing from a watcher.
	DetectSweep
)

// Options configure an Engine. The zero value is a server's engine.
type Options struct {
	Scan    scan.Options
	Analyze analyze.Options

	Detect DetectMode
	// SweepInterval is the least time between two sweeps in sweep mode
	// (changes made meanwhile are seen by a later call); 0 is ten times
	// what the last sweep took, at least 100 ms; negative sweeps on every
	// call.
	SweepInterval time.Duration

	// CacheDir, when set, holds the persistent cache instead of
	// <git common dir>/kontext/repo — and gives trees outside git one.
	CacheDir string
	// NoCache disables the persistent cache.
	NoCache bool

	// Logger receives the engine's diagnostics (which change detection
	// each root uses, cache failures); nil is slog.Default().
	Logger *slog.Logger
	// Terminal receives a progress line during long analyses; nil means
	// stderr when it is a terminal. NoTerminal turns it off.
	Terminal   io.Writer
	NoTerminal bool
}

// Stats count what an engine did, for tests and benchmarks.
type Stats struct {
	FullScans   int64 // analyses from scratch
	CacheLoads  int64 // analyses started from the persistent cache
	Updates     int64 // incremental re-analyses that produced a new snapshot
	FilesParsed int64 // files read by scans, all analyses together
	Sweeps      int64 // stat sweeps
}

// Engine keeps one analysis per root.
type Engine struct {
	opts     Options
	log      *slog.Logger
	term     io.Writer
	cacheKey string

	mu     sync.Mutex
	roots  map[string]*rootState
	alias  map[string]string // root as given → canonical root
	closed bool

	stats struct{ fullScans, cacheLoads, updates, filesParsed, sweeps atomic.Int64 }
}

// NewEngine returns an engine.
func NewEngine(opts Options) *Engine {
	e := &Engine{opts: opts, roots: map[string]*rootState{}, alias: map[string]string{}}
	e.log = opts.Logger
	if e.log == nil {
		e.log = slog.Default()
	}
	if !opts.NoTerminal {
		e.term = opts.Terminal
		if e.term == nil {
			e.term = stderrTerminal()
		}
	}
	e.cacheKey = cacheKey(opts)
	return e
}

// Stats returns the engine's counters.
func (e *Engine) Stats() Stats {
	return Stats{
		FullScans: e.stats.fullScans.Load(), CacheLoads: e.stats.cacheLoads.Load(), Updates: e.stats.updates.Load(),
		FilesParsed: e.stats.filesParsed.Load(), Sweeps: e.stats.sweeps.Load(),
	}
}

// Detection says how changes under root are detected ("" before its
// first analysis): the watcher and how many directories it watches, or
// the sweep.
func (e *Engine) Detection(root string) string {
	rs, err := e.rootState(root)
	if err != nil {
		return ""
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.det == nil {
		return ""
	}
	return rs.det.mode()
}

var errClosed = errors.New("repo engine closed")

// rootState is one root's analysis, the analysis running for it, and how
// its changes are detected.
type rootState struct {
	e    *Engine
	root string

	mu  sync.Mutex
	cur *state   // the last complete analysis
	det detector // nil until the first analysis completes
	run *run     // the analysis in progress
	// started counts the analyses begun, numbering them (run.seq).
	started uint64
	repo    *git.Repo
	files   *os.Root // reads for the heuristics (never out of the root)
	content contentCache
	save    *saver
}

// run is one analysis in progress. Everyone who needs it waits for it;
// when the last of them gives up, it is cancelled.
type run struct {
	done     chan struct{}
	cancel   context.CancelFunc
	progress *progress
	waiters  int
	// abandoned: every waiter left and the analysis was cancelled.
	abandoned bool
	seq       uint64
	// set before done is closed
	st  *state
	err error
}

// Snapshot returns the analysis of root, fresh: every change completed
// before the call is in it. The first call for a root analyses it (from the
// persistent cache when there is one); concurrent calls share one
// analysis. Cancelling ctx abandons the wait (ctx.Err() is returned at
// once); the analysis itself stops when no caller waits for it any more,
// and the next call starts again.
func (e *Engine) Snapshot(ctx context.Context, root string) (*Snapshot, error) {
	rs, err := e.rootState(root)
	if err != nil {
		return nil, err
	}
	rs.mu.Lock()
	det := rs.det
	rs.mu.Unlock()
	if det != nil {
		det.sync(ctx)
	}
	// Every change completed before now is detected: an analysis started
	// after this point covers this call.
	rs.mu.Lock()
	covered := rs.started
	rs.mu.Unlock()
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rs.mu.Lock()
		if e.isClosed() {
			rs.mu.Unlock()
			return nil, errClosed
		}
		rs.replaceFailedDetector()
		if rs.run == nil {
			if rs.cur != nil && rs.cur.snap != nil && !rs.det.pending() {
				snap := rs.cur.snap
				rs.mu.Unlock()
				return snap, nil
			}
			rs.start()
		}
		r := rs.run
		if r.abandoned {
			// Cancelled when its last waiter left, and still unwinding:
			// the next analysis starts once it is gone.
			rs.mu.Unlock()
			select {
			case <-r.done:
				continue
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		r.waiters++
		id := r.progress.join(ctx)
		rs.mu.Unlock()

		select {
		case <-r.done:
			r.progress.leave(id)
			if r.err != nil {
				if ctx.Err() != nil {
					return nil, ctx.Err()
				}
				if e.isClosed() {
					return nil, errClosed
				}
				return nil, r.err
			}
			if r.seq > covered {
				return r.st.snap, nil
			}
			// We joined an analysis that began before this call's changes
			// were detected: they need the next one.
		case <-ctx.Done():
			r.progress.leave(id)
			rs.mu.Lock()
			r.waiters--
			if r.waiters == 0 {
				r.abandoned = true
				r.cancel()
			}
			rs.mu.Unlock()
			return nil, ctx.Err()
		}
	}
}

// start begins the next analysis of rs: cold (or from the cache) when there
// is none yet, else an update with the changes detected since. rs.mu is
// held.
func (rs *rootState) start() {
	ctx, cancel := context.WithCancel(context.Background())
	rs.started++
	r := &run{done: make(chan struct{}), cancel: cancel, progress: newProgress(rs.root, rs.e.term), seq: rs.started}
	rs.run = r
	prev := rs.cur
	var ch changes
	if prev != nil {
		ch = rs.det.take()
	}
	go func() {
		defer cancel()
		var st *state
		var det detector
		var err error
		began := time.Now()
		if prev == nil {
			st, det, err = rs.first(ctx, r.progress)
		} else {
			st, err = rs.update(ctx, prev, ch, r.progress)
		}
		r.progress.done()
		if err == nil && st != prev {
			if st.snap.Took == 0 {
				st.snap.Took = time.Since(began)
			}
			// Outside the lock: following the directories may ask git.
			if det == nil {
				rs.mu.Lock()
				det = rs.det
				rs.mu.Unlock()
			}
			det.track(st)
		}
		rs.mu.Lock()
		switch {
		case err != nil:
			if prev != nil {
				rs.det.restore(ch)
			}
		case st != prev:
			rs.cur = st
			if rs.det == nil {
				rs.det = det
			}
		}
		r.st, r.err = st, err
		rs.run = nil
		close(r.done)
		rs.mu.Unlock()
		if err == nil && st != prev {
			rs.save.schedule(st, prev == nil)
		}
	}()
}

// replaceFailedDetector swaps a watcher that stopped working for a sweep,
// which first checks everything. rs.mu is held.
func (rs *rootState) replaceFailedDetector() {
	if rs.det == nil {
		return
	}
	err := rs.det.failed()
	if err == nil {
		return
	}
	ch := rs.det.take()
	rs.det.close()
	sw := newSweeper(rs.e, rs.root, rs.repo)
	ch.all, ch.relist, ch.head = true, true, true
	sw.restore(ch)
	if rs.cur != nil {
		sw.track(rs.cur)
	}
	rs.e.log.Warn("repo engine: change detection failed; sweeping file metadata instead", "root", rs.root, "err", err, "mode", sw.mode())
	rs.det = sw
}

func (e *Engine) isClosed() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.closed
}

// rootState returns the state of root, made on first use.
func (e *Engine) rootState(root string) (*rootState, error) {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return nil, errClosed
	}
	key, ok := e.alias[root]
	e.mu.Unlock()
	if !ok {
		abs, err := filepath.Abs(root)
		if err != nil {
			return nil, err
		}
		if key, err = filepath.EvalSymlinks(abs); err != nil {
			return nil, fmt.Errorf("root %s: %w", root, err)
		}
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil, errClosed
	}
	e.alias[root] = key
	rs := e.roots[key]
	if rs == nil {
		rs = &rootState{e: e, root: key}
		e.roots[key] = rs
	}
	return rs, nil
}

// Close stops every analysis and watcher, writes the pending caches and
// releases git. Snapshots stay readable; their Git can no longer read
// objects.
func (e *Engine) Close() error {
	e.mu.Lock()
	if e.closed {
		e.mu.Unlock()
		return nil
	}
	e.closed = true
	roots := make([]*rootState, 0, len(e.roots))
	for _, rs := range e.roots {
		roots = append(roots, rs)
	}
	e.mu.Unlock()
	for _, rs := range roots {
		rs.mu.Lock()
		r := rs.run
		if r != nil {
			r.cancel()
		}
		rs.mu.Unlock()
		if r != nil {
			<-r.done
		}
		rs.mu.Lock()
		if rs.det != nil {
			rs.det.close()
		}
		save, repo, files := rs.save, rs.repo, rs.files
		rs.mu.Unlock()
		save.close()
		if repo != nil {
			repo.Close()
		}
		if files != nil {
			files.Close()
		}
	}
	return nil
}
