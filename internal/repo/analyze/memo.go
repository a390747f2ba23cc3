package analyze

import (
	"strings"
	"sync"

	"github.com/kontext-dev/kontext/internal/lazyregexp"
)

// memo remembers a pure function of a string. The heuristics apply the
// same regexps to the same names (paths, stems, module names, build
// constraints) on every re-analysis of a tree; remembering the verdicts is
// what lets an engine re-run the whole-graph steps after each edit of a
// 10,000-file repository in milliseconds. The size bound keeps a
// long-running server from growing with every name it ever saw.
type memo[V any] struct {
	mu sync.RWMutex
	m  map[string]V
}

const memoMax = 1 << 17

func (c *memo[V]) get(key string, compute func(string) V) V {
	return c.getMax(key, memoMax, compute)
}

// getMax is get with another bound, for memos keyed by whole file contents.
func (c *memo[V]) getMax(key string, limit int, compute func(string) V) V {
	c.mu.RLock()
	v, ok := c.m[key]
	c.mu.RUnlock()
	if ok {
		return v
	}
	v = compute(key)
	c.mu.Lock()
	if c.m == nil || len(c.m) >= limit {
		c.m = make(map[string]V)
	}
	c.m[key] = v
	c.mu.Unlock()
	return v
}

var notDocsMemo, ignoreTagMemo memo[bool]

// packageJSONMemo holds parsed package.json files by content: a monorepo
// re-parsing hundreds of them after every edit is the cost it saves.
var packageJSONMemo contentMemo[*packageJSONFile]

// contentMemo is a memo keyed by file contents, bounded more tightly.
type contentMemo[V any] struct{ m memo[V] }

const contentMemoMax = 4096

func (c *contentMemo[V]) get(content string, compute func(string) V) V {
	return c.m.getMax(content, contentMemoMax, compute)
}

// notDocs reports a path under a directory whose content is not the
// project's own documentation (reNotDocs).
func notDocs(p string) bool {
	return notDocsMemo.get(p, func(p string) bool {
		// Most paths contain none of the directory names; a
		// case-insensitive substring test rules them out without the regexp.
		lp := strings.ToLower(p)
		if !strings.Contains(lp, "testdata/") && !strings.Contains(lp, "fixtures") && !strings.Contains(lp, "node_modules/") &&
			!strings.Contains(lp, "vendor/") && !strings.Contains(lp, "third_party/") {
			return false
		}
		return reNotDocs.MatchString(p)
	})
}

// nameMatch is the first match of a name rule in a module's name corpus.
type nameMatch struct {
	rule int
	word string
}

var nameRulesMemo memo[[]nameMatch]

// nameRuleMatches applies every name rule to a module's corpus.
func nameRuleMatches(corpus string) []nameMatch {
	return nameRulesMemo.get(corpus, func(corpus string) []nameMatch {
		var out []nameMatch
		for i, r := range nameRules {
			if loc := r.Re.FindStringSubmatch(corpus); loc != nil {
				out = append(out, nameMatch{rule: i, word: loc[2]})
			}
		}
		return out
	})
}

var fileRolesMemo memo[uint64]

// fileRoleMask says which fileRoleRules a file stem matches, one bit each.
func fileRoleMask(stem string) uint64 {
	return fileRolesMemo.get(stem, func(stem string) uint64 {
		var mask uint64
		for i, r := range fileRoleRules {
			if r.Re.MatchString(stem) {
				mask |= 1 << i
			}
		}
		return mask
	})
}

var classifyMemo memo[idCase]

// testRunnerMemo is the test-runner import prefix a spec matches, by
// family and spec.
var testRunnerMemo memo[string]

func matchMemo(c *memo[bool], re *lazyregexp.Regexp, s string) bool {
	return c.get(s, re.MatchString)
}
