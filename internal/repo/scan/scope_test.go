package scan

import (
	"slices"
	"strings"
	"testing"

	"github.com/kontext-dev/kontext/internal/repo/model"
)

// In Go only _test.go files are tests: a package under tests/, test/,
// e2e/ or fixtures/ is code whose imports are production edges, and an
// edge made only by _test.go files is a test edge that DependsOn and
// UsedBy leave out and TestedBy lists.
func TestGoTestsAreTestFilesOnly(t *testing.T) {
	g := scanFixture(t, map[string]string{
		"go.mod":                         "module example.com/svc\n\ngo 1.22\n",
		"core/core.go":                   "package core\n\nfunc Run() {}\n",
		"api/api.go":                     "package api\n\nimport \"example.com/svc/core\"\n\nfunc Serve() { core.Run() }\n",
		"api/api_test.go":                "package api\n\nimport (\n\t\"testing\"\n\n\t\"example.com/svc/testutil\"\n)\n\nfunc TestServe(t *testing.T) { testutil.Fake() }\n",
		"testutil/testutil.go":           "package testutil\n\nimport \"example.com/svc/core\"\n\nfunc Fake() { core.Run() }\n",
		"tests/integration/helpers.go":   "package integration\n\nimport \"example.com/svc/api\"\n\nfunc Boot() { api.Serve() }\n",
		"tests/integration/flow_test.go": "package integration\n\nimport (\n\t\"testing\"\n\n\t\"example.com/svc/core\"\n)\n\nfunc TestFlow(t *testing.T) { core.Run() }\n",
		"e2e/e2e.go":                     "package e2e\n\nimport \"example.com/svc/core\"\n\nvar _ = core.Run\n",
		"fixtures/gen/gen.go":            "package gen\n\nimport \"example.com/svc/core\"\n\nvar _ = core.Run\n",
	})
	for _, p := range []string{"tests/integration/helpers.go", "e2e/e2e.go", "fixtures/gen/gen.go", "testutil/testutil.go"} {
		if k := file(t, g, p).Kind; k != model.FileSource {
			t.Errorf("%s is %s, want source: in Go only _test.go files are tests", p, k)
		}
	}
	for _, p := range []string{"api/api_test.go", "tests/integration/flow_test.go"} {
		if k := file(t, g, p).Kind; k != model.FileTest {
			t.Errorf("%s is %s, want test", p, k)
		}
	}
	if d := edge(t, g, "tests/integration", "api"); d.Scope != model.ScopeProduction {
		t.Errorf("tests/integration → api is %q: helpers.go is production code", d.Scope)
	}
	// flow_test.go imports core, helpers.go does not: a test edge.
	if d := edge(t, g, "tests/integration", "core"); d.Scope != model.ScopeTest || d.Imports != 1 {
		t.Errorf("tests/integration → core: %+v, want a test edge of 1 import", d)
	}
	if d := edge(t, g, "api", "testutil"); d.Scope != model.ScopeTest {
		t.Errorf("api → testutil is %q, want test", d.Scope)
	}
	edge(t, g, "e2e", "core")
	edge(t, g, "fixtures/gen", "core")
	for _, d := range g.Dependencies {
		if d.Scope != model.ScopeProduction && d.Scope != model.ScopeTest {
			t.Errorf("%s → %s has scope %q", d.From, d.To, d.Scope)
		}
	}
	api := module(t, g, "api")
	if slices.Contains(api.DependsOn, "testutil") || !slices.Contains(api.DependsOn, "core") {
		t.Errorf("api depends on %v: production edges only", api.DependsOn)
	}
	tu := module(t, g, "testutil")
	if len(tu.UsedBy) != 0 || strings.Join(tu.TestedBy, ",") != "api" {
		t.Errorf("testutil used by %v, tested by %v; want tested by api only", tu.UsedBy, tu.TestedBy)
	}
	core := module(t, g, "core")
	if strings.Join(core.UsedBy, ",") != "api,e2e,fixtures/gen,testutil" {
		t.Errorf("core used by %v", core.UsedBy)
	}
	// An edge production code makes stays production when tests add to it.
	if slices.Contains(core.TestedBy, "tests/integration") == slices.Contains(core.UsedBy, "tests/integration") {
		t.Errorf("tests/integration must be in exactly one of used by %v / tested by %v", core.UsedBy, core.TestedBy)
	}
}

// A whole Go module named tests in a multi-module repository keeps its
// edges: its packages are code, not tests.
func TestGoTestsModuleKeepsItsEdges(t *testing.T) {
	g := scanFixture(t, map[string]string{
		"go.mod":                   "module example.com/app\n\ngo 1.22\n",
		"server/server.go":         "package server\n\nfunc Start() {}\n",
		"tests/go.mod":             "module example.com/app/tests\n\ngo 1.22\n\nrequire example.com/app v0.0.0\n\nreplace example.com/app => ../\n",
		"tests/harness/harness.go": "package harness\n\nimport \"example.com/app/server\"\n\nfunc Up() { server.Start() }\n",
		"tests/suite/suite.go":     "package suite\n\nimport \"example.com/app/tests/harness\"\n\nfunc Run() { harness.Up() }\n",
	})
	if d := edge(t, g, "tests/harness", "server"); d.Scope != model.ScopeProduction || d.Kind != model.ImportWorkspacePackage {
		t.Errorf("tests/harness → server: %+v", d)
	}
	if d := edge(t, g, "tests/suite", "tests/harness"); d.Scope != model.ScopeProduction {
		t.Errorf("tests/suite → tests/harness: %+v", d)
	}
	wantImport(t, g, "tests/harness/harness.go", "example.com/app/server", model.ImportWorkspacePackage, "server")
}

