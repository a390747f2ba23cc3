// Package proxy projects the surface of another MCP server — the tools and
// resources a Client sees — into a kontext Server: each downstream tool
// becomes a tool of ours under a name the owner chooses, and calls,
// cancellations, progress, list changes and resource updates flow through.
// The apps broker mounts each application through it and the knowledge
// adapters mount the servers they expose, so kontext has one proxy.
package proxy

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/kontext-dev/kontext/gen/protocol"
	"github.com/kontext-dev/kontext/internal/mcp"
)

// Outcomes of a forwarded call, as After sees them (and audits log them).
const (
	OutcomeOK        = "ok"
	OutcomeIsError   = "isError"
	OutcomeRPCError  = "rpc-error"
	OutcomeCancelled = "cancelled"
	OutcomeTimeout   = "timeout"
)

// Options say how one downstream client's surface is projected.
type Options struct {
	// Project turns a downstream tool into the tool we serve, or ok=false
	// to leave it out. The proxy fills in Call; a tool whose input schema
	// does not compile is left out (and logged), since it could never be
	// called as advertised.
	Project func(down protocol.Tool) (up *mcp.Tool, ok bool)
	// Before, when set, runs before a call is forwarded: a non-nil result
	// or error is the answer instead (a refused confirmation, a read-only
	// server).
	Before func(ctx context.Context, down protocol.Tool, args json.RawMessage) (*mcp.ToolResult, error)
	// After, when set, sees every forwarded call: its outcome (Outcome…)
	// and how long it took. Never the arguments.
	After func(down protocol.Tool, outcome string, d time.Duration)
	// CallTimeout bounds each forwarded call (0: only the request's own
	// deadline).
	CallTimeout time.Duration
	// OnToolsChanged runs after a downstream list change replaced our tools.
	OnToolsChanged func()
	// OnResourcesChanged runs when the downstream resource list changed.
	OnResourcesChanged func()
	// OnResourceUpdated runs when the downstream server says a resource it
	// serves changed (the URI as it sent it).
	OnResourceUpdated func(uri string)
	Logger            *slog.Logger
}

// Projection pairs a tool we serve with the downstream tool it forwards to.
type Projection struct {
	Up   *mcp.Tool
	Down protocol.Tool
}

// Mount is one downstream client projected into a server.
type Mount struct {
	opts Options
	log  *slog.Logger

	mu        sync.Mutex
	client    *mcp.Client
	srv       *mcp.Server
	byDown    map[string]Projection
	served    []string // names of ours on srv
	resources []protocol.Resource
	listed    bool // resources is current
	closed    bool
	// early holds what arrived before Attach (a list change during the
	// handshake), replayed once attached.
	early []func()

	refreshing atomic.Bool
	again      atomic.Bool

	nextToken atomic.Uint64
	progress  sync.Map // downstream progress token → upstream call ctx
	prefix    string   // of our progress tokens, unique per mount
}

var mounts atomic.Uint64

// New returns a mount that is not attached yet: pass Notify as the
// client's OnNotification when connecting, then Attach.
func New(opts Options) *Mount {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return &Mount{opts: opts, log: log, byDown: map[string]Projection{}, prefix: "kontext-proxy-" + strconv.FormatUint(mounts.Add(1), 10) + "-"}
}

// Notify receives the downstream server's notifications. It never blocks
// the client: list refreshes run on their own goroutine.
func (m *Mount) Notify(method string, params json.RawMessage) {
	switch method {
	case "notifications/progress":
		m.forwardProgress(params)
	case "notifications/tools/list_changed":
		m.whenAttached(func() { go m.refreshTools() })
	case "notifications/resources/list_changed":
		m.whenAttached(func() {
			m.mu.Lock()
			m.listed = false
			m.mu.Unlock()
			if m.opts.OnResourcesChanged != nil {
				m.opts.OnResourcesChanged()
			}
		})
	case "notifications/resources/updated":
		var p struct {
			URI string `json:"uri"`
		}
		if json.Unmarshal(params, &p) == nil && p.URI != "" && m.opts.OnResourceUpdated != nil {
			m.opts.OnResourceUpdated(p.URI)
		}
	case "notifications/message":
		m.log.Debug("downstream log message", "params", string(params))
	}
}

