package scan

import (
	"bufio"
	"bytes"
	"fmt"
	"path"
	"sort"
	"strings"
	"unicode"

	"github.com/BurntSushi/toml"

	"github.com/kontext-dev/kontext/internal/repo/model"
)

// Gradle build scripts are programs (Groovy or Kotlin). kontext reads the
// forms a build's structure is declared in, on the tokens of the script
// (comments and strings are the lexer's): in settings, every `include`
// (several projects, over several lines, in parentheses or not),
// `project(':x').projectDir = file(…)`, `includeBuild`, rootProject.name
// and version catalogs; in build scripts, the dependencies of every
// configuration — project(':x'), the type-safe projects.x accessors,
// "group:artifact:version" strings (with $properties), the group:/name:/
// version: map form, kotlin("x"), and version catalog accessors
// (libs.foo.bar, libs.bundles.x). What needs the settings (which project
// dir an accessor names, what a catalog alias is) is linked once every
// manifest is read (linkGradle). What cannot be evaluated (a computed
// include, a constant from buildSrc) is reported in the manifest's
// Problems, never dropped silently.

// gradleRef is a dependency a build script names in a form only the
// build's settings, catalogs or properties resolve.
type gradleRef struct {
	kind gradleRefKind
	text string           // the project path, the accessor (after "projects."), the catalog accessor, or the coordinates
	dep  model.PackageDep // refResolved: the dependency itself
	dev  bool
	line int
	// target is the project the dependency is declared for when the
	// script declares it for another (project(':x') { }, subprojects { },
	// allprojects { }): ":x", "*sub" or "*all"; "" for the script's own.
	target string
}

// gradleForeign is a dependency a build script declares for another
// project: the directory of the project, relative to the root.
type gradleForeign struct {
	dir  string
	dep  model.PackageDep
	line int
}

type gradleRefKind uint8

const (
	refProject  gradleRefKind = iota + 1 // project(":x")
	refAccessor                          // projects.fooBar
	refCatalog                           // libs.foo.bar (text holds "libs.foo.bar")
	refCoords                            // "g:a:$version"
	refResolved                          // a dependency already read, declared for another project
)

// gradleSettings is what settings.gradle(.kts) declares.
type gradleSettings struct {
	projects  map[string]string // project path → directory, relative to the settings directory
	builds    []string          // included builds, relative to the settings directory
	catalogs  map[string]string // catalog name → its TOML file, relative to the settings directory
	accessors map[string]string // projects.<accessor> → project path
}

func gradleLex(data []byte, kotlin bool) []tok {
	return lex(data, lexConfig{nestedComments: kotlin, tripleQuotes: true, keepStrings: true, singleStrings: !kotlin})
}

// parseGradleSettings reads settings.gradle(.kts).
func parseGradleSettings(p string, data []byte) *manifestInfo {
	mi := &manifestInfo{m: model.Manifest{Ecosystem: "gradle"}}
	st := &gradleSettings{projects: map[string]string{}, catalogs: map[string]string{}, accessors: map[string]string{}}
	mi.gradleSettings = st
	toks := gradleLex(data, strings.HasSuffix(p, ".kts"))
	var order []string
	overrides := map[string]string{}
	renames := map[string]string{}
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.kind == tIdent && (t.text == "eachDir" || t.text == "listFiles") {
			mi.m.Problems = append(mi.m.Problems, fmt.Sprintf("line %d: projects included from a directory listing (%s) not evaluated", t.line, t.text))
			continue
		}
		if t.kind != tIdent || i > 0 && toks[i-1].text == "." {
			continue
		}
		switch t.text {
		case "rootProject":
			if i+4 < len(toks) && toks[i+1].text == "." && toks[i+2].text == "name" && toks[i+3].text == "=" && toks[i+4].kind == tString {
				mi.m.Name = toks[i+4].text
			}
		case "include":
			args, end, ok := gradleArgs(toks, i+1)
			if !ok {
				continue
			}
			for _, a := range args {
				switch {
				case a.kind == tString && !strings.Contains(a.text, "$"):
					if path := gradleProjectPath(a.text); path != "" {
						order = append(order, path)
					}
				case a.kind == tString:
					mi.m.Problems = append(mi.m.Problems, fmt.Sprintf("line %d: include of a computed project name %q not evaluated", a.line, a.text))
				case a.kind == tIdent && !gradleListFuncs[a.text]:
					mi.m.Problems = append(mi.m.Problems, fmt.Sprintf("line %d: include of a computed list (%s) not evaluated", a.line, a.text))
				}
			}
			i = end
		case "includeBuild":
			if args, end, ok := gradleArgs(toks, i+1); ok {
				if len(args) > 0 && args[0].kind == tString {
					st.builds = append(st.builds, strings.TrimPrefix(args[0].text, "./"))
				}
				i = end
			}
		case "project":
			// project(':x').name = 'y': the project is :y, in x's directory.
			if i+7 < len(toks) && toks[i+1].text == "(" && toks[i+2].kind == tString && toks[i+3].text == ")" &&
				toks[i+4].text == "." && toks[i+5].text == "name" && toks[i+6].text == "=" && toks[i+7].kind == tString {
				renames[gradleProjectPath(toks[i+2].text)] = toks[i+7].text
				continue
			}
			// project(':x').projectDir = file('dir') / new File(rootDir, 'dir')
			if i+6 < len(toks) && toks[i+1].text == "(" && toks[i+2].kind == tString && toks[i+3].text == ")" &&
				toks[i+4].text == "." && toks[i+5].text == "projectDir" && toks[i+6].text == "=" {
				dir := ""
				for k := i + 7; k < len(toks) && toks[k].line == toks[i+6].line; k++ {
					if toks[k].kind == tString {
						dir = toks[k].text
					}
				}
				if dir = gradleDirString(dir); dir != "" {
					overrides[gradleProjectPath(toks[i+2].text)] = dir
				} else {
					mi.m.Problems = append(mi.m.Problems, fmt.Sprintf("line %d: projectDir of %s not evaluated", t.line, toks[i+2].text))
				}
			}
		case "create":
			// versionCatalogs { create("libs") { from(files("gradle/libs.versions.toml")) } }
			if i+3 < len(toks) && toks[i+1].text == "(" && toks[i+2].kind == tString && toks[i+3].text == ")" {
				for k := i + 4; k < len(toks) && k < i+24; k++ {
					if toks[k].text == "files" && k+2 < len(toks) && toks[k+1].text == "(" && toks[k+2].kind == tString {
						st.catalogs[toks[i+2].text] = strings.TrimPrefix(toks[k+2].text, "./")
						break
					}
				}
			}
		}
	}
	// A project's directory: its override, else its parent's directory and
	// its name (:a:b is a/b).
	var dirOfProject func(string) string
	dirOfProject = func(pp string) string {
		if d, ok := overrides[pp]; ok {
			return d
		}
		i := strings.LastIndexByte(pp, ':')
		if i <= 0 {
			return pp[i+1:]
		}
		return path.Join(dirOfProject(pp[:i]), pp[i+1:])
	}
	for _, pp := range order {
		if _, dup := st.projects[pp]; dup {
			continue
		}
		d, ok := joinDir("", dirOfProject(pp))
		if !ok || d == "" {
			continue // outside the build (includeFlat-like)
		}
		if name, ok := renames[pp]; ok {
			pp = pp[:strings.LastIndexByte(pp, ':')+1] + name
		}
		st.projects[pp] = d
		st.accessors[gradleAccessor(pp)] = pp
		mi.wsGlobs = append(mi.wsGlobs, d)
	}
	for _, b := range st.builds {
		if d, ok := joinDir("", b); ok && d != "" {
			mi.wsGlobs = append(mi.wsGlobs, d)
		}
	}
	if len(mi.wsGlobs) > 0 {
		mi.wsTool = "gradle"
	}
	return mi
}

