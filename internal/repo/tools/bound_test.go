package tools

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/kontext-dev/kontext/internal/repo/results"
)

// bigGoService is a Go service large enough that no answer of a repo tool
// fits the client's cap uncut, in either detail: 160 packages with long
// documentation, each importing ten others and a dozen of the 300
// modules go.mod requires; 120 ADRs; commits that touch every package.
func bigGoService(t *testing.T) string {
	dir := t.TempDir()
	f := newGitFixture(t, dir)
	var gomod strings.Builder
	gomod.WriteString("module example.com/acme/bigsvc\n\ngo 1.22\n\nrequire (\n")
	for i := range 300 {
		fmt.Fprintf(&gomod, "\tgithub.com/vendor%03d/library-with-a-long-name v1.%d.0\n", i, i)
	}
	gomod.WriteString(")\n")
	files := map[string]string{"go.mod": gomod.String(), "README.md": "# bigsvc\n\n## Architecture\n\nPackages talk through interfaces.\n"}
	pkg := func(i int) string { return fmt.Sprintf("internal/area%02d/component%03d", i%16, i) }
	for i := range 160 {
		var b strings.Builder
		fmt.Fprintf(&b, "// Package component%03d handles the part number %d of the service: %s.\npackage component%03d\n\nimport (\n", i, i, strings.Repeat("it validates, stores and forwards requests ", 4), i)
		for j := 1; j <= 10; j++ {
			fmt.Fprintf(&b, "\t_ %q\n", "example.com/acme/bigsvc/"+pkg((i+j*7)%160))
		}
		for j := range 12 {
			fmt.Fprintf(&b, "\t_ \"github.com/vendor%03d/library-with-a-long-name\"\n", (i*5+j)%300)
		}
		b.WriteString(")\n\n")
		for k := range 8 {
			fmt.Fprintf(&b, "// ErrComponentFailure%d is returned when it fails.\nvar ErrComponentFailure%d = errors.New(\"failure\")\n\nfunc ExportedFunctionNumber%d() error { return nil }\n\n", k, k, k)
		}
		files[pkg(i)+"/component.go"] = b.String()
		files[pkg(i)+"/component_test.go"] = fmt.Sprintf("package component%03d\n\nimport \"testing\"\n\nfunc TestIt(t *testing.T) {}\n", i)
		files[pkg(i)+"/handler.go"] = fmt.Sprintf("package component%03d\n\nimport \"net/http\"\n\nfunc Register(mux *http.ServeMux) {\n\tmux.HandleFunc(\"/api/component%03d\", nil)\n}\n", i, i)
	}
	for i := range 8 {
		files[fmt.Sprintf("cmd/tool%d/main.go", i)] = "package main\n\nimport _ \"example.com/acme/bigsvc/" + pkg(i) + "\"\n\nfunc main() {}\n"
	}
	for i := range 120 {
		files[fmt.Sprintf("docs/adr/%04d-decision-number-%d.md", i+1, i+1)] = fmt.Sprintf("# %d. %s\n\nStatus: Accepted\n\n## Context\n\n%s\n\n## Decision\n\n%s\n", i+1,
			strings.Repeat("A decision with a rather long title ", 3), strings.Repeat("The context of it. ", 20), strings.Repeat("What we decided. ", 20))
	}
	f.write(files)
	f.commit("Initial import of every component", "Ada Lovelace", 30)
	for c := range 12 {
		changed := map[string]string{}
		for i := c; i < 160; i += 3 {
			changed[pkg(i)+"/extra.go"] = fmt.Sprintf("package component%03d\n\n// Revision %d.\nfunc Extra%d() {}\n", i, c, c)
		}
		f.write(changed)
		f.commit(fmt.Sprintf("refactor: revision %d of a third of the components", c), []string{"Ada Lovelace", "Bob Builder", "Cy Young"}[c%3], 29-2*c)
	}
	return dir
}

