package analyze

import (
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/kontext-dev/kontext/internal/jsonc"
	"github.com/kontext-dev/kontext/internal/lazyregexp"
	"github.com/kontext-dev/kontext/internal/repo/model"
)

// Conventions reports how the code is written, from counted observations
// only: each statement has a minimum sample below which it is not made,
// its sample count, and at most four pieces of evidence. Statements carry
// no counts (those are in Samples and the evidence), so a convention's id
// stays the same while the code it describes grows.
func Conventions(g *model.Graph, obs *Observations, src Source) {
	conventions(g, newIndex(g), obs, src)
}

func conventions(g *model.Graph, ix *index, obs *Observations, src Source) {
	c := &convCollector{g: g, ix: ix, obs: obs, src: src}
	c.languages()
	c.toolchain()
	c.fileNaming()
	c.symbolNaming()
	c.imports()
	c.exports()
	c.structure()
	c.errors()
	c.tests()
	c.documentation()

	order := map[string]int{"Languages": 0, "Toolchain": 1, "Naming": 2, "Imports": 3, "Exports": 4, "Structure": 5, "Error handling": 6, "Tests": 7, "Documentation": 8}
	seen := map[string]bool{}
	out := make([]model.Convention, 0, len(c.out))
	for _, cv := range c.out {
		if !seen[cv.ID] {
			seen[cv.ID] = true
			out = append(out, cv)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if order[out[i].Category] != order[out[j].Category] {
			return order[out[i].Category] < order[out[j].Category]
		}
		return out[i].Statement < out[j].Statement
	})
	g.Conventions = out
}

type convCollector struct {
	g    *model.Graph
	ix   *index
	obs  *Observations
	src  Source
	out  []model.Convention
	code map[codeKey][]*model.File // codeFiles, by family and test-ness
}

func (c *convCollector) add(category, statement string, confidence float64, samples int, origin string, evs []model.Evidence) {
	if len(evs) > maxConvEvidence {
		evs = evs[:maxConvEvidence]
	}
	c.out = append(c.out, model.Convention{
		ID:         strings.ReplaceAll(strings.ToLower(category), " ", "-") + ":" + hash8(statement),
		Category:   category,
		Statement:  statement,
		Confidence: conf(confidence),
		Samples:    samples,
		Evidence:   evs,
		Origin:     origin,
	})
}

// codeFiles are the team's own source files (not tests) of a family.
func (c *convCollector) codeFiles(fam family, tests bool) []*model.File {
	if c.code == nil {
		// Every rule asks for these lists; one pass over the files makes
		// them all.
		c.code = map[codeKey][]*model.File{}
		for i := range c.g.Files {
			f := &c.g.Files[i]
			if !observable(f) {
				continue
			}
			k := codeKey{familyOf(f.Path), f.Kind == model.FileTest}
			c.code[k] = append(c.code[k], f)
		}
	}
	// Callers append to what they get: a copy keeps the cache intact.
	return slices.Clone(c.code[codeKey{fam, tests}])
}

type codeKey struct {
	fam   family
	tests bool
}

var families = []family{famJS, famGo, famPython, famRust, famJava}

func (c *convCollector) familyLabel(fam family) string {
	switch fam {
	case famJS:
		ts, js := 0, 0
		for i := range c.g.Files {
			if familyOf(c.g.Files[i].Path) == famJS {
				if isTSLike(c.g.Files[i].Path) {
					ts++
				} else {
					js++
				}
			}
		}
		switch {
		case js == 0:
			return "TypeScript"
		case ts == 0:
			return "JavaScript"
		}
		return "TypeScript/JavaScript"
	case famGo:
		return "Go"
	case famPython:
		return "Python"
	case famRust:
		return "Rust"
	case famJava:
		return "Java/Kotlin"
	}
	return string(fam)
}

func (c *convCollector) languages() {
	counts := map[family]int{}
	total := 0
	var ev []model.Evidence
	for i := range c.g.Files {
		f := &c.g.Files[i]
		if observable(f) {
			counts[familyOf(f.Path)]++
			total++
		}
	}
	if total == 0 {
		return
	}
	var main []string
	for _, fam := range families {
		n := counts[fam]
		if n == 0 || float64(n) < 0.1*float64(total) {
			continue
		}
		main = append(main, c.familyLabel(fam))
		ev = append(ev, model.Evidence{Detail: fmt.Sprintf("%d of %d code files are %s", n, total, c.familyLabel(fam))})
	}
	if len(main) == 0 {
		return
	}
	if len(main) == 1 {
		c.add("Languages", "The code is written in "+main[0], 0.95, total, "observed", ev)
		return
	}
	c.add("Languages", "The code mixes "+joinAnd(main), 0.9, total, "observed", ev)
}

