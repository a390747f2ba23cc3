package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	spec "github.com/kontext-dev/kontext/gen/toolsets/repo"
	"github.com/kontext-dev/kontext/internal/repo/analyze"
	"github.com/kontext-dev/kontext/internal/repo/model"
	"github.com/kontext-dev/kontext/internal/repo/results"
)

// The layered fixture is made once and served to every test that only
// reads it.
var (
	fixtureOnce sync.Once
	fixtureDir  string
	fixtureSHAs []string
)

func layered(t *testing.T) (*session, []string) {
	t.Helper()
	fixtureOnce.Do(func() {
		// A fixture outside t.TempDir, so it outlives the first test.
		dir, err := os.MkdirTemp("", "kontext-repo-tools-")
		if err != nil {
			t.Fatal(err)
		}
		f, shas := layeredAppIn(t, dir)
		fixtureDir, fixtureSHAs = f.dir, shas
	})
	if len(fixtureSHAs) == 0 {
		t.Fatal("the layered fixture could not be made (see the first test that failed)")
	}
	return serveRepo(t, fixtureDir), fixtureSHAs
}

func TestMain(m *testing.M) {
	code := m.Run()
	if fixtureDir != "" {
		os.RemoveAll(fixtureDir)
	}
	os.Exit(code)
}

func ids[T any](xs []T, id func(T) string) []string {
	out := make([]string, 0, len(xs))
	for _, x := range xs {
		out = append(out, id(x))
	}
	return out
}

func TestRepositoryContext(t *testing.T) {
	s, _ := layered(t)
	var rc results.RepositoryContext
	s.ok("get_repository_context", nil, &rc)
	if rc.Summary.Name != "layered-app" || rc.SchemaVersion != 1 {
		t.Errorf("summary %+v", rc.Summary)
	}
	modules := ids(rc.Modules, func(m results.ModuleSummary) string { return m.ID })
	for _, want := range []string{".", "src/domain", "src/application", "src/infrastructure", "src/adapters", "src/ui", "src/billing", "src/payments"} {
		if !slices.Contains(modules, want) {
			t.Errorf("modules %v lack %s", modules, want)
		}
	}
	// Most depended upon first: the domain is used by application and infrastructure.
	if rc.Modules[0].ID != "src/domain" {
		t.Errorf("first module %s, want src/domain (most used)", rc.Modules[0].ID)
	}
	if len(rc.Decisions) == 0 || rc.Decisions[0].ID != "ADR-001" || rc.Decisions[0].Origin != "explicit" {
		t.Errorf("decisions %v, want ADR-001 first", ids(rc.Decisions, func(d model.Decision) string { return d.ID }))
	}
	if len(rc.Cycles) != 1 || strings.Join(rc.Cycles[0].Modules, ",") != "src/billing,src/payments" {
		t.Errorf("cycles %+v", rc.Cycles)
	}
	if rc.Git == nil || rc.Git.Commits != 6 || rc.Git.Contributors != 3 {
		t.Errorf("git %+v", rc.Git)
	}
	if len(rc.Truncated) != 0 {
		t.Errorf("nothing should be cut on a small repository: %v", rc.Truncated)
	}

	var small results.RepositoryContext
	s.ok("get_repository_context", map[string]any{"maxModules": 2, "maxCycles": 0, "maxDecisions": 1}, &small)
	if len(small.Modules) != 2 || len(small.Cycles) != 0 || len(small.Decisions) != 1 {
		t.Errorf("bounds not applied: %d modules, %d cycles, %d decisions", len(small.Modules), len(small.Cycles), len(small.Decisions))
	}
	for _, want := range []string{"modules", "cycles", "decisions"} {
		if !slices.Contains(fields(small.Truncated), want) {
			t.Errorf("truncated %v lacks %s", small.Truncated, want)
		}
	}
}

