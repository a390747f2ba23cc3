package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	spec "github.com/kontext-dev/kontext/gen/toolsets/repo"
	"github.com/kontext-dev/kontext/internal/fsroot"
	"github.com/kontext-dev/kontext/internal/repo"
	"github.com/kontext-dev/kontext/internal/repo/analyze"
	"github.com/kontext-dev/kontext/internal/repo/model"
	"github.com/kontext-dev/kontext/internal/repo/results"
)

func TestShapeLeavesTheAnalysisAlone(t *testing.T) {
	m := model.Module{ID: "a", Roles: []model.Role{{Role: "domain", Confidence: 0.6, Evidence: []model.Evidence{{File: "a/x.go", Detail: "named domain"}}}},
		DependsOn: make([]string, 4000), UsedBy: []string{}}
	for i := range m.DependsOn {
		m.DependsOn[i] = fmt.Sprintf("some/rather/long/module/path/number/%04d", i)
	}
	res := &results.ModuleExplanation{Module: m}
	out := shape(res, false, "")
	if len(out.Module.Roles[0].Evidence) != 0 || len(m.Roles[0].Evidence) != 1 {
		t.Errorf("compact evidence %v, original %v", out.Module.Roles[0].Evidence, m.Roles[0].Evidence)
	}
	if len(out.Module.DependsOn) >= 4000 || len(m.DependsOn) != 4000 || len(res.Module.DependsOn) != 4000 {
		t.Errorf("cut %d, original %d", len(out.Module.DependsOn), len(m.DependsOn))
	}
	if strings.Join(fields(out.Truncated), ",") != "module.dependsOn" {
		t.Errorf("truncated %v", out.Truncated)
	}
	if out.Module.DependsOn[0] != m.DependsOn[0] {
		t.Errorf("a cut list keeps its head")
	}
}

// fields are the names of the lists an answer says were cut.
func fields(ts []results.Truncation) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Field
	}
	return out
}

func TestShapeRequiredListsAreNeverNull(t *testing.T) {
	b, _ := json.Marshal(shape(&results.Dependents{}, false, ""))
	if string(b) != `{"schemaVersion":0,"module":"","direct":[],"transitive":[],"testedBy":[]}` {
		t.Errorf("%s", b)
	}
	b, _ = json.Marshal(shape(&results.RepositoryContext{Modules: []results.ModuleSummary{{ID: "x"}}}, true, ""))
	if !strings.Contains(string(b), `"roles":[],"dependsOn":[],"usedBy":[]`) || !strings.Contains(string(b), `"languages":[]`) {
		t.Errorf("%s", b)
	}
}

func TestShapeBudget(t *testing.T) {
	res := &results.TaskContext{Task: strings.Repeat("\x01", 4000)} // 6 characters each in JSON
	for i := range 1000 {
		m := results.ModuleSummary{ID: fmt.Sprintf("pkg/%d", i), Roles: []model.Role{{Role: "service", Confidence: 0.5,
			Evidence: []model.Evidence{{File: "f.go", Detail: strings.Repeat("e", 200)}}}}}
		for j := range 50 {
			m.UsedBy = append(m.UsedBy, fmt.Sprintf("pkg/%d", j))
		}
		res.Modules = append(res.Modules, m)
	}
	compact := shape(res, false, "")
	b, _ := json.Marshal(compact)
	if len(b) > CompactBudget || strings.Contains(string(b), "evidence") {
		t.Errorf("compact: %d characters", len(b))
	}
	// The echoed task competes with the lists: both are cut, neither emptied.
	if len(compact.Task) >= 4000 || len(compact.Modules) < 10 || len(compact.Modules) == 1000 {
		t.Errorf("compact: task of %d bytes, %d modules (truncated %v)", len(compact.Task), len(compact.Modules), compact.Truncated)
	}
	for _, want := range []string{"task", "modules"} {
		if !strings.Contains(strings.Join(fields(compact.Truncated), ","), want) {
			t.Errorf("truncated %v lacks %s", compact.Truncated, want)
		}
	}
	full := shape(res, true, "")
	b, _ = json.Marshal(full)
	if len(b) > FullBudget || len(full.Modules[0].Roles[0].Evidence) != 1 {
		t.Errorf("full: %d characters", len(b))
	}
	if len(res.Modules) != 1000 || len(res.Modules[0].UsedBy) != 50 || len(res.Task) != 4000 {
		t.Errorf("the input was changed")
	}
}

// TestCompactBudgetOnLargeRepositories runs every tool on the analysis of
// the Go standard library (about 10,000 files) and of this repository with
// the bounds at their largest: no compact answer exceeds the budget or
// holds evidence, and full answers stay within theirs.
func TestCompactBudgetOnLargeRepositories(t *testing.T) {
	if testing.Short() {
		t.Skip("analyses GOROOT/src")
	}
	goroot := filepath.Join(runtime.GOROOT(), "src")
	if _, err := os.Stat(filepath.Join(goroot, "go.mod")); err != nil {
		t.Skipf("no Go source tree at %s", goroot)
	}
	self, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	engine := repo.NewEngine(repo.Options{})
	defer engine.Close() // it watches every directory of GOROOT/src
	for _, dir := range []string{goroot, self} {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			snap, err := engine.Snapshot(context.Background(), dir)
			if err != nil {
				t.Fatal(err)
			}
			root, err := fsroot.Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			h := &Handlers{root: root, snapshot: func(context.Context, string) (*repo.Snapshot, error) { return snap, nil }}
			central := "."
			if len(snap.Graph.Modules) > 0 {
				best := &snap.Graph.Modules[0]
				for i := range snap.Graph.Modules {
					if analyze.MoreImportant(&snap.Graph.Modules[i], best) {
						best = &snap.Graph.Modules[i]
					}
				}
				central = best.ID
			}
			for _, detail := range []string{"compact", "full"} {
				checkBudget(t, h, detail, central, snap.Git != nil)
			}
		})
	}
}