// --- Toolchain ---

func (c *convCollector) toolchain() {
	// The documentation filter is a regexp: applied once per path here,
	// not once per path and tool, it keeps this step cheap enough to re-run
	// after every edit of a large tree.
	all := make([]string, 0, len(c.g.Files))
	for i := range c.g.Files {
		if p := c.g.Files[i].Path; !notDocs(p) {
			all = append(all, p)
		}
	}
	if !slices.IsSorted(all) { // a graph's files are sorted; others may not be
		sort.Strings(all)
	}
	all = slices.Compact(all)
	// Only the paths a tool names (by base name or directory prefix) can
	// match it: one pass finds those named by any tool, in path order.
	var named []int
	for i, p := range all {
		if toolConfigNames[baseName(p)] {
			named = append(named, i)
		}
	}
	found := map[string]bool{}
	pyproject := string(readSource(c.src, "pyproject.toml")) + string(readSource(c.src, "setup.cfg")) + string(readSource(c.src, "tox.ini"))
	for _, t := range toolConfigs {
		var cand []int
		for _, i := range named {
			if hasString(t.Names, baseName(all[i])) {
				cand = append(cand, i)
			}
		}
		for _, pre := range t.Prefixes {
			for i := sort.SearchStrings(all, pre); i < len(all) && strings.HasPrefix(all[i], pre); i++ {
				cand = append(cand, i)
			}
		}
		slices.Sort(cand)
		cand = slices.Compact(cand)
		var evs []model.Evidence
		for _, i := range cand {
			p := all[i]
			if len(evs) >= maxConvEvidence {
				break
			}
			if hasString(t.Names, baseName(p)) {
				evs = append(evs, model.Evidence{File: p, Detail: t.Tool + " configuration"})
			}
			for _, pre := range t.Prefixes {
				if strings.HasPrefix(p, pre) && len(evs) < maxConvEvidence {
					evs = append(evs, model.Evidence{File: p, Detail: t.Tool + " configuration"})
				}
			}
		}
		if t.Section != "" && strings.Contains(pyproject, t.Section) {
			for _, f := range []string{"pyproject.toml", "setup.cfg", "tox.ini"} {
				if strings.Contains(string(readSource(c.src, f)), t.Section) {
					evs = append(evs, model.Evidence{File: f, Line: keyLineText(readSource(c.src, f), t.Section), Detail: t.Section + "] section"})
					break
				}
			}
		}
		if len(evs) > 0 {
			found[t.Tool] = true
			c.add("Toolchain", t.Statement, 0.9, len(evs), "config", evs)
		}
	}
	// Tools only declared as devDependencies.
	devEv := map[string][]model.Evidence{}
	for _, mf := range c.g.Manifests {
		for _, d := range mf.Dependencies {
			if tool, ok := devTools[d.Name]; ok && d.Dev && !found[tool] {
				devEv[tool] = append(devEv[tool], model.Evidence{File: mf.Path, Detail: d.Name + " is a devDependency"})
			}
		}
	}
	for _, tool := range sortedKeys(devEv) {
		for _, t := range toolConfigs {
			if t.Tool == tool {
				c.add("Toolchain", t.Statement, 0.85, len(devEv[tool]), "config", devEv[tool])
			}
		}
	}
	if pj, ok := parsePackageJSON(readSource(c.src, "package.json")); ok {
		if pj.Type == "module" {
			c.add("Toolchain", `The package is configured as ES modules ("type": "module")`, 0.9, 1, "config", []model.Evidence{{File: "package.json", Detail: `"type": "module"`}})
		} else {
			c.add("Toolchain", `The package is configured as CommonJS (no "type": "module")`, 0.9, 1, "config", []model.Evidence{{File: "package.json", Detail: `no "type": "module"`}})
		}
	}
	for _, d := range configDecisions(c.g, c.src) {
		switch d.ID {
		case "INF-PACKAGE-MANAGER":
			c.add("Toolchain", d.Title, confPackageMgr, len(d.Evidence), "config", d.Evidence)
		case "INF-STRICT-TS":
			c.add("Toolchain", "TypeScript strict mode is enabled", confStrictTS, len(d.Evidence), "config", d.Evidence)
		case "INF-WORKSPACES":
			c.add("Toolchain", d.Title, confWorkspaces, len(c.g.Workspaces), "config", d.Evidence)
		}
	}
}

