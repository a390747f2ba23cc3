package proxy_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/kontext-dev/kontext/gen/protocol"
	"github.com/kontext-dev/kontext/internal/mcp"
	"github.com/kontext-dev/kontext/internal/mcp/proxy"
)

// serve runs srv on an in-memory transport and connects a client to it.
func serve(t *testing.T, srv *mcp.Server, era mcp.Era, notes func(string, json.RawMessage)) *mcp.Client {
	t.Helper()
	serverEnd, clientEnd := mcp.NewInMemoryTransport()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = srv.Serve(ctx, serverEnd); close(done) }()
	c, err := mcp.Connect(context.Background(), clientEnd, mcp.ClientOptions{Info: mcp.Implementation{Name: "t", Version: "1"}, Era: era, OnNotification: notes})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close(); cancel(); serverEnd.Close(); <-done })
	return c
}

type notes struct {
	mu  sync.Mutex
	got []string
}

func (n *notes) add(method string, params json.RawMessage) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.got = append(n.got, method+" "+string(params))
}

func (n *notes) has(prefix string) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, g := range n.got {
		if strings.HasPrefix(g, prefix) {
			return true
		}
	}
	return false
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

// downstream is the server being proxied: tools that echo, fail, refuse,
// report progress and block until cancelled, and one resource.
type downstream struct {
	srv       *mcp.Server
	cancelled chan struct{}
}