// Test files by the rules of each language.
func TestTestClassificationPerLanguage(t *testing.T) {
	cases := []struct {
		path, lang string
		test       bool
	}{
		{"tests/integration/helpers.go", "Go", false},
		{"e2e/run.go", "Go", false},
		{"fixtures/x.go", "Go", false},
		{"pkg/x_test.go", "Go", true},
		{"pkg/testdata/x.go", "Go", true},
		{"src/a.test.ts", "TypeScript", true},
		{"src/a.spec.tsx", "TSX", true},
		{"src/__tests__/a.ts", "TypeScript", true},
		{"cypress/e2e/login.cy.ts", "TypeScript", true},
		{"tests/helpers/setup.ts", "TypeScript", false},
		{"src/contest.ts", "TypeScript", false},
		{"pkg/test_io.py", "Python", true},
		{"pkg/io_test.py", "Python", true},
		{"conftest.py", "Python", true},
		{"tests/helpers.py", "Python", true},
		{"pkg/tests/__init__.py", "Python", true},
		{"pkg/testing.py", "Python", false},
		{"pkg/contest.py", "Python", false},
		{"tests/cli.rs", "Rust", true},
		{"crates/core/tests/it/main.rs", "Rust", true},
		{"tests/src/lib.rs", "Rust", false}, // a workspace crate named tests
		{"src/parser/tests.rs", "Rust", true},
		{"src/parser_tests.rs", "Rust", true},
		{"src/testing.rs", "Rust", false},
		{"lib/src/main/java/a/FooTest.java", "Java", false}, // the main source set decides
		{"lib/src/test/java/a/Foo.java", "Java", true},
		{"lib/src/testFixtures/java/a/Fake.java", "Java", true},
		{"lib/src/integrationTest/kotlin/a/It.kt", "Kotlin", true},
		{"lib/src/jvmTest/kotlin/a/It.kt", "Kotlin", true},
		{"lib/src/commonMain/kotlin/a/A.kt", "Kotlin", false},
		{"lib/src/main/java/com/x/src/test/Gen.java", "Java", false},
		{"test/com/x/FooTest.java", "Java", true},
		{"spec/models/user_spec.rb", "Ruby", true},
	}
	for _, c := range cases {
		if got := isTestPath(c.path, c.lang); got != c.test {
			t.Errorf("isTestPath(%q, %s) = %v, want %v", c.path, c.lang, got, c.test)
		}
	}
}

// Rust: imports inside #[cfg(test)] code of a library file are test
// imports; a #![cfg(test)] file is a test file; mod declarations with
// their #[path] are recorded.
func TestRustTestCodeAndModDeclarations(t *testing.T) {
	src := `//! The parser.
#![allow(dead_code)]
use crate::lexer::Token;

#[path = "gen/tables.rs"]
mod tables;
pub mod ast;
#[cfg(test)]
mod snapshots;

pub fn parse() {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::load;
}
`
	var f model.File
	f.Kind = model.FileSource
	parseRust([]byte(src), &f)
	got := map[string]bool{}
	for _, imp := range f.Imports {
		got[imp.Spec] = imp.Test
	}
	if test, ok := got["crate::lexer::Token"]; !ok || test {
		t.Errorf("crate::lexer::Token: present %v, test %v; want a production import", ok, test)
	}
	if !got["crate::fixtures::load"] || !got["super"] {
		t.Errorf("imports in #[cfg(test)] mod tests must be test imports: %+v", f.Imports)
	}
	want := []model.Submodule{{Name: "tables", Path: "gen/tables.rs", Line: 6}, {Name: "ast", Line: 7}, {Name: "snapshots", Line: 9, Test: true}}
	if !slices.Equal(f.Submodules, want) {
		t.Errorf("submodules %+v, want %+v", f.Submodules, want)
	}
	if f.Kind != model.FileSource {
		t.Errorf("kind %s", f.Kind)
	}
	var whole model.File
	whole.Kind = model.FileSource
	parseRust([]byte("#![cfg(test)]\nuse super::*;\n"), &whole)
	if whole.Kind != model.FileTest {
		t.Errorf("a #![cfg(test)] file is a test file, got %s", whole.Kind)
	}
}

// A go.mod requirement on another module of the repository is no edge
// from the requiring module's root package: Go's edges are its imports
// (etcd's server/go.mod requires client/v3, which the package at server/
// does not import).
func TestGoModRequirementIsNoPackageEdge(t *testing.T) {
	g := scanFixture(t, map[string]string{
		"client/go.mod":     "module example.com/client\n\ngo 1.22\n",
		"client/client.go":  "package client\n\nfunc Dial() {}\n",
		"server/go.mod":     "module example.com/server\n\ngo 1.22\n\nrequire example.com/client v0.0.0\n\nreplace example.com/client => ../client\n",
		"server/doc.go":     "// Package server serves.\npackage server\n",
		"server/api/api.go": "package api\n\nimport \"example.com/client\"\n\nfunc Up() { client.Dial() }\n",
	})
	noEdge(t, g, "server", "client")
	if d := edge(t, g, "server/api", "client"); d.Kind != model.ImportWorkspacePackage {
		t.Errorf("server/api → client %+v", d)
	}
}
