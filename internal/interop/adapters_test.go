// End-to-end tests of the knowledge toolset's adapters (seeds/004, the
// original's adapter model): real third-party MCP servers from npm, run as
// adapters by a real `kontext mcp`, driven by the official Go SDK, every
// message kontext wrote validated against the official schema.
package interop_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kontext-dev/kontext/internal/gittest"
)

// startKnowledge serves the knowledge toolset on repo with a user
// configuration (which needs no trust) and connects the Go SDK to it.
func startKnowledge(t *testing.T, repo, userConfig, traces string, env ...string) *mcp.ClientSession {
	t.Helper()
	return startKnowledgeWith(t, knowledgeServer{repo: repo, config: userConfig, traces: traces, env: env})
}

// knowledgeServer is how startKnowledgeWith runs kontext mcp and connects.
type knowledgeServer struct {
	repo, config, traces string
	env                  []string
	args                 []string           // after --toolsets knowledge --root repo
	client               *mcp.ClientOptions // handlers; nil for none
	ask                  string             // the revision asked for; 2025-11-25 when empty
}

func startKnowledgeWith(t *testing.T, k knowledgeServer) *mcp.ClientSession {
	t.Helper()
	cfg := t.TempDir()
	if err := os.WriteFile(filepath.Join(cfg, "config.toml"), []byte(k.config), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	cmd := exec.Command(kontextBin, append([]string{"mcp", "--toolsets", "knowledge", "--root", k.repo}, k.args...)...)
	cmd.Env = append(append(os.Environ(), "KONTEXT_TRACE="+traceFile(k.traces, "kontext"), "KONTEXT_CONFIG_DIR="+cfg), k.env...)
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	logOnFailure(t, "kontext mcp --toolsets knowledge", stderr)
	client := mcp.NewClient(&mcp.Implementation{Name: "adapters-e2e", Version: "1"}, k.client)
	ask := k.ask
	if ask == "" {
		ask = "2025-11-25"
	}
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: ask})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// @modelcontextprotocol/server-memory as a search source, configured with
// nothing but its tool: its entities are found by ctx_search, fused with
// the repository's own, and each hit line names its source.
func TestAdaptersMemoryServerIsASearchSource(t *testing.T) {
	node, dir := npmDir(t)
	repo := gitRepo(t)
	os.WriteFile(filepath.Join(repo, "README.md"), []byte("# Shop\n\nA shop that sells tea.\n\n## Invoices\n\nInvoices are sent nightly by the billing job.\n"), 0o644)
	gittest.Run(t, repo, gittest.Ada(), "commit", "-q", "-am", "Invoices")
	memory := filepath.Join(t.TempDir(), "memory.jsonl")
	if err := os.WriteFile(memory, []byte(`{"type":"entity","name":"Invoices service","entityType":"service","observations":["Sends the invoices every night"]}`+"\n"+
		`{"type":"entity","name":"Tea catalogue","entityType":"service","observations":["Lists the teas"]}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	server := filepath.Join(dir, "node_modules", "@modelcontextprotocol", "server-memory", "dist", "index.js")
	traces := t.TempDir()
	cs := startKnowledge(t, repo, `[adapters.memory]
driver = "mcp"
command = [`+quote(node)+`, `+quote(server)+`]
env = { MEMORY_FILE_PATH = `+quote(memory)+` }

[adapters.memory.ops.search]
tool = "search_nodes"
`, traces)
	call := func(args map[string]any) string { t.Helper(); return ctxSearch(t, cs, args) }
	fused := call(map[string]any{"query": "invoices"})
	if !strings.Contains(fused, "Invoices service") || !strings.Contains(fused, "memory]") {
		t.Errorf("ctx_search did not find the memory server's entity with its source:\n%s", fused)
	}
	if !regexp.MustCompile(`(?m)^\d+\. Shop › Invoices — .* \[doc\] <file:README\.md#invoices>$`).MatchString(fused) {
		t.Errorf("ctx_search lost the local hit, or names its source (only an adapter's is named):\n%s", fused)
	}
	if strings.Contains(fused, "Tea catalogue") {
		t.Errorf("an entity that does not match was listed:\n%s", fused)
	}
	if only := call(map[string]any{"query": "invoices", "sources": []string{"memory"}}); strings.Contains(only, "README.md") || !strings.Contains(only, "Invoices service") {
		t.Errorf("sources [memory]:\n%s", only)
	}
	if local := call(map[string]any{"query": "invoices", "sources": []string{"local"}}); strings.Contains(local, "Invoices service") {
		t.Errorf("sources [local] asked the adapter:\n%s", local)
	}
	t.Logf("fused answer:\n%s", fused)
	finishKnowledge(t, cs, traces)
}

// ctxSearch runs ctx_search, which must answer: an adapter's failure is a
// note in the answer, never a failed call.
func ctxSearch(t *testing.T, cs *mcp.ClientSession, args map[string]any) string {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "ctx_search", Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	text := textContent(t, res)
	if res.IsError {
		t.Fatalf("ctx_search %v failed: %s", args, text)
	}
	return text
}

func quote(s string) string {
	return `"` + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), `"`, `\"`) + `"`
}