func checkBudget(t *testing.T, h *Handlers, detail, central string, git bool) {
	ctx := context.Background()
	decode := func(in any, args string) {
		if err := json.Unmarshal([]byte(args), in); err != nil {
			t.Fatal(err)
		}
	}
	type call struct {
		name string
		run  func() (any, error)
	}
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	d := `"detail":` + q(detail)
	calls := []call{
		{"get_repository_context", func() (any, error) {
			in := new(spec.GetRepositoryContextInput)
			decode(in, `{"maxModules":100,"maxEntryPoints":200,"maxExternalDependencies":200,"maxConventions":200,"maxDecisions":200,"maxCycles":200,`+d+`}`)
			return h.GetRepositoryContext(ctx, in)
		}},
		{"get_context_for_task", func() (any, error) {
			in := new(spec.GetContextForTaskInput)
			decode(in, `{"task":"read and parse the request headers, then write the response and close the file","maxModules":12,"target":`+q(central)+`,`+d+`}`)
			return h.GetContextForTask(ctx, in)
		}},
		{"get_change_impact", func() (any, error) {
			in := new(spec.GetChangeImpactInput)
			decode(in, `{"target":`+q(central)+`,"maxFiles":500,`+d+`}`)
			return h.GetChangeImpact(ctx, in)
		}},
		{"explain_module", func() (any, error) {
			in := new(spec.ExplainModuleInput)
			decode(in, `{"path":`+q(central)+`,`+d+`}`)
			return h.ExplainModule(ctx, in)
		}},
		{"get_dependencies", func() (any, error) {
			in := new(spec.GetDependenciesInput)
			decode(in, `{`+d+`}`)
			return h.GetDependencies(ctx, in)
		}},
		{"get_dependents", func() (any, error) {
			in := new(spec.GetDependentsInput)
			decode(in, `{"module":`+q(central)+`,`+d+`}`)
			return h.GetDependents(ctx, in)
		}},
		{"search_context", func() (any, error) {
			in := new(spec.SearchContextInput)
			decode(in, `{"query":"read file error test","limit":100,`+d+`}`)
			return h.SearchContext(ctx, in)
		}},
		{"get_architecture", func() (any, error) {
			in := new(spec.GetArchitectureInput)
			decode(in, `{`+d+`}`)
			return h.GetArchitecture(ctx, in)
		}},
		{"get_conventions", func() (any, error) {
			in := new(spec.GetConventionsInput)
			decode(in, `{`+d+`}`)
			return h.GetConventions(ctx, in)
		}},
		{"get_decisions", func() (any, error) {
			in := new(spec.GetDecisionsInput)
			decode(in, `{`+d+`}`)
			return h.GetDecisions(ctx, in)
		}},
	}
	if git {
		calls = append(calls,
			call{"get_module_history", func() (any, error) {
				in := new(spec.GetModuleHistoryInput)
				decode(in, `{"target":".","limit":200,`+d+`}`)
				return h.GetModuleHistory(ctx, in)
			}},
			call{"get_revision_diff", func() (any, error) {
				in := new(spec.GetRevisionDiffInput)
				decode(in, `{"revision":"HEAD","base":"HEAD~3",`+d+`}`)
				return h.GetRevisionDiff(ctx, in)
			}},
			call{"get_revision_snapshot", func() (any, error) {
				in := new(spec.GetRevisionSnapshotInput)
				decode(in, `{"revision":"HEAD",`+d+`}`)
				return h.GetRevisionSnapshot(ctx, in)
			}},
		)
	}
	for _, c := range calls {
		start := time.Now()
		out, err := c.run()
		took := time.Since(start)
		if err != nil {
			t.Errorf("%s %s: %v", c.name, detail, err)
			continue
		}
		b, _ := json.Marshal(out)
		var v any
		json.Unmarshal(b, &v)
		switch detail {
		case "compact":
			if len(b) > CompactBudget {
				t.Errorf("%s compact: %d characters", c.name, len(b))
			}
			if n := countKey(v, "evidence"); n > 0 {
				t.Errorf("%s compact: %d evidence lists", c.name, n)
			}
		case "full":
			if len(b) > FullBudget {
				t.Errorf("%s full: %d characters", c.name, len(b))
			}
		}
		truncated, _ := v.(map[string]any)["truncated"]
		t.Logf("%s %s: %d characters in %v, truncated %v", c.name, detail, len(b), took.Round(time.Millisecond), truncated)
	}
}
