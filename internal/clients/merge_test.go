package clients

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
)

// A settings file with members kontext must not disturb: numbers that
// float64 would round, nested objects, text that needs escaping, and
// another server on each side of mcpServers' kontext slot.
const crowdedJSON = `{
  "globalShortcut": "Ctrl+Space",
  "precise": 1.10,
  "huge": 12345678901234567890,
  "nested": {"z": [1, 2, {"a": null}], "a": "é \u00e9 <&>"},
  "mcpServers": {
    "github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"], "env": {"TOKEN": "x"}},
    "kontext": {"command": "old-kontext", "args": []},
    "sqlite": {"command": "uvx", "args": ["mcp-server-sqlite"]}
  },
  "zLast": true
}
`

// jsonClients are the clients whose files are strict JSON with mcpServers.
func jsonClients() []Client {
	var out []Client
	for _, c := range All() {
		if c.Format == JSON && c.Key == "mcpServers" && c.Writable() {
			out = append(out, c)
		}
	}
	return out
}

func mustDecodeObject(t *testing.T, data []byte) jsonObject {
	t.Helper()
	obj, err := decodeObject(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")))
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	return obj
}

func keys(obj jsonObject) []string {
	var ks []string
	for _, m := range obj {
		ks = append(ks, m.key)
	}
	return ks
}

func compact(t *testing.T, raw []byte) string {
	t.Helper()
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func TestJSONMergeKeepsEverythingElse(t *testing.T) {
	for _, c := range jsonClients() {
		t.Run(c.ID, func(t *testing.T) {
			merged, err := c.Merge([]byte(crowdedJSON), plain("kontext", "mcp"))
			if err != nil {
				t.Fatal(err)
			}
			before, after := mustDecodeObject(t, []byte(crowdedJSON)), mustDecodeObject(t, merged)
			if !reflect.DeepEqual(keys(before), keys(after)) {
				t.Fatalf("top-level keys changed: %v became %v", keys(before), keys(after))
			}
			for i, m := range before {
				if m.key == "mcpServers" {
					continue
				}
				if got, want := compact(t, after[i].value), compact(t, m.value); got != want {
					t.Errorf("%s changed: %s became %s", m.key, want, got)
				}
			}
			serversBefore := mustDecodeObject(t, mustGet(t, before, "mcpServers"))
			serversAfter := mustDecodeObject(t, mustGet(t, after, "mcpServers"))
			if !reflect.DeepEqual(keys(serversBefore), keys(serversAfter)) {
				t.Fatalf("servers changed order or membership: %v became %v", keys(serversBefore), keys(serversAfter))
			}
			for i, m := range serversBefore {
				if m.key == ServerName {
					continue
				}
				if got, want := compact(t, serversAfter[i].value), compact(t, m.value); got != want {
					t.Errorf("server %s changed: %s became %s", m.key, want, got)
				}
			}
			rendered, err := c.Render(plain("kontext", "mcp"))
			if err != nil {
				t.Fatal(err)
			}
			want := compact(t, mustGet(t, mustDecodeObject(t, rendered), ServerName))
			if got := compact(t, mustGet(t, serversAfter, ServerName)); got != want {
				t.Errorf("kontext entry is %s, want %s", got, want)
			}
		})
	}
}

func mustGet(t *testing.T, obj jsonObject, key string) json.RawMessage {
	t.Helper()
	v, ok := obj.get(key)
	if !ok {
		t.Fatalf("no %q in %v", key, keys(obj))
	}
	return v
}

func TestJSONMergeIsIdempotent(t *testing.T) {
	for _, c := range jsonClients() {
		for name, input := range map[string]string{"crowded": crowdedJSON, "new": ""} {
			once, err := c.Merge([]byte(input), plain("node", "/x/bin.js"))
			if err != nil {
				t.Fatal(err)
			}
			twice, err := c.Merge(once, plain("node", "/x/bin.js"))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(once, twice) {
				t.Errorf("%s, %s file: merging twice differs from merging once:\n%s\nthen\n%s", c.ID, name, once, twice)
			}
		}
	}
}

func TestJSONMergeIntoNothingWrapsThePreset(t *testing.T) {
	for _, c := range jsonClients() {
		for _, existing := range []string{"", "  \n", "{}", `{"mcpServers": null}`, `{"mcpServers": {}}`} {
			merged, err := c.Merge([]byte(existing), plain("kontext", "mcp"))
			if err != nil {
				t.Fatal(err)
			}
			rendered, _ := c.Render(plain("kontext", "mcp"))
			want, err := encodeObject(jsonObject{{"mcpServers", rendered}}, "  ")
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(merged, want) {
				t.Errorf("%s from %q:\ngot\n%s\nwant\n%s", c.ID, existing, merged, want)
			}
		}
	}
}

func TestJSONMergeKeepsTheFilesIndentationAndBOM(t *testing.T) {
	c, _ := Lookup("claude-desktop")
	existing := "\xef\xbb\xbf{\n\t\"theme\": \"dark\"\n}\n"
	merged, err := c.Merge([]byte(existing), plain("kontext", "mcp"))
	if err != nil {
		t.Fatal(err)
	}
	want := "\xef\xbb\xbf{\n\t\"theme\": \"dark\",\n\t\"mcpServers\": {\n\t\t\"kontext\": {\n\t\t\t\"command\": \"kontext\",\n\t\t\t\"args\": [\n\t\t\t\t\"mcp\"\n\t\t\t]\n\t\t}\n\t}\n}\n"
	if string(merged) != want {
		t.Errorf("got\n%q\nwant\n%q", merged, want)
	}
}

func TestJSONMergeDropsDuplicateKontextEntries(t *testing.T) {
	c, _ := Lookup("claude-desktop")
	existing := `{"mcpServers": {"kontext": {"command": "a"}, "other": {"command": "b"}, "kontext": {"command": "c"}}}`
	merged, err := c.Merge([]byte(existing), plain("kontext", "mcp"))
	if err != nil {
		t.Fatal(err)
	}
	servers := mustDecodeObject(t, mustGet(t, mustDecodeObject(t, merged), "mcpServers"))
	if got := keys(servers); !reflect.DeepEqual(got, []string{"kontext", "other"}) {
		t.Errorf("servers are %v, want [kontext other]", got)
	}
}

func TestJSONMergeRefusesWhatItCannotMergeSafely(t *testing.T) {
	c, _ := Lookup("cursor")
	for _, tc := range []struct{ name, existing, wantErr string }{
		{"trailing comma", "{\n  \"a\": 1,\n}\n", "not valid JSON at line 3, column 1: invalid character '}' looking for beginning of object key string"},
		{"comment", "{\n  // servers\n}", "not valid JSON at line 2, column 3"},
		{"truncated", `{"mcpServers": {`, "not valid JSON: it ends before the object does"},
		{"two documents", `{"a": 1} {"b": 2}`, "not valid JSON at line 1, column 10: invalid character '{' after top-level value"},
		{"array", `[1, 2]`, "the top level is an array, not a JSON object"},
		{"servers array", `{"mcpServers": ["kontext"]}`, "mcpServers is an array, not an object"},
		{"servers string", `{"mcpServers": "kontext"}`, "mcpServers is a string, not an object"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.Merge([]byte(tc.existing), plain("kontext", "mcp"))
			if err == nil {
				t.Fatal("merged a file it should have refused")
			}
			if !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), "left") {
				t.Errorf("error %q: want it to contain %q and say the file was left alone", err, tc.wantErr)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error is not one line: %q", err)
			}
		})
	}
}

