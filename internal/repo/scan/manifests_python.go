package scan

import (
	"bufio"
	"bytes"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/kontext-dev/kontext/internal/repo/model"
)

// parsePyproject reads pyproject.toml: PEP 621 [project] (dependencies,
// optional-dependencies and dependency-groups as dev), Poetry's
// [tool.poetry], uv workspace members and sources.
func parsePyproject(p string, data []byte) *manifestInfo {
	var pp struct {
		Project struct {
			Name                 string              `toml:"name"`
			Version              string              `toml:"version"`
			Description          string              `toml:"description"`
			Dependencies         []string            `toml:"dependencies"`
			OptionalDependencies map[string][]string `toml:"optional-dependencies"`
			Scripts              map[string]any      `toml:"scripts"`
		} `toml:"project"`
		DependencyGroups map[string][]any `toml:"dependency-groups"`
		Tool             struct {
			Poetry struct {
				Name            string         `toml:"name"`
				Version         string         `toml:"version"`
				Description     string         `toml:"description"`
				Dependencies    map[string]any `toml:"dependencies"`
				DevDependencies map[string]any `toml:"dev-dependencies"`
				Group           map[string]struct {
					Dependencies map[string]any `toml:"dependencies"`
				} `toml:"group"`
				Scripts map[string]any `toml:"scripts"`
			} `toml:"poetry"`
			UV struct {
				Workspace struct {
					Members []string `toml:"members"`
					Exclude []string `toml:"exclude"`
				} `toml:"workspace"`
				Sources map[string]map[string]any `toml:"sources"`
			} `toml:"uv"`
		} `toml:"tool"`
	}
	mi := &manifestInfo{m: model.Manifest{Ecosystem: "pypi"}}
	if _, err := toml.Decode(string(data), &pp); err != nil {
		mi.m.Problems = append(mi.m.Problems, "pyproject.toml: "+err.Error())
		return mi
	}
	dir := dirOf(p)
	pr, po := pp.Project, pp.Tool.Poetry
	mi.m.Name = firstNonEmpty(pr.Name, po.Name)
	mi.m.Version = firstNonEmpty(pr.Version, po.Version)
	mi.m.Description = firstNonEmpty(pr.Description, po.Description)
	for _, r := range pr.Dependencies {
		if d, ok := pep508(r); ok {
			mi.m.Dependencies = append(mi.m.Dependencies, d)
		}
	}
	for _, group := range pr.OptionalDependencies {
		for _, r := range group {
			if d, ok := pep508(r); ok {
				d.Dev = true
				mi.m.Dependencies = append(mi.m.Dependencies, d)
			}
		}
	}
	for _, group := range pp.DependencyGroups {
		for _, r := range group {
			if s, ok := r.(string); ok {
				if d, ok := pep508(s); ok {
					d.Dev = true
					mi.m.Dependencies = append(mi.m.Dependencies, d)
				}
			}
		}
	}
	poetry := func(deps map[string]any, dev bool) {
		for name, v := range deps {
			if strings.EqualFold(name, "python") {
				continue
			}
			d := model.PackageDep{Name: name, Dev: dev}
			switch x := v.(type) {
			case string:
				d.Version = x
			case map[string]any:
				if s, ok := x["version"].(string); ok {
					d.Version = s
				}
				if s, ok := x["path"].(string); ok {
					if l, ok := joinDir(dir, s); ok {
						d.Path = l
						mi.m.Internal = append(mi.m.Internal, name)
					}
				}
			}
			mi.m.Dependencies = append(mi.m.Dependencies, d)
		}
	}
	poetry(po.Dependencies, false)
	poetry(po.DevDependencies, true)
	for _, g := range po.Group {
		poetry(g.Dependencies, true)
	}
	for name, src := range pp.Tool.UV.Sources {
		if ws, _ := src["workspace"].(bool); ws {
			mi.m.Internal = append(mi.m.Internal, name)
		} else if s, ok := src["path"].(string); ok {
			if l, ok := joinDir(dir, s); ok {
				mi.m.Internal = append(mi.m.Internal, name)
				for i := range mi.m.Dependencies {
					if normalizePyName(mi.m.Dependencies[i].Name) == normalizePyName(name) {
						mi.m.Dependencies[i].Path = l
					}
				}
			}
		}
	}
	for s := range pr.Scripts {
		mi.m.Bins = append(mi.m.Bins, s)
	}
	for s := range po.Scripts {
		mi.m.Bins = append(mi.m.Bins, s)
	}
	sort.Strings(mi.m.Bins)
	sort.Strings(mi.m.Internal)
	if ws := pp.Tool.UV.Workspace; len(ws.Members) > 0 {
		mi.wsTool = "uv"
		mi.wsGlobs = ws.Members
		for _, x := range ws.Exclude {
			mi.wsGlobs = append(mi.wsGlobs, "!"+x)
		}
	}
	return mi
}

