package scan

import (
	"maps"
	"path"
	"sort"
	"strings"

	"github.com/kontext-dev/kontext/internal/linguist"
	"github.com/kontext-dev/kontext/internal/repo/model"
)

// workspace is a declared workspace with its expanded members.
type workspace struct {
	model.Workspace
	decl *manifestInfo
}

// memberManifests says which manifests make a directory a member of a
// workspace of each tool.
var memberManifests = map[string][]string{
	"npm": {"package.json"}, "yarn": {"package.json"}, "bun": {"package.json"}, "pnpm": {"package.json"},
	"deno":  {"deno.json", "deno.jsonc", "package.json"},
	"cargo": {"Cargo.toml"}, "go": {"go.mod"}, "maven": {"pom.xml"}, "uv": {"pyproject.toml"},
	"gradle": {"build.gradle", "build.gradle.kts"},
}

// workspaces expands every workspace declaration against the directories
// that hold a member manifest.
func (ix *index) workspaces() []workspace {
	var out []workspace
	for _, mi := range ix.manifests {
		if mi.wsTool == "" {
			continue
		}
		var candidates []string
		if mi.wsTool == "cargo" && mi.m.Name != "" {
			candidates = append(candidates, mi.dir) // the root package is a member of its workspace
		}
		for _, other := range ix.manifests {
			for _, name := range memberManifests[mi.wsTool] {
				if path.Base(other.m.Path) == name && other.dir != mi.dir {
					candidates = append(candidates, other.dir)
				}
			}
		}
		if mi.wsTool == "gradle" { // a Gradle project need not have a build file
			for d := range ix.dirs {
				candidates = append(candidates, d)
			}
		}
		sort.Strings(candidates)
		members := expandMembers(mi.dir, mi.wsGlobs, candidates)
		if members == nil {
			members = []string{}
		}
		for i, m := range members {
			members[i] = moduleID(m) // the root as ".", as module ids spell it
		}
		out = append(out, workspace{Workspace: model.Workspace{Tool: mi.wsTool, Manifest: mi.m.Path, Members: members}, decl: mi})
	}
	return out
}

// memberDir is a workspace member's directory ("" for the root ".").
func memberDir(id string) string {
	if id == "." {
		return ""
	}
	return id
}

// moduleSet is the modules and the directory → owning module lookup.
type moduleSet struct {
	list     []model.Module
	byDir    map[string]int
	owner    map[string]string // memo: directory → owning module id
	vendored *vendoredTrees
}

// of returns the id of the module owning a directory: the deepest module
// at or above it; "" inside a vendored tree, which no module owns.
func (ms *moduleSet) of(dir string) string {
	if id, ok := ms.owner[dir]; ok {
		return id
	}
	var id string
	if ms.vendored.rootOf(dir) != "" {
		id = ""
	} else if i, ok := ms.byDir[dir]; ok {
		id = ms.list[i].ID
	} else if dir == "" {
		id = "."
	} else {
		id = ms.of(dirOf(dir))
	}
	ms.owner[dir] = id
	return id
}

func (ms *moduleSet) module(id string) *model.Module {
	dir := id
	if id == "." {
		dir = ""
	}
	if i, ok := ms.byDir[dir]; ok {
		return &ms.list[i]
	}
	return nil
}

// indexFiles make their directory a module (the original's index-file
// basis): a barrel, a Python package, a Rust module or crate root.
var indexFiles = map[string]bool{
	"index.ts": true, "index.tsx": true, "index.js": true, "index.jsx": true, "index.mjs": true, "index.cjs": true,
	"__init__.py": true, "mod.rs": true, "lib.rs": true,
}

