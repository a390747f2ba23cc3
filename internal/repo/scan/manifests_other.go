package scan

import (
	"bufio"
	"bytes"
	"encoding/json"
	"sort"
	"strings"

	"github.com/kontext-dev/kontext/internal/repo/model"
	"github.com/kontext-dev/kontext/internal/safeyaml"
)

// parseComposer reads composer.json: require (platform packages — php,
// ext-*, lib-* — are the language's, not dependencies) and require-dev.
func parseComposer(p string, data []byte) *manifestInfo {
	var cj struct {
		Name        string            `json:"name"`
		Version     string            `json:"version"`
		Description string            `json:"description"`
		Require     map[string]string `json:"require"`
		RequireDev  map[string]string `json:"require-dev"`
		Scripts     map[string]any    `json:"scripts"`
		Bin         stringOrList      `json:"bin"`
	}
	mi := &manifestInfo{m: model.Manifest{Ecosystem: "composer"}}
	if err := json.Unmarshal(data, &cj); err != nil {
		mi.m.Problems = append(mi.m.Problems, "composer.json: "+err.Error())
		return mi
	}
	mi.m.Name, mi.m.Version, mi.m.Description = cj.Name, cj.Version, cj.Description
	for _, set := range []struct {
		deps map[string]string
		dev  bool
	}{{cj.Require, false}, {cj.RequireDev, true}} {
		for name, v := range set.deps {
			if name == "php" || strings.HasPrefix(name, "ext-") || strings.HasPrefix(name, "lib-") {
				continue
			}
			mi.m.Dependencies = append(mi.m.Dependencies, model.PackageDep{Name: name, Version: v, Dev: set.dev})
		}
	}
	for s := range cj.Scripts {
		mi.m.Scripts = append(mi.m.Scripts, s)
	}
	sort.Strings(mi.m.Scripts)
	mi.m.Bins = cj.Bin
	return mi
}

// parseGemfile reads `gem "name", "~> 1.0"` lines; gems inside a
// development or test group are dev; `path:` gems are local.
func parseGemfile(p string, data []byte) *manifestInfo {
	mi := &manifestInfo{m: model.Manifest{Ecosystem: "bundler"}}
	dir := dirOf(p)
	var groups []bool // for each open block: is it a dev group
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if i := strings.Index(line, " #"); i >= 0 {
			line = line[:i]
		}
		switch {
		case strings.HasPrefix(line, "group "):
			groups = append(groups, strings.Contains(line, ":development") || strings.Contains(line, ":test"))
			continue
		case strings.HasSuffix(line, " do") || strings.HasSuffix(line, " do |"):
			groups = append(groups, false)
			continue
		case line == "end":
			if len(groups) > 0 {
				groups = groups[:len(groups)-1]
			}
			continue
		case !strings.HasPrefix(line, "gem "):
			continue
		}
		args := allQuoted(line)
		if len(args) == 0 {
			continue
		}
		d := model.PackageDep{Name: args[0]}
		for _, a := range args[1:] {
			if strings.ContainsAny(a, "0123456789") && !strings.Contains(a, "/") {
				d.Version = strings.TrimSpace(a)
				break
			}
		}
		for _, g := range groups {
			d.Dev = d.Dev || g
		}
		if strings.Contains(line, "group: :development") || strings.Contains(line, "group: :test") {
			d.Dev = true
		}
		if i := strings.Index(line, "path:"); i >= 0 {
			if l, ok := joinDir(dir, quoted(line[i:])); ok {
				d.Path = l
				mi.m.Internal = append(mi.m.Internal, d.Name)
			}
		}
		mi.m.Dependencies = append(mi.m.Dependencies, d)
	}
	return mi
}

// parseMix reads mix.exs: the app name and version, and the deps tuples
// {:name, "~> 1.0", only: :test} / {:name, path: "../x"} / in_umbrella.
func parseMix(p string, data []byte) *manifestInfo {
	mi := &manifestInfo{m: model.Manifest{Ecosystem: "mix"}}
	dir := dirOf(p)
	s := string(data)
	if i := strings.Index(s, "app:"); i >= 0 {
		rest := strings.TrimSpace(s[i+4:])
		if strings.HasPrefix(rest, ":") {
			end := 1
			for end < len(rest) && (isIdentPart(rest[end])) {
				end++
			}
			mi.m.Name = rest[1:end]
		}
	}
	if i := strings.Index(s, "version:"); i >= 0 {
		mi.m.Version = quoted(strings.SplitN(s[i:], "\n", 2)[0])
	}
	// The dependency tuples live in the deps function (defp deps do … end).
	start := strings.Index(s, "defp deps")
	if start < 0 {
		start = strings.Index(s, "deps:")
	}
	if start < 0 {
		return mi
	}
	for i := start; i < len(s); i++ {
		if s[i] != '{' || i+1 >= len(s) || s[i+1] != ':' {
			continue
		}
		end := strings.IndexByte(s[i:], '}')
		if end < 0 {
			break
		}
		tuple := s[i+2 : i+end]
		i += end
		name := tuple
		if c := strings.IndexByte(tuple, ','); c >= 0 {
			name = tuple[:c]
		} else {
			continue
		}
		if identPrefix(name) != name {
			continue
		}
		d := model.PackageDep{Name: name}
		if q := allQuoted(tuple); len(q) > 0 && !strings.Contains(tuple[:strings.Index(tuple, q[0])], ":") {
			d.Version = q[0]
		}
		if strings.Contains(tuple, "only:") && !strings.Contains(tuple, ":prod") {
			d.Dev = true
		}
		if j := strings.Index(tuple, "path:"); j >= 0 {
			if l, ok := joinDir(dir, quoted(tuple[j:])); ok {
				d.Path = l
				mi.m.Internal = append(mi.m.Internal, name)
			}
		}
		if strings.Contains(tuple, "in_umbrella: true") {
			d.Path = "umbrella:"
			mi.m.Internal = append(mi.m.Internal, name)
		}
		mi.m.Dependencies = append(mi.m.Dependencies, d)
	}
	return mi
}

// parseHelmChart reads a Helm chart's Chart.yaml: name, version,
// description and dependencies (a file:// repository is a chart of the
// repository).
func parseHelmChart(p string, data []byte) *manifestInfo {
	var ch struct {
		Name         string `yaml:"name"`
		Version      string `yaml:"version"`
		Description  string `yaml:"description"`
		Dependencies []struct {
			Name       string `yaml:"name"`
			Version    string `yaml:"version"`
			Repository string `yaml:"repository"`
		} `yaml:"dependencies"`
	}
	mi := &manifestInfo{m: model.Manifest{Ecosystem: "helm"}}
	if err := safeyaml.Unmarshal(data, &ch); err != nil {
		mi.m.Problems = append(mi.m.Problems, "Chart.yaml: "+err.Error())
		return mi
	}
	mi.m.Name, mi.m.Version, mi.m.Description = ch.Name, ch.Version, strings.TrimSpace(ch.Description)
	dir := dirOf(p)
	for _, d := range ch.Dependencies {
		if d.Name == "" {
			continue
		}
		dep := model.PackageDep{Name: d.Name, Version: d.Version}
		if local, ok := strings.CutPrefix(d.Repository, "file://"); ok {
			if l, ok := joinDir(dir, local); ok {
				dep.Path = l
				mi.m.Internal = append(mi.m.Internal, d.Name)
			}
		}
		mi.m.Dependencies = append(mi.m.Dependencies, dep)
	}
	sort.Strings(mi.m.Internal)
	return mi
}