// toolConfigNames are the base names any tool is configured by.
var toolConfigNames = func() map[string]bool {
	m := map[string]bool{}
	for _, t := range toolConfigs {
		for _, n := range t.Names {
			m[n] = true
		}
	}
	return m
}()

func keyLineText(data []byte, s string) int {
	i := strings.Index(string(data), s)
	if i < 0 {
		return 0
	}
	return lineAt(data, i)
}

// --- Naming ---

type idCase string

const (
	casePascal    idCase = "PascalCase"
	caseCamel     idCase = "camelCase"
	caseKebab     idCase = "kebab-case"
	caseSnake     idCase = "snake_case"
	caseScreaming idCase = "SCREAMING_SNAKE_CASE"
	caseLower     idCase = "lower" // one lowercase word: fits camel, kebab and snake alike
	caseOther     idCase = "other"
)

var (
	rePascal    = lazyregexp.New(`^[A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*$`)
	reCamel     = lazyregexp.New(`^[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+$`)
	reKebab     = lazyregexp.New(`^[a-z0-9]+(?:-[a-z0-9]+)+$`)
	reSnake     = lazyregexp.New(`^[a-z0-9]+(?:_[a-z0-9]+)+$`)
	reScreaming = lazyregexp.New(`^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+$`)
	reLower     = lazyregexp.New(`^[a-z][a-z0-9]*$`)
)

func classify(s string) idCase {
	return classifyMemo.get(s, classifyName)
}

func classifyName(s string) idCase {
	s = strings.TrimLeft(s, "_$")
	switch {
	case s == "":
		return caseOther
	case reLower.MatchString(s):
		return caseLower
	case reCamel.MatchString(s):
		return caseCamel
	case reKebab.MatchString(s):
		return caseKebab
	case reSnake.MatchString(s):
		return caseSnake
	case reScreaming.MatchString(s):
		return caseScreaming
	case rePascal.MatchString(s):
		return casePascal
	}
	return caseOther
}

type caseTally struct {
	counts   map[idCase]int
	examples map[idCase][]model.Evidence
	total    int
}

func newTally() *caseTally {
	return &caseTally{counts: map[idCase]int{}, examples: map[idCase][]model.Evidence{}}
}

// add counts a name; ev makes its evidence, called only for the few
// examples kept (formatting one per symbol of a large tree is the cost).
func (t *caseTally) add(name string, ev func(idCase) model.Evidence) {
	k := classify(name)
	if k == caseOther {
		return
	}
	t.counts[k]++
	t.total++
	if len(t.examples[k]) < maxConvEvidence {
		t.examples[k] = append(t.examples[k], ev(k))
	}
}

// dominant is the leading case and how many names fit it (one-word
// lowercase names fit camel, kebab and snake case). ok is false when no
// multi-word case was seen: "all one word" is not a naming convention.
func (t *caseTally) dominant() (k idCase, fit int, ok bool) {
	best := 0
	for _, cand := range []idCase{casePascal, caseCamel, caseKebab, caseSnake, caseScreaming} {
		n := t.counts[cand]
		if n == 0 {
			continue
		}
		f := n
		if cand == caseCamel || cand == caseKebab || cand == caseSnake {
			f += t.counts[caseLower]
		}
		if n > best || n == best && f > fit {
			k, fit, best, ok = cand, f, n, true
		}
	}
	return k, fit, ok
}

// fileNameKey is a file's name up to its first dot: order-service.test.ts
// names "order-service".
func fileNameKey(p string) string {
	b := baseName(p)
	if i := strings.IndexByte(b, '.'); i > 0 {
		return b[:i]
	}
	return b
}

var entryNames = map[string]bool{"index": true, "main": true, "mod": true, "lib": true, "__init__": true, "__main__": true, "setup": true, "conftest": true, "doc": true}

func (c *convCollector) fileNaming() {
	for _, fam := range families {
		t := newTally()
		for _, f := range c.codeFiles(fam, false) {
			k := fileNameKey(f.Path)
			if entryNames[k] {
				continue
			}
			t.add(k, func(c idCase) model.Evidence {
				return model.Evidence{File: f.Path, Detail: "file name is " + string(c)}
			})
		}
		if t.total < minFileNaming {
			continue
		}
		k, fit, ok := t.dominant()
		if !ok {
			continue
		}
		ratio := float64(fit) / float64(t.total)
		if ratio < ratioFileNaming {
			continue
		}
		evs := append([]model.Evidence{{Detail: fmt.Sprintf("%d of %d %s file names fit %s", fit, t.total, c.familyLabel(fam), k)}}, t.examples[k]...)
		c.add("Naming", fmt.Sprintf("%s source files are named in %s", c.familyLabel(fam), k), 0.75+0.2*ratio, t.total, "observed", evs)
	}
}

