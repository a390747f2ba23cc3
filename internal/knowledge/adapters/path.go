package adapters

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// The path language of items, text, where keys and map values: a.b.c
// (keys), a[0] (an index), a[*] (every element), * (every value of an
// object or element of an array), $ or empty (the root).

type stepKind int

const (
	stepKey stepKind = iota
	stepIndex
	stepEach // [*] or *
)

type step struct {
	kind  stepKind
	key   string
	index int
}

// jsonPath is a parsed path; spread says it ends in a wildcard, so its
// matches are already the items.
type jsonPath struct {
	steps  []step
	spread bool
}

func parsePath(s string) (jsonPath, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "$" {
		return jsonPath{}, nil
	}
	s = strings.TrimPrefix(strings.TrimPrefix(s, "$"), ".")
	var p jsonPath
	for _, seg := range strings.Split(s, ".") {
		if seg == "" {
			return p, fmt.Errorf("path %q has an empty segment", s)
		}
		key := seg
		rest := ""
		if i := strings.IndexByte(seg, '['); i >= 0 {
			key, rest = seg[:i], seg[i:]
		}
		switch {
		case key == "*":
			p.steps = append(p.steps, step{kind: stepEach})
		case key != "":
			if strings.ContainsAny(key, "]|") {
				return p, fmt.Errorf("path %q: %q is not a key", s, key)
			}
			p.steps = append(p.steps, step{kind: stepKey, key: key})
		}
		for rest != "" {
			end := strings.IndexByte(rest, ']')
			if rest[0] != '[' || end < 0 {
				return p, fmt.Errorf("path %q: brackets do not match", s)
			}
			inner := rest[1:end]
			rest = rest[end+1:]
			if inner == "*" {
				p.steps = append(p.steps, step{kind: stepEach})
				continue
			}
			n, err := strconv.Atoi(inner)
			if err != nil || n < 0 {
				return p, fmt.Errorf("path %q: [%s] is not an index or [*]", s, inner)
			}
			p.steps = append(p.steps, step{kind: stepIndex, index: n})
		}
	}
	p.spread = len(p.steps) > 0 && p.steps[len(p.steps)-1].kind == stepEach
	return p, nil
}

// eval returns every value the path reaches.
func (p jsonPath) eval(root any) []any {
	cur := []any{root}
	for _, st := range p.steps {
		var next []any
		for _, v := range cur {
			switch st.kind {
			case stepKey:
				if m, ok := v.(map[string]any); ok {
					if x, ok := m[st.key]; ok {
						next = append(next, x)
					}
				}
			case stepIndex:
				if a, ok := v.([]any); ok && st.index < len(a) {
					next = append(next, a[st.index])
				}
			case stepEach:
				switch x := v.(type) {
				case []any:
					next = append(next, x...)
				case map[string]any:
					for _, k := range slices.Sorted(maps.Keys(x)) {
						next = append(next, x[k])
					}
				}
			}
		}
		cur = next
	}
	return cur
}

// first is the first value a path reaches (nil when none); a path that
// does not parse reaches nothing.
func first(root any, path string) any {
	p, err := parsePath(path)
	if err != nil {
		return nil
	}
	got := p.eval(root)
	if len(got) == 0 {
		return nil
	}
	return got[0]
}
