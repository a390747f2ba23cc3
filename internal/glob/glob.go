// Package glob matches repository paths against the patterns knowledge
// entries use (an entry's `paths`, which the repo engine's decisions read
// too), with
// git's conventions: a pattern without a slash matches at any depth, a
// leading slash anchors it at the root, `**` crosses directories, `{a,b}`
// lists alternatives, and a pattern that names a directory covers what is
// inside it.
package glob

import (
	"regexp"
	"strings"
	"sync"
)

var cache sync.Map // pattern → func(string) bool

// Match reports whether path (relative to the repository root, with
// slashes) is matched by pattern.
func Match(pattern, path string) bool {
	pattern = strings.TrimSpace(pattern)
	path = strings.TrimPrefix(path, "./")
	if pattern == "" || path == "" {
		return false
	}
	return matcher(pattern)(path)
}

// Matcher is Match for one pattern, for testing many paths against it.
func Matcher(pattern string) func(path string) bool {
	pattern = strings.TrimSpace(pattern)
	if pattern == "" {
		return func(string) bool { return false }
	}
	m := matcher(pattern)
	return func(path string) bool {
		path = strings.TrimPrefix(path, "./")
		return path != "" && m(path)
	}
}

// matcher returns the test for a trimmed pattern, cached. The common
// shapes (`src/api`, `src/api/`, `src/api/**`, anchored by their slash)
// are a plain prefix test, without a regular expression: freshness and
// kontext check test every entry's paths against every tracked file.
func matcher(pattern string) func(string) bool {
	if v, ok := cache.Load(pattern); ok {
		return v.(func(string) bool)
	}
	m := prefixMatcher(pattern)
	if m == nil {
		re := compile(pattern)
		m = func(path string) bool { return re != nil && re.MatchString(path) }
	}
	cache.Store(pattern, m)
	return m
}

func prefixMatcher(pattern string) func(string) bool {
	p := strings.TrimPrefix(pattern, "./")
	anchored := strings.HasPrefix(p, "/")
	p = strings.TrimSuffix(strings.TrimPrefix(p, "/"), "/")
	literal := func(s string) bool { return s != "" && !strings.ContainsAny(s, "*?[]{}\\") }
	if !anchored && !strings.Contains(p, "/") {
		return nil
	}
	if dir, ok := strings.CutSuffix(p, "/**"); ok && literal(dir) {
		prefix := dir + "/"
		return func(f string) bool { return strings.HasPrefix(f, prefix) }
	}
	if literal(p) {
		prefix := p + "/"
		return func(f string) bool { return f == p || strings.HasPrefix(f, prefix) }
	}
	return nil
}

// MatchAny reports whether any pattern matches path.
func MatchAny(patterns []string, path string) bool {
	for _, p := range patterns {
		if Match(p, path) {
			return true
		}
	}
	return false
}

// compile returns the pattern's regular expression (nil when unusable).
func compile(pattern string) *regexp.Regexp {
	re, err := regexp.Compile(translate(pattern))
	if err != nil {
		return nil
	}
	return re
}

// translate turns a pattern into an anchored regular expression. Whatever
// the pattern matches, the directories' contents match too ("src/api" covers
// "src/api/routes.go"), because an entry that governs a directory governs
// its files.
func translate(pattern string) string {
	p := strings.TrimPrefix(pattern, "./")
	anchored := strings.HasPrefix(p, "/")
	p = strings.TrimPrefix(p, "/")
	p = strings.TrimSuffix(p, "/")
	if !anchored && !strings.Contains(p, "/") {
		p = "**/" + p
	}
	var b strings.Builder
	b.WriteString("^")
	depth := 0 // inside {…}
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '*' && i+1 < len(p) && p[i+1] == '*':
			i++
			if i+1 < len(p) && p[i+1] == '/' {
				i++
				b.WriteString("(?:.*/)?")
			} else {
				b.WriteString(".*")
			}
		case c == '*':
			b.WriteString("[^/]*")
		case c == '?':
			b.WriteString("[^/]")
		case c == '[':
			end := strings.IndexByte(p[i+1:], ']')
			if end < 0 {
				b.WriteString(`\[`)
				continue
			}
			class := p[i+1 : i+1+end]
			if strings.HasPrefix(class, "!") {
				class = "^" + class[1:]
			}
			b.WriteString("[" + strings.ReplaceAll(class, `\`, `\\`) + "]")
			i += end + 1
		case c == '{':
			depth++
			b.WriteString("(?:")
		case c == '}' && depth > 0:
			depth--
			b.WriteString(")")
		case c == ',' && depth > 0:
			b.WriteString("|")
		case c == '\\' && i+1 < len(p):
			i++
			b.WriteString(regexp.QuoteMeta(string(p[i])))
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	for ; depth > 0; depth-- {
		b.WriteString(")")
	}
	b.WriteString("(?:/.*)?$")
	return b.String()
}
