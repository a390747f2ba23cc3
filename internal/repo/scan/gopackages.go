package scan

import (
	"go/build"
	"io"
	"path"
	"sort"
	"strings"

	"github.com/kontext-dev/kontext/internal/repo/model"
)

// GoPackage is a Go package as one build configuration sees it, computed
// from the graph alone: the same fields `go list -json` reports.
type GoPackage struct {
	Dir          string // relative to the root ("" for the root)
	ImportPath   string
	Name         string
	GoFiles      []string
	Imports      []string
	TestImports  []string
	XTestImports []string
}

// GoPackages computes the Go packages of a graph for a build context
// (GOOS, GOARCH, cgo, tags): which files go/build would include — its own
// MatchFile decides, on each file's recorded constraint and name — and
// their imports, in go list's order and spelling (inside GOROOT, an import
// satisfied from a vendor directory is reported by that directory's path,
// as go list does).
func GoPackages(g *model.Graph, ctxt *build.Context) []GoPackage {
	byDir := map[string][]*model.File{}
	var dirs []string
	for i := range g.Files {
		f := &g.Files[i]
		if f.Language != "Go" || !strings.HasSuffix(f.Path, ".go") {
			continue
		}
		d := dirOf(f.Path)
		if !goPackageDir(d) {
			continue
		}
		if _, ok := byDir[d]; !ok {
			dirs = append(dirs, d)
		}
		byDir[d] = append(byDir[d], f)
	}
	sort.Strings(dirs)
	var goMods []*manifestInfo
	for _, m := range g.Manifests {
		if path.Base(m.Path) == "go.mod" && !skipModuleDir(dirOf(m.Path)) {
			goMods = append(goMods, &manifestInfo{m: m, dir: dirOf(m.Path)})
		}
	}
	var out []GoPackage
	for _, d := range dirs {
		pkg := GoPackage{Dir: d, ImportPath: goImportPath(goMods, d)}
		inGOROOT := false
		modDir := ""
		if m := owningGoMod(goMods, d); m != nil {
			inGOROOT = m.m.Name == "std" || m.m.Name == "cmd"
			modDir = m.dir
		}
		var imports, tests, xtests []model.Import
		n := 0
		for _, f := range byDir[d] {
			name := path.Base(f.Path)
			if !matchGoFile(ctxt, name, f) {
				continue
			}
			pkgName := f.Package
			if pkgName == "documentation" {
				continue
			}
			isTest := strings.HasSuffix(name, "_test.go")
			isXTest := false
			if isTest && strings.HasSuffix(pkgName, "_test") && pkg.Name != pkgName {
				isXTest = true
				pkgName = strings.TrimSuffix(pkgName, "_test")
			}
			if pkg.Name == "" {
				pkg.Name = pkgName
			}
			n++
			switch {
			case isXTest:
				xtests = append(xtests, f.Imports...)
			case isTest:
				tests = append(tests, f.Imports...)
			default:
				pkg.GoFiles = append(pkg.GoFiles, name)
				imports = append(imports, f.Imports...)
			}
		}
		if n == 0 {
			continue // go/build's NoGoError: not a package in this configuration
		}
		// go list sorts Imports by the path as written, then maps vendored
		// ones; TestImports and XTestImports are sorted after mapping.
		spell := func(imps []model.Import, sortMapped bool) []string {
			raw := map[string]string{}
			for _, imp := range imps {
				s := imp.Spec
				if inGOROOT && imp.Kind == model.ImportExternal {
					// Satisfied from the module's vendor directory (a use
					// of the vendored module in the graph).
					if vd := path.Join(modDir, "vendor", imp.Spec); byDir[vd] != nil {
						s = goImportPath(goMods, vd)
					}
				}
				raw[imp.Spec] = s
			}
			keys := make([]string, 0, len(raw))
			for k := range raw {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			out := make([]string, len(keys))
			for i, k := range keys {
				out[i] = raw[k]
			}
			if sortMapped {
				sort.Strings(out)
			}
			return out
		}
		pkg.Imports, pkg.TestImports, pkg.XTestImports = spell(imports, false), spell(tests, true), spell(xtests, true)
		out = append(out, pkg)
	}
	return out
}

func isVendorDir(d string) bool {
	return strings.HasPrefix(d, "vendor/") || strings.Contains(d, "/vendor/")
}

// matchGoFile asks go/build whether the file is in the build: it gets a
// stand-in with the file's recorded constraint and package clause, so the
// file-name rules (_GOOS, _GOARCH, _test) and the constraint evaluation
// are go/build's own. A file importing "C" is out when cgo is off.
func matchGoFile(ctxt *build.Context, name string, f *model.File) bool {
	var b strings.Builder
	if f.Constraint != "" {
		b.WriteString("//go:build " + f.Constraint + "\n\n")
	}
	pkg := f.Package
	if pkg == "" {
		pkg = "p"
	}
	b.WriteString("package " + pkg + "\n")
	c := *ctxt
	c.OpenFile = func(string) (io.ReadCloser, error) {
		return io.NopCloser(strings.NewReader(b.String())), nil
	}
	c.JoinPath = func(elem ...string) string { return path.Join(elem...) }
	ok, err := c.MatchFile("/", name)
	if err != nil || !ok {
		return false
	}
	if !ctxt.CgoEnabled {
		for _, imp := range f.Imports {
			if imp.Spec == "C" {
				return false
			}
		}
	}
	return true
}
