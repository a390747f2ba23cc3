package analyze

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kontext-dev/kontext/internal/repo/model"
)

// goFile is a Go file of package pkg importing imports (paths under
// example.com/acme/engine) with n functions, so that its size is n.
func goFile(pkg string, n int, imports ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "package %s\n\n", pkg)
	if len(imports) > 0 {
		b.WriteString("import (\n")
		for _, imp := range imports {
			fmt.Fprintf(&b, "\t_ %q\n", "example.com/acme/engine/"+imp)
		}
		b.WriteString(")\n\n")
	}
	if pkg == "main" {
		b.WriteString("func main() {}\n\n")
	}
	for i := range n {
		fmt.Fprintf(&b, "func F%d(x int) int {\n\treturn x + %d\n}\n\n", i, i)
	}
	return b.String()
}

// engineRepo is a Go server shaped like the large ones the issue measured:
// a query engine and a storage engine (big, depended upon, depending on
// much), a server, two commands, small helpers every package imports
// (the examples, fuzz corpus generator and test helpers too), and docs.
func engineRepo(t *testing.T) *model.Graph {
	f := newFixture(t)
	f.write(map[string]string{
		"go.mod":                  "module example.com/acme/engine\n\ngo 1.22\n",
		"README.md":               "# engine\n",
		"util/strutil/strutil.go": goFile("strutil", 3),
		"model/labels/labels.go":  goFile("labels", 20, "util/strutil"),
		"storage/storage.go":      goFile("storage", 400, "model/labels", "util/strutil"),
		"storage/head.go":         goFile("storage", 400, "model/labels"),
		"query/engine.go":         goFile("query", 400, "storage", "model/labels", "util/strutil"),
		"query/parser.go":         goFile("query", 300, "util/strutil"),
		"server/server.go":        goFile("server", 80, "query", "storage", "model/labels", "util/strutil"),
		"cmd/engine/main.go":      goFile("main", 40, "server", "query", "storage", "model/labels", "util/strutil"),
		"cmd/enginectl/main.go":   goFile("main", 30, "query", "util/strutil"),
		"examples/simple/main.go": goFile("main", 5, "query", "util/strutil"),
		"examples/other/main.go":  goFile("main", 5, "storage", "util/strutil"),
		"docs/snippets/main.go":   goFile("main", 2, "util/strutil"),
		"fuzz/corpus_gen/main.go": goFile("main", 2, "query", "util/strutil"),
		"internal/testutil/tu.go": goFile("testutil", 10, "storage", "util/strutil"),
		"scripts/release/main.go": goFile("main", 3, "util/strutil"),
		"query/engine_test.go":    "package query\n\nimport _ \"example.com/acme/engine/internal/testutil\"\n",
		"storage/storage_test.go": "package storage\n\nimport _ \"example.com/acme/engine/internal/testutil\"\n",
	})
	f.commit("init", "Ada", time.Date(2024, 3, 1, 10, 0, 0, 0, time.UTC))
	f.write(map[string]string{"query/engine.go": goFile("query", 401, "storage", "model/labels", "util/strutil")})
	f.commit("query: one more", "Bob", time.Date(2024, 3, 2, 10, 0, 0, 0, time.UTC))
	return scanned(t, f)
}

