package analyze

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/kontext-dev/kontext/internal/repo/model"
)

func TestADRStatusForms(t *testing.T) {
	for _, tc := range []struct {
		name, doc, status string
		line              int
		conf              float64
	}{
		{"front matter", "---\nstatus: Approved\n---\n# Use X\n", "accepted", 2, 0.95},
		{"plain line", "# Use X\n\nStatus: Accepted\n", "accepted", 3, 0.95},
		{"bold field", "# Use X\n\n**Status:** Draft\n", "proposed", 3, 0.95},
		{"MADR bullet", "# Use X\n\n* Status: rejected\n* Deciders: a, b\n", "rejected", 3, 0.95},
		{"status heading", "# 3. Use X\n\n## Status\n\nSuperseded by [ADR-9](0009-y.md)\n\n## Context\n", "superseded", 5, 0.95},
		{"in a code fence only", "# Use X\n\n```\nStatus: accepted\n```\n", "unknown", 0, 0.7},
		{"unknown word", "# Use X\n\nStatus: pondering\n", "unknown", 3, 0.7},
		{"none", "# Use X\n\nWe use X.\n", "unknown", 0, 0.7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, ok := adrDecision("docs/adr/0007-use-x.md", parseMarkdown([]byte(tc.doc)))
			if !ok || d.ID != "ADR-007" || d.Status != tc.status || d.Confidence != tc.conf || d.Evidence[1].Line != tc.line {
				t.Errorf("%s", dumpJSON(d))
			}
		})
	}
}

func TestADRDetection(t *testing.T) {
	for _, tc := range []struct {
		path, doc, id, title string
		ok                   bool
	}{
		{"docs/adr/0003-use-kafka.md", "# 3. Use Kafka\n", "ADR-003", "Use Kafka", true},
		{"notes/ADR-12.md", "# ADR-12: Use gRPC\n\nStatus: accepted\n", "ADR-012", "Use gRPC", true},
		{"notes/design.md", "# Decision 4 — Keep a monolith\n", "ADR-004", "Keep a monolith", true},
		{"docs/guide/01-intro.md", "# Introduction\n", "", "", false},
		{"docs/decisions/01-intro.md", "# Introduction\n", "ADR-001", "Introduction", true},
		{"docs/decisions/2024-01-05-use-redis.md", "---\nid: dec-redis\n---\n# Use Redis\n", "DEC-REDIS", "Use Redis", true},
		{"architecture/decisions/adr-template.md", "# Title\n", "", "", false},
		{"docs/adr/README.md", "# Index\n", "", "", false},
		{"README.md", "# Project\n\n## Decisions\n", "", "", false},
		{"blog/post.md", "---\ntitle: Hello\nstatus: published\n---\nhi\n", "", "Hello", true},
	} {
		d, ok := adrDecision(tc.path, parseMarkdown([]byte(tc.doc)))
		if ok != tc.ok || ok && ((tc.id != "" && d.ID != tc.id) || d.Title != tc.title) {
			t.Errorf("%s: ok=%v %s", tc.path, ok, dumpJSON(d))
		}
		if ok && tc.id == "" && !strings.HasPrefix(d.ID, "ADR-") {
			t.Errorf("%s: id %s", tc.path, d.ID)
		}
	}
}

func TestDocSections(t *testing.T) {
	doc := "# Architecture\n\n#### Decision log\n\nignored, too deep\n"
	d, ok := docSectionDecision("docs/ARCHITECTURE.md", parseMarkdown([]byte(doc)))
	if !ok || d.Origin != "explicit" || d.Confidence != 0.6 || d.Title != "Architecture" || d.Source != "docs/ARCHITECTURE.md#L1" {
		t.Errorf("architecture doc = %s", dumpJSON(d))
	}
	doc = "# Guide\n\n```md\n## Decisions\n```\n\n#### Invariants\n\n### Invariants\n\nIds never change.\n"
	d, ok = docSectionDecision("docs/guide.md", parseMarkdown([]byte(doc)))
	if !ok || d.Origin != "inferred" || d.Confidence != 0.45 || d.Evidence[0].Line != 9 || d.Excerpt != "Ids never change." {
		t.Errorf("guide = %s", dumpJSON(d))
	}
	// The id depends on the heading, not its line: editing above keeps it.
	d2, _ := docSectionDecision("docs/guide.md", parseMarkdown([]byte("intro\n\n"+doc)))
	if d2.ID != d.ID {
		t.Errorf("DOC id moved with the line: %s vs %s", d.ID, d2.ID)
	}
}

