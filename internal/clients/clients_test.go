package clients

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/goccy/go-yaml"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// golden compares got with testdata/<name>.golden byte for byte. A missing
// golden file fails: a preset nobody has looked at is not tested.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/clients -update to create it, then review it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from %s (rerun with -update if the change is intended)\ngot:\n%s\nwant:\n%s", name, path, got, want)
	}
}

func TestPresetsMatchGolden(t *testing.T) {
	for _, c := range All() {
		t.Run(c.ID, func(t *testing.T) {
			out, err := c.Render(DefaultCommand, DefaultArgs())
			if err != nil {
				t.Fatal(err)
			}
			golden(t, c.ID, out)
		})
	}
}

func TestAllMatchesGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteAll(&buf, DefaultCommand, DefaultArgs()); err != nil {
		t.Fatal(err)
	}
	golden(t, "all", buf.Bytes())
}

func TestAllWithCustomCommandMatchesGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteAll(&buf, "node", []string{"/x/bin.js"}); err != nil {
		t.Fatal(err)
	}
	golden(t, "all-command-node", buf.Bytes())
}

func TestListMatchesGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteList(&buf); err != nil {
		t.Fatal(err)
	}
	golden(t, "list", buf.Bytes())
}

func TestEveryGoldenFileHasAPreset(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.golden"))
	if err != nil {
		t.Fatal(err)
	}
	known := append(IDs(), "all", "all-command-node", "list")
	for _, f := range files {
		name := filepath.Base(f)
		name = name[:len(name)-len(".golden")]
		if !slices.Contains(known, name) {
			t.Errorf("%s belongs to no preset or test: delete it", f)
		}
	}
}

// Awkward commands and arguments must survive the trip through each
// client's format: a Windows path, quotes, HTML characters, and strings
// YAML would otherwise read as booleans, numbers, null or comments.
var awkward = Server{
	Command: `C:\Program Files\kontext\kontext.exe`,
	Args:    []string{"mcp", "--root", `/a "b" & <c>`, "", "yes", "1", "~", "#x", "a: b", "-"},
}

func TestJSONPresetsCarryCommandAndArgsExactly(t *testing.T) {
	for _, c := range All() {
		if c.Format != JSON {
			continue
		}
		t.Run(c.ID, func(t *testing.T) {
			out, err := c.Render(awkward.Command, awkward.Args)
			if err != nil {
				t.Fatal(err)
			}
			var servers map[string]struct {
				Command string   `json:"command"`
				Args    []string `json:"args"`
			}
			if err := json.Unmarshal(out, &servers); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			if len(servers) != 1 {
				t.Fatalf("want only the %q entry, got %s", ServerName, out)
			}
			got := servers[ServerName]
			if got.Command != awkward.Command || !reflect.DeepEqual(got.Args, awkward.Args) {
				t.Errorf("got %+v, want %+v", got, awkward)
			}
			if bytes.Contains(out, []byte(`\u0026`)) {
				t.Errorf("HTML-escaped output is needlessly hard to read:\n%s", out)
			}
		})
	}
}

func TestContinuePresetCarriesCommandAndArgsExactly(t *testing.T) {
	c, _ := Lookup("continue")
	out, err := c.Render(awkward.Command, awkward.Args)
	if err != nil {
		t.Fatal(err)
	}
	var list []continueServer
	if err := yaml.Unmarshal(out, &list); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	want := []continueServer{{Name: ServerName, Command: awkward.Command, Args: awkward.Args}}
	if !reflect.DeepEqual(list, want) {
		t.Errorf("got %+v, want %+v\n%s", list, want, out)
	}
}

func TestEmptyArgsAreAListNotNull(t *testing.T) {
	for _, c := range All() {
		out, err := c.Render("kontext", nil)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(out, []byte("null")) {
			t.Errorf("%s: args must be an empty list, got:\n%s", c.ID, out)
		}
	}
}

func TestLookup(t *testing.T) {
	for _, id := range IDs() {
		c, ok := Lookup(id)
		if !ok || c.ID != id {
			t.Errorf("Lookup(%q) = %+v, %v", id, c, ok)
		}
	}
	if _, ok := Lookup("vim"); ok {
		t.Error("Lookup found a client that has no preset")
	}
	for _, want := range []string{"claude-code", "cursor", "cline", "continue"} {
		if !slices.Contains(IDs(), want) {
			t.Errorf("no preset for %s", want)
		}
	}
}
