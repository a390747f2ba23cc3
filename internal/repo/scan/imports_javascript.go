package scan

import (
	"github.com/kontext-dev/kontext/internal/repo/model"
)

// The TypeScript/JavaScript scanner. It lexes enough to never mistake a
// string, template literal, comment or regular expression for code, then
// matches the import forms on the token stream:
//
//	import … from "m"   import "m"   import("m")   export … from "m"
//	require("m")        import x = require("m")
//
// and the exported declarations at the top level.

// jsRegexAfter are the keywords after which a "/" starts a regular
// expression rather than a division.
var jsRegexAfter = map[string]bool{
	"return": true, "typeof": true, "instanceof": true, "in": true, "of": true, "new": true,
	"delete": true, "void": true, "throw": true, "case": true, "do": true, "else": true,
	"yield": true, "await": true,
}

func lexJS(src []byte) []tok {
	var toks []tok
	line, depth := 1, 0
	first := true
	n := len(src)
	// braceKinds records, for each open brace, whether it opened a
	// template substitution (so its "}" resumes the template).
	var braceKinds []bool
	emit := func(k tokKind, text string) {
		if len(toks) < maxTokens {
			toks = append(toks, tok{kind: k, text: text, line: line, depth: depth, first: first})
		}
		first = false
	}
	regexAllowed := func() bool {
		if len(toks) == 0 {
			return true
		}
		last := toks[len(toks)-1]
		switch last.kind {
		case tIdent:
			return jsRegexAfter[last.text]
		case tString:
			return false
		}
		switch last.text {
		case ")", "]":
			return false
		}
		return true
	}
	i := 0
	// template scans a template literal's text from i (after "`" or the
	// "}" closing a substitution) to its end or its next "${".
	template := func(startLine int) {
		start := i
		for i < n {
			switch src[i] {
			case '\\':
				i += 2
				continue
			case '\n':
				line++
			case '`':
				text := string(src[start:i])
				i++
				l := line
				line = startLine
				emit(tString, text)
				line = l
				return
			case '$':
				if i+1 < n && src[i+1] == '{' {
					i += 2
					emit(tPunct, "${") // a template with substitutions is not a static spec
					braceKinds = append(braceKinds, true)
					depth++
					return
				}
			}
			i++
		}
		i = n
	}
	for i < n {
		c := src[i]
		switch {
		case c == '\n':
			line++
			first = true
			i++
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			i++
		case c == '/' && i+1 < n && src[i+1] == '/':
			for i < n && src[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < n && src[i+1] == '*':
			i += 2
			for i < n && !(src[i] == '*' && i+1 < n && src[i+1] == '/') {
				if src[i] == '\n' {
					line++
				}
				i++
			}
			i = min(i+2, n)
		case c == '/' && regexAllowed():
			// A regular expression ends at an unescaped "/" outside a
			// character class, and never spans lines.
			j := i + 1
			class := false
			for j < n && src[j] != '\n' {
				if src[j] == '\\' {
					j += 2
					continue
				}
				if src[j] == '[' {
					class = true
				} else if src[j] == ']' {
					class = false
				} else if src[j] == '/' && !class {
					break
				}
				j++
			}
			if j < n && src[j] == '/' {
				j++
				for j < n && isIdentPart(src[j]) {
					j++
				}
				emit(tString, "") // a value, like a string
				i = j
			} else {
				emit(tPunct, "/")
				i++
			}
		case c == '"' || c == '\'':
			j := i + 1
			for j < n && src[j] != c && src[j] != '\n' {
				if src[j] == '\\' && j+1 < n {
					if src[j+1] == '\n' {
						line++
					}
					j++
				}
				j++
			}
			emit(tString, string(src[i+1:min(j, n)]))
			if j < n && src[j] == c {
				j++
			}
			i = j
		case c == '`':
			i++
			template(line)
		case isIdentStart(c) || c == '#' || c == '@':
			j := i + 1
			for j < n && isIdentPart(src[j]) {
				j++
			}
			emit(tIdent, string(src[i:j]))
			i = j
		case c >= '0' && c <= '9':
			j := i + 1
			for j < n && (isIdentPart(src[j]) || src[j] == '.') {
				j++
			}
			emit(tString, "") // a number is a value too
			i = j
		case c == '{':
			emit(tPunct, "{")
			braceKinds = append(braceKinds, false)
			depth++
			i++
		case c == '}':
			if len(braceKinds) > 0 {
				tmpl := braceKinds[len(braceKinds)-1]
				braceKinds = braceKinds[:len(braceKinds)-1]
				depth--
				if tmpl {
					i++
					template(line)
					continue
				}
			}
			emit(tPunct, "}")
			i++
		default:
			emit(tPunct, punctText(src, i))
			i++
		}
	}
	return toks
}

// parseJS fills a TypeScript/JavaScript file's imports and exports.
func parseJS(src []byte, f *model.File) {
	toks := lexJS(src)
	at := func(i int) tok {
		if i >= 0 && i < len(toks) {
			return toks[i]
		}
		return tok{}
	}
	isMember := func(i int) bool { // preceded by "." (obj.import, obj.require)
		p := at(i - 1)
		return p.kind == tPunct && (p.text == "." || p.text == "?")
	}
	addImport := func(spec string, line int) {
		if spec != "" {
			f.Imports = append(f.Imports, model.Import{Spec: intern(spec), Line: line})
		}
	}
	addSym := func(name, kind string, line int) {
		f.Symbols = append(f.Symbols, model.Symbol{Name: intern(name), Kind: kind, Line: line})
	}
	// fromAfter finds `from "m"` after position i, within the statement.
	fromAfter := func(i int) (string, bool) {
		depth := 0
		for j := i; j < len(toks) && j < i+4096; j++ {
			t := toks[j]
			if t.kind == tPunct {
				switch t.text {
				case "{":
					depth++
				case "}":
					depth--
				case ";":
					return "", false
				}
				continue
			}
			if t.kind == tIdent && depth == 0 {
				if t.text == "from" && at(j+1).kind == tString && at(j+2).text != "${" {
					return at(j + 1).text, true
				}
				if (t.text == "import" || t.text == "export") && j > i {
					return "", false
				}
			}
			if t.kind == tString && depth == 0 && j > i {
				return "", false
			}
		}
		return "", false
	}
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.kind != tIdent || isMember(i) {
			continue
		}
		switch t.text {
		case "import":
			next := at(i + 1)
			switch {
			case next.kind == tString:
				addImport(next.text, t.line)
			case next.text == "(":
				if a := at(i + 2); a.kind == tString && at(i+3).text == ")" {
					addImport(a.text, t.line)
				}
			case next.text == ".": // import.meta
			case next.kind == tIdent && at(i+2).text == "=" && at(i+3).text == "require":
				// import x = require("m"): the require rule records it.
			default:
				if spec, ok := fromAfter(i + 1); ok {
					addImport(spec, t.line)
				}
			}
		case "require":
			if at(i+1).text == "(" && at(i+2).kind == tString && at(i+3).text == ")" {
				addImport(at(i+2).text, t.line)
			}
		case "export":
			next := at(i + 1)
			j := i + 1
			if next.text == "type" {
				j++
			}
			if s := at(j).text; (s == "*" || s == "{") && at(j).kind == tPunct {
				if spec, ok := fromAfter(j); ok {
					addImport(spec, t.line)
					continue
				}
				if s == "{" && t.depth == 0 {
					jsExportList(toks, j, addSym)
				}
				continue
			}
			if t.depth == 0 {
				jsExportDecl(toks, i, addSym)
			}
		case "exports", "module":
			// CommonJS: exports.name = …, module.exports.name = …
			if t.depth != 0 {
				continue
			}
			j := i + 1
			if t.text == "module" {
				if at(j).text != "." || at(j+1).text != "exports" {
					continue
				}
				j += 2
			}
			if at(j).text == "." && at(j+1).kind == tIdent && at(j+2).text == "=" {
				addSym(at(j+1).text, "var", at(j+1).line)
			}
		}
	}
}

