package inventory

import (
	"testing"
	"unicode/utf8"
)

// TestOneLine: descriptions are cut by characters, never inside a UTF-8
// sequence.
func TestOneLine(t *testing.T) {
	for _, tc := range []struct {
		in   string
		max  int
		want string
	}{
		{"short", 10, "short"},
		{"two\n  lines\there", 60, "two lines here"},
		{"abcdefghij", 4, "abcd…"},
		{"Cenník – ceny, dane a zľavy", 6, "Cenník…"},
		{"日本語のテキスト", 3, "日本語…"},
	} {
		got := oneLine(tc.in, tc.max)
		if got != tc.want || !utf8.ValidString(got) {
			t.Errorf("oneLine(%q, %d) = %q, want %q", tc.in, tc.max, got, tc.want)
		}
	}
}