func TestMarkdownParser(t *testing.T) {
	doc := parseMarkdown([]byte("\ufeff---\r\ntitle: \"A: B\" # not a comment\r\ntags: [x, 'y']\r\npaths:\r\n  - a/**\r\n  - b\r\n  nested: no\r\n---\r\nTitle\r\n=====\r\n\r\nSub\r\n---\r\n\r\n~~~\r\n# not a heading\r\n~~~\r\n## Real ##\r\n"))
	if doc.Front["title"] != "A: B" || strings.Join(doc.FrontList["tags"], ",") != "x,y" || strings.Join(doc.FrontList["paths"], ",") != "a/**,b" {
		t.Errorf("front = %#v %#v", doc.Front, doc.FrontList)
	}
	var hs []string
	for _, h := range doc.Headings {
		hs = append(hs, strings.Repeat("#", h.Level)+h.Title)
	}
	if strings.Join(hs, "|") != "#Title|##Sub|##Real" {
		t.Errorf("headings = %v", hs)
	}
	if doc := parseMarkdown([]byte("---\nstatus: accepted\n")); len(doc.Front) != 0 {
		t.Errorf("an unclosed front matter is body text")
	}
}

func TestExcerpt(t *testing.T) {
	s := excerpt("Connect with password=hunter2 and token: abc123 using AKIAABCDEFGHIJKLMNOP. " + strings.Repeat("é", 400))
	if strings.Contains(s, "hunter2") || strings.Contains(s, "abc123") || strings.Contains(s, "AKIA") {
		t.Errorf("secrets leak: %s", s)
	}
	if len(s) > maxExcerpt || !utf8.ValidString(s) {
		t.Errorf("excerpt is %d bytes, valid UTF-8 %v", len(s), utf8.ValidString(s))
	}
}

// checkDecision holds for any decision the parsers make from any input.
func checkDecision(t *testing.T, d model.Decision) {
	t.Helper()
	if d.Confidence <= 0 || d.Confidence >= 1 {
		t.Errorf("confidence %v", d.Confidence)
	}
	if len(d.Excerpt) > maxExcerpt || !utf8.ValidString(d.Excerpt) || !utf8.ValidString(d.Title) || len(d.Title) > 160 {
		t.Errorf("excerpt/title not bounded or not UTF-8: %q %q", d.Title, d.Excerpt)
	}
	switch d.Status {
	case "accepted", "proposed", "deprecated", "superseded", "rejected", "unknown":
	default:
		t.Errorf("status %q", d.Status)
	}
	if d.ID == "" {
		t.Errorf("empty id")
	}
}

func fuzzSeeds(f *testing.F) {
	for _, s := range []string{
		"", "---", "---\n---", "---\nstatus: accepted\n---\n# 1. X\n", "# ADR-1: x\n\nStatus: Accepted\n",
		"## Status\n\n", "```\n# x\n", "x\n===\n", "---\npaths:\n  - a\n  -\n---\n", "**Status:** \n",
		"# Decision 99999999999999999999 — huge\n", "\xff\xfe# bad utf8\n", "## Decisions\n\n" + strings.Repeat("word ", 200),
		"---\n" + strings.Repeat("k: v\n", 300) + "---\n", "\r\r\n#\t#\n~~~~\n",
	} {
		f.Add("docs/adr/0001-x.md", []byte(s))
		f.Add(".ai/decisions/x.md", []byte(s))
	}
}

// FuzzMarkdownDecisions drives the front-matter, heading, status and
// section parsers through every decision reader: none may panic, and what
// they return stays inside the model's contract.
func FuzzMarkdownDecisions(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, p string, data []byte) {
		doc := parseMarkdown(data)
		for _, h := range doc.Headings {
			if h.Line < 1 || h.Line > len(doc.Lines) || h.Level < 1 || h.Level > 6 {
				t.Fatalf("heading %+v outside the document (%d lines)", h, len(doc.Lines))
			}
		}
		if raw, line := doc.status(); raw != "" && (line < 1 || line > len(doc.Lines)) {
			t.Fatalf("status line %d outside the document", line)
		}
		_ = doc.date()
		if d, ok := adrDecision(p, doc); ok {
			checkDecision(t, d)
		}
		if d, ok := docSectionDecision(p, doc); ok {
			checkDecision(t, d)
		}
		checkDecision(t, storeDecision(p, doc))
	})
}

// FuzzExcerpt: redaction and clipping keep any text bounded and valid.
func FuzzExcerpt(f *testing.F) {
	f.Add("password=x " + strings.Repeat("ü", 200))
	f.Add("-----BEGIN RSA PRIVATE KEY-----\nabc")
	f.Fuzz(func(t *testing.T, s string) {
		e := excerpt(s)
		if len(e) > maxExcerpt || (utf8.ValidString(s) && !utf8.ValidString(e)) {
			t.Fatalf("excerpt(%q) = %q", s, e)
		}
	})
}
