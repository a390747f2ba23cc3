package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kontext-dev/kontext/gen/errcodes"
	"github.com/kontext-dev/kontext/gen/protocol"
)

// session is one connection: its legacy handshake state, the requests in
// flight, and what the client subscribed to.
type session struct {
	srv  *Server
	conn conn
	log  *slog.Logger

	// ctx is the parent of every handler's context; it ends when the session
	// does, after the drain.
	ctx    context.Context
	cancel context.CancelFunc

	mu          sync.Mutex
	initialized bool
	version     string // negotiated legacy revision; LatestLegacyVersion before initialize
	clientInfo  protocol.Implementation
	clientCaps  protocol.ClientCapabilities
	logLevel    int
	inflight    map[string]*call // by wire id
	subscribed  map[string]bool  // legacy resources/subscribe
	listeners   map[string]*call // modern subscriptions/listen, by wire id

	// asks are the requests of ours awaiting the client, by wire id (under
	// mu); askIDs numbers them, in a namespace of their own.
	asks   map[string]chan *wireMessage
	askIDs atomic.Uint64
	roots  sessionRoots

	running sync.WaitGroup // handlers in flight
	closed  atomic.Bool

	// turns holds one token per handler running (at most MaxInFlight);
	// admitted counts those running and those waiting for a turn.
	turns    chan struct{}
	admitted atomic.Int64
	// onTurn, when set (tests), sees each handler start (+1) and end (-1).
	onTurn func(delta int)
}

func newSession(ctx context.Context, srv *Server, c conn) *session {
	ctx, cancel := context.WithCancel(ctx)
	ss := &session{
		srv:        srv,
		log:        srv.log,
		ctx:        ctx,
		cancel:     cancel,
		version:    LatestLegacyVersion,
		logLevel:   levelIndex("info"),
		inflight:   map[string]*call{},
		subscribed: map[string]bool{},
		listeners:  map[string]*call{},
		asks:       map[string]chan *wireMessage{},
		turns:      make(chan struct{}, srv.opts.MaxInFlight),
		conn:       c,
	}
	return ss
}

// run is the connection's read loop. It reads straight from the conn
// rather than through a jsonrpc2.Conn: decoding every message a second time
// through jsonrpc2 cost two thirds of the server's CPU on a ping
// (docs/decisions/0001-server-read-path.md); the client side keeps jsonrpc2
// for matching responses to its calls. Fast methods answer here; slow ones
// get their own goroutine. When the input ends, the drain lets in-flight
// requests still answer.
func (ss *session) run() error {
	for {
		in, err := ss.conn.read()
		if err != nil {
			ss.drain()
			break
		}
		switch {
		case in.response != nil:
			if ss.answered(in.response) {
				continue
			}
			ss.log.Warn(fmt.Sprintf("mcp: dropped a response with id %s that answers no request of ours", in.response.ID))
		case in.isNotification():
			ss.notification(in)
		default:
			ss.request(in)
		}
	}
	ss.closed.Store(true)
	ss.cancel()
	// The connection is over: the peer reads EOF once it has what we wrote.
	return ss.conn.close()
}

// drain runs when the input ends: listeners get their graceful end, and
// in-flight requests may finish for DrainTimeout; what is still running then
// is cancelled and never answered.
func (ss *session) drain() {
	ss.mu.Lock()
	listeners := make([]*call, 0, len(ss.listeners))
	for _, c := range ss.listeners {
		listeners = append(listeners, c)
	}
	ss.mu.Unlock()
	for _, c := range listeners {
		c.endListen()
	}
	done := make(chan struct{})
	go func() { ss.running.Wait(); close(done) }()
	timer := time.NewTimer(ss.srv.opts.DrainTimeout)
	defer timer.Stop()
	select {
	case <-done:
	case <-timer.C:
		ss.log.Warn("input ended; requests still running after the drain timeout are abandoned", "timeout", ss.srv.opts.DrainTimeout)
	}
	ss.cancel()
}

