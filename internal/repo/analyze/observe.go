package analyze

import (
	"bytes"
	"context"
	"path"
	"strings"
	"sync"

	"github.com/kontext-dev/kontext/internal/lazyregexp"
	"github.com/kontext-dev/kontext/internal/repo/model"
	"github.com/kontext-dev/kontext/internal/repo/scan"
)

// Observations are the per-file facts the heuristics count: signals with
// the line that showed them, import and export style, error types, mains.
// They are kept per file so an engine can re-observe only changed files
// (Update) and re-run the cheap steps that aggregate them.
type Observations struct {
	mu    sync.Mutex
	files map[string]*FileObservation
}

// FileObservation is what one file showed.
type FileObservation struct {
	Signals []SignalHit

	// TypeScript/JavaScript import and export style.
	ESMImports     int
	RequireCalls   int
	TypeOnly       bool // uses `import type` / `export type … from`
	Relative       int  // relative specifiers
	ExplicitJS     int  // relative specifiers ending in .js/.mjs/.cjs
	DefaultExports int
	NamedExports   int

	ErrorTypes []NamedLine // error classes / types the file declares
	Sentinels  []NamedLine // Go sentinel errors (var ErrX = errors.New)

	GoPackageMain bool
	MainFunc      int  // line of func main / fn main / static void main (0: none)
	PyMainGuard   int  // line of `if __name__ == "__main__"`
	Shebang       bool // starts with #!
}

// SignalHit is one signal in a file: the first line that showed it.
type SignalHit struct {
	Signal string
	Line   int
	Detail string
}

// NamedLine is a declaration's name and line.
type NamedLine struct {
	Name string
	Line int
}

// File returns the observation of a path, or nil.
func (o *Observations) File(p string) *FileObservation {
	if o == nil {
		return nil
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.files[p]
}

// Clone returns a copy that Update can change while o stays as it is: an
// engine keeps the observations of its published analysis intact while it
// computes the next one (and when that one is cancelled). The per-file
// observations are shared; Update replaces them, never changes them.
func (o *Observations) Clone() *Observations {
	c := &Observations{}
	if o == nil {
		c.files = map[string]*FileObservation{}
		return c
	}
	o.mu.Lock()
	c.files = make(map[string]*FileObservation, len(o.files))
	for p, fo := range o.files {
		c.files[p] = fo
	}
	o.mu.Unlock()
	return c
}

// All returns every file's observation, by path (a copy of the index; the
// observations themselves are shared and must not be changed). With
// ObservationsOf it is how an engine persists them.
func (o *Observations) All() map[string]*FileObservation {
	return o.Clone().files
}

// ObservationsOf makes observations from what All returned.
func ObservationsOf(files map[string]*FileObservation) *Observations {
	if files == nil {
		files = map[string]*FileObservation{}
	}
	return &Observations{files: files}
}

func (o *Observations) set(p string, fo *FileObservation) {
	o.mu.Lock()
	o.files[p] = fo
	o.mu.Unlock()
}

// observable says whether a file's content is worth reading: code the team
// wrote, in a language the rules know.
func observable(f *model.File) bool {
	if f.Vendored || f.Generated || !built(f) {
		return false
	}
	if f.Kind != model.FileSource && f.Kind != model.FileTest && f.Kind != "" {
		return false
	}
	return familyOf(f.Path) != famNone
}

// Observe reads every observable file of g (in parallel) and records what
// it shows. Unreadable files are skipped; only ctx ends it early.
func Observe(ctx context.Context, g *model.Graph, src Source, opts Options) (*Observations, error) {
	o := &Observations{files: make(map[string]*FileObservation, len(g.Files))}
	paths := make([]string, 0, len(g.Files))
	for i := range g.Files {
		paths = append(paths, g.Files[i].Path)
	}
	return o, o.Update(ctx, g, src, opts, paths)
}

// Update re-observes the given paths: a path still in g is read again, a
// path no longer in g is forgotten.
func (o *Observations) Update(ctx context.Context, g *model.Graph, src Source, opts Options, paths []string) error {
	opts = opts.withDefaults()
	if o.files == nil {
		o.files = map[string]*FileObservation{}
	}
	byPath := make(map[string]*model.File, len(g.Files))
	for i := range g.Files {
		byPath[g.Files[i].Path] = &g.Files[i]
	}
	work := make(chan *model.File)
	var wg sync.WaitGroup
	total := len(paths)
	for w := 0; w < opts.Workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for f := range work {
				var content []byte
				if src != nil {
					if b, err := src(f.Path); err == nil {
						content = b
					}
				}
				if int64(len(content)) > opts.MaxFileBytes {
					content = content[:opts.MaxFileBytes]
				}
				o.set(f.Path, observeFile(f, content))
			}
		}()
	}
	var err error
