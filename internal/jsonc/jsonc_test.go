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