// modules decides the modules, in the original's order of precedence:
// workspace packages, manifest directories, directories under source
// roots (down to ModuleDepth, with MinModuleFiles code files), index-file
// directories. Go packages are directory modules at any depth: the
// language makes each one a unit. The root module "." owns the rest.
func (ix *index) modules(ws []workspace) *moduleSet {
	type cand = moduleCand
	cands := map[string]cand{}
	set := func(dir string, c cand) {
		if ix.vendored.rootOf(dir) != "" {
			return // vendored code is someone else's module
		}
		if _, ok := cands[dir]; !ok {
			cands[dir] = c
		}
	}
	manifestAt := map[string]*manifestInfo{}
	for _, mi := range ix.manifests {
		if prev, ok := manifestAt[mi.dir]; !ok || manifestRank(mi) < manifestRank(prev) {
			manifestAt[mi.dir] = mi
		}
	}
	for _, w := range ws {
		for _, id := range w.Members {
			m := memberDir(id)
			mi := manifestAt[m]
			for _, other := range ix.manifests {
				if other.dir == m && memberOf(w.Tool, other) {
					mi = other
					break
				}
			}
			set(m, cand{model.BasisWorkspacePackage, mi})
		}
	}
	dirs := make([]string, 0, len(manifestAt))
	for d := range manifestAt {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	for _, d := range dirs {
		if skipModuleDir(d) {
			continue
		}
		set(d, cand{model.BasisManifest, manifestAt[d]})
	}
	// Directories under source roots, counting code files below each.
	codeBelow := map[string]int{}
	for i := range ix.files {
		f := &ix.files[i]
		if f.Kind != model.FileSource && f.Kind != model.FileTest || linguist.LanguageType(f.Language) != linguist.Programming {
			continue
		}
		for d := dirOf(f.Path); d != ""; d = dirOf(d) {
			codeBelow[d]++
		}
	}
	roots := map[string]bool{}
	for _, r := range ix.opts.SourceRoots {
		roots[r] = true
	}
	var under []string
	for d := range ix.dirs {
		if d == "" || skipModuleDir(d) {
			continue
		}
		// d is depth k below a source root R whose parent is the root or
		// a workspace/manifest module.
		parts := strings.Split(d, "/")
		for k := 1; k <= ix.opts.ModuleDepth && k < len(parts); k++ {
			r := len(parts) - 1 - k // index of the source root's name
			if !roots[parts[r]] {
				continue
			}
			if parts[r] == "src" && ix.jvmSourceSetDir(strings.Join(parts[:r+2], "/")) {
				break // src/main, src/test/java: a JVM project's source sets are its code, not modules
			}
			parent := strings.Join(parts[:r], "/")
			if _, ok := cands[parent]; parent == "" || ok && cands[parent].basis != model.BasisDirectory {
				// A package between the source root and d owns d:
				// packages/api/src is the api package's code, not a
				// module of "packages".
				root := strings.Join(parts[:r+1], "/")
				owned := false
				for x := dirOf(d); len(x) > len(root); x = dirOf(x) {
					if _, ok := cands[x]; ok { // only packages are candidates yet
						owned = true
					}
				}
				if !owned && codeBelow[d] >= ix.opts.MinModuleFiles {
					under = append(under, d)
				}
				break
			}
		}
	}
	sort.Strings(under)
	for _, d := range under {
		set(d, cand{model.BasisDirectory, nil})
	}
	for d := range ix.goDirs {
		set(d, cand{model.BasisDirectory, manifestAt[d]})
	}
	// Infrastructure code has no package manifest: each directory of
	// Terraform files is a module (a root configuration, or a module
	// others call), each Ansible role is one.
	for d := range ix.tfDirs {
		if d != "" && !skipModuleDir(d) {
			set(d, cand{model.BasisDirectory, nil})
		}
	}
	for _, d := range ix.ansibleRoles() {
		set(d, cand{model.BasisDirectory, nil})
	}
	for i := range ix.files {
		p := ix.files[i].Path
		d := dirOf(p)
		if !indexFiles[path.Base(p)] || d == "" || skipModuleDir(d) {
			continue
		}
		// src/index.ts or src/lib.rs of a package is the package's entry,
		// not a module of its own.
		if parent, ok := cands[dirOf(d)]; roots[path.Base(d)] && (dirOf(d) == "" || ok && parent.basis != model.BasisDirectory && parent.basis != model.BasisIndexFile) {
			continue
		}
		set(d, cand{model.BasisIndexFile, nil})
	}
	// Areas: a top-level directory holding code no module claims is one
	// (a repository of C, shell or Ruby scripts is not a single module);
	// one that large is divided one level down as well.
	for _, d := range ix.areas(cands) {
		set(d, cand{model.BasisDirectory, nil})
	}
	if _, ok := cands[""]; !ok {
		cands[""] = cand{model.BasisDirectory, manifestAt[""]}
	}

	ms := &moduleSet{byDir: make(map[string]int, len(cands)), owner: map[string]string{}, vendored: ix.vendored}
	all := make([]string, 0, len(cands))
	for d := range cands {
		all = append(all, d)
	}
	sort.Strings(all)
	goMods := ix.goModules()
	for _, d := range all {
		c := cands[d]
		id := d
		if d == "" {
			id = "."
		}
		m := model.Module{ID: id, Basis: c.basis, Roles: []model.Role{}, DependsOn: []string{}, UsedBy: []string{}}
		if c.manifest != nil {
			m.Manifest = c.manifest.m.Path
			m.Name = c.manifest.m.Name
			m.Description = c.manifest.m.Description
		}
		if m.Name == "" && ix.goDirs[d] {
			m.Name = goImportPath(goMods, d)
		}
		if m.Name == "" && d == "" {
			m.Name = ix.repositoryName(ix.root)
		}
		if m.Name == "" {
			m.Name = path.Base(id)
		}
		ms.byDir[d] = len(ms.list)
		ms.list = append(ms.list, m)
	}
	ix.describe(ms)
	return ms
}

// jvmSourceSetDir reports a Gradle/Maven source set folder (src/main,
// src/test, src/integrationTest, src/commonJvmAndroid): one holding a
// java, kotlin, scala or groovy folder.
func (ix *index) jvmSourceSetDir(d string) bool {
	for lang := range jvmLangDirs {
		if lang != "resources" && ix.dirs[d+"/"+lang] {
			return true
		}
	}
	return false
}

// moduleCand is why a directory would be a module.
type moduleCand struct {
	basis    model.ModuleBasis
	manifest *manifestInfo
}

// largeArea is how many code files make a top-level area large enough
// to be divided into the directories below it (the original's 150).
const largeArea = 150

// areas returns the top-level directories whose code files no module
// candidate owns, MinModuleFiles of them at least, and in those with
// largeArea files or more, the directories below that hold enough of
// them.
func (ix *index) areas(cands map[string]moduleCand) []string {
	claimed := func(d string) bool {
		for ; d != ""; d = dirOf(d) {
			if _, ok := cands[d]; ok {
				return true
			}
		}
		return false
	}
	// A Rust file under a Cargo package is that package's (ripgrep's
	// binary is crates/core/main.rs of the root package), wherever it is.
	cargoDirs := map[string]bool{}
	for _, mi := range ix.manifests {
		if path.Base(mi.m.Path) == "Cargo.toml" && mi.m.Name != "" {
			cargoDirs[mi.dir] = true
		}
	}
	inCargoPackage := func(d string) bool {
		for ; ; d = dirOf(d) {
			if cargoDirs[d] {
				return true
			}
			if d == "" {
				return false
			}
		}
	}
	top, second := map[string]int{}, map[string]int{}
	for i := range ix.files {
		f := &ix.files[i]
		if f.Kind != model.FileSource && f.Kind != model.FileTest || linguist.LanguageType(f.Language) != linguist.Programming {
			continue
		}
		d := dirOf(f.Path)
		if d == "" || claimed(d) || skipModuleDir(d) || ix.vendored.rootOf(d) != "" || f.Language == "Rust" && inCargoPackage(d) {
			continue
		}
		parts := strings.SplitN(d, "/", 3)
		top[parts[0]]++
		if len(parts) > 1 {
			second[parts[0]+"/"+parts[1]]++
		}
	}
	var out []string
	left := maps.Clone(top) // what a divided area keeps of its files
	for d, n := range second {
		if top[dirOf(d)] >= largeArea && n >= ix.opts.MinModuleFiles {
			out = append(out, d)
			left[dirOf(d)] -= n
		}
	}
	for d, n := range top {
		if n >= ix.opts.MinModuleFiles && left[d] > 0 {
			out = append(out, d)
		}
	}
	sort.Strings(out)
	return out
}

// ansibleRoles finds Ansible roles: a roles/<name> directory with
// tasks/main.yml (or meta/main.yml).
func (ix *index) ansibleRoles() []string {
	seen := map[string]bool{}
	var out []string
	for i := range ix.files {
		p := ix.files[i].Path
		if b := path.Base(p); b != "main.yml" && b != "main.yaml" {
			continue
		}
		sub := dirOf(p)
		if b := path.Base(sub); b != "tasks" && b != "meta" {
			continue
		}
		role := dirOf(sub)
		if path.Base(dirOf(role)) != "roles" || seen[role] || skipModuleDir(role) {
			continue
		}
		seen[role] = true
		out = append(out, role)
	}
	sort.Strings(out)
	return out
}

// manifestRank orders the manifests that may describe a directory.
func manifestRank(mi *manifestInfo) int {
	switch path.Base(mi.m.Path) {
	case "package.json":
		return 0
	case "Cargo.toml", "go.mod", "pyproject.toml", "pom.xml", "deno.json", "deno.jsonc", "composer.json", "mix.exs":
		return 1
	case "build.gradle", "build.gradle.kts", "setup.cfg":
		return 2
	case "go.work", "pnpm-workspace.yaml", "settings.gradle", "settings.gradle.kts":
		return 4
	}
	return 3
}

func memberOf(tool string, mi *manifestInfo) bool {
	for _, name := range memberManifests[tool] {
		if path.Base(mi.m.Path) == name {
			return true
		}
	}
	return false
}

// skipModuleDir keeps test fixtures and hidden directories from becoming
// modules of the repository.
func skipModuleDir(d string) bool {
	for x := d; x != ""; x = dirOf(x) {
		b := path.Base(x)
		if b == "testdata" || b == "node_modules" || strings.HasPrefix(b, ".") || b == "__fixtures__" || b == "fixtures" {
			return true
		}
	}
	return false
}

// describe sets each module's description where its manifest gave none:
// the README's first paragraph, else the package documentation (Go's
// doc.go or package comment, Python's __init__.py docstring, Rust's //!).
func (ix *index) describe(ms *moduleSet) {
	docs := map[string]string{}
	rank := map[string]int{}
	for i := range ix.files {
		f := &ix.files[i]
		if f.Doc == "" || f.Kind == model.FileTest {
			continue
		}
		d := dirOf(f.Path)
		r := 3
		switch path.Base(f.Path) {
		case "doc.go", "__init__.py", "lib.rs", "mod.rs":
			r = 1
		case "main.rs":
			r = 2
		}
		if old, ok := rank[d]; !ok || r < old {
			docs[d], rank[d] = f.Doc, r
		}
	}
	for i := range ms.list {
		m := &ms.list[i]
		if m.Description != "" {
			continue
		}
		d := m.ID
		if d == "." {
			d = ""
		}
		for _, name := range []string{"README.md", "readme.md", "Readme.md", "README", "README.rst", "README.txt"} {
			p := name
			if d != "" {
				p = d + "/" + name
			}
			if data, ok := ix.configs[p]; ok {
				if intro := readmeIntro(data); intro != "" {
					m.Description = intro
					break
				}
			}
		}
		if m.Description == "" {
			m.Description = docs[d]
		}
	}
}

// readmeIntro returns the first prose paragraph of a README: after the
// title, skipping badges, HTML and code.
func readmeIntro(data []byte) string {
	var para []string
	inCode := false
	for _, line := range strings.Split(string(data), "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			inCode = !inCode
			continue
		}
		if inCode {
			continue
		}
		skip := t == "" || strings.HasPrefix(t, "#") || strings.HasPrefix(t, "<") || strings.HasPrefix(t, "[![") ||
			strings.HasPrefix(t, "![") || strings.HasPrefix(t, "===") || strings.HasPrefix(t, "---") || strings.HasPrefix(t, "|") ||
			strings.HasPrefix(t, ">") && len(para) == 0
		if skip {
			if len(para) > 0 {
				break
			}
			continue
		}
		para = append(para, t)
	}
	return firstParagraph(strings.Join(para, " "))
}
