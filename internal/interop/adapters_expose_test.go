package interop_test

import (
	"context"
	"encoding/json"
	"maps"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// exposedNameRe is the character set and budget of the tool names kontext
// makes at run time (internal/mcp.IsToolName, 48 characters).
var exposedNameRe = regexp.MustCompile(`^[A-Za-z0-9_-]{1,48}$`)

// everythingTools lists server-everything's tools as the Go SDK sees them
// when it connects straight to the server, with roots declared as
// kontext's client declares them: the truth kontext's exposed tools are
// held to.
func everythingTools(t *testing.T, node, server string) map[string]*mcp.Tool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "everything-truth", Version: "1"}, nil)
	client.AddRoots(&mcp.Root{URI: "file:///"})
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: exec.Command(node, server, "stdio")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	tools := map[string]*mcp.Tool{}
	// The server registers the tools that depend on the client's
	// capabilities just after initialization: wait until they are listed.
	for deadline := time.Now().Add(10 * time.Second); tools["get-roots-list"] == nil; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("server-everything never listed get-roots-list to a client with roots: %v", keys(tools))
		}
		for tool, err := range cs.Tools(ctx, nil) {
			if err != nil {
				t.Fatal(err)
			}
			tools[tool.Name] = tool
		}
	}
	return tools
}

func keys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

