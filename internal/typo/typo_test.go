package typo

import (
	"strings"
	"testing"
)

func TestDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"status", "status", 0},
		{"stauts", "status", 1}, // a transposition is one edit
		{"sttaus", "status", 1},
		{"satuts", "status", 2},
		{"", "abc", 3},
		{"abc", "", 3},
		{"kitten", "sitting", 3},
		{"graph", "grpah", 1},
		{"modules/caddyhttp", "modules/caddyhtp", 1},
		{"čaj", "caj", 1}, // characters, not bytes
		{"ca", "abc", 3},
		{"satus", "status", 1},
		{"statuss", "status", 1},
		{"stutas", "status", 2},
		{"", "log", 3},
		{"analyse", "analyze", 1},
		{"zsh", "zhs", 1},
		{"mcp", "why", 3}, // optimal string alignment, not Damerau: no edit of a transposed pair
	} {
		if got := Distance(tc.a, tc.b); got != tc.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
		if got := Distance(tc.b, tc.a); got != tc.want {
			t.Errorf("Distance(%q, %q) = %d, want %d (not symmetric)", tc.b, tc.a, got, tc.want)
		}
	}
}

func TestDistanceIsBounded(t *testing.T) {
	long := strings.Repeat("a", 1<<20)
	if got := Distance(long, long+"b"); got != 0 {
		t.Errorf("two names alike in their first 128 characters are %d apart, want 0", got)
	}
	if got := Distance(long, ""); got != maxRunes {
		t.Errorf("Distance(1 MiB, \"\") = %d, want %d", got, maxRunes)
	}
}

func FuzzDistance(f *testing.F) {
	f.Add("status", "stauts")
	f.Fuzz(func(t *testing.T, a, b string) {
		d := Distance(a, b)
		la, lb := len(clip([]rune(a))), len(clip([]rune(b)))
		if d < 0 || d > max(la, lb) || d < abs(la-lb) {
			t.Fatalf("Distance(%q, %q) = %d outside [%d, %d]", a, b, d, abs(la-lb), max(la, lb))
		}
		if d != Distance(b, a) {
			t.Fatalf("Distance is not symmetric for %q, %q", a, b)
		}
	})
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
