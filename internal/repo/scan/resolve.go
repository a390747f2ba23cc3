package scan

import (
	"path"
	"sort"
	"strings"

	"github.com/kontext-dev/kontext/internal/repo/model"
)

// resolver turns import specs into what they name: a file or module of
// the repository, a workspace package, a third-party package or the
// language's standard library. It works from the index only.
type resolver struct {
	ix   *index
	mods *moduleSet
	ws   []workspace

	goMods   []*manifestInfo // go.mod manifests, longest module path first
	goModAt  map[string]*manifestInfo
	goStd    *manifestInfo // the "std" module when scanning GOROOT/src
	goMemo   map[string]*manifestInfo
	wsByName map[string]string // workspace package name → directory, per ecosystem key "eco\x00name"
	goWork   []*manifestInfo
	memo     map[resolveKey]resolved

	// vendoredPkgs are the packages of vendored trees that have a
	// manifest, by directory; vendoredVersions what they and Go's
	// vendor/modules.txt declare, by ecosystem and name.
	vendoredPkgs     map[string]vendoredPkg
	vendoredVersions map[string]vendoredDecl

	js  jsState
	py  pyState
	rs  rustState
	jvm jvmState
}

func newResolver(ix *index, mods *moduleSet, ws []workspace) *resolver {
	r := &resolver{ix: ix, mods: mods, ws: ws, goModAt: map[string]*manifestInfo{}, goMemo: map[string]*manifestInfo{},
		wsByName: map[string]string{}, memo: make(map[resolveKey]resolved, len(ix.files)),
		vendoredVersions: map[string]vendoredDecl{}, vendoredPkgs: map[string]vendoredPkg{}}
	for _, mi := range ix.manifests {
		if path.Base(mi.m.Path) == "go.work" {
			r.goWork = append(r.goWork, mi)
		}
		if path.Base(mi.m.Path) == "go.mod" && !skipModuleDir(mi.dir) {
			r.goMods = append(r.goMods, mi)
			r.goModAt[mi.dir] = mi
			if mi.m.Name == "std" {
				r.goStd = mi
			}
		}
	}
	sort.SliceStable(r.goMods, func(i, j int) bool { return len(r.goMods[i].m.Name) > len(r.goMods[j].m.Name) })
	for _, w := range ws {
		for _, id := range w.Members {
			member := memberDir(id)
			for _, mi := range ix.manifests {
				if mi.dir == member && memberOf(w.Tool, mi) && mi.m.Name != "" {
					r.wsByName[ecoKey(mi.m.Ecosystem, mi.m.Name)] = member
				}
			}
		}
	}
	r.initVendored()
	r.js.init(r)
	r.py.init(r)
	r.rs.init(r)
	r.jvm.init(r)
	return r
}

func ecoKey(eco, name string) string {
	if eco == "pypi" {
		name = normalizePyName(name)
	}
	return eco + "\x00" + name
}

type resolveKey struct{ lang, from, spec string }

type resolved struct {
	kind   model.ImportKind
	target string
}

// resolve sets an import's Kind and Target. A result depends on the
// importing directory only (on the file, for Rust's self:: and super::;
// and on being a test, for Java and Kotlin), so it is computed once per
// directory and spec.
func (r *resolver) resolve(f *model.File, imp *model.Import) {
	from := dirOf(f.Path)
	switch {
	case f.Language == "Rust":
		from = f.Path
	case jvm(f) && f.Kind == model.FileTest:
		from += "\x00test" // a test may see test source sets, main code may not
	}
	key := resolveKey{f.Language, from, imp.Spec}
	if res, ok := r.memo[key]; ok {
		imp.Kind, imp.Target = res.kind, res.target
		return
	}
	r.resolveUncached(f, imp)
	r.intoVendored(f, imp)
	r.memo[key] = resolved{imp.Kind, imp.Target}
}

type vendoredDecl struct{ version, manifest string }

