package bootstrap

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/kontext-dev/kontext/internal/knowledge/store"
)

// What the bootstrap clips (module descriptions in the docs' front matter,
// commit bodies in the tasks) stays valid UTF-8: CJK text has no space to
// cut at, and its characters are three bytes long.
func TestClippingKeepsCharactersWhole(t *testing.T) {
	cjk := strings.Repeat("決定", 200)
	for name, got := range map[string]string{
		"oneLine": oneLine(cjk, 200),
		"clip":    clip(cjk, 1000),
	} {
		if !utf8.ValidString(got) || !strings.HasSuffix(got, "…") || len(got) >= len(cjk) {
			t.Errorf("%s: %q", name, got)
		}
	}
	if got := oneLine("a  b\nc", 10); got != "a b c" {
		t.Errorf("oneLine = %q", got)
	}
	if got := clip("abcdef", 3); got != "abc…" {
		t.Errorf("clip = %q", got)
	}
}

func TestSortedKeys(t *testing.T) {
	if got := sortedKeys(map[string]int{"b": 2, "a": 1, "c": 0}); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Errorf("sortedKeys = %v", got)
	}
	if got := sortedKeys(map[string][]Candidate{}); len(got) != 0 {
		t.Errorf("sortedKeys of an empty map = %v", got)
	}
}

// A module's doc reads back with the module's own name, whatever YAML
// would make of it unquoted.
func TestModuleDocFrontMatterReadsBack(t *testing.T) {
	for _, name := range []string{"true", "null", "1.0", "api: v2", "- dash", "plain"} {
		doc := moduleDoc(&Scan{}, Module{ID: name, Name: name})
		e := store.Parse(".ai/architecture/modules/x.md", []byte(doc), "architecture")
		if e.Title != name || e.Get("module") != name || len(e.Paths) != 1 || e.Paths[0] != name+"/**" {
			t.Errorf("module %q read back as title %q, module %q, paths %q:\n%s", name, e.Title, e.Get("module"), e.Paths, doc)
		}
	}
}

func TestShortName(t *testing.T) {
	for name, want := range map[string]string{
		"github.com/acme/shipit/v2": "shipit", "github.com/goreleaser/goreleaser/v2": "goreleaser", "gopkg.in/yaml.v3": "yaml",
		"@acme/shop": "shop", "shop": "shop", "com.acme:billing": "billing", "example.com/tools/": "tools",
	} {
		if got := ShortName(name); got != want {
			t.Errorf("ShortName(%q) = %q, want %q", name, got, want)
		}
	}
}
