package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/kontext-dev/kontext/gen/errcodes"
	"github.com/kontext-dev/kontext/gen/protocol"
)

// Era chooses how a client negotiates.
type Era string

const (
	// EraAuto probes server/discover and falls back to initialize, as the
	// 2026-07-28 stdio transport recommends for dual-era clients.
	EraAuto Era = "auto"
	// EraLegacy always uses the initialize handshake.
	EraLegacy Era = "legacy"
	// EraModern always sends per-request _meta (2026-07-28).
	EraModern Era = "modern"
)

// ClientOptions configure a Client.
type ClientOptions struct {
	Info Implementation
	// Root is the repository root, answered to roots/list as a file:// URI.
	Root string
	Era  Era
	// OnNotification receives every notification from the server.
	OnNotification func(method string, params json.RawMessage)
	// ProbeTimeout bounds the server/discover probe (5 s when 0).
	ProbeTimeout time.Duration
	Logger       *slog.Logger
}

// Client is an MCP client: the side adapters and the apps broker use to talk
// to other MCP servers. It answers the server's ping and roots/list and
// refuses every other server-initiated request with -32601.
type Client struct {
	opts   ClientOptions
	stream *jsonrpc2Conn
	conn   *jsonrpc2.Conn
	log    *slog.Logger
	nextID atomic.Uint64

	// Negotiated.
	Modern       bool
	Version      string
	ServerInfo   protocol.Implementation
	Capabilities protocol.ServerCapabilities
	Instructions string
	// ResultMeta is the _meta of the server's initialize or server/discover
	// result (nil when it sent none).
	ResultMeta json.RawMessage

	mu     sync.Mutex
	listen *listener
	subs   []string
	// relistenMu keeps one stream replacement at a time, so the stream
	// left open is the one for the latest subscriptions.
	relistenMu sync.Mutex
	cmd        *exec.Cmd
	closed     chan struct{}
}

type listener struct {
	id     uint64
	cancel context.CancelFunc
	done   chan struct{}
	// acked is closed when the server acknowledges the stream: from then
	// on no change it announces is missed.
	acked   chan struct{}
	ackOnce sync.Once
}

