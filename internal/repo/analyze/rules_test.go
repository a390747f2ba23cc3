package analyze

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/kontext-dev/kontext/internal/repo/model"
)

var knownRoles = map[string]bool{
	"workspace-package": true, "application": true, "domain": true, "service": true, "adapter": true, "repository": true,
	"controller": true, "api-routes": true, "infrastructure": true, "eventing": true, "worker": true, "cli": true,
	"ui": true, "shared": true, "configuration": true, "test-support": true,
}

func TestTables(t *testing.T) {
	signals := map[string]bool{}
	for _, d := range signalDefs {
		if !knownRoles[d.Role] || d.Weight <= 0 || d.Weight >= 1 || signals[d.Signal] {
			t.Errorf("bad signal definition %+v", d)
		}
		signals[d.Signal] = true
	}
	seen := map[string]bool{}
	for _, r := range pkgRules {
		key := string(r.Fam) + " " + r.Match
		if !signals[r.Signal] || r.Match == "" || seen[key] || (r.Importance != "" && r.Importance != impFramework && r.Importance != impInfrastructure) {
			t.Errorf("bad or duplicate package rule %+v", r)
		}
		seen[key] = true
	}
	for _, r := range contentRules {
		if !signals[r.Signal] || r.Needle == "" {
			t.Errorf("bad content rule %+v", r)
		}
	}
	for _, r := range append(append([]nameRule{}, nameRules...), fileRoleRules...) {
		if !knownRoles[r.Role] || r.Weight <= 0 || r.Weight >= 1 {
			t.Errorf("bad name rule %+v", r)
		}
	}
	for _, r := range layeringRules {
		if !knownRoles[r.From] || !knownRoles[r.To] || r.Rule != r.From+"-"+r.To {
			t.Errorf("bad layering rule %+v", r)
		}
	}
	for _, v := range statusMap {
		if !map[string]bool{"accepted": true, "proposed": true, "deprecated": true, "superseded": true, "rejected": true}[v] {
			t.Errorf("status maps to %q", v)
		}
	}
}

func TestCombine(t *testing.T) {
	for _, tc := range []struct {
		ws   []float64
		want float64
	}{
		{[]float64{0.62}, 0.62},
		{[]float64{0.99}, 0.75}, // one signal is capped
		{[]float64{0.62, 0.45}, 0.791},
		{[]float64{0.4, 0.35}, 0.61},
	} {
		if got := conf(combine(tc.ws)); got != tc.want {
			t.Errorf("combine(%v) = %v, want %v", tc.ws, got, tc.want)
		}
	}
	many := make([]float64, 40)
	for i := range many {
		many[i] = 0.75
	}
	if got := conf(combine(many)); got != 0.99 {
		t.Errorf("forty strong signals = %v, want 0.99 (never 1)", got)
	}
	if conf(0) != 0.01 || conf(1) != 0.99 || conf(-3) != 0.01 {
		t.Errorf("conf does not keep inside (0, 1)")
	}
}

// file makes a hand-built file.
func file(p, module string, kind model.FileKind, imports ...model.Import) model.File {
	return model.File{Path: p, Module: module, Kind: kind, Imports: imports}
}

func ext(spec string, line int) model.Import {
	return model.Import{Spec: spec, Line: line, Kind: model.ImportExternal, Target: spec}
}

