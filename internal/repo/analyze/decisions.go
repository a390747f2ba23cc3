package analyze

import (
	"bytes"
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/kontext-dev/kontext/internal/jsonc"
	"github.com/kontext-dev/kontext/internal/lazyregexp"
	"github.com/kontext-dev/kontext/internal/repo/model"
)

// knowledgeStoreDir is where the team's curated decisions live (the
// knowledge toolset's store).
const knowledgeStoreDir = ".ai/decisions/"

// Decisions collects architectural decisions, explicit first: the team's
// knowledge store, ADR documents, decision-like sections of architecture
// documents; then the inferred ones: other documentation sections,
// configuration (module format, package manager, workspaces, strict
// TypeScript), framework and infrastructure dependencies, and commits
// whose subject announces an architectural change. hist may be nil.
// An explicit decision wins an id conflict.
func Decisions(g *model.Graph, src Source, hist *History) {
	var explicit, inferred []model.Decision
	for _, p := range markdownFiles(g) {
		data := readSource(src, p)
		if data == nil {
			continue
		}
		if strings.HasPrefix(p, ".ai/") {
			if strings.HasPrefix(p, knowledgeStoreDir) && !strings.EqualFold(baseName(p), "README.md") {
				explicit = append(explicit, storeDecision(p, parseMarkdown(data)))
			}
			continue
		}
		doc := parseMarkdown(data)
		if d, ok := adrDecision(p, doc); ok {
			explicit = append(explicit, d)
			continue
		}
		if d, ok := docSectionDecision(p, doc); ok {
			if d.Origin == "explicit" {
				explicit = append(explicit, d)
			} else {
				inferred = append(inferred, d)
			}
		}
	}
	inferred = append(inferred, configDecisions(g, src)...)
	inferred = append(inferred, dependencyDecisions(g)...)
	inferred = append(inferred, gitDecisions(hist)...)

	sortDecisions(explicit)
	sortDecisions(inferred)
	g.Decisions = make([]model.Decision, 0, len(explicit)+len(inferred))
	seen := map[string]bool{}
	for _, d := range explicit {
		if seen[d.ID] {
			// Two documents claim one number: keep both, told apart by source.
			d.ID += "-" + strings.ToUpper(hash8(d.Source)[:4])
		}
		seen[d.ID] = true
		g.Decisions = append(g.Decisions, d)
	}
	for _, d := range inferred {
		if !seen[d.ID] {
			seen[d.ID] = true
			g.Decisions = append(g.Decisions, d)
		}
	}
}

func sortDecisions(ds []model.Decision) {
	sort.SliceStable(ds, func(i, j int) bool {
		if ds[i].ID != ds[j].ID {
			return ds[i].ID < ds[j].ID
		}
		return ds[i].Source < ds[j].Source
	})
}

// reNotDocs are directories whose markdown is not the project's own
// documentation (fixtures describe other, imaginary projects).
var reNotDocs = lazyregexp.New(`(?i)(^|/)(testdata|fixtures|__fixtures__|node_modules|vendor|third_party)/`)

func markdownFiles(g *model.Graph) []string {
	var out []string
	for i := range g.Files {
		f := &g.Files[i]
		switch strings.ToLower(path.Ext(f.Path)) {
		case ".md", ".markdown", ".mdx":
		default:
			continue
		}
		if f.Vendored || f.Generated || notDocs(f.Path) || notDecisions(f) {
			continue
		}
		out = append(out, f.Path)
	}
	sort.Strings(out)
	return out
}

// notDecisions reports a document that cannot record the project's
// decisions, whatever it looks like: a test file, and anything under
// tests, fixtures, examples or resources (a test resource named
// 1377_iteration.md is the input of a test, not ADR 1377).
func notDecisions(f *model.File) bool {
	if f.Kind == model.FileTest {
		return true
	}
	switch PeripheryOf(f.Path) {
	case TestSupport, Example, Fuzz, Benchmark:
		return true
	}
	lp := strings.ToLower(f.Path)
	return strings.HasPrefix(lp, "resources/") || strings.Contains(lp, "/resources/")
}

