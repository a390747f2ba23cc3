package analyze

import (
	"strings"
	"testing"
)

func TestKnowledgeStore(t *testing.T) {
	f := goModule(t)
	f.write(map[string]string{
		".ai/README.md": "# Knowledge\n\n<!-- kontext:index:start -->\n<!-- kontext:index:end -->\n",
		".ai/decisions/2026-01-05-use-sqlite.md": `---
id: 2026-01-05-use-sqlite
kind: decision
title: Keep local state in SQLite
status: accepted
date: 2026-01-05
tags: [storage]
paths:
  - internal/store/**
---

## Context

We need a local store.

## Decision

Local state lives in one SQLite file.
`,
		".ai/decisions/0002-structured-logging.md": `# Adopt structured logging

**Status:** Superseded by 0009
**Date:** 2026-02-01
**Paths:** ` + "`internal/log/`" + `

## Decision

Use log/slog everywhere.
`,
		".ai/decisions/package-manager.md": "---\nid: INF-PACKAGE-MANAGER\ntitle: We vendor nothing and use Go modules\nstatus: accepted\n---\n\nGo modules only.\n",
	})
	f.commit("Record decisions", "Ada Lovelace", day(2026, 2, 2))
	g := runFixture(t, f)

	d := findDecision(g, "2026-01-05-use-sqlite")
	if d == nil || d.Kind != "knowledge-store" || d.Origin != "explicit" || d.Confidence != 0.95 || d.Status != "accepted" ||
		d.Date != "2026-01-05" || d.Title != "Keep local state in SQLite" || d.Excerpt != "Local state lives in one SQLite file." ||
		strings.Join(d.Paths, ",") != "internal/store/**" {
		t.Errorf("front-matter entry = %s", dumpJSON(d))
	}
	classic := findDecision(g, "0002-structured-logging")
	if classic == nil || classic.Status != "superseded" || classic.Date != "2026-02-01" || classic.Title != "Adopt structured logging" ||
		strings.Join(classic.Paths, ",") != "internal/log/" || classic.Evidence[1].Line != 3 {
		t.Errorf("fields-style entry = %s", dumpJSON(classic))
	}
	// The team's own entry wins the id over the inferred decision, and is listed first.
	pm := findDecision(g, "INF-PACKAGE-MANAGER")
	if pm == nil || pm.Kind != "knowledge-store" || pm.Title != "We vendor nothing and use Go modules" {
		t.Errorf("explicit should win the id: %s", dumpJSON(pm))
	}
	if g.Decisions[0].Origin != "explicit" {
		t.Errorf("explicit decisions first: %s", dumpJSON(g.Decisions))
	}
	for _, d := range g.Decisions {
		if d.Kind == "adr" || strings.HasSuffix(d.Source, "README.md") {
			t.Errorf("store entries are not ADRs, and the index is not a decision: %s", dumpJSON(d))
		}
	}
	if c := findConvention(g, "Team knowledge (decisions, conventions, learnings) is kept in .ai/"); c == nil || c.Samples != 4 {
		t.Errorf("store convention = %s", dumpJSON(c))
	}

	// A decision governs the files its paths match.
	res, err := Impact(g, "internal/store/store.go", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Decisions) != 1 || res.Decisions[0].ID != "2026-01-05-use-sqlite" || !strings.Contains(res.Decisions[0].Reason, "governs internal/store/**") {
		t.Errorf("impact decisions = %s", dumpJSON(res.Decisions))
	}
}
