package scan

import (
	"strings"

	"github.com/kontext-dev/kontext/internal/repo/model"
)

// pyLine is one logical line of Python: physical lines joined inside
// brackets and after a backslash, with comments and string contents
// removed (a string becomes "s"), so "import" inside a string or a
// comment is never seen.
type pyLine struct {
	text   string
	line   int // the first physical line
	indent int
}

// pyLogicalLines splits Python source into logical lines. It also returns
// the module docstring (the first statement, when it is a string).
func pyLogicalLines(src []byte) ([]pyLine, string) {
	var out []pyLine
	var doc string
	var b strings.Builder
	n := len(src)
	line := 1
	startLine := 1
	indent := 0
	atStart := true // at the start of a logical line (counting indentation)
	depth := 0
	firstStmt := true
	docCandidate := ""
	sawOnlyString := true
	flush := func() {
		text := strings.TrimSpace(b.String())
		if text != "" {
			out = append(out, pyLine{text: text, line: startLine, indent: indent})
			if firstStmt {
				firstStmt = false
				if sawOnlyString && docCandidate != "" && text == "s" {
					doc = docCandidate
				}
			}
		}
		b.Reset()
		atStart = true
		depth = 0
		docCandidate = ""
		sawOnlyString = true
	}
	i := 0
	for i < n && len(out) < maxTokens {
		c := src[i]
		if atStart {
			indent = 0
			for i < n && (src[i] == ' ' || src[i] == '\t') {
				indent++
				i++
			}
			startLine = line
			atStart = false
			continue
		}
		switch {
		case c == '\n':
			line++
			i++
			if depth > 0 {
				b.WriteByte(' ')
				continue
			}
			flush()
		case c == '\\' && i+1 < n && src[i+1] == '\n':
			line++
			i += 2
			b.WriteByte(' ')
		case c == '#':
			for i < n && src[i] != '\n' {
				i++
			}
		case c == '"' || c == '\'':
			// Prefixes (r, b, f, u) were written as identifier characters
			// already; the string itself is replaced by "s".
			q := c
			triple := i+2 < n && src[i+1] == q && src[i+2] == q
			j := i + 1
			if triple {
				j = i + 3
			}
			start := j
			for j < n {
				if src[j] == '\\' {
					if j+1 < n && src[j+1] == '\n' {
						line++
					}
					j += 2
					continue
				}
				if src[j] == '\n' {
					if !triple {
						break
					}
					line++
				}
				if src[j] == q && (!triple || j+2 < n && src[j+1] == q && src[j+2] == q) {
					break
				}
				j++
			}
			end := min(j, n)
			if firstStmt && b.Len() == 0 || firstStmt && isStringPrefix(b.String()) {
				docCandidate = string(src[start:end])
			}
			if triple {
				j += 3
			} else if j < n && src[j] == q {
				j++
			}
			i = min(j, n)
			// Drop a string prefix (r"", b"", f"") so the token reads "s".
			if s := b.String(); isStringPrefixEnd(s) {
				trimmed := strings.TrimRightFunc(s, func(r rune) bool { return strings.ContainsRune("rRbBfFuU", r) })
				b.Reset()
				b.WriteString(trimmed)
			}
			b.WriteByte('s')
		case c == '(' || c == '[' || c == '{':
			depth++
			b.WriteByte(c)
			i++
			sawOnlyString = false
		case c == ')' || c == ']' || c == '}':
			if depth > 0 {
				depth--
			}
			b.WriteByte(c)
			i++
			sawOnlyString = false
		default:
			b.WriteByte(c)
			i++
		}
	}
	flush()
	return out, doc
}

func isStringPrefix(s string) bool {
	return len(s) <= 2 && strings.Trim(s, "rRbBfFuU") == ""
}

// isStringPrefixEnd reports a builder ending in a string prefix that
// belongs to the string (r"…"), not to an identifier (other"…" is not).
func isStringPrefixEnd(s string) bool {
	k := len(s)
	for k > 0 && strings.IndexByte("rRbBfFuU", s[k-1]) >= 0 && len(s)-k < 2 {
		k--
	}
	if k == len(s) {
		return false
	}
	return k == 0 || !isIdentPart(s[k-1])
}