feed:
	for i, p := range paths {
		if opts.Progress != nil && (i%64 == 0 || i == total-1) {
			opts.Progress(i+1, total)
		}
		f, ok := byPath[p]
		if !ok || !observable(f) {
			o.mu.Lock()
			delete(o.files, p)
			o.mu.Unlock()
			continue
		}
		select {
		case work <- f:
		case <-ctx.Done():
			err = ctx.Err()
			break feed
		}
	}
	close(work)
	wg.Wait()
	return err
}

var reIgnoreTag = lazyregexp.New(`\bignore\b`)

// built is false for a Go file the build never compiles (//go:build
// ignore: generators and examples living beside a package): its imports
// are not the package's.
func built(f *model.File) bool {
	return f.Constraint == "" || !strings.Contains(f.Constraint, "ignore") || !matchMemo(&ignoreTagMemo, reIgnoreTag, f.Constraint)
}

var rulesByFamily = func() map[family][]contentRule {
	m := map[family][]contentRule{}
	for _, r := range contentRules {
		m[r.Fam] = append(m[r.Fam], r)
	}
	return m
}()

var lexedByFamily = func() map[family][]lexedRule {
	m := map[family][]lexedRule{}
	for _, r := range lexedRules {
		m[r.Fam] = append(m[r.Fam], r)
	}
	return m
}()

var (
	// The JS statement regexps are anchored at the start of the text: they
	// run only where a line's first word is import or export (jsStatements),
	// not at every byte of every file.
	reJSFrom       = lazyregexp.New(`^(?:import|export)\b[^;'"]*?\bfrom\s*['"]([^'"\n]+)['"]`)
	reJSSideEffect = lazyregexp.New(`^import\s*['"]([^'"\n]+)['"]`)
	reJSTypeOnly   = lazyregexp.New(`^(?:import|export)\s+type\s+[\w{*]`)
	reJSRequire    = lazyregexp.New(`\brequire\(\s*['"]`)
	reJSDefault    = lazyregexp.New(`^export\s+default\b`)
	reJSNamed      = lazyregexp.New(`^export\s+(?:declare\s+)?(?:const|let|var|function|async\s+function|class|abstract\s+class|interface|type\s+\w|enum|namespace)\b|^export\s*\{`)
	reGoMainPkg    = lazyregexp.New(`(?m)^package\s+main\s*$`)
	// reMainFunc finds the candidates for a main function in the raw
	// text; reMainCode confirms one on a line of code (scan.CodeLines),
	// which is also the declaration's line.
	reMainFunc = map[family]*lazyregexp.Regexp{
		famGo:   lazyregexp.New(`(?m)^func\s+main\(\)`),
		famRust: lazyregexp.New(`\bfn\s+main\s*\(`),
		famJava: lazyregexp.New(`\bstatic\s+void\s+main\s*\(|\bfun\s+main\s*\(`),
	}
	reMainCode = map[family]*lazyregexp.Regexp{
		famGo:   lazyregexp.New(`^func main\(\)`),
		famRust: lazyregexp.New(`(?:^|[^\w:])fn main\(`),
		famJava: lazyregexp.New(`\bstatic void main\(|(?:^|[^\w.])fun main\(`),
	}
	rePyMainGuard     = lazyregexp.New(`(?m)^if\s+__name__\s*==\s*['"]__main__['"]`)
	rePyMainGuardCode = lazyregexp.New(`^if\s+__name__\s*==\s*s\s*:`)
)