const crowdedYAML = `# Continue configuration
name: Local Config # shown in the picker
version: 1.0.0
schema: v1
model_defaults: &defaults
  provider: openai
  apiBase: https://example.com/v1
models:
  - name: gpt
    <<: *defaults
    model: gpt-4o
    roles:
      - chat
mcpServers:
  - name: sqlite
    command: uvx
    args:
      - mcp-server-sqlite
  # kontext serves this repository
  - name: kontext
    command: old-kontext
  - uses: someone/hub-server
rules:
  - Give concise responses
`

func decodeYAML(t *testing.T, data []byte) map[string]any {
	t.Helper()
	var v map[string]any
	if err := yaml.Unmarshal(data, &v); err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	return v
}

func TestContinueMergeReplacesTheItemAndKeepsTheRest(t *testing.T) {
	c, _ := Lookup("continue")
	merged, err := c.Merge([]byte(crowdedYAML), plain("node", "/x/bin.js"))
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(crowdedYAML, "    command: old-kontext\n", "    command: node\n    args:\n      - /x/bin.js\n", 1)
	if string(merged) != want {
		t.Errorf("got\n%s\nwant\n%s", merged, want)
	}
	again, err := c.Merge(merged, plain("node", "/x/bin.js"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again, merged) {
		t.Errorf("merging twice differs from merging once:\n%s", again)
	}
}

func TestContinueMergeAppendsToTheList(t *testing.T) {
	c, _ := Lookup("continue")
	existing := "name: x\nversion: 1.0.0\nschema: v1\nmcpServers:\n  - name: sqlite\n    command: uvx\nrules: []\n"
	merged, err := c.Merge([]byte(existing), plain("kontext", "mcp"))
	if err != nil {
		t.Fatal(err)
	}
	want := "name: x\nversion: 1.0.0\nschema: v1\nmcpServers:\n  - name: sqlite\n    command: uvx\n  - name: kontext\n    command: kontext\n    args:\n      - mcp\nrules: []\n"
	if string(merged) != want {
		t.Errorf("got\n%s\nwant\n%s", merged, want)
	}
}

func TestContinueMergeHandlesEveryShapeOfMCPServers(t *testing.T) {
	c, _ := Lookup("continue")
	for name, existing := range map[string]string{
		"absent":           "name: x\nversion: 1.0.0\nschema: v1\n",
		"null":             "name: x\nmcpServers:\nversion: 1.0.0\n",
		"empty flow list":  "name: x\nmcpServers: []\nversion: 1.0.0\n",
		"flow list":        "name: x\nmcpServers: [{name: a, command: b, args: [c]}, {name: kontext, command: old}]\nversion: 1.0.0\n",
		"unindented list":  "name: x\nmcpServers:\n- name: a\n  command: b\nversion: 1.0.0\n",
		"single-key item":  "name: x\nmcpServers:\n  - name: kontext\n",
		"directive":        "%YAML 1.1\n---\nname: x\nmcpServers:\n  - name: a\n    command: b\n",
		"quoted keys":      "\"name\": x\n\"mcpServers\":\n  - \"name\": \"kontext\"\n    command: old\n",
		"comments only":    "# to do: configure Continue\n",
		"only a key":       "name: x\n",
		"no final newline": "name: x\nmcpServers:\n  - name: a\n    command: b",
	} {
		t.Run(name, func(t *testing.T) {
			merged, err := c.Merge([]byte(existing), plain("kontext", "mcp"))
			if err != nil {
				t.Fatal(err)
			}
			after := decodeYAML(t, merged)
			list, ok := after["mcpServers"].([]any)
			if !ok {
				t.Fatalf("mcpServers is not a list:\n%s", merged)
			}
			found := 0
			for _, item := range list {
				if m, ok := item.(map[string]any); ok && m["name"] == ServerName {
					found++
					if m["command"] != "kontext" || !reflect.DeepEqual(m["args"], []any{"mcp"}) {
						t.Errorf("kontext item is %v", m)
					}
				}
			}
			if found != 1 {
				t.Errorf("%d kontext items, want 1:\n%s", found, merged)
			}
			if strings.Contains(existing, "name: a") && !strings.Contains(string(merged), "name: a") {
				t.Errorf("the other server went missing:\n%s", merged)
			}
			again, err := c.Merge(merged, plain("kontext", "mcp"))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(again, merged) {
				t.Errorf("merging twice differs from merging once:\n%s\nthen\n%s", merged, again)
			}
		})
	}
}

func TestContinueMergeIntoNothingCreatesAValidConfig(t *testing.T) {
	c, _ := Lookup("continue")
	merged, err := c.Merge(nil, plain("kontext", "mcp"))
	if err != nil {
		t.Fatal(err)
	}
	want := "name: Local Config\nversion: 1.0.0\nschema: v1\nmcpServers:\n  - name: kontext\n    command: kontext\n    args:\n      - mcp\n"
	if string(merged) != want {
		t.Errorf("got\n%s\nwant\n%s", merged, want)
	}
}

func TestContinueMergeRefusesWhatItCannotMergeSafely(t *testing.T) {
	c, _ := Lookup("continue")
	for _, tc := range []struct{ name, existing, wantErr string }{
		{"invalid", "name: x\nmodels: [a, b\n", "not valid YAML"},
		{"servers mapping", "name: x\nmcpServers:\n  kontext:\n    command: x\n", "mcpServers is a YAML mapping, not a list"},
		{"top-level list", "- a\n- b\n", "the top level is a YAML list, not a mapping"},
		{"two documents", "name: a\n---\nname: b\n", "more than one YAML document"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.Merge([]byte(tc.existing), plain("kontext", "mcp"))
			if err == nil {
				t.Fatal("merged a file it should have refused")
			}
			if !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), "left") {
				t.Errorf("error %q: want it to contain %q and say the file was left alone", err, tc.wantErr)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error is not one line: %q", err)
			}
		})
	}
}