func TestRolesAcrossLanguages(t *testing.T) {
	files := map[string]string{
		"py/repo/users.py":             "from sqlalchemy.orm import Session\n",
		"rs/web/src/handlers.rs":       "use actix_web::{get, HttpResponse};\n\n#[get(\"/users\")]\nasync fn users() -> HttpResponse { HttpResponse::Ok().finish() }\n",
		"java/api/UserController.java": "import org.springframework.web.bind.annotation.GetMapping;\n\n@RestController\nclass UserController {\n  @GetMapping(\"/users\")\n  String users() { return \"\"; }\n}\n",
		"ts/ui/Button.tsx":             "import React from 'react';\nexport function Button() { return <button/>; }\n",
		"ts/alpha/a.test.ts":           "import { it } from 'vitest';\n",
		"packages/kit/index.ts":        "export const x = 1;\n",
		"misc/x.ts":                    "export const y = 2;\n",
	}
	g := &model.Graph{
		Modules: []model.Module{
			{ID: "py/repo", Name: "repo"}, {ID: "rs/web", Name: "web"}, {ID: "java/api", Name: "api"}, {ID: "ts/ui", Name: "ui"},
			{ID: "ts/alpha", Name: "alpha"}, {ID: "packages/kit", Name: "@acme/kit", Basis: model.BasisWorkspacePackage, Manifest: "packages/kit/package.json"},
			{ID: "misc", Name: "misc"},
		},
		Files: []model.File{
			file("py/repo/users.py", "py/repo", model.FileSource, model.Import{Spec: "sqlalchemy.orm", Line: 1, Kind: model.ImportExternal}),
			file("rs/web/src/handlers.rs", "rs/web", model.FileSource, model.Import{Spec: "actix_web", Line: 1, Kind: model.ImportExternal}),
			file("java/api/UserController.java", "java/api", model.FileSource, model.Import{Spec: "org.springframework.web.bind.annotation.GetMapping", Line: 1, Kind: model.ImportExternal}),
			file("ts/ui/Button.tsx", "ts/ui", model.FileSource, ext("react", 1)),
			file("ts/alpha/a.test.ts", "ts/alpha", model.FileTest, ext("vitest", 1)),
			file("packages/kit/index.ts", "packages/kit", model.FileSource),
			file("misc/x.ts", "misc", model.FileSource),
		},
	}
	obs, err := Observe(context.Background(), g, mapSource(files), Options{})
	if err != nil {
		t.Fatal(err)
	}
	EntryPoints(g, obs, mapSource(files))
	Roles(g, obs)
	checkConfidences(t, g)
	want := map[string]string{"py/repo": "repository", "rs/web": "controller", "java/api": "controller", "ts/ui": "ui"}
	for id, role := range want {
		if top, ok := TopRole(findModule(g, id)); !ok || top.Role != role {
			t.Errorf("%s = %s, want %s", id, dumpJSON(findModule(g, id).Roles), role)
		}
	}
	if top, _ := TopRole(findModule(g, "ts/ui")); top.Confidence != 0.838 { // react 0.55, jsx 0.4, name ui 0.4: 1 − 0.45·0.6·0.6
		t.Errorf("ui confidence = %v (%s)", top.Confidence, dumpJSON(top))
	}
	if r := findModule(g, "ts/alpha").Roles; len(r) != 0 {
		t.Errorf("test files alone make no role: %s", dumpJSON(r))
	}
	kit := findModule(g, "packages/kit").Roles
	if len(kit) == 0 || kit[0].Role != "workspace-package" || kit[0].Confidence != 0.99 || kit[0].Evidence[0].File != "packages/kit/package.json" {
		t.Errorf("workspace package = %s", dumpJSON(kit))
	}
	if r := findModule(g, "misc").Roles; len(r) != 0 || r == nil {
		t.Errorf("a module without signals has an empty, non-nil role list: %#v", r)
	}
}

func TestRolesBounded(t *testing.T) {
	// A module named after every role, importing everything: still at most
	// four roles, five pieces of evidence each, and none certain.
	content := ""
	var imps []model.Import
	for i, r := range pkgRules {
		if r.Fam == famJS {
			imps = append(imps, ext(r.Match+"x", i+1))
			imps = append(imps, ext(strings.TrimSuffix(r.Match, "/"), i+1))
		}
	}
	for _, r := range contentRules {
		if r.Fam == famJS {
			content += r.Needle + "\n"
		}
	}
	g := &model.Graph{
		Modules: []model.Module{{ID: "src/domain/infra/api/ui/jobs/events/config/services/controllers", Name: "x"}},
		Files:   []model.File{file("src/domain/infra/api/ui/jobs/events/config/services/controllers/a.tsx", "src/domain/infra/api/ui/jobs/events/config/services/controllers", model.FileSource, imps...)},
	}
	src := mapSource(map[string]string{g.Files[0].Path: content})
	obs, _ := Observe(context.Background(), g, src, Options{})
	Roles(g, obs)
	roles := g.Modules[0].Roles
	if len(roles) != maxRoles {
		t.Fatalf("roles = %d, want %d", len(roles), maxRoles)
	}
	for _, r := range roles {
		if len(r.Evidence) > maxRoleEvidence || r.Confidence >= 1 {
			t.Errorf("role %s: %d evidence, confidence %v", r.Role, len(r.Evidence), r.Confidence)
		}
	}
	checkConfidences(t, g)
}