// Connect negotiates over rwc and returns a ready client.
func Connect(ctx context.Context, rwc io.ReadWriteCloser, opts ClientOptions) (*Client, error) {
	if opts.Era == "" {
		opts.Era = EraAuto
	}
	if opts.ProbeTimeout <= 0 {
		opts.ProbeTimeout = 5 * time.Second
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	c := &Client{opts: opts, log: log, closed: make(chan struct{})}
	lines := newLineConn(rwc, rwc, rwc, 0)
	lines.logf = func(format string, args ...any) { log.Warn(fmt.Sprintf(format, args...)) }
	c.stream = newJSONRPC2Conn(lines)
	c.conn = jsonrpc2.NewConn(context.Background(), c.stream, c, jsonrpc2.SetLogger(slogPrintf{log}))
	go func() { <-c.conn.DisconnectNotify(); close(c.closed) }()
	if err := c.negotiate(ctx); err != nil {
		c.conn.Close()
		return nil, err
	}
	return c, nil
}

// StartProcess starts a stdio MCP server as a child process and connects to
// it. The child's stderr goes to ours.
func StartProcess(ctx context.Context, command string, args, env []string, opts ClientOptions) (*Client, error) {
	cmd := exec.Command(command, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = os.Stderr
	if opts.Root != "" {
		cmd.Dir = opts.Root
	}
	return StartCommand(ctx, cmd, opts)
}

// StartCommand starts a prepared command as a stdio MCP server and
// connects to it: the caller chooses its directory, environment and where
// its stderr goes (an adapter keeps it to explain a failure). Stdin and
// stdout must be left unset.
func StartCommand(ctx context.Context, cmd *exec.Cmd, opts ClientOptions) (*Client, error) {
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", filepath.Base(cmd.Path), err)
	}
	c, err := Connect(ctx, &processPipes{stdin, stdout}, opts)
	if err != nil {
		stdin.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, err
	}
	c.cmd = cmd
	return c, nil
}

type processPipes struct {
	w io.WriteCloser
	r io.ReadCloser
}

func (p *processPipes) Read(b []byte) (int, error)  { return p.r.Read(b) }
func (p *processPipes) Write(b []byte) (int, error) { return p.w.Write(b) }
func (p *processPipes) Close() error                { return p.w.Close() }

// Close ends the connection; a child process gets its stdin closed and is
// waited for (killed after 5 s).
func (c *Client) Close() error {
	c.mu.Lock()
	l := c.listen
	c.listen = nil
	c.mu.Unlock()
	if l != nil {
		l.cancel()
	}
	err := c.conn.Close()
	if c.cmd != nil {
		done := make(chan error, 1)
		go func() { done <- c.cmd.Wait() }()
		select {
		case werr := <-done:
			if werr != nil && err == nil {
				err = werr
			}
		case <-time.After(5 * time.Second):
			_ = c.cmd.Process.Kill()
			<-done
		}
	}
	if errors.Is(err, jsonrpc2.ErrClosed) {
		err = nil
	}
	return err
}

func (c *Client) capabilities() map[string]any {
	caps := map[string]any{}
	switch {
	case c.opts.Root != "" && c.Modern:
		// 2026-07-28 keeps roots (deprecated, without listChanged): a
		// server asks for them only in a multi-round-trip result.
		caps["roots"] = map[string]any{}
	case c.opts.Root != "":
		caps["roots"] = map[string]any{"listChanged": false}
	}
	return caps
}

func (c *Client) negotiate(ctx context.Context) error {
	if c.opts.Era != EraLegacy {
		c.Modern, c.Version = true, ModernVersion
		pctx, cancel := context.WithTimeout(ctx, c.opts.ProbeTimeout)
		var res protocol.DiscoverResult
		err := c.call(pctx, "server/discover", nil, &res)
		cancel()
		var rpcErr *jsonrpc2.Error
		switch {
		case err == nil:
			if !slices.Contains(res.SupportedVersions, ModernVersion) {
				if c.opts.Era == EraModern {
					return fmt.Errorf("the server does not support %s (it supports %v)", ModernVersion, res.SupportedVersions)
				}
				break
			}
			c.Capabilities, c.ResultMeta = res.Capabilities, res.Meta
			if res.Instructions != nil {
				c.Instructions = *res.Instructions
			}
			var meta struct {
				ServerInfo *protocol.Implementation `json:"io.modelcontextprotocol/serverInfo"`
			}
			if json.Unmarshal(res.Meta, &meta) == nil && meta.ServerInfo != nil {
				c.ServerInfo = *meta.ServerInfo
			}
			return nil
		case errors.As(err, &rpcErr) && rpcErr.Code == errcodes.UnsupportedProtocolVersion:
			// A modern server that does not speak our modern revision.
			if c.opts.Era == EraModern {
				return fmt.Errorf("the server refused %s: %s", ModernVersion, rpcErr.Message)
			}
		case c.opts.Era == EraModern:
			return fmt.Errorf("server/discover failed: %w", err)
		}
		c.Modern = false
	}
	c.Modern, c.Version = false, ""
	var res protocol.InitializeResult
	params := map[string]any{
		"protocolVersion": LatestLegacyVersion,
		"capabilities":    c.capabilities(),
		"clientInfo":      c.implementation(),
	}
	if err := c.call(ctx, "initialize", params, &res); err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	if !slices.Contains(LegacyVersions, res.ProtocolVersion) {
		return fmt.Errorf("the server answered initialize with protocol version %q, which this client does not speak", res.ProtocolVersion)
	}
	c.Version, c.ServerInfo, c.Capabilities, c.ResultMeta = res.ProtocolVersion, res.ServerInfo, res.Capabilities, res.Meta
	if res.Instructions != nil {
		c.Instructions = *res.Instructions
	}
	return c.conn.Notify(ctx, "notifications/initialized", nil)
}

func (c *Client) implementation() map[string]string {
	return map[string]string{"name": c.opts.Info.Name, "version": c.opts.Info.Version}
}

// call sends a request and decodes its result. In the modern era every
// request carries the per-request _meta. A cancelled ctx sends
// notifications/cancelled.
func (c *Client) call(ctx context.Context, method string, params any, result any) error {
	body, err := c.params(params)
	if err != nil {
		return err
	}
	for round := 1; ; round++ {
		raw, err := c.roundTrip(ctx, method, body)
		if err != nil {
			return err
		}
		if c.Modern && clientMRTRMethods[method] {
			next, more, err := c.answerInput(method, body, raw)
			if err != nil {
				return err
			}
			if more {
				if round >= maxInputRounds {
					return fmt.Errorf("%s still asked for input after %d rounds", method, round)
				}
				body = next
				continue
			}
		}
		if result == nil {
			return nil
		}
		return json.Unmarshal(raw, result)
	}
}

// roundTrip sends one request and waits for its result.
func (c *Client) roundTrip(ctx context.Context, method string, body json.RawMessage) (json.RawMessage, error) {
	id := jsonrpc2.ID{Num: c.nextID.Add(1)}
	// A nil RawMessage in an interface would be sent as "params": null,
	// which JSON-RPC forbids; an untyped nil leaves params out.
	var p any
	if body != nil {
		p = body
	}
	w, err := c.conn.DispatchCall(ctx, method, p, jsonrpc2.PickID(id))
	if err != nil {
		return nil, err
	}
	var raw json.RawMessage
	err = w.Wait(ctx, &raw)
	if ctx.Err() != nil && err == ctx.Err() {
		_ = c.conn.Notify(context.Background(), "notifications/cancelled", map[string]any{"requestId": id.Num, "reason": ctx.Err().Error()})
		return nil, err
	}
	return raw, err
}

// clientMRTRMethods may answer input_required in 2026-07-28.
var clientMRTRMethods = map[string]bool{"tools/call": true, "prompts/get": true, "resources/read": true}

// maxInputRounds bounds a server that keeps asking.
const maxInputRounds = 8

// answerInput reads a modern result: when it is input_required, it returns
// the request's params for the next round, with the answers to the
// server's input requests and its requestState. The client answers
// roots/list (as it answers the legacy request); any other input request
// fails the call with -32601, as a legacy request would be refused.
func (c *Client) answerInput(method string, body, raw json.RawMessage) (json.RawMessage, bool, error) {
	var res struct {
		ResultType    string                     `json:"resultType"`
		InputRequests map[string]json.RawMessage `json:"inputRequests"`
		RequestState  *string                    `json:"requestState"`
	}
	if json.Unmarshal(raw, &res) != nil || res.ResultType != "input_required" {
		return nil, false, nil
	}
	responses := map[string]json.RawMessage{}
	for _, key := range sortedKeys(res.InputRequests) {
		var req struct {
			Method string `json:"method"`
		}
		_ = json.Unmarshal(res.InputRequests[key], &req)
		if req.Method != "roots/list" {
			return nil, false, &jsonrpc2.Error{Code: errcodes.MethodNotFound, Message: fmt.Sprintf("%s asked for %s (input request %q), which this client does not answer: it answers only roots/list", method, req.Method, key)}
		}
		responses[key] = marshal(c.roots())
	}
	obj := map[string]json.RawMessage{}
	if err := json.Unmarshal(body, &obj); err != nil {
		return nil, false, err
	}
	delete(obj, "inputResponses")
	delete(obj, "requestState")
	if len(responses) > 0 {
		obj["inputResponses"] = marshal(responses)
	}
	if res.RequestState != nil {
		obj["requestState"] = marshal(*res.RequestState)
	}
	next, err := json.Marshal(obj)
	return next, true, err
}

// roots is the client's answer to roots/list: the repository root.
func (c *Client) roots() protocol.ListRootsResult {
	roots := []protocol.Root{}
	if c.opts.Root != "" {
		abs, _ := filepath.Abs(c.opts.Root)
		u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}
		roots = append(roots, protocol.Root{URI: u.String(), Name: strPtr(filepath.Base(abs))})
	}
	return protocol.ListRootsResult{Roots: roots}
}