// jsExportDecl records `export [default] [declare] [abstract] [async]
// function|class|const|let|var|interface|type|enum|namespace Name`.
func jsExportDecl(toks []tok, i int, add func(name, kind string, line int)) {
	j := i + 1
	isDefault := false
	for j < len(toks) && toks[j].kind == tIdent {
		switch toks[j].text {
		case "default":
			isDefault = true
			j++
			continue
		case "declare", "abstract", "async":
			j++
			continue
		}
		break
	}
	if j >= len(toks) {
		return
	}
	kw := toks[j]
	name := func(k int) (tok, bool) {
		if k < len(toks) && toks[k].kind == tIdent {
			return toks[k], true
		}
		return tok{}, false
	}
	switch kw.text {
	case "function":
		k := j + 1
		if k < len(toks) && toks[k].text == "*" {
			k++
		}
		if n, ok := name(k); ok && n.text != "(" {
			add(n.text, "function", n.line)
			return
		}
	case "class", "interface", "enum", "namespace", "module":
		if n, ok := name(j + 1); ok && n.text != "extends" && n.text != "implements" {
			kind := kw.text
			if kind == "module" {
				kind = "namespace"
			}
			add(n.text, kind, n.line)
			return
		}
	case "type":
		if n, ok := name(j + 1); ok {
			add(n.text, "type", n.line)
			return
		}
	case "const", "let", "var":
		k := j + 1
		if k < len(toks) && toks[k].text == "enum" {
			if n, ok := name(k + 1); ok {
				add(n.text, "enum", n.line)
			}
			return
		}
		kind := "var"
		if kw.text == "const" {
			kind = "const"
		}
		// export const a = 1, b = 2: names at nesting level 0 after "," .
		for k < len(toks) {
			n, ok := name(k)
			if !ok {
				return
			}
			add(n.text, kind, n.line)
			depth := 0
			k++
			for k < len(toks) {
				s := toks[k].text
				if toks[k].kind == tPunct {
					switch s {
					case "(", "[", "{":
						depth++
					case ")", "]", "}":
						depth--
					case ";":
						return
					}
				}
				if depth < 0 || toks[k].first && depth == 0 && toks[k].kind == tIdent && s != "as" {
					return
				}
				if depth == 0 && s == "," && toks[k].kind == tPunct {
					k++
					break
				}
				k++
			}
		}
		return
	}
	if isDefault {
		add("default", "default", toks[i].line)
	}
}

// jsExportList records `export { a, b as c }` (without from): the
// exported names.
func jsExportList(toks []tok, j int, add func(name, kind string, line int)) {
	for k := j + 1; k < len(toks) && toks[k].text != "}"; k++ {
		t := toks[k]
		if t.kind != tIdent || t.text == "type" {
			continue
		}
		nameTok := t
		if k+2 < len(toks) && toks[k+1].text == "as" {
			nameTok = toks[k+2]
			k += 2
		}
		add(nameTok.text, "export", nameTok.line)
	}
}
