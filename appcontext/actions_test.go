package appcontext_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kontext-dev/kontext/appcontext"
)

// notifications collects what a Go SDK client is told.
type notifications struct {
	mu      sync.Mutex
	updated []string
	tools   int
	res     int
	signal  chan struct{}
}

func newNotifications() *notifications { return &notifications{signal: make(chan struct{}, 1000)} }

func (n *notifications) options() *mcp.ClientOptions {
	return &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			n.mu.Lock()
			n.tools++
			n.mu.Unlock()
			n.signal <- struct{}{}
		},
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) {
			n.mu.Lock()
			n.res++
			n.mu.Unlock()
			n.signal <- struct{}{}
		},
		ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) {
			n.mu.Lock()
			n.updated = append(n.updated, r.Params.URI)
			n.mu.Unlock()
			n.signal <- struct{}{}
		},
	}
}

// waitFor waits until cond holds of what was heard.
func (n *notifications) waitFor(t *testing.T, what string, cond func(n *notifications) bool) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		n.mu.Lock()
		ok := cond(n)
		n.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-n.signal:
		case <-deadline:
			n.mu.Lock()
			defer n.mu.Unlock()
			t.Fatalf("never heard %s; heard updates %v, %d tool and %d resource list changes", what, n.updated, n.tools, n.res)
		}
	}
}

func (n *notifications) count(uri string) int {
	n.mu.Lock()
	defer n.mu.Unlock()
	c := 0
	for _, u := range n.updated {
		if u == uri {
			c++
		}
	}
	return c
}

func toolsByName(t *testing.T, cs *mcp.ClientSession) map[string]*mcp.Tool {
	t.Helper()
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*mcp.Tool{}
	for _, tool := range res.Tools {
		if out[tool.Name] != nil {
			t.Errorf("tools/list names %s twice", tool.Name)
		}
		out[tool.Name] = tool
	}
	return out
}

func registrationID(t *testing.T, tool *mcp.Tool) string {
	t.Helper()
	action, _ := tool.Meta[appcontext.MetaAction].(map[string]any)
	id, _ := action["registrationId"].(string)
	if id == "" {
		t.Fatalf("tool %s has no %s registrationId: %v", tool.Name, appcontext.MetaAction, tool.Meta)
	}
	return id
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func readText(t *testing.T, cs *mcp.ClientSession, uri string) string {
	t.Helper()
	res, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		t.Fatalf("reading %s: %v", uri, err)
	}
	if len(res.Contents) != 1 {
		t.Fatalf("reading %s: %d contents", uri, len(res.Contents))
	}
	return res.Contents[0].Text
}

// TestRegisterValidation: what Register refuses, and why.
func TestRegisterValidation(t *testing.T) {
	app := newApp(t, "")
	ok := func(context.Context, json.RawMessage) (any, error) { return nil, nil }
	for _, c := range []struct {
		name   string
		action appcontext.Action
		want   string
	}{
		{"no name", appcontext.Action{InputSchema: emptySchema, Handler: ok}, "needs a name"},
		{"no handler", appcontext.Action{Name: "a", InputSchema: emptySchema}, "no handler"},
		{"no schema", appcontext.Action{Name: "a", Handler: ok}, "not a JSON object"},
		{"schema not an object", appcontext.Action{Name: "a", InputSchema: json.RawMessage(`[]`), Handler: ok}, "not a JSON object"},
		{"missing $schema", appcontext.Action{Name: "a", InputSchema: json.RawMessage(`{"type":"object"}`), Handler: ok}, `"$schema"`},
		{"empty $schema", appcontext.Action{Name: "a", InputSchema: json.RawMessage(`{"$schema":"","type":"object"}`), Handler: ok}, `"$schema"`},
		{"$schema not a string", appcontext.Action{Name: "a", InputSchema: json.RawMessage(`{"$schema":2020,"type":"object"}`), Handler: ok}, "$schema"},
		{"unknown dialect", appcontext.Action{Name: "a", InputSchema: json.RawMessage(`{"$schema":"https://example.invalid/dialect","type":"object"}`), Handler: ok}, "does not compile"},
		{"not an object schema", appcontext.Action{Name: "a", InputSchema: json.RawMessage(`{"$schema":"` + dialect + `","type":"string"}`), Handler: ok}, "describe an object"},
		{"invalid schema", appcontext.Action{Name: "a", InputSchema: json.RawMessage(`{"$schema":"` + dialect + `","type":"object","properties":{"x":{"type":"text"}}}`), Handler: ok}, "does not compile"},
		{"output schema not JSON", appcontext.Action{Name: "a", InputSchema: emptySchema, OutputSchema: json.RawMessage(`{`), Handler: ok}, "output schema"},
		{"name not UTF-8", appcontext.Action{Name: "a\xffb", InputSchema: emptySchema, Handler: ok}, "name"},
		{"name with a control character", appcontext.Action{Name: "a\nb", InputSchema: emptySchema, Handler: ok}, "name"},
		{"blank name", appcontext.Action{Name: "   ", InputSchema: emptySchema, Handler: ok}, "name"},
		{"name with surrounding space", appcontext.Action{Name: " add", InputSchema: emptySchema, Handler: ok}, "name"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := app.Register(c.action)
			if err == nil {
				t.Fatalf("Register took %+v", c.action)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("Register: %v, want it to mention %q", err, c.want)
			}
		})
	}
	// An explicit older dialect is a dialect.
	if err := app.Register(appcontext.Action{Name: "draft7", InputSchema: json.RawMessage(`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object"}`), Handler: ok}); err != nil {
		t.Errorf("a draft-07 schema: %v", err)
	}
}

