// Package linguist answers language facts from GitHub Linguist's data, as
// packaged by go-enry (github.com/go-enry/go-enry/v2), loaded on first use.
//
// The functions mirror go-enry's functions of (nearly) the same names and give
// the same answers, but the package does no work at program start: go-enry's
// data package compiles ~570 regular expressions and builds large maps in its
// init (about 30 ms and 16 MB on every run of the binary), whereas here the
// tables are constant sorted slices searched by binary search, and every
// regular expression is compiled the first time it is needed. The tables are
// generated from go-enry's exported data (go generate ./internal/linguist, see
// internal/gen); go-enry itself is not linked.
//
// One deliberate difference: [Language] follows go-enry's GetLanguage strategy
// chain (modeline, file name, shebang, extension, XML header, man page, content
// heuristics) but does not end with go-enry's naive Bayes classifier, whose
// token tables are the bulk of go-enry's data. When the chain leaves several
// candidates, Language picks the first of Rust, TypeScript, JavaScript, Python,
// Go, Java, Kotlin, C, C++, Objective-C, Markdown, Shell, PHP, Ruby, Perl, XML,
// JSON, YAML, TOML and Text that is among them, else the alphabetically first
// candidate.
//
// Slices returned by this package are shared and must not be modified.
//
// Data and logic derived from go-enry (Copyright the go-enry authors,
// Apache License 2.0) and GitHub Linguist (MIT License).
package linguist

import (
	"bufio"
	"bytes"
	"path"
	"path/filepath"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"sync"
)

// Type is a language's type, as enry.Type: data, programming, markup, prose
// or unknown.
type Type int

// Type's values; they equal go-enry's.
const (
	Unknown Type = iota
	Data
	Programming
	Markup
	Prose
)

// LanguageType returns the type of the given language (enry.GetLanguageType).
func LanguageType(lang string) Type {
	i, ok := slices.BinarySearchFunc(languageTypes, lang, func(e typeEntry, k string) int {
		return strings.Compare(e.lang, k)
	})
	if !ok {
		return Unknown
	}
	return languageTypes[i].typ
}

// LanguagesByFilename returns the languages of files with exactly the base
// name of filename (enry.GetLanguagesByFilename).
func LanguagesByFilename(filename string) []string {
	if filename == "" {
		return nil
	}
	return lookupLangs(languagesByFilename, filepath.Base(filename))
}

// LanguagesByExtension returns the languages of the longest known extension
// of filename, ignoring case; multi-dot extensions such as .d.ts count
// (enry.GetLanguagesByExtension).
func LanguagesByExtension(filename string) []string {
	if !strings.Contains(filename, ".") {
		return nil
	}
	filename = strings.ToLower(filename)
	for i, r := range filename {
		if r != '.' {
			continue
		}
		if langs, ok := lookupLangsOK(languagesByExtension, filename[i:]); ok {
			return langs
		}
	}
	return nil
}

// LanguageByShebang returns the language of the interpreter named on the
// content's #! line, and whether it is the only one (enry.GetLanguageByShebang).
func LanguageByShebang(content []byte) (lang string, safe bool) {
	return firstAndSafe(byShebang(content))
}

// Language returns the language of the file, or "" (enry.GetLanguage without
// its classifier; see the package documentation).
func Language(filename string, content []byte) string {
	langs := languages(filename, content)
	if len(langs) == 1 {
		return langs[0]
	}
	return Preferred(langs)
}

// preference is the order in which Language breaks ties between candidates.
var preference = [...]string{
	"Rust", "TypeScript", "JavaScript", "Python", "Go", "Java", "Kotlin", "C", "C++",
	"Objective-C", "Markdown", "Shell", "PHP", "Ruby", "Perl", "XML", "JSON", "YAML",
	"TOML", "Text",
}

// Preferred breaks a tie between candidate languages the way Language does:
// the most common reading first, else the alphabetically first.
func Preferred(candidates []string) string {
	for _, p := range preference {
		if slices.Contains(candidates, p) {
			return p
		}
	}
	best := ""
	for _, c := range candidates {
		if c != "" && (best == "" || c < best) {
			best = c
		}
	}
	return best
}

// languages is enry.GetLanguages without its last strategy, the classifier.
func languages(filename string, content []byte) []string {
	if IsBinary(content) {
		return nil
	}
	var langs []string
	for step := 0; step < 7; step++ {
		var candidates []string
		switch step {
		case 0:
			candidates = byModeline(content)
		case 1:
			candidates = LanguagesByFilename(filename)
		case 2:
			candidates = byShebang(content)
		case 3:
			candidates = LanguagesByExtension(filename)
		case 4:
			candidates = byXML(content, langs)
		case 5:
			candidates = byManpage(filename)
		case 6:
			candidates = byContent(filename, content)
		}
		if len(candidates) == 0 {
			continue
		}
		if len(candidates) == 1 {
			return candidates
		}
		langs = candidates
	}
	return langs
}