// symbolKinds are the exported declarations whose case is a choice (Go's
// exported names are capitalised by the language, so only its constants
// count).
var symbolKinds = map[family][]string{
	famJS:     {"class", "interface", "type", "function", "const", "enum"},
	famGo:     {"const"},
	famPython: {"class", "function", "const"},
	famRust:   {"struct", "enum", "trait", "type", "function", "const"},
	famJava:   {"class", "interface", "enum", "function", "method", "const"},
}

func (c *convCollector) symbolNaming() {
	for _, fam := range families {
		tallies := map[string]*caseTally{}
		for _, f := range c.codeFiles(fam, false) {
			for _, s := range f.Symbols {
				if !hasString(symbolKinds[fam], s.Kind) || len(s.Name) < 2 {
					continue
				}
				t := tallies[s.Kind]
				if t == nil {
					t = newTally()
					tallies[s.Kind] = t
				}
				t.add(s.Name, func(c idCase) model.Evidence {
					return model.Evidence{File: f.Path, Line: s.Line, Detail: fmt.Sprintf("%s %s is %s", s.Kind, s.Name, c)}
				})
			}
		}
		for _, kind := range sortedKeys(tallies) {
			t := tallies[kind]
			if t.total < minSymbols {
				continue
			}
			k, fit, ok := t.dominant()
			if !ok {
				continue
			}
			ratio := float64(fit) / float64(t.total)
			if ratio < ratioSymbols {
				continue
			}
			evs := append([]model.Evidence{{Detail: fmt.Sprintf("%d of %d exported %s %s declarations fit %s", fit, t.total, c.familyLabel(fam), kind, k)}}, t.examples[k]...)
			c.add("Naming", fmt.Sprintf("Exported %s %s names use %s", c.familyLabel(fam), kind, k), 0.8+0.15*ratio, t.total, "observed", evs)
		}
	}
}

// --- Imports ---

