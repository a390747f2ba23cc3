package secrets

import "strings"

// Filter is a scanner as the filter every answer of the MCP server passes
// on its way out (mcp.OutputFilter): values are replaced by
// [redacted:<rule>], the rest is kept.
type Filter struct {
	scanner *Scanner
	// hints are every rule's literals, lower case, by their first two
	// bytes; pairs marks those pairs. always is set when a rule has none.
	hints  map[uint16][][]byte
	pairs  [1 << 16 / 64]uint64
	always bool
}

// NewFilter returns the output filter of s (the built-in rules when nil).
func NewFilter(s *Scanner) *Filter {
	if s == nil {
		s = defaultScanner()
	}
	f := &Filter{scanner: s, hints: map[uint16][][]byte{}}
	seen := map[string]bool{}
	for _, r := range s.rules {
		if r.hints == nil {
			f.always = true // a configured pattern without a literal
		}
		for _, h := range r.hints {
			if len(h) < 2 {
				f.always = true
				continue
			}
			if seen[h] {
				continue
			}
			seen[h] = true
			k := pair(h[0], h[1])
			f.hints[k] = append(f.hints[k], []byte(h))
			f.pairs[k/64] |= 1 << (k % 64)
		}
	}
	return f
}

func lowerByte(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func pair(a, b byte) uint16 { return uint16(lowerByte(a))<<8 | uint16(lowerByte(b)) }

// Suspect reports whether text holds a literal one of the rules needs
// (ASCII case ignored): without one, no rule can match. It reads text
// once, looking up each pair of bytes in a bit set, so it costs about as
// much as copying the text.
func (f *Filter) Suspect(text []byte) bool {
	if f.always {
		return true
	}
	for i := 0; i+1 < len(text); i++ {
		k := pair(text[i], text[i+1])
		if f.pairs[k/64]&(1<<(k%64)) == 0 {
			continue
		}
		for _, h := range f.hints[k] {
			if hasPrefixFold(text[i:], h) {
				return true
			}
		}
	}
	return false
}

// hasPrefixFold reports whether s starts with the lower-case h, ASCII case
// ignored.
func hasPrefixFold(s, h []byte) bool {
	if len(s) < len(h) {
		return false
	}
	for i, c := range h {
		if lowerByte(s[i]) != c {
			return false
		}
	}
	return true
}

// Redact replaces the secrets in text. key, when set, is the name of the
// JSON member text is the value of: the rules see the pair as a JSON
// member ("password": "hunter2…", "private_key_id": "…"), and only what
// they find in the value is replaced.
func (f *Filter) Redact(key, text string) string {
	if key == "" {
		out, _ := f.scanner.Redact(text)
		return out
	}
	prefix := `"` + key + `": "`
	fs := f.scanner.Scan(prefix + text + `"`)
	if len(fs) == 0 {
		return text
	}
	var b strings.Builder
	prev := 0
	for _, fd := range fs {
		start, end := max(fd.Start-len(prefix), 0), min(fd.End-len(prefix), len(text))
		if end <= start || start < prev {
			continue // in the name, or the quotes around the value
		}
		b.WriteString(text[prev:start])
		b.WriteString("[redacted:" + fd.Rule + "]")
		prev = end
	}
	if prev == 0 && b.Len() == 0 {
		return text
	}
	b.WriteString(text[prev:])
	return b.String()
}
