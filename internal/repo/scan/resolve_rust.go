package scan

import (
	"path"
	"sort"
	"strings"

	"github.com/kontext-dev/kontext/internal/repo/model"
)

// rustState resolves Rust paths the way the compiler finds modules: each
// package's crate roots ([lib] path or src/lib.rs, [[bin]] paths,
// src/main.rs, src/bin/*, examples/, tests/, benches/, build.rs) and,
// from each, the module tree its `mod name;` declarations build (a
// #[path] attribute names the file; else name.rs or name/mod.rs beside a
// mod-rs file, in a folder named after any other). crate::, self::,
// super:: and the 2018-edition bare paths walk that tree; other workspace
// crates are found by their crate names, the standard crates are
// builtin, and the Cargo.toml dependencies (with renames) external
// packages. A file no declaration reaches (a mod inside a macro) is
// placed by the layout under the nearest crate root.
type rustState struct {
	r      *resolver
	crates map[string]*manifestInfo // code name (dashes as underscores) → Cargo.toml
	memo   map[string]*manifestInfo // directory → its package's manifest

	roots    map[*manifestInfo][]rustRoot
	children map[string]map[string]string // module file → child name → file
	parent   map[string]string            // module file → its parent module file
	rootOf   map[string]string            // module file → its crate root file
	rootKind map[string]string            // crate root file → lib, bin, example, test, bench, build
	testMod  map[string]bool              // module files declared under #[cfg(test)], and their subtrees
}

// rustRoot is a crate root: its file and the kind of target it is.
type rustRoot struct{ file, kind string }

var rustBuiltin = map[string]bool{"std": true, "core": true, "alloc": true, "proc_macro": true, "test": true}

func (s *rustState) init(r *resolver) {
	s.r = r
	s.crates = map[string]*manifestInfo{}
	s.memo = map[string]*manifestInfo{}
	s.roots = map[*manifestInfo][]rustRoot{}
	s.children = map[string]map[string]string{}
	s.parent = map[string]string{}
	s.rootOf = map[string]string{}
	s.rootKind = map[string]string{}
	s.testMod = map[string]bool{}
	var pkgs []*manifestInfo
	for _, mi := range r.ix.manifests {
		if path.Base(mi.m.Path) == "Cargo.toml" && mi.crate != "" && !skipModuleDir(mi.dir) {
			if _, dup := s.crates[mi.crate]; !dup {
				s.crates[mi.crate] = mi
			}
			pkgs = append(pkgs, mi)
		}
	}
	if len(pkgs) == 0 {
		return
	}
	// Discovered targets: the Rust files directly in src/bin, examples,
	// tests, benches, and their main.rs one folder down.
	byDir := map[string][]string{}
	for i := range r.ix.files {
		f := &r.ix.files[i]
		if f.Language == "Rust" && strings.HasSuffix(f.Path, ".rs") {
			byDir[dirOf(f.Path)] = append(byDir[dirOf(f.Path)], f.Path)
		}
	}
	for _, mi := range pkgs {
		s.roots[mi] = s.crateRoots(mi, byDir)
		for _, root := range s.roots[mi] {
			s.rootKind[root.file] = root.kind
			s.walkTree(root.file)
		}
	}
}

// crateRoots lists a package's crate roots, the library first.
func (s *rustState) crateRoots(mi *manifestInfo, byDir map[string][]string) []rustRoot {
	exists := s.r.ix.exists
	var out []rustRoot
	seen := map[string]bool{}
	add := func(rel, kind string) {
		p, ok := joinDir(mi.dir, rel)
		if ok && exists(p) && !seen[p] {
			seen[p] = true
			out = append(out, rustRoot{p, kind})
		}
	}
	ct := mi.cargo
	if ct == nil {
		ct = &cargoTargets{}
	}
	if ct.lib != "" {
		add(ct.lib, "lib")
	} else {
		add("src/lib.rs", "lib")
	}
	for _, d := range ct.declared {
		add(d.path, d.kind)
	}
	auto := func(kind string) bool { return ct.auto == nil || ct.auto[kind] }
	if auto("bin") {
		add("src/main.rs", "bin")
	}
	discover := func(dir, kind string) {
		if !auto(kind) {
			return
		}
		full := path.Join(mi.dir, dir)
		for _, p := range byDir[full] {
			add(strings.TrimPrefix(strings.TrimPrefix(p, mi.dir), "/"), kind)
		}
		var subs []string
		for d := range byDir {
			if dirOf(d) == full {
				subs = append(subs, d)
			}
		}
		sort.Strings(subs)
		for _, d := range subs {
			add(strings.TrimPrefix(strings.TrimPrefix(path.Join(d, "main.rs"), mi.dir), "/"), kind)
		}
	}
	discover("src/bin", "bin")
	discover("examples", "example")
	discover("tests", "test")
	discover("benches", "bench")
	switch {
	case ct.noBuild:
	case ct.build != "":
		add(ct.build, "build")
	default:
		add("build.rs", "build")
	}
	return out
}