func TestCyclesAndLayeringHandBuilt(t *testing.T) {
	dep := func(from, to string, line int) model.Dependency {
		return model.Dependency{From: from, To: to, Kind: model.ImportInternalModule, Imports: 1,
			Evidence: []model.Evidence{{File: from + "/x.go", Line: line, Detail: "imports " + to}}}
	}
	g := &model.Graph{Modules: []model.Module{{ID: "a"}, {ID: "b"}, {ID: "c"}, {ID: "d"}, {ID: "e"}, {ID: "f"}}}
	g.Dependencies = []model.Dependency{dep("a", "b", 1), dep("b", "c", 2), dep("c", "a", 3), dep("c", "d", 4), dep("d", "e", 5), dep("e", "d", 6), dep("f", "f", 7), dep("a", "c", 8)}
	Cycles(g)
	if len(g.Cycles) != 2 {
		t.Fatalf("cycles = %s", dumpJSON(g.Cycles))
	}
	// a→c→a is shorter than a→b→c→a: it is listed first, b after.
	if got := strings.Join(g.Cycles[0].Modules, ","); got != "a,c,b" {
		t.Errorf("first cycle = %s", got)
	}
	if evs := g.Cycles[0].Evidence; len(evs) != 4 || evs[0].Line != 8 || evs[1].Line != 3 {
		t.Errorf("first cycle evidence: the cycle's edges first, then the rest: %s", dumpJSON(evs))
	}
	if got := strings.Join(g.Cycles[1].Modules, ","); got != "d,e" {
		t.Errorf("second cycle = %s", got)
	}

	// Layering by top role, ignoring workspace-package.
	role := func(r string, c float64) []model.Role { return []model.Role{{Role: r, Confidence: c}} }
	g = &model.Graph{Modules: []model.Module{
		{ID: "dom", Roles: append([]model.Role{{Role: "workspace-package", Confidence: 0.99}}, role("domain", 0.6)...)},
		{ID: "db", Roles: role("infrastructure", 0.5)},
		{ID: "web", Roles: role("ui", 0.5)},
		{ID: "gw", Roles: role("adapter", 0.5)},
	}}
	g.Dependencies = []model.Dependency{dep("dom", "db", 1), dep("dom", "gw", 2), dep("db", "web", 3), dep("web", "dom", 4)}
	Layering(g)
	var rules []string
	for _, v := range g.Violations {
		rules = append(rules, v.From+">"+v.To+":"+v.Rule)
	}
	if got := strings.Join(rules, " "); got != "db>web:infrastructure-ui dom>db:domain-infrastructure dom>gw:domain-adapter" {
		t.Errorf("violations = %s", got)
	}
	checkConfidences(t, g)
}

func TestTarjanDeepChain(t *testing.T) {
	const n = 50000
	succ := func(s string) []string {
		var i int
		fmt.Sscanf(s, "n%d", &i)
		return []string{fmt.Sprintf("n%d", (i+1)%n)}
	}
	nodes := make([]string, n)
	for i := range nodes {
		nodes[i] = fmt.Sprintf("n%d", i)
	}
	comps := tarjan(nodes, succ)
	if len(comps) != 1 || len(comps[0]) != n {
		t.Errorf("a ring of %d is one component, got %d", n, len(comps))
	}
}

func TestFrequency(t *testing.T) {
	counts := []int{1, 1, 1, 2, 5, 10}
	for n, want := range map[int]string{0: "none", 1: "low", 2: "medium", 5: "high", 10: "high"} {
		if got := frequency(counts, n); got != want {
			t.Errorf("frequency(%d) = %s, want %s", n, got, want)
		}
	}
	if frequency([]int{4, 4, 4}, 4) != "medium" {
		t.Errorf("a flat history is medium everywhere")
	}
	if frequency([]int{1, 10}, 1) != "low" || frequency([]int{1, 10}, 10) != "high" {
		t.Errorf("two modules: low and high")
	}
}

