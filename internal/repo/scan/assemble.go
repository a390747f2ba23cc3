package scan

import (
	"context"
	"maps"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/kontext-dev/kontext/internal/repo/model"
)

// index is the in-memory view every later stage works from: no stage
// after parsing touches the file system, which is what lets Update
// recompute everything but the changed files cheaply.
type index struct {
	opts      Options
	root      string       // the root directory analysed
	files     []model.File // sorted by path
	byPath    map[string]int
	dirs      map[string]bool // every directory holding a file, and their ancestors ("" is the root)
	goDirs    map[string]bool // directories that are Go packages
	tfDirs    map[string]bool // directories of Terraform modules (*.tf) and Terragrunt units
	configs   map[string][]byte
	manifests []*manifestInfo
	vendored  *vendoredTrees
}

func (ix *index) exists(p string) bool { _, ok := ix.byPath[p]; return ok }

// assemble turns parsed files into the graph: manifests, workspaces,
// modules, resolved imports, module dependencies, externals and summary.
func assemble(ctx context.Context, root, head string, files []model.File, configs map[string][]byte, opts Options) (*model.Graph, error) {
	return assembleWith(ctx, root, head, files, configs, opts, nil)
}

// assembleWith is assemble with the resolutions of a previous graph whose
// resolution context (files, their languages, packages and kinds, the
// configuration) is the same: they are valid as they are.
func assembleWith(ctx context.Context, root, head string, files []model.File, configs map[string][]byte, opts Options, known map[resolveKey]resolved) (*model.Graph, error) {
	if !sort.SliceIsSorted(files, func(i, j int) bool { return files[i].Path < files[j].Path }) {
		sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
	}
	ix := &index{
		opts:    opts,
		root:    root,
		files:   files,
		byPath:  make(map[string]int, len(files)),
		dirs:    map[string]bool{"": true},
		goDirs:  map[string]bool{},
		tfDirs:  map[string]bool{},
		configs: configs,
	}
	for i := range files {
		f := &files[i]
		ix.byPath[f.Path] = i
		for d := dirOf(f.Path); !ix.dirs[d]; d = dirOf(d) {
			ix.dirs[d] = true
		}
		if f.Language == "Go" && strings.HasSuffix(f.Path, ".go") && goPackageDir(dirOf(f.Path)) {
			ix.goDirs[dirOf(f.Path)] = true
		}
		if f.Language == "HCL" && (strings.HasSuffix(f.Path, ".tf") || path.Base(f.Path) == "terragrunt.hcl") {
			ix.tfDirs[dirOf(f.Path)] = true
		}
		// Resolution is recomputed from the specs alone.
		if len(f.Imports) > 0 {
			imps := make([]model.Import, len(f.Imports))
			for k, imp := range f.Imports {
				imps[k] = model.Import{Spec: imp.Spec, Line: imp.Line, Test: imp.Test}
			}
			f.Imports = imps
		}
		f.Module, f.DevOnly = "", false
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	opts.Hooks.progress(PhaseManifests, 0, 0)
	paths := make([]string, 0, len(configs))
	for p := range configs {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	ix.vendored = newVendoredTrees(ix.dirs, configs[".gitattributes"])
	for _, p := range paths {
		if f := &files[ix.byPath[p]]; f.Vendored || ix.vendored.rootOf(dirOf(p)) != "" {
			continue // a vendored manifest describes someone else's package
		}
		ix.manifests = append(ix.manifests, parseManifest(p, configs[p], ix.exists)...)
	}
	ix.linkGradle()
	ix.linkMaven()
	for _, mi := range ix.manifests {
		if mi.goVendor {
			mi.goVendored, mi.goVendoredVersions = parseModulesTxt(configs[path.Join(mi.dir, "vendor", "modules.txt")])
		}
	}

	g := &model.Graph{
		SchemaVersion: model.SchemaVersion,
		Root:          root,
		Head:          head,
		Files:         files,
		EntryPoints:   []model.EntryPoint{},
		Cycles:        []model.Cycle{},
		Violations:    []model.Violation{},
		Conventions:   []model.Convention{},
		Decisions:     []model.Decision{},
		Vendored:      ix.vendored.roots,
	}
	for _, mi := range ix.manifests {
		g.Manifests = append(g.Manifests, mi.m)
	}
	ws := ix.workspaces()
	for _, w := range ws {
		g.Workspaces = append(g.Workspaces, w.Workspace)
	}
	opts.Hooks.progress(PhaseModules, 0, 0)
	mods := ix.modules(ws)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	opts.Hooks.progress(PhaseImports, 0, 0)
	res := newResolver(ix, mods, ws)
	if known != nil {
		res.memo = maps.Clone(known)
	}
	for i := range files {
		if i%1024 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		f := &files[i]
		f.Module = mods.of(dirOf(f.Path))
		f.DevOnly = f.Language == "Rust" && f.Kind != model.FileTest && res.rs.devOnly(f)
		for k := range f.Imports {
			res.resolve(f, &f.Imports[k])
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	g.Modules = mods.list
	g.Dependencies = ix.dependencies(mods, res)
	g.External = ix.externals(mods, res)
	ix.linkModules(g)
	g.Summary = ix.summary(g, root)
	lastAssembly.remember(g, res.memo, configs)
	return g, nil
}

// goPackageDir reports whether Go files in dir make a package the go
// command would build: not under testdata, nor a directory whose name
// starts with "." or "_".
func goPackageDir(dir string) bool {
	for d := dir; d != ""; d = dirOf(d) {
		b := path.Base(d)
		if b == "testdata" || b[0] == '.' || b[0] == '_' {
			return false
		}
	}
	return true
}

// dependencies aggregates resolved imports between modules, and the
// internal dependencies manifests declare, into module edges. An edge is
// production when production code makes it (an import in a file that is
// not a test, a runtime manifest dependency), test when only tests do.
func (ix *index) dependencies(mods *moduleSet, res *resolver) []model.Dependency {
	type key struct {
		from, to string
		test     bool
	}
	edges := map[key]*model.Dependency{}
	edge := func(from, to string, kind model.ImportKind, test bool) *model.Dependency {
		k := key{from, to, test}
		d := edges[k]
		if d == nil {
			scope := model.ScopeProduction
			if test {
				scope = model.ScopeTest
			}
			d = &model.Dependency{From: from, To: to, Kind: model.ImportInternalModule, Scope: scope}
			edges[k] = d
		}
		if kind == model.ImportWorkspacePackage {
			d.Kind = model.ImportWorkspacePackage
		}
		return d
	}
	const maxEvidence = 5
	for i := range ix.files {
		f := &ix.files[i]
		if f.Module == "" || neverBuilt(f) {
			continue
		}
		dev := f.Kind == model.FileTest || f.DevOnly
		for _, imp := range f.Imports {
			to := res.targetModule(imp)
			if to == "" || to == f.Module {
				continue
			}
			d := edge(f.Module, to, imp.Kind, dev || imp.Test)
			d.Imports++
			if len(d.Evidence) < maxEvidence {
				d.Evidence = append(d.Evidence, model.Evidence{File: f.Path, Line: imp.Line, Detail: "imports " + imp.Spec})
			}
		}
	}
	for _, mi := range ix.manifests {
		if mi.m.Ecosystem == "go" {
			// Go's import graph is exact and package by package; a go.mod
			// requirement is a module's, not its root package's.
			continue
		}
		mi.eachDeclared(func(dir string, dep model.PackageDep, line int) {
			from := mods.of(dir)
			to := res.manifestTarget(mi, dep)
			if to == "" || from == "" || to == from {
				return
			}
			d := edge(from, to, model.ImportWorkspacePackage, dep.Dev)
			if len(d.Evidence) < maxEvidence+1 {
				file := mi.m.Path
				if p, ok := mi.depFrom[dep.Name]; ok {
					file = p
				}
				d.Evidence = append(d.Evidence, model.Evidence{File: file, Line: line, Detail: "declares " + dep.Name})
			}
		})
	}
	out := make([]model.Dependency, 0, len(edges))
	for k, d := range edges {
		if k.test {
			if prod := edges[key{k.from, k.to, false}]; prod != nil {
				// Production code makes the edge: it is production, whatever
				// the tests add.
				if d.Kind == model.ImportWorkspacePackage {
					prod.Kind = model.ImportWorkspacePackage
				}
				continue
			}
		}
		out = append(out, *d)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].From != out[j].From {
			return out[i].From < out[j].From
		}
		return out[i].To < out[j].To
	})
	return out
}

// eachDeclared calls fn with each dependency the manifest declares, the
// directory of the project that declares it (the manifest's own, or the
// project a Gradle script configures) and the line declaring it.
func (mi *manifestInfo) eachDeclared(fn func(dir string, dep model.PackageDep, line int)) {
	for _, dep := range mi.m.Dependencies {
		line, ok := mi.depLines[dep.Name]
		if !ok {
			line = depLine(mi.raw, dep.Name)
		}
		fn(mi.dir, dep, line)
	}
	for _, fd := range mi.gradleForeign {
		fn(fd.dir, fd.dep, fd.line)
	}
}

// neverBuilt reports a Go file that no build includes (//go:build ignore:
// a generator run by go generate): its imports are no dependency.
func neverBuilt(f *model.File) bool {
	if f.Constraint == "" || !strings.Contains(f.Constraint, "ignore") {
		return false
	}
	for _, w := range strings.FieldsFunc(f.Constraint, func(r rune) bool {
		return !(r == '_' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) {
		if w == "ignore" {
			return true
		}
	}
	return false
}

// externals gathers third-party packages: what manifests declare (with
// versions) and what code imports, with the modules that use them.
func (ix *index) externals(mods *moduleSet, res *resolver) []model.External {
	type key struct{ eco, name string }
	type indirectDecl struct{ manifest, version string }
	indirect := map[string][]indirectDecl{}
	all := map[key]*model.External{}
	keyOf := func(eco, name string) key {
		if eco == "pypi" {
			name = normalizePyName(name)
		}
		return key{eco, name}
	}
	users := map[key]map[string]bool{}
	// PyPI names are compared normalised (PEP 503); the first spelling
	// seen, a declared one before an imported one, is kept.
	get := func(eco, name string) (*model.External, key) {
		k := keyOf(eco, name)
		e := all[k]
		if e == nil {
			e = &model.External{Name: name, Ecosystem: eco, Dev: true}
			all[k] = e
			users[k] = map[string]bool{}
		}
		return e, k
	}
	// The root project's manifests first: their versions and dev flags
	// win over what examples, docs and tests declare.
	firstAt := map[key]int{} // the precedence of the first declaration
	for _, mi := range ix.byPrecedence() {
		prec := manifestPrecedence(mi)
		aside := prec == precedenceAside
		mi.eachDeclared(func(dir string, dep model.PackageDep, _ int) {
			if dep.Path != "" && ix.vendored.rootOf(dep.Path) == "" || res.manifestTarget(mi, dep) != "" {
				return // the repository's own package
			}
			if mi.m.Ecosystem == "go" && res.goIndirect(mi, dep.Name) {
				// An indirect requirement is not this repository's choice;
				// it is listed only when code imports it (below).
				indirect[dep.Name] = append(indirect[dep.Name], indirectDecl{mi.m.Path, dep.Version})
				return
			}
			eco := mi.m.Ecosystem
			name := dep.Name
			if eco == "deno" {
				eco, name = denoEcosystem(name)
			}
			e, k := get(eco, name)
			if at, ok := firstAt[k]; !ok {
				// The first declaration in precedence decides; an example's
				// or the docs' requirement is a development one.
				firstAt[k] = prec
				e.Version = dep.Version
				e.Dev = dep.Dev || aside
			} else if prec == at && !aside {
				e.Dev = e.Dev && dep.Dev
				if e.Version == "" {
					e.Version = dep.Version
				}
			}
			e.Manifests = appendUnique(e.Manifests, mi.m.Path)
			if m := mods.of(dir); m != "" {
				users[k][m] = true
			}
		})
	}
	for i := range ix.files {
		f := &ix.files[i]
		if f.Module == "" {
			continue // vendored code: its imports are its own dependencies' business
		}
		for _, imp := range f.Imports {
			if imp.Kind != model.ImportExternal || imp.Target == "" {
				continue
			}
			e, k := get(res.ecosystemOf(f, imp), imp.Target)
			users[k][f.Module] = true
			if v, ok := res.vendoredVersions[k.eco+"\x00"+imp.Target]; ok {
				if e.Version == "" {
					e.Version = v.version
				}
				if v.manifest != "" {
					e.Manifests = appendUnique(e.Manifests, v.manifest)
				}
				e.Dev = false
			}
		}
	}
	for k, e := range all {
		if k.eco == "go" && len(e.Manifests) == 0 {
			for _, d := range indirect[e.Name] {
				if e.Version == "" {
					e.Version = d.version
				}
				e.Manifests = appendUnique(e.Manifests, d.manifest)
			}
			e.Dev = false
		}
	}
	out := make([]model.External, 0, len(all))
	for k, e := range all {
		for m := range users[k] {
			e.UsedBy = append(e.UsedBy, m)
		}
		sort.Strings(e.UsedBy)
		sort.Strings(e.Manifests)
		if len(e.Manifests) == 0 {
			e.Dev = false
		}
		if e.Dev && k.eco == "go" {
			e.Dev = false
		}
		out = append(out, *e)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Name != out[j].Name {
			return out[i].Name < out[j].Name
		}
		return out[i].Ecosystem < out[j].Ecosystem
	})
	return out
}

func denoEcosystem(name string) (string, string) {
	switch {
	case strings.HasPrefix(name, "npm:"):
		return "npm", name[4:]
	case strings.HasPrefix(name, "jsr:"):
		return "jsr", name[4:]
	}
	return "deno", name
}

func appendUnique(s []string, x string) []string {
	for _, y := range s {
		if y == x {
			return s
		}
	}
	return append(s, x)
}

// linkModules fills each module's DependsOn, UsedBy and External from the
// edges, and its file and line counts.
func (ix *index) linkModules(g *model.Graph) {
	byID := make(map[string]*model.Module, len(g.Modules))
	for i := range g.Modules {
		byID[g.Modules[i].ID] = &g.Modules[i]
	}
	langs := map[string]map[string]int{}
	for i := range ix.files {
		f := &ix.files[i]
		m := byID[f.Module]
		if m == nil {
			continue
		}
		m.Files++
		m.Lines += f.Lines
		if f.Language != "" && (f.Kind == model.FileSource || f.Kind == model.FileTest) {
			if langs[m.ID] == nil {
				langs[m.ID] = map[string]int{}
			}
			langs[m.ID][f.Language] += max(f.Lines, 1)
		}
	}
	// A module's language is the one most of its code lines are in.
	for id, counts := range langs {
		best, bestN := "", -1
		for l, n := range counts {
			if n > bestN || n == bestN && l < best {
				best, bestN = l, n
			}
		}
		byID[id].Language = best
	}
	for _, d := range g.Dependencies {
		if d.Scope == model.ScopeTest {
			if m := byID[d.To]; m != nil {
				m.TestedBy = append(m.TestedBy, d.From)
			}
			continue
		}
		if m := byID[d.From]; m != nil {
			m.DependsOn = append(m.DependsOn, d.To)
		}
		if m := byID[d.To]; m != nil {
			m.UsedBy = append(m.UsedBy, d.From)
		}
	}
	for _, e := range g.External {
		for _, u := range e.UsedBy {
			if m := byID[u]; m != nil {
				m.External = appendUnique(m.External, e.Name)
			}
		}
	}
	for i := range g.Modules {
		m := &g.Modules[i]
		sort.Strings(m.UsedBy)
		sort.Strings(m.TestedBy)
		sort.Strings(m.External)
	}
}

// summary is the repository at a glance.
func (ix *index) summary(g *model.Graph, root string) model.Summary {
	s := model.Summary{Files: len(ix.files), Name: ix.repositoryName(root)}
	langs := map[string]*model.LanguageStat{}
	for i := range ix.files {
		f := &ix.files[i]
		s.Lines += f.Lines
		if f.Kind == model.FileSource {
			s.SourceFiles++
		}
		if f.Language == "" || f.Vendored || f.Module == "" {
			continue // vendored code is not the repository's language
		}
		l := langs[f.Language]
		if l == nil {
			l = &model.LanguageStat{Language: f.Language}
			langs[f.Language] = l
		}
		l.Files++
		l.Lines += f.Lines
	}
	s.Languages = []model.LanguageStat{}
	for _, l := range langs {
		s.Languages = append(s.Languages, *l)
	}
	sort.Slice(s.Languages, func(i, j int) bool {
		a, b := s.Languages[i], s.Languages[j]
		if a.Lines != b.Lines {
			return a.Lines > b.Lines
		}
		return a.Language < b.Language
	})
	pm := map[string]bool{}
	for _, mi := range ix.manifests {
		switch path.Base(mi.m.Path) {
		case "package.json":
			pm["npm"] = true
		case "pnpm-workspace.yaml":
			pm["pnpm"] = true
		case "Pipfile":
			pm["pipenv"] = true
		case "settings.gradle", "settings.gradle.kts", "build.gradle", "build.gradle.kts":
			pm["gradle"] = true
		default:
			switch mi.m.Ecosystem {
			case "pypi":
				pm["pip"] = true
			case "nuget":
				pm["dotnet"] = true
			default:
				pm[mi.m.Ecosystem] = true
			}
		}
	}
	for lock, tool := range map[string]string{"pnpm-lock.yaml": "pnpm", "yarn.lock": "yarn", "bun.lockb": "bun", "bun.lock": "bun", "poetry.lock": "poetry", "uv.lock": "uv"} {
		if ix.exists(lock) {
			pm[tool] = true
			if tool == "pnpm" || tool == "yarn" || tool == "bun" {
				if !ix.exists("package-lock.json") {
					delete(pm, "npm")
				}
			}
		}
	}
	for k := range pm {
		s.PackageManagers = append(s.PackageManagers, k)
	}
	sort.Strings(s.PackageManagers)
	return s
}

// Manifest precedence: the root's first, then the other packages', then
// those set aside from the project — examples, docs, tests, benchmarks —
// which are modules of their own but not what the project is built on.
const (
	precedenceRoot = iota
	precedencePackage
	precedenceAside
)

var asideDirs = map[string]bool{
	"example": true, "examples": true, "sample": true, "samples": true, "demo": true, "demos": true,
	"doc": true, "docs": true, "documentation": true, "test": true, "tests": true, "testing": true,
	"benchmark": true, "benchmarks": true, "bench": true, "e2e": true, "tutorial": true, "tutorials": true,
	"playground": true, "cookbook": true,
}

func manifestPrecedence(mi *manifestInfo) int {
	if mi.dir == "" {
		return precedenceRoot
	}
	for d := mi.dir; d != ""; d = dirOf(d) {
		if asideDirs[strings.ToLower(path.Base(d))] {
			return precedenceAside
		}
	}
	return precedencePackage
}

// byPrecedence returns the manifests in precedence order, by path within
// each rank.
func (ix *index) byPrecedence() []*manifestInfo {
	out := slices.Clone(ix.manifests)
	sort.SliceStable(out, func(i, j int) bool { return manifestPrecedence(out[i]) < manifestPrecedence(out[j]) })
	return out
}

// rootNameOrder ranks the root manifests that name a repository: a
// build's own name before a package manager's, the language's manifest
// before the JavaScript tooling many repositories carry.
var rootNameOrder = []string{"settings.gradle.kts", "settings.gradle", "Cargo.toml", "pyproject.toml", "setup.cfg", "go.mod",
	"pom.xml", "package.json", "deno.json", "deno.jsonc", "composer.json", "mix.exs"}

// repositoryName is the name the root manifest gives the repository (the
// last element of a Go module path that is not a major version suffix),
// else the root directory's name.
func (ix *index) repositoryName(root string) string {
	for _, base := range rootNameOrder {
		for _, mi := range ix.manifests {
			if mi.dir != "" || path.Base(mi.m.Path) != base || mi.m.Name == "" {
				continue
			}
			if base == "go.mod" {
				return goModuleShortName(mi.m.Name)
			}
			if base == "pom.xml" {
				_, artifact, _ := strings.Cut(mi.m.Name, ":")
				return artifact
			}
			return mi.m.Name
		}
	}
	name := path.Base(strings.ReplaceAll(root, "\\", "/"))
	if name == "." || name == "/" || name == "" {
		return "repository"
	}
	return name
}

// goModuleShortName is how a Go module is called: the last element of its
// path that is not a major version (github.com/x/y/v2 is y).
func goModuleShortName(modPath string) string {
	parts := strings.Split(modPath, "/")
	for i := len(parts) - 1; i >= 0; i-- {
		p := parts[i]
		if len(p) > 1 && p[0] == 'v' && strings.Trim(p[1:], "0123456789") == "" && i > 0 {
			continue
		}
		if p != "" {
			return p
		}
	}
	return modPath
}

// lastAssembly keeps what the last graph assembled was made from besides
// its files: the import resolutions and the configuration read. An Update
// from that graph then re-resolves nothing when only file contents changed
// (resolving every import of a large tree again is half the cost of an
// update) and re-reads no unchanged configuration file. One graph is kept:
// an engine updates from its latest.
var lastAssembly assembly

type assembly struct {
	mu      sync.Mutex
	g       *model.Graph
	memo    map[resolveKey]resolved
	configs map[string][]byte
}

func (a *assembly) remember(g *model.Graph, memo map[resolveKey]resolved, configs map[string][]byte) {
	a.mu.Lock()
	a.g, a.memo, a.configs = g, memo, configs
	a.mu.Unlock()
}

// resolutionsOf returns g's resolutions, nil when they are not kept. The
// map is shared: callers clone it before adding to it.
func (a *assembly) resolutionsOf(g *model.Graph) map[resolveKey]resolved {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.g != g {
		return nil
	}
	return a.memo
}

// configsOf returns the configuration g was assembled from (shared, read
// only), nil when it is not kept.
func (a *assembly) configsOf(g *model.Graph) map[string][]byte {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.g != g {
		return nil
	}
	return a.configs
}
