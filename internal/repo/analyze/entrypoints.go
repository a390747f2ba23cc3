package analyze

import (
	"encoding/json"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/kontext-dev/kontext/internal/lazyregexp"
	"github.com/kontext-dev/kontext/internal/repo/model"
)

// EntryPoints finds where execution or use starts, strongest sources
// first: what manifests declare (package.json main/module/exports/bin,
// Cargo targets, Python console scripts), scripts that run a file, then
// language facts (Go package main, fn main, __main__) and naming and
// behaviour (cli.ts, server.ts, route registration, workers, tests).
// It sets g.EntryPoints and each module's EntryPoints (tests excluded
// there: a module's list is where it is started or used from).
func EntryPoints(g *model.Graph, obs *Observations, src Source) {
	entryPoints(g, newIndex(g), obs, src)
}

func entryPoints(g *model.Graph, ix *index, obs *Observations, src Source) {
	eb := &epBuilder{ix: ix, byKey: map[string]*model.EntryPoint{}, pythonPackages: map[string]bool{}}
	for i := range g.Files {
		if baseName(g.Files[i].Path) == "__init__.py" {
			eb.pythonPackages[path.Dir(g.Files[i].Path)] = true
		}
	}

	for i := range g.Manifests {
		mf := &g.Manifests[i]
		data := readSource(src, mf.Path)
		switch {
		case path.Base(mf.Path) == "package.json":
			eb.packageJSON(mf, data)
		case path.Base(mf.Path) == "Cargo.toml":
			eb.cargo(mf, data)
		case path.Base(mf.Path) == "pyproject.toml":
			eb.pyproject(mf, data)
		case path.Base(mf.Path) == "setup.cfg":
			eb.setupCfg(mf, data)
		}
	}
	eb.files(obs)

	g.EntryPoints = make([]model.EntryPoint, 0, len(eb.byKey))
	for _, k := range sortedKeys(eb.byKey) {
		g.EntryPoints = append(g.EntryPoints, *eb.byKey[k])
	}
	sort.SliceStable(g.EntryPoints, func(i, j int) bool {
		a, b := g.EntryPoints[i], g.EntryPoints[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		return a.Type < b.Type
	})
	perModule := map[string]map[string]bool{}
	for _, ep := range g.EntryPoints {
		if ep.Type == "test" || ep.Module == "" {
			continue
		}
		if perModule[ep.Module] == nil {
			perModule[ep.Module] = map[string]bool{}
		}
		perModule[ep.Module][ep.Path] = true
	}
	for i := range g.Modules {
		m := &g.Modules[i]
		m.EntryPoints = nil
		if set := perModule[m.ID]; len(set) > 0 {
			m.EntryPoints = sortedKeys(set)
		}
	}
}

type epBuilder struct {
	ix    *index
	byKey map[string]*model.EntryPoint
	// pythonPackages are the directories that hold an __init__.py.
	pythonPackages map[string]bool
}

// add keeps one entry per (path, type): the most confident, with the
// evidence of every source that named it.
func (eb *epBuilder) add(p, typ string, c float64, ev model.Evidence) {
	key := p + "\x00" + typ
	if ep, ok := eb.byKey[key]; ok {
		if c > ep.Confidence {
			ep.Confidence = conf(c)
		}
		if len(ep.Evidence) < 4 {
			ep.Evidence = append(ep.Evidence, ev)
		}
		return
	}
	eb.byKey[key] = &model.EntryPoint{Path: p, Module: eb.ix.moduleOf(p), Type: typ, Confidence: conf(c), Evidence: []model.Evidence{ev}}
}

func (eb *epBuilder) has(p string) bool {
	_, ok := eb.ix.files[p]
	return ok
}

// resolve finds the file a declared path names: as written, with a source
// extension or an index file, or, for a build output (dist/x.js), the
// source it is built from (src/x.ts).
func (eb *epBuilder) resolve(dir, declared string) (string, bool) {
	rel := path.Clean(path.Join(dir, strings.TrimPrefix(declared, "./")))
	if strings.HasPrefix(rel, "../") || rel == ".." {
		return "", false
	}
	try := func(base string) (string, bool) {
		if eb.has(base) {
			return base, true
		}
		noExt := strings.TrimSuffix(base, path.Ext(base))
		for _, ext := range []string{".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs"} {
			if eb.has(noExt + ext) {
				return noExt + ext, true
			}
			if eb.has(base + ext) {
				return base + ext, true
			}
			if eb.has(base + "/index" + ext) {
				return base + "/index" + ext, true
			}
		}
		return "", false
	}
	if p, ok := try(rel); ok {
		return p, true
	}
	inner := strings.TrimPrefix(rel, dir+"/")
	if dir == "." {
		inner = rel
	}
	// A build output (dist/esm/index.js, build/modern/index.cjs) is built
	// from the source of the same name under src/: strip the output
	// directory and the module-format directories below it.
	if rest, ok := cutOutputDir(inner); ok {
		for {
			if p, ok := try(path.Join(dir, "src", rest)); ok {
				return p, true
			}
			next, ok := cutOutputDir(rest)
			if !ok {
				break
			}
			rest = next
		}
	}
	return rel, false
}

// outputDirs are where packages put what they build, and the module
// formats they build it in.
var outputDirs = []string{"dist/", "build/", "lib/", "out/", "esm/", "cjs/", "es/", "mjs/", "umd/", "modern/", "legacy/", "module/", "node/", "browser/", "src/"}

func cutOutputDir(p string) (string, bool) {
	for _, d := range outputDirs {
		if rest, ok := strings.CutPrefix(p, d); ok && rest != "" {
			return rest, true
		}
	}
	return p, false
}

func (eb *epBuilder) declared(mf *model.Manifest, field, value, typ string) {
	if value == "" || strings.Contains(value, "*") {
		return
	}
	dir := path.Dir(mf.Path)
	p, ok := eb.resolve(dir, value)
	if p == "" {
		return
	}
	if !ok {
		// A build output that is not in the tree (dist/bin.js before a
		// build) and has no source of that name is no entry point of
		// the analysed revision.
		return
	}
	detail := fmt.Sprintf("%s %q points here (%s)", path.Base(mf.Path), field, value)
	if path.Clean(path.Join(dir, value)) != p {
		detail += ", resolved to the source file"
	}
	eb.add(p, typ, confDeclared, model.Evidence{File: mf.Path, Detail: detail})
}

type packageJSONFile struct {
	Main    string            `json:"main"`
	Module  string            `json:"module"`
	Bin     json.RawMessage   `json:"bin"`
	Exports json.RawMessage   `json:"exports"`
	Scripts map[string]string `json:"scripts"`
	Type    string            `json:"type"`
	Name    string            `json:"name"`
	Dev     map[string]string `json:"devDependencies"`
	Deps    map[string]string `json:"dependencies"`
	PM      string            `json:"packageManager"`
	WS      json.RawMessage   `json:"workspaces"`

	exports []string // exportTargets(Exports)
}

// parsePackageJSON parses a package.json. The result is shared between
// callers (and analyses: see packageJSONMemo) and must not be changed.
func parsePackageJSON(data []byte) (*packageJSONFile, bool) {
	if len(data) == 0 {
		return nil, false
	}
	pj := packageJSONMemo.get(string(data), func(s string) *packageJSONFile {
		var pj packageJSONFile
		if json.Unmarshal([]byte(s), &pj) != nil {
			return nil
		}
		pj.exports = exportTargets(pj.Exports, 0)
		return &pj
	})
	return pj, pj != nil
}

func (eb *epBuilder) packageJSON(mf *model.Manifest, data []byte) {
	pj, ok := parsePackageJSON(data)
	if !ok {
		return
	}
	eb.declared(mf, "main", pj.Main, "package-main")
	eb.declared(mf, "module", pj.Module, "package-main")
	var binStr string
	var binMap map[string]string
	if json.Unmarshal(pj.Bin, &binStr) == nil {
		eb.declared(mf, "bin", binStr, "package-bin")
	} else if json.Unmarshal(pj.Bin, &binMap) == nil {
		for _, k := range sortedKeys(binMap) {
			eb.declared(mf, "bin", binMap[k], "package-bin")
		}
	}
	for _, v := range pj.exports {
		eb.declared(mf, "exports", v, "package-export")
	}
	dir := path.Dir(mf.Path)
	for _, name := range sortedKeys(pj.Scripts) {
		cmd := pj.Scripts[name]
		for _, cand := range reScriptFile.FindAllString(cmd, 8) {
			if strings.Contains(cand, "node_modules") {
				continue
			}
			p, ok := eb.resolve(dir, cand)
			if !ok {
				continue
			}
			s := stem(p)
			typ := "cli" // a file a script runs is a command
			switch {
			case strings.Contains(name, "test") || strings.Contains(name, "spec") || strings.Contains(s, "test") || strings.Contains(s, "spec"):
				typ = "test"
			case reBuildScript.MatchString(name):
				typ = "build"
			case name == "start" || name == "dev" || name == "serve" || name == "preview" || name == "run":
				typ = "application"
			}
			eb.add(p, typ, confScript, model.Evidence{File: mf.Path, Detail: fmt.Sprintf("script %q runs this file: %s", name, clip(cmd, 120))})
		}
	}
}

// exportTargets collects the file paths of an "exports" map, skipping
// type declarations (they are not code that runs).
func exportTargets(raw json.RawMessage, depth int) []string {
	if len(raw) == 0 || depth > 8 {
		return nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []string{s}
	}
	var arr []json.RawMessage
	if json.Unmarshal(raw, &arr) == nil {
		var out []string
		for _, a := range arr {
			out = append(out, exportTargets(a, depth+1)...)
		}
		return out
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return nil
	}
	var out []string
	for _, k := range sortedKeys(obj) {
		if k == "types" || k == "typings" || strings.HasSuffix(k, ".json") {
			continue
		}
		out = append(out, exportTargets(obj[k], depth+1)...)
	}
	return out
}

type cargoFile struct {
	Package *struct {
		Name  string `toml:"name"`
		Build any    `toml:"build"` // a path, or false for none
	} `toml:"package"`
	Lib *struct {
		Path string `toml:"path"`
	} `toml:"lib"`
	Bin []struct {
		Name string `toml:"name"`
		Path string `toml:"path"`
	} `toml:"bin"`
}

func (eb *epBuilder) cargo(mf *model.Manifest, data []byte) {
	var cf cargoFile
	if _, err := toml.Decode(string(data), &cf); err != nil || cf.Package == nil {
		return // a virtual workspace manifest declares no targets
	}
	dir := path.Dir(mf.Path)
	join := func(p string) string { return path.Clean(path.Join(dir, p)) }
	for _, b := range cf.Bin {
		p := b.Path
		if p == "" {
			p = "src/bin/" + b.Name + ".rs"
			if !eb.has(join(p)) {
				p = "src/main.rs"
			}
		}
		eb.declared(mf, "[[bin]] "+b.Name, p, "package-bin")
	}
	if main := join("src/main.rs"); eb.has(main) {
		eb.add(main, "package-bin", confDeclared, model.Evidence{File: mf.Path, Detail: "Cargo builds src/main.rs as the package's binary"})
	}
	build := "build.rs"
	if b, ok := cf.Package.Build.(string); ok && b != "" {
		build = b
	}
	if enabled, ok := cf.Package.Build.(bool); !ok || enabled {
		if p := join(build); eb.has(p) {
			eb.add(p, "build", confDeclared, model.Evidence{File: mf.Path, Detail: "Cargo runs " + build + " before it compiles the package: a build script"})
		}
	}
	lib := "src/lib.rs"
	if cf.Lib != nil && cf.Lib.Path != "" {
		lib = cf.Lib.Path
	}
	if p := join(lib); eb.has(p) {
		eb.add(p, "library", confDeclared, model.Evidence{File: mf.Path, Detail: "Cargo builds " + lib + " as the package's library"})
	}
	for _, f := range eb.ix.g.Files {
		if path.Dir(f.Path) == join("src/bin") && path.Ext(f.Path) == ".rs" {
			eb.add(f.Path, "package-bin", confCLILib, model.Evidence{File: mf.Path, Detail: "Cargo builds every src/bin/*.rs as a binary"})
		}
	}
}

type pyprojectFile struct {
	Project struct {
		Scripts map[string]string `toml:"scripts"`
	} `toml:"project"`
	Tool struct {
		Poetry struct {
			Scripts map[string]any `toml:"scripts"`
		} `toml:"poetry"`
	} `toml:"tool"`
}

func (eb *epBuilder) pyproject(mf *model.Manifest, data []byte) {
	var pf pyprojectFile
	if _, err := toml.Decode(string(data), &pf); err != nil {
		return
	}
	for _, name := range sortedKeys(pf.Project.Scripts) {
		eb.consoleScript(mf, name, pf.Project.Scripts[name])
	}
	for _, name := range sortedKeys(pf.Tool.Poetry.Scripts) {
		if s, ok := pf.Tool.Poetry.Scripts[name].(string); ok {
			eb.consoleScript(mf, name, s)
		}
	}
}

var reConsoleScript = lazyregexp.New(`^\s*([\w.-]+)\s*=\s*([\w.]+)(?::[\w.]+)?`)

// setupCfg reads [options.entry_points] console_scripts.
func (eb *epBuilder) setupCfg(mf *model.Manifest, data []byte) {
	section, inScripts := "", false
	for _, line := range strings.Split(string(data), "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "[") {
			section, inScripts = strings.ToLower(t), false
			continue
		}
		if section != "[options.entry_points]" {
			continue
		}
		if k, v, ok := strings.Cut(t, "="); ok && strings.TrimSpace(k) == "console_scripts" {
			inScripts = true
			t = strings.TrimSpace(v)
		} else if t != "" && line[0] != ' ' && line[0] != '\t' {
			inScripts = false
		}
		if inScripts {
			if m := reConsoleScript.FindStringSubmatch(t); m != nil {
				eb.consoleScript(mf, m[1], t[strings.Index(t, "=")+1:])
			}
		}
	}
}

// consoleScript maps "pkg.module:func" to the module's file.
func (eb *epBuilder) consoleScript(mf *model.Manifest, name, target string) {
	mod, _, _ := strings.Cut(strings.TrimSpace(target), ":")
	if mod == "" {
		return
	}
	rel := strings.ReplaceAll(mod, ".", "/")
	dir := path.Dir(mf.Path)
	for _, cand := range []string{rel + ".py", rel + "/__init__.py", "src/" + rel + ".py", "src/" + rel + "/__init__.py"} {
		p := path.Clean(path.Join(dir, cand))
		if eb.has(p) {
			eb.add(p, "package-bin", confDeclared, model.Evidence{File: mf.Path, Detail: fmt.Sprintf("console script %q runs %s", name, clip(target, 100))})
			return
		}
	}
}

// files applies the language, naming and behaviour rules file by file.
func (eb *epBuilder) files(obs *Observations) {
	manifestOf := map[string]string{} // directory → its manifest
	for _, mf := range eb.ix.g.Manifests {
		if _, ok := manifestOf[path.Dir(mf.Path)]; !ok {
			manifestOf[path.Dir(mf.Path)] = mf.Path
		}
	}
	goModules := map[string]string{} // directory of a go.mod → its path
	for _, mf := range eb.ix.g.Manifests {
		if path.Base(mf.Path) == "go.mod" {
			goModules[path.Dir(mf.Path)] = mf.Path
		}
	}
	goRoots := map[string][]*model.File{} // a go.mod's directory → its package's files
	for i := range eb.ix.g.Files {
		f := &eb.ix.g.Files[i]
		if f.Kind == model.FileTest {
			eb.add(f.Path, "test", confTestFile, model.Evidence{File: f.Path, Detail: "test file"})
			continue
		}
		if isBuildScript(f.Path) && !f.Vendored && !f.Generated && built(f) {
			// Whatever it shows (and setup.py may be read as configuration).
			fo := obs.File(f.Path)
			if fo == nil {
				fo = &FileObservation{}
			}
			eb.buildScript(f, fo)
			continue
		}
		if !observable(f) {
			continue
		}
		fam := familyOf(f.Path)
		fo := obs.File(f.Path)
		if fo == nil {
			fo = &FileObservation{}
		}
		s := stem(f.Path)
		sig := map[string]SignalHit{}
		for _, h := range fo.Signals {
			sig[h.Signal] = h
		}
		periphery := PeripheryOf(f.Path)
		// Test helpers and mocks register routes and start workers for
		// the tests that use them: they are not how the program runs.
		if periphery != TestSupport {
			if h, ok := sig[sigHTTPRoute]; ok {
				eb.add(f.Path, "http-routes", confHTTPRoutes, model.Evidence{File: f.Path, Line: h.Line, Detail: h.Detail})
			}
			if h, ok := sig[sigWorker]; ok {
				eb.add(f.Path, "worker", confWorkerEntry, model.Evidence{File: f.Path, Line: h.Line, Detail: h.Detail})
			} else if h, ok := sig[sigSchedule]; ok && (fam == famJS || fam == famPython) && !isUI(f.Path, sig) {
				// A component polling with setInterval is no worker.
				eb.add(f.Path, "worker", confWorkerEntry, model.Evidence{File: f.Path, Line: h.Line, Detail: h.Detail})
			}
		}

		switch fam {
		case famGo:
			if fo.GoPackageMain && fo.MainFunc > 0 {
				typ, c, why := "application", confAppName, "package main with func main"
				if _, lib := sig[sigCLIFramework]; lib {
					typ, c, why = "cli", confGoMain, "package main with func main, using a command-line library"
				} else if strings.HasPrefix(f.Path, "cmd/") || strings.Contains(f.Path, "/cmd/") {
					typ, c, why = "cli", confCLIName, "package main with func main under cmd/"
				}
				eb.add(f.Path, typ, c, model.Evidence{File: f.Path, Line: fo.MainFunc, Detail: why})
			} else if !fo.GoPackageMain && f.Kind == model.FileSource && !f.Generated {
				if _, ok := goModules[path.Dir(f.Path)]; ok {
					goRoots[path.Dir(f.Path)] = append(goRoots[path.Dir(f.Path)], f)
				}
			}
			continue
		case famRust:
			_, declared := eb.byKey[f.Path+"\x00package-bin"] // a Cargo target already
			if fo.MainFunc > 0 && !declared && !strings.HasSuffix(f.Path, "src/main.rs") && !strings.Contains(f.Path, "/src/bin/") {
				typ := "application"
				if _, lib := sig[sigCLIFramework]; lib {
					typ = "cli"
				}
				eb.add(f.Path, typ, confCLIName, model.Evidence{File: f.Path, Line: fo.MainFunc, Detail: "declares fn main"})
			}
			continue
		case famJava:
			if fo.MainFunc > 0 {
				eb.add(f.Path, "application", confAppName, model.Evidence{File: f.Path, Line: fo.MainFunc, Detail: "declares a main method"})
			}
			continue
		case famPython:
			if baseName(f.Path) == "__main__.py" {
				eb.add(f.Path, "cli", confPyMain, model.Evidence{File: f.Path, Detail: "__main__.py makes the package runnable with python -m"})
				continue
			}
			if _, declared := eb.byKey[f.Path+"\x00package-bin"]; declared {
				continue // a console script's module already
			}
			if fo.PyMainGuard > 0 {
				typ := "application"
				if _, lib := sig[sigCLIFramework]; lib {
					typ = "cli"
				}
				eb.add(f.Path, typ, confWorkerEntry, model.Evidence{File: f.Path, Line: fo.PyMainGuard, Detail: `runs as a script (if __name__ == "__main__")`})
				continue
			}
		}

		// A module of a Python package runs as a command only through
		// what the checks above found (a console script, __main__.py, a
		// __main__ guard): that it imports click or argparse makes it a
		// library's command-line support (flask/app.py), not a program.
		if fam == famPython && !fo.Shebang && eb.inPythonPackage(f.Path) {
			if baseName(f.Path) == "__init__.py" && periphery != TestSupport {
				eb.pythonPackage(f, manifestOf)
			}
			continue
		}
		// Script languages: a file is runnable on its own, so names count.
		if h, lib := sig[sigCLIFramework]; lib || reCLIStem.MatchString(s) || fo.Shebang {
			c, ev := confCLIName, model.Evidence{File: f.Path, Detail: fmt.Sprintf("file name follows command-line conventions (%q)", baseName(f.Path))}
			if lib {
				c, ev = confCLILib, model.Evidence{File: f.Path, Line: h.Line, Detail: "uses a command-line library: " + h.Detail}
			} else if fo.Shebang {
				c, ev = confCLILib, model.Evidence{File: f.Path, Line: 1, Detail: "starts with a #! line"}
			}
			eb.add(f.Path, "cli", c, ev)
			continue
		}
		if reWorkerStem.MatchString(s) && periphery != TestSupport {
			eb.add(f.Path, "worker", confWorkerEntry, model.Evidence{File: f.Path, Detail: fmt.Sprintf("file name follows worker conventions (%q)", baseName(f.Path))})
			continue
		}
		dir := path.Dir(f.Path)
		_, atManifest := manifestOf[dir]
		_, atSrc := manifestOf[path.Dir(dir)]
		atRoot := atManifest || (path.Base(dir) == "src" && atSrc)
		if atRoot && reApplicationStem.MatchString(s) && !eb.declaredByManifest(f.Path) {
			typ, c := "application", confAppName
			if strings.EqualFold(s, "index") {
				c = confIndex
				if fam == famJS && fo.DefaultExports+fo.NamedExports > 0 {
					typ = "library"
				}
			}
			eb.add(f.Path, typ, c, model.Evidence{File: f.Path, Detail: fmt.Sprintf("entry file name at the package's source root (%q)", baseName(f.Path))})
			continue
		}
		if fam == famJS && strings.EqualFold(s, "index") && f.Module != "" && f.Module != f.Path && !eb.declaredByManifest(f.Path) {
			eb.add(f.Path, "library", confBarrel, model.Evidence{File: f.Path, Detail: "module index file: the module's public surface"})
		}
	}
	eb.goRootPackages(goModules, goRoots)
}

// isUI reports a file of a user interface: a JSX file, or one that
// imports a UI framework.
func isUI(p string, sig map[string]SignalHit) bool {
	switch strings.ToLower(path.Ext(p)) {
	case ".tsx", ".jsx":
		return true
	}
	_, ui := sig[sigUIFramework]
	return ui
}

// declaredByManifest reports a file a manifest already names as the
// package's main, export or binary: its word wins over the file's name.
func (eb *epBuilder) declaredByManifest(p string) bool {
	for _, typ := range []string{"package-main", "package-export", "package-bin"} {
		if _, ok := eb.byKey[p+"\x00"+typ]; ok {
			return true
		}
	}
	return false
}

// inPythonPackage reports a Python file inside a package: a directory
// with an __init__.py, or one below such a directory (an implicit
// namespace package inside a regular one, flask/sansio).
func (eb *epBuilder) inPythonPackage(p string) bool {
	for d := path.Dir(p); d != "." && d != "/" && d != ""; d = path.Dir(d) {
		if eb.pythonPackages[d] {
			return true
		}
	}
	return false
}

// pythonPackage lists a top-level package of a distribution as its
// library: the package directory beside the manifest, or under src/ (the
// src layout).
func (eb *epBuilder) pythonPackage(f *model.File, manifestOf map[string]string) {
	pkg := path.Dir(f.Path)
	parent := path.Dir(pkg)
	mf, ok := manifestOf[parent]
	if !ok && path.Base(parent) == "src" {
		mf, ok = manifestOf[path.Dir(parent)]
	}
	if !ok {
		return
	}
	ev := model.Evidence{File: mf, Detail: fmt.Sprintf("top-level Python package %q of the distribution %s declares", path.Base(pkg), path.Base(mf))}
	c := confBarrel
	for _, m := range eb.ix.g.Manifests {
		if m.Path == mf && m.Name != "" && normalizePyName(m.Name) == normalizePyName(path.Base(pkg)) {
			c = confPyMain // the package the distribution is named after
			ev.Detail += ", named after it"
		}
	}
	eb.add(f.Path, "library", c, ev)
}

// goRootPackages lists the package in a Go module's own directory as the
// module's library (the package its import path names), by the file that
// carries the package's name or documentation.
func (eb *epBuilder) goRootPackages(goModules map[string]string, roots map[string][]*model.File) {
	for _, dir := range sortedKeys(roots) {
		files := roots[dir]
		pick := files[0]
		for _, f := range files {
			b := strings.TrimSuffix(baseName(f.Path), ".go")
			if (f.Package != "" && b == f.Package) || b == "doc" || b == path.Base(pathOrRoot(dir)) {
				pick = f
				break
			}
		}
		eb.add(pick.Path, "library", confGoMain, model.Evidence{File: goModules[dir], Detail: "the module's root package: what its import path names"})
	}
}

func pathOrRoot(dir string) string {
	if dir == "." {
		return ""
	}
	return dir
}

// buildScript gives a build script (build.rs, setup.py, Gradle build
// logic) the type build, whatever else it shows: it runs when the project
// is built, not when it is used.
func (eb *epBuilder) buildScript(f *model.File, fo *FileObservation) {
	line := fo.MainFunc
	if line == 0 {
		line = fo.PyMainGuard
	}
	why := "a build script: it runs when the project is built"
	switch {
	case baseName(f.Path) == "build.rs":
		why = "Cargo's build script: it runs before the package is compiled"
	case baseName(f.Path) == "setup.py":
		why = "setuptools' build script: it runs when the distribution is built or installed"
	case strings.Contains(f.Path, ".gradle") || strings.Contains(f.Path, "buildSrc/") || strings.Contains(f.Path, "build-logic/"):
		why = "Gradle build logic: it runs when the build is configured"
		if line == 0 {
			return // a build file, not a program
		}
	}
	eb.add(f.Path, "build", confCLIName, model.Evidence{File: f.Path, Line: line, Detail: why})
}

// readSource reads a file through src, nil when it cannot.
func readSource(src Source, p string) []byte {
	if src == nil || p == "" {
		return nil
	}
	b, err := src(p)
	if err != nil {
		return nil
	}
	return b
}
