package store

import (
	"strings"
	"testing"
)

// Large and pathological files are read and rewritten (with no time limit
// asserted: a quadratic slip shows as a slow test run, and make bench
// measures).
func TestPathologicalInputs(t *testing.T) {
	for name, in := range map[string]string{
		"nested lists":  "---\na: " + strings.Repeat("[", 5000) + "\n---\n",
		"nested maps":   "---\na: " + strings.Repeat("{a: ", 3000) + "\n---\n",
		"anchors":       "---\na: &a [x, x]\n" + strings.Repeat("b: &b [*a, *a]\n", 50) + "---\n",
		"many keys":     "---\n" + strings.Repeat("k: v\n", 5000) + "---\n",
		"distinct keys": "---\n" + distinctKeys(5000) + "---\n",
		"long line":     "---\nk: " + strings.Repeat("x ", 200000) + "\n---\n",
		"many fields":   "# T\n\n" + strings.Repeat("Status: x\n", 5000),
		"dashes":        "---\n" + strings.Repeat("- \n", 5000) + "---\n",
		"escapes":       "---\nk: \"" + strings.Repeat("\\\"", 50000) + "\n---\n",
		"indentation":   "---\nk:\n" + strings.Repeat(" ", 100000) + "x\n---\n",
		"block scalar":  "---\nk: |\n" + strings.Repeat("  line\n", 20000) + "---\n",
		"no front end":  "---\n" + strings.Repeat("k: v\n", 5000),
		"long headings": strings.Repeat("# "+strings.Repeat("x", 1000)+"\n", 300),
	} {
		e := Parse("x.md", []byte(in), KindDecision)
		if string(Marshal(e)) != in {
			t.Errorf("%s: not written back", name)
		}
		MarkSuperseded(e, "n")
		if back := Parse("x.md", Marshal(e), KindDecision); back.Status != StatusSuperseded {
			t.Errorf("%s: status %q", name, back.Status)
		}
	}
}

func distinctKeys(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString("key" + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + itoa(i) + ": v\n")
	}
	return b.String()
}