func firstAndSafe(langs []string) (string, bool) {
	for _, l := range langs {
		if l != "" {
			return l, len(langs) == 1
		}
	}
	return "", len(langs) == 1
}

// Modelines (enry.GetLanguagesByModeline).

var (
	reEmacsModeline = lazyRegexp{src: `.*-\*-\s*(.+?)\s*-\*-.*(?m:$)`}
	reEmacsLang     = lazyRegexp{src: `.*(?i:mode)\s*:\s*([^\s;]+)\s*;*.*`}
	reVimModeline   = lazyRegexp{src: `(?:(?m:\s|^)vi(?:m[<=>]?\d+|m)?|[\t\x20]*ex)\s*[:]\s*(.*)(?m:$)`}
	reVimLang       = lazyRegexp{src: `(?i:filetype|ft|syntax)\s*=(\w+)(?:\s|:|$)`}
)

func byModeline(content []byte) []string {
	headFoot := headerAndFooter(content)
	if langs := byEmacsModeline(headFoot); len(langs) > 0 {
		return langs
	}
	return byVimModeline(headFoot)
}

// headerAndFooter mirrors enry's getHeaderAndFooter: the first and last five
// lines of content (all of it when it is shorter than ten lines).
func headerAndFooter(content []byte) []byte {
	const searchScope = 5
	if len(content) == 0 {
		return content
	}
	if bytes.Count(content, []byte("\n")) < 2*searchScope {
		return content
	}
	header := headScope(content, searchScope)
	footer := footScope(content, searchScope)
	headerAndFooter := make([]byte, 0, len(content[:header])+len(content[footer:]))
	headerAndFooter = append(headerAndFooter, content[:header]...)
	headerAndFooter = append(headerAndFooter, content[footer:]...)
	return headerAndFooter
}

func headScope(content []byte, scope int) (index int) {
	for i := 0; i < scope; i++ {
		eol := bytes.IndexAny(content, "\n")
		content = content[eol+1:]
		index += eol
	}
	return index + scope - 1
}

func footScope(content []byte, scope int) (index int) {
	for i := 0; i < scope; i++ {
		index = bytes.LastIndexAny(content, "\n")
		content = content[:index]
	}
	return index + 1
}

func byEmacsModeline(content []byte) []string {
	if !bytes.Contains(content, []byte("-*-")) { // the regexp needs two; most files have none
		return nil
	}
	matched := reEmacsModeline.get().FindAllSubmatch(content, -1)
	if matched == nil {
		return nil
	}
	// only take the last matched line, discard previous lines
	lastLineMatched := matched[len(matched)-1][1]
	matchedAlias := reEmacsLang.get().FindSubmatch(lastLineMatched)
	var alias string
	if matchedAlias != nil {
		alias = string(matchedAlias[1])
	} else {
		alias = string(lastLineMatched)
	}
	return languageByAlias(alias)
}

func byVimModeline(content []byte) []string {
	if !mayHaveVimModeline(content) {
		return nil
	}
	matched := reVimModeline.get().FindAllSubmatch(content, -1)
	if matched == nil {
		return nil
	}
	// only take the last matched line, discard previous lines
	lastLineMatched := matched[len(matched)-1][1]
	matchedAlias := reVimLang.get().FindAllSubmatch(lastLineMatched, -1)
	if matchedAlias == nil {
		return nil
	}
	alias := string(matchedAlias[0][1])
	for _, match := range matchedAlias[1:] {
		if string(match[1]) != alias {
			return nil
		}
	}
	return languageByAlias(alias)
}

// mayHaveVimModeline is a necessary condition for reVimModeline to match,
// checked without the regexp (which runs on every file with a shared
// extension, every .ts among them): some colon is preceded, give or take
// white space, by "vi", "vim", "vim" and a version ("vim600", "vim>703"),
// or "ex".
func mayHaveVimModeline(c []byte) bool {
	for i := 0; i < len(c); i++ {
		if c[i] != ':' {
			continue
		}
		j := i
		for j > 0 && isRegexpSpace(c[j-1]) {
			j--
		}
		w := c[:j]
		if bytes.HasSuffix(w, []byte("ex")) || bytes.HasSuffix(w, []byte("vi")) || bytes.HasSuffix(w, []byte("vim")) {
			return true
		}
		d := len(w)
		for d > 0 && w[d-1] >= '0' && w[d-1] <= '9' {
			d--
		}
		if d == len(w) {
			continue
		}
		if d > 0 && (w[d-1] == '<' || w[d-1] == '=' || w[d-1] == '>') {
			d--
		}
		if bytes.HasSuffix(w[:d], []byte("vim")) {
			return true
		}
	}
	return false
}

