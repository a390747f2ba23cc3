package knowledge

import (
	"context"
	"sort"
	"sync"
	"time"

	"github.com/kontext-dev/kontext/internal/knowledge/store"
	"github.com/kontext-dev/kontext/internal/repo"
	"github.com/kontext-dev/kontext/internal/repo/analyze"
)

// moduleRankWait bounds what a brief waits for the repository's analysis:
// a warm engine, or its cache on disk, answers well within it. A longer
// (cold) analysis goes on in the background, the brief lists the modules
// by path meanwhile, and the next brief has the ranking.
const moduleRankWait = 500 * time.Millisecond

// moduleRanking is the repo engine's order of the modules, kept between
// briefs.
type moduleRanking struct {
	mu   sync.Mutex
	snap *repo.Snapshot // the analysis rank was computed from
	rank map[string]int // module id → place, most important first
	done chan struct{}  // closed when the analysis in flight ends; nil when none is
}

// rankModules orders module docs by the engine's ranking of their modules
// (analyze.RankModules: most depended upon first): the brief names the
// same core as the repo tools. Modules the analysis does not know, and
// every module while no analysis is ready, follow in path order.
func (s *Service) rankModules(ctx context.Context, o *opened, mods []*store.Entry) {
	rank := s.moduleRanks(ctx, o.root.Dir())
	place := func(e *store.Entry) int {
		if p, ok := rank[moduleID(e)]; ok {
			return p
		}
		return len(rank)
	}
	sort.SliceStable(mods, func(i, j int) bool {
		pi, pj := place(mods[i]), place(mods[j])
		if pi != pj {
			return pi < pj
		}
		return moduleID(mods[i]) < moduleID(mods[j])
	})
}

// moduleRanks returns each module's place in the engine's ranking,
// waiting for the analysis at most s.rankWait (moduleRankWait when 0,
// for ever when negative); nil when no analysis has finished yet.
func (s *Service) moduleRanks(ctx context.Context, root string) map[string]int {
	r := &s.ranking
	r.mu.Lock()
	if r.done == nil {
		done := make(chan struct{})
		r.done = done
		eng := s.engine()
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
			rank := map[string]int{}
			for i, m := range analyze.RankModules(snap.Graph) {
				rank[m.ID] = i
			}
			r.snap, r.rank = snap, rank
		}()
	}
	done := r.done
	r.mu.Unlock()
	wait := s.rankWait
	if wait == 0 {
		wait = moduleRankWait
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
