package scan

import (
	"bytes"
	"encoding/json"
	"path"
	"sort"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/kontext-dev/kontext/internal/repo/model"
)

// manifestInfo is a parsed manifest: the model's view plus what the
// resolvers need and the model does not carry.
type manifestInfo struct {
	m   model.Manifest
	dir string // the manifest's directory ("" for the root)
	raw []byte // for evidence lines

	// A workspace this manifest declares: its tool and member globs
	// (relative to dir; "!" excludes).
	wsTool  string
	wsGlobs []string

	// Go: replace directives to local directories, by module path.
	goReplace map[string]string
	goVendor  bool // vendor/modules.txt beside go.mod: imports resolve there
	// goVendored maps each vendored package to its module, and
	// goVendoredVersions each vendored module to its version, from
	// vendor/modules.txt.
	goVendored         map[string]string
	goVendoredVersions map[string]string
	goIndirect         map[string]bool // requirements marked // indirect

	// Gradle: a settings file's projects, builds and catalogs; a build
	// script's properties and the dependencies only the settings resolve.
	gradleSettings *gradleSettings
	gradleProps    map[string]string
	gradleRefs     []gradleRef
	gradleApplied  []string        // scripts applied with apply from:, as written
	gradleForeign  []gradleForeign // dependencies declared for other projects

	// Maven: what linking the POM to its parents needs.
	pom *pomInfo

	// depLines are the lines declaring dependencies, by name, where the
	// parser knows them (else depLine searches the text).
	depLines map[string]int
	// depFrom names the manifest that declares an inherited dependency
	// (a Maven parent's), by name.
	depFrom map[string]string

	// npm: the package's entry points ("." and subpaths → file).
	entries map[string]string

	// Cargo: the library's crate name as code spells it (dashes are
	// underscores) and renamed dependencies (code name → package name).
	crate   string
	renames map[string]string
	cargo   *cargoTargets
}

// parseManifest parses the manifest at p (chosen by its file name); exists
// tells which other files are in the tree (lockfiles, vendor/modules.txt).
func parseManifest(p string, data []byte, exists func(string) bool) []*manifestInfo {
	name := path.Base(p)
	dir := dirOf(p)
	var mi *manifestInfo
	switch {
	case name == "go.mod":
		mi = parseGoMod(p, data, exists)
	case name == "go.work":
		mi = parseGoWork(p, data)
	case name == "package.json":
		mi = parsePackageJSON(p, data, exists)
	case name == "pnpm-workspace.yaml":
		mi = parsePnpmWorkspace(p, data)
	case name == "deno.json" || name == "deno.jsonc":
		mi = parseDeno(p, data)
	case name == "Cargo.toml":
		mi = parseCargo(p, data)
	case name == "pyproject.toml":
		mi = parsePyproject(p, data)
	case strings.HasPrefix(name, "requirements") && strings.HasSuffix(name, ".txt"):
		mi = parseRequirements(p, data)
	case name == "setup.cfg":
		mi = parseSetupCfg(p, data)
	case name == "Pipfile":
		mi = parsePipfile(p, data)
	case name == "pom.xml":
		mi = parsePom(p, data)
	case name == "build.gradle" || name == "build.gradle.kts":
		mi = parseGradleBuild(p, data)
	case name == "settings.gradle" || name == "settings.gradle.kts":
		mi = parseGradleSettings(p, data)
	case name == "Chart.yaml":
		mi = parseHelmChart(p, data)
	case name == "composer.json":
		mi = parseComposer(p, data)
	case name == "Gemfile":
		mi = parseGemfile(p, data)
	case name == "mix.exs":
		mi = parseMix(p, data)
	case strings.HasSuffix(name, ".csproj") || strings.HasSuffix(name, ".fsproj") || strings.HasSuffix(name, ".vbproj"):
		mi = parseCsproj(p, data)
	}
	if mi == nil {
		return nil
	}
	mi.dir = dir
	mi.raw = data
	mi.m.Path = p
	sort.SliceStable(mi.m.Dependencies, func(i, j int) bool {
		a, b := mi.m.Dependencies[i], mi.m.Dependencies[j]
		if a.Name != b.Name {
			return a.Name < b.Name
		}
		return !a.Dev && b.Dev
	})
	mi.m.Dependencies = dedupeDeps(mi.m.Dependencies)
	return []*manifestInfo{mi}
}

// dedupeDeps keeps one entry per name: a runtime declaration wins over a
// dev one.
func dedupeDeps(deps []model.PackageDep) []model.PackageDep {
	out := deps[:0]
	for _, d := range deps {
		if len(out) > 0 && out[len(out)-1].Name == d.Name {
			continue
		}
		out = append(out, d)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// joinDir joins a manifest directory and a relative path into a clean
// root-relative path; ok is false when it leaves the root.
func joinDir(dir, rel string) (string, bool) {
	rel = strings.TrimPrefix(strings.ReplaceAll(rel, "\\", "/"), "file:")
	if path.IsAbs(rel) {
		return "", false
	}
	j := path.Clean(path.Join(dir, rel))
	if j == "." {
		return "", true
	}
	if j == ".." || strings.HasPrefix(j, "../") {
		return "", false
	}
	return j, true
}

// lineOf returns the first line of data containing s (1-based), or 0.
func lineOf(data []byte, s string) int {
	i := bytes.Index(data, []byte(s))
	if i < 0 {
		return 0
	}
	return bytes.Count(data[:i], []byte{'\n'}) + 1
}

// depLine finds the line declaring a dependency: quoted (JSON, Gradle,
// Gemfile), or a bare TOML key.
func depLine(data []byte, name string) int {
	for _, q := range []string{`"` + name + `"`, `'` + name + `'`, "<artifactId>" + name} {
		if l := lineOf(data, q); l > 0 {
			return l
		}
	}
	for i, line := range bytes.Split(data, []byte("\n")) {
		t := bytes.TrimSpace(line)
		if bytes.HasPrefix(t, []byte(name)) {
			rest := bytes.TrimSpace(t[len(name):])
			if bytes.HasPrefix(rest, []byte("=")) || bytes.HasPrefix(rest, []byte(".")) {
				return i + 1
			}
		}
	}
	return 0
}

// expandMembers matches workspace member globs (relative to dir) against
// the candidate directories (root-relative).
func expandMembers(dir string, globs []string, candidates []string) []string {
	var include, exclude []string
	for _, g := range globs {
		g = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(g), "./"), "/")
		neg := strings.HasPrefix(g, "!")
		g = strings.TrimPrefix(strings.TrimPrefix(g, "!"), "./")
		if full, ok := joinDir(dir, g); ok {
			if neg {
				exclude = append(exclude, full)
			} else {
				include = append(include, full)
			}
		}
	}
	seen := map[string]bool{}
	var out []string
	for _, c := range candidates {
		if seen[c] {
			continue
		}
		for _, g := range include {
			if ok, _ := doublestar.Match(g, c); ok || g == c {
				excluded := false
				for _, x := range exclude {
					if ok, _ := doublestar.Match(x, c); ok {
						excluded = true
					}
				}
				if !excluded {
					seen[c] = true
					out = append(out, c)
				}
				break
			}
		}
	}
	sort.Strings(out)
	return out
}

// stringOrList decodes a JSON string or array of strings.
type stringOrList []string

func (s *stringOrList) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*s = []string{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return nil // another shape: not ours to interpret
	}
	*s = many
	return nil
}
