package clients

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// crowdedInput is the lived-in file each client's merge is tried on, in
// the client's own style: comments, trailing commas, other servers and
// settings, an old kontext entry where the format allows one.
func crowdedInput(t *testing.T, c Client, scope Scope) []byte {
	t.Helper()
	name := map[string]string{
		"vscode": "vscode.jsonc", "zed": "zed.jsonc", "gemini": "gemini.jsonc", "opencode": "opencode.jsonc",
		"codex": "codex.toml", "goose": "goose.yaml", "continue": "continue.yaml",
	}[c.ID]
	if c.ID == "continue" && scope == Project {
		name = "continue-project.yaml"
	}
	if name == "" {
		name = "mcpServers.json"
	}
	data, err := os.ReadFile(filepath.Join("testdata", "input", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// Every writable client, in every scope, merged into a crowded file of its
// format: the result is reviewed once as a golden file, merging again
// changes nothing, and every comment of the input outside the replaced
// entry is still there.
func TestMergeIntoCrowdedFilesMatchesGolden(t *testing.T) {
	for _, c := range All() {
		if !c.Writable() {
			continue
		}
		for _, scope := range c.Scopes() {
			t.Run(c.ID+"/"+string(scope), func(t *testing.T) {
				input := crowdedInput(t, c, scope)
				s := defaultSpec(c, scope)
				merged, err := c.Merge(input, s)
				if err != nil {
					t.Fatal(err)
				}
				golden(t, c.ID+"/"+string(scope)+"-merged", merged)
				again, err := c.Merge(merged, s)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(again, merged) {
					t.Errorf("merging twice differs from merging once:\n%s\nthen\n%s", merged, again)
				}
				for _, line := range strings.Split(string(input), "\n") {
					comment := commentOf(line, c.Format)
					if comment == "" || strings.Contains(comment, "old entry") || strings.Contains(comment, "to be replaced") {
						continue
					}
					if !strings.Contains(string(merged), comment) {
						t.Errorf("the comment %q went missing:\n%s", comment, merged)
					}
				}
			})
		}
	}
}

// commentOf returns the comment on a line of the format, roughly: enough
// to find the fixtures' comments again.
func commentOf(line string, f Format) string {
	marks := []string{"//", "/*"}
	if f == YAML || f == TOML {
		marks = []string{"# "}
	}
	for _, m := range marks {
		if i := strings.Index(line, m); i >= 0 && !strings.Contains(line[:i], "http") {
			return strings.TrimSpace(line[i:])
		}
	}
	return ""
}

func jsoncMergeOf(t *testing.T, id, existing string) (string, error) {
	t.Helper()
	c, _ := Lookup(id)
	out, err := c.Merge([]byte(existing), plain("kontext", "mcp"))
	return string(out), err
}

func TestJSONCMergeEditsInPlace(t *testing.T) {
	const entry = `{
    "source": "custom",
    "command": "kontext",
    "args": [
      "mcp"
    ],
    "env": {}
  }`
	for _, tc := range []struct{ name, existing, want string }{
		{"empty object", "{}\n", "{\n  \"context_servers\": {\n    \"kontext\": " + strings.ReplaceAll(entry, "\n", "\n  ") + "\n  }\n}\n"},
		{"one-line object", `{"theme": "One Dark"}`, `{"theme": "One Dark", "context_servers": {"kontext":{"source":"custom","command":"kontext","args":["mcp"],"env":{}}}}`},
		{
			"trailing comma and comment after the last member",
			"{\n  \"theme\": \"One Dark\", // mine\n}\n",
			"{\n  \"theme\": \"One Dark\", // mine\n  \"context_servers\": {\n    \"kontext\": " + strings.ReplaceAll(entry, "\n", "\n  ") + "\n  },\n}\n",
		},
		{
			"no trailing comma, comment after the last member",
			"{\n  \"theme\": \"One Dark\" // mine\n}\n",
			"{\n  \"theme\": \"One Dark\", // mine\n  \"context_servers\": {\n    \"kontext\": " + strings.ReplaceAll(entry, "\n", "\n  ") + "\n  }\n}\n",
		},
		{
			"servers null",
			"{\n  \"context_servers\": null\n}\n",
			"{\n  \"context_servers\": {\n    \"kontext\": " + strings.ReplaceAll(entry, "\n", "\n  ") + "\n  }\n}\n",
		},
		{
			"empty servers with a comment inside",
			"{\n  \"context_servers\": {\n    // none yet\n  }\n}\n",
			"{\n  \"context_servers\": {\n    // none yet\n    \"kontext\": " + strings.ReplaceAll(entry, "\n", "\n  ") + "\n  }\n}\n",
		},
		{
			"old entry replaced, its comment lost, the neighbours' kept",
			"{\n  \"context_servers\": {\n    \"a\": {}, // before\n    \"kontext\": {\n      // old\n      \"command\": \"x\"\n    }, // after\n    \"b\": {}\n  }\n}\n",
			"{\n  \"context_servers\": {\n    \"a\": {}, // before\n    \"kontext\": " + strings.ReplaceAll(entry, "\n", "\n  ") + ", // after\n    \"b\": {}\n  }\n}\n",
		},
		{
			"duplicate entries: the later one dropped",
			"{\"context_servers\": {\"kontext\": {}, \"b\": {}, \"kontext\": {\"command\": \"old\"}}}",
			`{"context_servers": {"kontext": {"source":"custom","command":"kontext","args":["mcp"],"env":{}}, "b": {}}}`,
		},
		{"comments only", "// my settings\n", "// my settings\n{\n  \"context_servers\": {\n    \"kontext\": " + strings.ReplaceAll(entry, "\n", "\n  ") + "\n  }\n}\n"},
		{"BOM and tabs", "\xef\xbb\xbf{\n\t\"a\": 1\n}", "\xef\xbb\xbf{\n\t\"a\": 1,\n\t\"context_servers\": {\n\t\t\"kontext\": {\n\t\t\t\"source\": \"custom\",\n\t\t\t\"command\": \"kontext\",\n\t\t\t\"args\": [\n\t\t\t\t\"mcp\"\n\t\t\t],\n\t\t\t\"env\": {}\n\t\t}\n\t}\n}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := jsoncMergeOf(t, "zed", tc.existing)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
			again, err := jsoncMergeOf(t, "zed", got)
			if err != nil || again != got {
				t.Errorf("merging twice: %v\n%s", err, again)
			}
		})
	}
}

func TestJSONCMergeRefusesWhatItCannotMergeSafely(t *testing.T) {
	for _, tc := range []struct{ name, existing, wantErr string }{
		{"missing comma", "{\n  // c\n  \"a\": 1\n  \"b\": 2\n}", "not valid JSON at line 4, column 3"},
		{"truncated", "{\"context_servers\": {", "not valid JSON: it ends before the object does"},
		{"array", "[1] // x", "the top level is an array, not a JSON object"},
		{"servers array", `{"context_servers": []}`, "context_servers is an array, not an object"},
		{"servers twice", `{"context_servers": {}, "context_servers": {}}`, `the file has "context_servers" 2 times`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := jsoncMergeOf(t, "zed", tc.existing)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), "left") || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %v: want one line containing %q and saying the file was left alone", err, tc.wantErr)
			}
		})
	}
}