func TestContextForTask(t *testing.T) {
	s, _ := layered(t)
	var tc results.TaskContext
	s.ok("get_context_for_task", map[string]any{"task": "validate user names", "maxModules": 3}, &tc)
	if len(tc.Modules) == 0 || tc.Modules[0].ID != "src/domain" {
		t.Fatalf("modules %v, want src/domain first", ids(tc.Modules, func(m results.ModuleSummary) string { return m.ID }))
	}
	if len(tc.Modules) > 3 {
		t.Errorf("%d modules, maxModules 3", len(tc.Modules))
	}
	if m := tc.Modules[0]; m.Relevance <= 0 || !strings.Contains(m.Reason, "matched terms: ") || !strings.Contains(m.Reason, "user") || !strings.HasSuffix(m.Reason, "ranked by bm25") {
		t.Errorf("first module's relevance %v reason %q", m.Relevance, m.Reason)
	}
	files := ids(tc.Files, func(f results.RankedFile) string { return f.Path })
	if len(files) == 0 || files[0] != "src/domain/user.ts" {
		t.Errorf("files %v, want src/domain/user.ts first", files)
	}
	if len(tc.RecentChanges) == 0 || tc.RecentChanges[0].Subject != "refactor: validate user names in the domain" {
		t.Errorf("recent changes %+v", tc.RecentChanges)
	}
	if len(tc.Conventions) == 0 {
		t.Errorf("no conventions")
	}

	// A target leads, its neighbours follow, each with its reason.
	var target results.TaskContext
	s.ok("get_context_for_task", map[string]any{"task": "add a field", "target": "src/application/createUser.ts"}, &target)
	if target.Target != "src/application/createUser.ts" || target.Modules[0].ID != "src/application" || !strings.Contains(target.Modules[0].Reason, "the target's module") {
		t.Fatalf("target context: %s", mustJSON(target.Modules))
	}
	byID := map[string]results.ModuleSummary{}
	for _, m := range target.Modules {
		byID[m.ID] = m
	}
	if m, ok := byID["src/domain"]; !ok || !strings.Contains(m.Reason, "the target depends on it") {
		t.Errorf("src/domain should follow as a dependency of the target: %s", mustJSON(target.Modules))
	}
	if m, ok := byID["src/ui"]; !ok || !strings.Contains(m.Reason, "it depends on the target") {
		t.Errorf("src/ui should follow as a dependent of the target: %s", mustJSON(target.Modules))
	}
	if target.Files[0].Path != "src/application/createUser.ts" || !strings.Contains(target.Files[0].Reason, "the target") {
		t.Errorf("files %s", mustJSON(target.Files))
	}
	if msg := s.fails("get_context_for_task", map[string]any{"task": "x", "target": "src/nowhere"}); !strings.Contains(msg, "src/nowhere") {
		t.Errorf("unknown target: %s", msg)
	}
}

func TestChangeImpact(t *testing.T) {
	s, _ := layered(t)
	var ci results.ChangeImpact
	s.ok("get_change_impact", map[string]any{"target": "src/domain/user.ts"}, &ci)
	if ci.Kind != "file" || strings.Join(ci.Modules, ",") != "src/domain" {
		t.Errorf("target: %s %v", ci.Kind, ci.Modules)
	}
	for _, m := range []string{"src/application", "src/adapters"} {
		if !slices.Contains(ci.DirectDependents, m) {
			t.Errorf("direct dependents %v lack %s", ci.DirectDependents, m)
		}
	}
	if !slices.Contains(ci.TransitiveDependents, "src/ui") {
		t.Errorf("transitive dependents %v lack src/ui", ci.TransitiveDependents)
	}
	tests := ids(ci.Tests, func(f analyze.ImpactFile) string { return f.Path })
	for _, want := range []string{"src/domain/user.test.ts", "src/application/createUser.test.ts"} {
		if !slices.Contains(tests, want) {
			t.Errorf("tests %v lack %s", tests, want)
		}
	}
	files := ids(ci.Files, func(f analyze.ImpactFile) string { return f.Path })
	if !slices.Contains(files, "src/application/createUser.ts") {
		t.Errorf("files %v lack the importer src/application/createUser.ts", files)
	}
	var small results.ChangeImpact
	s.ok("get_change_impact", map[string]any{"target": "src/domain/user.ts", "maxFiles": 1}, &small)
	if len(small.Files)+len(small.Tests) != 1 || !slices.Contains(fields(small.Truncated), "files") {
		t.Errorf("bounded impact: %d files %d tests, truncated %v", len(small.Files), len(small.Tests), small.Truncated)
	}
	if msg := s.fails("get_change_impact", map[string]any{"target": "src/domain/usr.ts"}); !strings.Contains(msg, `"src/domain/usr.ts"`) || !strings.Contains(msg, "src/domain/user.ts") {
		t.Errorf("unknown target should name it and suggest user.ts: %s", msg)
	}
}