// call is one request in flight.
type call struct {
	ss     *session
	in     *inbound
	key    string // the wire id, normalised, for notifications/cancelled
	method string
	params json.RawMessage
	// envelope is params decoded once, on arrival.
	envelope requestEnvelope

	modern   bool
	version  string
	feat     features
	progress json.RawMessage // progressToken, or nil
	logLevel int             // modern per-request level; -1: send no log messages

	ctx    context.Context
	cancel context.CancelFunc
	state  atomic.Int32

	progressMu   sync.Mutex
	lastProgress float64
	sentProgress bool

	listen *protocol.SubscriptionFilter // subscriptions/listen: what it honours

	input *roundTrip // 2026-07-28 tools/call, prompts/get, resources/read: answers and questions
}

const (
	stateRunning int32 = iota
	stateAnswered
	stateCancelled
	stateTimedOut
)

// requestMeta is the part of params._meta the runtime reads.
type requestMeta struct {
	ProtocolVersion    json.RawMessage `json:"io.modelcontextprotocol/protocolVersion"`
	ClientCapabilities json.RawMessage `json:"io.modelcontextprotocol/clientCapabilities"`
	LogLevel           json.RawMessage `json:"io.modelcontextprotocol/logLevel"`
	ProgressToken      json.RawMessage `json:"progressToken"`
}

// method describes one MCP method.
type method struct {
	legacy, modern bool
	// async methods run on their own goroutine under the request timeout;
	// the others answer at once on the read loop.
	async bool
	// cacheable results carry ttlMs and cacheScope in the modern era.
	ttl *int64
	// needs names the server capability the method is gated behind.
	needs string
	run   func(c *call) (any, error)
}

var methods map[string]method

func init() {
	ttl := func(ms int64) *int64 { return &ms }
	methods = map[string]method{
		"initialize":               {legacy: true, run: (*call).initialize},
		"ping":                     {legacy: true, run: func(*call) (any, error) { return struct{}{}, nil }},
		"logging/setLevel":         {legacy: true, run: (*call).setLevel},
		"server/discover":          {modern: true, ttl: ttl(3600000), run: (*call).discover},
		"tools/list":               {legacy: true, modern: true, ttl: ttl(0), needs: "tools", run: (*call).listTools},
		"tools/call":               {legacy: true, modern: true, async: true, needs: "tools", run: (*call).callTool},
		"prompts/list":             {legacy: true, modern: true, ttl: ttl(0), needs: "prompts", run: (*call).listPrompts},
		"prompts/get":              {legacy: true, modern: true, async: true, needs: "prompts", run: (*call).getPrompt},
		"resources/list":           {legacy: true, modern: true, async: true, ttl: ttl(0), needs: "resources", run: (*call).listResources},
		"resources/templates/list": {legacy: true, modern: true, ttl: ttl(0), needs: "resources", run: (*call).listTemplates},
		"resources/read":           {legacy: true, modern: true, async: true, ttl: ttl(0), needs: "resources", run: (*call).readResource},
		"resources/subscribe":      {legacy: true, needs: "resources", run: (*call).subscribe},
		"resources/unsubscribe":    {legacy: true, needs: "resources", run: (*call).unsubscribe},
		"subscriptions/listen":     {modern: true, async: true, run: (*call).listenSubscriptions},
		"completion/complete":      {legacy: true, modern: true, async: true, needs: "completions", run: (*call).complete},
	}
}

func wireKey(id json.RawMessage) string {
	if len(id) > 0 && id[0] == '"' {
		var s string
		_ = json.Unmarshal(id, &s)
		return "s:" + s
	}
	return "n:" + string(id)
}

