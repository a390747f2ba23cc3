package scan

import (
	"sort"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/kontext-dev/kontext/internal/repo/model"
)

// parseCargo reads Cargo.toml: the package (its crate name as code spells
// it), dependencies of every table (dev- and build- are dev), path
// dependencies as internal edges, workspace members.
func parseCargo(p string, data []byte) *manifestInfo {
	var ct struct {
		Package struct {
			Name        string `toml:"name"`
			Version     any    `toml:"version"`
			Description any    `toml:"description"`
		} `toml:"package"`
		Lib struct {
			Name string `toml:"name"`
		} `toml:"lib"`
		Bin               []struct{ Name string } `toml:"bin"`
		Dependencies      map[string]any          `toml:"dependencies"`
		DevDependencies   map[string]any          `toml:"dev-dependencies"`
		BuildDependencies map[string]any          `toml:"build-dependencies"`
		Target            map[string]struct {
			Dependencies    map[string]any `toml:"dependencies"`
			DevDependencies map[string]any `toml:"dev-dependencies"`
		} `toml:"target"`
		Workspace *struct {
			Members      []string       `toml:"members"`
			Exclude      []string       `toml:"exclude"`
			Dependencies map[string]any `toml:"dependencies"`
		} `toml:"workspace"`
	}
	mi := &manifestInfo{m: model.Manifest{Ecosystem: "cargo"}, renames: map[string]string{}}
	if _, err := toml.Decode(string(data), &ct); err != nil {
		mi.m.Problems = append(mi.m.Problems, "Cargo.toml: "+err.Error())
		return mi
	}
	dir := dirOf(p)
	mi.m.Name = ct.Package.Name
	if v, ok := ct.Package.Version.(string); ok {
		mi.m.Version = v
	}
	if d, ok := ct.Package.Description.(string); ok {
		mi.m.Description = d
	}
	mi.crate = strings.ReplaceAll(ct.Package.Name, "-", "_")
	if ct.Lib.Name != "" {
		mi.crate = ct.Lib.Name
	}
	for _, b := range ct.Bin {
		if b.Name != "" {
			mi.m.Bins = append(mi.m.Bins, b.Name)
		}
	}
	add := func(deps map[string]any, dev bool) {
		for name, v := range deps {
			d := model.PackageDep{Name: name, Dev: dev}
			switch x := v.(type) {
			case string:
				d.Version = x
			case map[string]any:
				if s, ok := x["version"].(string); ok {
					d.Version = s
				}
				if pkg, ok := x["package"].(string); ok && pkg != "" {
					mi.renames[strings.ReplaceAll(name, "-", "_")] = pkg
					d.Name = pkg
				}
				if s, ok := x["path"].(string); ok {
					if l, ok := joinDir(dir, s); ok {
						d.Path = l
						mi.m.Internal = append(mi.m.Internal, d.Name)
					}
				}
				if ws, ok := x["workspace"].(bool); ok && ws && d.Version == "" {
					d.Version = "workspace"
				}
			}
			mi.m.Dependencies = append(mi.m.Dependencies, d)
		}
	}
	add(ct.Dependencies, false)
	add(ct.DevDependencies, true)
	add(ct.BuildDependencies, true)
	for _, t := range ct.Target {
		add(t.Dependencies, false)
		add(t.DevDependencies, true)
	}
	if ws := ct.Workspace; ws != nil {
		if ct.Package.Name == "" {
			// A virtual manifest's [workspace.dependencies] are the versions
			// members inherit.
			add(ws.Dependencies, false)
		}
		// The members: the globs, the root package itself, and its path
		// dependencies inside the workspace (Cargo adds both).
		mi.wsTool = "cargo"
		mi.wsGlobs = append(mi.wsGlobs, ws.Members...)
		if ct.Package.Name != "" {
			mi.wsGlobs = append(mi.wsGlobs, ".")
			for _, d := range mi.m.Dependencies {
				if d.Path != "" && (dir == "" || strings.HasPrefix(d.Path, dir+"/")) {
					mi.wsGlobs = append(mi.wsGlobs, strings.TrimPrefix(strings.TrimPrefix(d.Path, dir), "/"))
				}
			}
		}
		for _, x := range ws.Exclude {
			mi.wsGlobs = append(mi.wsGlobs, "!"+x)
		}
	}
	sort.Strings(mi.m.Internal)
	return mi
}
