package tools

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/kontext-dev/kontext/internal/repo/analyze"
	"github.com/kontext-dev/kontext/internal/repo/model"
	"github.com/kontext-dev/kontext/internal/repo/results"
)

// A change travels through production code only. core is imported by a
// (imported by b) in production, and by the tests of x alone; y and z
// depend on x. Following test imports made y and z dependents of core
// (the measured 87 transitive dependents where the production closure
// is 48): they are not, and x's test is a test to run.
func TestImpactFollowsProductionEdges(t *testing.T) {
	f := newGitFixture(t, t.TempDir())
	files := map[string]string{
		"go.mod":       "module example.com/m\n\ngo 1.22\n",
		"core/core.go": "package core\n\nfunc Do() {}\n",
		"a/a.go":       "package a\n\nimport \"example.com/m/core\"\n\nfunc A() { core.Do() }\n",
		"b/b.go":       "package b\n\nimport \"example.com/m/a\"\n\nfunc B() { a.A() }\n",
		"x/x.go":       "package x\n\nfunc X() {}\n",
		"x/x_test.go":  "package x\n\nimport (\n\t\"testing\"\n\n\t\"example.com/m/core\"\n)\n\nfunc TestX(t *testing.T) { core.Do() }\n",
	}
	// A chain of packages on x: each one a dependent of x, none of core.
	prev := "x"
	for i := range 6 {
		name := fmt.Sprintf("y%d", i)
		files[name+"/"+name+".go"] = fmt.Sprintf("package %s\n\nimport \"example.com/m/%s\"\n\nvar V = 1\n\nvar _ = %s.%s\n", name, prev, prev, exported(prev))
		prev = name
	}
	f.write(files)
	f.commit("initial", "Ada Lovelace", 1)
	s := serveRepo(t, f.dir)

	var ci results.ChangeImpact
	s.ok("get_change_impact", map[string]any{"target": "core"}, &ci)
	if strings.Join(ci.DirectDependents, ",") != "a" || strings.Join(ci.TransitiveDependents, ",") != "b" {
		t.Errorf("dependents of core: direct %v, transitive %v; want [a] and [b]", ci.DirectDependents, ci.TransitiveDependents)
	}
	tests := ids(ci.Tests, func(f analyze.ImpactFile) string { return f.Path })
	if !slices.Contains(tests, "x/x_test.go") {
		t.Errorf("tests to run %v lack x/x_test.go", tests)
	}
	for _, f := range ci.Files {
		if !strings.HasPrefix(f.Path, "a/") && !strings.HasPrefix(f.Path, "b/") {
			t.Errorf("affected file %s: only a and b carry the change", f.Path)
		}
	}
	var fileImpact results.ChangeImpact
	s.ok("get_change_impact", map[string]any{"target": "core/core.go"}, &fileImpact)
	if strings.Join(fileImpact.DirectDependents, ",") != "a" || strings.Join(fileImpact.TransitiveDependents, ",") != "b" {
		t.Errorf("dependents of core/core.go: direct %v, transitive %v", fileImpact.DirectDependents, fileImpact.TransitiveDependents)
	}

	var dep results.Dependents
	s.ok("get_dependents", map[string]any{"module": "core"}, &dep)
	if froms := ids(dep.Direct, func(d model.Dependency) string { return d.From }); strings.Join(froms, ",") != "a" {
		t.Errorf("direct dependents %v, want [a]", froms)
	}
	if strings.Join(dep.Transitive, ",") != "b" {
		t.Errorf("transitive dependents %v, want [b]", dep.Transitive)
	}
	if tb := ids(dep.TestedBy, func(d model.Dependency) string { return d.From }); strings.Join(tb, ",") != "x" || dep.TestedBy[0].Scope != model.ScopeTest {
		t.Errorf("tested by %s, want x's test edge", mustJSON(dep.TestedBy))
	}
	var ofX results.Dependents
	s.ok("get_dependents", map[string]any{"module": "x"}, &ofX)
	if len(ofX.Transitive) != 5 {
		t.Errorf("x's transitive dependents %v: the chain y1…y5", ofX.Transitive)
	}
}

func exported(pkg string) string {
	if pkg == "x" {
		return "X"
	}
	return "V"
}
