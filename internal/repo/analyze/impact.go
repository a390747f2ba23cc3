package analyze

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/kontext-dev/kontext/internal/glob"
	"github.com/kontext-dev/kontext/internal/repo/model"
)

// DefaultImpactFiles is the file bound of Impact when none is given.
const DefaultImpactFiles = 100

const maxImpactModules = 200

// ErrUnknownTarget is returned by Impact for a target that is no file,
// directory or module of the graph.
var ErrUnknownTarget = errors.New("no file, directory or module by that name")

// ImpactResult is what a change to a target would likely affect.
type ImpactResult struct {
	SchemaVersion int    `json:"schemaVersion"`
	Target        string `json:"target"`
	Kind          string `json:"kind"` // file, directory or module
	// Modules are the modules the target is part of.
	Modules     []string `json:"modules"`
	TargetFiles int      `json:"targetFiles"`
	// DirectDependents are modules that import the target; Transitive
	// ones depend on those, at any distance.
	DirectDependents     []string     `json:"directDependents"`
	TransitiveDependents []string     `json:"transitiveDependents"`
	Files                []ImpactFile `json:"files"` // dependent files, nearest first
	Tests                []ImpactFile `json:"tests"` // tests likely to exercise the change
	Decisions            []ImpactRef  `json:"decisions"`
	Conventions          []ImpactRef  `json:"conventions"`
	Truncated            bool         `json:"truncated"`
	// Cut names the lists a bound cut, by their JSON names (files and
	// tests share one bound, so both are named when it is reached).
	Cut []string `json:"-"`
}

// cut records that a bound cut the named lists.
func (r *ImpactResult) cut(lists ...string) {
	r.Truncated = true
	for _, l := range lists {
		if !slices.Contains(r.Cut, l) {
			r.Cut = append(r.Cut, l)
		}
	}
}

// ImpactFile is an affected file and why.
type ImpactFile = model.ImpactFile

// ImpactRef names a decision or convention whose evidence touches the target.
type ImpactRef = model.ImpactRef

type importRef struct {
	file string
	line int
	spec string
	test bool // made by test code
}

