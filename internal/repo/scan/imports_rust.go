package scan

import (
	"bytes"
	"strings"

	"github.com/kontext-dev/kontext/internal/repo/model"
)

// parseRust fills a Rust file's imports (`use` trees expanded to their
// paths, `extern crate`), its out-of-line `mod name;` declarations (with a
// #[path] attribute's file), its public top-level items and its //! docs.
// Imports inside #[cfg(test)] code are marked Test; a file that is
// #![cfg(test)] as a whole is a test file. `mod` declarations are not
// imports: the resolver follows them from the crate roots.
func parseRust(src []byte, f *model.File) {
	f.Doc = rustInnerDoc(src)
	toks := lex(src, lexConfig{nestedComments: true, rustStrings: true, keepStrings: true})
	add := func(spec string, line int, test bool) {
		for i, imp := range f.Imports {
			if imp.Spec == spec && imp.Line == line {
				f.Imports[i].Test = f.Imports[i].Test && test
				return
			}
		}
		f.Imports = append(f.Imports, model.Import{Spec: intern(spec), Line: line, Test: test})
	}
	macroExport := false
	// The pending outer attributes of the next item: #[cfg(test)] and
	// #[path = "…"].
	attrTest, attrPath := false, ""
	testUntil := -1 // index of the token closing a #[cfg(test)] item
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		inTest := i < testUntil
		if t.kind == tPunct && t.text == "#" && i+2 < len(toks) {
			inner := toks[i+1].text == "!"
			j := i + 1
			if inner {
				j++
			}
			if j < len(toks) && toks[j].text == "[" {
				end := rustAttrEnd(toks, j)
				attr := toks[j+1 : end]
				switch {
				case rustCfgTest(attr) && inner && t.depth == 0:
					f.Kind = model.FileTest // #![cfg(test)]: the whole file is a test module
				case rustCfgTest(attr):
					attrTest = true
				case len(attr) >= 3 && attr[0].text == "path" && attr[1].text == "=" && attr[2].kind == tString:
					attrPath = attr[2].text
				case len(attr) > 0 && attr[0].text == "macro_export":
					macroExport = true
				}
				i = end
				continue
			}
		}
		if t.kind != tIdent {
			if t.text == ";" || t.text == "{" || t.text == "}" {
				if t.text == "{" && attrTest && !inTest {
					testUntil = blockEnd(toks, i)
				}
				attrTest, attrPath = false, ""
			}
			continue
		}
		switch t.text {
		case "mod":
			if i+2 < len(toks) && toks[i+1].kind == tIdent && toks[i+2].text == ";" && t.depth == 0 {
				f.Submodules = append(f.Submodules, model.Submodule{Name: intern(toks[i+1].text), Path: attrPath, Line: t.line, Test: attrTest || inTest})
				attrTest, attrPath = false, ""
				i += 2
				continue
			}
		case "use":
			if i > 0 && toks[i-1].text == ":" { // a path segment named use
				continue
			}
			j := i + 1
			if j < len(toks) && toks[j].text == ":" && j+1 < len(toks) && toks[j+1].text == ":" {
				j += 2 // use ::crate_name
			}
			var paths []string
			end := rustUseTree(toks, j, "", &paths)
			for _, p := range paths {
				add(p, t.line, inTest || attrTest)
			}
			attrTest, attrPath = false, ""
			if end > i {
				i = end
			}
		case "extern":
			if i+2 < len(toks) && toks[i+1].text == "crate" && toks[i+2].kind == tIdent {
				add(toks[i+2].text, t.line, inTest || attrTest)
			}
		case "macro_rules":
			if macroExport && i+2 < len(toks) && toks[i+1].text == "!" && toks[i+2].kind == tIdent {
				f.Symbols = append(f.Symbols, model.Symbol{Name: intern(toks[i+2].text), Kind: "macro", Line: toks[i+2].line})
			}
			macroExport = false
		case "pub":
			if t.depth != 0 || i+1 >= len(toks) || toks[i+1].text == "(" {
				continue // pub(crate) and friends are not the crate's API
			}
			j := i + 1
			for j < len(toks) && toks[j].kind == tIdent {
				switch toks[j].text {
				case "async", "unsafe", "extern", "default":
					j++
					continue
				case "const":
					if j+1 < len(toks) && toks[j+1].text == "fn" {
						j++
						continue
					}
				}
				break
			}
			if j < len(toks) && toks[j].kind == tString { // extern "C"
				j++
			}
			if j+1 >= len(toks) || toks[j+1].kind != tIdent {
				continue
			}
			kind := ""
			switch toks[j].text {
			case "fn":
				kind = "function"
			case "struct", "enum", "trait", "union", "mod", "macro":
				kind = toks[j].text
			case "type":
				kind = "type"
			case "const", "static":
				kind = "const"
			case "use":
				continue
			}
			if kind != "" {
				f.Symbols = append(f.Symbols, model.Symbol{Name: intern(toks[j+1].text), Kind: kind, Line: toks[j+1].line})
			}
		}
	}
}

