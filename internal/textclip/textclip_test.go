package textclip

import (
	"testing"
	"unicode/utf8"
)

func TestPrefixKeepsCharactersWhole(t *testing.T) {
	s := "ab日本語" // 2 + 3×3 bytes
	for n := -1; n <= len(s)+1; n++ {
		p := Prefix(s, n)
		if !utf8.ValidString(p) || len(p) > max(n, 0) && n < len(s) {
			t.Errorf("Prefix(%q, %d) = %q", s, n, p)
		}
	}
	if got := Prefix(s, 4); got != "ab" {
		t.Errorf("Prefix(%q, 4) = %q, want ab", s, got)
	}
	if got := Ellipsis(s, 5); got != "ab日…" {
		t.Errorf("Ellipsis = %q", got)
	}
	if got := Ellipsis("short", 5); got != "short" {
		t.Errorf("Ellipsis of a fitting text = %q", got)
	}
}