func TestExplainModule(t *testing.T) {
	s, _ := layered(t)
	var me results.ModuleExplanation
	s.ok("explain_module", map[string]any{"path": "src/domain"}, &me)
	if me.Module.ID != "src/domain" || me.Module.Files != 4 {
		t.Errorf("module %+v", me.Module)
	}
	if top := me.Module.Roles; len(top) == 0 || top[0].Role != "domain" {
		t.Errorf("roles %+v", top)
	}
	var symbols []string
	for _, sym := range me.Symbols {
		symbols = append(symbols, sym.Kind+" "+sym.Name)
	}
	for _, want := range []string{"class User", "interface UserProps", "class DomainError", "function placeOrder"} {
		if !slices.Contains(symbols, want) {
			t.Errorf("symbols %v lack %s", symbols, want)
		}
	}
	froms := ids(me.Dependents, func(d model.Dependency) string { return d.From })
	if !slices.Contains(froms, "src/application") || !slices.Contains(froms, "src/adapters") {
		t.Errorf("dependents %v", froms)
	}
	if tos := ids(me.Dependencies, func(d model.Dependency) string { return d.To }); strings.Join(tos, ",") != "src/infrastructure" {
		t.Errorf("dependencies %v", tos)
	}
	if len(me.History) < 2 || me.History[0].Subject != "refactor: validate user names in the domain" {
		t.Errorf("history %+v", me.History)
	}
	// A file or a package name finds the same module.
	var byFile, byName results.ModuleExplanation
	s.ok("explain_module", map[string]any{"path": "./src/domain/user.ts"}, &byFile)
	s.ok("explain_module", map[string]any{"path": "layered-app"}, &byName)
	if byFile.Module.ID != "src/domain" || byName.Module.ID != "." {
		t.Errorf("by file %s, by name %s", byFile.Module.ID, byName.Module.ID)
	}
	// An unknown path is a tool error that names it and suggests, not a protocol error.
	msg := s.fails("explain_module", map[string]any{"path": "src/domian"})
	if !strings.Contains(msg, `"src/domian"`) || !strings.Contains(msg, "src/domain") {
		t.Errorf("unknown module: %s", msg)
	}
}

func TestDependenciesAndDependents(t *testing.T) {
	s, _ := layered(t)
	var deps results.Dependencies
	s.ok("get_dependencies", map[string]any{"module": "src/application"}, &deps)
	if deps.Module != "src/application" || len(deps.Internal) != 1 || deps.Internal[0].To != "src/domain" || deps.Internal[0].Imports < 3 {
		t.Errorf("application depends on %s", mustJSON(deps.Internal))
	}
	if ext := ids(deps.External, func(e model.External) string { return e.Name }); !slices.Contains(ext, "zod") {
		t.Errorf("external %v lacks zod", ext)
	}

	var dom results.Dependents
	s.ok("get_dependents", map[string]any{"module": "src/domain"}, &dom)
	froms := ids(dom.Direct, func(d model.Dependency) string { return d.From })
	sort.Strings(froms)
	if strings.Join(froms, ",") != "src/adapters,src/application" {
		t.Errorf("direct dependents of the domain %v", froms)
	}
	if !slices.Contains(dom.Transitive, "src/ui") || slices.Contains(dom.Transitive, "src/application") {
		t.Errorf("transitive %v: want src/ui, not the direct ones", dom.Transitive)
	}
	// Consistent: what depends on the domain says it depends on the domain, with the same weight.
	for _, e := range dom.Direct {
		var of results.Dependencies
		s.ok("get_dependencies", map[string]any{"module": e.From}, &of)
		found := false
		for _, d := range of.Internal {
			if d.To == "src/domain" && d.Imports == e.Imports {
				found = true
			}
		}
		if !found {
			t.Errorf("get_dependents says %s → src/domain (%d imports); get_dependencies(%s) says %s", e.From, e.Imports, e.From, mustJSON(of.Internal))
		}
	}
	var all results.Dependencies
	s.ok("get_dependencies", nil, &all)
	if all.Module != "" || len(all.Internal) < 5 {
		t.Errorf("the whole graph: %s", mustJSON(all.Internal))
	}
	if msg := s.fails("get_dependents", map[string]any{"module": "nope"}); !strings.Contains(msg, `"nope"`) {
		t.Errorf("unknown module: %s", msg)
	}
}

