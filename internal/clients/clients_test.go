package clients

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/goccy/go-yaml"

	"github.com/kontext-dev/kontext/internal/jsonc"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// goldenNames collects every golden file a test compared, so that
// TestMain can find the ones nothing reads any more.
var goldenNames = map[string]bool{}

// golden compares got with testdata/<name>.golden byte for byte. A missing
// golden file fails: a preset nobody has looked at is not tested.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	goldenNames[name] = true
	path := filepath.Join("testdata", filepath.FromSlash(name)+".golden")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
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

// plain is an entry with no root, no name and the client's default scope.
func plain(command string, args ...string) Spec {
	return Spec{Command: command, Args: args}
}

// testEnv is a Linux user; the paths test covers the other platforms.
var testEnv = Env{OS: "linux", Home: "/home/ada"}

// testRepo is the repository the goldens' `kontext config` runs in.
const testRepo = "/home/ada/src/shop"

// defaultSpec is the entry `kontext config <client> --scope <scope>` makes
// in testRepo: the default command and the scope's default root.
func defaultSpec(c Client, scope Scope) Spec {
	s := Spec{Command: DefaultCommand, Args: DefaultArgs(), Scope: scope}
	switch c.RootPolicy(scope) {
	case RootVariable:
		s.Root = c.WorkspaceVar
	case RootRepository:
		s.Root = testRepo
	}
	return s
}

// optionsSpec is every option at once: --name, --absolute (a command
// path with a space), --command-arg and --root.
func optionsSpec(scope Scope) Spec {
	return Spec{Name: "shop-ctx", Command: "/opt/kontext tools/bin/kontext", Args: []string{"mcp", "--read-only"}, Root: "/srv/shop", Scope: scope}
}

// The plain presets: the value of the servers field with the default
// command and no root, as kontext config printed before roots existed.
func TestPresetsMatchGolden(t *testing.T) {
	for _, c := range All() {
		t.Run(c.ID, func(t *testing.T) {
			out, err := c.Render(plain(DefaultCommand, DefaultArgs()...))
			if err != nil {
				t.Fatal(err)
			}
			golden(t, c.ID, out)
		})
	}
}

// Every client in every scope it has: the snippet, the whole file, the
// add command and the install link, with the default root and with every
// option.
func TestEveryScopeFormatAndOptionMatchesGolden(t *testing.T) {
	for _, c := range All() {
		for _, scope := range c.Scopes() {
			t.Run(c.ID+"/"+string(scope), func(t *testing.T) {
				for variant, s := range map[string]Spec{"": defaultSpec(c, scope), "-options": optionsSpec(scope)} {
					out, err := c.Render(s)
					if err != nil {
						t.Fatal(err)
					}
					golden(t, c.ID+"/"+string(scope)+variant, out)
					file, err := c.File(s)
					if err != nil {
						t.Fatal(err)
					}
					golden(t, c.ID+"/"+string(scope)+variant+"-file", file)
				}
			})
		}
		if c.HasCommandLine() {
			for _, scope := range c.commandScopes {
				t.Run(c.ID+"/"+string(scope)+"/command-line", func(t *testing.T) {
					argv, err := c.CommandLine(defaultSpec(c, scope))
					if err != nil {
						t.Fatal(err)
					}
					golden(t, c.ID+"/"+string(scope)+"-command-line", []byte(ShellJoin(argv)+"\n"))
				})
			}
		}
		if c.HasLink() {
			t.Run(c.ID+"/link", func(t *testing.T) {
				link, err := c.Link(defaultSpec(c, User))
				if err != nil {
					t.Fatal(err)
				}
				golden(t, c.ID+"/link", []byte(link+"\n"))
			})
		}
	}
}

func TestAllMatchesGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteAll(&buf, testEnv, func(c Client) (Spec, error) { return plain(DefaultCommand, DefaultArgs()...), nil }); err != nil {
		t.Fatal(err)
	}
	golden(t, "all", buf.Bytes())
}

func TestAllWithCustomCommandMatchesGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteAll(&buf, testEnv, func(c Client) (Spec, error) { return plain("node", "/x/bin.js"), nil }); err != nil {
		t.Fatal(err)
	}
	golden(t, "all-command-node", buf.Bytes())
}

func TestAllWithDefaultRootsMatchesGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteAll(&buf, testEnv, func(c Client) (Spec, error) { return defaultSpec(c, c.DefaultScope), nil }); err != nil {
		t.Fatal(err)
	}
	golden(t, "all-default-roots", buf.Bytes())
}

func TestListMatchesGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteList(&buf, testEnv); err != nil {
		t.Fatal(err)
	}
	golden(t, "list", buf.Bytes())
}

// Each platform's user files, and that Owner recognises every documented
// file as its client's, wherever it is.
func TestPathsMatchGoldenAndBelongToTheirClient(t *testing.T) {
	envs := []Env{
		{OS: "linux", Home: "/home/ada"},
		{OS: "linux", Home: "/home/ada", XDGConfigHome: "/home/ada/.xdg", CodexHome: "/home/ada/.codex-work"},
		{OS: "darwin", Home: "/Users/ada"},
		{OS: "windows", Home: `C:\Users\ada`, AppData: `C:\Users\ada\AppData\Roaming`},
	}
	var b strings.Builder
	for _, env := range envs {
		fmt.Fprintf(&b, "# %s home=%s xdg=%s codex=%s\n", env.OS, env.Home, env.XDGConfigHome, env.CodexHome)
		for _, c := range All() {
			for _, scope := range c.Scopes() {
				p, err := c.Path(scope, testRepo, env)
				if c.Paste != "" {
					if err == nil {
						t.Errorf("%s: a path for a client without a file: %s", c.ID, p)
					}
					continue
				}
				if err != nil {
					t.Fatalf("%s %s: %v", c.ID, scope, err)
				}
				fmt.Fprintf(&b, "%-14s %-7s %s\n", c.ID, scope, p)
				// $CODEX_HOME can be anywhere; kontext cannot know it is Codex's.
				if owner, ok := Owner(p); (!ok || owner.ID != c.ID) && !(c.ID == "codex" && env.CodexHome != "") {
					t.Errorf("Owner(%s) = %q, %v; want %s", p, owner.ID, ok, c.ID)
				}
				if err := c.CheckTarget(p); err != nil {
					t.Errorf("%s refuses its own file: %v", c.ID, err)
				}
			}
		}
	}
	golden(t, "paths", []byte(b.String()))
}

// A Cursor entry in .vscode/mcp.json was accepted and written under a key
// VS Code ignores; every client's documented file now belongs to it alone.
func TestWriteFileRefusesAnotherClientsFile(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		client, file, want string
	}{
		{"cursor", ".vscode/mcp.json", `.vscode/mcp.json is VS Code's file (servers under "servers"), not Cursor's; kontext config vscode --write writes it`},
		{"vscode", ".cursor/mcp.json", `is Cursor's file`},
		{"claude-code", ".gemini/settings.json", `is Gemini CLI's file`},
		{"gemini", ".mcp.json", `is Claude Code's file`},
		{"cline", ".kiro/settings/mcp.json", `is Kiro's file`},
		{"claude-desktop", ".codex/config.toml", `is Codex's file`},
		{"codex", "servers.json", `servers.json is a JSON file and Codex's configuration is TOML`},
		{"continue", "mcp.json", `is a JSON file and Continue's configuration is YAML`},
		{"cursor", "config.yaml", `is a YAML file and Cursor's configuration is JSON`},
		{"goose", ".continue/config.yaml", `is Continue's file`},
		{"zed", "opencode.json", `is opencode's file`},
	} {
		t.Run(tc.client+" "+tc.file, func(t *testing.T) {
			c, _ := Lookup(tc.client)
			path := filepath.Join(dir, tc.file)
			_, err := c.WriteFile(path, plain("kontext", "mcp"))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want it to say %q", err, tc.want)
			}
			if _, err := os.Stat(path); !os.IsNotExist(err) {
				t.Errorf("%s was written", path)
			}
		})
	}
}