func (c *convCollector) imports() {
	js := c.codeFiles(famJS, false)
	js = append(js, c.codeFiles(famJS, true)...)
	sort.Slice(js, func(i, j int) bool { return js[i].Path < js[j].Path })

	// tsconfig path aliases
	aliases, aliasSrc := c.tsconfigAliases()
	if len(aliases) > 0 {
		aliased, internal := 0, 0
		var evs []model.Evidence
		for _, f := range js {
			for _, imp := range f.Imports {
				if strings.HasPrefix(imp.Spec, ".") {
					internal++
					continue
				}
				for _, a := range aliases {
					if strings.HasPrefix(imp.Spec, a) {
						aliased++
						internal++
						if len(evs) < 3 {
							evs = append(evs, model.Evidence{File: f.Path, Line: imp.Line, Detail: fmt.Sprintf("imports %q through an alias", imp.Spec)})
						}
						break
					}
				}
			}
		}
		if aliased >= minImports && float64(aliased) >= 0.2*float64(internal) {
			evs = append([]model.Evidence{{File: aliasSrc, Detail: fmt.Sprintf("paths %s; %d of %d internal imports use them", strings.Join(aliases, ", "), aliased, internal)}}, evs...)
			c.add("Imports", "Internal imports use the tsconfig path aliases", 0.85, aliased, "observed", evs)
		}
	}

	var relative, explicit, typeOnly, withImports, esmFiles, cjsFiles int
	var explicitEv, typeEv, esmEv, cjsEv []model.Evidence
	for _, f := range js {
		fo := c.obs.File(f.Path)
		if fo == nil {
			continue
		}
		relative += fo.Relative
		explicit += fo.ExplicitJS
		if fo.ExplicitJS > 0 && len(explicitEv) < 3 {
			explicitEv = append(explicitEv, model.Evidence{File: f.Path, Detail: fmt.Sprintf("%d relative imports end in .js", fo.ExplicitJS)})
		}
		if fo.ESMImports+fo.RequireCalls > 0 {
			withImports++
		}
		if fo.TypeOnly && isTSLike(f.Path) {
			typeOnly++
			if len(typeEv) < 3 {
				typeEv = append(typeEv, model.Evidence{File: f.Path, Detail: "uses import type"})
			}
		}
		if fo.ESMImports > 0 {
			esmFiles++
			if len(esmEv) < 3 {
				esmEv = append(esmEv, model.Evidence{File: f.Path, Detail: "imports with ES import syntax"})
			}
		}
		if fo.RequireCalls > 0 {
			cjsFiles++
			if len(cjsEv) < 3 {
				cjsEv = append(cjsEv, model.Evidence{File: f.Path, Detail: fmt.Sprintf("%d require() calls", fo.RequireCalls)})
			}
		}
	}
	if explicit >= minImports && float64(explicit) >= 0.4*float64(relative) {
		c.add("Imports", "Relative imports carry explicit .js extensions", 0.8, relative,
			"observed", append([]model.Evidence{{Detail: fmt.Sprintf("%d of %d relative imports end in .js/.mjs/.cjs", explicit, relative)}}, explicitEv...))
	}
	if typeOnly >= minImports && float64(typeOnly) >= 0.25*float64(withImports) {
		c.add("Imports", "Type-only imports use `import type`", 0.8, withImports,
			"observed", append([]model.Evidence{{Detail: fmt.Sprintf("%d of %d files with imports use import type", typeOnly, withImports)}}, typeEv...))
	}
	if mod := esmFiles + cjsFiles; mod >= minImports {
		switch {
		case float64(cjsFiles) >= ratioImports*float64(mod):
			c.add("Imports", "Modules are loaded with CommonJS require()", 0.75, mod, "observed",
				append([]model.Evidence{{Detail: fmt.Sprintf("%d of %d files use require()", cjsFiles, mod)}}, cjsEv...))
		case cjsFiles == 0:
			c.add("Imports", "Modules use ES import syntax, not require()", 0.85, mod, "observed",
				append([]model.Evidence{{Detail: fmt.Sprintf("%d files import, none with require()", esmFiles)}}, esmEv...))
		}
	}

	// Order: external packages before internal modules, in any language.
	ordered, extFirst := 0, 0
	var orderEv []model.Evidence
	for i := range c.g.Files {
		f := &c.g.Files[i]
		if !observable(f) {
			continue
		}
		lastExt, firstInt := 0, 0
		for _, imp := range f.Imports {
			switch imp.Kind {
			case model.ImportExternal, model.ImportBuiltin:
				if imp.Line > lastExt {
					lastExt = imp.Line
				}
			case model.ImportInternalFile, model.ImportInternalModule, model.ImportWorkspacePackage:
				if firstInt == 0 || imp.Line < firstInt {
					firstInt = imp.Line
				}
			}
		}
		if lastExt == 0 || firstInt == 0 {
			continue
		}
		ordered++
		if lastExt < firstInt {
			extFirst++
			if len(orderEv) < 3 {
				orderEv = append(orderEv, model.Evidence{File: f.Path, Line: firstInt, Detail: "internal imports follow the external ones"})
			}
		}
	}
	if ordered >= minImports && float64(extFirst) >= ratioImports*float64(ordered) {
		c.add("Imports", "External packages are imported before internal modules", 0.75, ordered, "observed",
			append([]model.Evidence{{Detail: fmt.Sprintf("%d of %d files that import both do so", extFirst, ordered)}}, orderEv...))
	}
}

// tsconfigAliases returns the path-alias prefixes ("@/", "~/") of the
// root tsconfig, and the file that declares them.
func (c *convCollector) tsconfigAliases() ([]string, string) {
	for _, p := range []string{"tsconfig.json", "tsconfig.base.json", "jsconfig.json"} {
		data := readSource(c.src, p)
		if data == nil {
			continue
		}
		var tc struct {
			CompilerOptions struct {
				Paths map[string][]string `json:"paths"`
			} `json:"compilerOptions"`
		}
		if jsonc.Unmarshal(data, &tc) != nil {
			continue
		}
		var out []string
		for _, k := range sortedKeys(tc.CompilerOptions.Paths) {
			if a := strings.TrimSuffix(k, "*"); len(a) > 1 {
				out = append(out, a)
			}
		}
		if len(out) > 0 {
			return out, p
		}
	}
	return nil, ""
}

// --- Exports ---

