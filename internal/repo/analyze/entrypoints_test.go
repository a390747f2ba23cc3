package analyze

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/kontext-dev/kontext/internal/repo/model"
	"github.com/kontext-dev/kontext/internal/repo/scan"
)

// scanned analyses a fixture with the engine's real scan (not the
// stand-in): the import graph, file kinds and packages the heuristics see
// in production. The history window ends at HEAD's commit date.
func scanned(t *testing.T, f *fixture) *model.Graph {
	t.Helper()
	g, err := scan.Scan(context.Background(), f.dir, scan.Options{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if err := Run(context.Background(), g, f.source(), f.repo(), Options{Workers: 2}); err != nil {
		t.Fatal(err)
	}
	checkConfidences(t, g)
	return g
}

func entryTypes(g *model.Graph, p string) []string {
	var out []string
	for _, ep := range g.EntryPoints {
		if ep.Path == p {
			out = append(out, ep.Type)
		}
	}
	return out
}

// Routes, mains and __main__ guards come from code: what a docstring, a
// comment or a string literal says is none, and the evidence is the
// declaration's own line.
func TestEntryPointsFromCodeOnly(t *testing.T) {
	f := newFixture(t)
	f.write(map[string]string{
		"pyproject.toml": "[project]\nname = \"svc\"\n",
		// A docstring documents routes; only the decorator below is one.
		"svc/__init__.py": "",
		"svc/docs.py": `"""How to declare a route:

    @app.route("/users")
    def users(): ...

if __name__ == "__main__":
    run()
"""

def helper():
    return 1
`,
		"svc/views.py": `"""Views."""
from flask import Flask

app = Flask(__name__)

# @app.route("/commented")


@app.route("/orders")
def orders():
    return []
`,
		"svc/tool.py": "'''if __name__ == \"__main__\": in a docstring'''\nimport sys\n\n\nif __name__ == \"__main__\":\n    sys.exit(0)\n",
		// Rust: fn main in a string, a raw string and a doc comment; the
		// real main follows an attribute and a blank line.
		"Cargo.toml":          "[package]\nname = \"tool\"\nversion = \"0.1.0\"\n\n[[bin]]\nname = \"tool\"\npath = \"crates/core/main.rs\"\n",
		"crates/core/main.rs": "use tool::run;\n\nfn main() {\n    run();\n}\n",
		// A Rust string spans lines: the code in it is no code.
		"src/glue.rs":      "#[test]\nfn t() {\n    const CODE: &str = \"\\\nuse std::io;\n\nfn main() {\n}\n\";\n    check(CODE);\n}\n",
		"src/lib.rs":       "/// ```\n/// fn main() { tool::run() }\n/// ```\npub fn run() {}\n\npub const USAGE: &str = \"fn main() {}\";\npub const RAW: &str = r#\"\nfn main() {}\n\"#;\n",
		"src/gen.rs":       "pub fn template() -> &'static str {\n    \"fn main() { println!(\\\"hi\\\") }\"\n}\n",
		"examples/demo.rs": "use tool::run;\n\n#[allow(unused)]\n\nfn main() {\n    run();\n}\n",
		// Kotlin: the main after blank lines and a comment.
		"app/src/main/kotlin/app/Main.kt": "package app\n\n// fun main() in a comment\n\n\nfun main(args: Array<String>) {\n    val s = \"\"\"fun main() {}\"\"\"\n}\n",
		// Go: func main in a comment of a library package, and a command.
		"go.mod":           "module example.com/tool\n\ngo 1.22\n",
		"lib.go":           "// Package tool is a library.\n//\n//\tfunc main() {}\npackage tool\n\nfunc Run() {}\n",
		"cmd/tool/main.go": "package main\n\nimport \"example.com/tool\"\n\n// main runs the tool.\nfunc main() {\n\ttool.Run()\n}\n",
	})
	f.commit("init", "Ada", time.Date(2024, 3, 1, 10, 0, 0, 0, time.UTC))
	g := scanned(t, f)

	if ep := findEntry(g, "svc/docs.py", "http-routes"); ep != nil {
		t.Errorf("a route in a docstring: %s", dumpJSON(ep))
	}
	if typs := entryTypes(g, "svc/docs.py"); len(typs) != 0 {
		t.Errorf("a __main__ guard in a docstring made %v", typs)
	}
	if ep := findEntry(g, "svc/views.py", "http-routes"); ep == nil || ep.Evidence[0].Line != 9 {
		t.Errorf("the decorator on line 9: %s", dumpJSON(ep))
	}
	if ep := findEntry(g, "svc/tool.py", "application"); ep == nil || ep.Evidence[0].Line != 5 {
		t.Errorf("the __main__ guard on line 5: %s", dumpJSON(ep))
	}
	if typs := entryTypes(g, "crates/core/main.rs"); len(typs) != 1 || typs[0] != "package-bin" {
		t.Errorf("the [[bin]] target is the package's binary, once: %v", typs)
	}
	for _, p := range []string{"src/lib.rs", "src/gen.rs", "src/glue.rs"} {
		for _, typ := range entryTypes(g, p) {
			if typ != "library" {
				t.Errorf("%s: fn main in a string or comment made a %s entry", p, typ)
			}
		}
	}
	if ep := findEntry(g, "examples/demo.rs", "application"); ep == nil || ep.Evidence[0].Line != 5 {
		t.Errorf("Rust main on its declaration line 5: %s", dumpJSON(ep))
	}
	if ep := findEntry(g, "app/src/main/kotlin/app/Main.kt", "application"); ep == nil || ep.Evidence[0].Line != 6 {
		t.Errorf("Kotlin main on its declaration line 6: %s", dumpJSON(ep))
	}
	if ep := findEntry(g, "cmd/tool/main.go", "cli"); ep == nil || ep.Evidence[0].Line != 6 {
		t.Errorf("Go main on line 6: %s", dumpJSON(ep))
	}
	for _, typ := range entryTypes(g, "lib.go") {
		if typ != "library" {
			t.Errorf("lib.go: func main in a comment made a %s entry", typ)
		}
	}
}

// Test helpers and mocks register routes for the tests that use them:
// they are not how the program runs. Build scripts are build entries.
func TestTestHelpersAreNotRoutesAndBuildScriptsAreBuild(t *testing.T) {
	f := newFixture(t)
	route := func(pkg string) string {
		return "package " + pkg + "\n\nimport \"net/http\"\n\nfunc Register(mux *http.ServeMux) {\n\tmux.HandleFunc(\"/api/items\", nil)\n}\n"
	}
	f.write(map[string]string{
		"go.mod":                          "module example.com/svc\n\ngo 1.22\n",
		"api/routes.go":                   route("api"),
		"api/testing.go":                  route("api"),
		"api/client_mock.go":              route("api"),
		"internal/testutils/http.go":      route("testutils"),
		"internal/mocks/server.go":        route("mocks"),
		"web/src/__mocks__/server.ts":     "import express from 'express';\nconst app = express();\napp.get('/users', (q, r) => r.send([]));\n",
		"web/package.json":                `{"name":"web","main":"src/index.ts"}`,
		"web/src/index.ts":                "import express from 'express';\nconst app = express();\napp.get('/users', (q, r) => r.send([]));\nexport default app;\n",
		"Cargo.toml":                      "[package]\nname = \"native\"\nversion = \"0.1.0\"\n",
		"build.rs":                        "fn main() {\n    println!(\"cargo:rerun-if-changed=build.rs\");\n}\n",
		"src/main.rs":                     "fn main() {}\n",
		"py/setup.py":                     "from setuptools import setup\n\nif __name__ == \"__main__\":\n    setup(name=\"py\")\n",
		"py/py/__init__.py":               "",
		"buildSrc/src/main/kotlin/Gen.kt": "fun main() {\n    println(\"generate\")\n}\n",
	})
	f.commit("init", "Ada", time.Date(2024, 3, 1, 10, 0, 0, 0, time.UTC))
	g := scanned(t, f)

	if findEntry(g, "api/routes.go", "http-routes") == nil {
		t.Errorf("api/routes.go registers routes: %s", dumpJSON(g.EntryPoints))
	}
	if findEntry(g, "web/src/index.ts", "http-routes") == nil {
		t.Errorf("web/src/index.ts registers routes")
	}
	for _, p := range []string{"api/testing.go", "api/client_mock.go", "internal/testutils/http.go", "internal/mocks/server.go", "web/src/__mocks__/server.ts"} {
		for _, typ := range entryTypes(g, p) {
			if typ != "test" { // __mocks__ is a test directory of Jest's
				t.Errorf("test support %s is a %s entry point", p, typ)
			}
		}
	}
	for _, p := range []string{"build.rs", "py/setup.py", "buildSrc/src/main/kotlin/Gen.kt"} {
		if typs := entryTypes(g, p); len(typs) != 1 || typs[0] != "build" {
			t.Errorf("%s: %v, want [build]", p, typs)
		}
	}
	if findEntry(g, "src/main.rs", "package-bin") == nil {
		t.Errorf("src/main.rs is the package's binary")
	}
}

// Entry points are files of the analysed revision: a declared build
// output is its source when one is there, and nothing when none is. The
// project's own libraries are listed: a Go module's root package, a
// Python package of the src layout, a workspace package's exports, a Rust
// library.
func TestEntryPointsExistAndLibrariesAreListed(t *testing.T) {
	f := newFixture(t)
	f.write(map[string]string{
		"package.json":                 `{"name":"mono","private":true,"workspaces":["packages/*"]}`,
		"packages/core/package.json":   `{"name":"@mono/core","main":"./dist/index.js","bin":{"core":"./dist/bin.js"},"exports":{".":{"types":"./build/modern/index.d.ts","import":"./build/modern/index.js","require":"./build/legacy/index.cjs"}}}`,
		"packages/core/src/index.ts":   "export * from './core';\n",
		"packages/core/src/core.ts":    "export const core = 1;\n",
		"packages/ghost/package.json":  `{"name":"@mono/ghost","main":"dist/ghost.js","bin":"dist/cli.js"}`,
		"packages/ghost/src/other.ts":  "export const other = 1;\n",
		"go/go.mod":                    "module example.com/lib\n\ngo 1.22\n",
		"go/doc.go":                    "// Package lib does things.\npackage lib\n",
		"go/lib.go":                    "package lib\n\nfunc Do() {}\n",
		"go/lib_test.go":               "package lib\n",
		"go/internal/x/x.go":           "package x\n",
		"python/pyproject.toml":        "[project]\nname = \"mypkg\"\n\n[project.scripts]\nmypkg = \"mypkg.cli:main\"\n",
		"python/src/mypkg/__init__.py": "\"\"\"My package.\"\"\"\n",
		"python/src/mypkg/core.py":     "def f():\n    pass\n",
		"python/src/mypkg/app.py":      "import click\n\n\nclass App:\n    cli = click.Group()\n",
		"python/src/mypkg/sansio/s.py": "from click import Group\n",
		"python/tools/release.py":      "import argparse\n\nparser = argparse.ArgumentParser()\n",
		"python/src/mypkg/cli.py":      "import click\n\n\ndef main():\n    pass\n\n\nif __name__ == \"__main__\":\n    main()\n",
		"ui/package.json":              `{"name":"ui","dependencies":{"react":"18.0.0"}}`,
		"ui/src/Clock.tsx":             "import { useEffect } from 'react';\n\nexport function Clock() {\n  useEffect(() => { const t = setInterval(() => {}, 1000); return () => clearInterval(t); });\n  return <span />;\n}\n",
		"ui/src/poller.ts":             "export function poll() {\n  setInterval(() => fetch('/x'), 1000);\n}\n",
		"python/tests/__init__.py":     "",
		"python/tests/test_core.py":    "def test_f():\n    pass\n",
		"rust/Cargo.toml":              "[package]\nname = \"rlib\"\nversion = \"0.1.0\"\n\n[lib]\npath = \"lib/root.rs\"\n\n[[bin]]\nname = \"gone\"\npath = \"src/gone.rs\"\n",
		"rust/lib/root.rs":             "pub fn f() {}\n",
	})
	f.commit("init", "Ada", time.Date(2024, 3, 1, 10, 0, 0, 0, time.UTC))
	g := scanned(t, f)

	for _, ep := range g.EntryPoints {
		if !hasFile(g, ep.Path) {
			t.Errorf("entry point %s (%s) is not a file of the tree", ep.Path, ep.Type)
		}
		if strings.Contains(ep.Path, "dist/") || strings.Contains(ep.Path, "build/") {
			t.Errorf("a build output is listed: %s", ep.Path)
		}
	}
	for _, w := range []struct{ path, typ string }{
		{"packages/core/src/index.ts", "package-main"},
		{"packages/core/src/index.ts", "package-export"},
		{"go/doc.go", "library"},
		{"python/src/mypkg/__init__.py", "library"},
		{"rust/lib/root.rs", "library"},
	} {
		if findEntry(g, w.path, w.typ) == nil {
			t.Errorf("%s %s missing: %v", w.path, w.typ, entryTypes(g, w.path))
		}
	}
	// The manifest's word wins over the file's name: the index it
	// declares is no application for being called index.
	if typs := entryTypes(g, "packages/core/src/index.ts"); len(typs) != 2 {
		t.Errorf("packages/core/src/index.ts: %v, want package-main and package-export", typs)
	}
	if findEntry(g, "python/tests/__init__.py", "library") != nil {
		t.Errorf("a test package is no library")
	}
	// A package's module that imports click is the library's command-line
	// support, not a command (flask/app.py); a script beside it is one.
	for _, p := range []string{"python/src/mypkg/app.py", "python/src/mypkg/sansio/s.py"} {
		if typs := entryTypes(g, p); len(typs) != 0 {
			t.Errorf("%s, a package module importing click: %v", p, typs)
		}
	}
	if typs := entryTypes(g, "python/src/mypkg/cli.py"); len(typs) != 1 || typs[0] != "package-bin" {
		t.Errorf("a console script's module with a main guard is listed once: %v", typs)
	}
	// A component polling with setInterval is no worker; a module is.
	if typs := entryTypes(g, "ui/src/Clock.tsx"); len(typs) != 0 {
		t.Errorf("a React component is a %v entry", typs)
	}
	if findEntry(g, "ui/src/poller.ts", "worker") == nil {
		t.Errorf("a module that schedules work is a worker: %v", entryTypes(g, "ui/src/poller.ts"))
	}
	if findEntry(g, "python/tools/release.py", "cli") == nil {
		t.Errorf("a script using argparse is a command: %v", entryTypes(g, "python/tools/release.py"))
	}
	if typs := entryTypes(g, "go/internal/x/x.go"); len(typs) != 0 {
		t.Errorf("only the module's root package is its library: %v", typs)
	}
}

func hasFile(g *model.Graph, p string) bool {
	for i := range g.Files {
		if g.Files[i].Path == p {
			return true
		}
	}
	return false
}
