package tools

import (
	"cmp"
	"context"
	"slices"
	"strings"

	"github.com/kontext-dev/kontext/internal/mcp"
	"github.com/kontext-dev/kontext/internal/repo/model"
)

// CompleteModules suggests module paths for a prompt's target: the modules
// whose path starts with what was typed (case aside), then those whose
// name does; within each, the modules most others depend on first, as the
// repository context lists them, since those are what a change or an
// explanation is most often about.
func (h *Handlers) CompleteModules(ctx context.Context, req mcp.CompletionRequest) (*mcp.Completion, error) {
	snap, err := h.analysis(ctx, nil)
	if err != nil {
		return nil, err
	}
	prefix := strings.ToLower(strings.TrimPrefix(strings.TrimSpace(req.Value), "./"))
	type match struct {
		m      *model.Module
		byName bool
	}
	var matches []match
	for i := range snap.Graph.Modules {
		m := &snap.Graph.Modules[i]
		switch {
		case strings.HasPrefix(strings.ToLower(m.ID), prefix):
			matches = append(matches, match{m: m})
		case m.Name != "" && strings.HasPrefix(strings.ToLower(m.Name), prefix):
			matches = append(matches, match{m: m, byName: true})
		}
	}
	slices.SortFunc(matches, func(a, b match) int {
		if a.byName != b.byName {
			if b.byName {
				return -1
			}
			return 1
		}
		if c := cmp.Compare(len(b.m.UsedBy), len(a.m.UsedBy)); c != 0 {
			return c
		}
		return cmp.Compare(a.m.ID, b.m.ID)
	})
	out := &mcp.Completion{Values: make([]string, len(matches))}
	for i, m := range matches {
		out.Values[i] = m.m.ID
	}
	return out, nil
}