func TestSearchContext(t *testing.T) {
	s, _ := layered(t)
	var sr results.SearchResults
	raw := s.ok("search_context", map[string]any{"query": "createUser"}, &sr)
	if len(sr.Results) == 0 {
		t.Fatal("no results")
	}
	first := sr.Results[0]
	if first.Type != "symbol" || first.ID != "src/application/createUser.ts#createUser" || first.Line != 6 {
		t.Errorf("first result %+v", first)
	}
	for i, r := range sr.Results {
		if !strings.HasPrefix(r.Reason, "matched terms: ") || !strings.HasSuffix(r.Reason, "; ranked by bm25") {
			t.Errorf("reason %q", r.Reason)
		}
		if i > 0 && r.Score > sr.Results[i-1].Score {
			t.Errorf("not ranked: %v after %v", r.Score, sr.Results[i-1].Score)
		}
	}
	if again := s.ok("search_context", map[string]any{"query": "createUser"}, nil); string(again) != string(raw) {
		t.Errorf("search is not deterministic")
	}
	var dec results.SearchResults
	s.ok("search_context", map[string]any{"query": "hexagonal architecture", "types": []string{"decision"}}, &dec)
	if len(dec.Results) == 0 || dec.Results[0].ID != "ADR-001" {
		t.Errorf("decision search %s", mustJSON(dec.Results))
	}
	for _, r := range dec.Results {
		if r.Type != "decision" {
			t.Errorf("types filter let %s through", r.Type)
		}
	}
	var limited results.SearchResults
	s.ok("search_context", map[string]any{"query": "user", "limit": 2}, &limited)
	if len(limited.Results) != 2 || !slices.Contains(fields(limited.Truncated), "results") {
		t.Errorf("limit: %d results, truncated %v", len(limited.Results), limited.Truncated)
	}
	var none results.SearchResults
	s.ok("search_context", map[string]any{"query": "the and of"}, &none)
	if len(none.Results) != 0 {
		t.Errorf("stopwords matched: %s", mustJSON(none.Results))
	}
}

func TestModuleHistory(t *testing.T) {
	s, shas := layered(t)
	var mh results.ModuleHistory
	s.ok("get_module_history", map[string]any{"target": "src/domain"}, &mh)
	if mh.Module != "src/domain" || mh.Signals == nil || mh.Signals.Changes != 2 || mh.Signals.Contributors != 1 {
		t.Errorf("signals %+v", mh.Signals)
	}
	if len(mh.Commits) != 2 || mh.Commits[0].SHA != shas[5] || mh.Commits[1].SHA != shas[1] {
		t.Errorf("commits %s", mustJSON(mh.Commits))
	}
	var one results.ModuleHistory
	s.ok("get_module_history", map[string]any{"target": "src/domain/user.ts", "limit": 1}, &one)
	if one.Module != "src/domain" || len(one.Commits) != 1 || !slices.Contains(fields(one.Truncated), "commits") || one.Commits[0].Files[0] != "src/domain/user.ts" {
		t.Errorf("file history %s", mustJSON(one))
	}
	if msg := s.fails("get_module_history", map[string]any{"target": "no/such/path"}); !strings.Contains(msg, "no/such/path") {
		t.Errorf("unknown target: %s", msg)
	}
}