// A file at an unusual path that holds another client's servers field is
// refused by its content.
func TestMergeRefusesAFileWithAnotherClientsServersKey(t *testing.T) {
	for _, tc := range []struct{ client, existing, want string }{
		{"cursor", `{"servers": {"github": {"type": "stdio", "command": "gh"}}}`, `has "servers" (the servers field of VS Code) and no "mcpServers"`},
		{"vscode", `{"mcpServers": {"github": {"command": "gh"}}}`, `has "mcpServers"`},
		{"zed", "{\n  // mine\n  \"servers\": {}\n}", `has "servers"`},
		{"claude-desktop", `{"context_servers": {}}`, `(the servers field of Zed)`},
	} {
		c, _ := Lookup(tc.client)
		_, err := c.Merge([]byte(tc.existing), plain("kontext", "mcp"))
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "left it as it was") {
			t.Errorf("%s: error %v, want it to say %q and that the file was left alone", tc.client, err, tc.want)
		}
	}
	// Settings that merely lack the field are fine.
	c, _ := Lookup("gemini")
	if _, err := c.Merge([]byte(`{"mcp": {"allowed": ["x"]}, "theme": "dark"}`), plain("kontext", "mcp")); err != nil {
		t.Errorf("gemini settings without mcpServers: %v", err)
	}
}

func TestRootPolicy(t *testing.T) {
	for _, c := range All() {
		for _, scope := range c.Scopes() {
			got := c.RootPolicy(scope)
			want := RootRepository
			switch {
			case scope == Project && (c.ID == "cursor" || c.ID == "vscode"):
				want = RootVariable
			case scope == Project:
				want = RootNone
			}
			if got != want {
				t.Errorf("%s %s: root policy %v, want %v", c.ID, scope, got, want)
			}
		}
	}
}

func TestScopesAreRefusedWhereAClientHasNone(t *testing.T) {
	for _, id := range []string{"claude-desktop", "windsurf", "cline", "goose", "jetbrains"} {
		c, _ := Lookup(id)
		_, err := c.Render(Spec{Command: "kontext", Scope: Project})
		if err == nil || !strings.Contains(err.Error(), "has no project configuration (it has --scope user)") {
			t.Errorf("%s --scope project: %v", id, err)
		}
	}
	c, _ := Lookup("jetbrains")
	if _, err := c.Merge(nil, plain("kontext", "mcp")); err == nil || !strings.Contains(err.Error(), "paste the output of `kontext config jetbrains` into Settings | Tools | AI Assistant") {
		t.Errorf("jetbrains merge: %v", err)
	}
	if _, err := c.WriteFile(filepath.Join(t.TempDir(), "x.json"), plain("kontext", "mcp")); err == nil {
		t.Error("wrote a file for JetBrains")
	}
}

func TestOneLinersOnlyWhereTheClientHasThem(t *testing.T) {
	var commands, links []string
	for _, c := range All() {
		if _, err := c.CommandLine(Spec{Command: "kontext"}); err == nil {
			commands = append(commands, c.ID)
		} else if !strings.Contains(err.Error(), "has no command that adds a server") {
			t.Errorf("%s: %v", c.ID, err)
		}
		if _, err := c.Link(defaultSpec(c, User)); err == nil {
			links = append(links, c.ID)
		} else if !strings.Contains(err.Error(), "has no install link") {
			t.Errorf("%s: %v", c.ID, err)
		}
	}
	if want := []string{"claude-code", "vscode", "codex", "gemini"}; !reflect.DeepEqual(commands, want) {
		t.Errorf("add commands for %v, want %v", commands, want)
	}
	if want := []string{"cursor", "vscode"}; !reflect.DeepEqual(links, want) {
		t.Errorf("links for %v, want %v", links, want)
	}
	for _, tc := range []struct {
		id    string
		scope Scope
	}{{"codex", Project}, {"vscode", Project}} {
		c, _ := Lookup(tc.id)
		if _, err := c.CommandLine(Spec{Command: "kontext", Scope: tc.scope}); err == nil || !strings.Contains(err.Error(), "writes only the user configuration") {
			t.Errorf("%s --scope %s --command-line: %v", tc.id, tc.scope, err)
		}
	}
}