var gradleListFuncs = map[string]bool{"listOf": true, "arrayOf": true, "setOf": true, "mutableListOf": true}

// gradleProjectPath normalises a project path: "core" and ":core" are
// ":core".
func gradleProjectPath(s string) string {
	s = strings.TrimSpace(s)
	if s == "" || s == ":" {
		return ""
	}
	if !strings.HasPrefix(s, ":") {
		s = ":" + s
	}
	return s
}

// gradleDirString reads a projectDir string: "dir", "$rootDir/dir",
// "${settingsDir}/dir".
func gradleDirString(s string) string {
	for _, p := range []string{"$rootDir/", "${rootDir}/", "$settingsDir/", "${settingsDir}/", "./"} {
		s = strings.TrimPrefix(s, p)
	}
	if strings.Contains(s, "$") {
		return ""
	}
	return strings.TrimSuffix(s, "/")
}

// gradleAccessor is the type-safe accessor Gradle generates for a project
// path: each name in camel case (:foo-bar:baz_qux is fooBar.bazQux).
func gradleAccessor(projectPath string) string {
	var parts []string
	for _, seg := range strings.Split(strings.TrimPrefix(projectPath, ":"), ":") {
		parts = append(parts, camelCase(seg))
	}
	return strings.Join(parts, ".")
}