// isModRs reports a file whose child modules live in its own folder: a
// crate root, mod.rs, lib.rs or main.rs.
func (s *rustState) isModRs(file string) bool {
	switch path.Base(file) {
	case "mod.rs", "lib.rs", "main.rs":
		return true
	}
	return s.rootOf[file] == file
}

// childFile finds the file of module name declared in (or, without a
// declaration, laid out under) the module file parent.
func (s *rustState) childFile(parent, name, attrPath string) string {
	if attrPath != "" {
		if p, ok := joinDir(dirOf(parent), attrPath); ok && s.r.ix.exists(p) {
			return p
		}
		return ""
	}
	base := dirOf(parent)
	if !s.isModRs(parent) {
		base = path.Join(base, strings.TrimSuffix(path.Base(parent), ".rs"))
	}
	for _, c := range []string{path.Join(base, name+".rs"), path.Join(base, name, "mod.rs")} {
		if s.r.ix.exists(c) {
			return c
		}
	}
	return ""
}

// walkTree follows the mod declarations from a crate root.
func (s *rustState) walkTree(root string) {
	if _, done := s.rootOf[root]; done {
		return // a file that is also a module of another crate keeps its first place
	}
	s.rootOf[root] = root
	queue := []string{root}
	for len(queue) > 0 {
		file := queue[0]
		queue = queue[1:]
		f := &s.r.ix.files[s.r.ix.byPath[file]]
		for _, m := range f.Submodules {
			child := s.childFile(file, m.Name, m.Path)
			if child == "" {
				continue
			}
			if s.children[file] == nil {
				s.children[file] = map[string]string{}
			}
			s.children[file][m.Name] = child
			if _, seen := s.rootOf[child]; seen {
				continue
			}
			s.rootOf[child] = root
			s.parent[child] = file
			if m.Test || s.testMod[file] {
				s.testMod[child] = true
			}
			queue = append(queue, child)
		}
	}
}

// crateOf returns the Cargo.toml of the package containing dir.
func (s *rustState) crateOf(dir string) *manifestInfo {
	if mi, ok := s.memo[dir]; ok {
		return mi
	}
	var found *manifestInfo
	for _, mi := range s.r.ix.manifests {
		if mi.dir == dir && path.Base(mi.m.Path) == "Cargo.toml" && mi.crate != "" {
			found = mi
		}
	}
	if found == nil && dir != "" {
		found = s.crateOf(dirOf(dir))
	}
	s.memo[dir] = found
	return found
}

// place returns the module file of a file (itself) and its crate root;
// a file no declaration reaches is placed under the nearest root whose
// folder holds it.
func (s *rustState) place(mi *manifestInfo, file string) (root string, ok bool) {
	if r, ok := s.rootOf[file]; ok {
		return r, true
	}
	var best *rustRoot
	for i, rt := range s.roots[mi] {
		d := dirOf(rt.file)
		if d != "" && !strings.HasPrefix(file, d+"/") {
			continue
		}
		if bd := ""; best != nil {
			bd = dirOf(best.file)
			if len(d) < len(bd) || len(d) == len(bd) && (best.kind == "lib" || rt.kind != "lib") {
				continue // the deepest root's folder, the library's on a tie
			}
		}
		best = &s.roots[mi][i]
	}
	if best == nil {
		return "", false
	}
	return best.file, true
}

// devOnly reports a Rust file of an example, a benchmark or an
// integration test, or a module declared under #[cfg(test)]: code that
// builds only with the dev-dependencies, never part of what the package
// ships.
func (s *rustState) devOnly(f *model.File) bool {
	if len(s.roots) == 0 {
		return false
	}
	own := s.crateOf(dirOf(f.Path))
	if own == nil {
		return false
	}
	if s.testMod[f.Path] {
		return true // declared under #[cfg(test)]: the crate's tests only
	}
	root, ok := s.place(own, f.Path)
	if !ok {
		return false
	}
	switch s.rootKind[root] {
	case "example", "bench", "test":
		return true
	}
	return false
}