// adrShaped reports a document written as an ADR: a status, an ADR or
// Decision heading, or the sections of one (Context with Decision or
// Consequences).
func adrShaped(doc *mdDoc) bool {
	if raw, _ := doc.status(); raw != "" {
		return true
	}
	context, decision := false, false
	for _, h := range doc.Headings {
		t := strings.ToLower(strings.Trim(h.Title, " *_:"))
		switch {
		case reADRHeading.MatchString(h.Title):
			return true
		case t == "context" || t == "context and problem statement" || t == "problem statement":
			context = true
		case t == "decision" || t == "decision outcome" || t == "consequences" || t == "the decision":
			decision = true
		}
	}
	return context && decision
}

func normalizeStatus(raw string) (string, bool) {
	s, ok := statusMap[strings.ToLower(strings.TrimSpace(raw))]
	if !ok {
		return "unknown", false
	}
	return s, true
}

// adrDecision reads an ADR: a document in a decision directory, named
// NNNN-…/adr-…, titled "ADR-n …"/"Decision n …", or with a front-matter
// status.
func adrDecision(p string, doc *mdDoc) (model.Decision, bool) {
	st := stem(p)
	if reADRTemplate.MatchString(st) {
		return model.Decision{}, false // a template or an index describes decisions, it is none
	}
	inDir := reADRDir.MatchString(p)
	_, frontStatus := doc.Front["status"]
	var num string
	var why string
	if !reDateFile.MatchString(baseName(p)) {
		if m := reADRFile.FindStringSubmatch(baseName(p)); m != nil {
			// Two digits ("01-intro.md") number chapters as often as
			// decisions; they count only where decisions are kept.
			// Outside a decision directory a number is a chapter, an
			// issue or a test case as often: the document must read as
			// an ADR too.
			named := strings.HasPrefix(strings.ToLower(baseName(p)), "adr")
			if named || inDir || frontStatus || (len(m[2]) >= 3 && adrShaped(doc)) {
				num, why = m[2], "file name carries an ADR number"
				if num == "" {
					why = "file name marks an ADR"
				}
			}
		}
	}
	title, hasTitle := doc.title()
	var hm []string
	if hasTitle {
		hm = reADRHeading.FindStringSubmatch(title.Title)
	}
	if num == "" && hm != nil {
		if hm[2] != "" {
			num = hm[2]
		} else {
			num = hm[3]
		}
		if why == "" {
			why = "heading carries an ADR number"
		}
	}
	switch {
	case why != "":
	case inDir:
		why = "document lives in a decision directory"
	case frontStatus:
		why = "front matter declares a decision status"
	default:
		return model.Decision{}, false
	}

	id := ""
	if n, err := strconv.Atoi(num); err == nil && num != "" {
		id = fmt.Sprintf("ADR-%03d", n)
	} else if v := strings.TrimSpace(doc.Front["id"]); v != "" {
		id = strings.ToUpper(clip(v, 40))
	} else {
		id = "ADR-" + strings.ToUpper(hash8(p))
	}

	t := strings.TrimSpace(doc.Front["title"])
	if t == "" && hasTitle {
		t = title.Title
		if hm != nil && strings.TrimSpace(hm[4]) != "" {
			t = hm[4]
		} else if m := reNumHeading.FindStringSubmatch(t); m != nil {
			t = m[2]
		}
	}
	if t == "" {
		t = humanize(st)
	}

	rawStatus, statusLine := doc.status()
	status, known := normalizeStatus(rawStatus)
	c := confADRNoStatus
	statusEv := model.Evidence{File: p, Detail: "no status found in front matter or body"}
	if known {
		c = confADRStatus
		statusEv = model.Evidence{File: p, Line: statusLine, Detail: "status: " + rawStatus}
	} else if rawStatus != "" {
		statusEv = model.Evidence{File: p, Line: statusLine, Detail: fmt.Sprintf("status %q is not one of accepted, proposed, deprecated, superseded, rejected", rawStatus)}
	}
	return model.Decision{
		ID: id, Title: clip(t, 160), Status: status, Source: p, Origin: "explicit", Kind: "adr",
		Date: doc.date(), Confidence: c,
		Evidence: []model.Evidence{{File: p, Line: title.Line, Detail: why}, statusEv},
		Excerpt:  adrExcerpt(doc),
	}, true
}