// isRegexpSpace is RE2's \s: [\t\n\f\r ].
func isRegexpSpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\n' || b == '\f' || b == '\r'
}

// languageByAlias mirrors data.LanguageByAlias, as a one-element list.
func languageByAlias(alias string) []string {
	key, _, _ := strings.Cut(alias, ",")
	key = strings.ToLower(strings.ReplaceAll(key, " ", "_"))
	i, ok := slices.BinarySearchFunc(languageByAliasKey, key, func(e aliasEntry, k string) int {
		return strings.Compare(e.key, k)
	})
	if !ok {
		return nil
	}
	return []string{languageByAliasKey[i].lang}
}

// Shebangs (enry.GetLanguagesByShebang).

var (
	reShebangExecHack = lazyRegexp{src: `exec (\w+).+\$0.+\$@`}
	rePythonVersion   = lazyRegexp{src: `python\d\.\d+`}
	reEnvOptArgs      = lazyRegexp{src: `-[i0uCSv]*|--\S+`}
	reEnvVarArgs      = lazyRegexp{src: `\S+=\S+`}
)

func byShebang(content []byte) []string {
	return lookupLangs(languagesByInterpreter, interpreter(content))
}

// interpreter mirrors enry's getInterpreter.
func interpreter(data []byte) string {
	line := firstLines(data, 1)
	if !bytes.HasPrefix(line, []byte("#!")) {
		return ""
	}
	// skip shebang
	line = bytes.TrimSpace(line[2:])
	splitted := bytes.Fields(line)
	if len(splitted) == 0 {
		return ""
	}
	// Extract interpreter name from path. Use path.Base because
	// shebang on Cygwin/Windows still use a forward slash
	interpreter := path.Base(string(splitted[0]))

	// #!/usr/bin/env [...]
	if interpreter == "env" {
		if len(splitted) == 1 {
			// /usr/bin/env with no arguments
			return ""
		}
		for len(splitted) > 2 {
			if reEnvOptArgs.get().Match(splitted[1]) || reEnvVarArgs.get().Match(splitted[1]) {
				splitted = append(splitted[:1], splitted[2:]...)
				continue
			}
			break
		}
		interpreter = path.Base(string(splitted[1]))
	}
	if interpreter == "sh" {
		interpreter = multilineExec(data)
	}
	if rePythonVersion.get().MatchString(interpreter) {
		interpreter = interpreter[:strings.Index(interpreter, `.`)]
	}
	// If osascript is called with argument -l it could be different language so do not relay on it
	if interpreter == "osascript" && bytes.Contains(line, []byte("-l")) {
		interpreter = ""
	}
	return interpreter
}

// firstLines mirrors enry's getFirstLines.
func firstLines(content []byte, count int) []byte {
	nlpos := -1
	for ; count > 0; count-- {
		pos := bytes.IndexByte(content[nlpos+1:], '\n')
		if pos < 0 {
			return content
		}
		nlpos += pos + 1
	}
	return content[:nlpos]
}

// multilineExec mirrors enry's lookForMultilineExec.
func multilineExec(data []byte) string {
	const magicNumOfLines = 5
	interpreter := "sh"
	buf := bufio.NewScanner(bytes.NewReader(data))
	for i := 0; i < magicNumOfLines && buf.Scan(); i++ {
		line := buf.Bytes()
		if reShebangExecHack.get().Match(line) {
			interpreter = reShebangExecHack.get().FindStringSubmatch(string(line))[1]
			break
		}
	}
	return interpreter
}

// XML header and man pages (enry.GetLanguagesByXML, enry.GetLanguagesByManpage).

var (
	reXMLHeader        = lazyRegexp{src: `<?xml version=`}
	reManpageExtension = lazyRegexp{src: `\.(?:[1-9](?:[a-z_]+[a-z_0-9]*)?|0p|n|man|mdoc)(?:\.in)?$`}
)

var (
	xmlLangs     = []string{"XML"}
	manpageLangs = []string{"Roff Manpage", "Roff"}
)

func byXML(content []byte, candidates []string) []string {
	if len(candidates) > 0 {
		return candidates
	}
	if reXMLHeader.get().Match(firstLines(content, 2)) {
		return xmlLangs
	}
	return nil
}

func byManpage(filename string) []string {
	if reManpageExtension.get().MatchString(strings.ToLower(filename)) {
		return manpageLangs
	}
	return nil
}

