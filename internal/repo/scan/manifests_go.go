package scan

import (
	"slices"
	"strings"

	"golang.org/x/mod/modfile"

	"github.com/kontext-dev/kontext/internal/repo/model"
)

// parseGoMod reads go.mod with the Go team's own parser: the module path,
// requirements (indirect ones are dev-like: not imported directly) and
// replace directives to local directories (internal edges).
func parseGoMod(p string, data []byte, exists func(string) bool) *manifestInfo {
	f, err := modfile.Parse(p, data, nil)
	if err != nil {
		if f, err = modfile.ParseLax(p, data, nil); err != nil {
			return &manifestInfo{m: model.Manifest{Ecosystem: "go", Problems: []string{err.Error()}}}
		}
	}
	dir := dirOf(p)
	mi := &manifestInfo{m: model.Manifest{Ecosystem: "go"}, goReplace: map[string]string{}, goIndirect: map[string]bool{}}
	if f.Module != nil {
		mi.m.Name = f.Module.Mod.Path
	}
	local := map[string]string{}
	for _, r := range f.Replace {
		if modfile.IsDirectoryPath(r.New.Path) {
			if d, ok := joinDir(dir, r.New.Path); ok {
				mi.goReplace[r.Old.Path] = d
				local[r.Old.Path] = d
			}
		}
	}
	for _, r := range f.Require {
		d := model.PackageDep{Name: r.Mod.Path, Version: r.Mod.Version}
		if r.Indirect {
			mi.goIndirect[r.Mod.Path] = true
		}
		if l, ok := local[r.Mod.Path]; ok {
			d.Path = l
			mi.m.Internal = append(mi.m.Internal, r.Mod.Path)
		}
		mi.m.Dependencies = append(mi.m.Dependencies, d)
	}
	vendorDir := "vendor/modules.txt"
	if dir != "" {
		vendorDir = dir + "/" + vendorDir
	}
	mi.goVendor = exists(vendorDir)
	return mi
}

// parseGoWork reads go.work: its use directives are the workspace.
func parseGoWork(p string, data []byte) *manifestInfo {
	f, err := modfile.ParseWork(p, data, nil)
	mi := &manifestInfo{m: model.Manifest{Ecosystem: "go"}, wsTool: "go", goReplace: map[string]string{}}
	if err != nil {
		mi.m.Problems = append(mi.m.Problems, err.Error())
		return mi
	}
	dir := dirOf(p)
	for _, u := range f.Use {
		mi.wsGlobs = append(mi.wsGlobs, u.Path)
	}
	for _, r := range f.Replace {
		if modfile.IsDirectoryPath(r.New.Path) {
			if d, ok := joinDir(dir, r.New.Path); ok {
				mi.goReplace[r.Old.Path] = d
			}
		}
	}
	return mi
}

// parseModulesTxt reads vendor/modules.txt: "# module version" lines
// (or "# old => new version" for a replaced one) followed by the
// module's vendored packages, one a line; "## " lines are annotations.
func parseModulesTxt(data []byte) (pkgs, versions map[string]string) {
	pkgs, versions = map[string]string{}, map[string]string{}
	mod := ""
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "" || strings.HasPrefix(line, "## "):
		case strings.HasPrefix(line, "# "):
			f := strings.Fields(line[2:])
			if len(f) == 0 {
				continue
			}
			mod = f[0]
			if i := slices.Index(f, "=>"); i >= 0 {
				if len(f) > i+2 {
					versions[mod] = f[len(f)-1]
				}
			} else if len(f) > 1 {
				versions[mod] = f[1]
			}
		case mod != "" && !strings.HasPrefix(line, "#"):
			pkgs[line] = mod
		}
	}
	return pkgs, versions
}