// params returns params as a JSON object, with the modern _meta added.
func (c *Client) params(params any) (json.RawMessage, error) {
	obj := map[string]json.RawMessage{}
	if params != nil {
		b, err := json.Marshal(params)
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(b, &obj); err != nil {
			return nil, fmt.Errorf("params must be an object: %w", err)
		}
	}
	if c.Modern {
		meta := map[string]json.RawMessage{}
		if m, ok := obj["_meta"]; ok {
			_ = json.Unmarshal(m, &meta)
		}
		meta["io.modelcontextprotocol/protocolVersion"] = marshal(c.Version)
		meta["io.modelcontextprotocol/clientCapabilities"] = marshal(c.capabilities())
		meta["io.modelcontextprotocol/clientInfo"] = marshal(c.implementation())
		obj["_meta"] = marshal(meta)
	}
	if len(obj) == 0 && !c.Modern {
		return nil, nil
	}
	return json.Marshal(obj)
}

// Request sends any request and decodes its result into result (which may
// be nil): for methods the client has no helper for.
func (c *Client) Request(ctx context.Context, method string, params, result any) error {
	return c.call(ctx, method, params, result)
}

// Ping checks the server answers (legacy era; the modern era has no ping,
// so it calls server/discover).
func (c *Client) Ping(ctx context.Context) error {
	if c.Modern {
		return c.call(ctx, "server/discover", nil, nil)
	}
	return c.call(ctx, "ping", nil, nil)
}