func camelCase(s string) string {
	var b strings.Builder
	up := false
	for i, r := range s {
		if r == '-' || r == '_' || r == '.' || r == ' ' {
			up = i > 0
			continue
		}
		if up {
			b.WriteRune(unicode.ToUpper(r))
			up = false
		} else if b.Len() == 0 {
			b.WriteRune(unicode.ToLower(r))
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// gradleArgs returns the argument tokens of a call starting at toks[i]:
// inside parentheses, or — Groovy's call without them — to the end of the
// line, continuing on the next while a line ends with a comma. ok is false
// when no argument follows.
func gradleArgs(toks []tok, i int) (args []tok, end int, ok bool) {
	if i >= len(toks) {
		return nil, i, false
	}
	if toks[i].text == "(" && toks[i].kind == tPunct {
		level := 0
		for k := i; k < len(toks); k++ {
			switch toks[k].text {
			case "(":
				level++
			case ")":
				level--
				if level == 0 {
					return toks[i+1 : k], k, true
				}
			}
		}
		return toks[i+1:], len(toks) - 1, true
	}
	if toks[i].first || toks[i].kind == tPunct && toks[i].text != "[" {
		return nil, i, false
	}
	line := toks[i-1].line
	k := i
	for k < len(toks) {
		if toks[k].line != line {
			if toks[k-1].text != "," {
				break
			}
			line = toks[k].line
		}
		if toks[k].text == "{" || toks[k].text == "}" || toks[k].text == ";" {
			break
		}
		k++
	}
	return toks[i:k], k - 1, k > i
}

// gradleConfigBases are the dependency configurations a source set's
// prefix may qualify (testImplementation, commonMainApi, kaptTest, …).
var gradleConfigBases = []string{"implementation", "api", "compileOnly", "compileOnlyApi", "runtimeOnly", "compile", "runtime",
	"annotationProcessor", "kapt", "ksp", "developmentOnly", "providedCompile", "providedRuntime", "testFixturesApi"}

// gradleConfiguration reports whether name is a dependency configuration,
// and whether what it declares is for tests or build tooling only.
func gradleConfiguration(name string) (dev, ok bool) {
	for _, tool := range []string{"kapt", "ksp"} {
		if rest, found := strings.CutPrefix(name, tool); found {
			// kapt, kaptTest, kspCommonMainMetadata: annotation processors.
			return true, rest == "" || unicode.IsUpper(rune(rest[0]))
		}
	}
	tooling := strings.Contains(name, "nnotationProcessor") || name == "developmentOnly"
	test := strings.HasPrefix(name, "test") || strings.Contains(name, "Test") || strings.HasPrefix(name, "debug")
	for _, b := range gradleConfigBases {
		if name == b {
			return tooling || test, true
		}
		up := strings.ToUpper(b[:1]) + b[1:]
		if strings.HasSuffix(name, up) && len(name) > len(up) && unicode.IsLower(rune(name[0])) {
			return tooling || test, true
		}
	}
	return false, false
}

// parseGradleBuild reads a build.gradle(.kts): the dependencies of every
// configuration, anywhere in the script (subprojects {}, Kotlin
// multiplatform source sets — a configuration inside a test source set's
// block is a test one), and the properties versions may refer to.
func parseGradleBuild(p string, data []byte) *manifestInfo {
	mi := &manifestInfo{m: model.Manifest{Ecosystem: "gradle"}, gradleProps: map[string]string{}, depLines: map[string]int{}}
	if d := dirOf(p); d != "" {
		mi.m.Name = path.Base(d) // a project's default name; the root's is settings.gradle's
	}
	toks := gradleLex(data, strings.HasSuffix(p, ".kts"))
	var testBlocks []int // depths of open blocks that are test source sets
	type targetBlock struct {
		target string
		depth  int
	}
	var targets []targetBlock // project(':x') { }, subprojects { }, allprojects { }
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.kind == tPunct {
			switch t.text {
			case "{":
				if gradleTestBlock(toks, i) {
					testBlocks = append(testBlocks, t.depth)
				}
				if target := gradleTargetBlock(toks, i); target != "" {
					targets = append(targets, targetBlock{target, t.depth})
				}
			case "}":
				for len(testBlocks) > 0 && testBlocks[len(testBlocks)-1] >= t.depth {
					testBlocks = testBlocks[:len(testBlocks)-1]
				}
				for len(targets) > 0 && targets[len(targets)-1].depth >= t.depth {
					targets = targets[:len(targets)-1]
				}
			}
			continue
		}
		if t.kind == tString && i+1 < len(toks) && toks[i+1].text == "(" && t.first {
			// "friendsApi"(projects.okhttp): a configuration named by a string.
			if dev, ok := gradleConfiguration(t.text); ok {
				if args, end, ok := gradleArgs(toks, i+1); ok {
					if len(targets) == 0 {
						mi.gradleDependencies(args, dev || len(testBlocks) > 0, t.line)
					}
					i = end
				}
			}
			continue
		}
		if t.kind != tIdent {
			continue
		}
		gradleProperty(toks, i, mi.gradleProps)
		if t.text == "apply" {
			// apply from: "$rootDir/gradle/dependencies.gradle", apply(from = "…")
			for k := i + 1; k+2 < len(toks) && toks[k].line == t.line && k < i+8; k++ {
				if toks[k].text == "from" && (toks[k+1].text == ":" || toks[k+1].text == "=") {
					for j := k + 2; j < len(toks) && toks[j].line == t.line; j++ {
						if toks[j].kind == tString {
							mi.gradleApplied = append(mi.gradleApplied, toks[j].text)
							break
						}
					}
					break
				}
			}
		}
		if i > 0 && (toks[i-1].text == "." || toks[i-1].text == "fun") {
			continue
		}
		dev, ok := gradleConfiguration(t.text)
		if !ok {
			continue
		}
		args, end, ok := gradleArgs(toks, i+1)
		if !ok {
			continue
		}
		dev = dev || len(testBlocks) > 0
		if len(targets) == 0 {
			mi.gradleDependencies(args, dev, t.line)
		} else {
			// Declared here for other projects: linked to them.
			target := targets[len(targets)-1].target
			sub := &manifestInfo{}
			sub.gradleDependencies(args, dev, t.line)
			for _, d := range sub.m.Dependencies {
				if d.Path == "" {
					mi.gradleRefs = append(mi.gradleRefs, gradleRef{kind: refResolved, dep: d, line: sub.depLines[d.Name], target: target})
				}
			}
			for _, r := range sub.gradleRefs {
				r.target = target
				mi.gradleRefs = append(mi.gradleRefs, r)
			}
		}
		i = end
	}
	return mi
}

// gradleTargetBlock names the projects a block opened at toks[open]
// configures: ":x" for project(':x') { }, "*sub" for subprojects { },
// "*all" for allprojects { }; "" for any other block.
func gradleTargetBlock(toks []tok, open int) string {
	k := open - 1
	if k >= 0 && toks[k].kind == tIdent && toks[k].line == toks[open].line {
		switch toks[k].text {
		case "subprojects":
			return "*sub"
		case "allprojects":
			return "*all"
		}
	}
	if k >= 3 && toks[k].text == ")" && toks[k-1].kind == tString && toks[k-2].text == "(" && toks[k-3].text == "project" && (k < 4 || toks[k-4].text != ".") {
		return gradleProjectPath(toks[k-1].text)
	}
	return ""
}

// gradleTestBlock reports whether the block opened at toks[open] is a
// test source set's (commonTest { … }, val jvmTest by getting { … },
// testing { suites { test { … } } }).
func gradleTestBlock(toks []tok, open int) bool {
	line := toks[open].line
	for k := open - 1; k >= 0 && k >= open-16 && toks[k].line == line; k-- { // a block's name is just before it
		if x := toks[k]; x.kind == tIdent && (strings.HasPrefix(x.text, "test") || strings.Contains(x.text, "Test")) {
			return true
		}
	}
	return false
}

// gradleProperty records a property a version may name: `ext.x = '1'`,
// `def x = '1'`, `val x = "1"`, `x = '1'` (in ext {}), `extra["x"] = "1"`,
// `val x by extra("1")`.
func gradleProperty(toks []tok, i int, props map[string]string) {
	t := toks[i]
	open := -1
	switch {
	case i+2 < len(toks) && toks[i+1].text == "=" && toks[i+2].text == "[":
		open = i + 2
	case i+3 < len(toks) && toks[i+1].text == "+" && toks[i+2].text == "=" && toks[i+3].text == "[":
		open = i + 3 // libs += [ … ]
	}
	if open > 0 && (i == 0 || toks[i-1].text != "." || i > 1 && toks[i-2].text == "ext") {
		gradleMapLiteral(toks, open, t.text, props) // ext.deps = [okhttp: '…', kotlin: [stdlib: '…']]
		return
	}
	switch {
	case i+2 < len(toks) && toks[i+1].text == "=" && toks[i+2].kind == tString && (i == 0 || toks[i-1].text != "."):
		props[t.text] = toks[i+2].text
	case i+2 < len(toks) && toks[i+1].text == "=" && toks[i+2].kind == tString && i > 1 && (toks[i-2].text == "ext" || toks[i-2].text == "extra"):
		props[t.text] = toks[i+2].text
	case (t.text == "extra" || t.text == "ext") && i+5 < len(toks) && toks[i+1].text == "[" && toks[i+2].kind == tString && toks[i+3].text == "]" && toks[i+4].text == "=" && toks[i+5].kind == tString:
		props[toks[i+2].text] = toks[i+5].text
	case t.text == "by" && i > 0 && i+4 < len(toks) && toks[i+1].text == "extra" && toks[i+2].text == "(" && toks[i+3].kind == tString && toks[i-1].kind == tIdent:
		props[toks[i-1].text] = toks[i+3].text
	}
}

// gradleMapLiteral records the string values of a Groovy map literal
// opening at toks[open] as prefix.key, prefix.key.sub, ….
func gradleMapLiteral(toks []tok, open int, prefix string, props map[string]string) int {
	k := open + 1
	for k < len(toks) && toks[k].text != "]" {
		key := toks[k]
		if (key.kind == tIdent || key.kind == tString) && k+2 < len(toks) && toks[k+1].text == ":" {
			switch v := toks[k+2]; {
			case v.kind == tString:
				props[prefix+"."+key.text] = v.text
				k += 3
				continue
			case v.text == "[":
				k = gradleMapLiteral(toks, k+2, prefix+"."+key.text, props) + 1
				continue
			}
		}
		k++
	}
	return k
}

// buildSrcConstants reads the string constants of a buildSrc Kotlin or
// Groovy file (object Libs { const val okhttp = "…" }) as Libs.okhttp,
// with $references to constants of the same file substituted.
func buildSrcConstants(data []byte, kotlin bool, out map[string]string) {
	toks := gradleLex(data, kotlin)
	var objects []struct {
		name  string
		depth int
	}
	local := map[string]string{}
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch {
		case t.kind == tIdent && (t.text == "object" || t.text == "class") && i+2 < len(toks) && toks[i+1].kind == tIdent:
			for k := i + 2; k < len(toks) && toks[k].line == t.line; k++ {
				if toks[k].text == "{" {
					objects = append(objects, struct {
						name  string
						depth int
					}{toks[i+1].text, toks[k].depth})
					break
				}
			}
		case t.text == "}" && t.kind == tPunct:
			for len(objects) > 0 && objects[len(objects)-1].depth >= t.depth {
				objects = objects[:len(objects)-1]
			}
		case t.kind == tIdent && i+2 < len(toks) && toks[i+1].text == "=" && toks[i+2].kind == tString && i > 0 && (toks[i-1].text == "val" || toks[i-1].text == "def" || toks[i-1].text == "String"):
			var names []string
			for _, o := range objects {
				names = append(names, o.name)
			}
			v, _ := substituteGradle(toks[i+2].text, func(n string) (string, bool) { x, ok := local[n]; return x, ok })
			local[t.text] = v
			out[strings.Join(append(names, t.text), ".")] = v
		}
	}
}

// gradleDependencies reads the arguments of one configuration call.
func (mi *manifestInfo) gradleDependencies(args []tok, dev bool, line int) {
	addCoords := func(s string, l int) {
		if strings.Contains(s, "$") {
			mi.gradleRefs = append(mi.gradleRefs, gradleRef{kind: refCoords, text: s, dev: dev, line: l})
			return
		}
		if d, ok := gradleCoordinates(s); ok {
			d.Dev = dev
			mi.addDep(d, l)
		}
	}
	var group, name, version string
	for k := 0; k < len(args); k++ {
		a := args[k]
		switch {
		case a.kind == tIdent && a.text == "project" && k+1 < len(args) && args[k+1].text == "(":
			inner, end, _ := gradleArgs(args, k+1)
			pp := ""
			for j := 0; j < len(inner); j++ {
				if inner[j].kind == tString {
					if pp == "" || j > 1 && inner[j-2].text == "path" {
						pp = inner[j].text
					}
				}
			}
			if pp = gradleProjectPath(pp); pp != "" {
				// The default directory (:a:b is a/b); the settings, once
				// linked, may say otherwise.
				mi.addDep(model.PackageDep{Name: pp, Path: strings.ReplaceAll(pp[1:], ":", "/"), Dev: dev}, a.line)
				mi.m.Internal = append(mi.m.Internal, pp)
				mi.gradleRefs = append(mi.gradleRefs, gradleRef{kind: refProject, text: pp, dev: dev, line: a.line})
			}
			k = end
		case a.kind == tIdent && a.text == "projects" && k+2 < len(args) && args[k+1].text == ".":
			acc, end := gradleChain(args, k+2)
			mi.gradleRefs = append(mi.gradleRefs, gradleRef{kind: refAccessor, text: strings.TrimSuffix(acc, ".dependencyProject"), dev: dev, line: a.line})
			k = end
		case a.kind == tIdent && a.text == "kotlin" && k+2 < len(args) && args[k+1].text == "(" && args[k+2].kind == tString:
			d := model.PackageDep{Name: "org.jetbrains.kotlin:kotlin-" + args[k+2].text, Dev: dev}
			if k+4 < len(args) && args[k+3].text == "," && args[k+4].kind == tString {
				d.Version = args[k+4].text
			}
			mi.addDep(d, a.line)
			k += 2
		case a.kind == tIdent && (a.text == "group" || a.text == "name" || a.text == "version") && k+2 < len(args) &&
			(args[k+1].text == ":" || args[k+1].text == "=") && args[k+2].kind == tString:
			switch a.text {
			case "group":
				group = args[k+2].text
			case "name":
				name = args[k+2].text
			case "version":
				version = args[k+2].text
			}
			k += 2
		case a.kind == tIdent && k+2 < len(args) && args[k+1].text == "." && (!gradleNotCatalog[a.text] || a.text == "rootProject") && (k == 0 || args[k-1].text != "."):
			chain, end := gradleChain(args, k)
			chain = strings.TrimPrefix(strings.TrimPrefix(chain, "rootProject."), "ext.")
			mi.gradleRefs = append(mi.gradleRefs, gradleRef{kind: refCatalog, text: chain, dev: dev, line: a.line})
			k = end
		case a.kind == tString && strings.Contains(a.text, ":"):
			addCoords(a.text, a.line)
		}
	}
	if group != "" && name != "" {
		addCoords(group+":"+name+":"+version, line)
	}
}

// gradleNotCatalog are the receivers of a dotted chain in a dependency
// declaration that are no version catalog.
var gradleNotCatalog = map[string]bool{"project": true, "projects": true, "rootProject": true, "files": true, "fileTree": true,
	"configurations": true, "sourceSets": true, "dependencies": true, "it": true, "this": true}

// gradleChain reads a dotted name from toks[i] (a.b.c), stopping before a
// call or an index; it returns the name and the index of its last token.
func gradleChain(toks []tok, i int) (string, int) {
	var parts []string
	k := i
	for k < len(toks) && toks[k].kind == tIdent {
		parts = append(parts, toks[k].text)
		if k+2 < len(toks) && toks[k+1].text == "." && toks[k+2].kind == tIdent && toks[k+2].text != "get" {
			k += 2
			continue
		}
		break
	}
	return strings.Join(parts, "."), k
}

// gradleCoordinates reads "group:artifact[:version[:classifier]][@ext]".
func gradleCoordinates(s string) (model.PackageDep, bool) {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "@")
	parts := strings.Split(s, ":")
	if len(parts) < 2 || parts[0] == "" || parts[1] == "" || strings.ContainsAny(s, " /\\") {
		return model.PackageDep{}, false
	}
	d := model.PackageDep{Name: parts[0] + ":" + parts[1]}
	if len(parts) >= 3 {
		d.Version = parts[2]
	}
	return d, true
}