func (m *Mount) whenAttached(f func()) {
	m.mu.Lock()
	if m.client == nil && !m.closed {
		m.early = append(m.early, f)
		m.mu.Unlock()
		return
	}
	closed := m.closed
	m.mu.Unlock()
	if !closed {
		f()
	}
}

// Attach lists the client's tools and serves the projected ones on srv
// (srv may be nil: the tools are then kept for Call only). In the modern
// era it opens the listen stream that carries the server's list changes.
func (m *Mount) Attach(ctx context.Context, c *mcp.Client, srv *mcp.Server) error {
	m.mu.Lock()
	if m.client != nil {
		m.mu.Unlock()
		return errors.New("proxy: mount already attached")
	}
	m.client, m.srv = c, srv
	early := m.early
	m.early = nil
	m.mu.Unlock()
	if err := c.Follow(); err != nil {
		return err
	}
	if err := m.replaceTools(ctx); err != nil {
		return err
	}
	for _, f := range early {
		f()
	}
	return nil
}

// Client is the attached client (nil before Attach).
func (m *Mount) Client() *mcp.Client {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.client
}

// Tools are the projections, sorted by our name.
func (m *Mount) Tools() []Projection {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]Projection, 0, len(m.byDown))
	for _, p := range m.byDown {
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b Projection) int { return strings.Compare(a.Up.Name, b.Up.Name) })
	return out
}

// Lookup returns the projection of a downstream tool.
func (m *Mount) Lookup(downName string) (Projection, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	p, ok := m.byDown[downName]
	return p, ok
}

// refreshTools re-lists after a downstream list change; changes that
// arrive while it runs make it run once more.
func (m *Mount) refreshTools() {
	if !m.refreshing.CompareAndSwap(false, true) {
		m.again.Store(true)
		return
	}
	defer m.refreshing.Store(false)
	for {
		m.again.Store(false)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		err := m.replaceTools(ctx)
		cancel()
		if err != nil {
			m.log.Warn("re-listing downstream tools failed", "error", err)
		} else if m.opts.OnToolsChanged != nil {
			m.opts.OnToolsChanged()
		}
		if !m.again.Load() {
			return
		}
	}
}

// replaceTools lists the downstream tools and swaps our projections for
// the new ones in one change; an unchanged list changes nothing.
func (m *Mount) replaceTools(ctx context.Context) error {
	c := m.Client()
	down, err := c.ListTools(ctx)
	if err != nil {
		return fmt.Errorf("listing tools: %w", err)
	}
	next := map[string]Projection{}
	var ups []*mcp.Tool
	taken := map[string]bool{}
	for _, d := range down {
		if m.opts.Project == nil {
			break
		}
		up, ok := m.opts.Project(d)
		if !ok || up == nil {
			continue
		}
		if err := mcp.CheckInputSchema(up.Name, up.InputSchema); err != nil {
			m.log.Warn("downstream tool left out", "tool", d.Name, "error", err)
			continue
		}
		if taken[up.Name] {
			m.log.Warn("downstream tool left out: its name is taken", "tool", d.Name, "name", up.Name)
			continue
		}
		taken[up.Name] = true
		up.Call = m.caller(d)
		p := Projection{Up: up, Down: d}
		next[d.Name] = p
		ups = append(ups, up)
	}
	slices.SortFunc(ups, func(a, b *mcp.Tool) int { return strings.Compare(a.Name, b.Name) })
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil
	}
	if sameTools(m.byDown, next) {
		return nil
	}
	if m.srv != nil {
		if err := m.srv.ReplaceTools(m.served, ups); err != nil {
			return err
		}
	}
	m.byDown = next
	m.served = m.served[:0]
	for _, up := range ups {
		m.served = append(m.served, up.Name)
	}
	return nil
}