// adrExcerpt prefers what was decided over the context that led to it.
func adrExcerpt(doc *mdDoc) string {
	if s := strings.TrimSpace(doc.Front["summary"]); s != "" {
		return excerpt(s)
	}
	for hi, h := range doc.Headings {
		t := strings.ToLower(strings.Trim(h.Title, " *_:"))
		if t == "decision" || t == "decision outcome" || t == "the decision" {
			if s := doc.sectionText(hi); s != "" {
				return excerpt(s)
			}
		}
	}
	return excerpt(doc.bodyParagraph())
}

// docSectionDecision finds the first decision-like section (heading
// level ≤ 3) of a document; explicit in an architecture/design document.
func docSectionDecision(p string, doc *mdDoc) (model.Decision, bool) {
	for hi, h := range doc.Headings {
		if h.Level > 3 || !reDocSection.MatchString(h.Title) {
			continue
		}
		explicit := reDesignDoc.MatchString(p)
		d := model.Decision{
			ID:     "DOC-" + strings.ToUpper(hash8(p+"#"+h.Title)),
			Title:  clip(h.Title, 160),
			Status: "unknown",
			Source: fmt.Sprintf("%s#L%d", p, h.Line),
			Kind:   "documented-section",
			Evidence: []model.Evidence{
				{File: p, Line: h.Line, Detail: fmt.Sprintf("section %q matches decision vocabulary", clip(h.Title, 80))},
			},
			Excerpt: excerpt(doc.sectionText(hi)),
		}
		if explicit {
			d.Origin, d.Confidence = "explicit", confDocExplicit
			d.Evidence = append(d.Evidence, model.Evidence{File: p, Detail: "the document is an architecture or design document"})
		} else {
			d.Origin, d.Confidence = "inferred", confDocInferred
			d.Evidence = append(d.Evidence, model.Evidence{File: p, Detail: "the section may describe context rather than a decision"})
		}
		return d, true
	}
	return model.Decision{}, false
}

var reFieldPaths = lazyregexp.New(`(?i)^[\s*_-]*paths[*_]*\s*:[*_\s]*(.+)$`)

// storeDecision reads an entry of the knowledge store, in either of its
// formats: front matter, or the classic "**Status:** …" fields.
func storeDecision(p string, doc *mdDoc) model.Decision {
	id := clip(doc.Front["id"], 80)
	if id == "" {
		id = clip(stem(p), 80)
	}
	if id == "" {
		id = "KS-" + strings.ToUpper(hash8(p))
	}
	title, hasTitle := doc.title()
	t := strings.TrimSpace(doc.Front["title"])
	if t == "" && hasTitle {
		t = title.Title
	}
	if t == "" {
		t = humanize(stem(p))
	}
	rawStatus, statusLine := doc.status()
	status, _ := normalizeStatus(rawStatus)
	paths := doc.FrontList["paths"]
	if len(paths) == 0 && doc.Front["paths"] != "" {
		paths = splitList(doc.Front["paths"])
	}
	if len(paths) == 0 {
		for i := doc.BodyStart; i < len(doc.Lines) && i < doc.BodyStart+40; i++ {
			if m := reFieldPaths.FindStringSubmatch(doc.Lines[i]); m != nil {
				paths = splitList(strings.Trim(m[1], "`"))
				break
			}
		}
	}
	line := title.Line
	if line == 0 {
		line = 1
	}
	evs := []model.Evidence{{File: p, Line: line, Detail: "entry of the team's knowledge store (" + knowledgeStoreDir + ")"}}
	if rawStatus != "" {
		evs = append(evs, model.Evidence{File: p, Line: statusLine, Detail: "status: " + rawStatus})
	}
	return model.Decision{
		ID: id, Title: clip(t, 160), Status: status, Source: p, Origin: "explicit", Kind: "knowledge-store",
		Date: doc.date(), Confidence: confStore, Evidence: evs, Excerpt: adrExcerpt(doc), Paths: paths,
	}
}

func splitList(s string) []string {
	var out []string
	for _, it := range strings.Split(s, ",") {
		if it = strings.Trim(strings.TrimSpace(it), "`\"'"); it != "" {
			out = append(out, it)
		}
	}
	return out
}