// parsePython fills a Python file's imports, public top-level names and
// module docstring. Relative imports keep their dots: `from .a import b`
// is ".a"; `from . import a, b` is ".a" and ".b" (each names a module or a
// name of the package, and the resolver tries the module first).
func parsePython(src []byte, f *model.File) {
	lines, doc := pyLogicalLines(src)
	if doc != "" {
		f.Doc = firstParagraph(doc)
	}
	add := func(spec string, line int) {
		if spec != "" {
			f.Imports = append(f.Imports, model.Import{Spec: intern(spec), Line: line})
		}
	}
	for _, l := range lines {
		text := l.text
		// `if x: import y` and `try: import y` on one line.
		// `try: import y`, `def f(): import y`: a simple statement after a
		// compound statement's colon (strings are already "s").
		for _, sep := range []string{": import ", ": from "} {
			if i := strings.Index(text, sep); i >= 0 && !strings.HasPrefix(text, "import ") && !strings.HasPrefix(text, "from ") {
				text = text[i+2:]
				break
			}
		}
		text = strings.TrimSpace(text)
		switch {
		case strings.HasPrefix(text, "import ") || strings.HasPrefix(text, "import\t"):
			for _, part := range splitTop(text[len("import "):]) {
				name := firstWord(part)
				if validDotted(name, false) {
					add(name, l.line)
				}
			}
		case strings.HasPrefix(text, "from ") || strings.HasPrefix(text, "from\t"):
			rest := strings.TrimSpace(text[len("from "):])
			k := strings.Index(rest, " import")
			if k < 0 {
				continue
			}
			mod := strings.ReplaceAll(rest[:k], " ", "")
			names := strings.TrimSpace(rest[k+len(" import"):])
			if !validDotted(mod, true) {
				continue
			}
			if strings.Trim(mod, ".") == "" {
				names = strings.Trim(names, "() ")
				for _, part := range splitTop(names) {
					name := firstWord(part)
					if name != "" && name != "*" && validDotted(name, false) {
						add(mod+name, l.line)
					}
				}
				continue
			}
			add(mod, l.line)
		}
		if l.indent == 0 {
			pySymbol(l, f)
		}
	}
}

func pySymbol(l pyLine, f *model.File) {
	text := l.text
	kind := ""
	switch {
	case strings.HasPrefix(text, "def "):
		kind, text = "function", text[4:]
	case strings.HasPrefix(text, "async def "):
		kind, text = "function", text[10:]
	case strings.HasPrefix(text, "class "):
		kind, text = "class", text[6:]
	default:
		name := identPrefix(text)
		if name == "" || name[0] == '_' {
			return
		}
		rest := strings.TrimSpace(text[len(name):])
		if strings.HasPrefix(rest, "=") && !strings.HasPrefix(rest, "==") || strings.HasPrefix(rest, ":") {
			kind = "var"
			if strings.ToUpper(name) == name {
				kind = "const"
			}
			f.Symbols = append(f.Symbols, model.Symbol{Name: intern(name), Kind: kind, Line: l.line})
		}
		return
	}
	name := identPrefix(strings.TrimSpace(text))
	if name != "" && name[0] != '_' {
		f.Symbols = append(f.Symbols, model.Symbol{Name: intern(name), Kind: kind, Line: l.line})
	}
}

func identPrefix(s string) string {
	i := 0
	for i < len(s) && (isIdentPart(s[i]) && s[i] != '$') {
		i++
	}
	if i == 0 || s[0] >= '0' && s[0] <= '9' {
		return ""
	}
	return s[:i]
}

// splitTop splits "a as b, c" at commas.
func splitTop(s string) []string {
	parts := strings.Split(s, ",")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	return parts
}

func firstWord(s string) string {
	if i := strings.IndexAny(s, " \t;"); i >= 0 {
		return s[:i]
	}
	return s
}

// validDotted accepts a dotted module path (with leading dots when
// relative is allowed).
func validDotted(s string, relative bool) bool {
	if relative {
		s = strings.TrimLeft(s, ".")
		if s == "" {
			return true
		}
	}
	if s == "" {
		return false
	}
	for _, part := range strings.Split(s, ".") {
		if identPrefix(part) != part {
			return false
		}
	}
	return true
}