// ListTools lists every tool, following cursors.
func (c *Client) ListTools(ctx context.Context) ([]protocol.Tool, error) {
	return listAll(ctx, c, "tools/list", func(r *protocol.ListToolsResult) ([]protocol.Tool, *string) { return r.Tools, r.NextCursor })
}

// listAgain bounds how often a list starts over because a cursor went
// stale under it.
const listAgain = 3

// listAll follows a list method's cursors. A server may refuse a cursor
// (-32602) when its list changed between pages, as kontext's does: the
// list then starts over, so a caller sees one consistent list, not pages
// of two.
func listAll[R any, T any](ctx context.Context, c *Client, method string, page func(*R) ([]T, *string)) ([]T, error) {
	for attempt := 0; ; attempt++ {
		var all []T
		var cursor *string
		for {
			var res R
			err := c.call(ctx, method, cursorParams(cursor), &res)
			var rpcErr *jsonrpc2.Error
			if err != nil && cursor != nil && attempt < listAgain && errors.As(err, &rpcErr) && rpcErr.Code == jsonrpc2.CodeInvalidParams {
				break
			}
			if err != nil {
				return nil, err
			}
			items, next := page(&res)
			all = append(all, items...)
			if next == nil {
				return all, nil
			}
			cursor = next
		}
	}
}

func cursorParams(cursor *string) any {
	if cursor == nil {
		return nil
	}
	return map[string]string{"cursor": *cursor}
}