func humanize(s string) string {
	s = strings.TrimLeft(s, "0123456789-_.")
	s = strings.NewReplacer("-", " ", "_", " ").Replace(s)
	if s == "" {
		return "Untitled decision"
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// configDecisions are the choices configuration files record.
func configDecisions(g *model.Graph, src Source) []model.Decision {
	var out []model.Decision
	has := fileSet(g)
	rootPJ := readSource(src, "package.json")
	pj, pjOK := parsePackageJSON(rootPJ)
	if pjOK {
		format, title := "commonjs", `Packages use CommonJS (no "type": "module")`
		if pj.Type == "module" {
			format, title = "module", `Packages use ES modules ("type": "module")`
		}
		out = append(out, model.Decision{
			ID: "INF-MODULE-FORMAT", Title: title, Status: "accepted", Source: "package.json",
			Origin: "inferred", Kind: "config-signal", Confidence: confModuleFormat,
			Evidence: []model.Evidence{{File: "package.json", Line: keyLine(rootPJ, "type"), Detail: `"type": "` + format + `"`}},
		})
	}

	var managers []string
	var pmEv []model.Evidence
	seenPM := map[string]bool{}
	addPM := func(name string, ev model.Evidence) {
		if !seenPM[name] {
			seenPM[name] = true
			managers = append(managers, name)
		}
		if len(pmEv) < 3 {
			pmEv = append(pmEv, ev)
		}
	}
	if pjOK && pj.PM != "" {
		name, _, _ := strings.Cut(pj.PM, "@")
		addPM(name, model.Evidence{File: "package.json", Line: keyLine(rootPJ, "packageManager"), Detail: `"packageManager": "` + clip(pj.PM, 60) + `"`})
	}
	for _, lf := range sortedKeys(lockfiles) {
		if has(lf) {
			addPM(lockfiles[lf], model.Evidence{File: lf, Detail: "lockfile written by " + lockfiles[lf]})
		}
	}
	if len(managers) > 0 {
		out = append(out, model.Decision{
			ID: "INF-PACKAGE-MANAGER", Title: "Dependencies are managed with " + joinAnd(managers), Status: "accepted",
			Source: pmEv[0].File, Origin: "inferred", Kind: "config-signal", Confidence: confPackageMgr, Evidence: pmEv,
		})
	}

	if len(g.Workspaces) > 0 {
		var evs []model.Evidence
		var tools []string
		members := 0
		for _, ws := range g.Workspaces {
			members += len(ws.Members)
			if !hasString(tools, ws.Tool) {
				tools = append(tools, ws.Tool)
			}
			if len(evs) < 4 {
				evs = append(evs, model.Evidence{File: ws.Manifest, Detail: fmt.Sprintf("%s workspace with %d member%s: %s", ws.Tool, len(ws.Members), plural(len(ws.Members)), clip(strings.Join(ws.Members, ", "), 160))})
			}
		}
		out = append(out, model.Decision{
			ID: "INF-WORKSPACES", Title: fmt.Sprintf("Repository is organised as a %s workspace monorepo (%d members)", joinAnd(tools), members),
			Status: "accepted", Source: g.Workspaces[0].Manifest, Origin: "inferred", Kind: "config-signal", Confidence: confWorkspaces, Evidence: evs,
		})
	}

	var strict []model.Evidence
	for _, p := range sortedPaths(g) {
		b := baseName(p)
		if !strings.HasPrefix(b, "tsconfig") || !strings.HasSuffix(b, ".json") || notDocs(p) {
			continue
		}
		data := readSource(src, p)
		var tc struct {
			CompilerOptions struct {
				Strict *bool `json:"strict"`
			} `json:"compilerOptions"`
		}
		if jsonc.Unmarshal(data, &tc) == nil && tc.CompilerOptions.Strict != nil && *tc.CompilerOptions.Strict {
			if len(strict) < 3 {
				strict = append(strict, model.Evidence{File: p, Line: keyLine(data, "strict"), Detail: `"strict": true`})
			}
		}
	}
	if len(strict) > 0 {
		out = append(out, model.Decision{
			ID: "INF-STRICT-TS", Title: "TypeScript strict mode is on", Status: "accepted", Source: strict[0].File,
			Origin: "inferred", Kind: "config-signal", Confidence: confStrictTS, Evidence: strict,
		})
	}
	return out
}

// dependencyDecisions: the framework and infrastructure packages the
// project's own code is built on. They are weighed by production imports
// of the root project (the code of the root manifests and of the
// workspaces they declare; everything outside the periphery when there is
// no root manifest): the modules that import a package, then the files.
// A package one backend or one example imports is not what the code
// builds on: it needs two importing modules, unless the project has one.
func dependencyDecisions(g *model.Graph) []model.Decision {
	ix := newIndex(g)
	inProject := rootProject(g, ix)
	type use struct {
		modules map[string]bool
		files   int
	}
	uses := map[string]*use{} // family + external name → its production use
	projectModules := map[string]bool{}
	for i := range g.Files {
		f := &g.Files[i]
		if f.Kind != model.FileSource || f.Vendored || f.Generated {
			continue
		}
		m := ix.moduleOf(f.Path)
		if m == "" || !inProject(m) {
			continue
		}
		projectModules[m] = true
		fam := familyOf(f.Path)
		seen := map[string]bool{}
		for _, imp := range f.Imports {
			if imp.Kind != model.ImportExternal || imp.Target == "" {
				continue
			}
			k := string(fam) + "\x00" + externalKey(fam, imp.Target)
			u := uses[k]
			if u == nil {
				u = &use{modules: map[string]bool{}}
				uses[k] = u
			}
			u.modules[m] = true
			if !seen[k] {
				seen[k] = true
				u.files++
			}
		}
	}
	minModules := min(2, len(projectModules))
	type cand struct {
		ext     *model.External
		imp     string
		modules []string
		files   int
	}
	var cands []cand
	for i := range g.External {
		e := &g.External[i]
		if e.Dev {
			continue
		}
		imp := packageImportance(e.Ecosystem, e.Name)
		if imp == "" {
			continue
		}
		u := uses[string(ecosystemFamily[e.Ecosystem])+"\x00"+externalKey(ecosystemFamily[e.Ecosystem], e.Name)]
		if u == nil || len(u.modules) < max(minModules, 1) {
			continue
		}
		cands = append(cands, cand{e, imp, sortedKeys(u.modules), u.files})
	}
	sort.SliceStable(cands, func(i, j int) bool {
		a, b := cands[i], cands[j]
		if len(a.modules) != len(b.modules) {
			return len(a.modules) > len(b.modules)
		}
		if a.files != b.files {
			return a.files > b.files
		}
		return a.ext.Name < b.ext.Name
	})
	var out []model.Decision
	seen := map[string]bool{}
	for _, c := range cands {
		if len(out) >= maxDepDecisions {
			break
		}
		id := "INF-DEP-" + strings.Trim(reNonAlnum.ReplaceAllString(strings.ToUpper(c.ext.Name), "-"), "-")
		if seen[id] {
			continue
		}
		seen[id] = true
		source := ""
		if len(c.ext.Manifests) > 0 {
			source = c.ext.Manifests[0]
		}
		evs := []model.Evidence{
			{File: source, Detail: fmt.Sprintf("declared as a dependency (%s %s)", c.ext.Ecosystem, c.ext.Version)},
			{Detail: fmt.Sprintf("imported by %d production file%s in %d module%s of the project: %s", c.files, plural(c.files),
				len(c.modules), plural(len(c.modules)), clip(strings.Join(c.modules, ", "), 120))},
		}
		out = append(out, model.Decision{
			ID: id, Title: fmt.Sprintf("The code builds on %s (%s)", c.ext.Name, c.imp), Status: "accepted", Source: source,
			Origin: "inferred", Kind: "dependency-signal",
			Confidence: conf(minF(confDepMax, 0.5+0.05*float64(len(c.modules)))), Evidence: evs,
		})
	}
	return out
}

// externalKey is how an import's target and a declared package name
// compare: PyPI names are case- and separator-insensitive (PEP 503).
func externalKey(fam family, name string) string {
	if fam == famPython {
		return normalizePyName(name)
	}
	return name
}

func normalizePyName(s string) string {
	return strings.ToLower(strings.NewReplacer("_", "-", ".", "-").Replace(s))
}

// rootProject reports the modules of the project the repository is for:
// those whose nearest manifest is at the root, and the members of the
// workspaces root manifests declare, outside the periphery (examples,
// docs, tests, tooling). Without a root manifest that owns code, every
// module outside the periphery is the project.
func rootProject(g *model.Graph, ix *index) func(string) bool {
	manifestDirs := map[string]bool{}
	for _, mf := range g.Manifests {
		manifestDirs[path.Dir(mf.Path)] = true
	}
	var members []string
	for _, ws := range g.Workspaces {
		if path.Dir(ws.Manifest) == "." {
			members = append(members, ws.Members...)
		}
	}
	owned := func(id string) bool {
		for _, mem := range members {
			if inDir(id, mem) {
				return true
			}
		}
		for d := id; ; d = path.Dir(d) {
			if d != "." && manifestDirs[d] {
				return false // a project of its own
			}
			if d == "." || d == "/" || d == "" {
				return manifestDirs["."]
			}
		}
	}
	core := func(id string) bool { return PeripheryOf(id) == Core }
	for i := range g.Modules {
		if id := g.Modules[i].ID; core(id) && owned(id) && len(ix.byModule[id]) > 0 {
			return func(id string) bool { return core(id) && owned(id) }
		}
	}
	return core
}

var reNonAlnum = lazyregexp.New(`[^A-Z0-9]+`)

// reHousekeeping matches the conventional-commit types that change how the
// project is tested or built, not its architecture ("test(x): migrate the
// tests", "chore: migrate the changelog tool"), unless marked breaking.
// docs: stays a signal: it is how an ADR is committed.
var reHousekeeping = lazyregexp.New(`(?i)^(test|tests|chore|ci|style|build|deps)(\([^)]*\))?:`)

var ecosystemFamily = map[string]family{
	"npm": famJS, "deno": famJS, "go": famGo, "cargo": famRust, "pypi": famPython, "maven": famJava, "gradle": famJava,
}

// packageImportance classifies a declared package by the rule tables.
func packageImportance(ecosystem, name string) string {
	fam := ecosystemFamily[ecosystem]
	n := name
	switch fam {
	case famRust:
		n = strings.ReplaceAll(n, "-", "_")
	case famPython:
		n = strings.ToLower(strings.ReplaceAll(n, "-", "_"))
	case famJava:
		n, _, _ = strings.Cut(n, ":") // groupId:artifactId
	}
	for _, r := range pkgRulesByFamily[fam] {
		if r.Importance == "" {
			continue
		}
		m := r.Match
		if fam == famPython {
			m = strings.ToLower(m)
		}
		if specMatches(fam, n, m) || (fam == famJava && strings.HasPrefix(m, n+".")) {
			return r.Importance
		}
	}
	return ""
}

func gitDecisions(hist *History) []model.Decision {
	if hist == nil {
		return nil
	}
	var out []model.Decision
	for _, c := range hist.Commits {
		if len(out) >= maxGitDecisions {
			break
		}
		m := reArchSubject.FindString(c.Subject)
		if m == "" || reHousekeeping.MatchString(c.Subject) {
			continue
		}
		sha8 := c.SHA
		if len(sha8) > 8 {
			sha8 = sha8[:8]
		}
		date := c.Time.UTC().Format("2006-01-02")
		out = append(out, model.Decision{
			ID: "GIT-" + sha8, Title: excerptTitle(c.Subject), Status: "unknown", Source: "git:" + sha8,
			Origin: "inferred", Kind: "git-signal", Date: date, Confidence: confGitSignal,
			Evidence: []model.Evidence{{Commit: c.SHA, Detail: fmt.Sprintf("commit subject matched %q (%s, %d file%s changed)", strings.TrimSpace(m), date, len(c.Paths), plural(len(c.Paths)))}},
		})
	}
	return out
}

func excerptTitle(s string) string {
	return clip(excerpt(s), 160)
}

// keyLine is the line of the first `"key"` in a JSON document (0: none).
func keyLine(data []byte, key string) int {
	i := bytes.Index(data, []byte(`"`+key+`"`))
	if i < 0 {
		return 0
	}
	return lineAt(data, i)
}

func joinAnd(xs []string) string {
	switch len(xs) {
	case 0:
		return ""
	case 1:
		return xs[0]
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " and " + xs[len(xs)-1]
}

func minF(a, b float64) float64 {
	if a < b {
		return a
	}
	return b
}