// code is a file's code lines (scan.CodeLines), read on first use: most
// files never need them.
type code struct {
	path    string
	content []byte
	read    bool
	lines   []scan.CodeLine
}

// first is the first line of code re matches (0: none); accept, when
// set, must agree.
func (c *code) first(re *lazyregexp.Regexp, accept func(line int) bool) int {
	if !c.read {
		c.read = true
		c.lines = scan.CodeLines(c.path, c.content)
	}
	for _, l := range c.lines {
		if re.MatchString(l.Text) && (accept == nil || accept(l.Line)) {
			return l.Line
		}
	}
	return 0
}

// rawLine is line n of content (1-based), without its newline.
func rawLine(content []byte, n int) []byte {
	for i := 1; i < n; i++ {
		j := bytes.IndexByte(content, '\n')
		if j < 0 {
			return nil
		}
		content = content[j+1:]
	}
	if j := bytes.IndexByte(content, '\n'); j >= 0 {
		return content[:j]
	}
	return content
}

// observeFile never fails: whatever the content, it records what it can.
func observeFile(f *model.File, content []byte) *FileObservation {
	fam := familyOf(f.Path)
	fo := &FileObservation{}
	seen := map[string]bool{}
	add := func(h SignalHit) {
		if !seen[h.Signal] {
			seen[h.Signal] = true
			fo.Signals = append(fo.Signals, h)
		}
	}
	for _, imp := range f.Imports {
		switch imp.Kind {
		case model.ImportExternal, model.ImportBuiltin, model.ImportUnresolved, "":
		default:
			continue
		}
		for _, r := range matchPackage(fam, imp.Spec) {
			add(SignalHit{Signal: r.Signal, Line: imp.Line, Detail: `imports "` + imp.Spec + `"`})
		}
	}
	if len(content) == 0 {
		return fo
	}
	ext := strings.ToLower(path.Ext(f.Path))
	applies := func(r *contentRule) bool {
		return !seen[r.Signal] && (len(r.Exts) == 0 || hasString(r.Exts, ext)) && (len(r.AnyOf) == 0 || containsAny(content, r.AnyOf))
	}
	for _, r := range rulesByFamily[fam] {
		if !applies(&r) {
			continue
		}
		if line := findLine(content, r.Needle, r.Re); line > 0 {
			add(SignalHit{Signal: r.Signal, Line: line, Detail: r.Detail})
		}
	}
	// Entry points come from code only: the raw text finds candidates,
	// the lexer's lines confirm them and give the declaration's line.
	cl := &code{path: f.Path, content: content}
	for _, r := range lexedByFamily[fam] {
		if !applies(&r.contentRule) || findLine(content, r.Needle, r.Re) == 0 {
			continue
		}
		if line := cl.first(r.Code, nil); line > 0 {
			add(SignalHit{Signal: r.Signal, Line: line, Detail: r.Detail})
		}
	}
	fo.Shebang = bytes.HasPrefix(content, []byte("#!"))
	switch fam {
	case famJS:
		observeJS(fo, content)
	case famGo:
		// Literal checks first: a regexp over every byte of every file is
		// the cost of a large tree. The scan read the package clause.
		if f.Package != "" {
			fo.GoPackageMain = f.Package == "main"
		} else {
			fo.GoPackageMain = bytes.Contains(content, []byte("package main")) && reGoMainPkg.Match(content)
		}
	case famPython:
		if bytes.Contains(content, []byte("__main__")) && rePyMainGuard.Match(content) {
			fo.PyMainGuard = cl.first(rePyMainGuardCode, func(l int) bool { return bytes.Contains(rawLine(content, l), []byte("__main__")) })
		}
	}
	if re := reMainFunc[fam]; re != nil && bytes.Contains(content, []byte("main")) && (fam != famGo || fo.GoPackageMain) && re.Match(content) {
		fo.MainFunc = cl.first(reMainCode[fam], nil)
	}
	fo.ErrorTypes, fo.Sentinels = errorDecls(fam, content)
	return fo
}

