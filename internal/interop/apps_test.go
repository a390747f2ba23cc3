package interop_test

// End-to-end tests of the apps toolset (seeds/002): real examples/notes
// processes, and applications made here with the appcontext package, under
// a real `kontext mcp --toolsets apps` driven by the official Go SDK in both
// eras (and by the TypeScript SDK in apps_typescript_test.go). Every message
// the broker writes is validated against the official schema of its
// revision.

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base32"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kontext-dev/kontext/appcontext"
	"github.com/kontext-dev/kontext/internal/apps/journal"
	"github.com/kontext-dev/kontext/internal/apps/results"
)

// The typed tools' names: the seed's character set, the default budget.
var typedName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,48}$`)

// notesSchema is add_note's input schema exactly as examples/notes
// registers it; the broker must advertise these bytes.
const notesSchema = `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"text":{"type":"string","minLength":1,"maxLength":10000}},"required":["text"],"additionalProperties":false}`

// notesProc is one running examples/notes.
type notesProc struct {
	cmd     *exec.Cmd
	id      string // its instanceId
	path    string // its manifest
	stderr  *syncBuffer
	done    chan error
	stopped bool
}

var instanceLine = regexp.MustCompile(`notes: instance (\S+), manifest (\S+)`)

// startNotes starts examples/notes with its manifest under rt and waits
// until it says where the manifest is.
func startNotes(t *testing.T, rt string, args ...string) *notesProc {
	t.Helper()
	cmd := exec.Command(notesBin, args...)
	cmd.Env = append(os.Environ(), "APPCONTEXT_RUNTIME_DIR="+rt)
	cmd.Dir = t.TempDir()
	p := &notesProc{cmd: cmd, stderr: &syncBuffer{}, done: make(chan error, 1)}
	cmd.Stderr = p.stderr
	logOnFailure(t, "notes "+strings.Join(args, " "), p.stderr)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.done <- cmd.Wait() }()
	t.Cleanup(func() { p.stop(t) })
	deadline := time.Now().Add(15 * time.Second)
	for {
		if m := instanceLine.FindStringSubmatch(p.stderr.String()); m != nil {
			p.id, p.path = m[1], m[2]
			return p
		}
		if time.Now().After(deadline) {
			t.Fatalf("examples/notes never said where its manifest is:\n%s", p.stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// stop ends the application as a user would (SIGTERM): it must exit 0 and
// take its manifest with it.
func (p *notesProc) stop(t *testing.T) {
	t.Helper()
	if p.stopped {
		return
	}
	p.stopped = true
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-p.done:
		if err != nil {
			t.Errorf("examples/notes after SIGTERM: %v, want exit status 0", err)
		}
	case <-time.After(15 * time.Second):
		_ = p.cmd.Process.Kill()
		t.Errorf("examples/notes did not exit on SIGTERM")
	}
	if _, err := os.Stat(p.path); !os.IsNotExist(err) {
		t.Errorf("the manifest %s outlived a clean exit (%v)", p.path, err)
	}
}

// appsBroker is a real kontext mcp --toolsets apps under a Go SDK client.
type appsBroker struct {
	cs     *mcp.ClientSession
	ev     *events
	stderr *syncBuffer
	traces string
	ctx    context.Context
}

type brokerOptions struct {
	ask  string   // the revision the client asks for
	args []string // more flags of kontext mcp
	// elicit answers the broker's questions; nil leaves the client
	// without the elicitation capability.
	elicit func(*mcp.ElicitRequest) (*mcp.ElicitResult, error)
}

func startBroker(t *testing.T, rt string, o brokerOptions) *appsBroker {
	t.Helper()
	requireSetup(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	b := &appsBroker{ev: newEvents(), stderr: &syncBuffer{}, traces: t.TempDir(), ctx: ctx}
	cmd := exec.Command(kontextBin, append([]string{"mcp", "--toolsets", "apps", "--log-level", "warn"}, o.args...)...)
	cmd.Env = append(os.Environ(), "APPCONTEXT_RUNTIME_DIR="+rt, "KONTEXT_TRACE="+traceFile(b.traces, "kontext"), "KONTEXT_CONFIG_DIR="+t.TempDir())
	cmd.Dir = t.TempDir()
	cmd.Stderr = b.stderr
	logOnFailure(t, "kontext mcp --toolsets apps", b.stderr)
	copts := &mcp.ClientOptions{
		ToolListChangedHandler:     func(context.Context, *mcp.ToolListChangedRequest) { b.ev.add("tools", nil) },
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) { b.ev.add("resources", nil) },
		ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) {
			b.ev.add("updated", r.Params.URI)
		},
	}
	if o.elicit != nil {
		copts.ElicitationHandler = func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			b.ev.add("elicit", r.Params.Message)
			return o.elicit(r)
		}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "apps-e2e", Version: "1"}, copts)
	cctx, ccancel := context.WithTimeout(ctx, 20*time.Second)
	defer ccancel()
	cs, err := client.Connect(cctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: o.ask})
	if err != nil {
		t.Fatalf("connecting to kontext mcp --toolsets apps: %v", err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	b.cs = cs
	return b
}

// finish ends the session and validates every message the broker wrote.
func (b *appsBroker) finish(t *testing.T) {
	t.Helper()
	_ = b.cs.Close()
	validateWire(t, readTraces(t, tracesIn(t, b.traces)))
}

// call runs a tool; a protocol error fails the test.
func (b *appsBroker) call(t *testing.T, name string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := b.cs.CallTool(b.ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	return res
}

// callOK runs a tool that must succeed.
func (b *appsBroker) callOK(t *testing.T, name string, args any) *mcp.CallToolResult {
	t.Helper()
	res := b.call(t, name, args)
	if res.IsError {
		t.Fatalf("%s %v failed: %s", name, args, textContent(t, res))
	}
	return res
}

// callFails runs a tool that must answer isError, and returns its text.
func (b *appsBroker) callFails(t *testing.T, name string, args any) string {
	t.Helper()
	res := b.call(t, name, args)
	if !res.IsError {
		t.Fatalf("%s %v succeeded, want a tool error: %s", name, args, textContent(t, res))
	}
	return textContent(t, res)
}

// structured decodes a result's structuredContent.
func structured[T any](t *testing.T, res *mcp.CallToolResult) T {
	t.Helper()
	var v T
	b, err := json.Marshal(res.StructuredContent)
	if err == nil {
		err = json.Unmarshal(b, &v)
	}
	if err != nil {
		t.Fatalf("structuredContent %s: %v", b, err)
	}
	return v
}

func (b *appsBroker) tools(t *testing.T) []*mcp.Tool {
	t.Helper()
	res, err := b.cs.ListTools(b.ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	return res.Tools
}

// actionOf is the action a typed tool calls, from its _meta.
func actionOf(tool *mcp.Tool) (instanceID, action string, ok bool) {
	m, _ := tool.Meta[appcontext.MetaAction].(map[string]any)
	instanceID, _ = m["instanceId"].(string)
	action, _ = m["action"].(string)
	return instanceID, action, m != nil
}

// typedOf returns the typed tools of one instance, by action.
func typedOf(tools []*mcp.Tool, instanceID string) map[string]*mcp.Tool {
	out := map[string]*mcp.Tool{}
	for _, tool := range tools {
		if id, action, ok := actionOf(tool); ok && id == instanceID {
			out[action] = tool
		}
	}
	return out
}

// waitTools lists the tools until ok holds (the broker changes its list on
// its own, never as a side effect of a request: listing is only looking).
func (b *appsBroker) waitTools(t *testing.T, what string, ok func([]*mcp.Tool) bool) []*mcp.Tool {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		tools := b.tools(t)
		if ok(tools) {
			return tools
		}
		if time.Now().After(deadline) {
			var names []string
			for _, tool := range tools {
				names = append(names, tool.Name)
			}
			t.Fatalf("the tool list never showed %s; it has %v", what, names)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitTyped waits for n typed tools of an instance.
func (b *appsBroker) waitTyped(t *testing.T, instanceID string, n int) map[string]*mcp.Tool {
	t.Helper()
	tools := b.waitTools(t, "the typed tools of "+instanceID, func(tools []*mcp.Tool) bool { return len(typedOf(tools, instanceID)) == n })
	return typedOf(tools, instanceID)
}

func (b *appsBroker) instances(t *testing.T) []results.Instance {
	t.Helper()
	return structured[results.Instances](t, b.callOK(t, "apps_list", nil)).Instances
}

// waitInstance waits until apps_list shows the instance with that
// availability.
func (b *appsBroker) waitInstance(t *testing.T, instanceID string, available bool) results.Instance {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		list := b.instances(t)
		for _, in := range list {
			if in.InstanceID == instanceID && in.Available == available {
				return in
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("apps_list never showed %s with available=%v: %+v", instanceID, available, list)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (b *appsBroker) read(t *testing.T, uri string) string {
	t.Helper()
	res, err := b.cs.ReadResource(b.ctx, &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		t.Fatalf("reading %s: %v", uri, err)
	}
	if len(res.Contents) != 1 {
		t.Fatalf("reading %s: %d contents", uri, len(res.Contents))
	}
	return res.Contents[0].Text
}

func (b *appsBroker) journal(t *testing.T, uri string) journal.Snapshot {
	t.Helper()
	var s journal.Snapshot
	if err := json.Unmarshal([]byte(b.read(t, uri)), &s); err != nil {
		t.Fatalf("the events journal %s: %v", uri, err)
	}
	return s
}

// waitUpdated waits for n resources/updated of uri in total.
// subscribe follows a resource and returns once the broker says it does.
// In 2025-11-25 that is the answer to resources/subscribe; in 2026-07-28
// the Go SDK returns before the stream is acknowledged, so this waits for
// the acknowledgment in the broker's trace (which it sends once the
// application follows too).
func (b *appsBroker) subscribe(t *testing.T, uri string) {
	t.Helper()
	if err := b.cs.Subscribe(b.ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
		t.Fatalf("subscribing to %s: %v", uri, err)
	}
	if !b.modern() {
		return
	}
	b.waitTrace(t, "the acknowledgment of the subscription to "+uri, func(m wireMessage) bool {
		return m.Out && m.Method == "notifications/subscriptions/acknowledged" && slices.Equal(m.Params.Notifications.ResourceSubscriptions, []string{uri})
	})
}

// unsubscribe stops following a resource and returns once the broker
// knows. In 2026-07-28 the Go SDK cancels the listen stream and returns
// before its notifications/cancelled is sent, so this waits for that in
// the broker's trace (the broker acts on it as it reads it).
func (b *appsBroker) unsubscribe(t *testing.T, uri string) {
	t.Helper()
	if err := b.cs.Unsubscribe(b.ctx, &mcp.UnsubscribeParams{URI: uri}); err != nil {
		t.Fatalf("unsubscribing from %s: %v", uri, err)
	}
	if !b.modern() {
		return
	}
	var listen string
	for _, m := range b.trace() {
		if !m.Out && m.Method == "subscriptions/listen" && slices.Equal(m.Params.Notifications.ResourceSubscriptions, []string{uri}) {
			listen = string(m.ID)
		}
	}
	if listen == "" {
		t.Fatalf("no subscriptions/listen for %s in the trace", uri)
	}
	b.waitTrace(t, "the cancellation of the listen stream of "+uri, func(m wireMessage) bool {
		return !m.Out && m.Method == "notifications/cancelled" && string(m.Params.RequestID) == listen
	})
}

func (b *appsBroker) modern() bool {
	r := b.cs.InitializeResult()
	return r == nil || r.ProtocolVersion == "2026-07-28"
}

// wireMessage is what the apps tests look for in a trace line.
type wireMessage struct {
	Out    bool
	ID     json.RawMessage
	Method string
	Params struct {
		Notifications struct {
			ResourceSubscriptions []string `json:"resourceSubscriptions"`
		} `json:"notifications"`
		RequestID json.RawMessage `json:"requestId"`
	}
}

// trace reads the broker's trace as far as it is written.
func (b *appsBroker) trace() []wireMessage {
	raw, _ := os.ReadFile(traceFile(b.traces, "kontext"))
	var out []wireMessage
	for _, line := range bytes.Split(raw, []byte("\n")) {
		var entry struct {
			Out     bool `json:"out"`
			Message struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
				Params json.RawMessage `json:"params"`
			} `json:"message"`
		}
		if json.Unmarshal(line, &entry) != nil {
			continue // the line being written
		}
		m := wireMessage{Out: entry.Out, ID: entry.Message.ID, Method: entry.Message.Method}
		_ = json.Unmarshal(entry.Message.Params, &m.Params)
		out = append(out, m)
	}
	return out
}

// waitTrace waits until a message in the broker's trace satisfies ok.
func (b *appsBroker) waitTrace(t *testing.T, what string, ok func(wireMessage) bool) {
	t.Helper()
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if slices.ContainsFunc(b.trace(), ok) {
			return
		}
	}
	t.Fatalf("the broker's trace never showed %s", what)
}

func (b *appsBroker) waitUpdated(t *testing.T, uri string, n int) {
	t.Helper()
	if !b.ev.waitFor("updated", n, func(v any) bool { return v == uri }, 15*time.Second) {
		t.Fatalf("no resources/updated (%d) for %s; got %v", n, uri, b.ev.all("updated"))
	}
}

func hint(p *bool) string {
	if p == nil {
		return "unset"
	}
	if *p {
		return "true"
	}
	return "false"
}

// answers is a switchable answer to the broker's confirmation question.
type answers struct {
	mu     sync.Mutex
	action string
}

func (a *answers) set(action string) { a.mu.Lock(); a.action = action; a.mu.Unlock() }

func (a *answers) elicit(*mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return &mcp.ElicitResult{Action: a.action}, nil
}

// TestAppsBroker is the broker's whole story with examples/notes, in both
// eras: an application started after the broker, its typed tools, the
// stable tools, state and its subscriptions, the events journal,
// confirmation through elicitation, a second instance, a restart.
func TestAppsBroker(t *testing.T) {
	for _, era := range []struct{ name, ask string }{{"legacy", "2025-11-25"}, {"modern", "2026-07-28"}} {
		t.Run(era.name, func(t *testing.T) { appsBrokerStory(t, era.ask) })
	}
}

func appsBrokerStory(t *testing.T, ask string) {
	rt := t.TempDir()
	confirm := &answers{action: "accept"}
	b := startBroker(t, rt, brokerOptions{ask: ask, elicit: confirm.elicit})

	// Before any application: the four stable tools and nothing else.
	var names []string
	for _, tool := range b.tools(t) {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	if want := []string{"app_call", "app_describe", "app_state", "apps_list"}; !slices.Equal(names, want) {
		t.Fatalf("tools before any application: %v, want %v", names, want)
	}
	if list := b.instances(t); len(list) != 0 {
		t.Fatalf("apps_list with no application: %+v", list)
	}

	// Delayed start: the application comes after the broker.
	app := startNotes(t, rt)
	typed := b.waitTyped(t, app.id, 4)
	if !b.ev.waitFor("tools", 1, nil, 10*time.Second) {
		t.Errorf("no notifications/tools/list_changed when the application appeared")
	}
	if !b.ev.waitFor("resources", 1, nil, 10*time.Second) {
		t.Errorf("no notifications/resources/list_changed when the application appeared")
	}
	inst := b.waitInstance(t, app.id, true)
	if inst.AppID != "dev.kontext.notes" || inst.Name != "Notes" || inst.Version != "1.0.0" || inst.Channel != "mcp" || inst.Tools != 4 || len(inst.Workspaces) != 1 {
		t.Errorf("apps_list: %+v", inst)
	}
	for action, tool := range typed {
		if !typedName.MatchString(tool.Name) || !strings.Contains(tool.Name, action) {
			t.Errorf("typed tool %q of %s: outside [A-Za-z0-9_-]{1,48} or without the action's name", tool.Name, action)
		}
	}
	list, add, clear, touch := typed["list_notes"], typed["add_note"], typed["clear_notes"], typed["touch"]
	if list == nil || add == nil || clear == nil || touch == nil {
		t.Fatalf("typed tools: %v", typed)
	}
	// Annotations as given; none stated is destructive.
	if a := list.Annotations; a == nil || !a.ReadOnlyHint || hint(a.OpenWorldHint) != "false" {
		t.Errorf("list_notes annotations: %+v", a)
	}
	if a := add.Annotations; a == nil || a.ReadOnlyHint || hint(a.DestructiveHint) != "false" {
		t.Errorf("add_note annotations: %+v", a)
	}
	if a := clear.Annotations; a == nil || hint(a.DestructiveHint) != "true" || !a.IdempotentHint {
		t.Errorf("clear_notes annotations: %+v", a)
	}
	if a := touch.Annotations; a == nil || a.ReadOnlyHint || hint(a.DestructiveHint) != "true" {
		t.Errorf("touch states no hints and must be advertised destructiveHint: true: %+v", a)
	}
	if !strings.Contains(clear.Description, "confirmation required") || clear.Meta[appcontext.MetaConfirmation] == nil {
		t.Errorf("clear_notes is not labelled as needing confirmation: %q %v", clear.Description, clear.Meta)
	}
	if strings.Contains(add.Description, "confirmation required") || add.Meta[appcontext.MetaConfirmation] != nil {
		t.Errorf("add_note is labelled as needing confirmation: %q", add.Description)
	}
	trace, _ := os.ReadFile(traceFile(b.traces, "kontext"))
	if !strings.Contains(string(trace), `"inputSchema":`+notesSchema) {
		t.Errorf("add_note's input schema is not advertised byte for byte as the application gave it")
	}
	for _, tool := range b.tools(t) {
		if strings.HasPrefix(tool.Name, "acp_") {
			t.Errorf("%s is listed; the acp_* aliases must stay hidden", tool.Name)
		}
	}

	// Calls: a typed tool, app_call, the state.
	if got := structured[map[string]any](t, b.callOK(t, add.Name, map[string]any{"text": "first"})); got["count"] != 1.0 {
		t.Errorf("add_note: %v", got)
	}
	call := structured[results.Call](t, b.callOK(t, "app_call", map[string]any{"instanceId": app.id, "action": "add_note", "arguments": map[string]any{"text": "second"}}))
	if call.AppID != "dev.kontext.notes" || call.InstanceID != app.id || call.Action != "add_note" || string(call.StructuredContent) != `{"count":2}` {
		t.Errorf("app_call: %+v", call)
	}
	st := structured[results.State](t, b.callOK(t, "app_state", map[string]any{"instanceId": app.id}))
	if st.AppID != "dev.kontext.notes" || st.InstanceID != app.id || string(st.State["count"]) != "2" || string(st.State["notes"]) != `["first","second"]` {
		t.Errorf("app_state: %+v", st)
	}
	st = structured[results.State](t, b.callOK(t, "app_state", map[string]any{"instanceId": app.id, "keys": []string{"count", "colour"}}))
	if len(st.State) != 1 || string(st.State["count"]) != "2" || !slices.Equal(st.Missing, []string{"colour"}) {
		t.Errorf("app_state with keys: %+v", st)
	}
	d := structured[results.Description](t, b.callOK(t, "app_describe", map[string]any{"instanceId": app.id}))
	if d.AppID != "dev.kontext.notes" || d.InstanceID != app.id || len(d.Actions) != 4 || !slices.Equal(d.StateKeys, []string{"count", "notes"}) || len(d.Events) != 1 || d.Events[0].Type != "note_added" {
		t.Errorf("app_describe: %+v", d)
	}
	for _, a := range d.Actions {
		if typed[a.Name] == nil || a.Tool != typed[a.Name].Name {
			t.Errorf("app_describe: action %s names tool %q", a.Name, a.Tool)
		}
		if a.Name == "clear_notes" && (!a.ConfirmationRequired || a.ConfirmationPrompt != "Delete every note?") {
			t.Errorf("app_describe: clear_notes %+v", a)
		}
	}
	if text := b.callFails(t, "app_call", map[string]any{"instanceId": app.id, "action": "no_such_action"}); !strings.Contains(text, "no_such_action") {
		t.Errorf("an unknown action: %s", text)
	}
	if text := b.callFails(t, "app_state", map[string]any{"instanceId": "nosuchinstance"}); !strings.Contains(text, "nosuchinstance") {
		t.Errorf("an unknown instance: %s", text)
	}
	// The hidden aliases of earlier releases answer.
	if list := structured[results.Instances](t, b.callOK(t, "acp_list_apps", nil)); len(list.Instances) != 1 || list.Instances[0].InstanceID != app.id {
		t.Errorf("acp_list_apps: %+v", list)
	}
	if st := structured[results.State](t, b.callOK(t, "acp_get_state", map[string]any{"instanceId": app.id})); string(st.State["count"]) != "2" {
		t.Errorf("acp_get_state: %+v", st)
	}
	// The application's schema is enforced on the typed tool, as a protocol error.
	if _, err := b.cs.CallTool(b.ctx, &mcp.CallToolParams{Name: add.Name, Arguments: map[string]any{}}); err == nil {
		t.Errorf("add_note without text succeeded, want -32602")
	} else if werr, _ := wireError(t, err); werr.Code != -32602 || !strings.Contains(string(werr.Data), "text") {
		t.Errorf("add_note without text: %d %s %s, want -32602 naming text", werr.Code, werr.Message, werr.Data)
	}

	// Resources: listed, as templates, read, subscribed.
	prefix := "appcontext://apps/dev.kontext.notes/" + app.id + "/"
	rl, err := b.cs.ListResources(b.ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var uris []string
	for _, r := range rl.Resources {
		uris = append(uris, r.URI)
	}
	for _, want := range []string{prefix + "state", prefix + "state/count", prefix + "state/notes", prefix + "events"} {
		if !slices.Contains(uris, want) {
			t.Errorf("resources/list lacks %s: %v", want, uris)
		}
	}
	tl, err := b.cs.ListResourceTemplates(b.ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var templates []string
	for _, r := range tl.ResourceTemplates {
		templates = append(templates, r.URITemplate)
	}
	for _, want := range []string{"appcontext://apps/{app}/{instance}/state", "appcontext://apps/{app}/{instance}/state/{key}", "appcontext://apps/{app}/{instance}/events"} {
		if !slices.Contains(templates, want) {
			t.Errorf("resources/templates/list lacks %s: %v", want, templates)
		}
	}
	if got := b.read(t, prefix+"state/count"); got != "2" {
		t.Errorf("state/count reads %q", got)
	}
	for _, uri := range []string{prefix + "state/count", prefix + "state", prefix + "events"} {
		b.subscribe(t, uri)
	}
	// A subscription is answered once the broker follows the application
	// too: a change made after it is heard for the key and the whole state.
	b.callOK(t, add.Name, map[string]any{"text": "third"})
	b.waitUpdated(t, prefix+"state/count", 1)
	b.waitUpdated(t, prefix+"state", 1)
	if got := b.read(t, prefix+"state/count"); got != "3" {
		t.Errorf("state/count after the update reads %q", got)
	}
	j := waitJournal(t, b, prefix+"events", func(s journal.Snapshot) bool { return hasNote(s, "third") })
	if j.Events[0].Seq < 1 || j.Dropped != 0 {
		t.Errorf("the journal: %+v", j)
	}
	// Unsubscribed, the journal records nothing more.
	b.unsubscribe(t, prefix+"events")
	updates := len(b.ev.all("updated"))
	b.callOK(t, add.Name, map[string]any{"text": "fourth"})
	b.waitUpdated(t, prefix+"state/count", 2)
	if hasNote(b.journal(t, prefix+"events"), "fourth") {
		t.Errorf("the journal recorded an event while nobody followed it")
	}
	for _, v := range b.ev.all("updated")[updates:] {
		if v == prefix+"events" {
			t.Errorf("resources/updated for the events journal after unsubscribing")
		}
	}
	for _, uri := range []string{prefix + "state/count", prefix + "state"} {
		b.unsubscribe(t, uri)
	}

	// Confirmation: the broker asks the user, the application enforces.
	confirm.set("decline")
	if text := b.callFails(t, clear.Name, map[string]any{}); !strings.Contains(text, "decline") || !strings.Contains(text, app.id) {
		t.Errorf("a declined confirmation: %s", text)
	}
	if asked := b.ev.all("elicit"); len(asked) != 1 || !strings.Contains(asked[0].(string), "Delete every note?") {
		t.Errorf("the broker asked %v", asked)
	}
	if got := b.read(t, prefix+"state/count"); got != "4" {
		t.Errorf("a declined clear_notes changed the state: count %s", got)
	}
	confirm.set("accept")
	if got := structured[map[string]any](t, b.callOK(t, clear.Name, map[string]any{})); got["cleared"] != 4.0 {
		t.Errorf("an accepted clear_notes: %v", got)
	}
	b.callOK(t, touch.Name, map[string]any{})

	// The audit: one line per call, never an argument's value.
	audit := b.stderr.String()
	if !regexp.MustCompile(`(?m)^.*dev\.kontext\.notes.*` + app.id + `.*add_note.*ok.*$`).MatchString(audit) {
		t.Errorf("no audit line for add_note on stderr:\n%s", audit)
	}
	if strings.Contains(audit, "first") || strings.Contains(audit, "third") {
		t.Errorf("the audit shows an argument's value:\n%s", audit)
	}

	// A second instance of the same application.
	second := startNotes(t, rt, "--name", "Second notes")
	secondTyped := b.waitTyped(t, second.id, 4)
	for action, tool := range secondTyped {
		if tool.Name == typed[action].Name {
			t.Errorf("two instances share the typed tool %s", tool.Name)
		}
	}
	if inst := b.waitInstance(t, second.id, true); inst.Name != "Second notes" {
		t.Errorf("the second instance: %+v", inst)
	}

	// A restart: the old name and id fail clearly, never reach the new launch.
	oldID, oldAdd := app.id, add.Name
	app.stop(t)
	b.waitTools(t, "the first instance gone", func(tools []*mcp.Tool) bool { return len(typedOf(tools, oldID)) == 0 })
	restarted := startNotes(t, rt)
	newTyped := b.waitTyped(t, restarted.id, 4)
	if newTyped["add_note"].Name == oldAdd {
		t.Errorf("the restarted instance reuses the old typed name %s", oldAdd)
	}
	if text := b.callFails(t, oldAdd, map[string]any{"text": "lost"}); !strings.Contains(text, oldID) || !strings.Contains(text, "gone") {
		t.Errorf("the old typed tool: %s", text)
	}
	for _, tool := range []string{"app_state", "app_describe"} {
		if text := b.callFails(t, tool, map[string]any{"instanceId": oldID}); !strings.Contains(text, oldID) {
			t.Errorf("%s of the old instance: %s", tool, text)
		}
	}
	if text := b.callFails(t, "app_call", map[string]any{"instanceId": oldID, "action": "add_note", "arguments": map[string]any{"text": "lost"}}); !strings.Contains(text, oldID) {
		t.Errorf("app_call of the old instance: %s", text)
	}
	if st := structured[results.State](t, b.callOK(t, "app_state", map[string]any{"instanceId": restarted.id})); string(st.State["count"]) != "0" {
		t.Errorf("a call to the old instance reached its replacement: %+v", st)
	}
	b.finish(t)
}

func hasNote(s journal.Snapshot, text string) bool {
	for _, e := range s.Events {
		if e.Type == "note_added" && strings.Contains(string(e.Data), `"`+text+`"`) {
			return true
		}
	}
	return false
}

func waitJournal(t *testing.T, b *appsBroker, uri string, ok func(journal.Snapshot) bool) journal.Snapshot {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		s := b.journal(t, uri)
		if ok(s) {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("the journal %s never held what was expected: %d events (seq %d..%d), %d dropped", uri, len(s.Events), s.FirstSeq, s.LastSeq, s.Dropped)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestAppsReregistration: registering every action again changes every
// typed name although nothing else changed; the old names explain.
func TestAppsReregistration(t *testing.T) {
	rt := t.TempDir()
	app := startNotes(t, rt, "--reregister-after", "2s")
	b := startBroker(t, rt, brokerOptions{ask: "2026-07-28"})
	before := b.waitTyped(t, app.id, 4)
	after := typedOf(b.waitTools(t, "new names after the re-registration", func(tools []*mcp.Tool) bool {
		now := typedOf(tools, app.id)
		if len(now) != 4 {
			return false
		}
		for action, tool := range now {
			if before[action] == nil || tool.Name == before[action].Name {
				return false
			}
		}
		return true
	}), app.id)
	for action, tool := range after {
		old := before[action]
		if !typedName.MatchString(tool.Name) {
			t.Errorf("%s: %q", action, tool.Name)
		}
		if tool.Description != old.Description {
			t.Errorf("%s: the description changed: %q → %q", action, old.Description, tool.Description)
		}
		was, _ := json.Marshal(old.InputSchema)
		now, _ := json.Marshal(tool.InputSchema)
		if string(was) != string(now) {
			t.Errorf("%s: the schema changed", action)
		}
		if text := b.callFails(t, old.Name, map[string]any{}); !strings.Contains(text, "registered the action again") {
			t.Errorf("the old name %s: %s", old.Name, text)
		}
	}
	if !b.ev.waitFor("tools", 2, nil, 10*time.Second) {
		t.Errorf("the re-registration sent no tools/list_changed")
	}
	b.finish(t)
}

// TestAppsReadOnly: --read-only keeps the explicitly read-only typed tools
// and app_call refuses the others.
func TestAppsReadOnly(t *testing.T) {
	rt := t.TempDir()
	app := startNotes(t, rt)
	b := startBroker(t, rt, brokerOptions{ask: "2025-11-25", args: []string{"--read-only"}})
	typed := b.waitTyped(t, app.id, 1)
	if typed["list_notes"] == nil {
		t.Fatalf("under --read-only the typed tools are %v, want list_notes alone", typed)
	}
	if text := b.callFails(t, "app_call", map[string]any{"instanceId": app.id, "action": "add_note", "arguments": map[string]any{"text": "x"}}); !strings.Contains(text, "read-only") {
		t.Errorf("app_call add_note under --read-only: %s", text)
	}
	b.callOK(t, "app_call", map[string]any{"instanceId": app.id, "action": "list_notes"})
	if st := structured[results.State](t, b.callOK(t, "app_state", map[string]any{"instanceId": app.id})); string(st.State["count"]) != "0" {
		t.Errorf("under --read-only a write went through: %+v", st)
	}
	b.finish(t)
}

// TestAppsLegacyWebSocket: an old manifest names only the WebSocket
// channel; the broker reaches it inside and agents see plain MCP.
func TestAppsLegacyWebSocket(t *testing.T) {
	rt := t.TempDir()
	app := startNotes(t, rt, "--legacy-websocket")
	var m map[string]any
	raw, err := os.ReadFile(app.path)
	if err == nil {
		err = json.Unmarshal(raw, &m)
	}
	if err != nil || m["mcp"] != nil || m["websocket"] == nil {
		t.Fatalf("the legacy manifest: %v %s", err, raw)
	}
	b := startBroker(t, rt, brokerOptions{ask: "2026-07-28"})
	typed := b.waitTyped(t, app.id, 4)
	if inst := b.waitInstance(t, app.id, true); inst.Channel != "legacy-websocket" {
		t.Errorf("apps_list: %+v", inst)
	}
	prefix := "appcontext://apps/dev.kontext.notes/" + app.id + "/"
	b.subscribe(t, prefix+"state/count")
	b.callOK(t, typed["add_note"].Name, map[string]any{"text": "over a WebSocket"})
	b.waitUpdated(t, prefix+"state/count", 1)
	if got := b.read(t, prefix+"state/count"); got != "1" {
		t.Errorf("state/count: %s", got)
	}
	b.finish(t)
}

// TestAppsFailClosed: each manifest the broker cannot trust or reach is
// listed unavailable with its reason, and nothing of it is callable.
func TestAppsFailClosed(t *testing.T) {
	rt := t.TempDir()
	app := startNotes(t, rt)
	b := startBroker(t, rt, brokerOptions{ask: "2025-11-25"})
	b.waitTyped(t, app.id, 4)
	raw, err := os.ReadFile(app.path)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(app.path)
	// write puts a copy of the live manifest under a fresh instanceId, changed.
	write := func(mutate func(m map[string]any), mode os.FileMode) string {
		t.Helper()
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		id := freshInstanceID()
		m["instanceId"] = id
		if mutate != nil {
			mutate(m)
		}
		b, _ := json.Marshal(m)
		tmp := filepath.Join(dir, "."+id+".tmp")
		if err := os.WriteFile(tmp, b, mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(tmp, mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, filepath.Join(dir, id+".json")); err != nil {
			t.Fatal(err)
		}
		return id
	}
	endpoint := func(m map[string]any) map[string]any { return m["mcp"].(map[string]any) }
	url := endpoint(mustJSON(t, raw))["url"].(string)
	// A stale manifest (its process is gone) and one whose pid is reused
	// by another process are dropped, not listed.
	deadPid := exitedPid(t)
	stale := write(func(m map[string]any) { m["pid"] = deadPid }, 0o600)
	reused := write(func(m map[string]any) { m["processStart"] = "1" }, 0o600)
	cases := []struct {
		name, reason string
		mutate       func(m map[string]any)
		mode         os.FileMode
	}{
		{"wrong token", "401", func(m map[string]any) {
			endpoint(m)["auth"].(map[string]any)["token"] = strings.Repeat("0", 64)
		}, 0o600},
		{"mode 0644", "mode 0644", nil, 0o644},
		{"a host name", "IP literal", func(m map[string]any) {
			endpoint(m)["url"] = strings.Replace(url, "127.0.0.1", "localhost", 1)
		}, 0o600},
		{"a non-loopback address", "loopback", func(m map[string]any) {
			endpoint(m)["url"] = regexp.MustCompile(`127\.0\.0\.1:\d+`).ReplaceAllString(url, "192.0.2.1:80")
		}, 0o600},
		{"a dead port", "handshake", func(m map[string]any) {
			endpoint(m)["url"] = regexp.MustCompile(`:\d+/`).ReplaceAllString(url, ":"+itoa(freePort(t))+"/")
		}, 0o600},
		{"an instanceId mismatch", "answers as instance", nil, 0o600},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			id := write(c.mutate, c.mode)
			inst := b.waitInstance(t, id, false)
			if !strings.Contains(inst.Reason, c.reason) {
				t.Errorf("reason %q, want it to mention %q", inst.Reason, c.reason)
			}
			if strings.Contains(inst.Reason, endpoint(mustJSON(t, raw))["auth"].(map[string]any)["token"].(string)) {
				t.Errorf("the reason quotes the token: %s", inst.Reason)
			}
			if text := b.callFails(t, "app_call", map[string]any{"instanceId": id, "action": "list_notes"}); !strings.Contains(text, id) || !strings.Contains(text, "unavailable") {
				t.Errorf("app_call on an unavailable instance: %s", text)
			}
			if len(typedOf(b.tools(t), id)) != 0 {
				t.Errorf("an unavailable instance has typed tools")
			}
		})
	}
	// By now the broker has scanned the folder after the stale manifests
	// were written.
	for _, in := range b.instances(t) {
		if in.InstanceID == stale || in.InstanceID == reused {
			t.Errorf("a manifest whose process is gone is listed: %+v", in)
		}
		if in.InstanceID == app.id && !in.Available {
			t.Errorf("the live instance became unavailable: %+v", in)
		}
	}
	b.finish(t)
}

func mustJSON(t *testing.T, raw []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// freshInstanceID is an instanceId as the profile makes them.
func freshInstanceID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b))
}

// exitedPid is the pid of a process that has exited.
func exitedPid(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

// TestAppsApplicationLibrary runs an application made here with the
// appcontext package: a 300-character Unicode action name within the name
// budget, the journal's bound after 1,000 events, cancellation and the
// request timeout forwarded to the application.
func TestAppsApplicationLibrary(t *testing.T) {
	requireSetup(t)
	rt := t.TempDir()
	app, err := appcontext.New(appcontext.Options{
		AppID: "dev.kontext.e2e", Name: "Ünïcode äpp", Version: "0.1.0", RuntimeDir: rt,
		Events: []appcontext.EventType{{Type: "tick"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	long := ""
	for utf8.RuneCountInString(long) < 300 {
		long += "zápisník_poznámok_"
	}
	long = string([]rune(long)[:300])
	schema := json.RawMessage(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"n":{"type":"integer"}}}`)
	yes := true
	// Each call of wait that ends by cancellation says so here.
	cancelled := make(chan struct{}, 8)
	for _, a := range []appcontext.Action{
		{Name: long, Description: "An action with a long Unicode name.", InputSchema: schema, Annotations: appcontext.Annotations{ReadOnlyHint: &yes},
			Handler: func(context.Context, json.RawMessage) (any, error) { return "long", nil }},
		{Name: "emit", Description: "Emits n ticks.", InputSchema: schema, Annotations: appcontext.Annotations{ReadOnlyHint: &yes},
			Handler: func(_ context.Context, args json.RawMessage) (any, error) {
				var in struct{ N int }
				_ = json.Unmarshal(args, &in)
				for i := 1; i <= in.N; i++ {
					if err := app.Emit("tick", map[string]int{"i": i}); err != nil {
						return nil, err
					}
				}
				return map[string]int{"emitted": in.N}, nil
			}},
		{Name: "wait", Description: "Waits until cancelled.", InputSchema: schema, Annotations: appcontext.Annotations{ReadOnlyHint: &yes},
			Handler: func(ctx context.Context, _ json.RawMessage) (any, error) {
				<-ctx.Done()
				cancelled <- struct{}{}
				return nil, ctx.Err()
			}},
	} {
		if err := app.Register(a); err != nil {
			t.Fatal(err)
		}
	}
	if err := app.SetState("ticks", 0); err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- app.Serve(ctx) }()
	t.Cleanup(func() {
		stop()
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	for app.ManifestPath() == "" {
		time.Sleep(10 * time.Millisecond)
	}
	b := startBroker(t, rt, brokerOptions{ask: "2026-07-28", args: []string{"--request-timeout", "2s"}})
	typed := b.waitTyped(t, app.InstanceID(), 3)
	lt := typed[long]
	if lt == nil {
		t.Fatalf("no typed tool for the 300-character action: %v", typed)
	}
	if !typedName.MatchString(lt.Name) {
		t.Errorf("the long action's tool %q is outside [A-Za-z0-9_-]{1,48}", lt.Name)
	}
	{
		res := b.callOK(t, lt.Name, map[string]any{})
		if tc, ok := res.Content[0].(*mcp.TextContent); !ok || tc.Text != "long" {
			t.Errorf("the long action answered %+v", res.Content[0])
		}
	}

	// The journal keeps the last 256 of 1,000 events and says how many it dropped.
	uri := "appcontext://apps/dev.kontext.e2e/" + app.InstanceID() + "/events"
	b.subscribe(t, uri)
	b.callOK(t, typed["emit"].Name, map[string]any{"n": 1000})
	j := waitJournal(t, b, uri, func(s journal.Snapshot) bool { return s.LastSeq >= 1000 })
	if len(j.Events) != 256 || j.Dropped != 744 || j.FirstSeq != 745 || j.LastSeq != 1000 || j.Events[0].Seq != 745 || j.Events[255].Seq != 1000 {
		t.Errorf("the journal after 1,000 events: %d events, seq %d…%d, dropped %d", len(j.Events), j.FirstSeq, j.LastSeq, j.Dropped)
	}

	// Cancellation reaches the application.
	cctx, ccancel := context.WithTimeout(b.ctx, 500*time.Millisecond)
	_, err = b.cs.CallTool(cctx, &mcp.CallToolParams{Name: typed["wait"].Name, Arguments: map[string]any{}})
	ccancel()
	if err == nil {
		t.Errorf("a cancelled call answered")
	}
	select {
	case <-cancelled:
	case <-time.After(10 * time.Second):
		t.Fatalf("the application never saw the cancellation")
	}
	// The request timeout bounds a call the client does not cancel.
	start := time.Now()
	res, err := b.cs.CallTool(b.ctx, &mcp.CallToolParams{Name: typed["wait"].Name, Arguments: map[string]any{}})
	if err == nil && !res.IsError {
		t.Errorf("a call past the request timeout succeeded")
	}
	if took := time.Since(start); took > 30*time.Second {
		t.Errorf("the call took %s under --request-timeout 2s", took)
	}
	select {
	case <-cancelled:
	case <-time.After(10 * time.Second):
		t.Errorf("the application never saw the timed-out call end")
	}
	b.finish(t)
}

// appsScriptChecks are the checks testdata/node/apps-check.mjs must report.
var appsScriptChecks = []string{
	"handshake", "stable tools before any application", "discovery: an application started after the broker",
	"typed and stable calls", "state subscription and resources/updated",
}

// TestAppsTypeScriptSDK drives the broker with the TypeScript SDK: v1 in
// 2025-11-25, v2 in 2026-07-28. Discovery of an application started after
// the broker, typed and stable calls, a state subscription; every message
// the broker wrote validated against the official schema.
func TestAppsTypeScriptSDK(t *testing.T) {
	requireSetup(t)
	node, dir := npmDir(t)
	for _, c := range []struct{ sdk, revision string }{{"v1", "2025-11-25"}, {"v2", "2026-07-28"}} {
		t.Run(c.sdk, func(t *testing.T) {
			traces := t.TempDir()
			rt := t.TempDir()
			t.Setenv("KONTEXT_CONFIG_DIR", t.TempDir())
			checks := runChecks(t, node, dir, "apps-check.mjs", []string{kontextBin, notesBin, rt, c.sdk}, traceFile(traces, "kontext"), appsScriptChecks)
			if checks == nil {
				return
			}
			logs := readTraces(t, tracesIn(t, traces))
			t.Run("wire", func(t *testing.T) {
				checkPairing(t, logs)
				for _, l := range logs {
					for _, r := range l.Requests {
						if r.Revision != c.revision {
							t.Errorf("%s was served as %s, want %s", r.Method, r.Revision, c.revision)
						}
					}
				}
			})
			t.Run("schema", func(t *testing.T) { validateWire(t, logs) })
		})
	}
}
