package store

import (
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// The golden files are written by hand the way the original kontext (and
// the ADR tools teams use) write entries. Each is read, written back
// unchanged, then marked superseded and compared with its .superseded.md
// twin, which differs only in the status (and link) lines.
func TestGoldenRoundTrip(t *testing.T) {
	files, _ := filepath.Glob("testdata/golden/*.md")
	n := 0
	for _, f := range files {
		if strings.HasSuffix(f, ".superseded.md") {
			continue
		}
		n++
		name := strings.TrimSuffix(filepath.Base(f), ".md")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			rel := "docs/adr/" + filepath.Base(f)
			e := Parse(rel, data, KindDecision)
			if got := string(Marshal(e)); got != string(data) {
				t.Fatalf("unchanged entry rewritten differently:\n%s", diff(string(data), got))
			}
			by := "2026-10-01-new-decision"
			if e.Style == StyleFields {
				by = "0012-new-decision"
			}
			MarkSuperseded(e, by)
			got := string(Marshal(e))
			want, err := os.ReadFile(strings.TrimSuffix(f, ".md") + ".superseded.md")
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Fatalf("superseded:\n%s", diff(string(want), got))
			}
			again := Parse(rel, []byte(got), KindDecision)
			if again.Status != StatusSuperseded || !reflect.DeepEqual(again.SupersededBy, []string{by}) {
				t.Fatalf("re-read: status %q superseded_by %v", again.Status, again.SupersededBy)
			}
			// Everything else reads as before.
			a, b := e.clone(), again.clone()
			a.Status, b.Status, a.SupersededBy, b.SupersededBy = "", "", nil, nil
			if e.Line("status") > e.Line("body") {
				// adr-tools keeps the status in the body's "## Status" section.
				a.Body = strings.Replace(a.Body, "Accepted", "Superseded by "+by, 1)
			}
			if !sameEntry(a, b) {
				t.Fatalf("other fields changed:\n%+v\n%+v", a, b)
			}
		})
	}
	if n < 7 {
		t.Fatalf("only %d golden files", n)
	}
}

func TestGoldenFields(t *testing.T) {
	read := func(name string) *Entry {
		data, err := os.ReadFile("testdata/golden/" + name)
		if err != nil {
			t.Fatal(err)
		}
		return Parse("docs/adr/"+name, data, KindDecision)
	}
	e := read("frontmatter-handwritten.md")
	if e.Title != "Prices: integer cents" || e.Status != StatusAccepted || e.Summary != "Every amount is an integer number of cents." ||
		!reflect.DeepEqual(e.Tags, []string{"billing", "money, rounding"}) || !reflect.DeepEqual(e.Paths, []string{"src/billing/**", "docs/billing.md"}) ||
		!reflect.DeepEqual(e.Commits, []string{"a1b2c3d"}) || e.Author != "Jane Doe" || e.Style != StyleFrontMatter {
		t.Errorf("handwritten: %+v", e)
	}
	if e.Get("reviewers") != "alice, bob" || e.Get("x-team-score") != "0007" || e.Get("notes") != "Keep this block\nexactly as it is." {
		t.Errorf("extras: %+v", e.Extra)
	}
	if links, ok := e.Extra[1].Value.(map[string]any); !ok || links["issue"] != "SHOP-7" {
		t.Errorf("links: %#v", e.Extra[1].Value)
	}
	if e.Line("status") != 6 || e.Line("paths") != 10 || e.Line("body") != 26 {
		t.Errorf("lines: status %d paths %d body %d", e.Line("status"), e.Line("paths"), e.Line("body"))
	}
	if s := e.Section("Decision"); s != "Every amount is stored and computed as an integer number of cents." {
		t.Errorf("section %q", s)
	}

	e = read("fields-bold.md")
	if e.ID != "fields-bold" || e.Title != "Orders live in PostgreSQL" || e.Status != StatusAccepted || e.Date != "2026-08-04" ||
		e.Author != "Jane Doe, Omar Haddad" || !reflect.DeepEqual(e.Paths, []string{"src/orders/**", "migrations/**"}) || e.Style != StyleFields {
		t.Errorf("bold: %+v", e)
	}
	if n, ok := e.Number(); !ok || n != 7 {
		t.Errorf("number %d %v", n, ok)
	}
	if !strings.HasPrefix(e.Body, "## Context") || e.SummaryText(0) != "One PostgreSQL database. Reporting reads a replica." {
		t.Errorf("body %q summary %q", e.Body, e.SummaryText(0))
	}

	e = read("fields-madr.md")
	if e.Status != StatusAccepted || e.Date != "2017-11-14" || e.Author != "Alice, Bob" || !strings.HasPrefix(e.Body, "Technical Story:") {
		t.Errorf("madr: %+v", e)
	}
	e = read("fields-plain.md")
	if e.Title != "Queue jobs through Redis" || e.Status != StatusProposed || !reflect.DeepEqual(e.Tags, []string{"jobs", "infra"}) {
		t.Errorf("plain: %+v", e)
	}
	if n, ok := e.Number(); !ok || n != 3 {
		t.Errorf("ADR-3 number %d", n)
	}
	if s := e.SummaryText(0); s != "Jobs go through Redis streams." {
		t.Errorf("summary %q", s)
	}
	e = read("fields-adrtools.md")
	if e.Title != "Record architecture decisions" || e.Status != StatusAccepted || e.Date != "2017-11-14" || e.Line("status") != 7 {
		t.Errorf("adr-tools: %+v line %d", e, e.Line("status"))
	}
}

