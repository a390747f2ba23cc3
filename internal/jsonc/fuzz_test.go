package jsonc

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzStrip: Strip keeps every line break (line numbers of what follows a
// comment stay right), leaves plain JSON byte for byte alone, and what it
// makes of JSON with comments and trailing commas decodes like the JSON
// without them.
func FuzzStrip(f *testing.F) {
	for _, s := range []string{
		`{"a": 1}`,
		"{\n  // comment\n  \"paths\": {\"@/*\": [\"src/*\"],},\n  /* block\n comment */ \"x\": [1, 2, ],\n}",
		`{"url": "http://example.com/*not a comment*/", "esc": "a\"//b"}`,
		"[1, // last\n]",
		`{"unterminated": "str`,
		"/* never closed",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		out := Strip(data)
		if got, want := bytes.Count(out, []byte("\n")), bytes.Count(data, []byte("\n")); got != want {
			t.Fatalf("Strip(%q) = %q: %d line breaks, want %d", data, out, got, want)
		}
		if json.Valid(data) {
			if !bytes.Equal(out, data) {
				t.Fatalf("Strip changed plain JSON %q into %q", data, out)
			}
			var plain, ours any
			if err := json.Unmarshal(data, &plain); err != nil {
				return // valid, but not into an any (1E700 overflows a float64)
			}
			if err := Unmarshal(data, &ours); err != nil || !reflect.DeepEqual(plain, ours) {
				t.Fatalf("Unmarshal(%q) = %v, %v; encoding/json reads %v", data, ours, err, plain)
			}
		}
	})
}
