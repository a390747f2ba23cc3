package config

import (
	"path"
	"sort"
	"strings"
)

// KindSettings is the resolved configuration of one kind of entry.
type KindSettings struct {
	Name string
	// Path is the directory of the kind's entries, relative to the
	// repository root, with slashes.
	Path      string
	Style     string // "frontmatter" or "fields"
	Numbering string // "date", "sequential" or "none"
	// Trailer is the commit trailer key ("Decision"); "" for none.
	Trailer string
	// Configured is true when Path was set explicitly (store.kinds.<kind>.path),
	// as for an existing ADR directory.
	Configured bool
}

// Kinds returns every configured kind: the built-in ones in their usual
// order, then custom kinds by name.
func (c *Config) Kinds() []KindSettings {
	if c.kinds != nil {
		return c.kinds
	}
	return c.resolveKinds()
}

func (c *Config) resolveKinds() []KindSettings {
	names := make([]string, 0, len(c.Store.Kinds))
	for n := range c.Store.Kinds {
		names = append(names, n)
	}
	rank := func(n string) int {
		for i, b := range builtinKinds {
			if b == n {
				return i
			}
		}
		return len(builtinKinds)
	}
	sort.Slice(names, func(i, j int) bool {
		ri, rj := rank(names[i]), rank(names[j])
		if ri != rj {
			return ri < rj
		}
		return names[i] < names[j]
	})
	out := make([]KindSettings, 0, len(names))
	for _, n := range names {
		k, _ := c.Kind(n)
		out = append(out, k)
	}
	return out
}

// Kind returns the resolved settings of a kind; ok is false for a kind the
// configuration does not know.
func (c *Config) Kind(name string) (KindSettings, bool) {
	k, ok := c.Store.Kinds[name]
	if !ok {
		return KindSettings{}, false
	}
	s := KindSettings{Name: name, Style: k.Style, Numbering: k.Numbering, Trailer: k.Trailer}
	if k.Path != "" {
		s.Path = cleanRel(k.Path)
		s.Configured = true
	} else {
		dir := k.Dir
		if dir == "" {
			dir = name + "s"
		}
		s.Path = cleanRel(path.Join(c.Store.Dir, dir))
	}
	if s.Style == "" {
		s.Style = c.Store.Style
	}
	if s.Numbering == "" {
		s.Numbering = "none"
	}
	return s, true
}

// StoreDir is store.dir relative to the repository root, with slashes.
func (c *Config) StoreDir() string { return cleanRel(c.Store.Dir) }

func cleanRel(p string) string {
	p = strings.ReplaceAll(strings.TrimSpace(p), `\`, "/")
	p = path.Clean("/" + p)
	return strings.TrimPrefix(p, "/")
}
