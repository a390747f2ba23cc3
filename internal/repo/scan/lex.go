package scan

// A small lexer for the C-family languages kontext reads (Go, Rust, Java,
// Kotlin): it yields identifiers and punctuation with their lines and
// brace depth, and skips what could fake a declaration or an import —
// comments, strings, raw strings, character literals. It is not a parser:
// the import and symbol scanners match short token patterns on its output.

type tokKind uint8

const (
	tIdent tokKind = iota + 1
	tString
	tPunct
)

type tok struct {
	kind  tokKind
	text  string // the identifier, the string's content, or the punctuation
	line  int
	depth int  // brace depth before the token
	first bool // the first token on its line
}

type lexConfig struct {
	nestedComments bool // Rust, Kotlin: /* /* */ */
	backquoteRaw   bool // Go: `raw`
	rustStrings    bool // r"…", r#"…"#, b"…", and 'a lifetimes
	tripleQuotes   bool // Java text blocks, Kotlin raw strings: """…"""
	keepStrings    bool // record string tokens (import paths); else skip them
	singleStrings  bool // Groovy: '…' and '''…''' are strings, not characters
	hashComments   bool // HCL: # starts a comment, as // does
	topOnly        bool // record only tokens outside braces (declarations)
}

// maxTokens bounds the work on one file; the scanners only need the
// declarations, and a file that large is data, not code.
const maxTokens = 1 << 20