func (ss *session) request(in *inbound) {
	c := &call{ss: ss, in: in, key: wireKey(in.wireID), method: in.method, params: in.params, logLevel: -1}
	if len(c.params) > 0 && c.params[0] != '{' {
		c.fail(InvalidParams(nil, Violation{Path: "", Message: "params must be an object"}))
		return
	}
	if err := c.readMeta(); err != nil {
		c.fail(err)
		return
	}
	m, ok := methods[c.method]
	if !ok || (c.modern && !m.modern) || (!c.modern && !m.legacy) {
		c.fail(NewError(errcodes.MethodNotFound, map[string]any{"method": c.method}))
		return
	}
	if m.needs != "" {
		caps := ss.srv.capabilities()
		if !caps.offers(m.needs) {
			data := map[string]any{"method": c.method, "reason": "the server does not offer " + m.needs}
			if m.needs == "completions" {
				// A server without completers answers as it did before it
				// could complete anything: the method is simply not there.
				delete(data, "reason")
			}
			c.fail(NewError(errcodes.MethodNotFound, data))
			return
		}
	}
	if err := c.readInput(); err != nil {
		c.fail(err)
		return
	}
	if !m.async {
		c.ctx, c.cancel = ss.ctx, func() {}
		result, err := c.runRooted(m, false)
		c.finish(m, result, err)
		return
	}
	listener := c.method == "subscriptions/listen"
	if !listener && !ss.admit() {
		c.fail(NewError(errcodes.InternalError, map[string]any{
			"reason":      fmt.Sprintf("too many requests in flight: at most %d run and %d wait per session; retry once earlier ones are answered", ss.srv.opts.MaxInFlight, ss.srv.opts.MaxQueued),
			"maxInFlight": ss.srv.opts.MaxInFlight,
			"maxQueued":   ss.srv.opts.MaxQueued,
		}))
		return
	}
	c.ctx, c.cancel = context.WithCancel(context.WithValue(ss.ctx, callKey{}, c))
	ss.mu.Lock()
	ss.inflight[c.key] = c
	ss.mu.Unlock()
	ss.running.Add(1)
	timeout := ss.srv.opts.RequestTimeout
	if listener {
		timeout = 0 // a listener lives until it is cancelled
	}
	go func() {
		defer ss.running.Done()
		defer c.forget()
		// The timeout runs from arrival: time spent waiting for a turn
		// counts, and a request that times out or is cancelled while it
		// waits never runs.
		var timer *time.Timer
		if timeout > 0 {
			timer = time.AfterFunc(timeout, func() { c.expire(timeout) })
		}
		if !listener {
			if !ss.takeTurn(c.ctx) {
				ss.admitted.Add(-1)
				if timer != nil {
					timer.Stop()
				}
				return
			}
		}
		result, err := c.runRooted(m, true)
		if timer != nil {
			timer.Stop()
		}
		if !listener {
			// Room is made before the answer is written: a client that
			// sends its next request once it reads this answer must never
			// find the session full.
			ss.endTurn()
			ss.admitted.Add(-1)
		}
		c.finish(m, result, err)
	}()
}

// admit counts one more request running or waiting, unless the session
// already has MaxInFlight + MaxQueued of them.
func (ss *session) admit() bool {
	limit := int64(ss.srv.opts.MaxInFlight + ss.srv.opts.MaxQueued)
	for {
		n := ss.admitted.Load()
		if n >= limit {
			return false
		}
		if ss.admitted.CompareAndSwap(n, n+1) {
			return true
		}
	}
}

// takeTurn waits until fewer than MaxInFlight handlers run, or ctx ends.
func (ss *session) takeTurn(ctx context.Context) bool {
	if ctx.Err() != nil {
		return false
	}
	select {
	case ss.turns <- struct{}{}:
	case <-ctx.Done():
		return false
	}
	if ss.onTurn != nil {
		ss.onTurn(+1)
	}
	return true
}

func (ss *session) endTurn() {
	if ss.onTurn != nil {
		ss.onTurn(-1)
	}
	<-ss.turns
}

// runGuarded runs a method and turns a panic into an internal error: no
// input may crash the server.
func (c *call) runGuarded(m method) (result any, err error) {
	defer func() {
		if r := recover(); r != nil {
			c.ss.log.Error("handler panicked", "method", c.method, "panic", r, "stack", string(debug.Stack()))
			result, err = nil, NewError(errcodes.InternalError, map[string]any{"reason": "the server failed while answering"})
		}
	}()
	return m.run(c)
}

func (c *call) forget() {
	c.ss.mu.Lock()
	if c.ss.inflight[c.key] == c {
		delete(c.ss.inflight, c.key)
	}
	c.ss.mu.Unlock()
	c.cancel()
}