// addDep adds a dependency and remembers the line declaring it.
func (mi *manifestInfo) addDep(d model.PackageDep, line int) {
	mi.m.Dependencies = append(mi.m.Dependencies, d)
	if mi.depLines == nil {
		mi.depLines = map[string]int{}
	}
	if _, ok := mi.depLines[d.Name]; !ok && line > 0 {
		mi.depLines[d.Name] = line
	}
}

// versionCatalog is a gradle/libs.versions.toml: its libraries and
// bundles by accessor (aliases with - and _ as dots).
type versionCatalog struct {
	libs    map[string]model.PackageDep
	bundles map[string][]string // bundle accessor → library accessors
	problem string
}

func parseVersionCatalog(data []byte) *versionCatalog {
	var raw struct {
		Versions  map[string]any      `toml:"versions"`
		Libraries map[string]any      `toml:"libraries"`
		Bundles   map[string][]string `toml:"bundles"`
	}
	vc := &versionCatalog{libs: map[string]model.PackageDep{}, bundles: map[string][]string{}}
	if _, err := toml.Decode(string(data), &raw); err != nil {
		vc.problem = "version catalog: " + err.Error()
		return vc
	}
	version := func(v any) string {
		switch x := v.(type) {
		case string:
			return x
		case map[string]any:
			if ref, ok := x["ref"].(string); ok {
				return versionString(raw.Versions[ref])
			}
			return versionString(x)
		}
		return ""
	}
	for alias, v := range raw.Libraries {
		d := model.PackageDep{}
		switch x := v.(type) {
		case string:
			dep, ok := gradleCoordinates(x)
			if !ok {
				continue
			}
			d = dep
		case map[string]any:
			if m, ok := x["module"].(string); ok {
				d.Name = m
			} else {
				g, _ := x["group"].(string)
				n, _ := x["name"].(string)
				if g == "" || n == "" {
					continue
				}
				d.Name = g + ":" + n
			}
			if v, ok := x["version"]; ok {
				d.Version = version(v)
			}
		default:
			continue
		}
		vc.libs[catalogKey(alias)] = d
	}
	for b, aliases := range raw.Bundles {
		for _, a := range aliases {
			vc.bundles[catalogKey(b)] = append(vc.bundles[catalogKey(b)], catalogKey(a))
		}
	}
	return vc
}

