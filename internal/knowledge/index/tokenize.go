package index

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// SQLite's unicode61 tokenizer (which the index uses) already splits
// order_total and order-total into two tokens, but keeps orderTotal and
// ABTest2 whole. The "expanded" column carries what it cannot see: the
// words inside camelCase and letter/digit identifiers, and the joined
// form of snake_case and kebab-case ones, so that every spelling of an
// identifier finds the others.

// isWordRune is what counts as part of a token. It follows unicode61
// (letters, numbers, marks) closely enough that a term built from these
// runes is never empty after SQLite tokenizes it, bar exotic cases the
// query builder guards against anyway.
func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r)
}

// identifiers calls f for each identifier-like run of text: word runes
// joined by '_' or '-' (order_total, order-total, orderTotal, ABTest2).
func identifiers(text string, f func(ident string)) {
	start := -1
	for i := 0; i < len(text); {
		c := text[i]
		n := 1
		var word bool
		if c < utf8.RuneSelf {
			word = asciiWord[c]
		} else {
			var r rune
			r, n = utf8.DecodeRuneInString(text[i:])
			word = isWordRune(r)
		}
		if word || ((c == '_' || c == '-') && start >= 0) {
			if start < 0 {
				start = i
			}
		} else if start >= 0 {
			f(strings.TrimRight(text[start:i], "_-"))
			start = -1
		}
		i += n
	}
	if start >= 0 {
		f(strings.TrimRight(text[start:], "_-"))
	}
}

// asciiWord is isWordRune for ASCII, which is most of what is indexed.
var asciiWord = func() (t [utf8.RuneSelf]bool) {
	for c := range t {
		t[c] = isWordRune(rune(c))
	}
	return t
}()

// splitWords splits one identifier into its lower-cased words: at '_'
// and '-', at a lower-to-upper change (orderTotal), before the last
// capital of a run followed by lower case (ABTest → ab test), and between
// letters and digits (test2 → test 2).
func splitWords(ident string) []string {
	var words []string
	rs := []rune(ident)
	start := 0
	flush := func(end int) {
		if end > start {
			words = append(words, strings.ToLower(string(rs[start:end])))
		}
		start = end
	}
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		if !isWordRune(r) {
			flush(i)
			start = i + 1
			continue
		}
		if i == start {
			continue
		}
		p := rs[i-1]
		switch {
		case unicode.IsMark(r):
			// A combining mark belongs to the letter before it.
		case unicode.IsNumber(r) != unicode.IsNumber(p) && !unicode.IsMark(p):
			flush(i)
		case unicode.IsUpper(r) && unicode.IsLower(p):
			flush(i)
		case unicode.IsUpper(p) && unicode.IsUpper(r) && i+1 < len(rs) && unicode.IsLower(rs[i+1]):
			flush(i)
		}
	}
	flush(len(rs))
	return words
}

// plainWords returns the words unicode61 itself sees in an identifier:
// its maximal runs of word runes, lower-cased.
func plainWords(ident string) []string {
	return strings.FieldsFunc(strings.ToLower(ident), func(r rune) bool { return !isWordRune(r) })
}

// expand returns the extra words of text for the expanded column: for
// each identifier whose words differ from what unicode61 sees, the split
// words ("order total") and the joined form ("ordertotal"). Each
// expansion is written once: it marks that the document has the
// identifier, and repeating it would only inflate term frequencies.
func expand(texts ...string) string {
	var b strings.Builder
	var seen map[string]bool
	add := func(s []byte) {
		if len(s) == 0 || seen[string(s)] {
			return
		}
		if seen == nil {
			seen = map[string]bool{}
		}
		seen[string(s)] = true
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.Write(s)
	}
	var split, plain, joined []byte
	for _, text := range texts {
		compoundIdentifiers(text, func(ident string) {
			var words, runs int
			if split, plain, joined, words, runs = expandASCII(ident, split[:0], plain[:0], joined[:0]); words < 0 {
				ws, ps := splitWords(ident), plainWords(ident)
				split = append(split[:0], strings.Join(ws, " ")...)
				plain = append(plain[:0], strings.Join(ps, " ")...)
				joined = append(joined[:0], strings.Join(ps, "")...)
				words, runs = len(ws), len(ps)
			}
			if words > 1 && string(split) != string(plain) {
				add(split)
			}
			if runs > 1 {
				add(joined)
			}
		})
	}
	return b.String()
}