// Adapters that fail never fail the local part: one that hangs is cut at
// its deadline, one that crashes mid-call and a team adapter nobody
// trusted each become a note, and the untrusted one never runs.
func TestAdaptersThatFailAreNotes(t *testing.T) {
	node, dir := npmDir(t)
	repo := gitRepo(t)
	marker := filepath.Join(t.TempDir(), "pwned")
	if err := os.WriteFile(filepath.Join(repo, ".kontext.toml"), []byte(`[adapters.team]
driver = "command"
command = ["touch", `+quote(marker)+`]

[adapters.team.ops.search]
`), 0o644); err != nil {
		t.Fatal(err)
	}
	traces := t.TempDir()
	cs := startKnowledge(t, repo, `[adapters.slow]
driver = "command"
command = ["sleep", "30"]
timeout_ms = 700

[adapters.slow.ops.search]

[adapters.crashing]
driver = "mcp"
command = [`+quote(node)+`, `+quote(filepath.Join(dir, "crashing-server.mjs"))+`]

[adapters.crashing.ops.search]
tool = "search"
`, traces)
	search := func(sources ...string) (string, time.Duration) {
		t.Helper()
		args := map[string]any{"query": "tea"}
		if len(sources) > 0 {
			args["sources"] = sources
		}
		start := time.Now()
		text := ctxSearch(t, cs, args)
		return text, time.Since(start)
	}
	for _, c := range []struct{ source, note string }{
		{"slow", "slow"}, {"crashing", "crashing"}, {"team", "waits for trust"},
	} {
		t.Run(c.source, func(t *testing.T) {
			text, took := search("local", c.source)
			if !strings.Contains(text, "README.md") {
				t.Errorf("the local hit is missing:\n%s", text)
			}
			if !strings.Contains(text, "Note:") || !strings.Contains(text, c.note) {
				t.Errorf("no note naming %q:\n%s", c.note, text)
			}
			// The deadline is the adapter's own 0.7 s; ten times that is
			// far from it and far from sleep's 30 s.
			if took > 7*time.Second {
				t.Errorf("the answer took %v", took)
			}
			t.Logf("%v:\n%s", took, text)
		})
	}
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("the untrusted team adapter ran")
	}
	finishKnowledge(t, cs, traces)
}

// @modelcontextprotocol/server-everything as an adapter over stdio: its
// get-roots-list tool, asked as the search op, makes the server ask
// kontext's client for roots/list, which answers with the repository.
func TestAdaptersServerEverythingAsksForRoots(t *testing.T) {
	node, dir := npmDir(t)
	repo := gitRepo(t)
	server := everythingScript(dir)
	traces := t.TempDir()
	cs := startKnowledge(t, repo, `[adapters.everything]
driver = "mcp"
command = [`+quote(node)+`, `+quote(server)+`, "stdio"]

[adapters.everything.ops.search]
tool = "get-roots-list"
`, traces)
	text := ctxSearch(t, cs, map[string]any{"query": "roots", "sources": []string{"everything"}})
	root, _ := filepath.EvalSymlinks(repo)
	if !strings.Contains(text, "everything") || (!strings.Contains(text, repo) && !strings.Contains(text, root)) {
		t.Errorf("the search through get-roots-list does not show the repository %s:\n%s", repo, text)
	}
	t.Logf("%s", text)
	finishKnowledge(t, cs, traces)
}

// An adapter that asks kontext's client for sampling (a TypeScript SDK v1
// server's ask-sampling, as the search op) is refused with -32601: the
// adapter's answer is an error, which becomes a note beside the local hits.
func TestAdaptersSamplingIsRefused(t *testing.T) {
	node, dir := npmDir(t)
	repo := gitRepo(t)
	traces := t.TempDir()
	cs := startKnowledge(t, repo, `[adapters.asker]
driver = "mcp"
command = [`+quote(node)+`, `+quote(filepath.Join(dir, "ts-sdk-v1-server.mjs"))+`]

[adapters.asker.ops.search]
tool = "ask-sampling"
`, traces)
	text := ctxSearch(t, cs, map[string]any{"query": "tea"})
	if !strings.Contains(text, "README.md") || !strings.Contains(text, "Note: adapter asker") || !strings.Contains(text, "-32601") {
		t.Errorf("the refused sampling request, as ctx_search shows it:\n%s", text)
	}
	t.Logf("%s", text)
	finishKnowledge(t, cs, traces)
}