func TestRevisions(t *testing.T) {
	s, shas := layered(t)
	for _, args := range []map[string]any{{"revision": "HEAD", "base": "HEAD"}, {"revision": "HEAD..HEAD"}} {
		var same results.RevisionDiff
		s.ok("get_revision_diff", args, &same)
		if same.HasChanges || len(same.Files) != 0 || len(same.Modules) != 0 || same.Revision != shas[5] {
			t.Errorf("%v: %s", args, mustJSON(same))
		}
	}
	var last results.RevisionDiff
	s.ok("get_revision_diff", map[string]any{"revision": "HEAD"}, &last)
	if last.Base != shas[4] || len(last.Files) != 1 || last.Files[0].Path != "src/domain/user.ts" || last.Files[0].Status != "modified" || last.Files[0].Module != "src/domain" {
		t.Errorf("HEAD against its parent: %s", mustJSON(last))
	}
	var span results.RevisionDiff
	s.ok("get_revision_diff", map[string]any{"revision": shas[2], "base": shas[0]}, &span)
	if !span.HasChanges || len(span.Files) != 14 {
		t.Errorf("two commits: %d files", len(span.Files))
	}
	if msg := s.fails("get_revision_diff", map[string]any{"revision": "no-such-rev"}); !strings.Contains(msg, "no-such-rev") {
		t.Errorf("unknown revision: %s", msg)
	}
	if msg := s.fails("get_revision_diff", map[string]any{"revision": "--output=/tmp/x"}); !strings.Contains(msg, "not a revision") {
		t.Errorf("an option as a revision: %s", msg)
	}

	before := s.h.root.Dir()
	head := gitOut(t, before, "rev-parse", "HEAD")
	var snap results.RevisionSnapshot
	s.ok("get_revision_snapshot", map[string]any{"revision": shas[0]}, &snap)
	if snap.SHA != shas[0] || snap.FileCount != 4 || snap.Author != "Ada Lovelace" || snap.Subject != "Initial skeleton" {
		t.Errorf("snapshot %s", mustJSON(snap))
	}
	if len(snap.Modules) != 1 || snap.Modules[0].Name != "layered-app" {
		t.Errorf("modules at the first commit %s", mustJSON(snap.Modules))
	}
	if gitOut(t, before, "rev-parse", "HEAD") != head || gitOut(t, before, "status", "--porcelain") != "" {
		t.Errorf("the snapshot touched the work tree")
	}
}

func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	f := &gitFixture{t: t, dir: dir}
	return f.git(nil, args...)
}

func TestArchitecture(t *testing.T) {
	s, _ := layered(t)
	var a results.Architecture
	s.ok("get_architecture", nil, &a)
	layers := map[string]string{}
	for _, m := range a.Modules {
		layers[m.ID] = m.Layer
	}
	if layers["src/domain"] != "domain" || layers["src/infrastructure"] != "infrastructure" || layers["src/ui"] != "ui" {
		t.Errorf("layers %v", layers)
	}
	edges := ids(a.Edges, func(e model.Dependency) string { return e.From + "→" + e.To })
	for _, want := range []string{"src/application→src/domain", "src/ui→src/application", "src/domain→src/infrastructure"} {
		if !slices.Contains(edges, want) {
			t.Errorf("edges %v lack %s", edges, want)
		}
	}
	if len(a.Cycles) != 1 {
		t.Errorf("cycles %+v", a.Cycles)
	}
	rules := ids(a.Violations, func(v model.Violation) string { return v.From + "→" + v.To + ":" + v.Rule })
	if !slices.Contains(rules, "src/domain→src/infrastructure:domain-infrastructure") {
		t.Errorf("violations %v", rules)
	}
	var centred results.Architecture
	s.ok("get_architecture", map[string]any{"module": "src/domain"}, &centred)
	got := ids(centred.Modules, func(m results.ArchModule) string { return m.ID })
	if centred.Module != "src/domain" || got[0] != "src/domain" || slices.Contains(got, "src/ui") || !slices.Contains(got, "src/application") {
		t.Errorf("neighbourhood of the domain: %v", got)
	}
	if len(centred.Cycles) != 0 {
		t.Errorf("the domain is in no cycle: %+v", centred.Cycles)
	}
}