// readMeta decides the request's era from params._meta and checks what the
// modern era requires.
func (c *call) readMeta() *Error {
	if len(c.params) > 0 {
		if err := json.Unmarshal(c.params, &c.envelope); err != nil {
			return InvalidParams(nil, Violation{Path: "", Message: err.Error()})
		}
	}
	envelope := &c.envelope
	c.ss.mu.Lock()
	c.version = c.ss.version
	initialized := c.ss.initialized
	c.ss.mu.Unlock()
	var meta requestMeta
	if len(envelope.Meta) > 0 {
		if envelope.Meta[0] != '{' || json.Unmarshal(envelope.Meta, &meta) != nil {
			return InvalidParams(nil, Violation{Path: "/_meta", Message: "_meta must be an object"})
		}
	}
	c.progress = meta.ProgressToken
	if len(meta.ProgressToken) > 0 {
		if _, ok := requestID(meta.ProgressToken); !ok {
			return InvalidParams(nil, Violation{Path: "/_meta/progressToken", Message: "must be a string or an integer"})
		}
	}
	if len(meta.ProtocolVersion) == 0 {
		c.feat = featuresOf(c.version)
		return nil
	}
	var version string
	if json.Unmarshal(meta.ProtocolVersion, &version) != nil {
		return InvalidParams(nil, Violation{Path: "/_meta/io.modelcontextprotocol~1protocolVersion", Message: "must be a string"})
	}
	// A legacy session that repeats its negotiated revision in _meta stays
	// legacy; any other version in _meta asks for the modern, stateless era.
	if initialized && version == c.version && !slices.Contains(ModernVersions, version) {
		c.feat = featuresOf(c.version)
		return nil
	}
	if !slices.Contains(ModernVersions, version) {
		return NewError(errcodes.UnsupportedProtocolVersion, protocol.UnsupportedVersionData{Supported: SupportedVersions(), Requested: version})
	}
	c.modern, c.version, c.feat = true, version, featuresOf(version)
	if len(meta.ClientCapabilities) == 0 || meta.ClientCapabilities[0] != '{' {
		return InvalidParams(nil, Violation{Path: "/_meta", Message: "io.modelcontextprotocol/clientCapabilities is required (an object) on every modern request"})
	}
	if len(meta.LogLevel) > 0 {
		var level string
		_ = json.Unmarshal(meta.LogLevel, &level)
		if levelIndex(level) < 0 {
			return InvalidParams(nil, Violation{Path: "/_meta/io.modelcontextprotocol~1logLevel", Message: "not a logging level: " + string(meta.LogLevel)})
		}
		c.logLevel = levelIndex(level)
	}
	return nil
}

// finish answers a request unless it was cancelled or already timed out.
func (c *call) finish(m method, result any, err error) {
	if !c.state.CompareAndSwap(stateRunning, stateAnswered) {
		return // cancelled or timed out: a late result is discarded
	}
	if body, asked := c.inputRequiredBody(); asked {
		c.ss.conn.respond(c.in.token, "result", body)
		return
	}
	if err != nil {
		e, ok := asProtocolError(err)
		if !ok {
			c.ss.log.Error("method failed", "method", c.method, "error", err)
			e = NewError(errcodes.InternalError, map[string]any{"reason": err.Error()})
		}
		c.ss.conn.respond(c.in.token, "error", marshal(e))
		return
	}
	var body []byte
	switch r := result.(type) {
	case preparedResult:
		c.ss.conn.respond(c.in.token, "result", r)
		return
	case struct{}:
		body = []byte("{}")
	default:
		body = marshal(result)
	}
	if c.modern {
		body = c.modernEnvelope(m, body)
	}
	c.ss.conn.respond(c.in.token, "result", body)
}

// fail answers with a protocol error before the method ran.
func (c *call) fail(err *Error) {
	c.state.Store(stateAnswered)
	c.ss.conn.respond(c.in.token, "error", marshal(err))
}