// pep508 reads a requirement like `requests[socks]>=2.0; python_version>"3"`.
func pep508(r string) (model.PackageDep, bool) {
	r = strings.TrimSpace(r)
	if i := strings.IndexByte(r, ';'); i >= 0 {
		r = strings.TrimSpace(r[:i])
	}
	if r == "" {
		return model.PackageDep{}, false
	}
	end := 0
	for end < len(r) && (isIdentPart(r[end]) || r[end] == '-' || r[end] == '.') && r[end] != '$' {
		end++
	}
	name := r[:end]
	if name == "" {
		return model.PackageDep{}, false
	}
	rest := strings.TrimSpace(r[end:])
	if strings.HasPrefix(rest, "[") {
		if i := strings.IndexByte(rest, ']'); i >= 0 {
			rest = strings.TrimSpace(rest[i+1:])
		}
	}
	d := model.PackageDep{Name: name, Version: strings.TrimSpace(strings.Trim(rest, "()"))}
	if strings.HasPrefix(rest, "@") {
		d.Version = strings.TrimSpace(rest[1:])
	}
	return d, true
}

// parseRequirements reads requirements*.txt (pip's format): one
// requirement a line; options, includes and URLs without a name are
// skipped; `-e ./path` is a local package.
func parseRequirements(p string, data []byte) *manifestInfo {
	mi := &manifestInfo{m: model.Manifest{Ecosystem: "pypi"}}
	dev := strings.Contains(p, "dev") || strings.Contains(p, "test")
	dir := dirOf(p)
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if i := strings.Index(line, " #"); i >= 0 {
			line = line[:i]
		}
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		if strings.HasPrefix(line, "-e ") || strings.HasPrefix(line, "--editable ") {
			target := strings.TrimSpace(line[strings.IndexByte(line, ' ')+1:])
			if strings.HasPrefix(target, ".") {
				if l, ok := joinDir(dir, target); ok {
					mi.m.Dependencies = append(mi.m.Dependencies, model.PackageDep{Name: target, Path: l, Dev: dev})
				}
			}
			continue
		}
		if line[0] == '-' || strings.Contains(line, "://") && !strings.Contains(line, " @ ") {
			continue
		}
		if d, ok := pep508(line); ok {
			d.Dev = dev
			mi.m.Dependencies = append(mi.m.Dependencies, d)
		}
	}
	return mi
}

// parseSetupCfg reads setup.cfg's [metadata] and install_requires /
// extras_require (dev).
func parseSetupCfg(p string, data []byte) *manifestInfo {
	mi := &manifestInfo{m: model.Manifest{Ecosystem: "pypi"}}
	section, key := "", ""
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		raw := sc.Text()
		line := strings.TrimSpace(raw)
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]") {
			section, key = strings.TrimSpace(line[1:len(line)-1]), ""
			continue
		}
		continued := raw[0] == ' ' || raw[0] == '\t'
		value := line
		if !continued {
			k, v, ok := strings.Cut(line, "=")
			if !ok {
				continue
			}
			key, value = strings.TrimSpace(k), strings.TrimSpace(v)
			if section == "metadata" {
				switch key {
				case "name":
					mi.m.Name = value
				case "version":
					mi.m.Version = value
				case "description":
					mi.m.Description = value
				}
			}
		}
		req := (section == "options" && key == "install_requires") || section == "options.extras_require"
		if req && value != "" {
			if d, ok := pep508(value); ok {
				d.Dev = section == "options.extras_require"
				mi.m.Dependencies = append(mi.m.Dependencies, d)
			}
		}
	}
	return mi
}

// parsePipfile reads Pipfile's [packages] and [dev-packages].
func parsePipfile(p string, data []byte) *manifestInfo {
	var pf struct {
		Packages    map[string]any `toml:"packages"`
		DevPackages map[string]any `toml:"dev-packages"`
	}
	mi := &manifestInfo{m: model.Manifest{Ecosystem: "pypi"}}
	if _, err := toml.Decode(string(data), &pf); err != nil {
		mi.m.Problems = append(mi.m.Problems, "Pipfile: "+err.Error())
		return mi
	}
	for _, set := range []struct {
		deps map[string]any
		dev  bool
	}{{pf.Packages, false}, {pf.DevPackages, true}} {
		for name, v := range set.deps {
			d := model.PackageDep{Name: name, Dev: set.dev}
			if s, ok := v.(string); ok {
				d.Version = s
			} else if m, ok := v.(map[string]any); ok {
				d.Version, _ = m["version"].(string)
			}
			mi.m.Dependencies = append(mi.m.Dependencies, d)
		}
	}
	return mi
}

// normalizePyName is PEP 503's normalisation, so "Foo_Bar" and "foo-bar"
// are one distribution. It runs per Python import: strings.Map allocates
// only when it changes something (a strings.Replacer made per call built
// its table every time).
func normalizePyName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '_' || r == '.' {
			return '-'
		}
		return r
	}, strings.ToLower(s))
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}
