package scan

import (
	"bytes"
	"go/build/constraint"
	"go/parser"
	"go/token"
	"strconv"
	"strings"
	"unicode/utf8"
	"unique"

	"github.com/kontext-dev/kontext/internal/repo/model"
)

// parseGo reads a Go file's package clause, doc comment, imports (go/parser
// in ImportsOnly mode, exact), build constraint and exported top-level
// declarations.
func parseGo(p string, src []byte, f *model.File) {
	parseGoHeader(p, src, f)
	f.Symbols = goSymbols(src)
}

// parseGoHeader reads what precedes the declarations: package clause,
// doc comment, build constraint, imports.
func parseGoHeader(p string, src []byte, f *model.File) {
	fset := token.NewFileSet()
	af, _ := parser.ParseFile(fset, p, src, parser.ImportsOnly|parser.ParseComments)
	if af != nil {
		if af.Name != nil {
			f.Package = af.Name.Name
		}
		if af.Doc != nil && !strings.HasSuffix(p, "_test.go") {
			f.Doc = firstParagraph(af.Doc.Text())
		}
		for _, imp := range af.Imports {
			if imp.Path == nil {
				continue
			}
			spec, err := strconv.Unquote(imp.Path.Value)
			if err != nil {
				continue
			}
			f.Imports = append(f.Imports, model.Import{
				Spec: intern(spec),
				Line: fset.Position(imp.Path.Pos()).Line,
			})
		}
	}
	f.Constraint = goConstraint(src)
}

func intern(s string) string { return unique.Make(s).Value() }

// goConstraint returns the file's build constraint as a //go:build
// expression. It finds the lines the way go/build does: a //go:build line
// anywhere in the leading comments, else // +build lines in the comment
// block that ends at the last blank line before the package clause.
func goConstraint(content []byte) string {
	end := 0
	p := content
	ended := false
	inSlashStar := false
	var goBuild []byte
Lines:
	for len(p) > 0 {
		line := p
		if i := bytes.IndexByte(line, '\n'); i >= 0 {
			line, p = line[:i], p[i+1:]
		} else {
			p = p[len(p):]
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 && !ended {
			end = len(content) - len(p)
			continue
		}
		if !bytes.HasPrefix(line, []byte("//")) {
			ended = true
		}
		if !inSlashStar && isGoBuildComment(line) {
			if goBuild != nil {
				return "" // go/build rejects the file; kontext keeps it
			}
			goBuild = line
		}
		for len(line) > 0 {
			if inSlashStar {
				if i := bytes.Index(line, []byte("*/")); i >= 0 {
					inSlashStar = false
					line = bytes.TrimSpace(line[i+len("*/"):])
					continue
				}
				continue Lines
			}
			if bytes.HasPrefix(line, []byte("//")) {
				continue Lines
			}
			if bytes.HasPrefix(line, []byte("/*")) {
				inSlashStar = true
				line = bytes.TrimSpace(line[len("/*"):])
				continue
			}
			break Lines
		}
	}
	if goBuild != nil {
		x, err := constraint.Parse(string(goBuild))
		if err != nil {
			return ""
		}
		return intern(x.String())
	}
	var expr constraint.Expr
	for _, line := range bytes.Split(content[:end], []byte("\n")) {
		line = bytes.TrimSpace(line)
		if !bytes.HasPrefix(line, []byte("//")) || !constraint.IsPlusBuild(string(line)) {
			continue
		}
		x, err := constraint.Parse(string(line))
		if err != nil {
			continue
		}
		if expr == nil {
			expr = x
		} else {
			expr = &constraint.AndExpr{X: expr, Y: x}
		}
	}
	if expr == nil {
		return ""
	}
	return intern(expr.String())
}

func isGoBuildComment(line []byte) bool {
	if !bytes.HasPrefix(line, []byte("//go:build")) {
		return false
	}
	line = bytes.TrimSpace(line)
	rest := line[len("//go:build"):]
	return len(rest) == 0 || len(bytes.TrimSpace(rest)) < len(rest)
}

// goSymbols lists the exported top-level declarations: functions (not
// methods), types, constants and variables, including grouped ones.
func goSymbols(src []byte) []model.Symbol {
	toks := lex(src, lexConfig{backquoteRaw: true, topOnly: true})
	var out []model.Symbol
	add := func(name, kind string, line int) {
		if isExportedGo(name) {
			out = append(out, model.Symbol{Name: intern(name), Kind: kind, Line: line})
		}
	}
	parens := 0
	group := "" // the keyword of the declaration group we are in
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.depth != 0 {
			continue
		}
		if t.kind == tPunct {
			switch t.text {
			case "(":
				parens++
			case ")":
				parens--
				if parens == 0 {
					group = ""
				}
			}
			continue
		}
		if t.kind != tIdent {
			continue
		}
		if parens == 1 && group != "" && t.first {
			kind := group
			if group == "type" {
				kind = goTypeKind(toks, i+1)
			}
			add(t.text, kind, t.line)
			if group != "type" {
				for j := i + 1; j+1 < len(toks) && toks[j].text == "," && toks[j+1].kind == tIdent; j += 2 {
					add(toks[j+1].text, kind, toks[j+1].line)
				}
			}
			continue
		}
		if parens != 0 || !t.first {
			continue
		}
		switch t.text {
		case "func":
			if i+1 < len(toks) && toks[i+1].kind == tIdent {
				add(toks[i+1].text, "function", toks[i+1].line)
			}
		case "type", "const", "var":
			if i+1 >= len(toks) {
				continue
			}
			if toks[i+1].text == "(" {
				group = t.text
				continue
			}
			if toks[i+1].kind == tIdent {
				kind := t.text
				if kind == "type" {
					kind = goTypeKind(toks, i+2)
				}
				add(toks[i+1].text, kind, toks[i+1].line)
				if kind == "const" || kind == "var" {
					for j := i + 2; j+1 < len(toks) && toks[j].text == "," && toks[j+1].kind == tIdent; j += 2 {
						add(toks[j+1].text, kind, toks[j+1].line)
					}
				}
			}
		}
	}
	return out
}

// goTypeKind names what a type declaration declares, looking past type
// parameters and the alias "=".
func goTypeKind(toks []tok, i int) string {
	if i < len(toks) && toks[i].text == "[" {
		depth := 0
		for ; i < len(toks); i++ {
			if toks[i].text == "[" {
				depth++
			} else if toks[i].text == "]" {
				depth--
				if depth == 0 {
					i++
					break
				}
			}
		}
	}
	if i < len(toks) && toks[i].text == "=" {
		i++
	}
	if i < len(toks) {
		switch toks[i].text {
		case "struct":
			return "struct"
		case "interface":
			return "interface"
		}
	}
	return "type"
}

// firstParagraph returns a doc text's first paragraph on one line, bounded.
func firstParagraph(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.Index(s, "\n\n"); i >= 0 {
		s = s[:i]
	}
	s = strings.Join(strings.Fields(s), " ")
	const max = 400
	if len(s) > max {
		cut := strings.LastIndexByte(s[:max], ' ')
		if cut < max/2 {
			// No space to cut at (a doc in Chinese has none): cut before
			// a character, not through one, which would be invalid UTF-8.
			cut = max
			for cut > 0 && !utf8.RuneStart(s[cut]) {
				cut--
			}
		}
		s = s[:cut] + "…"
	}
	return s
}