// initVendored reads what the vendored trees declare: the manifests of
// the package folders in them, and vendor/modules.txt.
func (r *resolver) initVendored() {
	for p, data := range r.ix.configs {
		d := dirOf(p)
		if r.ix.vendored.rootOf(d) == "" || r.ix.vendored.rootOf(d) == d {
			continue
		}
		switch path.Base(p) {
		case "package.json", "Cargo.toml", "pyproject.toml", "composer.json", "go.mod":
		default:
			continue
		}
		for _, mi := range parseManifest(p, data, r.ix.exists) {
			if mi.m.Name == "" {
				continue
			}
			// package.json before the others when a folder has several.
			if old, ok := r.vendoredPkgs[d]; ok && path.Base(old.manifest) == "package.json" {
				continue
			}
			r.vendoredPkgs[d] = vendoredPkg{eco: mi.m.Ecosystem, name: mi.m.Name, version: mi.m.Version, manifest: p}
		}
	}
	for _, vp := range r.vendoredPkgs {
		if vp.version != "" {
			r.vendoredVersions[vp.eco+"\x00"+vp.name] = vendoredDecl{vp.version, vp.manifest}
		}
	}
	for _, mi := range r.ix.manifests {
		for mod, v := range mi.goVendoredVersions {
			if _, ok := r.vendoredVersions["go\x00"+mod]; !ok {
				r.vendoredVersions["go\x00"+mod] = vendoredDecl{v, path.Join(mi.dir, "vendor", "modules.txt")}
			}
		}
	}
}

type vendoredPkg struct{ eco, name, version, manifest string }

// intoVendored turns an import that resolved to a file or directory of a
// vendored tree, from outside that tree, into a use of the package
// vendored there: its manifest's name and version when it has one, else
// its folder's (or file's) name under the tree.
func (r *resolver) intoVendored(f *model.File, imp *model.Import) {
	switch imp.Kind {
	case model.ImportInternalFile, model.ImportInternalModule, model.ImportWorkspacePackage:
	default:
		return
	}
	target := imp.Target
	if target == "." {
		target = ""
	}
	dir := target
	if r.ix.exists(target) {
		dir = dirOf(target)
	}
	root := r.ix.vendored.rootOf(dir)
	if root == "" || r.ix.vendored.rootOf(dirOf(f.Path)) == root {
		return
	}
	rel := strings.TrimPrefix(strings.TrimPrefix(target, root), "/")
	first, _, _ := strings.Cut(rel, "/")
	if first == "" {
		first = path.Base(root)
	}
	vp := vendoredPkg{name: strings.TrimSuffix(first, path.Ext(first))}
	for d := dir; len(d) > len(root); d = dirOf(d) {
		if p, ok := r.vendoredPkgs[d]; ok {
			vp = p // the nearest manifest names the package
			break
		}
	}
	imp.Kind, imp.Target = model.ImportExternal, vp.name
}

func (r *resolver) resolveUncached(f *model.File, imp *model.Import) {
	var kind model.ImportKind
	var target string
	switch f.Language {
	case "Go":
		kind, target = r.resolveGo(f, imp.Spec)
	case "TypeScript", "TSX", "JavaScript":
		kind, target = r.js.resolve(f, imp.Spec)
	case "Python":
		kind, target = r.py.resolve(f, imp.Spec)
	case "Rust":
		kind, target = r.rs.resolve(f, imp.Spec)
	case "Java", "Kotlin":
		kind, target = r.jvm.resolve(f, imp.Spec)
	case "HCL":
		kind, target = r.resolveHCL(f, imp.Spec)
	default:
		kind = model.ImportUnresolved
	}
	imp.Kind, imp.Target = kind, target
}

// moduleID turns a directory into the id form targets use ("." for the
// root).
func moduleID(dir string) string {
	if dir == "" {
		return "."
	}
	return dir
}

