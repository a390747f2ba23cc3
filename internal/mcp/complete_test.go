package mcp

import (
	"fmt"
	"slices"
	"testing"
)

// TestBoundedCompletion checks the specification's limits on what a
// Completer returns: at most 100 values, a total that counts them all and
// hasMore whenever some were left out, whether the server or the
// Completer cut the list.
func TestBoundedCompletion(t *testing.T) {
	many := make([]string, 150)
	for i := range many {
		many[i] = fmt.Sprint(i)
	}
	for _, tc := range []struct {
		name     string
		got      *Completion
		values   int
		total    int
		hasMore  bool
		firstVal string
	}{
		{"nothing", nil, 0, 0, false, ""},
		{"few", &Completion{Values: []string{"a", "b"}}, 2, 2, false, "a"},
		{"cut by the server", &Completion{Values: many}, 100, 150, true, "0"},
		{"cut by the completer, counted", &Completion{Values: many[:10], Total: 4000}, 10, 4000, true, "0"},
		{"cut by the completer, not counted", &Completion{Values: many[:10], HasMore: true}, 10, 10, true, "0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := bounded(tc.got)
			if out.Values == nil || len(out.Values) != tc.values {
				t.Fatalf("values = %v, want %d of them (never null)", out.Values, tc.values)
			}
			if tc.values > 0 && out.Values[0] != tc.firstVal {
				t.Errorf("first value %q, want %q (the completer's order)", out.Values[0], tc.firstVal)
			}
			if out.Total == nil || *out.Total != tc.total {
				t.Errorf("total = %v, want %d", out.Total, tc.total)
			}
			if out.HasMore == nil || *out.HasMore != tc.hasMore {
				t.Errorf("hasMore = %v, want %v", out.HasMore, tc.hasMore)
			}
		})
	}
	// The answer is a copy: the completer's slice is never aliased.
	out := bounded(&Completion{Values: many})
	out.Values[0] = "changed"
	if many[0] != "0" || !slices.Equal(out.Values[1:3], []string{"1", "2"}) {
		t.Error("bounded aliases the completer's values")
	}
}