// expandASCII is splitWords and plainWords for an ASCII identifier, in
// scratch buffers: split holds the words splitWords finds, plain the
// ones unicode61 sees (both space-separated), joined the latter without
// spaces. words is -1 when ident is not ASCII.
func expandASCII(ident string, split, plain, joined []byte) ([]byte, []byte, []byte, int, int) {
	words, runs := 0, 0
	prev := uint8(cNone)
	for i := 0; i < len(ident); i++ {
		c := ident[i]
		if c >= utf8.RuneSelf {
			return split, plain, joined, -1, 0
		}
		cl := asciiClass[c]
		if cl == cNone {
			prev = cNone
			continue
		}
		lc := c
		if cl == cUpper {
			lc = c + ('a' - 'A')
		}
		if prev == cNone {
			if runs > 0 {
				plain = append(plain, ' ')
			}
			runs++
		}
		boundary := prev == cNone ||
			(cl == cDigit) != (prev == cDigit) ||
			(cl == cUpper && prev == cLower) ||
			(cl == cUpper && prev == cUpper && i+1 < len(ident) && ident[i+1] < utf8.RuneSelf && asciiClass[ident[i+1]] == cLower)
		if boundary {
			if words > 0 {
				split = append(split, ' ')
			}
			words++
		}
		split = append(split, lc)
		plain = append(plain, lc)
		joined = append(joined, lc)
		prev = cl
	}
	return split, plain, joined, words, runs
}

// Rune classes for compoundIdentifiers.
const (
	cNone   = iota // not part of a word
	cLower         // lower-case letter
	cUpper         // upper-case letter
	cLetter        // a letter without case
	cDigit
	cMark // combining mark: belongs to the rune before it
)

var asciiClass = func() (t [utf8.RuneSelf]uint8) {
	for c := range t {
		t[c] = runeClass(rune(c))
	}
	return t
}()

func runeClass(r rune) uint8 {
	switch {
	case unicode.IsNumber(r):
		return cDigit
	case unicode.IsUpper(r):
		return cUpper
	case unicode.IsLower(r):
		return cLower
	case unicode.IsLetter(r):
		return cLetter
	case unicode.IsMark(r):
		return cMark
	}
	return cNone
}

// compoundIdentifiers is identifiers restricted to those splitWords cuts
// differently from unicode61 or that join words with '_' or '-': the
// ones expand has something to say about. It decides while it scans, so
// that an ordinary word costs a table look-up per byte; every document
// indexed goes through here.
func compoundIdentifiers(text string, f func(ident string)) {
	start := -1
	compound := false
	prev := uint8(cNone)
	upperRun := 0
	for i := 0; i < len(text); {
		c := text[i]
		n := 1
		var cl uint8
		if c < utf8.RuneSelf {
			cl = asciiClass[c]
		} else {
			var r rune
			r, n = utf8.DecodeRuneInString(text[i:])
			cl = runeClass(r)
		}
		switch {
		case cl != cNone:
			if start < 0 {
				start, compound, prev, upperRun = i, false, cNone, 0
			}
			if cl == cMark {
				break
			}
			if !compound {
				switch {
				case cl == cDigit:
					compound = prev != cNone && prev != cDigit
				case prev == cDigit:
					compound = true
				case cl == cUpper:
					compound = prev == cLower
				case cl == cLower:
					compound = upperRun >= 2
				}
			}
			if cl == cUpper {
				upperRun++
			} else {
				upperRun = 0
			}
			prev = cl
		case (c == '_' || c == '-') && start >= 0:
			compound = true
			prev, upperRun = cNone, 0
		default:
			if start >= 0 && compound {
				f(strings.TrimRight(text[start:i], "_-"))
			}
			start = -1
		}
		i += n
	}
	if start >= 0 && compound {
		f(strings.TrimRight(text[start:], "_-"))
	}
}
