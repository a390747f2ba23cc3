package scan

import (
	"path"
	"strings"
)

// CodeLines returns the code of a source file line by line, in order, as
// the lexers
// of the import scanners read it: comments are gone, and every string
// literal is a placeholder, `"/"` when the literal starts with a slash (as
// an HTTP route does) and `""` otherwise (Python's lines read `s` for any
// string). So text inside a comment, a docstring or a string literal never
// reads as code: a route decorator in a Python docstring, `fn main` in a
// Rust string, `func main()` in a Go comment. Tokens are joined without
// spaces except between two words, so `fn  main (` reads `fn main(`. A
// construct that spans lines (a raw string, a bracketed Python line) is on
// its first line. The language is the path's extension; nil for a
// language the engine has no lexer for.
//
// The heuristics that need to know where code is (entry points and their
// evidence lines) call it on the few files a cheap literal search makes
// candidates, so its cost is paid by those files only.
func CodeLines(p string, src []byte) []CodeLine {
	var toks []tok
	switch strings.ToLower(path.Ext(p)) {
	case ".go":
		toks = lex(src, lexConfig{backquoteRaw: true, keepStrings: true})
	case ".rs":
		toks = lex(src, lexConfig{nestedComments: true, rustStrings: true, keepStrings: true})
	case ".java":
		toks = lex(src, lexConfig{tripleQuotes: true, keepStrings: true})
	case ".kt", ".kts":
		toks = lex(src, lexConfig{nestedComments: true, tripleQuotes: true, keepStrings: true})
	case ".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".mts", ".cts":
		toks = lexJS(src)
	case ".py", ".pyi":
		lines, _ := pyLogicalLines(src)
		out := make([]CodeLine, len(lines))
		for i, l := range lines {
			out[i] = CodeLine{Line: l.line, Text: l.text}
		}
		return out
	default:
		return nil
	}
	var out []CodeLine
	var b strings.Builder
	line, prevWord := 0, false
	flush := func() {
		if b.Len() > 0 {
			out = append(out, CodeLine{Line: line, Text: b.String()})
		}
		b.Reset()
	}
	for _, t := range toks {
		if t.line != line {
			flush()
			line, prevWord = t.line, false
			// Lines only grow, but for the end of a template literal,
			// which is reported on the line it started on: it joins that
			// line's text.
			if n := len(out); n > 0 && out[n-1].Line >= line {
				line = out[n-1].Line
				b.WriteString(out[n-1].Text)
				out = out[:n-1]
				prevWord = true
			}
		}
		word := t.kind == tIdent || t.kind == tString
		if word && prevWord {
			b.WriteByte(' ')
		}
		switch t.kind {
		case tString:
			if strings.HasPrefix(t.text, "/") {
				b.WriteString(`"/"`)
			} else {
				b.WriteString(`""`)
			}
		default:
			b.WriteString(t.text)
		}
		prevWord = word
	}
	flush()
	return out
}

// CodeLine is one line of code as CodeLines reads it.
type CodeLine struct {
	Line int
	Text string
}