func (c *convCollector) exports() {
	var named, defaults int
	var namedEv, defEv []model.Evidence
	for _, f := range c.codeFiles(famJS, false) {
		fo := c.obs.File(f.Path)
		if fo == nil {
			continue
		}
		named += fo.NamedExports
		defaults += fo.DefaultExports
		if fo.NamedExports > 0 && len(namedEv) < 3 {
			namedEv = append(namedEv, model.Evidence{File: f.Path, Detail: fmt.Sprintf("%d named exports", fo.NamedExports)})
		}
		if fo.DefaultExports > 0 && len(defEv) < 3 {
			defEv = append(defEv, model.Evidence{File: f.Path, Detail: "default export"})
		}
	}
	total := named + defaults
	if total < minExports {
		return
	}
	ratio := float64(defaults) / float64(total)
	switch {
	case ratio <= 0.15:
		c.add("Exports", "Modules use named exports rather than default exports", 0.85, total, "observed",
			append([]model.Evidence{{Detail: fmt.Sprintf("%d of %d exports are named", named, total)}}, namedEv...))
	case ratio >= 0.5:
		c.add("Exports", "Modules mostly use default exports", 0.75, total, "observed",
			append([]model.Evidence{{Detail: fmt.Sprintf("%d of %d exports are default exports", defaults, total)}}, defEv...))
	}
}

// --- Structure ---

func (c *convCollector) structure() {
	withFiles, barrels := 0, 0
	var barrelEv []model.Evidence
	internal := 0
	var internalEv []model.Evidence
	for i := range c.g.Modules {
		m := &c.g.Modules[i]
		files := c.ix.byModule[m.ID]
		js := false
		for _, f := range files {
			if familyOf(f.Path) == famJS && f.Kind != model.FileTest {
				js = true
				break
			}
		}
		if js {
			withFiles++
			for _, f := range files {
				if path.Dir(f.Path) == m.ID && strings.EqualFold(fileNameKey(f.Path), "index") && familyOf(f.Path) == famJS {
					barrels++
					if len(barrelEv) < 3 {
						barrelEv = append(barrelEv, model.Evidence{File: f.Path, Detail: "index file of module " + m.ID})
					}
					break
				}
			}
		}
		if strings.HasPrefix(m.ID, "internal/") || strings.Contains(m.ID, "/internal/") {
			internal++
			if len(internalEv) < 3 {
				internalEv = append(internalEv, model.Evidence{File: m.ID, Detail: "module under internal/"})
			}
		}
	}
	if withFiles >= 3 && 2*barrels >= withFiles {
		c.add("Structure", "Modules expose their public surface through index files", 0.8, withFiles, "observed",
			append([]model.Evidence{{Detail: fmt.Sprintf("%d of %d TypeScript/JavaScript modules have an index file", barrels, withFiles)}}, barrelEv...))
	}
	if internal >= 2 && len(c.codeFiles(famGo, false)) > 0 {
		c.add("Structure", "Go packages not meant for import by other modules live under internal/", 0.8, internal, "observed", internalEv)
	}
	var domainish, layered []string
	for i := range c.g.Modules {
		m := &c.g.Modules[i]
		if r, ok := TopRole(m); ok {
			switch r.Role {
			case "domain", "repository":
				domainish = append(domainish, m.ID+" → "+r.Role)
			case "adapter", "controller", "infrastructure":
				layered = append(layered, m.ID+" → "+r.Role)
			}
		}
	}
	if len(domainish) > 0 && len(layered) > 0 {
		c.add("Structure", "Domain code is kept apart from infrastructure and adapters", 0.55, len(domainish)+len(layered), "observed", []model.Evidence{
			{Detail: "modules by top role: " + clip(strings.Join(append(domainish, layered...), "; "), 200)},
		})
	}
}

// --- Error handling ---

func (c *convCollector) errors() {
	for _, fam := range families {
		var types, sentinels []model.Evidence
		suffix := 0
		want := "Error"
		if fam == famJava {
			want = "Exception"
		}
		for _, f := range c.codeFiles(fam, false) {
			fo := c.obs.File(f.Path)
			if fo == nil {
				continue
			}
			for _, t := range fo.ErrorTypes {
				types = append(types, model.Evidence{File: f.Path, Line: t.Line, Detail: "declares error type " + t.Name})
				if strings.HasSuffix(t.Name, want) || fam == famJava && strings.HasSuffix(t.Name, "Error") {
					suffix++
				}
			}
			for _, s := range fo.Sentinels {
				sentinels = append(sentinels, model.Evidence{File: f.Path, Line: s.Line, Detail: "declares sentinel error " + s.Name})
			}
		}
		label := c.familyLabel(fam)
		if n := len(types); n >= minErrorTypes {
			what := map[family]string{
				famJS: "classes extending Error", famGo: "types with an Error() string method", famPython: "exception classes",
				famJava: "exception classes", famRust: "types implementing std::error::Error",
			}[fam]
			c.add("Error handling", fmt.Sprintf("%s code declares its own errors as %s", label, what), 0.85, n, "observed", types)
			if float64(suffix) >= ratioSymbols*float64(n) {
				c.add("Error handling", fmt.Sprintf("%s error type names end in %s", label, want), 0.8+0.15*float64(suffix)/float64(n), n, "observed",
					append([]model.Evidence{{Detail: fmt.Sprintf("%d of %d error types end in %s", suffix, n, want)}}, types...))
			}
		}
		if n := len(sentinels); n >= minErrorTypes {
			c.add("Error handling", "Go sentinel errors are package-level ErrXxx variables", 0.85, n, "observed", sentinels)
		}
	}
}