func TestRankModulesNamesTheCore(t *testing.T) {
	g := engineRepo(t)
	var ranked []string
	for _, m := range RankModules(g) {
		ranked = append(ranked, m.ID)
	}
	pos := func(id string) int {
		i := slices.Index(ranked, id)
		if i < 0 {
			t.Fatalf("no module %s in %v", id, ranked)
		}
		return i
	}
	// The query and storage engines lead: big, depended upon, depending
	// on much. The helper every package imports is not the core.
	if top := ranked[:2]; !slices.Contains(top, "query") || !slices.Contains(top, "storage") {
		t.Errorf("the engines should lead: %v", ranked)
	}
	if pos("util/strutil") < pos("query") || pos("util/strutil") < pos("storage") {
		t.Errorf("a tiny helper outranks the engines: %v", ranked)
	}
	// The project's binary is named among the first half.
	if pos("cmd/engine") >= len(ranked)/2 {
		t.Errorf("cmd/engine ranks %d of %d: %v", pos("cmd/engine"), len(ranked), ranked)
	}
	// The periphery comes after every module of the project's own code.
	lastCore := 0
	for _, id := range []string{"query", "storage", "server", "model/labels", "util/strutil", "cmd/engine", "cmd/enginectl"} {
		lastCore = max(lastCore, pos(id))
	}
	for _, id := range []string{"examples/simple", "examples/other", "docs/snippets", "fuzz/corpus_gen", "internal/testutil", "scripts/release"} {
		if pos(id) < lastCore {
			t.Errorf("periphery %s (rank %d) before the project's code (last at %d): %v", id, pos(id), lastCore, ranked)
		}
	}
	// MoreImportant is the same order, pair by pair.
	mods := RankModules(g)
	for i := 1; i < len(mods); i++ {
		if MoreImportant(mods[i], mods[i-1]) {
			t.Errorf("MoreImportant disagrees with RankModules at %s, %s", mods[i-1].ID, mods[i].ID)
		}
	}
}

func TestRankEntryPoints(t *testing.T) {
	g := engineRepo(t)
	var order []string
	for _, ep := range RankEntryPoints(g, g.EntryPoints) {
		order = append(order, ep.Path+" "+ep.Type)
	}
	if len(order) == 0 || !strings.HasPrefix(order[0], "cmd/engine/main.go ") {
		t.Fatalf("the project's binary should come first: %v", order)
	}
	pos := func(p string) int {
		for i, o := range order {
			if strings.HasPrefix(o, p+" ") {
				return i
			}
		}
		t.Fatalf("no entry point %s in %v", p, order)
		return -1
	}
	for _, p := range []string{"examples/simple/main.go", "docs/snippets/main.go", "fuzz/corpus_gen/main.go", "scripts/release/main.go"} {
		if pos(p) < pos("cmd/enginectl/main.go") {
			t.Errorf("%s before the project's other command: %v", p, order)
		}
	}
	if last := order[len(order)-1]; !strings.HasSuffix(last, " test") {
		t.Errorf("tests come last: %v", order)
	}
}

func TestPeripheryOf(t *testing.T) {
	for p, want := range map[string]Periphery{
		"cmd/engine/main.go":                          Core,
		"internal/server":                             Core,
		"src/latest/x.go":                             Core,
		"testing":                                     TestSupport,
		"net/http/httptest":                           TestSupport,
		"promql/promqltest":                           TestSupport,
		"okhttp-testing-support/src/main/kotlin":      TestSupport,
		"okhttp/src/jvmTest/kotlin/okhttp3/X.kt":      TestSupport,
		"api/testing.go":                              TestSupport,
		"api/client_mock.go":                          TestSupport,
		"web/src/__mocks__/server.ts":                 TestSupport,
		"tests/conftest.py":                           TestSupport,
		"examples/simple/main.go":                     Example,
		"_examples/x":                                 Example,
		"samples/guide/src/main/java/GetExample.java": Example,
		"docs/examples/x":                             Docs,
		"documentation/examples/remote_storage":       Docs,
		"fuzz/fuzz_targets/fuzz_glob.rs":              Fuzz,
		"util/fuzzing/corpus_gen/main.go":             Fuzz,
		"benches/search.rs":                           Benchmark,
		"build.rs":                                    Tooling,
		"buildSrc/src/main/kotlin/Gen.kt":             Tooling,
		"scripts/release.py":                          Tooling,
		"internal/tools":                              Tooling,
		".github/workflows/ci.yml":                    Tooling,
	} {
		if got := PeripheryOf(p); got != want {
			t.Errorf("PeripheryOf(%q) = %q, want %q", p, got, want)
		}
	}
}

