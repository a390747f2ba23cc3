package scan

import (
	"path"
	"strings"

	"github.com/kontext-dev/kontext/internal/repo/model"
)

// rustState resolves Rust paths: crate::, self::, super:: and the
// 2018-edition bare paths by the crate's file layout (a::b is a/b.rs or
// a/b/mod.rs under the crate root's directory), other workspace crates by
// their crate names, the standard crates as builtin, and the Cargo.toml
// dependencies (with renames) as external packages.
type rustState struct {
	r      *resolver
	crates map[string]*manifestInfo // code name (dashes as underscores) → Cargo.toml
	memo   map[string]*manifestInfo // directory → its crate's manifest
}

var rustBuiltin = map[string]bool{"std": true, "core": true, "alloc": true, "proc_macro": true, "test": true}

func (s *rustState) init(r *resolver) {
	s.r = r
	s.crates = map[string]*manifestInfo{}
	s.memo = map[string]*manifestInfo{}
	for _, mi := range r.ix.manifests {
		if path.Base(mi.m.Path) == "Cargo.toml" && mi.crate != "" && !skipModuleDir(mi.dir) {
			if _, dup := s.crates[mi.crate]; !dup {
				s.crates[mi.crate] = mi
			}
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

// srcRoot is the directory a file's crate root lives in, and the crate
// root file itself.
func (s *rustState) srcRoot(mi *manifestInfo, file string) (dir, rootFile string) {
	src := path.Join(mi.dir, "src")
	// tests/, examples/, benches/ and src/bin/ files are crate roots of
	// their own.
	fd := dirOf(file)
	if fd == path.Join(mi.dir, "tests") || fd == path.Join(mi.dir, "examples") || fd == path.Join(mi.dir, "benches") || fd == path.Join(src, "bin") {
		return fd, file
	}
	for _, name := range []string{"lib.rs", "main.rs"} {
		if s.r.ix.exists(path.Join(src, name)) {
			return src, path.Join(src, name)
		}
	}
	return src, ""
}

// modPath is the module path of a file inside its crate (lib.rs: []).
func modPath(srcDir, rootFile, file string) []string {
	if file == rootFile {
		return nil
	}
	rel := strings.TrimPrefix(file, srcDir+"/")
	if rel == file {
		return nil
	}
	rel = strings.TrimSuffix(rel, ".rs")
	parts := strings.Split(rel, "/")
	if parts[len(parts)-1] == "mod" || parts[len(parts)-1] == "lib" || parts[len(parts)-1] == "main" {
		parts = parts[:len(parts)-1]
	}
	return parts
}

// fileFor finds the file defining the longest prefix of a module path.
func (s *rustState) fileFor(srcDir, rootFile string, segs []string) string {
	for k := len(segs); k >= 1; k-- {
		p := path.Join(append([]string{srcDir}, segs[:k]...)...)
		for _, c := range []string{p + ".rs", p + "/mod.rs"} {
			if s.r.ix.exists(c) {
				return c
			}
		}
	}
	return rootFile
}

func (s *rustState) resolve(f *model.File, spec string) (model.ImportKind, string) {
	segs := strings.Split(spec, "::")
	first := segs[0]
	if rustBuiltin[first] {
		return model.ImportBuiltin, first
	}
	own := s.crateOf(dirOf(f.Path))
	var srcDir, rootFile string
	var here []string
	if own != nil {
		srcDir, rootFile = s.srcRoot(own, f.Path)
		here = modPath(srcDir, rootFile, f.Path)
	}
	internal := func(base []string, rest []string) (model.ImportKind, string) {
		if own == nil {
			return model.ImportUnresolved, ""
		}
		full := append(append([]string{}, base...), rest...)
		if t := s.fileFor(srcDir, rootFile, full); t != "" {
			return model.ImportInternalFile, t
		}
		return model.ImportUnresolved, ""
	}
	switch first {
	case "crate":
		return internal(nil, segs[1:])
	case "self":
		return internal(here, segs[1:])
	case "super":
		base := here
		i := 0
		for i < len(segs) && segs[i] == "super" {
			if len(base) > 0 {
				base = base[:len(base)-1]
			}
			i++
		}
		return internal(base, segs[i:])
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
		if first == own.crate && dirOf(f.Path) != srcDir {
			// tests/ and examples/ use the library by its crate name.
			lib := path.Join(own.dir, "src")
			return model.ImportInternalFile, s.fileFor(lib, path.Join(lib, "lib.rs"), segs[1:])
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
		// to the current module.
		if t := s.fileFor(srcDir, "", append(append([]string{}, here...), first)); t != "" {
			return internal(here, segs)
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
	src := path.Join(mi.dir, "src")
	root := ""
	for _, name := range []string{"lib.rs", "main.rs"} {
		if s.r.ix.exists(path.Join(src, name)) {
			root = path.Join(src, name)
			break
		}
	}
	if t := s.fileFor(src, root, rest); t != "" {
		return model.ImportWorkspacePackage, t
	}
	return model.ImportWorkspacePackage, moduleID(s.r.mods.of(mi.dir))
}
