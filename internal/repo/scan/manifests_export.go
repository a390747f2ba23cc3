package scan

import "github.com/kontext-dev/kontext/internal/repo/model"

// ManifestDependencies parses a manifest's content as the engine does
// (chosen by the file name of p: go.mod, package.json, Cargo.toml,
// pyproject.toml, …) and returns the dependencies it declares, without Go's
// indirect requirements (not the repository's choice); ok is false
// when p names no manifest the engine reads. The knowledge bootstrap
// compares two versions of a manifest with it to tell a dependency swap
// from an upgrade.
func ManifestDependencies(p string, data []byte) (deps []model.PackageDep, ok bool) {
	infos := parseManifest(p, data, func(string) bool { return false })
	if len(infos) == 0 {
		return nil, false
	}
	mi := infos[0]
	for _, d := range mi.m.Dependencies {
		if !mi.goIndirect[d.Name] {
			deps = append(deps, d)
		}
	}
	return deps, true
}
