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
			Build       any    `toml:"build"`
			AutoBins    *bool  `toml:"autobins"`
			AutoExample *bool  `toml:"autoexamples"`
			AutoTests   *bool  `toml:"autotests"`
			AutoBenches *bool  `toml:"autobenches"`
		} `toml:"package"`
		Lib struct {
			Name string `toml:"name"`
			Path string `toml:"path"`
		} `toml:"lib"`
		Bin               []cargoTargetDecl `toml:"bin"`
		Example           []cargoTargetDecl `toml:"example"`
		Test              []cargoTargetDecl `toml:"test"`
		Bench             []cargoTargetDecl `toml:"bench"`
		Dependencies      map[string]any    `toml:"dependencies"`
		DevDependencies   map[string]any    `toml:"dev-dependencies"`
		BuildDependencies map[string]any    `toml:"build-dependencies"`
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
	// The crate roots Cargo.toml names; resolution adds those Cargo
	// discovers (src/lib.rs, src/main.rs, src/bin/*, examples/, tests/,
	// benches/, build.rs) unless auto-discovery is off.
	ctg := &cargoTargets{lib: ct.Lib.Path}
	if ct.Package.Name != "" {
		ctg.auto = map[string]bool{"bin": ct.Package.AutoBins == nil || *ct.Package.AutoBins,
			"example": ct.Package.AutoExample == nil || *ct.Package.AutoExample,
			"test":    ct.Package.AutoTests == nil || *ct.Package.AutoTests,
			"bench":   ct.Package.AutoBenches == nil || *ct.Package.AutoBenches}
		switch b := ct.Package.Build.(type) {
		case string:
			ctg.build = b
		case bool:
			ctg.noBuild = !b
		}
	}
	for kind, decls := range map[string][]cargoTargetDecl{"bin": ct.Bin, "example": ct.Example, "test": ct.Test, "bench": ct.Bench} {
		for _, d := range decls {
			if d.Path != "" {
				ctg.declared = append(ctg.declared, cargoTarget{kind: kind, name: d.Name, path: d.Path})
			}
		}
	}
	sort.Slice(ctg.declared, func(i, j int) bool { return ctg.declared[i].path < ctg.declared[j].path })
	mi.cargo = ctg
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

type cargoTargetDecl struct {
	Name string `toml:"name"`
	Path string `toml:"path"`
}

// cargoTargets are the crate roots a Cargo.toml declares (paths relative
// to its directory) and which kinds Cargo discovers by itself.
type cargoTargets struct {
	lib      string // [lib] path
	declared []cargoTarget
	auto     map[string]bool
	build    string // [package] build = "…"
	noBuild  bool   // build = false
}

type cargoTarget struct{ kind, name, path string }