// sameTools says two projections advertise the same tools of the same
// downstream tools. The downstream side counts too: an owner may project
// only part of a tool (the apps broker keeps its own names and metadata),
// and still needs to hear that the rest changed.
func sameTools(a, b map[string]Projection) bool {
	if len(a) != len(b) {
		return false
	}
	for name, pa := range a {
		pb, ok := b[name]
		if !ok || !sameTool(pa.Up, pb.Up) || !sameDown(pa.Down, pb.Down) {
			return false
		}
	}
	return true
}

func sameDown(a, b protocol.Tool) bool {
	ja, errA := json.Marshal(a)
	jb, errB := json.Marshal(b)
	return errA == nil && errB == nil && string(ja) == string(jb)
}

func sameTool(a, b *mcp.Tool) bool {
	return a.Name == b.Name && a.Title == b.Title && a.Description == b.Description &&
		string(a.InputSchema) == string(b.InputSchema) && string(a.OutputSchema) == string(b.OutputSchema) &&
		string(a.Meta) == string(b.Meta) && sameHint(a.Annotations.ReadOnly, b.Annotations.ReadOnly) &&
		sameHint(a.Annotations.Destructive, b.Annotations.Destructive) &&
		sameHint(a.Annotations.Idempotent, b.Annotations.Idempotent) && sameHint(a.Annotations.OpenWorld, b.Annotations.OpenWorld)
}

func sameHint(a, b *bool) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

func (m *Mount) caller(down protocol.Tool) func(context.Context, json.RawMessage) (*mcp.ToolResult, error) {
	return func(ctx context.Context, args json.RawMessage) (*mcp.ToolResult, error) {
		return m.forward(ctx, down, args)
	}
}

// Call forwards a call by the downstream tool's name (the stable app_call
// of the apps broker), exactly as a call of its projection would be. A
// name the downstream server did not list is an error.
func (m *Mount) Call(ctx context.Context, downName string, args json.RawMessage) (*mcp.ToolResult, error) {
	p, ok := m.Lookup(downName)
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrNoSuchTool, downName)
	}
	return m.forward(ctx, p.Down, args)
}

// ErrNoSuchTool is returned by Call for a tool the downstream server does
// not list.
var ErrNoSuchTool = errors.New("no such tool")

func (m *Mount) forward(ctx context.Context, down protocol.Tool, args json.RawMessage) (*mcp.ToolResult, error) {
	if m.opts.Before != nil {
		if res, err := m.opts.Before(ctx, down, args); res != nil || err != nil {
			return res, err
		}
	}
	c := m.Client()
	if c == nil {
		return nil, errors.New("proxy: not attached")
	}
	if m.opts.CallTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, m.opts.CallTimeout)
		defer cancel()
	}
	// Progress is always asked for downstream; mcp.Progress drops it when
	// our caller gave no token.
	token := m.prefix + strconv.FormatUint(m.nextToken.Add(1), 10)
	m.progress.Store(token, ctx)
	defer m.progress.Delete(token)
	var callArgs any
	if len(args) > 0 && string(args) != "null" {
		callArgs = args
	}
	start := time.Now()
	res, err := c.CallToolWithProgress(ctx, down.Name, callArgs, token)
	d := time.Since(start)
	outcome := OutcomeOK
	switch {
	case err != nil && ctx.Err() == context.DeadlineExceeded:
		outcome = OutcomeTimeout
		err = fmt.Errorf("%s did not answer within %s", down.Name, d.Round(time.Millisecond))
	case err != nil && ctx.Err() != nil:
		outcome = OutcomeCancelled
	case err != nil:
		outcome = OutcomeRPCError
		var rpcErr *jsonrpc2.Error
		if errors.As(err, &rpcErr) {
			var data any
			if rpcErr.Data != nil {
				data = json.RawMessage(*rpcErr.Data)
			}
			err = &mcp.Error{Code: rpcErr.Code, Message: rpcErr.Message, Data: data}
		}
	case res.IsError != nil && *res.IsError:
		outcome = OutcomeIsError
	}
	if m.opts.After != nil {
		m.opts.After(down, outcome, d)
	}
	if err != nil {
		return nil, err
	}
	out := &mcp.ToolResult{Content: res.Content, IsError: res.IsError != nil && *res.IsError}
	if len(res.StructuredContent) > 0 && string(res.StructuredContent) != "null" {
		out.Structured = res.StructuredContent
	}
	return out, nil
}