func observeJS(fo *FileObservation, content []byte) {
	st := jsStatements(content)
	spec := func(m []int, at int) {
		fo.ESMImports++
		spec := string(content[at+m[2] : at+m[3]])
		if strings.HasPrefix(spec, ".") {
			fo.Relative++
			switch strings.ToLower(path.Ext(spec)) {
			case ".js", ".mjs", ".cjs", ".jsx":
				fo.ExplicitJS++
			}
		}
	}
	st.each(reJSFrom, spec)
	st.each(reJSSideEffect, spec)
	st.each(reJSTypeOnly, func([]int, int) { fo.TypeOnly = true })
	if bytes.Contains(content, []byte("require(")) {
		fo.RequireCalls = len(reJSRequire.FindAllIndex(content, -1))
	}
	st.each(reJSDefault, func([]int, int) { fo.DefaultExports++ })
	st.each(reJSNamed, func([]int, int) { fo.NamedExports++ })
}

// jsLines are the offsets in content where a line's first word (after
// spaces and tabs) is import or export: the only places a multi-line
// regexp of the form (?m)^[ \t]*(?:import|export)… can match.
type jsLines struct {
	content []byte
	starts  []int
}

func jsStatements(content []byte) jsLines {
	st := jsLines{content: content}
	for line := 0; line < len(content); {
		i := line
		for i < len(content) && (content[i] == ' ' || content[i] == '\t') {
			i++
		}
		if rest := content[i:]; bytes.HasPrefix(rest, []byte("import")) || bytes.HasPrefix(rest, []byte("export")) {
			st.starts = append(st.starts, i)
		}
		next := bytes.IndexByte(content[i:], '\n')
		if next < 0 {
			break
		}
		line = i + next + 1
	}
	return st
}

// bound is where a statement starting at at can end for every regexp
// each runs: none crosses a ';', and a match holds at most one quoted
// string, so it ends by the close of the first one. Matching within it
// instead of the rest of the file keeps the regexp engine's work (and the
// state it clears per call) proportional to the statement.
func (st jsLines) bound(at int) int {
	c := st.content
	p := at + bytes.IndexAny(c[at:], ";'\"")
	if p < at {
		return len(c)
	}
	if c[p] == ';' {
		return p
	}
	r := bytes.IndexAny(c[p+1:], "'\"")
	if r < 0 {
		return len(c)
	}
	return p + 1 + r + 1
}

// each calls f for the successive non-overlapping matches of re (anchored
// with ^) at the statements' starts, as FindAll would find them with the
// (?m)^[ \t]* form: m holds the match's offsets relative to at.
func (st jsLines) each(re *lazyregexp.Regexp, f func(m []int, at int)) {
	end := 0
	for _, at := range st.starts {
		if at < end {
			continue // inside the previous match
		}
		if m := re.FindSubmatchIndex(st.content[at:st.bound(at)]); m != nil {
			end = at + m[1]
			f(m, at)
		}
	}
}