// --- Tests ---

var reJSTestName = lazyregexp.New(`\.(test|spec)\.([cm]?[jt]sx?)$`)

// testPattern names the naming pattern a test file follows.
func testPattern(p string) string {
	b := baseName(p)
	switch familyOf(p) {
	case famJS:
		if m := reJSTestName.FindStringSubmatch(b); m != nil {
			ext := "js"
			if strings.Contains(m[2], "t") {
				ext = "ts"
			}
			return "*." + m[1] + "." + ext
		}
		if strings.Contains(p, "__tests__/") {
			return "__tests__/"
		}
	case famGo:
		if strings.HasSuffix(b, "_test.go") {
			return "*_test.go"
		}
	case famPython:
		if strings.HasPrefix(b, "test_") {
			return "test_*.py"
		}
		if strings.HasSuffix(b, "_test.py") {
			return "*_test.py"
		}
	case famRust:
		if strings.HasPrefix(p, "tests/") || strings.Contains(p, "/tests/") {
			return "tests/*.rs"
		}
	case famJava:
		for _, s := range []string{"Tests", "Test", "IT", "Spec"} {
			if strings.HasSuffix(fileNameKey(p), s) {
				return "*" + s + path.Ext(p)
			}
		}
	}
	return "other"
}

var reCentralTests = lazyregexp.New(`(^|/)(tests?|__tests__|e2e|specs?|integration)/`)

func (c *convCollector) tests() {
	var all []*model.File
	for _, fam := range families {
		tests := c.codeFiles(fam, true)
		all = append(all, tests...)
		if len(tests) < minTests {
			continue
		}
		pats := map[string][]model.Evidence{}
		counts := map[string]int{}
		for _, f := range tests {
			p := testPattern(f.Path)
			counts[p]++
			if len(pats[p]) < 3 {
				pats[p] = append(pats[p], model.Evidence{File: f.Path, Detail: "test file named " + p})
			}
		}
		best := ""
		for _, p := range sortedKeys(counts) {
			if p != "other" && (best == "" || counts[p] > counts[best]) {
				best = p
			}
		}
		if best != "" && 2*counts[best] >= len(tests) {
			c.add("Tests", fmt.Sprintf("%s tests are named %s", c.familyLabel(fam), best), 0.85, len(tests), "observed",
				append([]model.Evidence{{Detail: fmt.Sprintf("%d of %d %s test files", counts[best], len(tests), c.familyLabel(fam))}}, pats[best]...))
		}
	}
	if len(all) >= minTests {
		dirs := map[string]bool{}
		for i := range c.g.Files {
			f := &c.g.Files[i]
			if f.Kind == model.FileSource && observable(f) {
				dirs[path.Dir(f.Path)] = true
			}
		}
		colocated, central := 0, 0
		var colEv, cenEv []model.Evidence
		for _, f := range all {
			if dirs[path.Dir(f.Path)] {
				colocated++
				if len(colEv) < 3 {
					colEv = append(colEv, model.Evidence{File: f.Path, Detail: "test next to the code it covers"})
				}
			}
			if reCentralTests.MatchString(f.Path) {
				central++
				if len(cenEv) < 3 {
					cenEv = append(cenEv, model.Evidence{File: f.Path, Detail: "test in a dedicated test directory"})
				}
			}
		}
		switch {
		case float64(colocated) >= 0.6*float64(len(all)):
			c.add("Tests", "Tests sit next to the code they cover", 0.8, len(all), "observed",
				append([]model.Evidence{{Detail: fmt.Sprintf("%d of %d test files share a directory with source files", colocated, len(all))}}, colEv...))
		case central >= minTests && float64(central) >= 0.6*float64(len(all)):
			c.add("Tests", "Tests live in dedicated test directories", 0.8, len(all), "observed",
				append([]model.Evidence{{Detail: fmt.Sprintf("%d of %d test files are in a test directory", central, len(all))}}, cenEv...))
		}
	}
	c.testRunners(all)
}