// An http adapter served by the test: its search op's answer, in one of
// the usual shapes, becomes hits without any mapping.
func TestAdaptersHTTPDriver(t *testing.T) {
	requireSetup(t)
	repo := gitRepo(t)
	var asked atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Store(r.URL.Path + "?" + r.URL.RawQuery + " " + r.Header.Get("Authorization"))
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"results":[{"title":"Tea wiki","snippet":"How the shop brews tea","url":"https://wiki.example/tea"}]}`))
	}))
	t.Cleanup(srv.Close)
	traces := t.TempDir()
	cs := startKnowledge(t, repo, `[adapters.wiki]
driver = "http"
base_url = `+quote(srv.URL)+`
headers = { Authorization = "Bearer ${env:WIKI_TOKEN}" }

[adapters.wiki.ops.search]
method = "GET"
path = "/search"
query = { q = "{{query}}" }
`, traces, "WIKI_TOKEN=s3cret-token")
	text := ctxSearch(t, cs, map[string]any{"query": "tea"})
	if !strings.Contains(text, "Tea wiki") || !strings.Contains(text, "wiki]") || !strings.Contains(text, "README.md") {
		t.Errorf("the http adapter's hit, fused:\n%s", text)
	}
	if got, _ := asked.Load().(string); got != "/search?q=tea Bearer s3cret-token" {
		t.Errorf("the adapter asked %q", got)
	}
	if strings.Contains(text, "s3cret-token") {
		t.Errorf("the answer quotes the secret")
	}
	t.Logf("%s", text)
	finishKnowledge(t, cs, traces)
}

// server-everything over streamable HTTP as an adapter: one HTTP session,
// its get-roots-list is answered with the repository root there too, as
// the search op and as an exposed tool, and expose as a list serves just
// the tools it names.
func TestAdaptersServerEverythingOverHTTP(t *testing.T) {
	node, dir := npmDir(t)
	repo := gitRepo(t)
	port := freePort(t)
	everything := exec.Command(node, everythingScript(dir), "streamableHttp")
	everything.Env = append(os.Environ(), "PORT="+itoa(port))
	said := &syncBuffer{}
	everything.Stderr = said
	logOnFailure(t, "server-everything streamableHttp", said)
	if err := everything.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = everything.Process.Kill(); _ = everything.Wait() })
	for deadline := time.Now().Add(20 * time.Second); !strings.Contains(said.String(), "listening on port"); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("server-everything never listened:\n%s", said.String())
		}
	}
	traces := t.TempDir()
	cs := startKnowledge(t, repo, `[adapters.everything]
driver = "mcp"
url = "http://127.0.0.1:`+itoa(port)+`/mcp"
expose = ["echo", "get-roots-list"]

[adapters.everything.ops.search]
tool = "get-roots-list"
`, traces)
	text := ctxSearch(t, cs, map[string]any{"query": "roots", "sources": []string{"everything"}})
	if !strings.Contains(text, "file://") || !strings.Contains(text, filepath.Base(repo)) {
		t.Errorf("get-roots-list over streamable HTTP:\n%s", text)
	}
	t.Logf("%s", text)
	// The exposed list names two tools: only they are served, and calls
	// to them go over the same HTTP session.
	tools := waitForTools(t, cs, "everything_echo", "everything_get-roots-list")
	for name := range tools {
		if strings.HasPrefix(name, "everything_") && name != "everything_echo" && name != "everything_get-roots-list" {
			t.Errorf("%s is served, and expose names only echo and get-roots-list", name)
		}
	}
	if got, isErr := callText(t, cs, "everything_echo", map[string]any{"message": "over HTTP"}); isErr || got != "Echo: over HTTP" {
		t.Errorf("everything_echo over streamable HTTP answered %q (isError %v)", got, isErr)
	}
	if got, isErr := callText(t, cs, "everything_get-roots-list", nil); isErr || !strings.Contains(got, filepath.Base(repo)) {
		t.Errorf("everything_get-roots-list over streamable HTTP answered %q (isError %v)", got, isErr)
	}
	finishKnowledge(t, cs, traces)
}

// @modelcontextprotocol/server-memory as a store: a capture event, mapped
// to its create_entities tool, writes the captured learning into the
// memory graph, where ctx_search then finds it through the same adapter's
// search op, and the memory file holds it.
func TestAdaptersMemoryServerIsAStore(t *testing.T) {
	node, dir := npmDir(t)
	repo := gitRepo(t)
	memory := filepath.Join(t.TempDir(), "memory.jsonl")
	server := filepath.Join(dir, "node_modules", "@modelcontextprotocol", "server-memory", "dist", "index.js")
	traces := t.TempDir()
	cs := startKnowledge(t, repo, `[adapters.memory]
