package tools

import (
	"context"
	"fmt"
	"strings"

	spec "github.com/kontext-dev/kontext/gen/toolsets/knowledge"
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
	for _, s := range in.Sources {
		if s != "local" {
			// Adapters are the only other sources, and none is configured.
			return nil, mcp.InvalidParams(map[string]any{"tool": "ctx_search"}, mcp.Violation{Path: "/arguments/sources", Message: fmt.Sprintf("unknown source %q: the sources are local (no adapter is configured)", s)})
		}
	}
	o, err := h.svc.Open(ctx)
	if err != nil {
		return nil, err
	}
	ix, err := o.SearchIndex(ctx)
	if err != nil {
		return nil, err
	}
	hits, err := ix.Search(ctx, index.Query{Text: in.Query, Kinds: in.Kinds, Sources: in.Sources, Limit: in.Limit, Distinct: true})
	if err != nil {
		return nil, err
	}
	text := formatHits(hits, in.BudgetTokens*charsPerToken)
	if len(hits) == 0 {
		text = fmt.Sprintf("Nothing matches %q. Try other words, an identifier, or fewer kinds.", in.Query)
	}
	if note := o.TakeSearchNote(); note != "" {
		text += "\n\nNote: " + note + "."
	}
	return mcp.TextResult(text), nil
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

func hitLine(n int, hit index.Hit) string {
	var meta []string
	for _, part := range []string{hit.Kind, hit.Status, hit.Date, hit.Source} {
		if part != "" {
			meta = append(meta, part)
		}
	}
	line := fmt.Sprintf("%d. %s", n, hit.Title)
	if hit.Snippet != "" {
		line += " — " + hit.Snippet
	}
	return line + " [" + strings.Join(meta, " · ") + "] <" + hit.URI + ">"
}