func TestConventionsAndDecisions(t *testing.T) {
	s, _ := layered(t)
	var all results.Conventions
	s.ok("get_conventions", nil, &all)
	if len(all.Conventions) < 3 {
		t.Fatalf("conventions %s", mustJSON(all.Conventions))
	}
	var tests results.Conventions
	s.ok("get_conventions", map[string]any{"category": "tests"}, &tests)
	if tests.Category != "Tests" || len(tests.Conventions) == 0 {
		t.Errorf("tests category: %s", mustJSON(tests))
	}
	for _, c := range tests.Conventions {
		if c.Category != "Tests" {
			t.Errorf("category filter let %s through", c.Category)
		}
	}
	if msg := s.fails("get_conventions", map[string]any{"category": "astrology"}); !strings.Contains(msg, "astrology") || !strings.Contains(msg, "Naming") {
		t.Errorf("unknown category: %s", msg)
	}

	var ds results.Decisions
	s.ok("get_decisions", nil, &ds)
	seenInferred := false
	for _, d := range ds.Decisions {
		if d.Origin == "inferred" {
			seenInferred = true
		} else if seenInferred {
			t.Errorf("explicit %s listed after an inferred decision", d.ID)
		}
	}
	var explicit results.Decisions
	s.ok("get_decisions", map[string]any{"origin": "explicit"}, &explicit)
	got := ids(explicit.Decisions, func(d model.Decision) string { return d.ID + ":" + d.Status })
	if !slices.Contains(got, "ADR-001:accepted") || !slices.Contains(got, "ADR-002:proposed") {
		t.Errorf("explicit decisions %v", got)
	}
	var inferred results.Decisions
	s.ok("get_decisions", map[string]any{"origin": "inferred"}, &inferred)
	if len(inferred.Decisions) == 0 {
		t.Errorf("no inferred decisions")
	}
	for _, d := range inferred.Decisions {
		if d.Origin != "inferred" {
			t.Errorf("origin filter let %s (%s) through", d.ID, d.Origin)
		}
	}
}

// TestDetailContract calls every tool in both details: compact is full
// without the evidence (and the architecture's map), key for key; full carries evidence wherever the
// answer holds a heuristic; every confidence is strictly between 0 and 1.
func TestDetailContract(t *testing.T) {
	s, shas := layered(t)
	calls := map[string]map[string]any{
		"get_context_for_task":   {"task": "validate user names", "target": "src/domain"},
		"get_change_impact":      {"target": "src/domain"},
		"get_repository_context": {},
		"explain_module":         {"path": "src/domain"},
		"get_dependencies":       {},
		"get_dependents":         {"module": "src/domain"},
		"search_context":         {"query": "user order"},
		"get_module_history":     {"target": "src/domain"},
		"get_revision_diff":      {"revision": "HEAD", "base": shas[0]},
		"get_revision_snapshot":  {"revision": "HEAD"},
		"get_architecture":       {},
		"get_conventions":        {},
		"get_decisions":          {},
	}
	heuristic := map[string]bool{"get_context_for_task": true, "get_repository_context": true, "explain_module": true, "get_dependencies": true,
		"get_dependents": true, "get_architecture": true, "get_conventions": true, "get_decisions": true}
	if len(calls) != len(s.tools) {
		t.Fatalf("%d tools served, %d exercised", len(s.tools), len(calls))
	}
	for name, args := range calls {
		t.Run(name, func(t *testing.T) {
			withDetail := func(d string) map[string]any {
				out := map[string]any{"detail": d}
				for k, v := range args {
					out[k] = v
				}
				return out
			}
			compact := s.ok(name, args, nil)
			explicit := s.ok(name, withDetail("compact"), nil)
			fullJSON := s.ok(name, withDetail("full"), nil)
			if string(compact) != string(explicit) {
				t.Errorf("the default is not compact")
			}
			if len(compact) > CompactBudget {
				t.Errorf("compact answer is %d characters", len(compact))
			}
			var c, f any
			json.Unmarshal(compact, &c)
			json.Unmarshal(fullJSON, &f)
			if n := countKey(c, "evidence"); n != 0 {
				t.Errorf("compact answer holds %d evidence lists", n)
			}
			if heuristic[name] && countKey(f, "evidence") == 0 {
				t.Errorf("full answer holds no evidence")
			}
			// The one thing full adds beside evidence: get_architecture's
			// Mermaid map (TestArchitectureMap).
			if !reflect.DeepEqual(dropKey(dropKey(f, "evidence"), "map"), c) {
				t.Errorf("compact is not full without evidence:\ncompact %s\nfull    %s", compact, fullJSON)
			}
			checkConfidence(t, f, name)
			if heuristic[name] {
				checkEvidenced(t, f, name)
			}
		})
	}
}

func countKey(v any, key string) int {
	n := 0
	switch x := v.(type) {
	case map[string]any:
		for k, sub := range x {
			if k == key {
				n++
			}
			n += countKey(sub, key)
		}
	case []any:
		for _, sub := range x {
			n += countKey(sub, key)
		}
	}
	return n
}