// targetModule returns the module an internal import leads to, or "".
func (r *resolver) targetModule(imp model.Import) string {
	switch imp.Kind {
	case model.ImportInternalFile, model.ImportInternalModule, model.ImportWorkspacePackage:
	default:
		return ""
	}
	if i, ok := r.ix.byPath[imp.Target]; ok {
		return r.mods.of(dirOf(r.ix.files[i].Path))
	}
	dir := imp.Target
	if dir == "." {
		dir = ""
	}
	return r.mods.of(dir)
}

// ecosystemOf names the package ecosystem of an external import.
func (r *resolver) ecosystemOf(f *model.File, imp model.Import) string {
	switch f.Language {
	case "Go":
		return "go"
	case "Python":
		return "pypi"
	case "Rust":
		return "cargo"
	case "Java", "Kotlin":
		if eco, ok := r.jvm.depEco[imp.Target]; ok {
			return eco
		}
		return "maven"
	case "HCL":
		return "terraform"
	}
	if strings.HasPrefix(imp.Spec, "jsr:") {
		return "jsr"
	}
	return "npm"
}

// manifestTarget returns the module a manifest's dependency names inside
// the repository (a path, workspace or replace dependency), or "".
func (r *resolver) manifestTarget(mi *manifestInfo, dep model.PackageDep) string {
	eco := mi.m.Ecosystem
	if eco == "deno" {
		eco = "npm"
	}
	switch {
	case dep.Path == "workspace:" || dep.Path == "umbrella:":
		if d, ok := r.wsByName[ecoKey(eco, dep.Name)]; ok {
			return r.mods.of(d)
		}
		if dep.Path == "umbrella:" {
			return r.mods.of(path.Join(dirOf(mi.dir), dep.Name))
		}
		return ""
	case dep.Path != "":
		if r.ix.dirs[dep.Path] {
			return r.mods.of(dep.Path) // "" in a vendored tree: an external package
		}
		return ""
	}
	if d, ok := r.wsByName[ecoKey(eco, dep.Name)]; ok && (eco != "cargo" || dep.Version == "workspace") {
		return r.mods.of(d)
	}
	if eco == "pypi" {
		// An example's or the docs' requirement on the project itself.
		for _, other := range r.ix.manifests {
			if other.m.Ecosystem == "pypi" && other != mi && other.m.Name != "" && normalizePyName(other.m.Name) == normalizePyName(dep.Name) {
				return r.mods.of(other.dir)
			}
		}
	}
	if eco == "go" {
		for _, gm := range r.goMods {
			if gm.m.Name == dep.Name {
				return r.mods.of(gm.dir)
			}
		}
	}
	return ""
}

func (r *resolver) goIndirect(mi *manifestInfo, name string) bool { return mi.goIndirect[name] }

// goModFor returns the go.mod governing a directory.
func (r *resolver) goModFor(dir string) *manifestInfo {
	if mi, ok := r.goMemo[dir]; ok {
		return mi
	}
	var mi *manifestInfo
	if m, ok := r.goModAt[dir]; ok {
		mi = m
	} else if dir != "" {
		mi = r.goModFor(dirOf(dir))
	}
	r.goMemo[dir] = mi
	return mi
}