// CallTool calls a tool. A tool that ran and failed is a result with
// IsError set; a refused call is an error (*jsonrpc2.Error).
func (c *Client) CallTool(ctx context.Context, name string, args any) (*protocol.CallToolResult, error) {
	params := map[string]any{"name": name}
	if meta := callMetaFrom(ctx); len(meta) > 0 {
		params["_meta"] = meta
	}
	if args != nil {
		params["arguments"] = args
	}
	var res protocol.CallToolResult
	if err := c.call(ctx, "tools/call", params, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// CallToolWithProgress calls a tool and asks for its progress: the
// server's notifications/progress for the call carry token and arrive
// through OnNotification.
func (c *Client) CallToolWithProgress(ctx context.Context, name string, args any, token string) (*protocol.CallToolResult, error) {
	meta := maps.Clone(callMetaFrom(ctx))
	if meta == nil {
		meta = map[string]any{}
	}
	meta["progressToken"] = token
	params := map[string]any{"name": name, "_meta": meta}
	if args != nil {
		params["arguments"] = args
	}
	var res protocol.CallToolResult
	if err := c.call(ctx, "tools/call", params, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// ListResources lists every resource, following cursors.
func (c *Client) ListResources(ctx context.Context) ([]protocol.Resource, error) {
	return listAll(ctx, c, "resources/list", func(r *protocol.ListResourcesResult) ([]protocol.Resource, *string) { return r.Resources, r.NextCursor })
}

// ReadResource reads a resource.
func (c *Client) ReadResource(ctx context.Context, uri string) (*protocol.ReadResourceResult, error) {
	var res protocol.ReadResourceResult
	if err := c.call(ctx, "resources/read", map[string]string{"uri": uri}, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// Subscribe asks to hear of changes to a resource: resources/subscribe in the
// legacy era, a subscriptions/listen stream (restarted with the new set) in
// the modern era. Updates arrive through OnNotification.
func (c *Client) Subscribe(ctx context.Context, uri string) error {
	if !c.Modern {
		return c.call(ctx, "resources/subscribe", map[string]string{"uri": uri}, nil)
	}
	return c.relisten(func(subs []string) []string { return append(subs, uri) })
}

// Unsubscribe stops hearing of changes to a resource: resources/unsubscribe
// in the legacy era; in the modern era the listen stream is restarted
// without it.
func (c *Client) Unsubscribe(ctx context.Context, uri string) error {
	if !c.Modern {
		return c.call(ctx, "resources/unsubscribe", map[string]string{"uri": uri}, nil)
	}
	return c.relisten(func(subs []string) []string {
		return slices.DeleteFunc(subs, func(u string) bool { return u == uri })
	})
}

// relisten replaces the modern listen stream with one following the
// subscriptions edit leaves.
func (c *Client) relisten(edit func(subs []string) []string) error {
	c.relistenMu.Lock()
	defer c.relistenMu.Unlock()
	c.mu.Lock()
	c.subs = edit(c.subs)
	subs := slices.Clone(c.subs)
	old := c.listen
	c.mu.Unlock()
	// The new stream is acknowledged before the old one closes: a change
	// announced in between reaches one of them (perhaps both, which is
	// harmless: an update is a hint to read again), never neither.
	if err := c.startListen(subs); err != nil {
		if old != nil {
			// The stream that works stays: better the old subscriptions
			// than none.
			c.mu.Lock()
			failed := c.listen
			c.listen = old
			c.mu.Unlock()
			failed.cancel()
		}
		return err
	}
	if old != nil {
		old.cancel()
		<-old.done
	}
	return nil
}

// Follow makes sure the server's list changes reach OnNotification: in the
// modern era they arrive only on a subscriptions/listen stream, which
// Follow opens when none is open (the legacy era needs nothing).
func (c *Client) Follow() error {
	if !c.Modern {
		return nil
	}
	c.mu.Lock()
	running := c.listen != nil
	subs := slices.Clone(c.subs)
	c.mu.Unlock()
	if running {
		return nil
	}
	return c.startListen(subs)
}

// listenAckTimeout bounds how long startListen waits for the server to
// acknowledge a listen stream.
const listenAckTimeout = 10 * time.Second

// startListen opens a subscriptions/listen request that lives until it is
// replaced or the client closes, and returns once the server acknowledged
// it (or the stream ended, or listenAckTimeout passed).
func (c *Client) startListen(uris []string) error {
	ctx, cancel := context.WithCancel(context.Background())
	l := &listener{cancel: cancel, done: make(chan struct{}), acked: make(chan struct{})}
	c.mu.Lock()
	c.listen = l
	c.mu.Unlock()
	go func() {
		defer close(l.done)
		filter := map[string]any{"toolsListChanged": true, "resourcesListChanged": true}
		if len(uris) > 0 {
			filter["resourceSubscriptions"] = uris
		}
		err := c.call(ctx, "subscriptions/listen", map[string]any{"notifications": filter}, nil)
		if err != nil && ctx.Err() == nil {
			c.log.Warn("subscriptions/listen ended", "error", err)
		}
	}()
	select {
	case <-l.acked:
		return nil
	case <-l.done:
		return errors.New("the server ended subscriptions/listen before acknowledging it")
	case <-time.After(listenAckTimeout):
		return errors.New("the server did not acknowledge subscriptions/listen")
	}
}

// Handle implements jsonrpc2.Handler: server-initiated requests and
// notifications.
func (c *Client) Handle(_ context.Context, _ *jsonrpc2.Conn, req *jsonrpc2.Request) {
	if req.Meta == nil {
		return
	}
	token, err := strconv.ParseUint(string(*req.Meta), 10, 64)
	if err != nil {
		return
	}
	if req.Notif {
		in := c.stream.take(token)
		if in != nil && in.method == "notifications/subscriptions/acknowledged" {
			c.mu.Lock()
			if l := c.listen; l != nil {
				l.ackOnce.Do(func() { close(l.acked) })
			}
			c.mu.Unlock()
		}
		if in != nil && c.opts.OnNotification != nil {
			c.opts.OnNotification(in.method, in.params)
		}
		return
	}
	in := c.stream.lookup(token)
	if in == nil {
		return
	}
	switch in.method {
	case "ping":
		c.stream.respond(token, "result", []byte("{}"))
	case "roots/list":
		c.stream.respond(token, "result", marshal(c.roots()))
	default:
		c.stream.respond(token, "error", marshal(NewError(errcodes.MethodNotFound, map[string]any{
			"method": in.method,
			"reason": "this client answers only ping and roots/list",
		})))
	}
}

// Done is closed when the connection ends.
func (c *Client) Done() <-chan struct{} { return c.closed }

// slogPrintf adapts jsonrpc2's logger to slog.
type slogPrintf struct{ log *slog.Logger }

func (l slogPrintf) Printf(format string, v ...any) { l.log.Warn(fmt.Sprintf(format, v...)) }

type callMetaKey struct{}

// WithCallMeta returns a context whose tools/call requests carry meta in
// their _meta (a proxy adds what it vouches for, such as a confirmation the
// user gave; the runtime's own keys win over it).
func WithCallMeta(ctx context.Context, meta map[string]any) context.Context {
	merged := maps.Clone(callMetaFrom(ctx))
	if merged == nil {
		merged = map[string]any{}
	}
	maps.Copy(merged, meta)
	return context.WithValue(ctx, callMetaKey{}, merged)
}

func callMetaFrom(ctx context.Context) map[string]any {
	m, _ := ctx.Value(callMetaKey{}).(map[string]any)
	return m
}
