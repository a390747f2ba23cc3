package adapters

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/kontext-dev/kontext/internal/git"
	"github.com/kontext-dev/kontext/internal/gittest"
	"github.com/kontext-dev/kontext/internal/knowledge/config"
)

// decodeTOML decodes one adapter from the TOML of its table's body.
func decodeTOML(t *testing.T, name, body string) (*Definition, error) {
	t.Helper()
	// Table headers in body are relative to the adapter's table.
	var lines []string
	for _, l := range strings.Split(body, "\n") {
		if strings.HasPrefix(l, "[[") {
			l = "[[adapters." + name + "." + l[2:]
		} else if strings.HasPrefix(l, "[") {
			l = "[adapters." + name + "." + l[1:]
		}
		lines = append(lines, l)
	}
	var m map[string]map[string]map[string]any
	if _, err := toml.Decode("[adapters."+name+"]\n"+strings.Join(lines, "\n"), &m); err != nil {
		t.Fatal(err)
	}
	return Decode(name, m["adapters"][name])
}

func mustDecode(t *testing.T, name, body string) *Definition {
	t.Helper()
	d, err := decodeTOML(t, name, body)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestDecodeTheOriginalsExamples(t *testing.T) {
	d := mustDecode(t, "notes", `
driver = "http"
base_url = "http://localhost:8080"
headers = { Authorization = "Bearer ${env:NOTES_TOKEN}" }
weight = 0.5
[ops.search]
method = "GET"
path = "/search"
query = { q = "{{query}}", n = "{{limit}}" }
items = "results[*]"
map = { title = "name", snippet = "excerpt", uri = "url" }
[ops.store]
method = "PUT"
path = "/notes/{{repo.slug}}/{{id}}"
body = { title = "{{title}}", markdown = "{{markdown}}", tags = "{{tags}}" }
[[on]]
event = "sync"
op = "store"
kinds = ["decision", "convention"]
[[tools]]
name = "notes_recent"
description = "The ten most recent team notes"
params = { tag = "string", q = "string!" }
op = { method = "GET", path = "/recent", query = { tag = "{{tag}}" }, text = "items" }
`)
	if d.Driver != DriverHTTP || !d.Enabled || d.Weight != 0.5 || d.Prefix != "notes_" {
		t.Fatalf("decoded %+v", d)
	}
	if got := strings.Join(d.OpNames(), ","); got != "search,store" {
		t.Fatalf("ops %s", got)
	}
	if d.OpTimeout(OpSearch) != SearchTimeout || d.OpTimeout(OpBrief) != BriefTimeout || d.OpTimeout(OpStore) != DefaultTimeout {
		t.Fatal("default deadlines are not the original's")
	}
	if len(d.Tools) != 1 || !strings.Contains(string(d.Tools[0].Schema), `"required":["q"]`) {
		t.Fatalf("declared tool schema %s", d.Tools[0].Schema)
	}
	mcpDef := mustDecode(t, "teamdocs", `
driver = "mcp"
command = ["teamdocs-mcp", "--stdio"]
args = ["--verbose"]
expose = ["get_page"]
timeout_ms = 3000
[ops.read]
tool = "get_page"
args = { page_id = "{{uri|after:teamdocs://}}" }
owns = ["teamdocs://"]
`)
	if strings.Join(mcpDef.Command, " ") != "teamdocs-mcp --stdio --verbose" || !mcpDef.Expose.Includes("get_page") || mcpDef.Expose.Includes("x") {
		t.Fatalf("mcp %+v", mcpDef)
	}
	if mcpDef.OpTimeout(OpSearch) != 3*time.Second || !mcpDef.Owns("teamdocs://page-7") || mcpDef.Owns("other://x") {
		t.Fatal("timeout_ms or owns not applied")
	}
	if mcpDef.ToolName("get_page") != "teamdocs_get_page" || mcpDef.ToolName("teamdocs_x") != "teamdocs_x" {
		t.Fatal("exposed names")
	}
}

// Every invalid definition is an error that names the adapter and the
// field.
func TestDecodeErrorsNameAdapterAndField(t *testing.T) {
	cases := []struct{ body, want string }{
		{`command = ["x"]`, "adapters.a.driver: missing"},
		{`driver = "grpc"`, `adapters.a.driver: "grpc"`},
		{`driver = "mcp"`, "either command"},
		{`driver = "mcp"` + "\n" + `command = "x"` + "\n" + `url = "http://h"`, "either command"},
		{`driver = "mcp"` + "\n" + `url = "ftp://h"`, "adapters.a.url:"},
		{`driver = "mcp"` + "\n" + `command = ["x"]` + "\n" + `comand = 1`, `adapters.a.comand: unknown field`},
		{`driver = "mcp"` + "\n" + `command = ["x"]` + "\n" + `timeout_ms = "fast"`, "adapters.a.timeout_ms: is string, want an integer"},
		{`driver = "mcp"` + "\n" + `command = ["x"]` + "\n" + `timeout_ms = -1`, "adapters.a.timeout_ms:"},
		{`driver = "mcp"` + "\n" + `command = ["x"]` + "\n" + `weight = 99`, "adapters.a.weight:"},
		{`driver = "mcp"` + "\n" + `command = ["x"]` + "\n" + `expose = "some"`, "adapters.a.expose:"},
		{`driver = "http"` + "\n" + `base_url = "http://h"` + "\n" + `expose = "all"`, "adapters.a.expose: only an mcp adapter"},
		{`driver = "mcp"` + "\n" + `command = ["x"]` + "\n" + `prefix = "a b"`, "adapters.a.prefix:"},
		{`driver = "mcp"` + "\n" + `command = ["x"]` + "\n" + "[ops.search]\nargs = { q = 1 }", "adapters.a.ops.search.tool: missing"},
		{`driver = "mcp"` + "\n" + `command = ["x"]` + "\n" + "[ops.search]\ntool = \"s\"\nitems = \"a[\"", "adapters.a.ops.search.items:"},
		{`driver = "mcp"` + "\n" + `command = ["x"]` + "\n" + "[ops.search]\ntool = \"s\"\nmap = { heading = \"x\" }", "adapters.a.ops.search.map.heading: is not a hit field"},
		{`driver = "mcp"` + "\n" + `command = ["x"]` + "\n" + "[ops.search]\ntool = \"s\"\nmap = { title = \"re:(\" }", "adapters.a.ops.search.map.title:"},
		{`driver = "mcp"` + "\n" + `command = ["x"]` + "\n" + "[ops.search]\ntool = \"s\"\nformat = \"xml\"", "adapters.a.ops.search.format:"},
		{`driver = "mcp"` + "\n" + `command = ["x"]` + "\n" + "[ops.search]\ntool = \"{{query|shout}}\"", `unknown filter "shout"`},
		{`driver = "mcp"` + "\n" + `command = ["x"]` + "\n" + "[ops.read]\ntool = \"r\"", "adapters.a.ops.read.owns:"},
		{`driver = "http"` + "\n" + "[ops.search]\nmethod = \"GET\"", "adapters.a.ops.search.path: missing"},
		{`driver = "http"` + "\n" + `base_url = "http://h"` + "\n" + "[ops.search]\nmethod = \"BREW\"\npath = \"/\"", "adapters.a.ops.search.method:"},
		{`driver = "command"` + "\n" + "[ops.search]\nformat = \"json\"", "adapters.a.ops.search.command: missing"},
		{`driver = "command"` + "\n" + `command = ["x"]` + "\n" + `headers = { A = "b" }`, "adapters.a.headers:"},
		{`driver = "command"` + "\n" + `command = ["x"]` + "\n" + "[ops.search]\n[[on]]\nevent = \"push\"\nop = \"search\"", "adapters.a.on[0].event:"},
		{`driver = "command"` + "\n" + `command = ["x"]` + "\n" + "[ops.search]\n[[on]]\nevent = \"sync\"\nop = \"store\"", `adapters.a.on[0].op: "store" is not an op`},
		{`driver = "command"` + "\n" + `command = ["x"]` + "\n" + "[ops.search]\n[[tools]]\nname = \"ctx_search\"\nop = \"search\"", "adapters.a.tools[0].name:"},
		{`driver = "command"` + "\n" + `command = ["x"]` + "\n" + "[ops.search]\n[[tools]]\nname = \"t\"\nop = \"search\"\nparams = { n = \"int\" }", "adapters.a.tools[0].params:"},
		{`driver = "command"` + "\n" + `command = ["x"]` + "\n" + "[[tools]]\nname = \"t\"", "adapters.a.tools[0].op: missing"},
		{`driver = "command"` + "\n" + `command = ["x"]` + "\n" + `when = { repo = "(" }`, "adapters.a.when.repo:"},
		{`driver = "mcp"` + "\n" + `url = "http://h/mcp"` + "\n" + `env = { A = "b" }`, "cwd and env apply"},
	}
	for _, c := range cases {
		_, err := decodeTOML(t, "a", c.body)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s\n  error %v\n  want it to contain %q", c.body, err, c.want)
		}
	}
	if _, err := Decode("local", map[string]any{"driver": "mcp", "command": "x"}); err == nil {
		t.Error(`an adapter may be called "local"`)
	}
	if _, err := Decode("a b", map[string]any{"driver": "mcp", "command": "x"}); err == nil {
		t.Error("an adapter name may hold a space")
	}
}