// TestRegisterNames: an action's name reaches the client as given, even
// when it is long, Unicode, or holds URL punctuation.
func TestRegisterNames(t *testing.T) {
	app := newApp(t, t.TempDir())
	names := []string{"list_notes", "zápisník poznámok", strings.Repeat("dlhé_", 60), "a#b", "50%off", "a/b", "what?", "x.y-z"}
	for _, name := range names {
		err := app.Register(appcontext.Action{Name: name, Description: "d", InputSchema: emptySchema,
			Handler: func(context.Context, json.RawMessage) (any, error) { return "ran " + name, nil }})
		if err != nil {
			t.Errorf("Register(%q): %v", name, err)
		}
	}
	s := serve(t, app)
	cs := connect(t, s.m, "", nil)
	tools := toolsByName(t, cs)
	for _, name := range names {
		if tools[name] == nil {
			t.Errorf("tools/list lacks %q", name)
			continue
		}
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: map[string]any{}})
		if err != nil || res.IsError || text(res) != "ran "+name {
			t.Errorf("calling %q: %v %+v", name, err, res)
		}
	}
}

// testApp is an application with one action of each kind.
func testApp(t *testing.T) *appcontext.App {
	t.Helper()
	app, err := appcontext.New(appcontext.Options{AppID: "dev.example.test", Name: "Test", Version: "1.2.3", RuntimeDir: t.TempDir(),
		Events: []appcontext.EventType{{Type: "pinged", Description: "ping ran"}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range []appcontext.Action{
		{Name: "echo", Title: "Echo", Description: "Returns its text.",
			InputSchema:  json.RawMessage(`{"$schema":"` + dialect + `","type":"object","properties":{"text":{"type":"string"}},"required":["text"],"additionalProperties":false}`),
			OutputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`),
			Annotations:  appcontext.Annotations{ReadOnlyHint: ptr(true), OpenWorldHint: ptr(false)},
			Handler: func(_ context.Context, args json.RawMessage) (any, error) {
				var in struct{ Text string }
				if err := json.Unmarshal(args, &in); err != nil {
					return nil, err
				}
				return map[string]string{"text": in.Text}, nil
			}},
		{Name: "fail", Description: "Fails.", InputSchema: emptySchema, Annotations: appcontext.Annotations{ReadOnlyHint: ptr(true)},
			Handler: func(context.Context, json.RawMessage) (any, error) { return nil, errors.New("it broke") }},
		{Name: "wipe", Description: "Wipes.", InputSchema: emptySchema,
			Annotations:  appcontext.Annotations{ReadOnlyHint: ptr(false), DestructiveHint: ptr(true)},
			Confirmation: &appcontext.Confirmation{Prompt: "Wipe everything?"},
			Handler:      func(context.Context, json.RawMessage) (any, error) { return "wiped", nil }},
		{Name: "bare", Description: "States no hints.", InputSchema: emptySchema,
			Handler: func(context.Context, json.RawMessage) (any, error) { return nil, nil }},
	} {
		if err := app.Register(a); err != nil {
			t.Fatal(err)
		}
	}
	return app
}

// TestActions: the actions as an unmodified Go SDK client sees and calls
// them, in both eras.
func TestActions(t *testing.T) {
	s := serve(t, testApp(t))
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			cs := connect(t, s.m, era.version, nil)
			tools := toolsByName(t, cs)
			if got := len(tools); got != 4 {
				t.Fatalf("%d tools, want 4", got)
			}
			echo := tools["echo"]
			if echo.Title != "Echo" || echo.Description != "Returns its text." || !echo.Annotations.ReadOnlyHint || echo.Annotations.OpenWorldHint == nil || *echo.Annotations.OpenWorldHint {
				t.Errorf("echo: %+v %+v", echo, echo.Annotations)
			}
			in, _ := json.Marshal(echo.InputSchema)
			if !strings.Contains(string(in), `"$schema":"`+dialect+`"`) {
				t.Errorf("echo's input schema lost its dialect: %s", in)
			}
			if echo.OutputSchema == nil {
				t.Errorf("echo lost its output schema")
			}
			wipe := tools["wipe"]
			if wipe.Annotations == nil || wipe.Annotations.DestructiveHint == nil || !*wipe.Annotations.DestructiveHint {
				t.Errorf("wipe's destructiveHint: %+v", wipe.Annotations)
			}
			action, _ := wipe.Meta[appcontext.MetaAction].(map[string]any)
			conf, _ := action["confirmation"].(map[string]any)
			if conf["required"] != true || conf["prompt"] != "Wipe everything?" {
				t.Errorf("wipe's %s: %v", appcontext.MetaAction, wipe.Meta)
			}
			if bare := tools["bare"]; bare.Annotations != nil && (bare.Annotations.DestructiveHint != nil || bare.Annotations.ReadOnlyHint || bare.Annotations.OpenWorldHint != nil) {
				t.Errorf("bare states hints it was not given: %+v", bare.Annotations)
			}
			for name, tool := range tools {
				if registrationID(t, tool) == "" {
					t.Errorf("%s has no registrationId", name)
				}
			}

			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hej"}})
			if err != nil || res.IsError {
				t.Fatalf("echo: %v %+v", err, res)
			}
			if got, _ := json.Marshal(res.StructuredContent); string(got) != `{"text":"hej"}` {
				t.Errorf("echo's structured content %s", got)
			}
			// Arguments that break the schema never reach the handler.
			if res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": 5}}); err == nil && !res.IsError {
				t.Errorf("echo took a number: %+v", res)
			}
			if res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "fail", Arguments: map[string]any{}}); err != nil || !res.IsError || !strings.Contains(text(res), "it broke") {
				t.Errorf("fail: %v %+v", err, res)
			}
			if res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "bare", Arguments: map[string]any{}}); err != nil || res.IsError || text(res) != "done" {
				t.Errorf("bare (nil result): %v %q", err, text(res))
			}
			// A confirmation-required action runs only when the call says
			// the user confirmed it.
			res, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "wipe", Arguments: map[string]any{}})
			if err != nil || !res.IsError || !strings.Contains(text(res), "confirmation") {
				t.Errorf("wipe without confirmation: %v %+v %q", err, res, text(res))
			}
			res, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "wipe", Arguments: map[string]any{}, Meta: mcp.Meta{appcontext.MetaConfirmed: "true"}})
			if err != nil || !res.IsError {
				t.Errorf("wipe confirmed with the string \"true\" ran: %v %q", err, text(res))
			}
			res, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "wipe", Arguments: map[string]any{}, Meta: mcp.Meta{appcontext.MetaConfirmed: true}})
			if err != nil || res.IsError || text(res) != "wiped" {
				t.Errorf("wipe confirmed: %v %q", err, text(res))
			}
		})
	}
}

// TestReregister: registering an action again serves the new handler
// under the same name with a new registrationId, one tool, and tells the
// client the list changed.
func TestReregister(t *testing.T) {
	app := newApp(t, t.TempDir())
	version := func(v string) appcontext.Action {
		return appcontext.Action{Name: "which", Description: "Says which registration answers.", InputSchema: emptySchema,
			Annotations: appcontext.Annotations{ReadOnlyHint: ptr(true)},
			Handler:     func(context.Context, json.RawMessage) (any, error) { return v, nil }}
	}
	if err := app.Register(version("first")); err != nil {
		t.Fatal(err)
	}
	s := serve(t, app)
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			n := newNotifications()
			cs := connect(t, s.m, era.version, n.options())
			before := registrationID(t, toolsByName(t, cs)["which"])
			if res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "which"}); err != nil || text(res) != "first" && text(res) != "second" {
				t.Fatalf("which: %v %q", err, text(res))
			}
			// The same action, unchanged, registered again.
			if err := app.Register(version("second")); err != nil {
				t.Fatalf("registering again: %v", err)
			}
			n.waitFor(t, "tools/list_changed", func(n *notifications) bool { return n.tools > 0 })
			tools := toolsByName(t, cs)
			if len(tools) != 1 {
				t.Errorf("%d tools after registering again, want 1", len(tools))
			}
			if after := registrationID(t, tools["which"]); after == before {
				t.Errorf("the registrationId stayed %s across a registration", after)
			}
			if res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "which"}); err != nil || text(res) != "second" {
				t.Errorf("which after registering again: %v %q, want second", err, text(res))
			}
		})
	}
}

// TestRegisterConcurrently: registering one new action from several
// goroutines at once is several registrations, never an error.
func TestRegisterConcurrently(t *testing.T) {
	app := newApp(t, "")
	for i := range 50 {
		name := fmt.Sprintf("action_%d", i)
		var wg sync.WaitGroup
		start := make(chan struct{})
		errs := make(chan error, 8)
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				errs <- app.Register(appcontext.Action{Name: name, InputSchema: emptySchema,
					Handler: func(context.Context, json.RawMessage) (any, error) { return nil, nil }})
			}()
		}
		close(start)
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatalf("concurrent registration of %s: %v", name, err)
			}
		}
	}
}

// TestState: SetState publishes keys as resources, tells subscribers of
// the key and of the whole state, and a new key changes the list.
func TestState(t *testing.T) {
	app := testApp(t)
	if err := app.SetState("count", 0); err != nil {
		t.Fatal(err)
	}
	if err := app.SetState("", 1); err == nil {
		t.Errorf("SetState took an empty key")
	}
	if err := app.SetState("bad", func() {}); err == nil {
		t.Errorf("SetState took a value that is not JSON")
	}
	s := serve(t, app)
	prefix := "appcontext://apps/dev.example.test/" + app.InstanceID() + "/"
	for _, era := range eras {
		t.Run(era.name, func(t *testing.T) {
			n := newNotifications()
			cs := connect(t, s.m, era.version, n.options())
			if err := app.SetState("count", 0); err != nil { // start every era from the same state
				t.Fatal(err)
			}
			if got := readText(t, cs, prefix+"state/count"); got != "0" {
				t.Errorf("state/count = %s, want 0", got)
			}
			res, err := cs.ListResources(t.Context(), nil)
			if err != nil {
				t.Fatal(err)
			}
			uris := []string{}
			for _, r := range res.Resources {
				uris = append(uris, r.URI)
			}
			for _, want := range []string{prefix + "state", prefix + "events", prefix + "state/count"} {
				if !slices.Contains(uris, want) {
					t.Errorf("resources/list %v lacks %s", uris, want)
				}
			}
			tpl, err := cs.ListResourceTemplates(t.Context(), nil)
			if err != nil || len(tpl.ResourceTemplates) != 1 || tpl.ResourceTemplates[0].URITemplate != prefix+"state/{key}" {
				t.Errorf("resource templates: %v %+v", err, tpl)
			}

			for _, uri := range []string{prefix + "state/count", prefix + "state"} {
				if err := cs.Subscribe(t.Context(), &mcp.SubscribeParams{URI: uri}); err != nil {
					t.Fatalf("subscribing to %s: %v", uri, err)
				}
			}
			if err := app.SetState("count", 1); err != nil {
				t.Fatal(err)
			}
			n.waitFor(t, "updates of state/count and state", func(n *notifications) bool {
				return slices.Contains(n.updated, prefix+"state/count") && slices.Contains(n.updated, prefix+"state")
			})
			if got := readText(t, cs, prefix+"state/count"); got != "1" {
				t.Errorf("state/count = %s after SetState 1", got)
			}
			// The same value again is no change.
			keyUpdates := n.count(prefix + "state/count")
			if err := app.SetState("count", 1); err != nil {
				t.Fatal(err)
			}
			// A new key: the list changes and the whole state is updated.
			key := "tags_" + era.name
			if err := app.SetState(key, []string{"a", "b"}); err != nil {
				t.Fatal(err)
			}
			n.waitFor(t, "resources/list_changed", func(n *notifications) bool { return n.res > 0 })
			if got := n.count(prefix + "state/count"); got != keyUpdates {
				t.Errorf("setting count to the value it had sent %d more updates of it", got-keyUpdates)
			}
			var all map[string]json.RawMessage
			if err := json.Unmarshal([]byte(readText(t, cs, prefix+"state")), &all); err != nil {
				t.Fatal(err)
			}
			if string(all["count"]) != "1" || string(all[key]) != `["a","b"]` {
				t.Errorf("state = %v", all)
			}
		})
	}
}

// TestEvents: Emit journals only while the events resource is
// subscribed, numbers events from 1 and tells the subscriber.
func TestEvents(t *testing.T) {
	app := testApp(t)
	if err := app.Emit("", nil); err == nil {
		t.Errorf("Emit took an empty type")
	}
	if err := app.Emit("pinged", make(chan int)); err == nil {
		t.Errorf("Emit took data that is not JSON")
	}
	s := serve(t, app)
	uri := "appcontext://apps/dev.example.test/" + app.InstanceID() + "/events"
	n := newNotifications()
	cs := connect(t, s.m, "2025-11-25", n.options())
	type snapshot struct {
		FirstSeq, LastSeq, Dropped uint64
		Events                     []struct {
			Seq  uint64
			Type string
			Data json.RawMessage
		}
	}
	read := func() snapshot {
		var j snapshot
		if err := json.Unmarshal([]byte(readText(t, cs, uri)), &j); err != nil {
			t.Fatal(err)
		}
		return j
	}
	// Nobody follows the events: nothing is kept.
	if err := app.Emit("pinged", map[string]int{"n": 0}); err != nil {
		t.Fatal(err)
	}
	if j := read(); len(j.Events) != 0 {
		t.Errorf("an event emitted with no subscriber was journalled: %+v", j)
	}
	if err := cs.Subscribe(t.Context(), &mcp.SubscribeParams{URI: uri}); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 3; i++ {
		if err := app.Emit("pinged", map[string]int{"n": i}); err != nil {
			t.Fatal(err)
		}
	}
	n.waitFor(t, "an update of the events resource", func(n *notifications) bool { return slices.Contains(n.updated, uri) })
	j := read()
	if len(j.Events) != 3 || j.FirstSeq != 1 || j.LastSeq != 3 || j.Dropped != 0 {
		t.Fatalf("the journal after 3 events: %+v", j)
	}
	for i, ev := range j.Events {
		if ev.Seq != uint64(i+1) || ev.Type != "pinged" || string(ev.Data) != fmt.Sprintf(`{"n":%d}`, i+1) {
			t.Errorf("event %d: %+v", i, ev)
		}
	}
	if err := cs.Unsubscribe(t.Context(), &mcp.UnsubscribeParams{URI: uri}); err != nil {
		t.Fatal(err)
	}
	if err := app.Emit("pinged", nil); err != nil {
		t.Fatal(err)
	}
	if j := read(); len(j.Events) != 0 {
		t.Errorf("the journal after the subscriber left: %+v", j)
	}
	// The sequence goes on across subscriptions; it is never reused.
	if err := cs.Subscribe(t.Context(), &mcp.SubscribeParams{URI: uri}); err != nil {
		t.Fatal(err)
	}
	if err := app.Emit("pinged", nil); err != nil {
		t.Fatal(err)
	}
	if j := read(); len(j.Events) != 1 || j.Events[0].Seq <= 3 {
		t.Errorf("the journal after subscribing again: %+v, want one event numbered after 3", j)
	}
}
