package store

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// FuzzParse: any file is read without a panic, written back byte for byte
// when nothing changed, and marking it superseded yields a file that reads
// back as superseded by the new entry.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/golden/*.md")
	for _, name := range files {
		if data, err := os.ReadFile(name); err == nil {
			f.Add(data)
		}
	}
	for _, s := range []string{
		"", "---\n---\n", "---\r\n\r\n---\r\n", "\ufeff---\ntitle: x\n---\nbody", "# \n", "# 7. \n\nStatus:\n",
		"---\nstatus: superseded by\n---\n", "---\na: &x 1\nb: *x\n---\n", "---\n? complex\n: key\n---\n",
		"# T\n\n## Status\n\n", "---\ntags: [a, b\n---\n", "```\n# not a title\n```\n# Title\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		e := Parse("docs/adr/0001-fuzz.md", data, KindDecision)
		if got := Marshal(e); string(got) != string(data) {
			t.Fatalf("unchanged entry rewritten:\n%q\n%q", data, got)
		}
		_ = e.SummaryText(100)
		_ = e.Section("Decision")
		// An entry rebuilt from its record renders the same index line and
		// answers the same number.
		r := FromRecord(e.Record())
		if RenderIndex([]*Entry{r}, ".ai") != RenderIndex([]*Entry{e}, ".ai") || r.SummaryText(7) != e.SummaryText(7) {
			t.Fatalf("record of %q renders differently:\n%s\n%s", data, RenderIndex([]*Entry{r}, ".ai"), RenderIndex([]*Entry{e}, ".ai"))
		}
		if n, ok := e.Number(); true {
			if rn, rok := r.Number(); rn != n || rok != ok {
				t.Fatalf("record of %q: number %d %v, entry %d %v", data, rn, rok, n, ok)
			}
		}
		MarkSuperseded(e, "0099-new")
		out := Marshal(e)
		back := Parse("docs/adr/0001-fuzz.md", out, KindDecision)
		if back.Status != StatusSuperseded || !slices.Contains(back.SupersededBy, "0099-new") {
			t.Fatalf("superseding lost:\nin  %q\nout %q\nstatus %q by %q", data, out, back.Status, back.SupersededBy)
		}
		// Other edits must not panic either.
		back.Tags = append(back.Tags, "t, u")
		back.Set("x-key", []string{"a", "b"})
		back.Body += "more\n"
		back.Title = "New: title"
		_ = Marshal(back)
	})
}
