package config

import (
	"strings"
	"testing"
)

// FuzzLayer: any bytes in a configuration file are a configuration or an
// error naming the file, never a panic; a configuration that loads
// explains itself, resolves its kinds inside the repository, and every
// line its provenance names is a line of the file.
func FuzzLayer(f *testing.F) {
	for _, s := range []string{
		defaultsTOML,
		"[brief]\nbudget_tokens = 2000\nmax_modules = 20\n\n[sources]\ninclude = [\"docs/**/*.md\"]\n",
		"[store]\ndir = \"knowledge\"\n[store.kinds.decision]\npath = \"docs/adr\"\nnumbering = \"sequential\"\nstyle = \"fields\"\n",
		"[secrets]\nallow = [\"(unclosed\"]\n",
		"brief.stale_after_commits = 3\n\"quoted.key\" = 'x'\ntext = \"\"\"\nmulti\n[not a table]\n\"\"\"\n",
		"[[store.kinds]]\n",
		"store = 1\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := parseLayer(LayerRepository, ".ai/kontext.toml", data)
		if err != nil {
			if !strings.Contains(err.Error(), ".ai/kontext.toml") {
				t.Fatalf("the error does not name the file: %v", err)
			}
			return
		}
		lines := strings.Count(string(data), "\n") + 1
		for key, n := range l.lines {
			if n < 1 || n > lines {
				t.Fatalf("key %q at line %d of a %d-line file", key, n, lines)
			}
		}
		// build merges into the defaults' maps: give it its own copy.
		base := defaultsLayer()
		c, err := build([]layerData{base, l}, []LayerFile{{Layer: LayerRepository, Path: ".ai/kontext.toml", Loaded: true}})
		if err != nil {
			return
		}
		_ = c.Explain()
		for _, k := range c.Kinds() {
			if strings.Contains(k.Path, "..") || strings.HasPrefix(k.Path, "/") {
				t.Fatalf("kind %s resolves outside the repository: %q", k.Name, k.Path)
			}
		}
		if strings.Contains(c.StoreDir(), "..") {
			t.Fatalf("store dir %q", c.StoreDir())
		}
	})
}