// Impact answers "what does changing target affect?" for a file, a
// directory or a module (by id or name): the files and modules that import
// it, directly or through others (reverse import edges), the tests likely
// to exercise it, and the decisions and conventions whose evidence
// touches it. At most maxFiles files and tests are listed (Truncated says
// when more were found).
func Impact(g *model.Graph, target string, maxFiles int) (*ImpactResult, error) {
	if maxFiles <= 0 {
		maxFiles = DefaultImpactFiles
	}
	ix := newIndex(g)
	t := cleanTarget(target)
	res := &ImpactResult{SchemaVersion: model.SchemaVersion, Target: t, Modules: []string{}, DirectDependents: []string{},
		TransitiveDependents: []string{}, Files: []ImpactFile{}, Tests: []ImpactFile{}, Decisions: []ImpactRef{}, Conventions: []ImpactRef{}}

	seed := map[string]bool{}
	seedMods := map[string]bool{}
	switch {
	case ix.files[t] != nil:
		res.Kind = "file"
		seed[t] = true
	case ix.modules[t] != nil:
		res.Kind = "module"
		seedMods[t] = true
		for _, f := range ix.byModule[t] {
			seed[f.Path] = true
		}
	default:
		for i := range g.Modules { // a module by its (package) name
			if g.Modules[i].Name == t && t != "" {
				res.Kind, res.Target = "module", g.Modules[i].ID
				t = g.Modules[i].ID
				seedMods[t] = true
				for _, f := range ix.byModule[t] {
					seed[f.Path] = true
				}
				break
			}
		}
		if res.Kind == "" {
			for p := range ix.files {
				if inDir(p, t) {
					seed[p] = true
				}
			}
			if len(seed) == 0 {
				return nil, fmt.Errorf("%q: %w", target, ErrUnknownTarget)
			}
			res.Kind = "directory"
		}
	}
	for p := range seed {
		if m := ix.moduleOf(p); m != "" {
			seedMods[m] = true
		}
	}
	res.TargetFiles = len(seed)
	res.Modules = sortedKeys(seedMods)
	seedPaths := sortedKeys(seed)

	// Reverse import edges: who imports a file, who imports a module whole.
	byFile := map[string][]importRef{}
	byModule := map[string][]importRef{}
	for i := range g.Files {
		f := &g.Files[i]
		for _, imp := range f.Imports {
			if imp.Target == "" {
				continue
			}
			ref := importRef{file: f.Path, line: imp.Line, spec: imp.Spec, test: imp.Test || f.Kind == model.FileTest || f.DevOnly}
			switch imp.Kind {
			case model.ImportInternalFile:
				byFile[imp.Target] = append(byFile[imp.Target], ref)
			case model.ImportInternalModule, model.ImportWorkspacePackage:
				if m := importTargetModule(ix, imp); m != "" {
					byModule[m] = append(byModule[m], ref)
				}
			}
		}
	}

	// Breadth-first over importers: depth is the number of import steps.
	// Production code carries the change on; a test that imports it is a
	// test to run and ends the path (the tests importing a test helper
	// are tests to run too), so a module whose tests alone import the
	// target is no dependent, and neither are its importers.
	depth := map[string]int{}
	via := map[string]string{}
	testReached := map[string]bool{}
	queue := make([]string, 0, len(seed))
	for _, p := range seedPaths {
		depth[p] = 0
		queue = append(queue, p)
	}
	modulesQueued := map[string]bool{}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		refs := byFile[p]
		if m := ix.moduleOf(p); m != "" && !modulesQueued[m] && !testReached[p] {
			modulesQueued[m] = true // a module-wide import depends on all its files
			refs = append(refs, byModule[m]...)
		}
		for _, r := range refs {
			if _, seen := depth[r.file]; seen {
				continue
			}
			if testReached[p] && !r.test {
				continue // production code importing test code: not a path a change takes
			}
			depth[r.file] = depth[p] + 1
			via[r.file] = fmt.Sprintf("%s:%d imports %q", r.file, r.line, r.spec)
			if r.test {
				testReached[r.file] = true
			}
			queue = append(queue, r.file)
		}
	}
	var affected []string
	for p, d := range depth {
		if d > 0 {
			affected = append(affected, p)
		}
	}
	sort.Slice(affected, func(i, j int) bool {
		if depth[affected[i]] != depth[affected[j]] {
			return depth[affected[i]] < depth[affected[j]]
		}
		return affected[i] < affected[j]
	})

	// Modules: for a file, only the modules its importers are in; for a
	// module or directory, also what the module graph says.
	direct, transitive := map[string]bool{}, map[string]bool{}
	for _, p := range affected {
		m := ix.moduleOf(p)
		if m == "" || seedMods[m] || testReached[p] {
			continue
		}
		if depth[p] == 1 {
			direct[m] = true
		} else {
			transitive[m] = true
		}
	}
	if res.Kind != "file" {
		edges := moduleEdges(ix)
		rev := map[string][]string{}
		for from, tos := range edges {
			for to := range tos {
				rev[to] = append(rev[to], from)
			}
		}
		frontier := []string{}
		for _, m := range res.Modules {
			for _, from := range rev[m] {
				if !seedMods[from] {
					direct[from] = true
				}
			}
		}
		for m := range direct {
			frontier = append(frontier, m)
		}
		seen := map[string]bool{}
		for m := range seedMods {
			seen[m] = true
		}
		for m := range direct {
			seen[m] = true
		}
		for len(frontier) > 0 {
			m := frontier[0]
			frontier = frontier[1:]
			for _, from := range rev[m] {
				if !seen[from] {
					seen[from] = true
					transitive[from] = true
					frontier = append(frontier, from)
				}
			}
		}
	}
	for m := range direct {
		delete(transitive, m)
	}
	res.DirectDependents = res.boundList(sortedKeys(direct), "directDependents")
	res.TransitiveDependents = res.boundList(sortedKeys(transitive), "transitiveDependents")

	budget := maxFiles
	for _, p := range affected {
		if testReached[p] {
			continue
		}
		if budget == 0 {
			res.cut("files", "tests")
			break
		}
		res.Files = append(res.Files, ImpactFile{Path: p, Module: ix.moduleOf(p), Depth: depth[p], Reason: via[p]})
		budget--
	}
	for _, tf := range impactTests(ix, res.Kind, seedPaths, seedMods, affected, depth, via, testReached) {
		if budget == 0 {
			res.cut("files", "tests")
			break
		}
		res.Tests = append(res.Tests, tf)
		budget--
	}

	touches := func(file string) bool {
		if file == "" {
			return false
		}
		if seed[file] || (res.Kind != "file" && inDir(file, t)) {
			return true
		}
		return res.Kind == "module" && file == t
	}
	for _, d := range g.Decisions {
		if reason := decisionTouch(d, seedPaths, touches); reason != "" {
			res.Decisions = append(res.Decisions, ImpactRef{ID: d.ID, Title: d.Title, Reason: reason})
		}
	}
	for _, c := range g.Conventions {
		for _, ev := range c.Evidence {
			if touches(ev.File) {
				res.Conventions = append(res.Conventions, ImpactRef{ID: c.ID, Title: c.Statement, Reason: "evidence in " + ev.File})
				break
			}
		}
	}
	return res, nil
}