func TestStatusVariants(t *testing.T) {
	for raw, want := range map[string]string{
		"Accepted (2026-08-04)": StatusAccepted, "**Draft**": StatusProposed, "approved": StatusAccepted,
		"Obsolete": StatusSuperseded, "declined": StatusRejected, "Deprecated": StatusDeprecated, "wip": "wip",
	} {
		if got := NormalizeStatus(raw); got != want {
			t.Errorf("NormalizeStatus(%q) = %q", raw, got)
		}
	}
	e := Parse("docs/adr/0003-x.md", []byte("# ADR-3: X\n\n* Status: Superseded by 0007\n\nBody.\n"), KindDecision)
	if e.Status != StatusSuperseded || !reflect.DeepEqual(e.SupersededBy, []string{"0007"}) || e.Title != "X" {
		t.Fatalf("%+v", e)
	}
	e = Parse("a.md", []byte("# 2. B\n\n## Status\n\nSuperseded by [3. Use C](0003-use-c.md)\n"), KindDecision)
	if e.Status != StatusSuperseded || !reflect.DeepEqual(e.SupersededBy, []string{"0003-use-c"}) {
		t.Fatalf("adr-tools link: %+v", e)
	}
	e = Parse("b.md", []byte("---\nstatus: superseded by 0009, 0010\n---\nx\n"), KindDecision)
	if e.Status != StatusSuperseded || !reflect.DeepEqual(e.SupersededBy, []string{"0009", "0010"}) {
		t.Fatalf("front matter link: %+v", e)
	}
	// A new superseding entry rewrites the status line that carries the link.
	MarkSuperseded(e, "0011")
	if got := string(Marshal(e)); got != "---\nstatus: superseded by 0009, 0010, 0011\n---\nx\n" {
		t.Fatalf("%q", got)
	}
}

func TestLenientFrontMatter(t *testing.T) {
	// Not YAML ("mapping values are not allowed"), but the original reads it.
	src := "---\ntitle: Use Tantivy: fast BM25\ntags: [a, b\npaths:\n- x\n- y\nsummary: one\n  two\n---\nbody\n"
	e := Parse(".ai/decisions/x.md", []byte(src), KindDecision)
	if e.Title != "Use Tantivy: fast BM25" || e.Summary != "one two" || !reflect.DeepEqual(e.Paths, []string{"x", "y"}) {
		t.Fatalf("%+v", e)
	}
	if string(Marshal(e)) != src {
		t.Fatal("not written back as read")
	}
	e.Title = "Use Tantivy"
	if got := string(Marshal(e)); got != strings.Replace(src, "Use Tantivy: fast BM25", "Use Tantivy", 1) {
		t.Fatalf("%q", got)
	}
}