// versionString reads a catalog version: "1.0", or a rich version's
// strictly/require/prefer.
func versionString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case map[string]any:
		for _, k := range []string{"strictly", "require", "prefer"} {
			if s, ok := x[k].(string); ok {
				return s
			}
		}
	}
	return ""
}

// catalogKey is how build scripts spell a catalog alias: "androidx-core_ktx"
// and "androidx.core.ktx" are both libs.androidx.core.ktx.
func catalogKey(alias string) string {
	return strings.NewReplacer("-", ".", "_", ".").Replace(alias)
}

// parseGradleProperties reads the version-like entries of a
// gradle.properties (kotlinVersion=2.0.0); other entries (credentials
// among them) are not kept.
func parseGradleProperties(data []byte) map[string]string {
	out := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' || line[0] == '!' {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			k, v, ok = strings.Cut(line, ":")
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if ok && strings.Contains(strings.ToLower(k), "version") && !strings.ContainsAny(v, " \t") {
			out[k] = v
		}
	}
	return out
}

// linkGradle resolves what build scripts name through their build's
// settings: project paths and accessors to directories, catalog
// accessors to coordinates, $properties in versions. A build script
// belongs to the nearest settings at or above it that includes it (or
// sits in its directory).
func (ix *index) linkGradle() {
	var settings []*manifestInfo
	for _, mi := range ix.manifests {
		if mi.gradleSettings != nil {
			settings = append(settings, mi)
		}
	}
	sort.Slice(settings, func(i, j int) bool { return len(settings[i].dir) > len(settings[j].dir) })
	catalogs := map[string]*versionCatalog{}
	catalogAt := func(p string) *versionCatalog {
		if vc, ok := catalogs[p]; ok {
			return vc
		}
		var vc *versionCatalog
		if data, ok := ix.configs[p]; ok {
			vc = parseVersionCatalog(data)
		}
		catalogs[p] = vc
		return vc
	}
	propsAt := map[string]map[string]string{}
	gradleProps := func(dir string) map[string]string {
		if p, ok := propsAt[dir]; ok {
			return p
		}
		var p map[string]string
		if data, ok := ix.configs[path.Join(dir, "gradle.properties")]; ok {
			p = parseGradleProperties(data)
		}
		propsAt[dir] = p
		return p
	}
	srcAt := map[string]map[string]string{}
	buildSrc := func(dir string) map[string]string {
		if c, ok := srcAt[dir]; ok {
			return c
		}
		c := map[string]string{}
		prefix := path.Join(dir, "buildSrc") + "/"
		for p, data := range ix.configs {
			if strings.HasPrefix(p, prefix) && isBuildSrcSource(p) {
				buildSrcConstants(data, strings.HasSuffix(p, ".kt") || strings.HasSuffix(p, ".kts"), c)
			}
		}
		srcAt[dir] = c
		return c
	}
	scriptProps := map[string]map[string]string{}
	// applied reads the properties of the scripts a build script applies
	// (apply from: "$rootDir/gradle/dependencies.gradle"), transitively.
	var applied func(mi *manifestInfo, buildDir string) map[string]string
	applied = func(mi *manifestInfo, buildDir string) map[string]string {
		if mi == nil || len(mi.gradleApplied) == 0 {
			return nil
		}
		out := map[string]string{}
		for _, a := range mi.gradleApplied {
			base, rel := mi.dir, a
			for _, p := range []string{"$rootDir/", "${rootDir}/", "$rootProject.projectDir/", "${rootProject.projectDir}/"} {
				if r, ok := strings.CutPrefix(a, p); ok {
					base, rel = buildDir, r
				}
			}
			for _, p := range []string{"$projectDir/", "${projectDir}/"} {
				rel = strings.TrimPrefix(rel, p)
			}
			p, ok := joinDir(base, rel)
			if !ok || strings.Contains(p, "$") {
				continue
			}
			props, done := scriptProps[p]
			if !done {
				scriptProps[p] = nil // a script applying itself stops here
				if data, ok := ix.configs[p]; ok {
					sub := parseGradleBuild(p, data)
					sub.dir = dirOf(p)
					props = sub.gradleProps
					for k, v := range applied(sub, buildDir) {
						if _, ok := props[k]; !ok {
							props[k] = v
						}
					}
				}
				scriptProps[p] = props
			}
			for k, v := range props {
				if _, ok := out[k]; !ok {
					out[k] = v
				}
			}
		}
		return out
	}
	buildAt := map[string]*manifestInfo{}
	for _, mi := range ix.manifests {
		if mi.gradleProps != nil {
			buildAt[mi.dir] = mi
		}
	}
	for _, mi := range ix.manifests {
		if mi.gradleProps == nil {
			continue
		}
		var st *manifestInfo
		for _, s := range settings {
			if s.dir == mi.dir || (s.dir == "" || strings.HasPrefix(mi.dir, s.dir+"/")) && s.includes(mi.dir) {
				st = s
				break
			}
		}
		buildDir := mi.dir
		if st != nil {
			buildDir = st.dir
		}
		sources := []map[string]string{mi.gradleProps, applied(mi, buildDir), buildAt[buildDir].props(), applied(buildAt[buildDir], buildDir),
			gradleProps(mi.dir), gradleProps(buildDir), buildSrc(buildDir)}
		lookup := func(name string) (string, bool) {
			for _, props := range sources {
				if v, ok := props[name]; ok {
					return v, true
				}
			}
			return "", false
		}
		lookupChain := func(chain string) (string, bool) {
			for _, props := range sources {
				if v, ok := props[chain]; ok {
					return v, true
				}
			}
			return "", false
		}
		// emit records a resolved dependency: the script's own, or one it
		// declares for other projects (project(':x') { }, subprojects { }).
		emit := func(ref gradleRef, d model.PackageDep) {
			if ref.target == "" {
				mi.addDep(d, ref.line)
				return
			}
			var dirs []string
			switch ref.target {
			case "*sub", "*all":
				if st != nil {
					for _, rel := range st.gradleSettings.projects {
						if d, ok := joinDir(st.dir, rel); ok && d != mi.dir {
							dirs = append(dirs, d)
						}
					}
				}
				if ref.target == "*all" {
					mi.addDep(d, ref.line)
				}
			default:
				rel := strings.ReplaceAll(strings.TrimPrefix(ref.target, ":"), ":", "/")
				if st != nil {
					if x, ok := st.gradleSettings.projects[ref.target]; ok {
						rel = x
					}
				}
				if dir, ok := joinDir(buildDir, rel); ok {
					dirs = append(dirs, dir)
				}
			}
			sort.Strings(dirs)
			for _, dir := range dirs {
				if d.Path != "" && d.Path == dir {
					continue // a project is no dependency of itself
				}
				mi.gradleForeign = append(mi.gradleForeign, gradleForeign{dir: dir, dep: d, line: ref.line})
			}
		}
		for _, ref := range mi.gradleRefs {
			switch ref.kind {
			case refProject, refAccessor:
				pp := ref.text
				if ref.kind == refAccessor {
					if st == nil || st.gradleSettings.accessors[ref.text] == "" {
						mi.m.Problems = append(mi.m.Problems, fmt.Sprintf("line %d: projects.%s names no project of the settings", ref.line, ref.text))
						continue
					}
					pp = st.gradleSettings.accessors[ref.text]
				}
				rel := strings.ReplaceAll(strings.TrimPrefix(pp, ":"), ":", "/")
				if st != nil {
					if d, ok := st.gradleSettings.projects[pp]; ok {
						rel = d
					}
				}
				dir, ok := joinDir(buildDir, rel)
				if !ok {
					continue
				}
				if ref.target != "" {
					emit(ref, model.PackageDep{Name: pp, Path: dir, Dev: ref.dev})
					continue
				}
				found := false
				for i := range mi.m.Dependencies {
					if d := &mi.m.Dependencies[i]; d.Name == pp && d.Path != "" {
						d.Path, found = dir, true
					}
				}
				if !found {
					mi.addDep(model.PackageDep{Name: pp, Path: dir, Dev: ref.dev}, ref.line)
					mi.m.Internal = append(mi.m.Internal, pp)
				}
			case refCatalog:
				if v, ok := lookupChain(ref.text); ok {
					// ext.deps = [...] or a buildSrc constant.
					s, _ := substituteGradle(v, lookup)
					if d, ok := gradleCoordinates(s); ok {
						d.Dev = ref.dev
						emit(ref, d)
						continue
					}
				}
				name, acc, _ := strings.Cut(ref.text, ".")
				file := ""
				if st != nil {
					file = st.gradleSettings.catalogs[name]
				}
				if file == "" && name == "libs" {
					file = "gradle/libs.versions.toml"
				}
				var vc *versionCatalog
				if file != "" {
					if p, ok := joinDir(buildDir, file); ok {
						vc = catalogAt(p)
					}
				}
				if vc == nil {
					mi.m.Problems = append(mi.m.Problems, fmt.Sprintf("line %d: dependency %s not evaluated", ref.line, ref.text))
					continue
				}
				if b, ok := strings.CutPrefix(acc, "bundles."); ok && vc.bundles[b] != nil {
					for _, l := range vc.bundles[b] {
						if d, ok := vc.libs[l]; ok {
							d.Dev = ref.dev
							emit(ref, d)
						}
					}
					continue
				}
				if d, ok := vc.libs[acc]; ok {
					d.Dev = ref.dev
					emit(ref, d)
					continue
				}
				if strings.HasPrefix(acc, "plugins.") || strings.HasPrefix(acc, "versions.") {
					continue
				}
				mi.m.Problems = append(mi.m.Problems, fmt.Sprintf("line %d: %s is no library of the version catalog", ref.line, ref.text))
			case refCoords:
				s, ok := substituteGradle(ref.text, lookup)
				d, okc := gradleCoordinates(s)
				if !okc {
					mi.m.Problems = append(mi.m.Problems, fmt.Sprintf("line %d: dependency %q not evaluated", ref.line, ref.text))
					continue
				}
				if !ok {
					d.Version = "" // a property kontext cannot evaluate: the version is unknown, not its spelling
				}
				d.Dev = ref.dev
				emit(ref, d)
			case refResolved:
				emit(ref, ref.dep)
			}
		}
		sortDeps(mi)
		sort.Strings(mi.m.Internal)
		mi.m.Internal = dedupeStrings(mi.m.Internal)
	}
	for _, s := range settings {
		for name, file := range s.gradleSettings.catalogs {
			if p, ok := joinDir(s.dir, file); ok {
				if vc := catalogAt(p); vc != nil && vc.problem != "" {
					s.m.Problems = append(s.m.Problems, name+": "+vc.problem)
				}
			}
		}
		if vc := catalogAt(path.Join(s.dir, "gradle/libs.versions.toml")); vc != nil && vc.problem != "" {
			s.m.Problems = append(s.m.Problems, "libs: "+vc.problem)
		}
	}
}

