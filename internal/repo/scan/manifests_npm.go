package scan

import (
	"encoding/json"
	"path"
	"sort"
	"strings"

	"github.com/kontext-dev/kontext/internal/jsonc"
	"github.com/kontext-dev/kontext/internal/repo/model"
	"github.com/kontext-dev/kontext/internal/safeyaml"
)

type packageJSON struct {
	Name                 string          `json:"name"`
	Version              string          `json:"version"`
	Description          string          `json:"description"`
	Main                 string          `json:"main"`
	Module               string          `json:"module"`
	Types                string          `json:"types"`
	Typings              string          `json:"typings"`
	Source               string          `json:"source"`
	Bin                  json.RawMessage `json:"bin"`
	Scripts              map[string]any  `json:"scripts"`
	Exports              json.RawMessage `json:"exports"`
	Dependencies         map[string]any  `json:"dependencies"`
	DevDependencies      map[string]any  `json:"devDependencies"`
	PeerDependencies     map[string]any  `json:"peerDependencies"`
	OptionalDependencies map[string]any  `json:"optionalDependencies"`
	Workspaces           json.RawMessage `json:"workspaces"`
}

// parsePackageJSON reads package.json: dependencies of every kind (dev for
// devDependencies), workspace:/file:/link: protocols as local edges, the
// "workspaces" declaration, scripts, bins and entry points.
func parsePackageJSON(p string, data []byte, exists func(string) bool) *manifestInfo {
	var pj packageJSON
	if err := json.Unmarshal(data, &pj); err != nil {
		return &manifestInfo{m: model.Manifest{Ecosystem: "npm", Problems: []string{"package.json: " + err.Error()}}}
	}
	dir := dirOf(p)
	mi := &manifestInfo{m: model.Manifest{Ecosystem: "npm", Name: pj.Name, Version: pj.Version, Description: pj.Description}}
	addDeps := func(deps map[string]any, dev bool) {
		for name, v := range deps {
			version, _ := v.(string)
			d := model.PackageDep{Name: name, Version: version, Dev: dev}
			switch {
			case strings.HasPrefix(version, "workspace:"):
				mi.m.Internal = append(mi.m.Internal, name)
				d.Path = "workspace:"
			case strings.HasPrefix(version, "file:") || strings.HasPrefix(version, "link:") || strings.HasPrefix(version, "portal:"):
				if l, ok := joinDir(dir, version[strings.IndexByte(version, ':')+1:]); ok {
					d.Path = l
					mi.m.Internal = append(mi.m.Internal, name)
				}
			}
			mi.m.Dependencies = append(mi.m.Dependencies, d)
		}
	}
	addDeps(pj.Dependencies, false)
	addDeps(pj.PeerDependencies, false)
	addDeps(pj.OptionalDependencies, false)
	addDeps(pj.DevDependencies, true)
	for s := range pj.Scripts {
		mi.m.Scripts = append(mi.m.Scripts, s)
	}
	sort.Strings(mi.m.Scripts)
	if len(pj.Bin) > 0 {
		var one string
		var many map[string]string
		if json.Unmarshal(pj.Bin, &one) == nil && one != "" {
			mi.m.Bins = []string{path.Base(pj.Name)}
		} else if json.Unmarshal(pj.Bin, &many) == nil {
			for k := range many {
				mi.m.Bins = append(mi.m.Bins, k)
			}
			sort.Strings(mi.m.Bins)
		}
	}
	if len(pj.Workspaces) > 0 {
		var globs []string
		var obj struct {
			Packages []string `json:"packages"`
		}
		if json.Unmarshal(pj.Workspaces, &globs) != nil {
			if json.Unmarshal(pj.Workspaces, &obj) == nil {
				globs = obj.Packages
			}
		}
		if len(globs) > 0 {
			mi.wsGlobs = globs
			mi.wsTool = "npm"
			switch {
			case exists(path.Join(dir, "yarn.lock")):
				mi.wsTool = "yarn"
			case exists(path.Join(dir, "bun.lock")) || exists(path.Join(dir, "bun.lockb")):
				mi.wsTool = "bun"
			}
		}
	}
	mi.entries = npmEntries(pj)
	return mi
}

// npmEntries maps the package's subpaths ("." and "./sub") to files, from
// "exports" (conditions import/require/default/types, nested) or
// main/module/types/source.
func npmEntries(pj packageJSON) map[string]string {
	entries := map[string]string{}
	if len(pj.Exports) > 0 {
		var v any
		if json.Unmarshal(pj.Exports, &v) == nil {
			switch e := v.(type) {
			case string:
				entries["."] = e
			case map[string]any:
				subpaths := false
				for k := range e {
					if strings.HasPrefix(k, ".") {
						subpaths = true
					}
				}
				if !subpaths {
					if t := exportTarget(e); t != "" {
						entries["."] = t
					}
				} else {
					for k, val := range e {
						if t := exportTarget(val); t != "" {
							entries[k] = t
						}
					}
				}
			}
		}
	}
	if entries["."] == "" {
		for _, c := range []string{pj.Source, pj.Types, pj.Typings, pj.Module, pj.Main} {
			if c != "" {
				entries["."] = c
				break
			}
		}
	}
	return entries
}