// resolveGo resolves a Go import path the way the go command does in
// module mode: the repository's modules by path (the longest module path
// first; GOROOT's "std" owns the paths without a dot), replace directives
// to local directories, the standard library, the module's vendor
// directory, then the requirements of its go.mod.
func (r *resolver) resolveGo(f *model.File, spec string) (model.ImportKind, string) {
	if spec == "C" {
		return model.ImportBuiltin, "C" // cgo's pseudo-package
	}
	own := r.goModFor(dirOf(f.Path))
	dotless := !strings.Contains(strings.SplitN(spec, "/", 2)[0], ".")
	internal := func(dir string, m *manifestInfo) (model.ImportKind, string) {
		if m != own && own != nil && m != nil && !(m == r.goStd && own.m.Name == "cmd") {
			return model.ImportWorkspacePackage, moduleID(dir)
		}
		return model.ImportInternalModule, moduleID(dir)
	}
	for _, m := range r.goMods {
		mp := m.m.Name
		switch {
		case mp == "std":
			if !dotless {
				continue
			}
			if d := path.Join(m.dir, spec); r.ix.goDirs[d] {
				return internal(d, m)
			}
		case spec == mp || strings.HasPrefix(spec, mp+"/"):
			d := path.Join(m.dir, strings.TrimPrefix(strings.TrimPrefix(spec, mp), "/"))
			if r.ix.goDirs[d] {
				return internal(d, m)
			}
			if mp != "" {
				return model.ImportUnresolved, ""
			}
		}
	}
	if own != nil {
		if d, ok := replaced(own.goReplace, spec); ok && r.ix.goDirs[d] {
			if r.ix.vendored.rootOf(d) != "" {
				// A fork kept in third_party/: the replaced module is used.
				if mod := requiredModule(own, spec); mod != "" {
					return model.ImportExternal, mod
				}
			}
			return model.ImportWorkspacePackage, moduleID(d)
		}
	}
	for _, mi := range r.goWork {
		if d, ok := replaced(mi.goReplace, spec); ok && r.ix.goDirs[d] {
			return model.ImportWorkspacePackage, moduleID(d)
		}
	}
	if dotless && r.goStd == nil {
		return model.ImportBuiltin, spec
	}
	if own != nil && own.goVendor {
		if d := path.Join(own.dir, "vendor", spec); r.ix.goDirs[d] {
			// Vendored: a use of the module that provides the package.
			mod := own.goVendored[spec]
			if mod == "" {
				mod = requiredModule(own, spec)
			}
			if mod == "" {
				mod = spec
			}
			return model.ImportExternal, mod
		}
	}
	if dotless {
		return model.ImportUnresolved, ""
	}
	if own != nil {
		if best := requiredModule(own, spec); best != "" {
			return model.ImportExternal, best
		}
	}
	return model.ImportExternal, spec
}

// requiredModule is the requirement of a go.mod that provides an import
// path (the longest module path prefixing it), "" when none does.
func requiredModule(own *manifestInfo, spec string) string {
	best := ""
	for _, dep := range own.m.Dependencies {
		if (spec == dep.Name || strings.HasPrefix(spec, dep.Name+"/")) && len(dep.Name) > len(best) {
			best = dep.Name
		}
	}
	return best
}

// replaced maps an import path through replace directives to a local
// directory.
func replaced(replace map[string]string, spec string) (string, bool) {
	best := ""
	for old := range replace {
		if (spec == old || strings.HasPrefix(spec, old+"/")) && len(old) > len(best) {
			best = old
		}
	}
	if best == "" {
		return "", false
	}
	return path.Join(replace[best], strings.TrimPrefix(strings.TrimPrefix(spec, best), "/")), true
}

// owningGoMod returns the go.mod of the module a directory is in: the
// deepest one at or above it.
func owningGoMod(goMods []*manifestInfo, dir string) *manifestInfo {
	var best *manifestInfo
	for _, m := range goMods {
		if (m.dir == "" || dir == m.dir || strings.HasPrefix(dir, m.dir+"/")) && (best == nil || len(m.dir) > len(best.dir)) {
			best = m
		}
	}
	return best
}

// goImportPath is a Go package directory's import path.
func goImportPath(goMods []*manifestInfo, dir string) string {
	best := owningGoMod(goMods, dir)
	if best == nil {
		return ""
	}
	rel := strings.TrimPrefix(strings.TrimPrefix(dir, best.dir), "/")
	switch {
	case best.m.Name == "std":
		return rel
	case rel == "":
		return best.m.Name
	}
	return best.m.Name + "/" + rel
}

// goModules lists the go.mod manifests that govern code of the repository.
func (ix *index) goModules() []*manifestInfo {
	var out []*manifestInfo
	for _, mi := range ix.manifests {
		if path.Base(mi.m.Path) == "go.mod" && !skipModuleDir(mi.dir) {
			out = append(out, mi)
		}
	}
	return out
}
