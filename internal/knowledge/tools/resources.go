package tools

import (
	"context"
	"fmt"
	"strings"

	spec "github.com/kontext-dev/kontext/gen/toolsets/knowledge"
	"github.com/kontext-dev/kontext/internal/knowledge/store"
	"github.com/kontext-dev/kontext/internal/mcp"
)

// maxListedEntries bounds resources/list (the original's figure).
const maxListedEntries = 300

// ReadBrief serves kontext://brief: the brief at the configured budget,
// never with the adapters' sections (as the original's: only ctx_brief
// asks adapters).
func (h *Handlers) ReadBrief(ctx context.Context) (*mcp.ResourceContents, error) {
	o, err := h.svc.Open(ctx)
	if err != nil {
		return nil, err
	}
	return &mcp.ResourceContents{Text: brief(ctx, h.svc, o, nil, o.Config.Brief.BudgetTokens*charsPerToken, false)}, nil
}

// ReadEntry serves kontext://entry/{id}: the entry's Markdown. An id may be
// a unique prefix or an ADR number, as everywhere.
func (h *Handlers) ReadEntry(ctx context.Context, vars *spec.EntryVars) (*mcp.ResourceContents, error) {
	o, err := h.svc.Open(ctx)
	if err != nil {
		return nil, err
	}
	entries, err := o.Entries()
	if err != nil && len(entries) == 0 {
		return nil, err
	}
	e, err := store.Find(entries, vars.ID)
	if err != nil {
		return nil, nil // no such entry: -32602 with the uri
	}
	return &mcp.ResourceContents{Text: string(store.Marshal(e))}, nil
}

// ListEntry lists the store's entries as kontext://entry/<id> resources,
// active ones first.
func (h *Handlers) ListEntry(ctx context.Context) ([]*mcp.Resource, error) {
	o, err := h.svc.Open(ctx)
	if err != nil {
		return nil, nil // outside a repository there are no entries to list
	}
	entries, _ := o.Entries()
	var active, rest []*mcp.Resource
	for _, e := range entries {
		r := &mcp.Resource{
			URI:         "kontext://entry/" + e.ID,
			Name:        e.ID,
			Title:       e.Title,
			Description: strings.TrimSpace(fmt.Sprintf("%s · %s — %s", e.Kind, e.Status, e.SummaryText(160))),
		}
		if e.IsActive() {
			active = append(active, r)
		} else {
			rest = append(rest, r)
		}
	}
	all := append(active, rest...)
	if len(all) > maxListedEntries {
		all = all[:maxListedEntries]
	}
	return all, nil
}
