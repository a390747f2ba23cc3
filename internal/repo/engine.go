// Package repo is the repository engine: one analysis per root (scan for
// the facts, analyze for the heuristics), shared by every tool of the repo
// toolset and by the knowledge bootstrap.
package repo

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/kontext-dev/kontext/internal/fsroot"
	"github.com/kontext-dev/kontext/internal/git"
	"github.com/kontext-dev/kontext/internal/repo/analyze"
	"github.com/kontext-dev/kontext/internal/repo/model"
	"github.com/kontext-dev/kontext/internal/repo/scan"
)

// Snapshot is one consistent analysis of a repository root. It is shared:
// callers read it and never change it.
type Snapshot struct {
	Root    string
	Graph   *model.Graph
	History *analyze.History // nil outside a git work tree
	Git     *git.Repo        // nil outside a git work tree
	At      time.Time
}

// Options configure an Engine.
type Options struct {
	Scan    scan.Options
	Analyze analyze.Options
}

// Engine keeps one analysis per root.
type Engine struct {
	opts Options

	mu    sync.Mutex
	roots map[string]*Snapshot
}

// NewEngine returns an engine.
func NewEngine(opts Options) *Engine {
	return &Engine{opts: opts, roots: map[string]*Snapshot{}}
}

// Snapshot returns the analysis of root.
//
// This first version analyses from scratch on every call; the pooled,
// incremental, persistent engine replaces it behind the same method.
func (e *Engine) Snapshot(ctx context.Context, root string) (*Snapshot, error) {
	g, err := scan.Scan(ctx, root, e.opts.Scan)
	if err != nil {
		return nil, err
	}
	snap := &Snapshot{Root: root, Graph: g, At: time.Now()}
	repo, err := git.Open(ctx, root)
	if err != nil && !errors.Is(err, git.ErrNotRepository) {
		return nil, err
	}
	if repo != nil {
		snap.Git = repo
	}
	src := func(p string) ([]byte, error) { return readUnder(root, p) }
	if err := analyze.Run(ctx, g, src, repo, e.opts.Analyze); err != nil {
		return nil, err
	}
	if repo != nil {
		snap.History, _ = analyze.ReadHistory(ctx, repo, e.opts.Analyze)
	}
	e.mu.Lock()
	e.roots[root] = snap
	e.mu.Unlock()
	return snap, nil
}

// readUnder reads a file of the repository through the root guard.
func readUnder(root, p string) ([]byte, error) {
	r, err := fsroot.Open(root)
	if err != nil {
		return nil, err
	}
	return r.ReadFile(p)
}