// exportTarget picks the file an export condition map leads to, preferring
// source-like conditions.
func exportTarget(v any) string {
	switch e := v.(type) {
	case string:
		return e
	case map[string]any:
		for _, cond := range []string{"source", "types", "import", "module", "require", "node", "default"} {
			if t := exportTarget(e[cond]); t != "" {
				return t
			}
		}
	case []any:
		for _, x := range e {
			if t := exportTarget(x); t != "" {
				return t
			}
		}
	}
	return ""
}

// parsePnpmWorkspace reads pnpm-workspace.yaml's packages globs.
func parsePnpmWorkspace(p string, data []byte) *manifestInfo {
	var ws struct {
		Packages []string `yaml:"packages"`
	}
	mi := &manifestInfo{m: model.Manifest{Ecosystem: "npm"}, wsTool: "pnpm"}
	if err := safeyaml.Unmarshal(data, &ws); err == nil {
		mi.wsGlobs = ws.Packages
	}
	return mi
}

// parseDeno reads deno.json(c): the import map's npm:/jsr: packages and
// the workspace members.
func parseDeno(p string, data []byte) *manifestInfo {
	var dj struct {
		Name      string            `json:"name"`
		Version   string            `json:"version"`
		Imports   map[string]string `json:"imports"`
		Workspace stringOrList      `json:"workspace"`
		Tasks     map[string]any    `json:"tasks"`
		Exports   json.RawMessage   `json:"exports"`
	}
	mi := &manifestInfo{m: model.Manifest{Ecosystem: "deno"}}
	if err := jsonc.Unmarshal(data, &dj); err != nil {
		mi.m.Problems = append(mi.m.Problems, path.Base(p)+": "+err.Error())
		return mi
	}
	mi.m.Name, mi.m.Version = dj.Name, dj.Version
	dir := dirOf(p)
	for alias, target := range dj.Imports {
		name, version := denoSpecifier(target)
		d := model.PackageDep{Name: name, Version: version}
		if name == "" {
			if l, ok := joinDir(dir, target); ok && (strings.HasPrefix(target, "./") || strings.HasPrefix(target, "../")) {
				d = model.PackageDep{Name: strings.TrimSuffix(alias, "/"), Path: l}
			} else {
				continue
			}
		}
		mi.m.Dependencies = append(mi.m.Dependencies, d)
	}
	for t := range dj.Tasks {
		mi.m.Scripts = append(mi.m.Scripts, t)
	}
	sort.Strings(mi.m.Scripts)
	if len(dj.Workspace) > 0 {
		mi.wsTool = "deno"
		mi.wsGlobs = dj.Workspace
	}
	if len(dj.Exports) > 0 {
		mi.entries = npmEntries(packageJSON{Exports: dj.Exports})
	}
	return mi
}

// denoSpecifier splits "npm:name@1.2" / "jsr:@scope/name@^1" into the
// package name (with its registry) and version.
func denoSpecifier(s string) (name, version string) {
	var reg string
	switch {
	case strings.HasPrefix(s, "npm:"):
		reg, s = "npm:", s[4:]
	case strings.HasPrefix(s, "jsr:"):
		reg, s = "jsr:", s[4:]
	default:
		return "", ""
	}
	s = strings.TrimPrefix(s, "/")
	at := strings.LastIndexByte(s, '@')
	if at > 0 {
		name, version = s[:at], s[at+1:]
	} else {
		name = s
	}
	// jsr:@std/path@1/posix: a subpath after the version.
	if i := strings.IndexByte(version, '/'); i >= 0 {
		version = version[:i]
	}
	name = npmPackageName(name)
	return reg + name, version
}

// npmPackageName returns the package part of a bare specifier: "@s/n" for
// a scoped one, the first segment otherwise.
func npmPackageName(spec string) string {
	parts := strings.SplitN(spec, "/", 3)
	if strings.HasPrefix(spec, "@") && len(parts) >= 2 {
		return parts[0] + "/" + parts[1]
	}
	return parts[0]
}

// tsconfig is the part of tsconfig.json/jsconfig.json the resolver uses.
type tsconfig struct {
	Extends         stringOrList `json:"extends"`
	CompilerOptions struct {
		BaseURL *string             `json:"baseUrl"`
		Paths   map[string][]string `json:"paths"`
	} `json:"compilerOptions"`
}
