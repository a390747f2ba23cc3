package adapters

import (
	"context"
	"sort"
	"strings"
	"sync"
	"unicode"

	"github.com/kontext-dev/kontext/internal/knowledge/index"
)

// LocalWeight is the weight of kontext's own results in fusion.
const LocalWeight = 1.0

// rrfK is the rank constant of the original's weighted reciprocal-rank
// fusion: a hit's score is weight/(rrfK+1+rank), rank from 0.
const rrfK = 8

// Ranked is one source's hits, best first, with its weight.
type Ranked struct {
	Source string
	Weight float64
	Hits   []index.Hit
}

// AsIndexHits gives an adapter's hits the shape of local ones, so that one
// list (and one hit line) holds both.
func AsIndexHits(hits []Hit) []index.Hit {
	out := make([]index.Hit, 0, len(hits))
	for _, h := range hits {
		out = append(out, index.Hit{
			Doc:     index.Doc{URI: h.URI, Kind: h.Kind, Source: h.Adapter, Title: h.Title, Date: h.Date},
			Score:   h.Score,
			Snippet: h.Snippet,
		})
	}
	return out
}

// Fuse merges ranked lists by weighted reciprocal rank and drops the hits
// that repeat one ranked above them: the same URI, the same text (the
// first 90 letters and digits of title and snippet), or an adapter's copy
// of a local entry (its URI's last segment is the entry's id). At most
// limit hits are returned (all when limit <= 0). Equal scores keep the
// order of lists, then of ranks, so the result is deterministic.
func Fuse(limit int, lists ...Ranked) []index.Hit {
	type scored struct {
		hit   index.Hit
		score float64
		list  int
		rank  int
	}
	var all []scored
	for li, l := range lists {
		for r, h := range l.Hits {
			all = append(all, scored{h, l.Weight / float64(rrfK+1+r), li, r})
		}
	}
	sort.SliceStable(all, func(i, j int) bool {
		if all[i].score != all[j].score {
			return all[i].score > all[j].score
		}
		if all[i].list != all[j].list {
			return all[i].list < all[j].list
		}
		return all[i].rank < all[j].rank
	})
	// Local entries are known before any adapter copy is judged, whatever
	// their rank.
	localIDs := map[string]bool{}
	for _, l := range lists {
		for _, h := range l.Hits {
			if id, ok := strings.CutPrefix(h.URI, "kx:"); ok && (h.Source == "local" || h.Source == "") {
				localIDs[id] = true
			}
		}
	}
	seenURI := map[string]bool{}
	seenText := map[string]bool{}
	var out []index.Hit
	for _, s := range all {
		if limit > 0 && len(out) == limit {
			break
		}
		h := s.hit
		if h.URI != "" && seenURI[h.URI] {
			continue
		}
		if h.Source != "local" && h.Source != "" && h.URI != "" {
			last := h.URI
			if i := strings.LastIndexAny(last, "/:"); i >= 0 {
				last = last[i+1:]
			}
			if localIDs[last] {
				continue
			}
		}
		key := dedupeKey(h.Title + " " + h.Snippet)
		if key != "" && seenText[key] {
			continue
		}
		if h.URI != "" {
			seenURI[h.URI] = true
		}
		if key != "" {
			seenText[key] = true
		}
		h.Score = s.score
		out = append(out, h)
	}
	return out
}

// dedupeKey is the first 90 letters and digits of s, lower case, as the
// local index compares hits.
func dedupeKey(s string) string {
	var b strings.Builder
	n := 0
	for _, r := range strings.ToLower(s) {
		if n == 90 {
			break
		}
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
			n++
		}
	}
	return b.String()
}

// SearchResult is one adapter's part of a fan-out.
type SearchResult struct {
	Adapter string
	Weight  float64
	Hits    []Hit
	Err     error
}

// SearchAll asks the named adapters (every one that may search when
// names is nil) in parallel, each within its search deadline, and returns
// their results in the order of names. A failure is that adapter's Err,
// never the others'.
func (m *Manager) SearchAll(ctx context.Context, names []string, query string, limit int) []SearchResult {
	if names == nil {
		names = m.With(OpSearch)
	}
	out := make([]SearchResult, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			hits, err := m.Search(ctx, name, query, limit)
			out[i] = SearchResult{Adapter: name, Weight: m.Weight(name), Hits: hits, Err: err}
		}()
	}
	wg.Wait()
	return out
}