// libRoot is a package's library crate root, "" without one.
func (s *rustState) libRoot(mi *manifestInfo) string {
	for _, rt := range s.roots[mi] {
		if rt.kind == "lib" {
			return rt.file
		}
	}
	return ""
}

// walk follows a path of module names from the module file from; it
// returns the deepest module file reached (what follows are items in
// it), and how many names it consumed.
func (s *rustState) walk(from string, segs []string) (string, int) {
	cur := from
	n := 0
	for _, seg := range segs {
		next := s.children[cur][seg]
		if next == "" {
			next = s.childFile(cur, seg, "") // undeclared here (a mod in a macro): the layout
		}
		if next == "" {
			break
		}
		cur = next
		n++
	}
	return cur, n
}

// parentModule is the module file above a module file: its declaring
// parent, else the layout's.
func (s *rustState) parentModule(file, root string) string {
	if p, ok := s.parent[file]; ok {
		return p
	}
	if file == root {
		return root
	}
	d := dirOf(file)
	if path.Base(file) == "mod.rs" {
		d = dirOf(d)
	}
	for _, c := range []string{d + "/mod.rs", d + ".rs"} {
		if s.r.ix.exists(c) && c != file {
			return c
		}
	}
	return root
}

func (s *rustState) resolve(f *model.File, spec string) (model.ImportKind, string) {
	segs := strings.Split(spec, "::")
	first := segs[0]
	if rustBuiltin[first] {
		return model.ImportBuiltin, first
	}
	own := s.crateOf(dirOf(f.Path))
	var root string
	if own != nil {
		root, _ = s.place(own, f.Path)
	}
	internal := func(from string, rest []string) (model.ImportKind, string) {
		if own == nil || root == "" {
			return model.ImportUnresolved, ""
		}
		t, _ := s.walk(from, rest)
		return model.ImportInternalFile, t
	}
	switch first {
	case "crate":
		return internal(root, segs[1:])
	case "self":
		return internal(f.Path, segs[1:])
	case "super":
		cur := f.Path
		i := 0
		for i < len(segs) && segs[i] == "super" {
			cur = s.parentModule(cur, root)
			i++
		}
		return internal(cur, segs[i:])
	}
	if own != nil {
		if own.renames != nil {
			if pkg, ok := own.renames[first]; ok {
				if other := s.crates[strings.ReplaceAll(pkg, "-", "_")]; other != nil && other != own {
					return s.otherCrate(other, segs[1:])
				}
				return model.ImportExternal, pkg
			}
		}
		if lib := s.libRoot(own); first == own.crate && lib != "" && root != lib {
			// A binary, test, example or bench uses its package's library
			// by the crate's name.
			t, _ := s.walk(lib, segs[1:])
			return model.ImportInternalFile, t
		}
	}
	if other := s.crates[first]; other != nil && other != own {
		return s.otherCrate(other, segs[1:])
	}
	if own != nil {
		for _, d := range own.m.Dependencies {
			if strings.ReplaceAll(d.Name, "-", "_") == first {
				return model.ImportExternal, d.Name
			}
		}
		// A bare path to a module of this crate (2018 edition), relative
		// to the current module, or from the crate root (2015).
		if root != "" {
			for _, from := range []string{f.Path, root} {
				if t, n := s.walk(from, segs); n > 0 {
					return model.ImportInternalFile, t
				}
			}
		}
	}
	// A dependency inherited from the workspace root.
	for _, mi := range s.r.ix.manifests {
		if path.Base(mi.m.Path) == "Cargo.toml" && mi.crate == "" {
			for _, d := range mi.m.Dependencies {
				if strings.ReplaceAll(d.Name, "-", "_") == first {
					return model.ImportExternal, d.Name
				}
			}
		}
	}
	return model.ImportUnresolved, ""
}

func (s *rustState) otherCrate(mi *manifestInfo, rest []string) (model.ImportKind, string) {
	if lib := s.libRoot(mi); lib != "" {
		t, _ := s.walk(lib, rest)
		return model.ImportWorkspacePackage, t
	}
	return model.ImportWorkspacePackage, moduleID(s.r.mods.of(mi.dir))
}
