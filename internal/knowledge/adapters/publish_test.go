package adapters

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/kontext-dev/kontext/internal/mcp"
)

// An exposing adapter's tools are served by a real kontext server once it
// serves: prefixed names, [adapter] descriptions, the downstream schemas
// byte for byte, forwarded calls; a name a toolset declares is never
// taken, and a declared tool answers with its op's text.
func TestPublishExposedAndDeclaredTools(t *testing.T) {
	d := helperMCP(t, "memory", map[string]any{"search": op("tool", "search_nodes")}, map[string]any{
		"expose": "all",
		"tools":  []any{map[string]any{"name": "lookup", "description": "look up", "op": "search", "params": map[string]any{"query": "string!"}}},
	})
	m, _ := newManager(t, Options{}, d)
	ro := mcp.Annotations{ReadOnly: mcp.Bool(true)}
	noop := func(context.Context, json.RawMessage) (*mcp.ToolResult, error) { return mcp.TextResult("ours"), nil }
	obj := json.RawMessage(`{"type":"object"}`)
	ts := &mcp.Toolset{Name: "knowledge", Tools: []*mcp.Tool{
		{Name: "ctx_search", Annotations: ro, InputSchema: obj, Call: noop},
		{Name: "memory_pid", Annotations: ro, InputSchema: obj, Call: noop},
	}}
	var p *Publisher
	ts.OnServe = func(s *mcp.Server) { p = m.Publish(s, "knowledge") }
	srv, err := mcp.NewServer(mcp.Implementation{Name: "kontext", Version: "t"}, mcp.Options{}, ts)
	if err != nil {
		t.Fatal(err)
	}
	if len(srv.Tools()) != 2 {
		t.Fatal("tools published before the server serves")
	}
	srv.Serving()
	t.Cleanup(func() { p.Close() })

	serverEnd, clientEnd := mcp.NewInMemoryTransport()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	go func() { _ = srv.Serve(ctx, serverEnd) }()
	changed := make(chan struct{}, 16)
	c, err := mcp.Connect(ctx, clientEnd, mcp.ClientOptions{Info: mcp.Implementation{Name: "t", Version: "1"}, Era: mcp.EraLegacy,
		OnNotification: func(method string, _ json.RawMessage) {
			if method == "notifications/tools/list_changed" {
				changed <- struct{}{}
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	byName := map[string]string{}
	var schema json.RawMessage
	for byName["memory_search_nodes"] == "" || byName["lookup"] == "" {
		select {
		case <-changed:
		case <-time.After(100 * time.Millisecond):
		case <-ctx.Done():
			t.Fatalf("adapter tools never listed: %v", byName)
		}
		tools, err := c.ListTools(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, tl := range tools {
			desc := ""
			if tl.Description != nil {
				desc = *tl.Description
			}
			byName[tl.Name] = desc + " "
			if tl.Name == "memory_search_nodes" {
				schema = tl.InputSchema
			}
		}
	}
	if got := byName["memory_search_nodes"]; got != "[adapter] memory: find entities " {
		t.Fatalf("description %q", got)
	}
	if got := byName["lookup"]; !strings.HasPrefix(got, "[adapter] memory: look up") {
		t.Fatalf("declared description %q", got)
	}
	if want := `{"type":"object","properties":{"query":{"type":"string"}},"required":["query"]}`; string(schema) != want {
		t.Fatalf("schema %s, want %s", schema, want)
	}
	if _, ok := byName["memory_memory_pid"]; ok {
		t.Fatal("prefix doubled")
	}
	res, err := c.CallTool(ctx, "memory_pid", nil)
	if err != nil || len(res.Content) == 0 || !strings.Contains(string(mustJSON(res.Content)), "ours") {
		t.Fatalf("memory_pid was shadowed: %s %v", mustJSON(res), err)
	}
	res, err = c.CallTool(ctx, "memory_search_nodes", map[string]any{"query": "invoices"})
	if err != nil || !strings.Contains(string(mustJSON(res.Content)), "Billing invoices") {
		t.Fatalf("forwarded call: %s %v", mustJSON(res), err)
	}
	res, err = c.CallTool(ctx, "lookup", map[string]any{"query": "invoices"})
	if err != nil || !strings.Contains(string(mustJSON(res.Content)), "Billing invoices") {
		t.Fatalf("declared call: %s %v", mustJSON(res), err)
	}
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// Exposed names keep to the tool name budget and character set: a name
// that fits stays, other characters become "_", a long name is cut and
// ends in a digest of the whole, the same on every run.
func TestExposedName(t *testing.T) {
	long := "everything_" + strings.Repeat("very-long-tool-name", 4)
	cases := map[string]string{
		"memory_search_nodes": "memory_search_nodes",
		"fs_read.file":        "fs_read_file",
		"fs_čítaj súbor":      "fs___taj_s_bor",
	}
	for in, want := range cases {
		if got := exposedName(in); got != want {
			t.Errorf("exposedName(%q) = %q, want %q", in, got, want)
		}
	}
	got := exposedName(long)
	if !mcp.IsToolName(got, mcp.ToolNameBudget) || len(got) != mcp.ToolNameBudget {
		t.Fatalf("exposedName(long) = %q (%d characters)", got, len(got))
	}
	if got != exposedName(long) || got == exposedName(long+"x") {
		t.Fatalf("the digest does not tell names apart: %q", got)
	}
	if !strings.HasPrefix(got, "everything_very-long-tool-name") {
		t.Fatalf("the cut name lost its start: %q", got)
	}
}

// A declared tool whose op names an MCP tool and no args passes its
// arguments to the tool's parameters of the same name; a tool that
// answers isError is the call's failure and starts no cool-down.
func TestDeclaredToolArgumentsAndAnsweredErrors(t *testing.T) {
	d := helperMCP(t, "helper", map[string]any{"search": op("tool", "search_nodes")}, map[string]any{
		"tools": []any{
			map[string]any{"name": "which_env", "params": map[string]any{"name": "string!"}, "op": map[string]any{"tool": "env"}},
			map[string]any{"name": "say_no", "params": map[string]any{"why": "string!"}, "op": map[string]any{"tool": "refuse"}},
		},
	})
	m, _ := newManager(t, Options{}, d)
	ctx := context.Background()
	text, err := m.CallDeclared(ctx, "helper", "which_env", json.RawMessage(`{"name":"HOME"}`))
	if err != nil || !strings.HasPrefix(text, "HOME=") {
		t.Fatalf("which_env: %q %v, want the env tool to get name=HOME", text, err)
	}
	if _, err := m.CallDeclared(ctx, "helper", "say_no", json.RawMessage(`{"why":"because"}`)); err == nil || !strings.Contains(err.Error(), `refused: {"why":"because"}`) {
		t.Fatalf("say_no: %v", err)
	}
	if st := m.Status()[0]; st.State == StateFailing {
		t.Fatalf("an isError answer cooled the adapter down: %+v", st)
	}
	if text, err := m.CallDeclared(ctx, "helper", "which_env", json.RawMessage(`{"name":"PATH"}`)); err != nil || !strings.HasPrefix(text, "PATH=") {
		t.Fatalf("which_env after the refusal: %q %v", text, err)
	}
}

// Whatever a downstream server calls its tool, the name kontext serves it
// under is a tool name within the budget, and the same every time.
func FuzzExposedName(f *testing.F) {
	for _, s := range []string{"memory_search_nodes", "fs_čítaj súbor", "", "_", strings.Repeat("x", 200), "a\x00b", "\xff\xfe"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		got := exposedName(name)
		if name == "" {
			return // a downstream tool always has a name; an empty one is refused when listed
		}
		if !mcp.IsToolName(got, mcp.ToolNameBudget) {
			t.Fatalf("exposedName(%q) = %q, not a tool name", name, got)
		}
		if exposedName(name) != got {
			t.Fatalf("exposedName(%q) is not stable", name)
		}
		if mcp.IsToolName(name, mcp.ToolNameBudget) && got != name {
			t.Fatalf("exposedName(%q) = %q changed a name that fits", name, got)
		}
	})
}

// A configuration that changes while kontext serves takes the published
// tools along: an adapter that stops exposing takes its tools away, and
// exposing again (with a declared tool added) brings them back.
func TestPublishFollowsTheConfiguration(t *testing.T) {
	exposing := func(extra map[string]any) *Definition {
		return helperMCP(t, "memory", map[string]any{"search": op("tool", "search_nodes")}, extra)
	}
	m, _ := newManager(t, Options{}, exposing(map[string]any{"expose": []any{"pid"}}))
	ts := &mcp.Toolset{Name: "knowledge"}
	var p *Publisher
	ts.OnServe = func(s *mcp.Server) { p = m.Publish(s, "knowledge") }
	srv, err := mcp.NewServer(mcp.Implementation{Name: "kontext", Version: "t"}, mcp.Options{}, ts)
	if err != nil {
		t.Fatal(err)
	}
	srv.Serving()
	t.Cleanup(func() { p.Close() })
	names := func() string {
		var out []string
		for _, tl := range srv.Tools() {
			out = append(out, tl.Name)
		}
		return strings.Join(out, ",")
	}
	waitFor := func(want string) {
		t.Helper()
		for deadline := time.Now().Add(20 * time.Second); names() != want; time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("tools %q, want %q", names(), want)
			}
		}
	}
	waitFor("memory_pid")
	m.Configure([]*Definition{exposing(nil)})
	waitFor("")
	m.Configure([]*Definition{exposing(map[string]any{
		"expose": "all",
		"tools":  []any{map[string]any{"name": "lookup", "op": "search", "params": map[string]any{"query": "string!"}}},
	})})
	waitAll(t, srv, "lookup", "memory_pid", "memory_search_nodes")
	m.Configure(nil)
	waitFor("")
}

// waitAll waits until srv serves every name.
func waitAll(t *testing.T, srv *mcp.Server, names ...string) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		served := map[string]bool{}
		for _, tl := range srv.Tools() {
			served[tl.Name] = true
		}
		all := true
		for _, n := range names {
			all = all && served[n]
		}
		if all {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("served %v, want %v", served, names)
		}
	}
}