func (c *convCollector) testRunners(tests []*model.File) {
	runners := map[string][]model.Evidence{}
	samples := map[string]int{}
	origin := map[string]string{}
	for _, mf := range c.g.Manifests {
		for _, d := range mf.Dependencies {
			if r, ok := testRunners[d.Name]; ok {
				runners[r] = append(runners[r], model.Evidence{File: mf.Path, Detail: d.Name + " is a declared dependency"})
				samples[r]++
				origin[r] = "config"
			}
		}
		if baseName(mf.Path) == "package.json" {
			data := readSource(c.src, mf.Path)
			if pj, ok := parsePackageJSON(data); ok {
				for _, name := range sortedKeys(pj.Scripts) {
					if strings.HasPrefix(name, "test") && strings.Contains(pj.Scripts[name], "node --test") {
						runners["node:test"] = append(runners["node:test"], model.Evidence{File: mf.Path, Line: keyLine(data, name), Detail: fmt.Sprintf("script %q runs %s", name, clip(pj.Scripts[name], 80))})
						samples["node:test"]++
						origin["node:test"] = "config"
					}
				}
			}
		}
	}
	imported := map[string]string{
		"testing": "Go's testing package", "github.com/stretchr/testify": "testify", "github.com/onsi/ginkgo": "Ginkgo",
		"github.com/onsi/ginkgo/v2": "Ginkgo", "pytest": "pytest", "unittest": "unittest", "org.junit.jupiter": "JUnit 5",
		"org.junit": "JUnit", "node:test": "node:test", "vitest": "vitest", "@jest/globals": "jest",
	}
	for _, f := range tests {
		fam := familyOf(f.Path)
		for _, imp := range f.Imports {
			// The longest prefix a spec matches depends on the spec alone:
			// remembered, not searched again for each of a large tree's
			// test imports.
			best := testRunnerMemo.get(string(fam)+"\x00"+imp.Spec, func(string) string {
				best := ""
				for pfx := range imported {
					if (imp.Spec == pfx || specMatches(fam, imp.Spec, pfx)) && len(pfx) > len(best) {
						best = pfx
					}
				}
				return best
			})
			if best == "" {
				continue
			}
			r := imported[best]
			samples[r]++
			if len(runners[r]) < maxConvEvidence {
				runners[r] = append(runners[r], model.Evidence{File: f.Path, Line: imp.Line, Detail: fmt.Sprintf("imports %q", imp.Spec)})
			}
			if origin[r] == "" {
				origin[r] = "observed"
			}
		}
	}
	for _, r := range sortedKeys(runners) {
		c.add("Tests", "Tests run with "+r, 0.9, samples[r], origin[r], runners[r])
	}
}

// --- Documentation ---

func (c *convCollector) documentation() {
	adr := 0
	var adrEv []model.Evidence
	adrDir := ""
	store := 0
	docs := false
	readme := false
	for i := range c.g.Files {
		p := c.g.Files[i].Path
		switch {
		case strings.EqualFold(p, "README.md") || strings.EqualFold(p, "README"):
			readme = true
		case strings.HasPrefix(p, ".ai/") && strings.HasSuffix(p, ".md"):
			store++
		case strings.HasSuffix(strings.ToLower(p), ".md") && reADRDir.MatchString(p) && !notDocs(p) && !reADRTemplate.MatchString(stem(p)):
			adr++
			if adrDir == "" {
				adrDir = path.Dir(p)
			}
			if len(adrEv) < 3 {
				adrEv = append(adrEv, model.Evidence{File: p, Detail: "decision record"})
			}
		case strings.HasPrefix(p, "docs/"):
			docs = true
		}
	}
	if readme {
		c.add("Documentation", "Repository documentation starts at README.md", 0.9, 1, "observed", []model.Evidence{{File: "README.md", Detail: "top-level README"}})
	}
	if adr > 0 {
		c.add("Documentation", "Architectural decisions are recorded as documents under "+adrDir+"/", 0.9, adr, "observed", adrEv)
	}
	if store > 0 {
		c.add("Documentation", "Team knowledge (decisions, conventions, learnings) is kept in .ai/", 0.9, store, "observed", []model.Evidence{{File: ".ai/", Detail: fmt.Sprintf("%d knowledge-store entries", store)}})
	}
	if adr == 0 && docs {
		c.add("Documentation", "Extended documentation lives in docs/", 0.7, 1, "observed", []model.Evidence{{File: "docs/", Detail: "documentation directory"}})
	}
}
