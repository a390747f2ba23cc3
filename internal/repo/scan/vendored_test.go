package scan

import (
	"slices"
	"strings"
	"testing"

	"github.com/kontext-dev/kontext/internal/repo/model"
)

// A Go service that vendors its dependencies (vendor/modules.txt) and
// keeps forks in third_party/: the vendored code is in no module and no
// edge, and an import resolved into it is a use of the external module,
// with its version from go.mod and modules.txt.
func TestVendoredGoService(t *testing.T) {
	g := scanFixture(t, map[string]string{
		"go.mod": "module example.com/svc\n\ngo 1.22\n\nrequire (\n\tgithub.com/pkg/errors v0.9.1\n\tgolang.org/x/sync v0.7.0\n\tgithub.com/old/lib v1.0.0\n)\n\nreplace github.com/old/lib => ./third_party/lib\n",
		"vendor/modules.txt": "# github.com/pkg/errors v0.9.1\n## explicit\ngithub.com/pkg/errors\n# golang.org/x/sync v0.7.0\n## explicit; go 1.18\ngolang.org/x/sync/errgroup\n" +
			"# github.com/old/lib v1.0.0 => ./third_party/lib\n## explicit\ngithub.com/old/lib\n",
		"vendor/github.com/pkg/errors/errors.go":        "package errors\n\nimport \"fmt\"\n\nfunc New(s string) error { return fmt.Errorf(\"%s\", s) }\n",
		"vendor/github.com/pkg/errors/stack.go":         "package errors\n\nimport \"runtime\"\n\nvar _ = runtime.Caller\n",
		"vendor/golang.org/x/sync/errgroup/errgroup.go": "package errgroup\n\nimport (\n\t\"context\"\n\n\t\"github.com/pkg/errors\"\n)\n\nvar _ = context.Background\nvar _ = errors.New\n",
		"vendor/golang.org/x/sync/LICENSE":              "BSD\n",
		"third_party/lib/go.mod":                        "module github.com/old/lib\n\ngo 1.20\n",
		"third_party/lib/lib.go":                        "package lib\n\nfunc Old() {}\n",
		"main.go":                                       "package main\n\nimport (\n\t\"github.com/old/lib\"\n\t\"github.com/pkg/errors\"\n\t\"golang.org/x/sync/errgroup\"\n\n\t\"example.com/svc/internal/app\"\n)\n\nfunc main() { _ = errors.New(\"x\"); var g errgroup.Group; _ = g; app.Run(); lib.Old() }\n",
		"internal/app/app.go":                           "package app\n\nimport \"github.com/pkg/errors\"\n\nfunc Run() { _ = errors.New(\"run\") }\n",
		"web/package.json":                              `{"name": "web", "version": "1.0.0"}`,
		"web/app.js":                                    "import { tiny } from '../third_party/js/tiny/index.js';\nimport { pad } from '../vendor/leftpad.js';\ntiny(pad);\n",
		"third_party/js/tiny/package.json":              `{"name": "tiny-lib", "version": "1.2.3"}`,
		"third_party/js/tiny/index.js":                  "export function tiny() {}\n",
		"vendor/leftpad.js":                             "export function pad() {}\n",
		".gitattributes":                                "generated/** linguist-vendored\n",
		"generated/client/client.go":                    "package client\n\nfunc Call() {}\n",
	})
	if strings.Join(g.Vendored, ",") != "generated,third_party,vendor" {
		t.Errorf("vendored trees %v", g.Vendored)
	}
	for _, m := range g.Modules {
		for _, v := range []string{"vendor", "third_party", "generated"} {
			if m.ID == v || strings.HasPrefix(m.ID, v+"/") {
				t.Errorf("module %s is vendored code", m.ID)
			}
		}
	}
	for _, d := range g.Dependencies {
		if strings.HasPrefix(d.To, "vendor") || strings.HasPrefix(d.To, "third_party") || strings.HasPrefix(d.From, "vendor") {
			t.Errorf("edge %s → %s into or out of vendored code", d.From, d.To)
		}
	}
	if m := file(t, g, "vendor/github.com/pkg/errors/errors.go").Module; m != "" {
		t.Errorf("a vendored file belongs to module %q", m)
	}
	wantImport(t, g, "main.go", "github.com/pkg/errors", model.ImportExternal, "github.com/pkg/errors")
	wantImport(t, g, "main.go", "golang.org/x/sync/errgroup", model.ImportExternal, "golang.org/x/sync")
	wantImport(t, g, "main.go", "github.com/old/lib", model.ImportExternal, "github.com/old/lib")
	wantImport(t, g, "main.go", "example.com/svc/internal/app", model.ImportInternalModule, "internal/app")
	wantImport(t, g, "web/app.js", "../third_party/js/tiny/index.js", model.ImportExternal, "tiny-lib")
	wantImport(t, g, "web/app.js", "../vendor/leftpad.js", model.ImportExternal, "leftpad")
	errs := external(t, g, "go", "github.com/pkg/errors")
	if errs.Version != "v0.9.1" || strings.Join(errs.UsedBy, ",") != ".,internal/app" {
		t.Errorf("github.com/pkg/errors: %+v", errs)
	}
	if x := external(t, g, "go", "golang.org/x/sync"); x.Version != "v0.7.0" || strings.Join(x.UsedBy, ",") != "." {
		t.Errorf("golang.org/x/sync: %+v", x)
	}
	if tiny := external(t, g, "npm", "tiny-lib"); tiny.Version != "1.2.3" || strings.Join(tiny.UsedBy, ",") != "web" || !slices.Contains(tiny.Manifests, "third_party/js/tiny/package.json") {
		t.Errorf("tiny-lib: %+v", tiny)
	}
	for _, e := range g.External {
		if e.Name == "context" || e.Name == "runtime" || e.Name == "fmt" {
			t.Errorf("a vendored package's own import %s is listed", e.Name)
		}
		for _, u := range e.UsedBy {
			if u == "" {
				t.Errorf("%s used by a module without id", e.Name)
			}
		}
	}
	for _, l := range g.Summary.Languages {
		if l.Language == "Go" && l.Files != 2 {
			t.Errorf("Go files %d: vendored code is not counted", l.Files)
		}
	}
}

// .gitattributes takes a tree back: `third_party/ours -linguist-vendored`
// is the project's own code.
func TestVendoredUnmarkedByGitattributes(t *testing.T) {
	g := scanFixture(t, map[string]string{
		"go.mod":                   "module example.com/m\n\ngo 1.22\n",
		".gitattributes":           "third_party/** -linguist-vendored\n",
		"third_party/ours/ours.go": "package ours\n\nfunc X() {}\n",
		"cmd/m/main.go":            "package main\n\nimport \"example.com/m/third_party/ours\"\n\nfunc main() { ours.X() }\n",
	})
	if len(g.Vendored) != 0 {
		t.Errorf("vendored %v", g.Vendored)
	}
	edge(t, g, "cmd/m", "third_party/ours")
}
