package jsonc

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestStrip(t *testing.T) {
	in := `{
  // comment "with quotes"
  "a": "http://x//y", /* block */
  "b": [1, 2,],
}`
	if got := string(Strip([]byte(in))); strings.Contains(got, "comment") || strings.Contains(got, "block") || !strings.Contains(got, "http://x//y") {
		t.Errorf("Strip = %s", got)
	}
	for _, in := range []string{
		in,
		"{\"compilerOptions\": {\"strict\": true, // on purpose\n}}", // a comment between the trailing comma and the brace
		"{\"a\": [1, /* none */ ]}",
		"{\"a\": \"x\\\\\", \"b\": \"//\",}", // an escaped backslash ends no string
	} {
		if got := Strip([]byte(in)); !json.Valid(got) {
			t.Errorf("Strip(%q) = %q, not JSON", in, got)
		}
	}
}

func TestUnmarshal(t *testing.T) {
	var v struct{ A []int }
	if err := Unmarshal([]byte("{\"A\": [1, 2,], // two\n}"), &v); err != nil || len(v.A) != 2 {
		t.Errorf("Unmarshal = %v %v", v, err)
	}
}

func TestBlankKeepsOffsets(t *testing.T) {
	for _, in := range []string{
		"{\n  // comment \"with quotes\"\n  \"a\": \"http://x//y\", /* block\n spanning */\n  \"b\": [1, 2,],\n}",
		"{\"compilerOptions\": {\"strict\": true, // on purpose\n}}",
		"{\"a\": [1, /* none */ ]}",
		"{\"a\": \"x\\\\\", \"b\": \"//\",}",
		"{\"a\": \",\", \"b\": \"}\"}",
		"/* unterminated",
	} {
		got := Blank([]byte(in))
		if len(got) != len(in) {
			t.Fatalf("Blank(%q) changed the length: %q", in, got)
		}
		for i := range got {
			if (in[i] == '\n') != (got[i] == '\n') {
				t.Fatalf("Blank(%q) moved a line break: %q", in, got)
			}
		}
		if in != "/* unterminated" && !json.Valid(got) {
			t.Errorf("Blank(%q) = %q, not JSON", in, got)
		}
		if strings.Contains(string(got), "comment") || strings.Contains(string(got), "block") {
			t.Errorf("Blank(%q) kept a comment: %q", in, got)
		}
	}
	// Strings are untouched, commas in them included.
	if got := string(Blank([]byte(`{"a": ",", "b": "//x"}`))); got != `{"a": ",", "b": "//x"}` {
		t.Errorf("Blank changed strings: %q", got)
	}
}