func TestEditsTouchOnlyTheirLines(t *testing.T) {
	data, _ := os.ReadFile("testdata/golden/frontmatter-handwritten.md")
	e := Parse("x.md", data, KindDecision)
	e.Tags = append(e.Tags, "vat")
	e.Set("x-team-score", "8")
	e.Set("reviewed", "2026-10-02")
	e.Set("links", nil)
	e.Summary = ""
	e.Body = strings.Replace(e.Body, "Floats broke", "Float math broke", 1)
	got := string(Marshal(e))
	want := string(data)
	want = strings.Replace(want, `tags: [billing, "money, rounding"]`, `tags: [billing, "money, rounding", vat]`, 1)
	want = strings.Replace(want, "x-team-score: 0007\n", "x-team-score: \"8\"\nreviewed: 2026-10-02\n", 1)
	want = strings.Replace(want, "links: {pr: 42, issue: \"SHOP-7\"}\n", "", 1)
	want = strings.Replace(want, "summary: Every amount is an integer number of cents.   # optional; derived from the body otherwise\n", "", 1)
	want = strings.Replace(want, "Floats broke", "Float math broke", 1)
	if got != want {
		t.Fatalf("%s", diff(want, got))
	}
	back := Parse("x.md", []byte(got), KindDecision)
	if back.Get("x-team-score") != "8" || back.Get("reviewed") != "2026-10-02" || back.Get("links") != "" || len(back.Tags) != 3 {
		t.Fatalf("%+v", back)
	}

	// Fields style: a new field line takes the look of the others.
	data, _ = os.ReadFile("testdata/golden/fields-madr.md")
	e = Parse("y.md", data, KindDecision)
	e.Tags = []string{"docs"}
	e.Title = "Use MADR"
	got = string(Marshal(e))
	want = strings.Replace(string(data), "* Date: 2017-11-14\n", "* Date: 2017-11-14\n* Tags: docs\n", 1)
	want = strings.Replace(want, "# Use Markdown Architectural Decision Records", "# Use MADR", 1)
	if got != want {
		t.Fatalf("%s", diff(want, got))
	}
	// A fields-style ADR without fields gets them under its title.
	e = Parse("z.md", []byte("# 0002 — Z\n\nBody.\n"), KindDecision)
	e.Status, e.Date = StatusAccepted, "2026-01-01"
	if got := string(Marshal(e)); got != "# 0002 — Z\n\n**Status:** Accepted\n**Date:** 2026-01-01\n\nBody.\n" {
		t.Fatalf("%q", got)
	}
}

func TestFreshRender(t *testing.T) {
	e := &Entry{
		ID: "2026-09-28-prices-are-integer-cents", Kind: KindDecision, Title: "Prices: integer cents", Status: StatusAccepted,
		Date: "2026-09-28", Tags: []string{"billing", "a, b"}, Paths: []string{"src/billing/**"}, Author: "Jane Doe", Origin: "agent",
		Extra: []Field{{"reviewers", []string{"x"}}, {"count", "0007"}},
		Body:  "## Context\nFloats broke VAT rounding.\n\n## Decision\nIntegers.",
	}
	want := "---\nid: 2026-09-28-prices-are-integer-cents\nkind: decision\ntitle: \"Prices: integer cents\"\nstatus: accepted\ndate: 2026-09-28\n" +
		"tags: [billing, \"a, b\"]\npaths: [src/billing/**]\nauthor: Jane Doe\norigin: agent\nreviewers: [x]\ncount: \"0007\"\n---\n\n" +
		"## Context\nFloats broke VAT rounding.\n\n## Decision\nIntegers.\n"
	if got := string(Marshal(e)); got != want {
		t.Fatalf("%s", diff(want, got))
	}
	back := Parse(".ai/decisions/"+e.ID+".md", Marshal(e), KindDecision)
	if back.Title != e.Title || !reflect.DeepEqual(back.Tags, e.Tags) || back.Get("count") != "0007" || back.Body != e.Body+"\n" {
		t.Fatalf("%+v", back)
	}
	f := &Entry{ID: "0008-orders-live-in-postgresql", Kind: KindDecision, Title: "Orders live in PostgreSQL", Status: StatusAccepted,
		Date: "2026-08-04", Supersedes: []string{"0003"}, Style: StyleFields, Body: "## Context\n\nX.\n"}
	want = "# 0008 — Orders live in PostgreSQL\n\n**Status:** accepted\n**Date:** 2026-08-04\n**Supersedes:** 0003\n\n## Context\n\nX.\n"
	if got := string(Marshal(f)); got != want {
		t.Fatalf("%s", diff(want, got))
	}
	back = Parse("docs/adr/0008-orders-live-in-postgresql.md", Marshal(f), KindDecision)
	if back.Title != f.Title || back.Status != f.Status || !reflect.DeepEqual(back.Supersedes, f.Supersedes) || back.ShortID() != "0008" {
		t.Fatalf("%+v", back)
	}
}