func codexMergeOf(t *testing.T, existing string, s Spec) (string, error) {
	t.Helper()
	c, _ := Lookup("codex")
	out, err := c.Merge([]byte(existing), s)
	return string(out), err
}

func TestCodexMergeEditsTheTableOnly(t *testing.T) {
	const table = "[mcp_servers.kontext]\ncommand = \"kontext\"\nargs = [\"mcp\"]\n"
	for _, tc := range []struct{ name, existing, want string }{
		{"no servers yet", "model = \"o3\" # fast\n", "model = \"o3\" # fast\n\n" + table},
		{"no final newline", "model = \"o3\"", "model = \"o3\"\n\n" + table},
		{"after other servers", "[mcp_servers.a]\ncommand = \"a\"\n", "[mcp_servers.a]\ncommand = \"a\"\n\n" + table},
		{
			"after the other servers, before the next table and its comment",
			"[mcp_servers.a]\ncommand = \"a\"\n\n# the sandbox\n[sandbox]\nx = 1\n[mcp_servers.b]\ncommand = \"b\"\n\n[z]\n",
			"[mcp_servers.a]\ncommand = \"a\"\n\n# the sandbox\n[sandbox]\nx = 1\n[mcp_servers.b]\ncommand = \"b\"\n\n" + table + "\n[z]\n",
		},
		{"servers as a parent table", "[mcp_servers]\n\n[mcp_servers.a]\ncommand = \"a\"\n", "[mcp_servers]\n\n[mcp_servers.a]\ncommand = \"a\"\n\n" + table},
		{
			"replaced with its sub-table, the next table's comment kept",
			"[mcp_servers.kontext]\ncommand = \"old\"\n[mcp_servers.kontext.env]\nA = \"1\"\n\n# next\n[other]\nx = 1\n",
			table + "\n# next\n[other]\nx = 1\n",
		},
		{"quoted header", "[mcp_servers.\"kontext\"]\ncommand = \"old\"\n", table},
		{"spaced header", "[ mcp_servers . kontext ] # mine\ncommand = \"old\"\n", table},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := codexMergeOf(t, tc.existing, plain("kontext", "mcp"))
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
			if again, err := codexMergeOf(t, got, plain("kontext", "mcp")); err != nil || again != got {
				t.Errorf("merging twice: %v\n%s", err, again)
			}
		})
	}
}