// Awkward commands and arguments must survive the trip through each
// client's format: a Windows path, quotes, HTML characters, a client
// variable, and strings YAML or TOML would otherwise read as booleans,
// numbers, null or comments.
var awkward = Spec{
	Command: `C:\Program Files\kontext\kontext.exe`,
	Args:    []string{"mcp", `/a "b" & <c>`, "", "yes", "1", "~", "#x", "a: b", "-", "it's", "${workspaceFolder}", "é", "[x]"},
	Root:    `/srv/my repo`,
}

// decodeEntry reads kontext's command and arguments back out of a
// client's whole file.
func decodeEntry(t *testing.T, c Client, file []byte, name string) (string, []string) {
	t.Helper()
	switch c.Format {
	case JSON, JSONC:
		var doc map[string]json.RawMessage
		var servers map[string]struct {
			Command json.RawMessage `json:"command"`
			Args    []string        `json:"args"`
		}
		if err := json.Unmarshal(jsonc.Blank(file), &doc); err != nil {
			t.Fatalf("%v\n%s", err, file)
		}
		if err := json.Unmarshal(doc[c.Key], &servers); err != nil {
			t.Fatalf("%v\n%s", err, file)
		}
		entry := servers[name]
		if c.ID == "opencode" {
			var argv []string
			if err := json.Unmarshal(entry.Command, &argv); err != nil || len(argv) == 0 {
				t.Fatalf("command %s is not a list: %v", entry.Command, err)
			}
			return argv[0], argv[1:]
		}
		var command string
		if err := json.Unmarshal(entry.Command, &command); err != nil {
			t.Fatalf("command %s: %v", entry.Command, err)
		}
		return command, entry.Args
	case TOML:
		var doc struct {
			Servers map[string]codexServer `toml:"mcp_servers"`
		}
		if _, err := toml.Decode(string(file), &doc); err != nil {
			t.Fatalf("%v\n%s", err, file)
		}
		return doc.Servers[name].Command, doc.Servers[name].Args
	case YAML:
		if c.ID == "goose" {
			var doc struct {
				Extensions map[string]gooseExtension `yaml:"extensions"`
			}
			if err := yaml.Unmarshal(file, &doc); err != nil {
				t.Fatalf("%v\n%s", err, file)
			}
			return doc.Extensions[name].Cmd, doc.Extensions[name].Args
		}
		var doc struct {
			Servers []continueServer `yaml:"mcpServers"`
		}
		if err := yaml.Unmarshal(file, &doc); err != nil {
			t.Fatalf("%v\n%s", err, file)
		}
		for _, s := range doc.Servers {
			if s.Name == name {
				return s.Command, s.Args
			}
		}
		t.Fatalf("no %s in\n%s", name, file)
	}
	return "", nil
}

func TestEveryFormatCarriesCommandAndArgsExactly(t *testing.T) {
	want := append(append([]string{}, awkward.Args...), "--root", awkward.Root)
	for _, c := range All() {
		for _, scope := range c.Scopes() {
			t.Run(c.ID+"/"+string(scope), func(t *testing.T) {
				s := awkward
				s.Scope = scope
				file, err := c.File(s)
				if err != nil {
					t.Fatal(err)
				}
				command, args := decodeEntry(t, c, file, ServerName)
				if command != awkward.Command || !reflect.DeepEqual(args, want) {
					t.Errorf("got %q %q, want %q %q\n%s", command, args, awkward.Command, want, file)
				}
				if bytes.Contains(file, []byte(`\u0026`)) {
					t.Errorf("HTML-escaped output is needlessly hard to read:\n%s", file)
				}
				if c.Writable() {
					merged, err := c.Merge(nil, s)
					if err != nil {
						t.Fatal(err)
					}
					if command, args := decodeEntry(t, c, merged, ServerName); command != awkward.Command || !reflect.DeepEqual(args, want) {
						t.Errorf("merged: got %q %q", command, args)
					}
				}
			})
		}
	}
}

// The add commands are run through a real shell, which must hand the
// client exactly the arguments kontext meant.
func TestCommandLinesSurviveAShell(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh here:", err)
	}
	for _, c := range All() {
		if !c.HasCommandLine() {
			continue
		}
		s := awkward
		s.Scope = c.CommandScope("")
		argv, err := c.CommandLine(s)
		if err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(sh, "-c", `printf '%s\0' `+ShellJoin(argv)).Output()
		if err != nil {
			t.Fatalf("%s: %v", c.ID, err)
		}
		got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
		if !reflect.DeepEqual(got, argv) {
			t.Errorf("%s: the shell passed %q, want %q", c.ID, got, argv)
		}
	}
}