func diff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	var b strings.Builder
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			b.WriteString("line " + itoa(i+1) + ":\n  want " + strq(w) + "\n  got  " + strq(g) + "\n")
		}
	}
	return b.String()
}

func itoa(n int) string    { return strconv.Itoa(n) }
func strq(s string) string { return strconv.Quote(s) }

// A classic ADR has no front matter for the keys kontext keeps beside the
// fields (the bootstrap's init_task): they live in HTML comments among the
// field lines, and survive rewrites like front-matter extras.
func TestFieldsExtraKeys(t *testing.T) {
	adr := "# 7. Orders live in PostgreSQL\n\n**Status:** Accepted\n**Date:** 2026-08-04\n\n## Context\n\nOne database.\n"
	e := Parse("docs/adr/0007-orders.md", []byte(adr), KindDecision)
	e.Set("init_task", "dec:orders")
	added := string(Marshal(e))
	want := "# 7. Orders live in PostgreSQL\n\n**Status:** Accepted\n**Date:** 2026-08-04\n<!-- kontext:init_task dec:orders -->\n\n## Context\n\nOne database.\n"
	if added != want {
		t.Fatalf("adding a key:\n%s\nwant:\n%s", added, want)
	}
	e = Parse("docs/adr/0007-orders.md", []byte(added), KindDecision)
	if e.Get("init_task") != "dec:orders" || e.Status != StatusAccepted || !strings.HasPrefix(e.Body, "## Context") {
		t.Fatalf("read back: %+v", e)
	}
	if got := string(Marshal(e)); got != added {
		t.Errorf("an unchanged entry must round-trip byte for byte:\n%s", got)
	}
	e.Set("init_task", "dec:billing")
	if got := string(Marshal(e)); got != strings.Replace(added, "dec:orders", "dec:billing", 1) {
		t.Errorf("changing a key:\n%s", got)
	}
	e.Set("init_task", nil)
	if got := string(Marshal(e)); got != adr {
		t.Errorf("removing a key:\n%s", got)
	}

	fresh := &Entry{ID: "0008-queue", Kind: KindDecision, Title: "Queue jobs", Status: StatusAccepted, Date: "2026-09-01", Style: StyleFields, Body: "## Decision\n\nRedis.\n"}
	fresh.Set("init_task", "dec:jobs")
	text := Marshal(fresh)
	if !strings.Contains(string(text), "**Date:** 2026-09-01\n<!-- kontext:init_task dec:jobs -->\n\n## Decision") {
		t.Errorf("a new ADR:\n%s", text)
	}
	if back := Parse("docs/adr/0008-queue.md", text, KindDecision); back.Get("init_task") != "dec:jobs" || back.Title != "Queue jobs" {
		t.Errorf("new ADR read back: %+v", back)
	}
	// The facts markers of generated docs are not extra keys.
	if _, _, ok := extraComment("<!-- kontext:facts:start generated by kontext -->"); ok {
		t.Error("a facts marker read as an extra key")
	}
}

// A glob ending in ** on a bold field line must not read back as emphasis.
func TestFieldsGlobPaths(t *testing.T) {
	fresh := &Entry{ID: "0002-dates", Kind: KindDecision, Title: "Dates", Status: StatusAccepted, Date: "2026-09-01", Style: StyleFields,
		Paths: []string{"apps/api/**", "libs/*_test.go"}, Body: "## Decision\n\nx\n"}
	text := Marshal(fresh)
	back := Parse("docs/adr/0002-dates.md", text, KindDecision)
	if !reflect.DeepEqual(back.Paths, fresh.Paths) {
		t.Fatalf("paths %q read back as %q from:\n%s", fresh.Paths, back.Paths, text)
	}
	back.Paths = []string{"apps/**", "libs/**"}
	again := Parse("docs/adr/0002-dates.md", Marshal(back), KindDecision)
	if !reflect.DeepEqual(again.Paths, back.Paths) {
		t.Fatalf("rewritten paths %q read back as %q from:\n%s", back.Paths, again.Paths, Marshal(back))
	}
}