func TestEntryPointsFromManifests(t *testing.T) {
	files := map[string]string{
		"package.json": `{"name":"lib","main":"./dist/index.js","bin":{"lib":"bin/cli.js"},
		  "exports":{".":{"types":"./dist/index.d.ts","import":"./dist/index.js","require":"./dist/index.cjs"},"./extra":"./src/extra.ts","./*":"./src/*.ts"},
		  "scripts":{"dev":"tsx src/server.ts","test":"node --test test/"}}`,
		"src/index.ts":           "export const a = 1;\n",
		"src/extra.ts":           "export const b = 1;\n",
		"src/server.ts":          "const s = 1;\n",
		"bin/cli.js":             "#!/usr/bin/env node\nrequire('../dist/index.cjs');\n",
		"crates/app/Cargo.toml":  "[package]\nname = \"app\"\n\n[[bin]]\nname = \"tool\"\npath = \"src/tool.rs\"\n",
		"crates/app/src/lib.rs":  "pub fn f() {}\n",
		"crates/app/src/main.rs": "fn main() {}\n",
		"crates/app/src/tool.rs": "fn main() {}\n",
		"py/pyproject.toml":      "[project]\nname = \"pkg\"\n\n[project.scripts]\npkg = \"pkg.cli:main\"\n",
		"py/src/pkg/cli.py":      "import click\n",
		"py/src/pkg/__main__.py": "from .cli import main\nmain()\n",
		"old/setup.cfg":          "[metadata]\nname = old\n\n[options.entry_points]\nconsole_scripts =\n    old-tool = old.main:run\n",
		"old/old/main.py":        "def run(): pass\n",
		"ghost/package.json":     `{"main":"missing.js"}`,
	}
	g := &model.Graph{Modules: []model.Module{{ID: "."}, {ID: "crates/app"}, {ID: "py"}, {ID: "old"}, {ID: "ghost"}}}
	for _, p := range sortedKeys(files) {
		kind := model.FileSource
		if strings.HasSuffix(p, ".json") || strings.HasSuffix(p, ".toml") || strings.HasSuffix(p, ".cfg") {
			kind = model.FileConfig
		}
		g.Files = append(g.Files, model.File{Path: p, Kind: kind})
	}
	for _, m := range []string{"package.json", "crates/app/Cargo.toml", "py/pyproject.toml", "old/setup.cfg", "ghost/package.json"} {
		g.Manifests = append(g.Manifests, model.Manifest{Path: m})
	}
	src := mapSource(files)
	obs, _ := Observe(context.Background(), g, src, Options{})
	EntryPoints(g, obs, src)
	checkConfidences(t, g)
	for _, w := range []struct {
		path, typ string
		conf      float64
	}{
		{"src/index.ts", "package-main", 0.99},
		{"src/index.ts", "package-export", 0.99},
		{"src/extra.ts", "package-export", 0.99},
		{"bin/cli.js", "package-bin", 0.99},
		{"src/server.ts", "application", 0.85},
		{"crates/app/src/main.rs", "package-bin", 0.99},
		{"crates/app/src/tool.rs", "package-bin", 0.99},
		{"crates/app/src/lib.rs", "library", 0.99},
		{"py/src/pkg/cli.py", "package-bin", 0.99},
		{"py/src/pkg/__main__.py", "cli", 0.9},
		{"old/old/main.py", "package-bin", 0.99},
	} {
		ep := findEntry(g, w.path, w.typ)
		if ep == nil || ep.Confidence != w.conf {
			t.Errorf("%s %s: %s", w.path, w.typ, dumpJSON(ep))
		}
	}
	// A declared file that is not in the tree (and has no source of its
	// name) is no entry point of the analysed revision.
	if ep := findEntry(g, "ghost/missing.js", "package-main"); ep != nil {
		t.Errorf("a missing file is listed: %s", dumpJSON(ep))
	}
	if ep := findEntry(g, "src/index.ts", "package-export"); ep != nil && len(ep.Evidence) > 4 {
		t.Errorf("evidence is bounded")
	}
	for _, ep := range g.EntryPoints {
		if strings.HasSuffix(ep.Path, ".d.ts") || strings.Contains(ep.Path, "*") {
			t.Errorf("types and patterns are not entry points: %s", ep.Path)
		}
	}
}