func TestLinksDecodeToTheEntry(t *testing.T) {
	s := awkward
	s.Name = "shop-ctx"
	want := append(append([]string{}, awkward.Args...), "--root", awkward.Root)

	cursor, _ := Lookup("cursor")
	link, err := cursor.Link(s)
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(link)
	if err != nil || u.Scheme != "cursor" || u.Host != "anysphere.cursor-deeplink" || u.Path != "/mcp/install" {
		t.Fatalf("cursor link %s: %v", link, err)
	}
	if u.Query().Get("name") != "shop-ctx" {
		t.Errorf("name is %q", u.Query().Get("name"))
	}
	raw, err := base64.StdEncoding.DecodeString(u.Query().Get("config"))
	if err != nil {
		t.Fatal(err)
	}
	var config commandArgsServer
	if err := json.Unmarshal(raw, &config); err != nil || config.Command != awkward.Command || !reflect.DeepEqual(config.Args, want) {
		t.Errorf("cursor config %s: %v", raw, err)
	}

	vscode, _ := Lookup("vscode")
	link, err = vscode.Link(s)
	if err != nil {
		t.Fatal(err)
	}
	query, ok := strings.CutPrefix(link, "vscode:mcp/install?")
	if !ok || strings.ContainsAny(query, " +{}\"") {
		t.Fatalf("vscode link %s is not escaped as encodeURIComponent does", link)
	}
	decoded, err := url.PathUnescape(query)
	if err != nil {
		t.Fatal(err)
	}
	var install vscodeInstall
	if err := json.Unmarshal([]byte(decoded), &install); err != nil || install.Name != "shop-ctx" || install.Type != "stdio" || install.Command != awkward.Command || !reflect.DeepEqual(install.Args, want) {
		t.Errorf("vscode config %s: %v", decoded, err)
	}
}

func TestEncodeURIComponent(t *testing.T) {
	// What JavaScript's encodeURIComponent returns for the same input.
	if got, want := encodeURIComponent(`{"a b":"é+&=/?"}-_.!~*'()`), `%7B%22a%20b%22%3A%22%C3%A9%2B%26%3D%2F%3F%22%7D-_.!~*'()`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

func TestCheckName(t *testing.T) {
	for _, ok := range []string{"kontext", "shop-ctx", "a_1", "K"} {
		if err := CheckName(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "-x", "a.b", "a b", "ä", "a/b", strings.Repeat("a", 33)} {
		if err := CheckName(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	c, _ := Lookup("codex")
	if _, err := c.Render(Spec{Name: "a.b", Command: "kontext"}); err == nil {
		t.Error("a dotted name would be a nested TOML table")
	}
}

func TestEmptyArgsAreAListNotNull(t *testing.T) {
	for _, c := range All() {
		out, err := c.Render(Spec{Command: "kontext"})
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
	for _, want := range []string{"claude-code", "claude-desktop", "cursor", "windsurf", "cline", "continue", "vscode", "codex", "zed", "gemini", "opencode", "goose", "kiro", "jetbrains"} {
		if !slices.Contains(IDs(), want) {
			t.Errorf("no preset for %s", want)
		}
	}
}

// TestMain fails a full run that leaves a golden file unread: it belongs
// to no test any more. (A run narrowed by -run reads only some.)
func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	if code == 0 && !*update && flag.Lookup("test.run").Value.String() == "" {
		if unused := unusedGoldens(); len(unused) > 0 {
			fmt.Fprintf(os.Stderr, "golden files no test reads (delete them): %s\n", strings.Join(unused, ", "))
			code = 1
		}
	}
	os.Exit(code)
}

func unusedGoldens() []string {
	var unused []string
	filepath.WalkDir("testdata", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".golden") {
			return err
		}
		name := filepath.ToSlash(strings.TrimSuffix(strings.TrimPrefix(path, "testdata"+string(filepath.Separator)), ".golden"))
		if !goldenNames[name] {
			unused = append(unused, path)
		}
		return nil
	})
	return unused
}