// modernEnvelope adds what every 2026-07-28 result carries.
func (c *call) modernEnvelope(m method, body []byte) []byte {
	var extra bytes.Buffer
	extra.WriteString(`"resultType":"complete"`)
	if c.method != "subscriptions/listen" {
		extra.WriteString(`,"_meta":{"io.modelcontextprotocol/serverInfo":`)
		extra.Write(marshal(c.ss.srv.implementation(c.feat)))
		if c.method == "server/discover" {
			// What the server says of itself beyond its name (an
			// application's instance) rides where the handshake's would.
			for _, k := range sortedKeys(c.ss.srv.opts.ResultMeta) {
				extra.WriteString(`,`)
				extra.Write(marshal(k))
				extra.WriteString(`:`)
				extra.Write(marshal(c.ss.srv.opts.ResultMeta[k]))
			}
		}
		extra.WriteString(`}`)
	}
	if m.ttl != nil {
		fmt.Fprintf(&extra, `,"ttlMs":%d,"cacheScope":"private"`, *m.ttl)
	}
	return spliceMembers(body, extra.Bytes())
}

// spliceMembers adds members to a JSON object.
func spliceMembers(obj, members []byte) []byte {
	obj = bytes.TrimSpace(obj)
	out := make([]byte, 0, len(obj)+len(members)+2)
	out = append(out, '{')
	out = append(out, members...)
	if len(obj) > 2 {
		out = append(out, ',')
		out = append(out, obj[1:]...)
	} else {
		out = append(out, '}')
	}
	return out
}

// expire answers a request that ran out of time and stops its handler.
func (c *call) expire(timeout time.Duration) {
	if !c.state.CompareAndSwap(stateRunning, stateTimedOut) {
		return
	}
	c.ss.conn.respond(c.in.token, "error", marshal(NewError(errcodes.InternalError, map[string]any{
		"reason":    "the request timed out",
		"timeoutMs": timeout.Milliseconds(),
	})))
	c.cancel()
}

// cancelByClient stops a request the client gave up on. It is never answered.
func (c *call) cancelByClient() {
	if !c.state.CompareAndSwap(stateRunning, stateCancelled) {
		return
	}
	c.cancel()
	c.ss.conn.discard(c.in.token)
}

func (ss *session) notification(in *inbound) {
	switch in.method {
	case "notifications/cancelled":
		var p protocol.CancelledParams
		if len(in.params) == 0 || json.Unmarshal(in.params, &p) != nil || len(p.RequestID) == 0 {
			return // invalid cancellations are ignored
		}
		ss.mu.Lock()
		c := ss.inflight[wireKey(p.RequestID)]
		ss.mu.Unlock()
		if c != nil {
			c.cancelByClient()
		}
	case "notifications/initialized", "notifications/roots/list_changed":
		ss.discoverRoots()
	case "notifications/progress":
		// Nothing to do: the server does not depend on them.
	default:
		ss.log.Debug("ignored notification", "method", in.method)
	}
}

// notify sends a notification to the client that belongs to no request.
func (ss *session) notify(method string, params any) { ss.notifyFor(0, method, params) }

// notifyFor sends a notification that belongs to the request behind
// related (0: none), so a transport with a stream per request can write it
// where the client reads that request's answer.
func (ss *session) notifyFor(related uint64, method string, params any) {
	if ss.closed.Load() {
		return
	}
	var b bytes.Buffer
	b.WriteString(`{"jsonrpc":"2.0","method":`)
	b.Write(marshal(method))
	b.WriteString(`,"params":`)
	b.Write(marshal(params))
	b.WriteByte('}')
	if err := ss.conn.send(related, b.Bytes()); err != nil {
		ss.log.Debug("notification not delivered", "method", method, "error", err)
	}
}

// marshal encodes without HTML escaping, so advertised schemas and texts
// travel exactly as written.
func marshal(v any) []byte {
	if raw, ok := v.(json.RawMessage); ok {
		if !bytes.ContainsAny(raw, "\r\n") {
			return raw
		}
		var b bytes.Buffer
		if json.Compact(&b, raw) == nil {
			return b.Bytes()
		}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		b.Reset()
		enc.Encode(map[string]string{"error": err.Error()})
	}
	return bytes.TrimRight(b.Bytes(), "\n")
}

type callKey struct{}

func callFrom(ctx context.Context) *call {
	c, _ := ctx.Value(callKey{}).(*call)
	return c
}