// rustAttrEnd returns the index of the "]" closing the attribute whose
// "[" is at toks[open].
func rustAttrEnd(toks []tok, open int) int {
	level := 0
	for k := open; k < len(toks); k++ {
		switch toks[k].text {
		case "[":
			level++
		case "]":
			level--
			if level == 0 {
				return k
			}
		}
	}
	return len(toks) // unclosed: the attribute runs to the end of the file
}

// rustCfgTest reports an attribute that is exactly cfg(test): code
// compiled only for the crate's tests (cfg(any(test, …)) is not).
func rustCfgTest(attr []tok) bool {
	return len(attr) == 4 && attr[0].text == "cfg" && attr[1].text == "(" && attr[2].text == "test" && attr[3].text == ")"
}

// blockEnd returns the index of the "}" closing the block opened at
// toks[open].
func blockEnd(toks []tok, open int) int {
	d := toks[open].depth
	for k := open + 1; k < len(toks); k++ {
		if toks[k].text == "}" && toks[k].kind == tPunct && toks[k].depth == d {
			return k
		}
	}
	return len(toks)
}

// rustUseTree expands a use tree starting at toks[i] into full paths
// (`a::{b, c::d}` → a::b, a::c::d; `self` in a group names the prefix),
// returning the index of its end.
func rustUseTree(toks []tok, i int, prefix string, out *[]string) int {
	path := prefix
	for i < len(toks) && len(*out) < 256 {
		t := toks[i]
		switch {
		case t.kind == tIdent && t.text == "as":
			i += 2 // the alias
			continue
		case t.kind == tIdent:
			if t.text == "self" && path == prefix && prefix != "" {
				// a::{self} names a itself
			} else if path == "" {
				path = t.text
			} else {
				path += "::" + t.text
			}
			i++
		case t.text == ":" && i+1 < len(toks) && toks[i+1].text == ":":
			i += 2
		case t.text == "*":
			i++
		case t.text == "{":
			i++
			for i < len(toks) {
				i = rustUseTree(toks, i, path, out)
				if i < len(toks) && toks[i].text == "," {
					i++
					continue
				}
				break
			}
			if i < len(toks) && toks[i].text == "}" {
				i++
			}
			return i
		default: // ",", "}", ";" end this branch
			if path != "" && path != prefix {
				*out = append(*out, path)
			} else if path != "" && prefix != "" {
				*out = append(*out, path) // {self}
			}
			return i
		}
	}
	return i
}

// rustInnerDoc returns the first paragraph of a file's leading //! lines.
func rustInnerDoc(src []byte) string {
	var b strings.Builder
	for len(src) > 0 {
		line := src
		if i := bytes.IndexByte(src, '\n'); i >= 0 {
			line, src = src[:i], src[i+1:]
		} else {
			src = nil
		}
		t := bytes.TrimSpace(line)
		if bytes.HasPrefix(t, []byte("//!")) {
			b.Write(bytes.TrimSpace(t[3:]))
			if len(bytes.TrimSpace(t[3:])) == 0 {
				b.WriteString("\n\n")
			} else {
				b.WriteByte('\n')
			}
			continue
		}
		if len(t) == 0 || bytes.HasPrefix(t, []byte("//")) || bytes.HasPrefix(t, []byte("#![")) {
			if b.Len() > 0 && !bytes.HasPrefix(t, []byte("#![")) {
				break
			}
			continue
		}
		break
	}
	return firstParagraph(b.String())
}