func TestWriteFileCreatesMergesAndIsIdempotent(t *testing.T) {
	c, _ := Lookup("cursor")
	dir := t.TempDir()
	path := filepath.Join(dir, ".cursor", "mcp.json")

	changed, err := c.WriteFile(path, plain("kontext", "mcp"))
	if err != nil || !changed {
		t.Fatalf("creating: changed=%v err=%v", changed, err)
	}
	created, _ := os.ReadFile(path)
	want, _ := c.Merge(nil, plain("kontext", "mcp"))
	if !bytes.Equal(created, want) {
		t.Errorf("created\n%s\nwant\n%s", created, want)
	}

	if err := os.WriteFile(path, []byte(crowdedJSON), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	if changed, err := c.WriteFile(path, plain("kontext", "mcp")); err != nil || !changed {
		t.Fatalf("merging: changed=%v err=%v", changed, err)
	}
	merged, _ := os.ReadFile(path)
	if want, _ := c.Merge([]byte(crowdedJSON), plain("kontext", "mcp")); !bytes.Equal(merged, want) {
		t.Errorf("merged\n%s\nwant\n%s", merged, want)
	}
	if info, _ := os.Stat(path); info.Mode().Perm() != 0o600 {
		t.Errorf("mode became %v; a private settings file must stay private", info.Mode().Perm())
	}

	if changed, err := c.WriteFile(path, plain("kontext", "mcp")); err != nil || changed {
		t.Fatalf("second run: changed=%v err=%v, want no change", changed, err)
	}
	if again, _ := os.ReadFile(path); !bytes.Equal(again, merged) {
		t.Errorf("second run changed the file")
	}
	assertOnlyFiles(t, filepath.Dir(path), "mcp.json")
}

func TestWriteFileLeavesAnInvalidFileUntouched(t *testing.T) {
	c, _ := Lookup("claude-code")
	dir := t.TempDir()
	path := filepath.Join(dir, ".mcp.json")
	broken := []byte("{\"mcpServers\": {\"a\": {\"command\": \"x\",}}}\n")
	if err := os.WriteFile(path, broken, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := c.WriteFile(path, plain("kontext", "mcp"))
	if err == nil {
		t.Fatal("wrote over an invalid file")
	}
	if !strings.HasPrefix(err.Error(), path+": not valid JSON at line 1, column 38") {
		t.Errorf("error %q should name the file and the place", err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, broken) {
		t.Errorf("file changed to\n%s", got)
	}
	assertOnlyFiles(t, dir, ".mcp.json")
}

func TestWriteFileFollowsASymlink(t *testing.T) {
	c, _ := Lookup("windsurf")
	dir := t.TempDir()
	real := filepath.Join(dir, "dotfiles", "mcp_config.json")
	if err := os.MkdirAll(filepath.Dir(real), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(real, []byte(`{"theme": "dark"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "mcp_config.json")
	if err := os.Symlink(real, link); err != nil {
		t.Skip("no symlinks here:", err)
	}
	if _, err := c.WriteFile(link, plain("kontext", "mcp")); err != nil {
		t.Fatal(err)
	}
	if info, err := os.Lstat(link); err != nil || info.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced by a file")
	}
	got, _ := os.ReadFile(real)
	if !bytes.Contains(got, []byte(`"theme": "dark"`)) || !bytes.Contains(got, []byte(`"kontext"`)) {
		t.Errorf("the link's target is\n%s", got)
	}
}

func assertOnlyFiles(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if !reflect.DeepEqual(got, names) {
		t.Errorf("%s holds %v, want only %v (a temporary file was left behind?)", dir, got, names)
	}
}
