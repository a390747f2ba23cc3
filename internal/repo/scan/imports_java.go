package scan

import (
	"strings"

	"github.com/kontext-dev/kontext/internal/repo/model"
)

// parseJVM fills a Java or Kotlin file's package, imports and public
// top-level types (Kotlin: also functions and properties, public unless
// marked private or internal).
func parseJVM(src []byte, f *model.File, kotlin bool) {
	if kotlin {
		if name, line := kotlinJvmName(src); name != "" {
			// @file:JvmName("Utils"): Java code imports the file's
			// declarations as members of that class.
			f.Symbols = append(f.Symbols, model.Symbol{Name: intern(name), Kind: "facade", Line: line})
		}
	}
	toks := lex(src, lexConfig{nestedComments: kotlin, tripleQuotes: true})
	qualified := func(i int) (string, int) {
		var b strings.Builder
		for i < len(toks) {
			t := toks[i]
			if t.kind == tIdent || t.text == "*" {
				if t.kind == tIdent && b.Len() > 0 && !strings.HasSuffix(b.String(), ".") {
					break // next statement (Kotlin has no semicolons)
				}
				b.WriteString(strings.Trim(t.text, "`"))
				i++
				continue
			}
			if t.text == "." {
				b.WriteByte('.')
				i++
				continue
			}
			break
		}
		return b.String(), i
	}
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.kind != tIdent || !t.first || t.depth != 0 {
			if t.kind == tIdent && t.depth == 0 {
				jvmSymbol(toks, i, f, kotlin)
			}
			continue
		}
		switch t.text {
		case "package":
			name, _ := qualified(i + 1)
			f.Package = intern(name)
		case "import":
			j := i + 1
			if j < len(toks) && toks[j].text == "static" {
				j++
			}
			name, _ := qualified(j)
			if name != "" && !strings.HasSuffix(name, ".") {
				f.Imports = append(f.Imports, model.Import{Spec: intern(name), Line: t.line})
			}
		default:
			jvmSymbol(toks, i, f, kotlin)
		}
	}
}

var jvmTypeKeywords = map[string]string{
	"class": "class", "interface": "interface", "enum": "enum", "record": "record", "object": "object",
	"fun": "function", "val": "const", "var": "var", "typealias": "type",
}

// jvmSymbol records a declaration starting at toks[i] when it begins a
// statement at the top level.
func jvmSymbol(toks []tok, i int, f *model.File, kotlin bool) {
	if i > 0 && toks[i-1].depth == 0 && !toks[i].first {
		p := toks[i-1].text
		if p != ";" && p != "}" && p != ")" {
			return
		}
	}
	public := kotlin
	j := i
	for j < len(toks) && toks[j].kind == tIdent {
		switch toks[j].text {
		case "public":
			public = true
		case "private", "internal", "protected":
			public = false
		case "abstract", "final", "static", "sealed", "open", "data", "inline", "value", "annotation",
			"suspend", "const", "operator", "infix", "tailrec", "external", "expect", "actual", "strictfp", "non-sealed", "enum", "fun":
			if toks[j].text == "enum" && j+1 < len(toks) && toks[j+1].text == "class" {
				j++
				continue
			}
			if toks[j].text == "fun" && j+1 < len(toks) && toks[j+1].text == "interface" {
				j++
				continue
			}
			if toks[j].text != "enum" && toks[j].text != "fun" {
				j++
				continue
			}
		}
		if _, ok := jvmTypeKeywords[toks[j].text]; ok {
			break
		}
		if toks[j].text != "public" && toks[j].text != "private" && toks[j].text != "internal" && toks[j].text != "protected" {
			return
		}
		j++
	}
	if j >= len(toks) || !public {
		return
	}
	kind, ok := jvmTypeKeywords[toks[j].text]
	if !ok {
		return
	}
	if !kotlin && (kind == "function" || kind == "const" || kind == "var" || kind == "object" || kind == "type") {
		return
	}
	k := j + 1
	if kind == "function" && k < len(toks) && toks[k].text == "<" { // fun <T> name
		for k < len(toks) && toks[k].text != ">" {
			k++
		}
		k++
	}
	// fun Receiver.name(): the name follows the last dot before "(".
	for k+2 < len(toks) && toks[k].kind == tIdent && toks[k+1].text == "." && toks[k+2].kind == tIdent && (kind == "function" || kind == "const" || kind == "var") {
		k += 2
	}
	if k < len(toks) && toks[k].kind == tIdent {
		f.Symbols = append(f.Symbols, model.Symbol{Name: intern(strings.Trim(toks[k].text, "`")), Kind: kind, Line: toks[k].line})
	}
}

// kotlinJvmName reads a file annotation @file:JvmName("Name") before the
// package clause.
func kotlinJvmName(src []byte) (string, int) {
	s := string(src)
	if pkg := strings.Index(s, "\npackage "); pkg >= 0 {
		s = s[:pkg]
	}
	i := strings.Index(s, "@file:JvmName(")
	if i < 0 {
		return "", 0
	}
	rest := s[i+len("@file:JvmName("):]
	rest = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(rest), "name ="))
	if !strings.HasPrefix(rest, `"`) {
		return "", 0
	}
	end := strings.IndexByte(rest[1:], '"')
	if end < 0 {
		return "", 0
	}
	return rest[1 : 1+end], strings.Count(s[:i], "\n") + 1
}
