package tools

import (
	"context"
	"fmt"
	"slices"
	"strings"

	spec "github.com/kontext-dev/kontext/gen/toolsets/knowledge"
	"github.com/kontext-dev/kontext/internal/knowledge"
	"github.com/kontext-dev/kontext/internal/knowledge/adapters"
	"github.com/kontext-dev/kontext/internal/knowledge/index"
	"github.com/kontext-dev/kontext/internal/mcp"
)

// charsPerToken is how budgets in tokens become characters (the original's
// estimate, and close enough for English and code).
const charsPerToken = 4

// CtxSearch needs no check of kinds: the generated input schema holds the
// spec's enum (and aliases) in both of a list's forms, the array's items and
// the comma-separated string's pattern, so an unknown kind never gets here.
func (h *Handlers) CtxSearch(ctx context.Context, in *spec.CtxSearchInput) (*mcp.ToolResult, error) {
	var notes []string
	var mgr *adapters.Manager
	var known []string
	if len(in.Sources) != 1 || in.Sources[0] != "local" {
		m, err := h.svc.Adapters(ctx)
		if err != nil {
			notes = append(notes, "the adapters are not used: "+knowledge.OneParagraph(err.Error(), 300))
		}
		mgr = m
		if m != nil {
			for _, d := range m.Definitions() {
				known = append(known, d.Name)
			}
		}
	}
	local, askAdapters := len(in.Sources) == 0, map[string]bool{}
	for _, s := range in.Sources {
		switch {
		case s == "local":
			local = true
		case slices.Contains(known, s):
			askAdapters[s] = true
		case len(known) == 0:
			return nil, mcp.InvalidParams(map[string]any{"tool": "ctx_search"}, mcp.Violation{Path: "/arguments/sources", Message: fmt.Sprintf("unknown source %q: the sources are local (no adapter is configured)", s)})
		default:
			return nil, mcp.InvalidParams(map[string]any{"tool": "ctx_search"}, mcp.Violation{Path: "/arguments/sources", Message: fmt.Sprintf("unknown source %q: the sources are local, %s", s, strings.Join(known, ", "))})
		}
	}
	var names []string
	if mgr != nil {
		ready := mgr.With(adapters.OpSearch)
		if len(in.Sources) == 0 {
			names = ready
		} else {
			for _, n := range sortedSet(askAdapters) {
				if slices.Contains(ready, n) {
					names = append(names, n)
					continue
				}
				// Named but not able to search: say why instead of
				// answering as if it had found nothing.
				if _, err := mgr.Search(ctx, n, in.Query, 1); err != nil {
					notes = append(notes, knowledge.OneParagraph(err.Error(), 300))
				}
			}
		}
	}
	o, err := h.svc.Open(ctx)
	if err != nil {
		return nil, err
	}
	// The adapters run while the local index answers.
	var fanout []adapters.SearchResult
	done := make(chan struct{})
	go func() {
		defer close(done)
		if len(names) > 0 {
			fanout = mgr.SearchAll(ctx, names, in.Query, in.Limit)
		}
	}()
	var hits []index.Hit
	if local {
		ix, err := o.SearchIndex(ctx)
		if err != nil {
			<-done
			return nil, err
		}
		hits, err = ix.Search(ctx, index.Query{Text: in.Query, Kinds: in.Kinds, Limit: in.Limit, Distinct: true})
		if err != nil {
			<-done
			return nil, err
		}
	}
	<-done
	if len(fanout) > 0 {
		lists := []adapters.Ranked{{Source: "local", Weight: adapters.LocalWeight, Hits: hits}}
		for _, r := range fanout {
			if r.Err != nil {
				notes = append(notes, knowledge.OneParagraph(r.Err.Error(), 300))
				continue
			}
			lists = append(lists, adapters.Ranked{Source: r.Adapter, Weight: r.Weight, Hits: keepKinds(adapters.AsIndexHits(r.Hits), in.Kinds)})
		}
		hits = adapters.Fuse(limitOf(in.Limit), lists...)
	}
	text := formatHits(hits, in.BudgetTokens*charsPerToken)
	if len(hits) == 0 {
		text = fmt.Sprintf("Nothing matches %q. Try other words, an identifier, or fewer kinds.", in.Query)
	}
	if note := o.TakeSearchNote(); note != "" {
		notes = append(notes, note)
	}
	for _, n := range notes {
		text += "\n\nNote: " + strings.TrimSuffix(n, ".") + "."
	}
	return mcp.TextResult(text), nil
}

// limitOf is the number of hits asked for, as the index reads it.
func limitOf(n int) int {
	switch {
	case n <= 0:
		return index.DefaultLimit
	case n > index.MaxLimit:
		return index.MaxLimit
	}
	return n
}

// keepKinds drops the adapter hits of other kinds than asked for; a hit
// of no stated kind stays.
func keepKinds(hits []index.Hit, kinds []string) []index.Hit {
	if len(kinds) == 0 {
		return hits
	}
	var out []index.Hit
	for _, h := range hits {
		if h.Kind == "" || slices.Contains(kinds, h.Kind) {
			out = append(out, h)
		}
	}
	return out
}

func sortedSet(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// formatHits renders hits one per line, as the seed gives it —
// "N. title — snippet [kind · status · date · source] <uri>" — until the
// budget runs out, then says how many more there were.
func formatHits(hits []index.Hit, budget int) string {
	var b strings.Builder
	for i, hit := range hits {
		line := hitLine(i+1, hit)
		if b.Len() > 0 && b.Len()+len(line)+1 > budget {
			fmt.Fprintf(&b, "(+%d more — narrow the query or raise budget_tokens)", len(hits)-i)
			return b.String()
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	return strings.TrimRight(b.String(), "\n")
}

// hitLine is "N. title — snippet [kind · status · date · source] <uri>";
// the source is named only when it is not local, so an adapter's hit
// stands out among the repository's own.
func hitLine(n int, hit index.Hit) string {
	source := hit.Source
	if source == "local" {
		source = ""
	}
	var meta []string
	for _, part := range []string{hit.Kind, hit.Status, hit.Date, source} {
		if part != "" {
			meta = append(meta, part)
		}
	}
	line := fmt.Sprintf("%d. %s", n, hit.Title)
	if hit.Snippet != "" {
		line += " — " + hit.Snippet
	}
	if len(meta) > 0 {
		line += " [" + strings.Join(meta, " · ") + "]"
	}
	if hit.URI != "" {
		line += " <" + hit.URI + ">"
	}
	return line
}
