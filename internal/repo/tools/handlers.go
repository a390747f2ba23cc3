// Package tools serves the repo toolset: the thirteen tools, three prompts
// and five resources of gen/toolsets/repo over the shared analysis of
// internal/repo. Every answer is a type of internal/repo/results, shaped by
// the detail contract (shape.go): compact is a size budget with the same
// shape, full carries the evidence.
package tools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	spec "github.com/kontext-dev/kontext/gen/toolsets/repo"
	"github.com/kontext-dev/kontext/internal/fsroot"
	"github.com/kontext-dev/kontext/internal/git"
	"github.com/kontext-dev/kontext/internal/mcp"
	"github.com/kontext-dev/kontext/internal/repo"
)

// Handlers answer the repo toolset's tools, prompts and resources for the
// repositories under one server root.
type Handlers struct {
	root *fsroot.Root
	// snapshot is the engine's Snapshot; tests that analyse a large tree
	// once put a fixed snapshot here.
	snapshot func(ctx context.Context, dir string) (*repo.Snapshot, error)
	derived  derivedCache

	// common is the git common directory of the server's root ("" outside
	// git), found once.
	commonOnce sync.Once
	common     string
}

var _ spec.Handlers = (*Handlers)(nil)

// New serves the repositories under root from engine, which may be shared
// with other toolsets and commands (one analysis per root per process).
func New(root *fsroot.Root, engine *repo.Engine) *Handlers {
	return &Handlers{root: root, snapshot: engine.Snapshot}
}

// Toolset is the repo toolset served by h.
func (h *Handlers) Toolset() *mcp.Toolset { return spec.Toolset(h) }

// analysis returns the snapshot of the root a call names (the server's
// root when rootArg is nil or empty). The root guard decides: a root
// outside the server's root is refused, as every path is.
func (h *Handlers) analysis(ctx context.Context, rootArg *string) (*repo.Snapshot, error) {
	dir := h.root.Dir()
	if rootArg != nil && *rootArg != "" {
		p, err := h.root.Path(*rootArg)
		if err != nil {
			return nil, err
		}
		st, err := os.Stat(p)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return nil, fmt.Errorf("root %q does not exist under %s", *rootArg, h.root.Dir())
			}
			return nil, fmt.Errorf("root %q: %w", *rootArg, err)
		}
		if !st.IsDir() {
			return nil, fmt.Errorf("root %q is a file; pass the directory of a repository", *rootArg)
		}
		if err := h.sameOrInside(ctx, *rootArg, p); err != nil {
			return nil, err
		}
		dir = p
	}
	snap, err := h.snapshot(ctx, dir)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("analysing %s: %w", dir, err)
	}
	if snap == nil || snap.Graph == nil {
		return nil, fmt.Errorf("analysing %s: the engine returned no graph", dir)
	}
	return snap, nil
}

// sameOrInside refuses a nested root whose repository lies elsewhere: a
// .git file in a subdirectory ("gitdir: /elsewhere/.git") must not turn a
// tool into a reader of another repository's history and objects. A
// nested root is analysed when it belongs to the server's repository, or
// when its git directory (and common directory) lie inside the server's
// root.
func (h *Handlers) sameOrInside(ctx context.Context, arg, dir string) error {
	loc, found, err := git.LocateBelow(dir, h.root.Dir())
	if err != nil {
		return fmt.Errorf("root %q: its .git cannot be read: %w", arg, err)
	}
	if !found {
		return nil // no .git below the server's root: its own repository
	}
	if h.root.Contains(loc.GitDir) && h.root.Contains(loc.CommonDir) {
		return nil
	}
	h.commonOnce.Do(func() {
		// Not the caller's context: a cancelled first call must not leave
		// the answer empty for every later one.
		if r, err := git.Open(context.WithoutCancel(ctx), h.root.Dir()); err == nil {
			h.common, _ = filepath.EvalSymlinks(r.CommonDir)
			r.Close()
		}
	})
	if h.common != "" && loc.CommonDir == h.common {
		return nil // a worktree of the server's own repository
	}
	rel, _ := filepath.Rel(h.root.Dir(), loc.WorkTree)
	return fmt.Errorf("root %q is in a work tree (%s) whose git directory lies outside the server's root %s; kontext does not follow a .git file out of the root (start a server in that repository instead)",
		arg, filepath.ToSlash(rel), h.root.Dir())
}

// full reports whether a detail argument asks for the full answer; the
// schema has already refused anything but compact and full.
func full[D ~string](d D) bool { return string(d) == "full" }

// optional is the value of an optional string argument, "" when absent.
func optional(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