func (mi *manifestInfo) props() map[string]string {
	if mi == nil {
		return nil
	}
	return mi.gradleProps
}

// includes reports whether a settings manifest includes the project in
// dir (relative to the root).
func (mi *manifestInfo) includes(dir string) bool {
	for _, d := range mi.gradleSettings.projects {
		if j, ok := joinDir(mi.dir, d); ok && j == dir {
			return true
		}
	}
	return false
}

// substituteGradle replaces $name and ${name} (also ${project.name},
// ${rootProject.ext.name}, ${libs.versions.x.get()}-free forms) by the
// properties; ok is false when one is unknown.
func substituteGradle(s string, lookup func(string) (string, bool)) (string, bool) {
	var b strings.Builder
	ok := true
	for i := 0; i < len(s); i++ {
		if s[i] != '$' {
			b.WriteByte(s[i])
			continue
		}
		var name string
		if i+1 < len(s) && s[i+1] == '{' {
			j := strings.IndexByte(s[i:], '}')
			if j < 0 {
				return s, false
			}
			name = s[i+2 : i+j]
			i += j
		} else {
			j := i + 1
			for j < len(s) && (isIdentPart(s[j]) || s[j] == '.') {
				j++
			}
			name = strings.TrimSuffix(s[i+1:j], ".")
			i = j - 1
		}
		v, found := lookup(name)
		for _, prefix := range []string{"rootProject.ext.", "rootProject.", "project.ext.", "project.", "ext."} {
			if found {
				break
			}
			if rest, ok := strings.CutPrefix(name, prefix); ok {
				v, found = lookup(rest)
			}
		}
		if k := strings.LastIndexByte(name, '.'); !found && k >= 0 {
			v, found = lookup(name[k+1:])
		}
		if !found {
			ok = false
		}
		b.WriteString(v)
	}
	return b.String(), ok
}

func sortDeps(mi *manifestInfo) {
	sort.SliceStable(mi.m.Dependencies, func(i, j int) bool {
		a, b := mi.m.Dependencies[i], mi.m.Dependencies[j]
		if a.Name != b.Name {
			return a.Name < b.Name
		}
		return !a.Dev && b.Dev
	})
	mi.m.Dependencies = dedupeDeps(mi.m.Dependencies)
}

func dedupeStrings(s []string) []string {
	out := s[:0]
	for i, x := range s {
		if i == 0 || x != s[i-1] {
			out = append(out, x)
		}
	}
	return out
}

// isBuildSrcSource reports the buildSrc sources whose constants build
// scripts use as dependency notations.
func isBuildSrcSource(p string) bool {
	if !strings.HasPrefix(p, "buildSrc/") && !strings.Contains(p, "/buildSrc/") {
		return false
	}
	switch path.Ext(p) {
	case ".kt", ".groovy", ".java":
		return true
	}
	return false
}