// everythingScript is server-everything's entry point in the npm tree.
func everythingScript(dir string) string {
	return filepath.Join(dir, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
}

// finishKnowledge ends the session and validates every message the
// kontext mcp of startKnowledge wrote.
func finishKnowledge(t *testing.T, cs *mcp.ClientSession, traces string) {
	t.Helper()
	_ = cs.Close()
	validateWire(t, readTraces(t, tracesIn(t, traces)))
}

// asJSON decodes what the SDK holds (schemas as any) to compare it by value.
func asJSON(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// listAll lists kontext's tools by name.
func listAll(t *testing.T, cs *mcp.ClientSession) map[string]*mcp.Tool {
	t.Helper()
	out := map[string]*mcp.Tool{}
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		out[tool.Name] = tool
	}
	return out
}

// waitForTools lists until every name is listed.
func waitForTools(t *testing.T, cs *mcp.ClientSession, names ...string) map[string]*mcp.Tool {
	t.Helper()
	for deadline := time.Now().Add(90 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		tools := listAll(t, cs)
		missing := false
		for _, n := range names {
			missing = missing || tools[n] == nil
		}
		if !missing {
			return tools
		}
		if time.Now().After(deadline) {
			t.Fatalf("kontext never listed %v; it lists %v", names, keys(tools))
		}
	}
}

func callText(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return textContent(t, res), res.IsError
}

func exposingConfig(node, dir string) string {
	everything := everythingScript(dir)
	return `[adapters.everything]
driver = "mcp"
command = [` + quote(node) + `, ` + quote(everything) + `, "stdio"]
expose = "all"

[[adapters.everything.tools]]
name = "say_back"
description = "Says the message back"
params = { message = "string!" }
op = { tool = "echo" }

[adapters.asker]
driver = "mcp"
command = [` + quote(node) + `, ` + quote(filepath.Join(dir, "ts-sdk-v1-server.mjs")) + `]
expose = "all"
prefix = ""
`
}

// Adapter tools served by a real kontext mcp to the Go SDK, in both eras:
// server-everything (expose = "all") under everything_<tool>, each with
// the schemas, annotations and description it has when the Go SDK asks
// the server itself; a tool declared in the configuration under exactly
// its name; a TypeScript SDK v1 server exposed without a prefix, whose
// ctx_search and apps_list never shadow kontext's and whose over-long name is cut to
// the budget. Calls are forwarded and answered as the adapter answers,
// with progress and cancellation passed through; the adapter's
// tools/list_changed becomes kontext's, and a server-initiated roots/list
// during a forwarded call gets the repository.
func TestAdaptersExposedTools(t *testing.T) {
	node, dir := npmDir(t)
	truth := everythingTools(t, node, everythingScript(dir))
	for _, era := range []struct{ name, ask string }{{"legacy", "2025-11-25"}, {"modern", "2026-07-28"}} {
		t.Run(era.name, func(t *testing.T) {
			repo := gitRepo(t)
			traces := t.TempDir()
			ev := newEvents()
			cs := startKnowledgeWith(t, knowledgeServer{repo: repo, config: exposingConfig(node, dir), traces: traces, ask: era.ask,
				client: &mcp.ClientOptions{
					ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { ev.add("tools", nil) },
					ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
						ev.add("progress", *r.Params)
					},
				}})
			if era.ask == "2026-07-28" {
				waitTrace(t, traceFile(traces, "kontext"), `"notifications/subscriptions/acknowledged"`, 1)
			}
			tools := waitForTools(t, cs, "everything_echo", "everything_get-roots-list", "say_back", "add-tool", "wait-for-cancel")

			t.Run("listed as the adapter lists them", func(t *testing.T) {
				for name, want := range truth {
					got := tools["everything_"+name]
					if got == nil {
						t.Errorf("everything's %s is not exposed as everything_%s", name, name)
						continue
					}
					if d := "[adapter] everything: " + want.Description; got.Description != d {
						t.Errorf("everything_%s: description %q, want %q", name, got.Description, d)
					}
					if !reflect.DeepEqual(asJSON(t, got.InputSchema), asJSON(t, want.InputSchema)) {
						t.Errorf("everything_%s: inputSchema %s, want the server's %s", name, mustMarshal(got.InputSchema), mustMarshal(want.InputSchema))
					}
					if !reflect.DeepEqual(asJSON(t, got.OutputSchema), asJSON(t, want.OutputSchema)) {
						t.Errorf("everything_%s: outputSchema %s, want %s", name, mustMarshal(got.OutputSchema), mustMarshal(want.OutputSchema))
					}
					if !reflect.DeepEqual(asJSON(t, got.Annotations), asJSON(t, want.Annotations)) {
						t.Errorf("everything_%s: annotations %s, want %s", name, mustMarshal(got.Annotations), mustMarshal(want.Annotations))
					}
				}
				for name := range tools {
					if down, ok := strings.CutPrefix(name, "everything_"); ok && truth[down] == nil {
						t.Errorf("%s is listed, and server-everything has no %s", name, down)
					}
					if !exposedNameRe.MatchString(name) {
						t.Errorf("tool name %q is outside [A-Za-z0-9_-]{1,48}", name)
					}
				}
				sayBack := tools["say_back"]
				if sayBack.Description != "[adapter] everything: Says the message back" {
					t.Errorf("say_back: description %q", sayBack.Description)
				}
				if got, want := mustMarshal(sayBack.InputSchema), `{"properties":{"message":{"type":"string"}},"required":["message"],"type":"object"}`; got != want {
					t.Errorf("say_back: inputSchema %s, want %s", got, want)
				}
				if search := tools["ctx_search"]; search == nil || strings.HasPrefix(search.Description, "[adapter]") || strings.Contains(search.Description, "Not kontext") {
					t.Errorf("ctx_search was shadowed: %+v", search)
				}
				// apps_list is the apps toolset's, which this run does not
				// serve: the name stays kontext's all the same.
				if tools["apps_list"] != nil {
					t.Errorf("the adapter's apps_list is served: %+v", tools["apps_list"])
				}
				var long []string
				for name := range tools {
					if strings.HasPrefix(name, "a-tool-whose-name-goes-on") {
						long = append(long, name)
					}
				}
				if len(long) != 1 || len(long[0]) != 48 {
					t.Errorf("the over-long downstream name became %v, want one name of 48 characters", long)
				} else if text, _ := callText(t, cs, long[0], nil); text != "long answers" {
					t.Errorf("%s answered %q", long[0], text)
				}
				t.Logf("%d tools listed, %d of them server-everything's; the long name is %v", len(tools), len(truth), long)
			})

			t.Run("calls forwarded", func(t *testing.T) {
				if text, isErr := callText(t, cs, "everything_echo", map[string]any{"message": "hello"}); isErr || text != "Echo: hello" {
					t.Errorf("everything_echo answered %q (isError %v)", text, isErr)
				}
				if text, isErr := callText(t, cs, "everything_get-sum", map[string]any{"a": 2, "b": 3}); isErr || !strings.Contains(text, "5") {
					t.Errorf("everything_get-sum answered %q (isError %v)", text, isErr)
				}
				if text, isErr := callText(t, cs, "say_back", map[string]any{"message": "tea"}); isErr || !strings.Contains(text, "Echo: tea") {
					t.Errorf("say_back answered %q (isError %v)", text, isErr)
				}
				if text, _ := callText(t, cs, "ctx_search", map[string]any{"query": "impostor"}); strings.Contains(text, "the impostor answers") {
					t.Errorf("ctx_search reached the adapter: %q", text)
				}
				if text, isErr := callText(t, cs, "everything_get-roots-list", nil); isErr || !strings.Contains(text, filepath.Base(repo)) {
					t.Errorf("everything_get-roots-list answered %q (isError %v), want the repository %s", text, isErr, repo)
				}
				// The adapter answers an isError result, and that is the answer.
				if text, isErr := callText(t, cs, "ask-sampling", nil); !isErr || !strings.Contains(text, "-32601") {
					t.Errorf("ask-sampling answered %q (isError %v), want the refusal -32601 as an isError result", text, isErr)
				}
			})

			t.Run("progress passed through", func(t *testing.T) {
				params := &mcp.CallToolParams{Name: "everything_trigger-long-running-operation", Arguments: map[string]any{"duration": 0.4, "steps": 2}}
				params.SetProgressToken("exposed-" + era.name)
				res, err := cs.CallTool(context.Background(), params)
				if err != nil || res.IsError || !strings.Contains(textContent(t, res), "Long running operation completed") {
					t.Fatalf("trigger-long-running-operation: %v %+v", err, res)
				}
				mine := func(v any) bool { return v.(mcp.ProgressNotificationParams).ProgressToken == "exposed-"+era.name }
				if !ev.waitFor("progress", 2, mine, 5*time.Second) {
					t.Fatalf("progress: %v, want 2 notifications with our token", ev.all("progress"))
				}
				var got []float64
				for _, v := range ev.all("progress") {
					if p := v.(mcp.ProgressNotificationParams); mine(p) {
						got = append(got, p.Progress, p.Total)
					}
				}
				if !reflect.DeepEqual(got, []float64{1, 2, 2, 2}) {
					t.Errorf("progress, total pairs %v, want 1 2 2 2", got)
				}
			})

			t.Run("cancellation passed through", func(t *testing.T) {
				ctx, cancel := context.WithCancel(context.Background())
				done := make(chan error, 1)
				go func() {
					_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "wait-for-cancel"})
					done <- err
				}()
				time.Sleep(500 * time.Millisecond)
				cancel()
				select {
				case err := <-done:
					if err == nil {
						t.Error("the cancelled call succeeded")
					}
				case <-time.After(10 * time.Second):
					t.Fatal("the cancelled call never returned")
				}
				for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
					if text, _ := callText(t, cs, "cancelled-count", nil); text == "1" {
						break
					} else if time.Now().After(deadline) {
						t.Fatalf("the adapter saw %s cancellations, want 1", text)
					}
				}
			})

			t.Run("tools/list_changed becomes ours", func(t *testing.T) {
				before := len(ev.all("tools"))
				if text, _ := callText(t, cs, "add-tool", nil); text != "added added-1" {
					t.Fatalf("add-tool answered %q", text)
				}
				if !ev.waitFor("tools", before+1, nil, 15*time.Second) {
					t.Fatal("no notifications/tools/list_changed after the adapter added a tool")
				}
				waitForTools(t, cs, "added-1")
				if text, _ := callText(t, cs, "added-1", nil); text != "added-1 answers" {
					t.Errorf("added-1 answered %q", text)
				}
			})

			finishKnowledge(t, cs, traces)
		})
	}
}

