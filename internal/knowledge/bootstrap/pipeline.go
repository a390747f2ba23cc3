package bootstrap

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"time"

	"github.com/kontext-dev/kontext/internal/fsroot"
	"github.com/kontext-dev/kontext/internal/git"
	"github.com/kontext-dev/kontext/internal/knowledge/config"
	"github.com/kontext-dev/kontext/internal/knowledge/local"
	"github.com/kontext-dev/kontext/internal/knowledge/store"
	"github.com/kontext-dev/kontext/internal/repo"
)

// Pipeline is the bootstrap of one worktree.
type Pipeline struct {
	Root   *fsroot.Root
	Git    *git.Repo
	Store  *store.Store
	Config *config.Config
	State  *local.State
	Engine *repo.Engine
	Cache  Cache
	// ConfigOptions are the ones Config was loaded with, for reloading it
	// once render has written the shared configuration.
	ConfigOptions config.Options
	// Progress, when set, hears each step ("scan", "history", "render")
	// with a one-line result.
	Progress func(step string, n, of int, detail string, took time.Duration)
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// NewPipeline returns the bootstrap of the worktree state belongs to.
func NewPipeline(root *fsroot.Root, state *local.State, engine *repo.Engine) *Pipeline {
	return &Pipeline{
		Root: root, Git: state.Repo, Store: state.Store, Config: state.Config, State: state, Engine: engine,
		Cache: Cache{Dir: filepath.Join(state.Dir, "worktrees", state.Worktree, "init")},
	}
}

func (p *Pipeline) now() time.Time {
	if p.Now != nil {
		return p.Now()
	}
	return time.Now()
}

func (p *Pipeline) report(step string, n, of int, detail string, start time.Time) {
	if p.Progress != nil {
		p.Progress(step, n, of, detail, time.Since(start))
	}
}

// Scan reads the repository through the repo engine (which keeps its
// analysis fresh and cached).
func (p *Pipeline) Scan(ctx context.Context) (*Scan, error) {
	start := time.Now()
	s, err := ScanRepository(ctx, p.Engine, p.Root, p.storeDirs())
	if err != nil {
		return nil, err
	}
	p.report("scan", 1, 3, fmt.Sprintf("%d files, %d modules, stack: %s", s.Files, len(s.Modules), joinOr(s.Stack, "none detected")), start)
	return s, nil
}

// History scores the history (cached while HEAD stays put).
func (p *Pipeline) History(ctx context.Context, s *Scan) (*History, error) {
	start := time.Now()
	head, err := p.Git.Head(ctx)
	if err != nil {
		return nil, err
	}
	if h, ok := p.Cache.LoadHistory(head); ok {
		p.report("history", 2, 3, fmt.Sprintf("%d commits, %d decision clusters (cached)", h.Commits, len(h.Clusters)), start)
		return h, nil
	}
	h, err := ReadHistory(ctx, p.Git, s, p.Config, p.Cache.Founded())
	if err != nil {
		return nil, err
	}
	if err := p.Cache.SaveHistory(h); err != nil {
		return nil, err
	}
	p.report("history", 2, 3, fmt.Sprintf("%d commits, %d decision clusters", h.Commits, len(h.Clusters)), start)
	return h, nil
}

// Render writes the store's files. It takes the local lock: kontext
// processes writing at once never interleave.
func (p *Pipeline) Render(ctx context.Context, s *Scan, h *History) ([]string, error) {
	start := time.Now()
	unlock, err := p.State.Lock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	written, err := Render(p.Root, p.Store, p.Config, s, h)
	if err != nil {
		return written, err
	}
	if slices.Contains(written, p.Store.Dir()+"/kontext.toml") {
		// The new shared configuration can move kinds (an ADR directory
		// becomes the decisions home): the index is rendered again from
		// the store as the next process will see it, or a second run
		// would not be a no-op.
		cfg, err := config.Load(ctx, p.Git, p.ConfigOptions)
		if err != nil {
			return written, err
		}
		tmp := p.Store.TempDir
		p.Config, p.Store = cfg, store.New(p.Root, cfg)
		p.Store.TempDir = tmp
		if written, err = writeIndex(p.Store, written); err != nil {
			return written, err
		}
		sort.Strings(written)
		written = dedupe(written)
	}
	detail := fmt.Sprintf("%d files written", len(written))
	if len(written) == 0 {
		detail = "up to date"
	}
	p.report("render", 3, 3, detail, start)
	return written, nil
}

// Bootstrap runs scan, history and render.
func (p *Pipeline) Bootstrap(ctx context.Context) ([]string, error) {
	s, err := p.Scan(ctx)
	if err != nil {
		return nil, err
	}
	h, err := p.History(ctx, s)
	if err != nil {
		return nil, err
	}
	return p.Render(ctx, s, h)
}

// inputs are what tasks are computed from.
func (p *Pipeline) inputs(ctx context.Context) (*Scan, *History, error) {
	s, err := ScanRepository(ctx, p.Engine, p.Root, p.storeDirs())
	if err != nil {
		return nil, nil, err
	}
	head, err := p.Git.Head(ctx)
	if err != nil {
		return nil, nil, err
	}
	if h, ok := p.Cache.LoadHistory(head); ok {
		return s, h, nil
	}
	h, err := ReadHistory(ctx, p.Git, s, p.Config, p.Cache.Founded())
	if err != nil {
		return nil, nil, err
	}
	_ = p.Cache.SaveHistory(h)
	return s, h, nil
}

// storeDirs are the store's directory and the configured homes of its
// kinds (an ADR directory).
func (p *Pipeline) storeDirs() []string {
	dirs := []string{p.Store.Dir()}
	for _, k := range p.Config.Kinds() {
		if k.Configured {
			dirs = append(dirs, k.Path)
		}
	}
	return dirs
}

func joinOr(list []string, none string) string {
	if len(list) == 0 {
		return none
	}
	if len(list) > 6 {
		list = append(list[:6:6], "…")
	}
	out := ""
	for i, s := range list {
		if i > 0 {
			out += ", "
		}
		out += s
	}
	return out
}
