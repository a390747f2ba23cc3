package tools

import (
	"fmt"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/kontext-dev/kontext/internal/repo/model"
	"github.com/kontext-dev/kontext/internal/typo"
)

// cleanPath normalises a path an agent gives: slashes, no "./" or trailing
// slash; "" and "/" are the root.
func cleanPath(p string) string {
	p = strings.TrimSpace(strings.ReplaceAll(p, "\\", "/"))
	for strings.HasPrefix(p, "./") {
		p = p[2:]
	}
	p = strings.TrimRight(p, "/")
	if p == "" {
		return "."
	}
	return path.Clean(p)
}

// clean is cleanPath for a target of this analysis: an absolute path
// inside the analysed root (agents often pass one) becomes relative to it.
func (d *derived) clean(p string) string {
	p = strings.TrimSpace(p)
	if filepath.IsAbs(p) && d.snap.Root != "" {
		if rel, err := filepath.Rel(d.snap.Root, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			p = filepath.ToSlash(rel)
		}
	}
	return cleanPath(p)
}

// resolveModule finds the module a target names: a module id, a module's
// (package) name, a file of the module, or a directory inside it.
func (d *derived) resolveModule(target string) (*model.Module, error) {
	if m := d.byName[strings.TrimSpace(target)]; m != nil {
		if _, isPath := d.modules[d.clean(target)]; !isPath {
			return m, nil
		}
	}
	t := d.clean(target)
	if m := d.modules[t]; m != nil {
		return m, nil
	}
	if f := d.files[t]; f != nil {
		if m := d.modules[d.moduleOf(t)]; m != nil {
			return m, nil
		}
	}
	if d.isDir(t) {
		if m := d.modules[d.moduleOf(t+"/.")]; m != nil {
			return m, nil
		}
	}
	return nil, d.unknown(target)
}

// unknownTargetError is the tool error for a target the graph does not
// have: it names the target and suggests what exists, so the agent can
// retry instead of guessing.
type unknownTargetError struct {
	target      string
	suggestions []string
}

func (e *unknownTargetError) Error() string {
	msg := fmt.Sprintf("%q is no module, directory or file of this repository", e.target)
	if len(e.suggestions) > 0 {
		msg += "; did you mean " + strings.Join(e.suggestions, ", ") + "?"
	}
	return msg + " (get_architecture lists every module; search_context finds files and symbols)"
}

// maxSuggestions bounds the names an unknown-target error offers.
const maxSuggestions = 5

func (d *derived) unknown(target string) error {
	return &unknownTargetError{target: target, suggestions: d.suggest(target)}
}

// suggest ranks the modules and files closest to target: those with the
// same last element, then those a typo or two away, then those containing
// the target or contained in it.
func (d *derived) suggest(target string) []string {
	t := strings.ToLower(cleanPath(target))
	base := path.Base(t)
	near := max(2, len(t)/4)
	type cand struct {
		name  string
		class int
		dist  int
	}
	var cands []cand
	consider := func(name string, isFile bool) {
		n := strings.ToLower(name)
		if abs(len(n)-len(t)) > near && path.Base(n) != base && (isFile || !strings.Contains(n, t) && !strings.Contains(t, n)) {
			return // too far apart to be a typo, and no other likeness
		}
		c := cand{name: name, class: 3, dist: typo.Distance(t, n)}
		switch {
		case path.Base(n) == base:
			c.class = 0
		case c.dist <= near:
			c.class = 1
		case !isFile && n != "." && (strings.Contains(n, t) || strings.Contains(t, n)):
			c.class = 2
		}
		if c.class < 3 {
			cands = append(cands, c)
		}
	}
	for i := range d.g.Modules {
		consider(d.g.Modules[i].ID, false)
		if name := d.g.Modules[i].Name; name != "" && name != d.g.Modules[i].ID {
			consider(name, false)
		}
	}
	for _, p := range d.paths {
		consider(p, true)
	}
	sort.Slice(cands, func(i, j int) bool {
		if cands[i].class != cands[j].class {
			return cands[i].class < cands[j].class
		}
		if cands[i].dist != cands[j].dist {
			return cands[i].dist < cands[j].dist
		}
		return cands[i].name < cands[j].name
	})
	var out []string
	seen := map[string]bool{}
	for _, c := range cands {
		if !seen[c.name] && len(out) < maxSuggestions {
			seen[c.name] = true
			out = append(out, c.name)
		}
	}
	if len(out) == 0 { // nothing alike: the central modules are a start
		for _, m := range d.rankedModules() {
			if len(out) == maxSuggestions {
				break
			}
			out = append(out, m.ID)
		}
	}
	return out
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