func dropKey(v any, key string) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, sub := range x {
			if k != key {
				out[k] = dropKey(sub, key)
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, sub := range x {
			out[i] = dropKey(sub, key)
		}
		return out
	}
	return v
}

// checkConfidence: every heuristic value's confidence is in (0, 1).
func checkConfidence(t *testing.T, v any, where string) {
	t.Helper()
	switch x := v.(type) {
	case map[string]any:
		if c, ok := x["confidence"]; ok {
			f, isNum := c.(float64)
			if !isNum || f <= 0 || f >= 1 {
				t.Errorf("%s: confidence %v", where, c)
			}
		}
		for k, sub := range x {
			checkConfidence(t, sub, where+"."+k)
		}
	case []any:
		for _, sub := range x {
			checkConfidence(t, sub, where+"[]")
		}
	}
}

// checkEvidenced: in full, every value with a confidence shows its evidence.
func checkEvidenced(t *testing.T, v any, where string) {
	t.Helper()
	switch x := v.(type) {
	case map[string]any:
		if _, ok := x["confidence"]; ok {
			if ev, _ := x["evidence"].([]any); len(ev) == 0 {
				t.Errorf("%s: a heuristic without evidence: %v", where, x)
			}
		}
		for k, sub := range x {
			checkEvidenced(t, sub, where+"."+k)
		}
	case []any:
		for _, sub := range x {
			checkEvidenced(t, sub, where+"[]")
		}
	}
}

func TestProtocolRefusals(t *testing.T) {
	s, _ := layered(t)
	// The schema refuses before the handler runs: -32602, never isError.
	e := s.refused("get_repository_context", map[string]any{"detail": "verbose"})
	if !strings.Contains(string(*e.Data), "detail") {
		t.Errorf("the refusal does not name detail: %s", *e.Data)
	}
	s.refused("explain_module", map[string]any{"path": "src/domain", "bogus": 1})
	s.refused("explain_module", map[string]any{})
	s.refused("get_context_for_task", map[string]any{"task": "x", "maxModules": 13})
	s.refused("search_context", map[string]any{"query": "x", "types": []string{"planet"}})
	s.refused("get_decisions", map[string]any{"origin": "rumoured"})

	// A root outside the server's root runs and fails.
	if msg := s.fails("get_repository_context", map[string]any{"root": ".."}); !strings.Contains(msg, "outside the repository root") {
		t.Errorf("root ..: %s", msg)
	}
	if msg := s.fails("get_repository_context", map[string]any{"root": "missing-dir"}); !strings.Contains(msg, "missing-dir") {
		t.Errorf("missing root: %s", msg)
	}
	// A root inside the server's root is analysed on its own.
	var sub results.RepositoryContext
	s.ok("get_repository_context", map[string]any{"root": "src/domain"}, &sub)
	if !strings.HasSuffix(sub.Root, "src/domain") || sub.Summary.Files != 4 {
		t.Errorf("sub-root: %s, %d files", sub.Root, sub.Summary.Files)
	}
}

