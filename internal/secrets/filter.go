package secrets

import (
	"bytes"
	"sort"
	"sync"
)

// Filter is a scanner as the filter every answer of the MCP server passes
// on its way out (mcp.OutputFilter): values are replaced by
// [redacted:<rule>], the rest is kept.
type Filter struct {
	scanner *Scanner
	hints   [][]byte // every rule's hints; nil when a rule runs always
	always  bool
}

// NewFilter returns the output filter of s (the built-in rules when nil).
func NewFilter(s *Scanner) *Filter {
	if s == nil {
		s = defaultScanner()
	}
	f := &Filter{scanner: s}
	seen := map[string]bool{}
	for _, r := range s.rules {
		if r.hints == nil {
			f.always = true // a configured pattern: no literal to look for
		}
		for _, h := range r.hints {
			if !seen[h] {
				seen[h] = true
				f.hints = append(f.hints, []byte(h))
			}
		}
	}
	// Shorter hints first: the common ones ("key", "sk-") end the search
	// early in text that holds them.
	sort.Slice(f.hints, func(i, j int) bool { return len(f.hints[i]) < len(f.hints[j]) })
	return f
}

var lowerBufs = sync.Pool{New: func() any { b := make([]byte, 0, 64<<10); return &b }}

// Suspect reports whether text holds a literal one of the rules needs
// (ASCII case ignored): without one, no rule can match.
func (f *Filter) Suspect(text []byte) bool {
	if f.always {
		return true
	}
	bp := lowerBufs.Get().(*[]byte)
	lower := append((*bp)[:0], text...)
	for i, c := range lower {
		if c >= 'A' && c <= 'Z' {
			lower[i] = c + 'a' - 'A'
		}
	}
	found := false
	for _, h := range f.hints {
		if bytes.Contains(lower, h) {
			found = true
			break
		}
	}
	if cap(lower) <= 1<<20 {
		*bp = lower
		lowerBufs.Put(bp)
	}
	return found
}

// Redact replaces the secrets in text.
func (f *Filter) Redact(text string) string {
	out, _ := f.scanner.Redact(text)
	return out
}
