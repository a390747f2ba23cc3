package scan

import (
	"bufio"
	"bytes"
	"path"
	"path/filepath"
	"strings"

	"github.com/kontext-dev/kontext/internal/fsroot"
)

// ignorer applies .gitignore files the way git does for a tree that is
// not a work tree: each directory's .gitignore governs the paths below it,
// the last matching pattern wins, and a negation cannot re-include a path
// whose directory is excluded (the walk never enters that directory).
type ignorer struct {
	root   string
	loaded map[string][]ignoreRule // by directory ("" for the root)
}

type ignoreRule struct {
	base    string // the directory of the .gitignore ("" for the root)
	negate  bool
	dirOnly bool
	// anchored patterns match the path relative to base; the others match
	// the last path element at any depth.
	anchored bool
	segs     []string // the pattern split at "/"
}

func newIgnorer(root string) *ignorer {
	return &ignorer{root: root, loaded: map[string][]ignoreRule{}}
}

// enter loads dir's .gitignore, once.
func (ig *ignorer) enter(dir string) {
	if _, ok := ig.loaded[dir]; ok {
		return
	}
	data, err := fsroot.Read(nil, filepath.Join(ig.root, filepath.FromSlash(dir), ".gitignore"), maxIgnoreFile)
	if err != nil {
		ig.loaded[dir] = nil
		return
	}
	ig.loaded[dir] = parseIgnore(dir, data)
}

const maxIgnoreFile = 1 << 20

func parseIgnore(base string, data []byte) []ignoreRule {
	var rules []ignoreRule
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), maxIgnoreFile)
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		// Trailing spaces are ignored unless escaped.
		for strings.HasSuffix(line, " ") && !strings.HasSuffix(line, "\\ ") {
			line = line[:len(line)-1]
		}
		if line == "" || line[0] == '#' {
			continue
		}
		r := ignoreRule{base: base}
		if line[0] == '!' {
			r.negate = true
			line = line[1:]
		} else if strings.HasPrefix(line, "\\!") || strings.HasPrefix(line, "\\#") {
			line = line[1:]
		}
		if strings.HasSuffix(line, "/") {
			r.dirOnly = true
			line = strings.TrimRight(line, "/")
		}
		if line == "" {
			continue
		}
		if strings.Contains(line, "/") {
			r.anchored = true
			line = strings.TrimPrefix(line, "/")
		}
		for _, s := range strings.Split(line, "/") {
			// Consecutive "**" mean one; collapsing them keeps matching
			// from exploding on a hostile pattern.
			if s == "**" && len(r.segs) > 0 && r.segs[len(r.segs)-1] == "**" {
				continue
			}
			// gitignore's negated class is [!…]; path.Match spells it [^…].
			r.segs = append(r.segs, strings.ReplaceAll(s, "[!", "[^"))
		}
		rules = append(rules, r)
	}
	return rules
}

// ignored reports whether p (relative to the root) is ignored, given that
// its ancestors were entered and are not ignored themselves.
func (ig *ignorer) ignored(p string, isDir bool) bool {
	verdict := false
	// Rules of shallower .gitignore files first, deeper ones override.
	dir := dirOf(p)
	var chain []string
	for d := dir; ; d = dirOf(d) {
		chain = append(chain, d)
		if d == "" {
			break
		}
	}
	for i := len(chain) - 1; i >= 0; i-- {
		rules := ig.loaded[chain[i]]
		for j := range rules {
			if rules[j].match(p, isDir) {
				verdict = !rules[j].negate
			}
		}
	}
	return verdict
}

// ignoredPath reports whether p (a directory when isDir) or any of its
// directories is ignored, loading the .gitignore files on the way (for a
// path not seen by a walk).
func (ig *ignorer) ignoredPath(p string, isDir bool) bool {
	parts := strings.Split(p, "/")
	d := ""
	for i, part := range parts {
		ig.enter(d)
		q := part
		if d != "" {
			q = d + "/" + part
		}
		dir := isDir || i < len(parts)-1
		if dir && alwaysSkipped[part] || ig.ignored(q, dir) {
			return true
		}
		d = q
	}
	return false
}

func (r *ignoreRule) match(p string, isDir bool) bool {
	if r.dirOnly && !isDir {
		return false
	}
	rel := p
	if r.base != "" {
		if !strings.HasPrefix(p, r.base+"/") {
			return false
		}
		rel = p[len(r.base)+1:]
	}
	if !r.anchored {
		name := rel
		if i := strings.LastIndexByte(rel, '/'); i >= 0 {
			name = rel[i+1:]
		}
		ok, _ := path.Match(r.segs[0], name)
		return ok
	}
	return matchSegs(r.segs, strings.Split(rel, "/"))
}

// matchSegs matches path segments against pattern segments, where "**"
// stands for any number of segments. It is a dynamic programme over
// (pattern, path) positions, so no pattern makes it exponential.
func matchSegs(pat, segs []string) bool {
	// next[j] is whether pat[i+1:] matches segs[j:]; cur is for pat[i:].
	next := make([]bool, len(segs)+1)
	cur := make([]bool, len(segs)+1)
	next[len(segs)] = true // the empty pattern matches the empty path
	for i := len(pat) - 1; i >= 0; i-- {
		for j := len(segs); j >= 0; j-- {
			switch {
			case pat[i] == "**":
				// Zero segments, or one more and stay on "**".
				cur[j] = next[j] || j < len(segs) && cur[j+1]
			case j == len(segs):
				cur[j] = false
			default:
				ok, _ := path.Match(pat[i], segs[j])
				cur[j] = ok && next[j+1]
			}
		}
		next, cur = cur, next
	}
	return next[0]
}