func TestResourcesAndPrompts(t *testing.T) {
	s, _ := layered(t)
	ctx := context.Background()
	for uri, tool := range map[string]string{
		"agent://repository/context":      "get_repository_context",
		"agent://repository/architecture": "get_architecture",
		"agent://repository/dependencies": "get_dependencies",
		"agent://repository/conventions":  "get_conventions",
		"agent://repository/decisions":    "get_decisions",
	} {
		res, err := s.client.ReadResource(ctx, uri)
		if err != nil {
			t.Fatalf("%s: %v", uri, err)
		}
		if len(res.Contents) != 1 || res.Contents[0].MIMEType == nil || *res.Contents[0].MIMEType != "application/json" {
			t.Fatalf("%s: %+v", uri, res)
		}
		if want := s.ok(tool, nil, nil); res.Contents[0].Text != string(want) {
			t.Errorf("%s is not the compact answer of %s", uri, tool)
		}
	}
	if _, err := s.client.ReadResource(ctx, "agent://repository/nothing"); err == nil || !strings.Contains(err.Error(), "-32602") && !strings.Contains(err.Error(), "no such resource") {
		t.Errorf("unknown resource: %v", err)
	}

	onboard, err := s.h.PromptOnboardToRepository(ctx, &spec.OnboardToRepositoryArgs{})
	if err != nil || !strings.Contains(onboard.Messages[0].Text, "get_repository_context") || !strings.Contains(onboard.Messages[0].Text, "get_conventions") {
		t.Errorf("onboard: %v %+v", err, onboard)
	}
	review, err := s.h.PromptReviewChangeImpact(ctx, &spec.ReviewChangeImpactArgs{Target: "src/domain/user.ts"})
	if err != nil || !strings.Contains(review.Messages[0].Text, `get_change_impact with target "src/domain/user.ts"`) {
		t.Errorf("review: %v %+v", err, review)
	}
	explain, err := s.h.PromptExplainArchitecture(ctx, &spec.ExplainArchitectureArgs{Target: "src/domain"})
	if err != nil || !strings.Contains(explain.Messages[0].Text, `get_architecture with module "src/domain"`) {
		t.Errorf("explain: %v %+v", err, explain)
	}
	if _, err := s.h.PromptExplainArchitecture(ctx, &spec.ExplainArchitectureArgs{Target: " "}); err == nil {
		t.Errorf("an empty target was accepted")
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestOddInputs throws odd strings at every tool that takes one: each call
// either answers or fails as a tool (isError); none breaks the server.
func TestOddInputs(t *testing.T) {
	s, _ := layered(t)
	odd := []string{".", "/", "./", "..", "../..", "\x00", "src/\x00domain", "*", "**/*", "[", "src//domain//", "  src/domain  ",
		"ünïcødé/模块", strings.Repeat("a/", 600), "HEAD^{tree}", "HEAD:src", "-x", "--output=x", "@{-1}", "%s%n", "\\src\\domain"}
	params := map[string]string{
		"get_context_for_task": "target", "get_change_impact": "target", "explain_module": "path", "get_dependencies": "module",
		"get_dependents": "module", "search_context": "query", "get_module_history": "target", "get_revision_diff": "revision",
		"get_revision_snapshot": "revision", "get_architecture": "module", "get_conventions": "category", "get_repository_context": "root",
		"get_decisions": "root",
	}
	for tool, param := range params {
		for _, v := range odd {
			args := map[string]any{param: v}
			if tool == "get_context_for_task" {
				args["task"] = v
			}
			res, err := s.client.CallTool(context.Background(), tool, args)
			if err != nil {
				if !strings.Contains(err.Error(), "-32602") {
					t.Errorf("%s %q: %v", tool, v, err)
				}
				continue
			}
			if res.IsError == nil || !*res.IsError {
				s.validate(tool, res.StructuredContent)
			}
		}
	}
	// An absolute path inside the root is the same path.
	var abs results.ModuleExplanation
	s.ok("explain_module", map[string]any{"path": filepath.Join(s.h.root.Dir(), "src", "domain", "user.ts")}, &abs)
	if abs.Module.ID != "src/domain" {
		t.Errorf("absolute path: %s", abs.Module.ID)
	}
}

// A target of 32,000 components took 13 s in get_module_history (each of
// its parents cleaned and looked up from the whole path). The handlers are
// called directly, past any schema bound: their own work must be linear,
// and a million components (2 MB) would not end otherwise.
func TestLongTargetsCostOnePass(t *testing.T) {
	s, _ := layered(t)
	ctx := context.Background()
	long := "src/domain/" + strings.Repeat("a/", 1_000_000) + "x.ts"
	if _, err := s.h.GetModuleHistory(ctx, &spec.GetModuleHistoryInput{Target: long}); err == nil {
		t.Error("get_module_history found a history for a path that never existed")
	}
	if _, err := s.h.GetChangeImpact(ctx, &spec.GetChangeImpactInput{Target: long}); err == nil {
		t.Error("get_change_impact found a path that does not exist")
	}
	if _, err := s.h.ExplainModule(ctx, &spec.ExplainModuleInput{Path: long}); err == nil {
		t.Error("explain_module found a path that does not exist")
	}
	if _, err := s.h.GetDependents(ctx, &spec.GetDependentsInput{Module: long}); err == nil {
		t.Error("get_dependents found a path that does not exist")
	}
	// get_context_for_task may answer without the target or refuse it;
	// either way it returns.
	_, _ = s.h.GetContextForTask(ctx, &spec.GetContextForTaskInput{Task: "change users", Target: &long})
}