func TestObservationsUpdate(t *testing.T) {
	files := map[string]string{"a.ts": "import pg from 'pg';\n"}
	g := &model.Graph{Modules: []model.Module{{ID: "."}}, Files: []model.File{file("a.ts", ".", model.FileSource, ext("pg", 1))}}
	src := mapSource(files)
	obs, _ := Observe(context.Background(), g, src, Options{})
	if fo := obs.File("a.ts"); fo == nil || len(fo.Signals) != 1 || fo.Signals[0].Signal != sigDBAccess {
		t.Fatalf("observed %s", dumpJSON(fo))
	}
	g.Files[0].Imports = []model.Import{ext("express", 1)}
	files["a.ts"] = "import express from 'express';\nconst app = express();\napp.get('/x', h);\n"
	if err := obs.Update(context.Background(), g, src, Options{}, []string{"a.ts"}); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, h := range obs.File("a.ts").Signals {
		got = append(got, fmt.Sprintf("%s@%d", h.Signal, h.Line))
	}
	if strings.Join(got, " ") != "httpFramework@1 httpRoute@3" {
		t.Errorf("after the edit: %v", got)
	}
	g.Files = nil
	_ = obs.Update(context.Background(), g, src, Options{}, []string{"a.ts"})
	if obs.File("a.ts") != nil {
		t.Errorf("a removed file is forgotten")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	g.Files = []model.File{file("a.ts", ".", model.FileSource)}
	if _, err := Observe(ctx, g, src, Options{}); err == nil {
		t.Errorf("a cancelled observation reports it")
	}
}

func TestRunWithoutGit(t *testing.T) {
	g := &model.Graph{Modules: []model.Module{{ID: "."}}, Files: []model.File{file("main.go", ".", model.FileSource)}}
	src := mapSource(map[string]string{"main.go": "package main\n\nfunc main() {}\n"})
	if err := Run(context.Background(), g, src, nil, Options{}); err != nil {
		t.Fatal(err)
	}
	if g.Git != nil || g.Modules[0].Git != nil {
		t.Errorf("no history without a repository")
	}
	if findEntry(g, "main.go", "application") == nil {
		t.Errorf("entry points = %s", dumpJSON(g.EntryPoints))
	}
	if g.Cycles == nil || g.Violations == nil || g.Conventions == nil || g.Decisions == nil || g.EntryPoints == nil {
		t.Errorf("collections are empty, not null, in JSON")
	}
}

func TestHistoryBoundsAndModuleHistory(t *testing.T) {
	f := newFixture(t)
	for i, subject := range []string{"one", "migrate storage", "three"} {
		f.write(map[string]string{fmt.Sprintf("pkg/f%d.go", i): "package pkg\n"})
		f.commit(subject, "Ada Lovelace", day(2026, 2, 1+i))
	}
	h, err := ReadHistory(context.Background(), f.repo(), Options{Now: fixtureNow, MaxCommits: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Commits) != 2 || !h.Truncated || h.Commits[0].Subject != "three" {
		t.Errorf("bounded history = %d commits, truncated %v", len(h.Commits), h.Truncated)
	}
	old, _ := ReadHistory(context.Background(), f.repo(), Options{Now: fixtureNow.AddDate(1, 0, 0)})
	if len(old.Commits) != 0 {
		t.Errorf("a window that ended a year later is empty: %d", len(old.Commits))
	}
	h, _ = ReadHistory(context.Background(), f.repo(), Options{Now: fixtureNow})
	g := &model.Graph{Modules: []model.Module{{ID: "pkg"}}}
	entries, truncated := ModuleHistory(g, h, "pkg/", 2)
	if len(entries) != 2 || !truncated || entries[1].Subject != "migrate storage" || !entries[1].ArchitectureSignal || entries[0].ArchitectureSignal {
		t.Errorf("module history = %s", dumpJSON(entries))
	}
	if e, _ := ModuleHistory(g, h, "pkg/f0.go", 0); len(e) != 1 || e[0].Files[0] != "pkg/f0.go" {
		t.Errorf("file history = %s", dumpJSON(e))
	}
}

func TestClassify(t *testing.T) {
	for s, want := range map[string]idCase{
		"OrderService": casePascal, "orderService": caseCamel, "order-service": caseKebab, "order_service": caseSnake,
		"MAX_SIZE": caseScreaming, "order": caseLower, "Order": casePascal, "HTTPServer": casePascal, "Order_service": caseOther,
	} {
		if got := classify(s); got != want {
			t.Errorf("classify(%q) = %s, want %s", s, got, want)
		}
	}
}

func TestDecisionPathsMatchLikeTheKnowledgeStore(t *testing.T) {
	seed := []string{"db/migrations/001.sql", "internal/store/store.go"}
	never := func(string) bool { return false }
	for pattern, want := range map[string]string{
		"internal/store/**": "governs internal/store/** (internal/store/store.go)",
		"internal/store":    "governs internal/store (internal/store/store.go)", // a directory covers its files
		"./internal/store/": "governs internal/store/ (internal/store/store.go)",
		"*.sql":             "governs *.sql (db/migrations/001.sql)", // no slash: at any depth
		"internal/log/**":   "",
	} {
		if got := decisionTouch(model.Decision{Paths: []string{pattern}}, seed, never); got != want {
			t.Errorf("paths %q: %q, want %q", pattern, got, want)
		}
	}
}