// byContent mirrors enry.GetLanguagesByContent: Linguist's heuristics.yml.
func byContent(filename string, content []byte) []string {
	if filename == "" {
		return nil
	}
	return contentHeuristics(strings.ToLower(filepath.Ext(filename)), content)
}

// Path classification (enry's utils.go).

const binSniffLen = 8000

// IsBinary reports whether data looks binary: a NUL byte in its first 8000
// bytes (enry.IsBinary).
func IsBinary(data []byte) bool {
	if len(data) > binSniffLen {
		data = data[:binSniffLen]
	}
	return bytes.IndexByte(data, 0) >= 0
}

// IsVendor reports whether path is a vendored path (enry.IsVendor).
func IsVendor(path string) bool {
	for i := range vendorRegexps {
		if vendorRegexps[i].matchString(path) {
			return true
		}
	}
	return false
}

// IsDocumentation reports whether path is a documentation path
// (enry.IsDocumentation).
func IsDocumentation(path string) bool {
	for i := range documentationRegexps {
		if documentationRegexps[i].matchString(path) {
			return true
		}
	}
	return false
}

// IsConfiguration reports whether the first language of path's extension is a
// configuration language (enry.IsConfiguration).
func IsConfiguration(path string) bool {
	lang, _ := firstAndSafe(LanguagesByExtension(path))
	switch lang {
	case "XML", "JSON", "TOML", "YAML", "MiniYAML", "INI", "SQL":
		return true
	}
	return false
}

// IsDotFile reports whether the base name of path starts with a dot
// (enry.IsDotFile).
func IsDotFile(path string) bool {
	base := filepath.Base(filepath.Clean(path))
	return strings.HasPrefix(base, ".") && base != "."
}

// IsImage reports whether path has a .png, .jpg, .jpeg or .gif extension
// (case-sensitive, as enry.IsImage).
func IsImage(path string) bool {
	switch filepath.Ext(path) {
	case ".png", ".jpg", ".jpeg", ".gif":
		return true
	}
	return false
}

// Tables and lazily compiled regular expressions.

type langsEntry struct {
	key   string
	langs []string
}

type aliasEntry struct {
	key, lang string
}

type typeEntry struct {
	lang string
	typ  Type
}

func lookupLangsOK(t []langsEntry, key string) ([]string, bool) {
	i, ok := slices.BinarySearchFunc(t, key, func(e langsEntry, k string) int {
		return strings.Compare(e.key, k)
	})
	if !ok {
		return nil, false
	}
	return t[i].langs, true
}

func lookupLangs(t []langsEntry, key string) []string {
	langs, _ := lookupLangsOK(t, key)
	return langs
}

// lazyRegexp is a regular expression compiled on first use. Its zero state
// (with src set) is a constant, so declaring one costs nothing at init.
type lazyRegexp struct {
	src  string
	once sync.Once
	re   *regexp.Regexp

	litOnce sync.Once
	lit     string // a substring every match contains ("" when none is known)
}

func (l *lazyRegexp) get() *regexp.Regexp {
	l.once.Do(func() { l.re = regexp.MustCompile(l.src) })
	return l.re
}

// literal is a string that every match of the expression contains: most
// texts lack it, and strings.Contains costs a fraction of running the
// expression (Linguist's path matchers run on every file of a tree).
func (l *lazyRegexp) literal() string {
	l.litOnce.Do(func() {
		if re, err := syntax.Parse(l.src, syntax.Perl); err == nil {
			l.lit = requiredLiteral(re)
		}
	})
	return l.lit
}

// matchString is get().MatchString(s), skipping the expression when s
// lacks the literal every match contains.
func (l *lazyRegexp) matchString(s string) bool {
	if lit := l.literal(); lit != "" && !strings.Contains(s, lit) {
		return false
	}
	return l.get().MatchString(s)
}

// match is matchString for bytes.
func (l *lazyRegexp) match(b []byte) bool {
	if lit := l.literal(); lit != "" && !bytes.Contains(b, []byte(lit)) {
		return false
	}
	return l.get().Match(b)
}

// requiredLiteral returns the longest case-sensitive literal that every
// match of re contains, or "".
func requiredLiteral(re *syntax.Regexp) string {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			return ""
		}
		return string(re.Rune)
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiteral(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredLiteral(re.Sub[0])
		}
	case syntax.OpConcat:
		best := ""
		for _, sub := range re.Sub {
			if lit := requiredLiteral(sub); len(lit) > len(best) {
				best = lit
			}
		}
		return best
	}
	return ""
}

// hm reports whether heuristic regexp i matches c.
func hm(i int, c []byte) bool {
	return heuristicRegexps[i].match(c)
}