func TestHashPinsTheDefinition(t *testing.T) {
	a := mustDecode(t, "a", "driver = \"command\"\ncommand = [\"x\"]\n[ops.search]\nformat = \"json\"")
	b := mustDecode(t, "a", "driver = \"command\"\ncommand = [\"x\"]\n[ops.search]\nformat = \"json\"")
	c := mustDecode(t, "a", "driver = \"command\"\ncommand = [\"y\"]\n[ops.search]\nformat = \"json\"")
	if a.Hash() != b.Hash() || a.Hash() == c.Hash() || !strings.HasPrefix(a.Hash(), "sha256:") || len(a.Hash()) != len("sha256:")+64 {
		t.Fatalf("hashes %s %s %s", a.Hash(), b.Hash(), c.Hash())
	}
}

// An adapter any of whose settings comes from the repository's shared file
// is a team adapter; one from the user's file is not. An error names the
// file.
func TestFromConfigKnowsTheLayers(t *testing.T) {
	dir := t.TempDir()
	gittest.Init(t, dir)
	home := t.TempDir()
	gittest.WriteFile(t, dir, ".kontext.toml", "[adapters.team]\ndriver = \"command\"\ncommand = [\"x\"]\n[adapters.mixed]\nweight = 0.3\n")
	if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte("[adapters.mine]\ndriver = \"command\"\ncommand = [\"y\"]\n[adapters.mixed]\ndriver = \"command\"\ncommand = [\"z\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := func(k string) string {
		if k == "KONTEXT_CONFIG_DIR" {
			return home
		}
		return ""
	}
	repo, err := git.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	cfg, err := config.Load(context.Background(), repo, config.Options{Getenv: env, SkipIdentity: true})
	if err != nil {
		t.Fatal(err)
	}
	defs, err := FromConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	team := map[string]bool{}
	for _, d := range defs {
		team[d.Name] = d.Team
	}
	if !team["team"] || !team["mixed"] || team["mine"] || len(team) != 3 {
		t.Fatalf("team = %v", team)
	}

	gittest.WriteFile(t, dir, ".kontext.toml", "[adapters.bad]\ndriver = \"command\"\ncommand = [\"x\"]\ntimeout_ms = 0\n")
	cfg, err = config.Load(context.Background(), repo, config.Options{Getenv: env, SkipIdentity: true})
	if err != nil {
		t.Fatal(err)
	}
	_, err = FromConfig(cfg)
	if err == nil || !strings.Contains(err.Error(), ".kontext.toml:4: adapters.bad.timeout_ms") {
		t.Fatalf("err = %v, want it to name .kontext.toml:4 and the field", err)
	}
}