func TestCodexMergeRefusesWhatItCannotMergeSafely(t *testing.T) {
	for _, tc := range []struct{ name, existing, wantErr string }{
		{"invalid", "model = \nx = 1\n", "not valid TOML at line 1"},
		{"inline entry", "[mcp_servers]\nkontext = { command = \"old\" }\n", "mcp_servers.kontext is written as an inline table or dotted keys"},
		{"dotted keys", "mcp_servers.kontext.command = \"old\"\n", "written as an inline table or dotted keys"},
		{"inline servers", "mcp_servers = { a = { command = \"a\" } }\n", "mcp_servers is written as one inline value"},
		{"servers not a table", "mcp_servers = 1\n", "mcp_servers is written as one inline value"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := codexMergeOf(t, tc.existing, plain("kontext", "mcp"))
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), "left") || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %v: want one line containing %q and saying the file was left alone", err, tc.wantErr)
			}
		})
	}
}

// A line inside a multi-line string or array that looks like a header is
// not one: the table after it is still found and replaced.
func TestScanTOMLIgnoresHeadersInsideValues(t *testing.T) {
	data := "a = \"\"\"\n[mcp_servers.kontext]\n\"\"\"\nb = '''\n[x]'''\nc = [\n  [1],\n  \"]\",\n]\n[mcp_servers.kontext]\nd = 1\n"
	var headers []string
	for _, l := range scanTOML([]byte(data)) {
		if l.header {
			headers = append(headers, strings.Join(l.key, "."))
		}
	}
	if len(headers) != 1 || headers[0] != "mcp_servers.kontext" {
		t.Errorf("headers %q, want only the last line's", headers)
	}
}

func gooseMergeOf(t *testing.T, existing string) (string, error) {
	t.Helper()
	c, _ := Lookup("goose")
	out, err := c.Merge([]byte(existing), plain("kontext", "mcp"))
	return string(out), err
}

func TestGooseMerge(t *testing.T) {
	const ext = "  kontext:\n    type: stdio\n    name: kontext\n    enabled: true\n    cmd: kontext\n    args:\n      - mcp\n    env_keys: []\n    envs: {}\n    timeout: 300\n"
	for _, tc := range []struct{ name, existing, want string }{
		{"new", "", "extensions:\n" + ext},
		{"no extensions", "GOOSE_MODE: auto # mine\n", "GOOSE_MODE: auto # mine\nextensions:\n" + ext},
		{"null extensions", "extensions:\nGOOSE_MODE: auto\n", "extensions:\n" + ext + "GOOSE_MODE: auto\n"},
		{"appended", "extensions:\n  developer:\n    type: builtin\n    name: developer\n    enabled: true\n", "extensions:\n  developer:\n    type: builtin\n    name: developer\n    enabled: true\n" + ext},
		{"replaced", "extensions:\n  kontext:\n    type: stdio\n    cmd: old\nx: 1\n", "extensions:\n" + ext + "x: 1\n"},
		{"flow mapping", "extensions: {developer: {type: builtin, name: developer}}\n", "extensions:\n  developer:\n    type: builtin\n    name: developer\n" + ext},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := gooseMergeOf(t, tc.existing)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
			if again, err := gooseMergeOf(t, got); err != nil || again != got {
				t.Errorf("merging twice: %v\n%s", err, again)
			}
		})
	}
	for _, bad := range []struct{ existing, wantErr string }{
		{"extensions: [a]\n", "extensions is a YAML list, not a mapping"},
		{"- a\n", "the top level is a YAML list"},
		{"a: [\n", "not valid YAML"},
	} {
		if _, err := gooseMergeOf(t, bad.existing); err == nil || !strings.Contains(err.Error(), bad.wantErr) {
			t.Errorf("%q: error %v, want %q", bad.existing, err, bad.wantErr)
		}
	}
}

func TestContinueProjectBlockFile(t *testing.T) {
	c, _ := Lookup("continue")
	s := Spec{Name: "shop-ctx", Command: "kontext", Args: []string{"mcp"}, Scope: Project}
	created, err := c.Merge(nil, s)
	if err != nil {
		t.Fatal(err)
	}
	want := "name: shop-ctx\nversion: 0.0.1\nschema: v1\nmcpServers:\n  - name: shop-ctx\n    command: kontext\n    args:\n      - mcp\n"
	if string(created) != want {
		t.Errorf("got\n%s\nwant\n%s", created, want)
	}
	p, err := c.PathFor(s, "/repo", testEnv)
	if err != nil || p != filepath.FromSlash("/repo/.continue/mcpServers/shop-ctx.yaml") {
		t.Errorf("path %s, %v", p, err)
	}
}