func newDownstream(t *testing.T) *downstream {
	d := &downstream{cancelled: make(chan struct{}, 1)}
	obj := json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}}}`)
	tools := []*mcp.Tool{
		{Name: "echo", Description: "echoes", InputSchema: obj, Annotations: mcp.Annotations{ReadOnly: mcp.Bool(true)},
			Meta: json.RawMessage(`{"org.example/x":1}`),
			Call: func(_ context.Context, args json.RawMessage) (*mcp.ToolResult, error) {
				var p struct{ Text string }
				_ = json.Unmarshal(args, &p)
				res := mcp.TextResult("echo: " + p.Text)
				res.Structured = map[string]string{"text": p.Text}
				return res, nil
			}},
		{Name: "fail", InputSchema: obj, Call: func(context.Context, json.RawMessage) (*mcp.ToolResult, error) {
			return mcp.ErrorResult("it failed"), nil
		}},
		{Name: "refuse", InputSchema: obj, Call: func(context.Context, json.RawMessage) (*mcp.ToolResult, error) {
			return nil, mcp.NewError(-32042, map[string]string{"why": "no"})
		}},
		{Name: "slow", InputSchema: obj, Call: func(ctx context.Context, _ json.RawMessage) (*mcp.ToolResult, error) {
			mcp.Progress(ctx, 1, 2, "half")
			<-ctx.Done()
			d.cancelled <- struct{}{}
			return nil, ctx.Err()
		}},
		{Name: "hidden", InputSchema: obj, Call: func(context.Context, json.RawMessage) (*mcp.ToolResult, error) { return mcp.TextResult("x"), nil }},
	}
	res := &mcp.Resource{URI: "down://state", Name: "state", MIMEType: "application/json", Read: func(context.Context) (*mcp.ResourceContents, error) {
		return &mcp.ResourceContents{URI: "down://state", MIMEType: "application/json", Text: `{"n":1}`}, nil
	}}
	srv, err := mcp.NewServer(mcp.Implementation{Name: "down", Version: "1"}, mcp.Options{}, &mcp.Toolset{Name: "down", Tools: tools, Resources: []*mcp.Resource{res}})
	if err != nil {
		t.Fatal(err)
	}
	d.srv = srv
	return d
}

// rig is a downstream server mounted into an upstream server, with an
// upstream client to watch it from.
type rig struct {
	down     *downstream
	mount    *proxy.Mount
	up       *mcp.Server
	upClient *mcp.Client
	upNotes  *notes
	mu       sync.Mutex
	outcomes []string
	updated  []string
}

func newRig(t *testing.T, era mcp.Era, opts proxy.Options) *rig {
	r := &rig{down: newDownstream(t), upNotes: &notes{}}
	if opts.Project == nil {
		opts.Project = func(d protocol.Tool) (*mcp.Tool, bool) {
			if d.Name == "hidden" {
				return nil, false
			}
			up := &mcp.Tool{Name: "x_" + d.Name, InputSchema: d.InputSchema, Meta: d.Meta}
			if d.Description != nil {
				up.Description = "[x] " + *d.Description
			}
			if d.Annotations != nil {
				up.Annotations.ReadOnly = d.Annotations.ReadOnlyHint
			}
			return up, true
		}
	}
	opts.After = func(d protocol.Tool, outcome string, _ time.Duration) {
		r.mu.Lock()
		r.outcomes = append(r.outcomes, d.Name+" "+outcome)
		r.mu.Unlock()
	}
	opts.OnResourceUpdated = func(uri string) {
		r.mu.Lock()
		r.updated = append(r.updated, uri)
		r.mu.Unlock()
	}
	r.mount = proxy.New(opts)
	up, err := mcp.NewServer(mcp.Implementation{Name: "up", Version: "1"}, mcp.Options{}, &mcp.Toolset{Name: "base", Tools: []*mcp.Tool{{
		Name: "base", InputSchema: json.RawMessage(`{"type":"object"}`), Annotations: mcp.Annotations{ReadOnly: mcp.Bool(true)},
		Call: func(context.Context, json.RawMessage) (*mcp.ToolResult, error) { return mcp.TextResult("base"), nil },
	}}})
	if err != nil {
		t.Fatal(err)
	}
	r.up = up
	downClient := serve(t, r.down.srv, era, r.mount.Notify)
	if err := r.mount.Attach(context.Background(), downClient, up); err != nil {
		t.Fatal(err)
	}
	r.upClient = serve(t, up, mcp.EraLegacy, r.upNotes.add)
	return r
}

func (r *rig) names(t *testing.T) []string {
	t.Helper()
	tools, err := r.upClient.ListTools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, tl := range tools {
		out = append(out, tl.Name)
	}
	return out
}

func text(res *protocol.CallToolResult) string {
	var b struct{ Text string }
	if len(res.Content) > 0 {
		_ = json.Unmarshal(res.Content[0], &b)
	}
	return b.Text
}

func TestToolsAreProjectedAndCallsForwarded(t *testing.T) {
	for _, era := range []mcp.Era{mcp.EraLegacy, mcp.EraModern} {
		t.Run(string(era), func(t *testing.T) {
			r := newRig(t, era, proxy.Options{})
			ctx := context.Background()
			if got, want := r.names(t), []string{"base", "x_echo", "x_fail", "x_refuse", "x_slow"}; !slices.Equal(got, want) {
				t.Fatalf("tools = %v, want %v", got, want)
			}
			tools, _ := r.upClient.ListTools(ctx)
			for _, tl := range tools {
				if tl.Name == "x_echo" && (string(tl.Meta) != `{"org.example/x":1}` || *tl.Description != "[x] echoes") {
					t.Fatalf("x_echo = %+v", tl)
				}
			}
			res, err := r.upClient.CallTool(ctx, "x_echo", map[string]string{"text": "hi"})
			if err != nil || text(res) != "echo: hi" || string(res.StructuredContent) != `{"text":"hi"}` {
				t.Fatalf("x_echo = %+v, %v", res, err)
			}
			res, err = r.upClient.CallTool(ctx, "x_fail", nil)
			if err != nil || res.IsError == nil || !*res.IsError || text(res) != "it failed" {
				t.Fatalf("x_fail = %+v, %v", res, err)
			}
			_, err = r.upClient.CallTool(ctx, "x_refuse", nil)
			var rpcErr *jsonrpc2.Error
			if !errors.As(err, &rpcErr) || rpcErr.Code != -32042 {
				t.Fatalf("x_refuse: the downstream error code did not come through: %v", err)
			}
			direct, err := r.mount.Call(ctx, "echo", json.RawMessage(`{"text":"by name"}`))
			if err != nil || !strings.Contains(string(direct.Content[0]), "echo: by name") {
				t.Fatalf("Call(echo) = %+v, %v", direct, err)
			}
			if _, err := r.mount.Call(ctx, "nope", nil); !errors.Is(err, proxy.ErrNoSuchTool) {
				t.Fatalf("Call(nope) = %v", err)
			}
			r.mu.Lock()
			got := slices.Clone(r.outcomes)
			r.mu.Unlock()
			if want := []string{"echo ok", "fail isError", "refuse rpc-error", "echo ok"}; !slices.Equal(got, want) {
				t.Fatalf("outcomes = %v, want %v", got, want)
			}
		})
	}
}

// A downstream list change replaces our tools and is announced upstream;
// Close takes them away again.
func TestDownstreamListChangesBecomeOurs(t *testing.T) {
	for _, era := range []mcp.Era{mcp.EraLegacy, mcp.EraModern} {
		t.Run(string(era), func(t *testing.T) {
			r := newRig(t, era, proxy.Options{})
			if err := r.down.srv.AddTool(&mcp.Tool{Name: "late", InputSchema: json.RawMessage(`{"type":"object"}`),
				Call: func(context.Context, json.RawMessage) (*mcp.ToolResult, error) { return mcp.TextResult("late"), nil }}); err != nil {
				t.Fatal(err)
			}
			waitFor(t, "x_late upstream", func() bool { return slices.Contains(r.names(t), "x_late") })
			waitFor(t, "list_changed upstream", func() bool { return r.upNotes.has("notifications/tools/list_changed") })
			r.down.srv.RemoveTool("echo")
			waitFor(t, "x_echo gone", func() bool { return !slices.Contains(r.names(t), "x_echo") })
			if err := r.mount.Close(); err != nil {
				t.Fatal(err)
			}
			if got := r.names(t); !slices.Equal(got, []string{"base"}) {
				t.Fatalf("after Close: %v", got)
			}
		})
	}
}

// Cancelling the upstream call cancels the downstream one; its progress
// reaches the upstream caller under the caller's token.
func TestCancellationAndProgressPassThrough(t *testing.T) {
	for _, era := range []mcp.Era{mcp.EraLegacy, mcp.EraModern} {
		t.Run(string(era), func(t *testing.T) {
			r := newRig(t, era, proxy.Options{})
			ctx, cancel := context.WithCancel(context.Background())
			errc := make(chan error, 1)
			go func() {
				_, err := r.upClient.CallToolWithProgress(ctx, "x_slow", nil, "up-token")
				errc <- err
			}()
			waitFor(t, "progress upstream", func() bool {
				return r.upNotes.has(`notifications/progress {"message":"half","progress":1,"progressToken":"up-token","total":2}`)
			})
			cancel()
			select {
			case <-r.down.cancelled:
			case <-time.After(5 * time.Second):
				t.Fatal("the downstream call was not cancelled")
			}
			if err := <-errc; err == nil {
				t.Fatal("a cancelled call answered")
			}
			waitFor(t, "the cancelled outcome", func() bool {
				r.mu.Lock()
				defer r.mu.Unlock()
				return slices.Contains(r.outcomes, "slow cancelled")
			})
		})
	}
}

func TestCallTimeoutAndBefore(t *testing.T) {
	r := newRig(t, mcp.EraLegacy, proxy.Options{
		CallTimeout: 50 * time.Millisecond,
		Before: func(_ context.Context, d protocol.Tool, _ json.RawMessage) (*mcp.ToolResult, error) {
			if d.Name == "fail" {
				return mcp.ErrorResult("refused before forwarding"), nil
			}
			return nil, nil
		},
	})
	ctx := context.Background()
	res, err := r.upClient.CallTool(ctx, "x_slow", nil)
	if err != nil || res.IsError == nil || !*res.IsError || !strings.Contains(text(res), "did not answer within") {
		t.Fatalf("x_slow past the timeout = %+v, %v; want an isError result saying it did not answer", res, err)
	}
	res, err = r.upClient.CallTool(ctx, "x_fail", nil)
	if err != nil || text(res) != "refused before forwarding" {
		t.Fatalf("x_fail = %+v, %v", res, err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if !slices.Equal(r.outcomes, []string{"slow timeout"}) {
		t.Fatalf("outcomes = %v (Before's refusal is not forwarded)", r.outcomes)
	}
}

func TestResourcesReadSubscribeAndUpdates(t *testing.T) {
	for _, era := range []mcp.Era{mcp.EraLegacy, mcp.EraModern} {
		t.Run(string(era), func(t *testing.T) {
			r := newRig(t, era, proxy.Options{})
			ctx := context.Background()
			list, err := r.mount.Resources(ctx)
			if err != nil || len(list) != 1 || list[0].URI != "down://state" {
				t.Fatalf("Resources = %+v, %v", list, err)
			}
			contents, err := r.mount.Read(ctx, "down://state")
			if err != nil || len(contents) != 1 || contents[0].Text != `{"n":1}` || contents[0].MIMEType != "application/json" {
				t.Fatalf("Read = %+v, %v", contents, err)
			}
			if err := r.mount.Subscribe(ctx, "down://state"); err != nil {
				t.Fatal(err)
			}
			// The modern subscription is a listen stream that takes a moment
			// to be acknowledged.
			waitFor(t, "the update", func() bool {
				r.down.srv.ResourceUpdated("down://state")
				r.mu.Lock()
				defer r.mu.Unlock()
				return slices.Contains(r.updated, "down://state")
			})
			if err := r.mount.Unsubscribe(ctx, "down://state"); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// What a proxy vouches for (mcp.WithCallMeta) reaches the downstream
// handler as the request's _meta (mcp.RequestMeta), beside the progress
// token the runtime sets, which the caller cannot override.
func TestCallMetaReachesTheDownstreamHandler(t *testing.T) {
	for _, era := range []mcp.Era{mcp.EraLegacy, mcp.EraModern} {
		t.Run(string(era), func(t *testing.T) {
			srv, err := mcp.NewServer(mcp.Implementation{Name: "down", Version: "1"}, mcp.Options{}, &mcp.Toolset{Name: "down", Tools: []*mcp.Tool{{
				Name: "meta", InputSchema: json.RawMessage(`{"type":"object"}`),
				Call: func(ctx context.Context, _ json.RawMessage) (*mcp.ToolResult, error) {
					var m map[string]any
					_ = json.Unmarshal(mcp.RequestMeta(ctx), &m)
					return mcp.TextResult(fmt.Sprintf("%v %v", m["org.example/confirmed"], strings.HasPrefix(fmt.Sprint(m["progressToken"]), "kontext-proxy-"))), nil
				},
			}}})
			if err != nil {
				t.Fatal(err)
			}
			m := proxy.New(proxy.Options{Project: func(d protocol.Tool) (*mcp.Tool, bool) {
				return &mcp.Tool{Name: d.Name, InputSchema: d.InputSchema}, true
			}})
			if err := m.Attach(context.Background(), serve(t, srv, era, m.Notify), nil); err != nil {
				t.Fatal(err)
			}
			ctx := mcp.WithCallMeta(context.Background(), map[string]any{"org.example/confirmed": true, "progressToken": "mine"})
			res, err := m.Call(ctx, "meta", nil)
			if err != nil || !strings.Contains(string(res.Content[0]), `"true true"`) {
				t.Fatalf("meta = %+v, %v", res, err)
			}
			res, err = m.Call(context.Background(), "meta", nil)
			if err != nil || !strings.Contains(string(res.Content[0]), `"\u003cnil\u003e true"`) && !strings.Contains(string(res.Content[0]), `"<nil> true"`) {
				t.Fatalf("meta without WithCallMeta = %s, %v", res.Content[0], err)
			}
		})
	}
}

// A downstream change the projection does not carry (here a description
// the owner leaves out) is still a change: the owner hears of it, since
// it may name or describe the tool from more than it projects.
func TestAChangeOutsideTheProjectionIsStillAChange(t *testing.T) {
	for _, era := range []mcp.Era{mcp.EraLegacy, mcp.EraModern} {
		t.Run(string(era), func(t *testing.T) {
			var changes atomic.Int32
			r := newRig(t, era, proxy.Options{
				Project: func(d protocol.Tool) (*mcp.Tool, bool) {
					return &mcp.Tool{Name: "x_" + d.Name, InputSchema: d.InputSchema}, true
				},
				OnToolsChanged: func() { changes.Add(1) },
			})
			again := &mcp.Tool{Name: "echo", Description: "Echoes, described anew.", InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}}}`), Annotations: mcp.Annotations{ReadOnly: mcp.Bool(true)},
				Call: func(context.Context, json.RawMessage) (*mcp.ToolResult, error) { return mcp.TextResult("echo"), nil }}
			if err := r.down.srv.ReplaceTools([]string{"echo"}, []*mcp.Tool{again}); err != nil {
				t.Fatal(err)
			}
			waitFor(t, "OnToolsChanged", func() bool { return changes.Load() > 0 })
			p, ok := r.mount.Lookup("echo")
			if !ok || p.Down.Description == nil || *p.Down.Description != "Echoes, described anew." {
				t.Fatalf("the projection still holds the old downstream tool: %+v", p.Down)
			}
		})
	}
}