// bigMonorepo is an npm workspaces monorepo of 40 packages with routes,
// many external packages and cross-package imports.
func bigMonorepo(t *testing.T) string {
	dir := t.TempDir()
	f := newGitFixture(t, dir)
	files := map[string]string{"package.json": `{"name":"mono","private":true,"workspaces":["packages/*"]}`}
	for i := range 40 {
		name := fmt.Sprintf("pkg%02d", i)
		var deps []string
		for j := range 15 {
			deps = append(deps, fmt.Sprintf(`"external-dependency-%03d":"^1.%d.0"`, (i*7+j)%200, j))
		}
		deps = append(deps, fmt.Sprintf(`"@mono/pkg%02d":"*"`, (i+1)%40))
		files["packages/"+name+"/package.json"] = fmt.Sprintf(`{"name":"@mono/%s","main":"./dist/index.js","exports":{".":{"import":"./dist/index.js"}},"dependencies":{%s}}`, name, strings.Join(deps, ","))
		for k := range 12 {
			files[fmt.Sprintf("packages/%s/src/feature%02d/index.ts", name, k)] = fmt.Sprintf("import express from 'express';\nimport { x } from '@mono/pkg%02d';\nimport dep from 'external-dependency-%03d';\n\nconst app = express();\napp.get('/%s/feature%02d', (q, r) => r.send(x));\nexport const feature%02d = dep;\n", (i+1)%40, (i+k)%200, name, k, k)
		}
		files["packages/"+name+"/src/index.ts"] = "export * from './feature00';\nexport const x = 1;\n"
	}
	f.write(files)
	f.commit("Initial import", "Ada Lovelace", 10)
	return dir
}

// boundCalls are the calls that make each tool's answer as large as its
// parameters allow.
func boundCalls(central, base string) map[string]map[string]any {
	return map[string]map[string]any{
		"get_repository_context": {"maxModules": 100, "maxEntryPoints": 200, "maxExternalDependencies": 200, "maxConventions": 200, "maxDecisions": 200, "maxCycles": 200},
		"get_context_for_task":   {"task": "read and parse the request headers, then validate, store and forward the response", "maxModules": 12, "target": central},
		"get_change_impact":      {"target": central, "maxFiles": 500},
		"explain_module":         {"path": central},
		"get_dependencies":       {},
		"get_dependents":         {"module": central},
		"search_context":         {"query": "read file error test component request", "limit": 100},
		"get_architecture":       {},
		"get_conventions":        {},
		"get_decisions":          {},
		"get_module_history":     {"target": ".", "limit": 200},
		"get_revision_diff":      {"revision": "HEAD", "base": base},
		"get_revision_snapshot":  {"revision": "HEAD"},
	}
}

// heuristic are the tools whose answers hold heuristics (and so evidence).
var heuristic = map[string]bool{"get_context_for_task": true, "get_repository_context": true, "explain_module": true,
	"get_dependencies": true, "get_architecture": true, "get_conventions": true, "get_decisions": true}