// errorDecls lists the error types a file declares, by family.
func errorDecls(fam family, content []byte) (types, sentinels []NamedLine) {
	var re *lazyregexp.Regexp
	var needle string
	switch fam {
	case famJS:
		re, needle = reJSErrorClass, "Error"
	case famGo:
		re, needle = reGoErrorType, ") Error() string"
	case famPython:
		re, needle = rePyErrorClass, "class "
	case famJava:
		re, needle = reJavaErrorClass, "class "
	case famRust:
		re, needle = reRustErrorImpl, "Error for"
	default:
		return nil, nil
	}
	nb := []byte(needle)
	checkTypes := bytes.Contains(content, nb)
	checkSentinels := fam == famGo && (bytes.Contains(content, []byte("errors.New(")) || bytes.Contains(content, []byte("Errorf(")))
	if !checkTypes && !checkSentinels {
		return nil, nil
	}
	line := 0
	for rest := content; len(rest) > 0; {
		line++
		var l []byte
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			l, rest = rest[:i], rest[i+1:]
		} else {
			l, rest = rest, nil
		}
		if checkTypes && bytes.Contains(l, nb) {
			if m := re.FindSubmatch(l); m != nil {
				types = append(types, NamedLine{Name: string(m[1]), Line: line})
			}
		}
		if checkSentinels && bytes.Contains(l, []byte("Err")) {
			if m := reGoSentinel.FindSubmatch(l); m != nil {
				sentinels = append(sentinels, NamedLine{Name: string(m[1]), Line: line})
			}
		}
	}
	return types, sentinels
}

func containsAny(content []byte, literals []string) bool {
	for _, l := range literals {
		if bytes.Contains(content, []byte(l)) {
			return true
		}
	}
	return false
}

// findLine returns the line of the first occurrence of needle whose line
// also matches re (when set), or 0.
func findLine(content []byte, needle string, re *lazyregexp.Regexp) int {
	if needle == "" {
		return 0
	}
	n := []byte(needle)
	off, line, counted := 0, 1, 0
	for tries := 0; tries < 64 && off < len(content); tries++ {
		i := bytes.Index(content[off:], n)
		if i < 0 {
			return 0
		}
		pos := off + i
		line += bytes.Count(content[counted:pos], []byte{'\n'})
		counted = pos
		start := bytes.LastIndexByte(content[:pos], '\n') + 1
		end := bytes.IndexByte(content[pos:], '\n')
		if end < 0 {
			end = len(content)
		} else {
			end += pos
		}
		if re == nil || re.Match(content[start:end]) {
			return line
		}
		off = end // the next candidate is on a later line
	}
	return 0
}

func lineAt(content []byte, pos int) int {
	if pos > len(content) {
		pos = len(content)
	}
	return bytes.Count(content[:pos], []byte{'\n'}) + 1
}

func hasString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// matchPackage returns the package rules an import spec matches.
func matchPackage(fam family, spec string) []pkgRule {
	spec = normalizeSpec(fam, spec)
	if spec == "" {
		return nil
	}
	var out []pkgRule
	for _, r := range pkgRulesByFamily[fam] {
		if specMatches(fam, spec, r.Match) {
			out = append(out, r)
		}
	}
	return out
}

var pkgRulesByFamily = func() map[family][]pkgRule {
	m := map[family][]pkgRule{}
	for _, r := range pkgRules {
		m[r.Fam] = append(m[r.Fam], r)
	}
	return m
}()

// normalizeSpec turns an import as written into the form the tables use.
func normalizeSpec(fam family, spec string) string {
	spec = strings.TrimSpace(spec)
	switch fam {
	case famJS:
		spec = strings.TrimPrefix(spec, "node:")
		if strings.HasPrefix(spec, ".") || strings.HasPrefix(spec, "/") {
			return ""
		}
	case famRust:
		spec = strings.TrimPrefix(spec, "::")
		spec = strings.ReplaceAll(spec, "-", "_")
	case famJava:
		spec = strings.TrimPrefix(spec, "static ")
	}
	return spec
}

func specSep(fam family) string {
	switch fam {
	case famPython, famJava:
		return "."
	case famRust:
		return "::"
	}
	return "/"
}

// specMatches: the package itself or anything under it; a pattern ending
// in its separator (or "_" for Rust's aws_sdk_*) is a scope prefix.
func specMatches(fam family, spec, pattern string) bool {
	sep := specSep(fam)
	if strings.HasSuffix(pattern, sep) || strings.HasSuffix(pattern, "_") {
		return strings.HasPrefix(spec, pattern)
	}
	return spec == pattern || strings.HasPrefix(spec, pattern+sep)
}