func lex(src []byte, cfg lexConfig) []tok {
	var toks []tok
	line, depth := 1, 0
	first := true
	n := len(src)
	emit := func(k tokKind, text string) {
		if len(toks) < maxTokens && (!cfg.topOnly || depth == 0 || text == "}") {
			toks = append(toks, tok{kind: k, text: text, line: line, depth: depth, first: first})
		}
		first = false
	}
	i := 0
	for i < n {
		c := src[i]
		switch {
		case c == '\n':
			line++
			first = true
			i++
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			i++
		case c == '/' && i+1 < n && src[i+1] == '/', c == '#' && cfg.hashComments:
			for i < n && src[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < n && src[i+1] == '*':
			i += 2
			level := 1
			for i < n && level > 0 {
				switch {
				case src[i] == '\n':
					line++
					i++
				case src[i] == '*' && i+1 < n && src[i+1] == '/':
					level--
					i += 2
				case cfg.nestedComments && src[i] == '/' && i+1 < n && src[i+1] == '*':
					level++
					i += 2
				default:
					i++
				}
			}
		case cfg.tripleQuotes && c == '"' && i+2 < n && src[i+1] == '"' && src[i+2] == '"':
			start, startLine := i+3, line
			i += 3
			for i < n && !(src[i] == '"' && i+2 < n && src[i+1] == '"' && src[i+2] == '"') {
				if src[i] == '\n' {
					line++
				}
				i++
			}
			end := i
			if i < n {
				i += 3
				for i < n && src[i] == '"' { // Kotlin: """a"""" ends with the last quotes
					i++
				}
			} else {
				end = n
			}
			if cfg.keepStrings {
				l := line
				line = startLine
				emit(tString, string(src[start:end]))
				line = l
			} else {
				first = false
			}
		case c == '"':
			// Rust's strings may span lines (a newline, or a backslash
			// before one, is part of the literal); the other languages'
			// end at the line.
			j := i + 1
			spans := 0
			for j < n && src[j] != '"' && (src[j] != '\n' || cfg.rustStrings) {
				if src[j] == '\n' {
					spans++
				}
				if src[j] == '\\' && j+1 < n && (src[j+1] != '\n' || cfg.rustStrings) {
					j++
					if src[j] == '\n' {
						spans++
					}
				}
				j++
			}
			if cfg.keepStrings {
				emit(tString, string(src[i+1:min(j, n)]))
			} else {
				first = false
			}
			line += spans
			if j < n && src[j] == '"' {
				j++
			}
			i = j
		case c == '`' && cfg.backquoteRaw:
			j := i + 1
			for j < n && src[j] != '`' {
				if src[j] == '\n' {
					line++
				}
				j++
			}
			if cfg.keepStrings {
				emit(tString, string(src[i+1:min(j, n)]))
			} else {
				first = false
			}
			i = min(j+1, n)
		case c == '\'' && cfg.singleStrings:
			start, startLine, j := i+1, line, i+1
			triple := i+2 < n && src[i+1] == '\'' && src[i+2] == '\''
			if triple {
				start, j = i+3, i+3
				for j < n && !(src[j] == '\'' && j+2 < n && src[j+1] == '\'' && src[j+2] == '\'') {
					if src[j] == '\n' {
						line++
					}
					j++
				}
			} else {
				for j < n && src[j] != '\'' && src[j] != '\n' {
					if src[j] == '\\' && j+1 < n && src[j+1] != '\n' {
						j++
					}
					j++
				}
			}
			if cfg.keepStrings {
				l := line
				line = startLine
				emit(tString, string(src[start:min(j, n)]))
				line = l
			} else {
				first = false
			}
			switch {
			case triple:
				i = min(j+3, n)
			case j < n && src[j] == '\'':
				i = j + 1
			default:
				i = j
			}
		case c == '\'':
			if cfg.rustStrings {
				// 'a' and '\n' are characters; 'a without a closing quote
				// is a lifetime or a label.
				if i+2 < n && src[i+1] != '\\' && src[i+2] == '\'' {
					i += 3
					first = false
					continue
				}
				if i+1 < n && src[i+1] != '\\' {
					// A lifetime, or a multi-byte character literal.
					j := i + 1
					for j < n && j-i < 6 && src[j] != '\'' && src[j] != '\n' && (src[j] >= 0x80) {
						j++
					}
					if j < n && src[j] == '\'' && j > i+1 {
						i = j + 1
					} else {
						i++
					}
					first = false
					continue
				}
			}
			j := i + 1
			for j < n && src[j] != '\'' && src[j] != '\n' {
				if src[j] == '\\' && j+1 < n && src[j+1] != '\n' {
					j++
				}
				j++
			}
			if j < n && src[j] == '\'' {
				j++
			}
			i = j
			first = false
		case cfg.rustStrings && (c == 'r' || c == 'b' || c == 'c') && rustRawStart(src, i) > 0:
			j := rustRawStart(src, i) // index of the opening quote
			hashes := 0
			for k := j - 1; k > i && src[k] == '#'; k-- {
				hashes++
			}
			raw := src[i] == 'r' || (i+1 < n && src[i+1] == 'r')
			k := j + 1
			for k < n {
				if src[k] == '\n' {
					line++
				}
				if !raw && src[k] == '\\' {
					k += 2
					continue
				}
				if src[k] == '"' && hashesFollow(src, k+1, hashes) {
					break
				}
				k++
			}
			if cfg.keepStrings {
				emit(tString, string(src[j+1:min(k, n)]))
			} else {
				first = false
			}
			i = min(k+1+hashes, n)
		case isIdentStart(c):
			j := i + 1
			for j < n && isIdentPart(src[j]) {
				j++
			}
			if cfg.topOnly && depth > 0 {
				first = false
			} else {
				emit(tIdent, string(src[i:j]))
			}
			i = j
		case c >= '0' && c <= '9':
			j := i + 1
			for j < n && (isIdentPart(src[j]) || src[j] == '.') {
				j++
			}
			first = false
			i = j
		default:
			if c == '}' && depth > 0 {
				depth--
			}
			emit(tPunct, punctText(src, i))
			if c == '{' {
				depth++
			}
			i++
		}
	}
	return toks
}

// rustRawStart returns the index of the opening quote of a Rust raw, byte
// or C string starting at i (r"…", r#"…"#, b"…", br"…", c"…"), or 0.
func rustRawStart(src []byte, i int) int {
	if i > 0 && isIdentPart(src[i-1]) {
		return 0
	}
	j := i + 1
	if src[i] != 'r' && j < len(src) && src[j] == 'r' {
		j++
	}
	raw := src[i] == 'r' || (j > i+1)
	if raw {
		for j < len(src) && src[j] == '#' {
			j++
		}
	}
	if j < len(src) && src[j] == '"' {
		return j
	}
	return 0
}

func hashesFollow(src []byte, i, n int) bool {
	for k := 0; k < n; k++ {
		if i+k >= len(src) || src[i+k] != '#' {
			return false
		}
	}
	return true
}

func isIdentStart(c byte) bool {
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

func isIdentPart(c byte) bool {
	return isIdentStart(c) || c >= '0' && c <= '9'
}

func isExportedGo(name string) bool {
	return name != "" && name[0] >= 'A' && name[0] <= 'Z'
}

// punctText is the one-byte punctuation token at src[i]. A one-byte
// conversion allocates nothing (the runtime keeps a string for every byte),
// so no table has to be built when the program starts.
func punctText(src []byte, i int) string { return string(src[i : i+1]) }
