package mcp

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"testing"
	"time"
)

// connectPair serves srv over an in-memory transport and connects a client
// in the given era; notifications reach notes.
func connectPair(t *testing.T, srv *Server, era Era, notes func(method string, params json.RawMessage)) *Client {
	t.Helper()
	serverEnd, clientEnd := NewInMemoryTransport()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = srv.Serve(ctx, serverEnd); close(done) }()
	c, err := Connect(context.Background(), clientEnd, ClientOptions{Info: Implementation{Name: "t", Version: "1"}, Era: era, OnNotification: notes})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close(); cancel(); serverEnd.Close(); <-done })
	return c
}

func echoTool(name string) *Tool {
	return &Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`), Annotations: Annotations{ReadOnly: Bool(true)},
		Call: func(context.Context, json.RawMessage) (*ToolResult, error) { return TextResult(name), nil }}
}

// A tool's Meta is advertised as its _meta, and ResultMeta rides on the
// handshake of either era, where the client keeps it.
func TestToolMetaAndResultMetaReachTheClient(t *testing.T) {
	tool := echoTool("a")
	tool.Meta = json.RawMessage(`{"org.example/origin":{"app":"notes"}}`)
	for _, era := range []Era{EraLegacy, EraModern} {
		t.Run(string(era), func(t *testing.T) {
			srv, err := NewServer(Implementation{Name: "s", Version: "1"}, Options{ResultMeta: map[string]any{"org.example/instance": map[string]string{"id": "x1"}}},
				&Toolset{Name: "t", Tools: []*Tool{tool}})
			if err != nil {
				t.Fatal(err)
			}
			c := connectPair(t, srv, era, nil)
			var meta map[string]json.RawMessage
			if err := json.Unmarshal(c.ResultMeta, &meta); err != nil {
				t.Fatalf("ResultMeta %s: %v", c.ResultMeta, err)
			}
			if string(meta["org.example/instance"]) != `{"id":"x1"}` {
				t.Fatalf("ResultMeta = %s", c.ResultMeta)
			}
			if era == EraModern && c.ServerInfo.Name != "s" {
				t.Fatalf("modern serverInfo not read from _meta: %+v", c.ServerInfo)
			}
			tools, err := c.ListTools(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if len(tools) != 1 || string(tools[0].Meta) != string(tool.Meta) {
				t.Fatalf("tools = %+v", tools)
			}
		})
	}
}

// recorder collects notifications by method.
type recorder struct {
	mu    sync.Mutex
	notes []string
}

func (r *recorder) add(method string, params json.RawMessage) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var p struct {
		URI string `json:"uri"`
	}
	_ = json.Unmarshal(params, &p)
	if p.URI != "" {
		method += " " + p.URI
	}
	r.notes = append(r.notes, method)
}

func (r *recorder) count(method string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, m := range r.notes {
		if m == method {
			n++
		}
	}
	return n
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

// ReplaceTools is one change: one list_changed, and a name taken by a tool
// that stays refuses the whole change.
func TestReplaceToolsIsOneChange(t *testing.T) {
	srv, err := NewServer(Implementation{Name: "s", Version: "1"}, Options{}, &Toolset{Name: "t", Tools: []*Tool{echoTool("keep"), echoTool("old")}})
	if err != nil {
		t.Fatal(err)
	}
	var rec recorder
	c := connectPair(t, srv, EraLegacy, rec.add)
	if err := srv.ReplaceTools([]string{"old"}, []*Tool{echoTool("new1"), echoTool("new2"), echoTool("old")}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "list_changed", func() bool { return rec.count("notifications/tools/list_changed") == 1 })
	if err := srv.ReplaceTools(nil, []*Tool{echoTool("keep")}); err == nil {
		t.Fatal("a name in use was accepted")
	}
	tools, err := c.ListTools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
	}
	if want := []string{"keep", "new1", "new2", "old"}; !slices.Equal(names, want) {
		t.Fatalf("tools = %v, want %v", names, want)
	}
	time.Sleep(50 * time.Millisecond)
	if n := rec.count("notifications/tools/list_changed"); n != 1 {
		t.Fatalf("%d list_changed, want 1", n)
	}
}

// Under ListChangedDebounce a burst of changes is one notification of each
// kind, and one update per URI.
func TestListChangedDebounceCoalescesABurst(t *testing.T) {
	res := &Resource{URI: "x://a", Name: "a", Read: func(context.Context) (*ResourceContents, error) {
		return &ResourceContents{URI: "x://a", Text: "a"}, nil
	}}
	srv, err := NewServer(Implementation{Name: "s", Version: "1"}, Options{ListChangedDebounce: 40 * time.Millisecond},
		&Toolset{Name: "t", Tools: []*Tool{echoTool("base")}, Resources: []*Resource{res}})
	if err != nil {
		t.Fatal(err)
	}
	var rec recorder
	c := connectPair(t, srv, EraLegacy, rec.add)
	if err := c.Subscribe(context.Background(), "x://a"); err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		if err := srv.AddTool(echoTool("t" + string(rune('a'+i)))); err != nil {
			t.Fatal(err)
		}
		srv.ResourcesChanged()
		srv.ResourceUpdated("x://a")
	}
	waitFor(t, "the burst", func() bool { return rec.count("notifications/resources/updated x://a") == 1 })
	time.Sleep(100 * time.Millisecond)
	for method, want := range map[string]int{"notifications/tools/list_changed": 1, "notifications/resources/list_changed": 1, "notifications/resources/updated x://a": 1} {
		if n := rec.count(method); n != want {
			t.Errorf("%s: %d, want %d (%v)", method, n, want, rec.notes)
		}
	}
}

// OnSubscription hears the first follower of a URI and the last one
// leaving, whether by unsubscribe, a listen stream's end or a session's end.
func TestOnSubscriptionCountsFollowers(t *testing.T) {
	var mu sync.Mutex
	var events []string
	res := &Resource{URI: "x://a", Name: "a", Read: func(context.Context) (*ResourceContents, error) {
		return &ResourceContents{URI: "x://a", Text: "a"}, nil
	}}
	srv, err := NewServer(Implementation{Name: "s", Version: "1"}, Options{OnSubscription: func(uri string, active bool) {
		mu.Lock()
		defer mu.Unlock()
		state := "off"
		if active {
			state = "on"
		}
		events = append(events, uri+" "+state)
	}}, &Toolset{Name: "t", Tools: []*Tool{echoTool("base")}, Resources: []*Resource{res}})
	if err != nil {
		t.Fatal(err)
	}
	got := func() []string { mu.Lock(); defer mu.Unlock(); return slices.Clone(events) }
	ctx := context.Background()
	a := connectPair(t, srv, EraLegacy, nil)
	b := connectPair(t, srv, EraLegacy, nil)
	if err := a.Subscribe(ctx, "x://a"); err != nil {
		t.Fatal(err)
	}
	if err := a.Subscribe(ctx, "x://a"); err != nil { // twice in one session counts once
		t.Fatal(err)
	}
	if err := b.Subscribe(ctx, "x://a"); err != nil {
		t.Fatal(err)
	}
	if err := a.call(ctx, "resources/unsubscribe", map[string]string{"uri": "x://a"}, nil); err != nil {
		t.Fatal(err)
	}
	if g := got(); !slices.Equal(g, []string{"x://a on"}) {
		t.Fatalf("after one of two left: %v", g)
	}
	_ = b.Close()
	waitFor(t, "the session's end", func() bool { return len(got()) == 2 })
	m := connectPair(t, srv, EraModern, nil)
	if err := m.Subscribe(ctx, "x://a"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the listen stream", func() bool { return len(got()) == 3 })
	_ = m.Close()
	waitFor(t, "the listen stream's end", func() bool { return len(got()) == 4 })
	if g := got(); !slices.Equal(g, []string{"x://a on", "x://a off", "x://a on", "x://a off"}) {
		t.Fatalf("events = %v", g)
	}
}

// A hidden tool answers calls and is never listed.
func TestHiddenToolsAreCallableButNotListed(t *testing.T) {
	hidden := echoTool("old_name")
	hidden.Hidden = true
	srv, err := NewServer(Implementation{Name: "s", Version: "1"}, Options{}, &Toolset{Name: "t", Tools: []*Tool{echoTool("a"), hidden}})
	if err != nil {
		t.Fatal(err)
	}
	for _, era := range []Era{EraLegacy, EraModern} {
		c := connectPair(t, srv, era, nil)
		tools, err := c.ListTools(context.Background())
		if err != nil || len(tools) != 1 || tools[0].Name != "a" {
			t.Fatalf("%s: tools = %+v, %v", era, tools, err)
		}
		res, err := c.CallTool(context.Background(), "old_name", nil)
		if err != nil || res.IsError != nil && *res.IsError {
			t.Fatalf("%s: calling the hidden tool: %+v, %v", era, res, err)
		}
	}
}
