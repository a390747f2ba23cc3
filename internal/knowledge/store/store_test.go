package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kontext-dev/kontext/internal/fsroot"
	"github.com/kontext-dev/kontext/internal/git"
	"github.com/kontext-dev/kontext/internal/gittest"
	"github.com/kontext-dev/kontext/internal/knowledge/config"
)

// newStore makes a real git repository with the given files and returns its
// store (configured by its .ai/kontext.toml when present).
func newStore(t *testing.T, files map[string]string) (*Store, *git.Repo) {
	t.Helper()
	dir := t.TempDir()
	gittest.Git(t, dir, "init", "-q", "-b", "main")
	for rel, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	repo, err := git.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { repo.Close() })
	cfg, err := config.Load(context.Background(), repo, config.Options{Getenv: func(k string) string {
		if k == "KONTEXT_CONFIG_DIR" {
			return filepath.Join(dir, ".no-user-config")
		}
		return ""
	}})
	if err != nil {
		t.Fatal(err)
	}
	root, err := fsroot.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	s := New(root, cfg)
	s.Now = func() time.Time { return time.Date(2026, 9, 28, 12, 0, 0, 0, time.UTC) }
	return s, repo
}

func read(t *testing.T, s *Store, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(s.Root(), filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestCreateNumberingAndSupersede(t *testing.T) {
	s, _ := newStore(t, map[string]string{
		".ai/decisions/2026-01-05-use-floats.md": "---\nid: 2026-01-05-use-floats\nkind: decision\ntitle: Use floats\nstatus: accepted\ndate: 2026-01-05\nowner_team: billing\n---\n\n## Decision\nFloats.\n",
	})
	if !s.Exists() {
		t.Fatal("store exists")
	}
	e := &Entry{Kind: KindDecision, Title: "Prices are integer cents!", Status: StatusAccepted, Supersedes: []string{"2026-01-05"}, Body: "## Decision\nCents.\n"}
	res, err := s.Create(e)
	if err != nil {
		t.Fatal(err)
	}
	if res.Path != ".ai/decisions/2026-09-28-prices-are-integer-cents.md" || e.ID != "2026-09-28-prices-are-integer-cents" || e.Date != "2026-09-28" {
		t.Fatalf("%+v %+v", res, e)
	}
	if len(res.Superseded) != 1 || len(res.Missing) != 0 || !reflect.DeepEqual(res.Written, []string{res.Path, ".ai/decisions/2026-01-05-use-floats.md"}) {
		t.Fatalf("%+v", res)
	}
	old := read(t, s, ".ai/decisions/2026-01-05-use-floats.md")
	if old != "---\nid: 2026-01-05-use-floats\nkind: decision\ntitle: Use floats\nstatus: superseded\ndate: 2026-01-05\nsuperseded_by: [2026-09-28-prices-are-integer-cents]\nowner_team: billing\n---\n\n## Decision\nFloats.\n" {
		t.Fatalf("old entry:\n%s", old)
	}
	// The same title again: a -2 suffix.
	e2 := &Entry{Kind: KindDecision, Title: "Prices are integer cents", Body: "x"}
	if _, err := s.Create(e2); err != nil || e2.ID != "2026-09-28-prices-are-integer-cents-2" {
		t.Fatalf("%v %s", err, e2.ID)
	}
	// Conventions use no numbering.
	c := &Entry{Kind: KindConvention, Title: "Názvy súborov: kebab-case", Body: "x"}
	if _, err := s.Create(c); err != nil || c.Path != ".ai/conventions/nazvy-suborov-kebab-case.md" {
		t.Fatalf("%v %s", err, c.Path)
	}
	// A supersedes reference that matches nothing is reported.
	m := &Entry{Kind: KindLearning, Title: "L", Supersedes: []string{"nope"}, Body: "x"}
	if res, err := s.Create(m); err != nil || !reflect.DeepEqual(res.Missing, []string{"nope"}) {
		t.Fatalf("%v %+v", err, res)
	}
	if _, err := s.Create(&Entry{Kind: "recipe", Title: "x"}); !errors.As(err, new(*UnknownKindError)) {
		t.Fatalf("unknown kind: %v", err)
	}

	entries, err := s.Load()
	if err != nil || len(entries) != 5 {
		t.Fatalf("%v %d", err, len(entries))
	}
	got, err := s.Find("2026-09-28-prices-are-integer-cents")
	if err != nil || got.Path != res.Path {
		t.Fatalf("%v", err)
	}
	_, err = s.Find("2026-09-28-prices")
	var amb *AmbiguousError
	if !errors.As(err, &amb) || len(amb.Candidates) != 2 {
		t.Fatalf("ambiguous: %v", err)
	}
}

func TestADRDirectoryAsDecisionHome(t *testing.T) {
	s, _ := newStore(t, map[string]string{
		".ai/kontext.toml":                    "[store.kinds.decision]\npath = \"docs/adr\"\nstyle = \"fields\"\nnumbering = \"sequential\"\n",
		"docs/adr/README.md":                  "# ADRs\n",
		"docs/adr/0000-template.md":           "# NNNN — Title\n",
		"docs/adr/0001-record-decisions.md":   "# 1. Record decisions\n\nDate: 2017-11-14\n\n## Status\n\nAccepted\n\n## Context\n\nWe need it.\n",
		"docs/adr/0007-orders-in-postgres.md": "# 0007 — Orders live in PostgreSQL\n\n**Status:** accepted\n**Date:** 2026-08-04\n\n## Decision\n\nOne database.\n",
	})
	entries, _ := s.Load()
	if len(entries) != 2 {
		t.Fatalf("template and README are not entries: %d", len(entries))
	}
	for _, key := range []string{"7", "0007", "ADR-7", "adr-0007", "kx:0007-orders"} {
		e, err := s.Find(key)
		if err != nil || e.ID != "0007-orders-in-postgres" {
			t.Errorf("Find(%q): %v", key, err)
		}
	}
	e := &Entry{Kind: KindDecision, Title: "Orders move to CockroachDB", Status: StatusAccepted, Supersedes: []string{"7", "1"}, Body: "## Decision\n\nCockroachDB.\n"}
	res, err := s.Create(e)
	if err != nil {
		t.Fatal(err)
	}
	if res.Path != "docs/adr/0008-orders-move-to-cockroachdb.md" || e.Style != StyleFields {
		t.Fatalf("%+v", res)
	}
	if got := read(t, s, res.Path); got != "# 0008 — Orders move to CockroachDB\n\n**Status:** accepted\n**Date:** 2026-09-28\n**Supersedes:** 7, 1\n\n## Decision\n\nCockroachDB.\n" {
		t.Fatalf("new ADR:\n%s", got)
	}
	if got := read(t, s, "docs/adr/0007-orders-in-postgres.md"); got != "# 0007 — Orders live in PostgreSQL\n\n**Status:** superseded by 0008-orders-move-to-cockroachdb\n**Date:** 2026-08-04\n\n## Decision\n\nOne database.\n" {
		t.Fatalf("old ADR:\n%s", got)
	}
	if got := read(t, s, "docs/adr/0001-record-decisions.md"); !strings.Contains(got, "## Status\n\nSuperseded by 0008-orders-move-to-cockroachdb\n\n## Context") {
		t.Fatalf("adr-tools ADR:\n%s", got)
	}
	// Exists without .ai/ when the configured home exists.
	os.RemoveAll(filepath.Join(s.Root(), ".ai"))
	if !s.Exists() {
		t.Fatal("docs/adr is the store")
	}
	dirs := DetectADRDirs(s.root)
	if len(dirs) != 1 || dirs[0] != (ADRDir{Path: "docs/adr", Style: StyleFields, Numbering: "sequential", Count: 3}) {
		t.Fatalf("%+v", dirs)
	}
	if !strings.Contains(dirs[0].ConfigTOML(), `numbering = "sequential"`) {
		t.Fatal(dirs[0].ConfigTOML())
	}
}

func TestNoStore(t *testing.T) {
	s, _ := newStore(t, map[string]string{"README.md": "x"})
	if s.Exists() {
		t.Fatal("no store")
	}
	if d := DetectADRDirs(s.root); len(d) != 0 {
		t.Fatalf("%+v", d)
	}
	created, err := s.Scaffold("")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{".ai/decisions/", ".ai/conventions/", ".ai/learnings/", ".ai/incidents/", ".ai/architecture/", ".ai/.gitattributes", ".ai/README.md", ".ai/kontext.toml"}
	if !reflect.DeepEqual(created, want) || !s.Exists() {
		t.Fatalf("%v", created)
	}
	if read(t, s, ".ai/.gitattributes") != GitAttributes || !strings.Contains(read(t, s, ".ai/README.md"), IndexEnd) {
		t.Fatal("scaffold content")
	}
	again, err := s.Scaffold("")
	if err != nil || len(again) != 0 {
		t.Fatalf("second scaffold: %v %v", again, err)
	}
}

func TestIndexFile(t *testing.T) {
	s, _ := newStore(t, map[string]string{
		".ai/README.md":                      "# Our context\n\nHand-written intro.\n\n" + IndexStart + "\nold\n" + IndexEnd + "\n\nFooter kept.\n",
		".ai/decisions/2026-01-05-a.md":      "---\ntitle: \"A [beta]\"\nstatus: accepted\ndate: 2026-01-05\n---\n\n## Decision\nDo A.\n",
		".ai/decisions/2026-03-01-b.md":      "---\ntitle: B\nstatus: superseded\ndate: 2026-03-01\nsummary: B in short.\n---\n\nBody.\n",
		".ai/conventions/naming.md":          "---\ntitle: Naming\n---\n\nKebab case everywhere.\n",
		".ai/architecture/overview.md":       "---\ntitle: Overview\n---\n\nThe shop.\n",
		".ai/architecture/modules/orders.md": "---\ntitle: orders\n---\n\nOrders module.\n",
		".ai/kontext.toml":                   "",
	})
	entries, _ := s.Load()
	changed, err := s.WriteIndex(entries)
	if err != nil || !changed {
		t.Fatal(err)
	}
	want := "# Our context\n\nHand-written intro.\n\n" + IndexStart + "\n\n## Decisions\n\n" +
		"- 2026-03-01 · [B](decisions/2026-03-01-b.md) · superseded — B in short.\n" +
		"- 2026-01-05 · [A beta](decisions/2026-01-05-a.md) · accepted — Do A.\n\n" +
		"## Conventions\n\n- [Naming](conventions/naming.md) — Kebab case everywhere.\n\n" +
		"## Architecture\n\n- [Overview](architecture/overview.md) — The shop.\n- [orders](architecture/modules/orders.md) — Orders module.\n" +
		IndexEnd + "\nFooter kept.\n"
	if got := read(t, s, ".ai/README.md"); got != want {
		t.Fatalf("%s", diff(want, got))
	}
	if changed, _ := s.WriteIndex(entries); changed {
		t.Fatal("unchanged index rewritten")
	}
	// Entries outside the store link up from it.
	if got := RenderIndex([]*Entry{{ID: "0001-x", Kind: KindDecision, Title: "X", Path: "docs/adr/0001-x.md"}}, ".ai"); !strings.Contains(got, "(../docs/adr/0001-x.md)") {
		t.Fatal(got)
	}
	if got := string(UpdateIndex([]byte("# Mine\n"), nil, ".ai")); got != "# Mine\n\n"+IndexStart+"\n\n"+IndexEnd+"\n" {
		t.Fatalf("%q", got)
	}
}

func TestValidate(t *testing.T) {
	key := "AKIA" + "Q3EGRT5LZKDW7NPV"
	s, repo := newStore(t, map[string]string{
		"src/billing/tax.go":                 "package billing\n",
		".ai/decisions/2026-01-05-good.md":   "---\ntitle: Good\nstatus: accepted\ndate: 2026-01-05\npaths: [src/billing/**]\n---\n\nFine.\n",
		".ai/decisions/2026-01-06-lazy.md":   "---\ntitle: Lazy\npaths: [src/gone/**]\nsupersedes: [nothing-like-this]\n---\n\nNo status, no date.\n",
		".ai/decisions/2026-01-07-odd.md":    "---\ntitle: Odd\nstatus: maybe\ndate: 07/01/2026\n---\n\nThe key is " + key + " here.\nAnd token: hunter2hunter2hunter2\n",
		".ai/decisions/2026-01-08-dup.md":    "---\nid: 2026-01-05-good\ntitle: \"\"\nkind: recipe\n---\n\n" + strings.Repeat("line\n", 81),
		".ai/learnings/allowed.md":           "---\ntitle: Allowed\n---\n\nexample " + key + " kontext:allow-secret\n",
		".ai/decisions/2026-01-09-fields.md": "# Fields\n\n**Date:** 2026-01-09\n\nBody.\n",
	})
	gittest.Git(t, s.Root(), "add", ".")
	tracked, err := repo.TrackedFiles(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	problems, err := s.Check(tracked)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range problems {
		got = append(got, p.Level.String()+" "+p.Path+":"+itoa(p.Line)+" "+strings.SplitN(p.Message, " (", 2)[0])
	}
	want := []string{
		"error .ai/decisions/2026-01-05-good.md:1 duplicate id \"2026-01-05-good\"",
		"error .ai/decisions/2026-01-06-lazy.md:1 decision has no status",
		"warning .ai/decisions/2026-01-06-lazy.md:1 decision has no date",
		"warning .ai/decisions/2026-01-06-lazy.md:3 path pattern \"src/gone/**\" matches no tracked file",
		"warning .ai/decisions/2026-01-06-lazy.md:4 supersedes \"nothing-like-this\", which is not an entry",
		"error .ai/decisions/2026-01-07-odd.md:3 unusual decision status \"maybe\"",
		"warning .ai/decisions/2026-01-07-odd.md:4 date \"07/01/2026\" is not YYYY-MM-DD",
		"error .ai/decisions/2026-01-07-odd.md:7 high-confidence secret",
		"warning .ai/decisions/2026-01-07-odd.md:8 possible secret",
		"error .ai/decisions/2026-01-08-dup.md:2 duplicate id \"2026-01-05-good\"",
		"error .ai/decisions/2026-01-08-dup.md:3 missing title",
		"error .ai/decisions/2026-01-08-dup.md:4 unknown kind \"recipe\"",
		"warning .ai/decisions/2026-01-08-dup.md:7 long entry",
		"warning .ai/decisions/2026-01-09-fields.md:1 decision has no status",
	}
	// Levels as the original has them: status/date problems are warnings.
	want[1] = "warning .ai/decisions/2026-01-06-lazy.md:1 decision has no status"
	want[5] = "warning .ai/decisions/2026-01-07-odd.md:3 unusual decision status \"maybe\""
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if !strings.Contains(problems[0].String(), "error: .ai/decisions/2026-01-05-good.md:1: duplicate id") {
		t.Fatal(problems[0].String())
	}
}

func TestFindAndSlugs(t *testing.T) {
	mk := func(ids ...string) []*Entry {
		var out []*Entry
		for _, id := range ids {
			out = append(out, Parse(".ai/decisions/"+id+".md", []byte("x"), KindDecision))
		}
		return out
	}
	es := mk("2026-09-28-adapters-are-config", "2026-09-28-speak-mcp", "0003-use-redis", "0012-use-cents", "2026-10-01-x")
	for key, want := range map[string]string{
		"2026-09-28-adapters": "2026-09-28-adapters-are-config", "3": "0003-use-redis", "0003": "0003-use-redis",
		"ADR-12": "0012-use-cents", "adr12": "0012-use-cents", "kx:2026-10": "2026-10-01-x", ".ai/decisions/0012-use-cents.md": "0012-use-cents",
	} {
		e, err := Find(es, key)
		if err != nil || e.ID != want {
			t.Errorf("Find(%q) = %v, %v", key, e, err)
		}
	}
	_, err := Find(es, "2026-09-28")
	var amb *AmbiguousError
	if !errors.As(err, &amb) || !reflect.DeepEqual(amb.Candidates, []string{"2026-09-28-adapters-are-config", "2026-09-28-speak-mcp"}) || !strings.Contains(err.Error(), "2026-09-28-speak-mcp") {
		t.Fatalf("%v", err)
	}
	var nf *NotFoundError
	if _, err := Find(es, "9"); !errors.As(err, &nf) {
		t.Fatalf("%v", err)
	}
	if _, err := Find(es, ""); !errors.As(err, &nf) {
		t.Fatalf("%v", err)
	}
	if p := ShortestPrefix(es, "2026-09-28-adapters-are-config"); p != "2026-09-28-adapters" {
		t.Fatal(p)
	}
	for in, want := range map[string]string{
		"Použiť Tantivy namiesto sqlite-vec!":                   "pouzit-tantivy-namiesto-sqlite-vec",
		"  --Hello__World--  ":                                  "hello-world",
		"The team's source of truth":                            "the-teams-source-of-truth",
		"Speak MCP directly over JSON-RPC instead of an SDK ok": "speak-mcp-directly-over-json-rpc-instead-of-an-sdk",
		"日本語":    "",
		"Straße": "strasse",
	} {
		if got := Slugify(in, 0); got != want {
			t.Errorf("Slugify(%q) = %q", in, got)
		}
	}
	if got := Slugify(strings.Repeat("abcdefghij ", 10), 0); len(got) > MaxSlug || strings.HasSuffix(got, "-") {
		t.Fatal(got)
	}
}

func TestKinds(t *testing.T) {
	for raw, want := range map[string][2]string{
		"adr": {KindDecision}, "Decision": {KindDecision}, "pitfall": {KindLearning, "pitfall"}, "gotcha": {KindLearning, "pitfall"},
		"note": {KindLearning}, "lesson": {KindLearning}, "rule": {KindConvention}, "guideline": {KindConvention},
		"postmortem": {KindIncident}, "outage": {KindIncident}, "architecture": {KindArchitecture}, "incidents": {KindIncident},
	} {
		k, tag, ok := NormalizeKind(raw, nil)
		if !ok || k != want[0] || tag != want[1] {
			t.Errorf("NormalizeKind(%q) = %q %q %v", raw, k, tag, ok)
		}
	}
	if _, _, ok := NormalizeKind("recipe", nil); ok {
		t.Error("recipe")
	}
	if k, _, ok := NormalizeKind("runbooks", func(k string) bool { return k == "runbook" }); !ok || k != "runbook" {
		t.Error("custom kind plural")
	}
	got := []string{Trailer(KindDecision), Trailer(KindConvention), Trailer(KindLearning), Trailer(KindIncident), Trailer(KindArchitecture)}
	if !slices.Equal(got, []string{"Decision", "Convention", "Learning", "Incident", ""}) {
		t.Fatal(got)
	}
}

func TestEntryHelpers(t *testing.T) {
	e := Parse(".ai/decisions/2026-09-28-x.md", []byte("---\ntitle: X\nstatus: rejected\n---\n\n_Pending: write it._\n\n## Consequences\n\nNone.\n"), KindDecision)
	if e.IsActive() || e.SummaryText(0) != "" || e.ShortID() != e.ID {
		t.Fatalf("%+v %q", e, e.SummaryText(0))
	}
	if _, ok := e.Number(); ok {
		t.Fatal("dated ids have no number")
	}
	if s := e.Section("consequences"); s != "None." {
		t.Fatal(s)
	}
	long := &Entry{Summary: strings.Repeat("word ", 40)}
	if s := long.SummaryText(20); len([]rune(s)) != 20 || !strings.HasSuffix(s, "…") {
		t.Fatal(s)
	}
	e = Parse("x.md", []byte("No front matter and no heading.\n"), KindLearning)
	if e.Title != "X" || e.Body != "No front matter and no heading.\n" || string(Marshal(e)) != "No front matter and no heading.\n" {
		t.Fatalf("%+v", e)
	}
	for d, ok := range map[string]bool{"2026-02-29": false, "2024-02-29": true, "2026-13-01": false, "2026-09-28T10:00:00Z": true, "2026-09-28x": false, "": false} {
		if ValidDate(d) != ok {
			t.Errorf("ValidDate(%q)", d)
		}
	}
	c := e.Clone()
	c.Title = "Y"
	if string(Marshal(c)) == string(Marshal(e)) {
		t.Fatal("a clone is written as a new entry")
	}
}

// A module's architecture doc is an entry whatever the module is called:
// alertmanager's template package has .ai/architecture/modules/
// template.md, which the template rule for the kinds people write by hand
// hid from the store (and so from the brief, search and ctx_read).
func TestModuleDocNamedLikeATemplateIsAnEntry(t *testing.T) {
	s, _ := newStore(t, map[string]string{
		".ai/architecture/modules/template.md": "---\nkind: architecture\ntitle: template\nmodule: template\n---\n\n# template\n",
		".ai/architecture/modules/index.md":    "---\nkind: architecture\ntitle: index\nmodule: index\n---\n\n# index\n",
		".ai/decisions/template.md":            "# Title of the decision\n\n## Context\n",
		".ai/decisions/2026-01-02-use-go.md":   "---\nkind: decision\ntitle: Use Go\n---\n\nGo.\n",
	})
	for rel, want := range map[string]bool{
		".ai/architecture/modules/template.md": true,
		".ai/architecture/modules/index.md":    true,
		".ai/architecture/README.md":           false,
		".ai/decisions/template.md":            false,
		".ai/decisions/2026-01-02-use-go.md":   true,
	} {
		if got := s.IsEntryPath(rel); got != want {
			t.Errorf("IsEntryPath(%s) = %v, want %v", rel, got, want)
		}
	}
	entries, err := s.Load()
	if err != nil {
		t.Fatal(err)
	}
	if e, err := Find(entries, "template"); err != nil || e.Get("module") != "template" {
		t.Errorf("the template module's doc is not loaded: %v", err)
	}
}