// In a monorepo whose root package.json is private tooling, the project's
// own entries are what its workspace packages declare: they come before
// the apps of examples and integration tests.
func TestRankEntryPointsOfAMonorepo(t *testing.T) {
	f := newFixture(t)
	f.write(map[string]string{
		"package.json":                       `{"name":"root","private":true,"workspaces":["packages/*","integrations/*"]}`,
		"packages/core/package.json":         `{"name":"@acme/core","main":"./build/legacy/index.cjs","exports":{".":{"import":"./build/modern/index.js"}}}`,
		"packages/core/src/index.ts":         "export * from './client';\n",
		"packages/core/src/client.ts":        "export class Client {}\n",
		"packages/react/package.json":        `{"name":"@acme/react","main":"./build/index.js","dependencies":{"@acme/core":"*"}}`,
		"packages/react/src/index.ts":        "export * from './hooks';\n",
		"packages/react/src/hooks.ts":        "import { Client } from '@acme/core';\nexport const useClient = () => new Client();\n",
		"integrations/vite-app/package.json": `{"name":"vite-app","private":true,"scripts":{"dev":"vite"}}`,
		"integrations/vite-app/src/main.ts":  "import { useClient } from '@acme/react';\nuseClient();\n",
		"examples/react/basic/package.json":  `{"name":"basic","private":true}`,
		"examples/react/basic/src/main.tsx":  "import { useClient } from '@acme/react';\nuseClient();\n",
		"examples/react/basic/src/index.ts":  "import './main';\n",
		"packages/core/src/client.test.ts":   "import { Client } from './client';\n",
	})
	f.commit("init", "Ada", time.Date(2024, 3, 1, 10, 0, 0, 0, time.UTC))
	g := scanned(t, f)
	ranked := RankEntryPoints(g, g.EntryPoints)
	if len(ranked) < 3 {
		t.Fatalf("entry points %s", dumpJSON(g.EntryPoints))
	}
	for _, ep := range ranked[:2] {
		if !strings.HasPrefix(ep.Path, "packages/") || !strings.HasPrefix(ep.Type, "package-") {
			t.Errorf("the packages' mains come first: %s %s in %v", ep.Path, ep.Type, entryOrder(ranked))
		}
	}
	for i, ep := range ranked {
		if strings.HasPrefix(ep.Path, "examples/") {
			for _, later := range ranked[i:] {
				if strings.HasPrefix(later.Path, "packages/") && later.Type != "test" {
					t.Errorf("an example before the package entry %s: %v", later.Path, entryOrder(ranked))
				}
			}
		}
	}
}

func entryOrder(eps []model.EntryPoint) []string {
	var out []string
	for _, ep := range eps {
		out = append(out, ep.Path+" "+ep.Type)
	}
	return out
}

// What ranks committed files moves only with the module graph: churn and
// a few more lines leave StructuralImportance as it was, a doubling in
// size or a new importer move it.
func TestStructuralImportanceIgnoresCommitsAndEdits(t *testing.T) {
	m := &model.Module{ID: "pkg/config", Files: 3, Lines: 240, UsedBy: []string{"a", "b"}, Git: &model.ModuleGit{Changes: 4}}
	base := StructuralImportance(m)
	edited := *m
	edited.Lines += 7
	edited.Git = &model.ModuleGit{Changes: 400}
	if got := StructuralImportance(&edited); got != base {
		t.Errorf("churn and 7 more lines moved the structural score from %v to %v", base, got)
	}
	if Importance(&edited) == Importance(m) {
		t.Error("the live score ignores churn")
	}
	doubled := *m
	doubled.Lines = 2 * (m.Lines + 100)
	importer := *m
	importer.UsedBy = append([]string{"c"}, m.UsedBy...)
	if StructuralImportance(&doubled) <= base || StructuralImportance(&importer) <= base {
		t.Error("a doubling in size or a new importer left the structural score as it was")
	}
}