func (m *Mount) forwardProgress(params json.RawMessage) {
	var p struct {
		ProgressToken json.RawMessage `json:"progressToken"`
		Progress      float64         `json:"progress"`
		Total         float64         `json:"total"`
		Message       string          `json:"message"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	var token string
	if json.Unmarshal(p.ProgressToken, &token) != nil {
		return
	}
	if ctx, ok := m.progress.Load(token); ok {
		mcp.Progress(ctx.(context.Context), p.Progress, p.Total, p.Message)
	}
}

// Resources lists the downstream resources, from a cache that a
// downstream resources/list_changed empties.
func (m *Mount) Resources(ctx context.Context) ([]protocol.Resource, error) {
	m.mu.Lock()
	if m.listed {
		out := slices.Clone(m.resources)
		m.mu.Unlock()
		return out, nil
	}
	c := m.client
	m.mu.Unlock()
	if c == nil {
		return nil, errors.New("proxy: not attached")
	}
	list, err := c.ListResources(ctx)
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	m.resources, m.listed = list, true
	m.mu.Unlock()
	return slices.Clone(list), nil
}

// Read reads a downstream resource, text or binary.
func (m *Mount) Read(ctx context.Context, uri string) ([]mcp.ResourceContents, error) {
	c := m.Client()
	if c == nil {
		return nil, errors.New("proxy: not attached")
	}
	var res struct {
		Contents []struct {
			URI      string  `json:"uri"`
			MIMEType string  `json:"mimeType"`
			Text     *string `json:"text"`
			Blob     *string `json:"blob"`
		} `json:"contents"`
	}
	if err := c.Request(ctx, "resources/read", map[string]string{"uri": uri}, &res); err != nil {
		return nil, err
	}
	out := make([]mcp.ResourceContents, 0, len(res.Contents))
	for _, rc := range res.Contents {
		item := mcp.ResourceContents{URI: rc.URI, MIMEType: rc.MIMEType}
		switch {
		case rc.Blob != nil:
			b, err := base64.StdEncoding.DecodeString(*rc.Blob)
			if err != nil {
				return nil, fmt.Errorf("resource %s: blob is not base64: %w", rc.URI, err)
			}
			item.Blob = b
		case rc.Text != nil:
			item.Text = *rc.Text
		}
		out = append(out, item)
	}
	return out, nil
}

// Subscribe asks the downstream server to report changes to uri.
func (m *Mount) Subscribe(ctx context.Context, uri string) error {
	c := m.Client()
	if c == nil {
		return errors.New("proxy: not attached")
	}
	return c.Subscribe(ctx, uri)
}

// Unsubscribe stops following uri downstream.
func (m *Mount) Unsubscribe(ctx context.Context, uri string) error {
	c := m.Client()
	if c == nil {
		return errors.New("proxy: not attached")
	}
	return c.Unsubscribe(ctx, uri)
}

// Close removes the mount's tools from the server (one list change) and
// closes the client.
func (m *Mount) Close() error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	srv, served, c := m.srv, m.served, m.client
	m.served, m.byDown = nil, map[string]Projection{}
	m.mu.Unlock()
	if srv != nil && len(served) > 0 {
		_ = srv.ReplaceTools(served, nil)
	}
	if c != nil {
		return c.Close()
	}
	return nil
}