driver = "mcp"
command = [`+quote(node)+`, `+quote(server)+`]
env = { MEMORY_FILE_PATH = `+quote(memory)+` }

[adapters.memory.ops.search]
tool = "search_nodes"

[adapters.memory.ops.store]
tool = "create_entities"
args = { entities = [{ name = "{{title}}", entityType = "{{kind}}", observations = ["{{summary}}"] }] }

[[adapters.memory.on]]
event = "capture"
op = "store"
`, traces)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "ctx_capture", Arguments: map[string]any{
		"kind": "learning", "title": "Samovar descaling", "body": "Descale the samovar every Friday, or the tea tastes of chalk.", "visibility": "private",
	}})
	if err != nil || res.IsError {
		t.Fatalf("ctx_capture: %v %s", err, textContent(t, res))
	}
	var found string
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		found = ctxSearch(t, cs, map[string]any{"query": "samovar", "sources": []string{"memory"}})
		if strings.Contains(found, "Samovar descaling") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the captured learning never reached the memory server; ctx_search says:\n%s", found)
		}
	}
	saved, err := os.ReadFile(memory)
	if err != nil || !strings.Contains(string(saved), `"name":"Samovar descaling"`) || !strings.Contains(string(saved), `"entityType":"learning"`) || !strings.Contains(string(saved), "Descale the samovar") {
		t.Errorf("the memory file holds %q (%v)", saved, err)
	}
	t.Logf("found through the memory server:\n%s", found)
	finishKnowledge(t, cs, traces)
}

// A command adapter through a real kontext mcp: printf as its search op
// (hits fused with the local ones and named by source), as the read op of
// the URIs it owns, and behind a declared tool; its argument vector runs
// without a shell, so a query that reads as a shell command stays text.
func TestAdaptersCommandDriver(t *testing.T) {
	requireSetup(t)
	repo := gitRepo(t)
	marker := filepath.Join(t.TempDir(), "pwned")
	traces := t.TempDir()
	cs := startKnowledge(t, repo, `[adapters.wiki]
driver = "command"

[adapters.wiki.ops.search]
command = ["printf", '{"results":[{"title":"Wiki: %s","snippet":"from printf","uri":"wiki://%s","kind":"note"}]}', "{{query}}", "tea"]

[adapters.wiki.ops.read]
owns = ["wiki://"]
command = ["printf", "page %s", "{{uri|after:wiki://}}"]

[[adapters.wiki.tools]]
name = "wiki_page"
description = "A wiki page"
params = { page = "string!" }
op = { command = ["printf", "the %s page", "{{page}}"] }
`, traces)
	text := ctxSearch(t, cs, map[string]any{"query": "tea"})
	if !strings.Contains(text, "Wiki: tea — from printf [note · wiki] <wiki://tea>") || !strings.Contains(text, "README.md") {
		t.Errorf("the command adapter's hit, fused:\n%s", text)
	}
	injected := "$(touch " + marker + ")"
	if text := ctxSearch(t, cs, map[string]any{"query": injected, "sources": []string{"wiki"}}); !strings.Contains(text, "Wiki: "+injected) {
		t.Errorf("the query as the command saw it:\n%s", text)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the query ran as a shell command")
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "ctx_read", Arguments: map[string]any{"uri": "wiki://tea"}})
	if err != nil || res.IsError || !strings.Contains(textContent(t, res), "page tea") {
		t.Errorf("ctx_read wiki://tea: %v %s", err, textContent(t, res))
	}
	tools := waitForTools(t, cs, "wiki_page")
	if tools["wiki_page"].Description != "[adapter] wiki: A wiki page" {
		t.Errorf("wiki_page: %q", tools["wiki_page"].Description)
	}
	if got, isErr := callText(t, cs, "wiki_page", map[string]any{"page": "oolong"}); isErr || got != "the oolong page" {
		t.Errorf("wiki_page answered %q (isError %v)", got, isErr)
	}
	finishKnowledge(t, cs, traces)
}