// checkBound calls every tool in both details and checks the contract:
// under the client's cap, compact without evidence, full with it, every
// cut said with its counts and how to narrow, the external dependencies
// of the repository context within a fifth of it. It returns the sizes.
func checkBound(t *testing.T, s *session, central, base string) map[string][2]int {
	sizes := map[string][2]int{}
	for name, args := range boundCalls(central, base) {
		var pair [2]int
		for i, detail := range []string{"compact", "full"} {
			in := map[string]any{"detail": detail}
			for k, v := range args {
				in[k] = v
			}
			raw := s.ok(name, in, nil)
			pair[i] = len(raw)
			if len(raw) > AnswerCap {
				t.Errorf("%s %s: %d characters, over the cap of %d", name, detail, len(raw), AnswerCap)
			}
			var v map[string]any
			json.Unmarshal(raw, &v)
			if n := countKey(v, "evidence"); detail == "compact" && n > 0 {
				t.Errorf("%s compact: %d evidence lists", name, n)
			} else if detail == "full" && heuristic[name] && n == 0 && countKey(v, "confidence") > 0 {
				t.Errorf("%s full: heuristics without evidence", name)
			}
			var cuts struct {
				Truncated []results.Truncation `json:"truncated"`
			}
			json.Unmarshal(raw, &cuts)
			for _, c := range cuts.Truncated {
				if c.Field == "" || c.Narrow == "" || c.Kept < 0 || (c.Total > 0 && c.Kept > c.Total) {
					t.Errorf("%s %s: cut %+v lacks its field, counts or how to narrow", name, detail, c)
				}
			}
			if name == "get_repository_context" {
				ext, _ := json.Marshal(v["externalDependencies"])
				if share := float64(len(ext)) / float64(len(raw)); share > externalShare+0.005 {
					t.Errorf("%s %s: the external dependencies take %.0f%% of the answer", name, detail, 100*share)
				}
				if _, ok := v["externalCounts"]; !ok {
					t.Errorf("%s %s: no externalCounts", name, detail)
				}
			}
		}
		sizes[name] = pair
	}
	return sizes
}

func logSizes(t *testing.T, sizes map[string][2]int) {
	names := make([]string, 0, len(sizes))
	for n := range sizes {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		t.Logf("%-24s compact %6d  full %6d", n, sizes[n][0], sizes[n][1])
	}
}

// TestEveryAnswerUnderTheCap holds every tool, in both details, under the
// 25,000 characters of a client's output cap on fixture repositories made
// to exceed it, and on the real repositories KONTEXT_REAL_REPOS lists
// (comma-separated directories; central module after a colon, e.g.
// /src/prometheus:tsdb).
func TestEveryAnswerUnderTheCap(t *testing.T) {
	if testing.Short() {
		t.Skip("builds large fixture repositories")
	}
	t.Run("go-service", func(t *testing.T) {
		dir := bigGoService(t)
		s := serveRepo(t, dir)
		sizes := checkBound(t, s, "internal/area00/component000", "HEAD~12")
		logSizes(t, sizes)
		// The fixture is made to be cut: a bound that cut nothing would
		// test nothing.
		for _, n := range []string{"get_repository_context", "get_dependencies", "get_architecture", "get_decisions"} {
			if sizes[n][0] < AnswerCap*3/4 {
				t.Errorf("%s compact is %d characters: the fixture no longer exceeds the cap", n, sizes[n][0])
			}
		}
		var rc results.RepositoryContext
		s.ok("get_repository_context", nil, &rc)
		if len(rc.Modules) < 20 {
			t.Errorf("the repository context names %d modules, want the 25 asked for or close", len(rc.Modules))
		}
		if rc.ExternalCounts.Total < 300 || len(rc.External) >= rc.ExternalCounts.Total {
			t.Errorf("external: %d listed, counts %+v", len(rc.External), rc.ExternalCounts)
		}
	})
	t.Run("npm-monorepo", func(t *testing.T) {
		dir := bigMonorepo(t)
		s := serveRepo(t, dir)
		logSizes(t, checkBound(t, s, "packages/pkg00", "HEAD"))
	})
	t.Run("layered", func(t *testing.T) {
		s, shas := layered(t)
		logSizes(t, checkBound(t, s, "src/domain", shas[0]))
	})
	for _, spec := range strings.Split(os.Getenv("KONTEXT_REAL_REPOS"), ",") {
		if spec = strings.TrimSpace(spec); spec == "" {
			continue
		}
		dir, central, _ := strings.Cut(spec, ":")
		if central == "" {
			central = "."
		}
		t.Run(filepath.Base(dir), func(t *testing.T) {
			s := serveRepo(t, dir)
			logSizes(t, checkBound(t, s, central, "HEAD~20"))
		})
	}
}
