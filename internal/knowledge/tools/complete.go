package tools

import (
	"cmp"
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/kontext-dev/kontext/internal/knowledge/store"
	"github.com/kontext-dev/kontext/internal/mcp"
)

// CompleteEntries suggests the ids of kontext://entry/{id}: the entries
// whose id starts with what was typed (case aside, "kx:" as everywhere),
// the one typed in full first, then active ones, then the newest, so the entry a user most likely
// means leads. Outside a repository there is nothing to suggest.
func (h *Handlers) CompleteEntries(ctx context.Context, req mcp.CompletionRequest) (*mcp.Completion, error) {
	o, err := h.svc.Open(ctx)
	if err != nil {
		return &mcp.Completion{}, nil
	}
	entries, _ := o.Entries()
	prefix := strings.TrimPrefix(strings.ToLower(strings.TrimSpace(req.Value)), "kx:")
	var matches []*store.Entry
	for _, e := range entries {
		if strings.HasPrefix(strings.ToLower(e.ID), prefix) {
			matches = append(matches, e)
		}
	}
	slices.SortStableFunc(matches, func(a, b *store.Entry) int {
		if exactA, exactB := strings.EqualFold(a.ID, prefix), strings.EqualFold(b.ID, prefix); exactA != exactB {
			if exactA {
				return -1
			}
			return 1
		}
		if a.IsActive() != b.IsActive() {
			if a.IsActive() {
				return -1
			}
			return 1
		}
		if c := cmp.Compare(b.Date, a.Date); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	out := &mcp.Completion{Values: make([]string, len(matches))}
	for i, e := range matches {
		out.Values[i] = e.ID
	}
	return out, nil
}

// CompleteTaskCounts suggests kontext-init's tasks: the counts it accepts
// that start with what was typed, smallest first.
func (h *Handlers) CompleteTaskCounts(_ context.Context, req mcp.CompletionRequest) (*mcp.Completion, error) {
	out := &mcp.Completion{Values: []string{}}
	for n := 1; n <= maxPromptTasks; n++ {
		if s := strconv.Itoa(n); strings.HasPrefix(s, strings.TrimSpace(req.Value)) {
			out.Values = append(out.Values, s)
		}
	}
	return out, nil
}