// With --read-only, the exposed tools kontext lists are exactly those
// server-everything marks readOnlyHint, and the declared tool, which
// carries no hints, is left out.
func TestAdaptersExposedToolsReadOnly(t *testing.T) {
	node, dir := npmDir(t)
	truth := everythingTools(t, node, everythingScript(dir))
	var want []string
	for name, tool := range truth {
		if tool.Annotations != nil && tool.Annotations.ReadOnlyHint {
			want = append(want, "everything_"+name)
		}
	}
	sort.Strings(want)
	if len(want) == 0 || len(want) == len(truth) {
		t.Fatalf("server-everything marks %d of %d tools read-only: the test needs some of each", len(want), len(truth))
	}
	repo := gitRepo(t)
	traces := t.TempDir()
	cs := startKnowledgeWith(t, knowledgeServer{repo: repo, config: exposingConfig(node, dir), traces: traces, args: []string{"--read-only"}})
	waitForTools(t, cs, want...)
	// The asker adapter starts as well; give its tools the time to be
	// listed, were they wrongly admitted.
	time.Sleep(time.Second)
	tools := listAll(t, cs)
	var got []string
	for name := range tools {
		if strings.HasPrefix(name, "everything_") {
			got = append(got, name)
		}
		if name == "say_back" || name == "add-tool" {
			t.Errorf("--read-only lists %s, which carries no readOnlyHint", name)
		}
	}
	sort.Strings(got)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("--read-only lists %v, want %v", got, want)
	}
	t.Logf("--read-only: %d of server-everything's %d tools", len(got), len(truth))
	finishKnowledge(t, cs, traces)
}

func mustMarshal(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