// decisionTouch says why a decision concerns the target, "" when it does
// not. seed is the target's files, sorted. A decision's paths match as the
// knowledge store's do (internal/glob): a directory covers its
// contents, a pattern without a slash matches at any depth.
func decisionTouch(d model.Decision, seed []string, touches func(string) bool) string {
	src, _, _ := strings.Cut(d.Source, "#")
	if touches(src) {
		return "recorded in " + src
	}
	for _, ev := range d.Evidence {
		if touches(ev.File) {
			return "evidence in " + ev.File
		}
	}
	for _, pattern := range d.Paths {
		pattern = strings.TrimPrefix(pattern, "./")
		for _, p := range seed {
			if glob.Match(pattern, p) {
				return fmt.Sprintf("governs %s (%s)", pattern, p)
			}
		}
	}
	return ""
}

// impactTests finds the tests a change likely exercises: tests among the
// importers, tests inside the target, tests named after a target file,
// and for a file, the other tests of its module.
func impactTests(ix *index, kind string, seed []string, seedMods map[string]bool, affected []string, depth map[string]int, via map[string]string, testReached map[string]bool) []ImpactFile {
	var out []ImpactFile
	seen := map[string]bool{}
	add := func(p string, d int, reason string) {
		if !seen[p] {
			seen[p] = true
			out = append(out, ImpactFile{Path: p, Module: ix.moduleOf(p), Depth: d, Reason: reason})
		}
	}
	isTest := func(p string) bool { f := ix.files[p]; return f != nil && f.Kind == model.FileTest }
	for _, p := range seed {
		if isTest(p) {
			add(p, 0, "inside the target")
		}
	}
	for _, p := range seed {
		if isTest(p) {
			continue
		}
		for _, cand := range testNamesFor(p) {
			if isTest(cand) {
				add(cand, 0, "named after "+p)
			}
		}
	}
	for _, p := range affected {
		if testReached[p] {
			add(p, depth[p], via[p])
		}
	}
	if kind == "file" {
		for _, m := range sortedKeys(seedMods) {
			files := append([]*model.File(nil), ix.byModule[m]...)
			sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
			for _, f := range files {
				if f.Kind == model.FileTest {
					add(f.Path, 0, "test of the same module")
				}
			}
		}
	}
	return out
}

// testNamesFor lists where each language keeps the tests of a file.
func testNamesFor(p string) []string {
	dir, base := path.Dir(p), baseName(p)
	ext := path.Ext(base)
	name := strings.TrimSuffix(base, ext)
	j := func(parts ...string) string { return path.Join(parts...) }
	switch familyOf(p) {
	case famJS:
		var out []string
		for _, e := range []string{ext, ".ts", ".tsx", ".js", ".jsx"} {
			for _, kind := range []string{".test", ".spec"} {
				out = append(out, j(dir, name+kind+e), j(dir, "__tests__", name+kind+e), j(dir, "__tests__", name+e))
			}
		}
		return out
	case famGo:
		return []string{j(dir, name+"_test.go")}
	case famPython:
		return []string{j(dir, "test_"+name+".py"), j(dir, name+"_test.py"), j(dir, "tests", "test_"+name+".py"), j("tests", "test_"+name+".py")}
	case famRust:
		return []string{j("tests", name+".rs")}
	case famJava:
		return []string{strings.Replace(j(dir, name+"Test"+ext), "/main/", "/test/", 1), j(dir, name+"Test"+ext)}
	}
	return nil
}

// boundList keeps at most maxImpactModules of a module list.
func (r *ImpactResult) boundList(xs []string, name string) []string {
	if len(xs) > maxImpactModules {
		r.cut(name)
		return xs[:maxImpactModules]
	}
	return xs
}
