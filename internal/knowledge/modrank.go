package knowledge

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/kontext-dev/kontext/internal/atomicfile"
	"github.com/kontext-dev/kontext/internal/knowledge/store"
	"github.com/kontext-dev/kontext/internal/repo"
	"github.com/kontext-dev/kontext/internal/repo/analyze"
	"github.com/kontext-dev/kontext/internal/shell"
)

// What a brief waits for the repository's analysis when no order of the
// modules is known yet (the first brief in a worktree): an agent's brief
// moduleRankWait (a warm engine, or its cache on disk, answers well
// within it; a longer analysis goes on in the background for the next
// brief), a person's at a shell longer — the process ends with the brief,
// and the analysis with it. Once an order is known, a brief uses it at
// once and the engine's newer one, computed meanwhile, serves the next.
const (
	moduleRankWait      = 500 * time.Millisecond
	shellModuleRankWait = 10 * time.Second
)

// moduleRanking is the repo engine's order of the modules, kept between
// briefs, and in a file for the next process (the last order known, used
// until the engine answers).
type moduleRanking struct {
	mu   sync.Mutex
	snap *repo.Snapshot // the analysis rank was computed from
	rank map[string]int // module id → place, most important first
	done chan struct{}  // closed when the analysis in flight ends; nil when none is
	file string         // where the order is kept ("" keeps none)
}

// RankModules orders module docs by the engine's ranking of their modules
// (analyze.RankModules: most depended upon first): the brief names the
// same core as the repo tools. Modules the ranking does not know, and
// every module while none is known, follow in path order.
func (s *Service) RankModules(ctx context.Context, o *Opened, mods []*store.Entry) {
	rank := s.moduleRanks(ctx, o.Root.Dir(), filepath.Join(o.State.Dir, "worktrees", o.State.Worktree, "module-rank.json"))
	place := func(e *store.Entry) int {
		if p, ok := rank[ModuleID(e)]; ok {
			return p
		}
		return len(rank)
	}
	sort.SliceStable(mods, func(i, j int) bool {
		pi, pj := place(mods[i]), place(mods[j])
		if pi != pj {
			return pi < pj
		}
		return ModuleID(mods[i]) < ModuleID(mods[j])
	})
}

// moduleRanks returns each module's place in the engine's ranking: the
// latest this process has, else the order file keeps from an earlier one,
// else — waiting for the analysis at most s.rankWait, the defaults above
// when 0 — the engine's; nil when none is ready. A negative s.rankWait
// waits for the engine's current ranking every time (tests).
func (s *Service) moduleRanks(ctx context.Context, root, file string) map[string]int {
	r := &s.ranking
	r.mu.Lock()
	if r.file == "" {
		r.file = file
	}
	if r.done == nil {
		done := make(chan struct{})
		r.done = done
		eng := s.RepoEngine()
		go func() {
			defer close(done)
			// Not the caller's context: an analysis the brief stopped
			// waiting for still finishes for the next brief.
			bg, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Minute)
			defer cancel()
			snap, err := eng.Snapshot(bg, root)
			r.mu.Lock()
			defer r.mu.Unlock()
			r.done = nil
			if err != nil || snap == r.snap {
				return
			}
			ranked := analyze.RankModules(snap.Graph)
			rank := make(map[string]int, len(ranked))
			order := make([]string, len(ranked))
			for i, m := range ranked {
				rank[m.ID], order[i] = i, m.ID
			}
			if r.rank == nil || !sameOrder(r.rank, order) {
				r.save(order)
			}
			r.snap, r.rank = snap, rank
		}()
	}
	done := r.done
	if r.rank == nil {
		r.rank = r.load()
	}
	if r.rank != nil && s.RankWait >= 0 {
		defer r.mu.Unlock()
		return r.rank
	}
	r.mu.Unlock()
	wait := s.RankWait
	if wait == 0 {
		wait = moduleRankWait
		if shell.From(ctx) {
			wait = shellModuleRankWait
		}
	}
	if wait < 0 {
		select {
		case <-done:
		case <-ctx.Done():
		}
	} else {
		timer := time.NewTimer(wait)
		defer timer.Stop()
		select {
		case <-done:
		case <-timer.C:
		case <-ctx.Done():
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.rank
}

func sameOrder(rank map[string]int, order []string) bool {
	if len(rank) != len(order) {
		return false
	}
	for i, id := range order {
		if rank[id] != i {
			return false
		}
	}
	return true
}

// load reads the order an earlier process kept (nil when none).
func (r *moduleRanking) load() map[string]int {
	if r.file == "" {
		return nil
	}
	data, err := os.ReadFile(r.file)
	if err != nil {
		return nil
	}
	var order []string
	if json.Unmarshal(data, &order) != nil {
		return nil
	}
	rank := make(map[string]int, len(order))
	for i, id := range order {
		if _, dup := rank[id]; !dup {
			rank[id] = i
		}
	}
	return rank
}

// save keeps the order for the next process: a cache, so a failure to
// write it costs only the order's wait there.
func (r *moduleRanking) save(order []string) {
	if r.file == "" {
		return
	}
	if old := r.load(); old != nil && sameOrder(old, order) {
		return
	}
	if data, err := json.Marshal(order); err == nil {
		if os.MkdirAll(filepath.Dir(r.file), 0o755) == nil {
			_ = atomicfile.Write(r.file, data, 0o644)
		}
	}
}

// ModuleID is a module doc's module: its path from the top of the
// repository (internal/cli), as the bootstrap records it, else the title.
func ModuleID(e *store.Entry) string {
	if id := strings.TrimSpace(e.Get("module")); id != "" {
		return id
	}
	return e.Title
}
