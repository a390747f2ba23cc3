package mcp

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kontext-dev/kontext/gen/errcodes"
)

// StreamableOptions configure a StreamableHandler.
type StreamableOptions struct {
	// IdleTimeout ends a legacy session that has had no request and no open
	// stream for this long (DefaultHTTPIdleTimeout when 0). Its id then
	// gets 404 and the client initializes anew.
	IdleTimeout time.Duration
	// MaxSessions bounds the legacy sessions alive at once (1024 when 0);
	// one more initialize is refused with 503.
	MaxSessions int
	// MaxStatelessInFlight bounds the modern (sessionless) requests being
	// answered at once (MaxInFlight + MaxQueued of the server when 0): they
	// have no session whose bound would hold them.
	MaxStatelessInFlight int
	// RetryAfter is the reconnection delay an SSE stream announces (its
	// retry field) for when the server closes it before its answer (500 ms
	// when 0).
	RetryAfter time.Duration
}

// DefaultHTTPIdleTimeout is how long an idle legacy HTTP session lives.
const DefaultHTTPIdleTimeout = 30 * time.Minute

// StreamableHandler serves one Server over streamable HTTP, both eras, at
// whatever path it is mounted on (kontext mounts it at /mcp, behind an
// HTTPGuard). Every legacy session and every modern request is a session of
// the same Server: toolsets, and the engines behind them, are shared; era,
// log level and subscriptions are each session's own.
type StreamableHandler struct {
	srv  *Server
	opts StreamableOptions

	ctx    context.Context
	cancel context.CancelFunc

	mu       sync.Mutex
	sessions map[string]*httpSession
	// modern are the conns of the 2026-07-28 requests being answered, so
	// that Close drains them as it drains sessions.
	modern  map[*httpConn]struct{}
	closing bool
	// serving counts the sessions (legacy and per-request modern) whose
	// read loop runs, for Close.
	serving   sync.WaitGroup
	stateless chan struct{}
	stopReap  chan struct{}
}

// NewStreamableHandler returns the streamable HTTP endpoint of srv. Close
// ends it.
func (s *Server) NewStreamableHandler(opts StreamableOptions) *StreamableHandler {
	if opts.IdleTimeout <= 0 {
		opts.IdleTimeout = DefaultHTTPIdleTimeout
	}
	if opts.MaxSessions <= 0 {
		opts.MaxSessions = 1024
	}
	if opts.MaxStatelessInFlight <= 0 {
		opts.MaxStatelessInFlight = s.opts.MaxInFlight + s.opts.MaxQueued
	}
	if opts.RetryAfter <= 0 {
		opts.RetryAfter = 500 * time.Millisecond
	}
	ctx, cancel := context.WithCancel(context.Background())
	h := &StreamableHandler{
		srv:       s,
		opts:      opts,
		ctx:       ctx,
		cancel:    cancel,
		sessions:  map[string]*httpSession{},
		modern:    map[*httpConn]struct{}{},
		stateless: make(chan struct{}, opts.MaxStatelessInFlight),
		stopReap:  make(chan struct{}),
	}
	go h.reapIdle()
	return h
}

// Close stops taking requests (503), ends every session's input so that
// in-flight requests finish (each within the server's DrainTimeout), and
// waits for them until ctx ends; then what still runs is cancelled.
func (h *StreamableHandler) Close(ctx context.Context) error {
	h.mu.Lock()
	if h.closing {
		h.mu.Unlock()
		return nil
	}
	h.closing = true
	conns := make([]*httpConn, 0, len(h.sessions)+len(h.modern))
	for id, hs := range h.sessions {
		conns = append(conns, hs.conn)
		delete(h.sessions, id)
	}
	for c := range h.modern {
		conns = append(conns, c)
	}
	h.mu.Unlock()
	close(h.stopReap)
	for _, c := range conns {
		c.endInput()
	}
	done := make(chan struct{})
	go func() { h.serving.Wait(); close(done) }()
	defer h.cancel()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// SessionCount reports how many legacy sessions are alive.
func (h *StreamableHandler) SessionCount() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.sessions)
}

func (h *StreamableHandler) reapIdle() {
	every := min(h.opts.IdleTimeout/4, time.Minute)
	ticker := time.NewTicker(max(every, 10*time.Millisecond))
	defer ticker.Stop()
	for {
		select {
		case <-h.stopReap:
			return
		case now := <-ticker.C:
			h.mu.Lock()
			var idle []*httpSession
			for id, hs := range h.sessions {
				if hs.conn.idleSince(now) >= h.opts.IdleTimeout {
					idle = append(idle, hs)
					delete(h.sessions, id)
				}
			}
			h.mu.Unlock()
			for _, hs := range idle {
				h.srv.log.Info("mcp: HTTP session expired", "session", hs.id, "idleTimeout", h.opts.IdleTimeout)
				hs.conn.endInput()
			}
		}
	}
}

// httpSession is one legacy session: an Mcp-Session-Id and the conn its
// session reads.
type httpSession struct {
	id   string
	conn *httpConn
}

// ServeHTTP implements http.Handler.
func (h *StreamableHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	closing := h.closing
	h.mu.Unlock()
	if closing {
		w.Header().Set("Connection", "close")
		refuseHTTP(w, http.StatusServiceUnavailable, "the server is shutting down")
		return
	}
	switch r.Method {
	case http.MethodPost:
		h.post(w, r)
	case http.MethodGet:
		h.get(w, r)
	case http.MethodDelete:
		h.delete(w, r)
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		refuseHTTP(w, http.StatusMethodNotAllowed, r.Method+" is not a method of this endpoint")
	}
}

// session returns the legacy session a request names, answering 400 or 404
// itself when there is none.
func (h *StreamableHandler) session(w http.ResponseWriter, r *http.Request) *httpSession {
	id := r.Header.Get("Mcp-Session-Id")
	h.mu.Lock()
	hs := h.sessions[id]
	h.mu.Unlock()
	if hs == nil {
		refuseHTTP(w, http.StatusNotFound, "no session "+quoteHeader(id)+": it ended or expired; initialize a new one")
		return nil
	}
	if v := r.Header.Get("MCP-Protocol-Version"); v != "" && !slices.Contains(LegacyVersions, v) {
		refuseHTTP(w, http.StatusBadRequest, "unsupported MCP-Protocol-Version "+quoteHeader(v)+" (supported: "+strings.Join(LegacyVersions, ", ")+")")
		return nil
	}
	return hs
}

func (h *StreamableHandler) get(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Mcp-Session-Id") == "" || slices.Contains(ModernVersions, r.Header.Get("MCP-Protocol-Version")) {
		w.Header().Set("Allow", "POST")
		refuseHTTP(w, http.StatusMethodNotAllowed, "GET opens the stream of a legacy session (Mcp-Session-Id); the 2026-07-28 transport is POST only")
		return
	}
	if !accepts(r, "text/event-stream") {
		w.Header().Set("Allow", "POST, DELETE")
		refuseHTTP(w, http.StatusMethodNotAllowed, "GET opens an SSE stream: it needs Accept: text/event-stream")
		return
	}
	hs := h.session(w, r)
	if hs == nil {
		return
	}
	var st *stream
	after := int64(-1)
	if last := r.Header.Get("Last-Event-ID"); last != "" {
		st, after = hs.conn.resume(last)
		if st == nil {
			refuseHTTP(w, http.StatusNotFound, "no stream to resume at event "+quoteHeader(last))
			return
		}
	} else {
		st = hs.conn.openStandalone()
	}
	hs.conn.touch()
	defer hs.conn.touch()
	st.serve(w, r, after, false)
}

func (h *StreamableHandler) delete(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Mcp-Session-Id") == "" || slices.Contains(ModernVersions, r.Header.Get("MCP-Protocol-Version")) {
		w.Header().Set("Allow", "POST")
		refuseHTTP(w, http.StatusMethodNotAllowed, "DELETE ends a legacy session (Mcp-Session-Id); the 2026-07-28 transport has none")
		return
	}
	hs := h.session(w, r)
	if hs == nil {
		return
	}
	h.mu.Lock()
	delete(h.sessions, hs.id)
	h.mu.Unlock()
	hs.conn.endInput()
	w.WriteHeader(http.StatusNoContent)
}

// accepts reports whether the request's Accept header admits mediaType
// (an absent header admits everything).
func accepts(r *http.Request, mediaType string) bool {
	values := r.Header.Values("Accept")
	if len(values) == 0 {
		return true
	}
	major, _, _ := strings.Cut(mediaType, "/")
	for _, v := range values {
		for _, part := range strings.Split(v, ",") {
			t, _, err := mime.ParseMediaType(strings.TrimSpace(part))
			if err != nil {
				continue
			}
			if t == mediaType || t == "*/*" || t == major+"/*" {
				return true
			}
		}
	}
	return false
}

func (h *StreamableHandler) post(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		if IsBodyTooLarge(err) {
			refuseHTTP(w, http.StatusRequestEntityTooLarge, "the request body is larger than this server accepts")
			return
		}
		refuseHTTP(w, http.StatusBadRequest, "the request body could not be read")
		return
	}
	body = bytes.TrimSpace(body)
	h.trace(false, body)
	if !json.Valid(body) {
		writeJSON(w, http.StatusBadRequest, errorLine(nil, errcodes.ParseError, map[string]any{"reason": jsonReason(json.Unmarshal(body, new(any)))}))
		return
	}
	if r.Header.Get("Mcp-Session-Id") != "" {
		hs := h.session(w, r)
		if hs == nil {
			return
		}
		h.postLegacy(w, r, hs, body)
		return
	}
	if isInitialize(body) && !slices.Contains(ModernVersions, r.Header.Get("MCP-Protocol-Version")) {
		h.initialize(w, r, body)
		return
	}
	h.postModern(w, r, body)
}

// trace shows Options.Trace a body read or a message written, one JSON-RPC
// message at a time as over stdio: a batch is shown member by member.
func (h *StreamableHandler) trace(out bool, message []byte) {
	trace := h.srv.opts.Trace
	if trace == nil || len(message) == 0 {
		return
	}
	var members []json.RawMessage
	if message[0] == '[' && json.Unmarshal(message, &members) == nil {
		for _, m := range members {
			trace(out, m)
		}
		return
	}
	trace(out, message)
}

// isInitialize reports whether body is an initialize request of the legacy
// era: one carrying a modern _meta version is a modern request for a
// method that era removed.
func isInitialize(body []byte) bool {
	var m struct {
		Method string `json:"method"`
		Params struct {
			Meta struct {
				ProtocolVersion *string `json:"io.modelcontextprotocol/protocolVersion"`
			} `json:"_meta"`
		} `json:"params"`
	}
	return len(body) > 0 && body[0] == '{' && json.Unmarshal(body, &m) == nil && m.Method == "initialize" && m.Params.Meta.ProtocolVersion == nil
}

// newSessionID returns 128 random bits in hex: visible ASCII, as the
// transport requires, and unguessable.
func newSessionID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// initialize starts a legacy session with its first request. A refused
// initialize leaves no session behind.
func (h *StreamableHandler) initialize(w http.ResponseWriter, r *http.Request, body []byte) {
	h.mu.Lock()
	if len(h.sessions) >= h.opts.MaxSessions {
		h.mu.Unlock()
		refuseHTTP(w, http.StatusServiceUnavailable, fmt.Sprintf("this server already has %d sessions; end one (DELETE) or retry later", h.opts.MaxSessions))
		return
	}
	hs := &httpSession{id: newSessionID(), conn: newHTTPConn(h, false)}
	h.sessions[hs.id] = hs
	h.mu.Unlock()
	h.start(hs.conn)

	began := false
	h.exchange(w, r, hs.conn, body, false, func(failed bool) {
		if began = !failed; began {
			w.Header().Set("Mcp-Session-Id", hs.id)
		}
	})
	if !began {
		h.mu.Lock()
		delete(h.sessions, hs.id)
		h.mu.Unlock()
		hs.conn.endInput()
	}
}

// start runs a session of the server over c until c's input ends.
func (h *StreamableHandler) start(c *httpConn) {
	h.serving.Add(1)
	go func() {
		defer h.serving.Done()
		_ = h.srv.serve(h.ctx, c)
	}()
}

func (h *StreamableHandler) postLegacy(w http.ResponseWriter, r *http.Request, hs *httpSession, body []byte) {
	hs.conn.touch()
	defer hs.conn.touch()
	if body[0] == '[' && !hs.conn.batchesAllowed() {
		writeJSON(w, http.StatusBadRequest, errorLine(nil, errcodes.InvalidRequest, map[string]any{"reason": "JSON-RPC batches are not part of this protocol revision (only 2025-03-26 has them)"}))
		return
	}
	h.exchange(w, r, hs.conn, body, false, nil)
}

// exchange delivers the messages of one POST to c and writes what answers
// them. onHeader, when set, runs just before the answer's headers are
// written, knowing whether any answer is an error.
func (h *StreamableHandler) exchange(w http.ResponseWriter, r *http.Request, c *httpConn, body []byte, modern bool, onHeader func(failed bool)) {
	messages, refused := decodeBody(body)
	st := c.newStream(accepts(r, "text/event-stream"))
	st.onHeader = onHeader
	for _, in := range messages {
		if in.response == nil && in.wireID != nil {
			c.register(in, st)
		}
	}
	for _, res := range refused {
		st.refuse(res)
	}
	if st.waiting() == 0 && len(refused) == 0 {
		for _, in := range messages {
			c.deliver(in)
		}
		c.dropStream(st)
		if onHeader != nil {
			onHeader(false)
		}
		w.WriteHeader(http.StatusAccepted)
		return
	}
	for _, in := range messages {
		c.deliver(in)
	}
	st.serve(w, r, -1, modern)
}

// decodeBody splits a POST body into the messages to deliver and the error
// responses for members that are not valid JSON-RPC, each with its place.
func decodeBody(body []byte) ([]*inbound, []batchResponse) {
	if body[0] != '[' {
		in, refused := decodeHTTPMessage(body)
		if refused != nil {
			return nil, []batchResponse{{0, refused}}
		}
		return []*inbound{in}, nil
	}
	var elems []json.RawMessage
	_ = json.Unmarshal(body, &elems)
	if len(elems) == 0 {
		return nil, []batchResponse{{0, errorLine(nil, errcodes.InvalidRequest, map[string]any{"reason": "empty batch"})}}
	}
	var messages []*inbound
	var refusedAll []batchResponse
	for i, elem := range elems {
		in, refused := decodeHTTPMessage(elem)
		if refused != nil {
			refusedAll = append(refusedAll, batchResponse{i, refused})
			continue
		}
		in.pos = i
		messages = append(messages, in)
	}
	return messages, refusedAll
}

// decodeHTTPMessage validates one JSON-RPC message as lineConn.decode does
// and returns it, or the error response that refuses it.
func decodeHTTPMessage(raw []byte) (*inbound, []byte) {
	var m wireMessage
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &m) != nil {
		return nil, errorLine(nil, errcodes.InvalidRequest, map[string]any{"reason": "a JSON-RPC message must be a JSON object"})
	}
	id, idOK := requestID(m.ID)
	reject := func(id json.RawMessage, reason string) (*inbound, []byte) {
		return nil, errorLine(id, errcodes.InvalidRequest, map[string]any{"reason": reason})
	}
	if string(m.JSONRPC) != `"2.0"` {
		return reject(id, `"jsonrpc" must be "2.0"`)
	}
	if len(m.Method) > 0 {
		var method string
		if json.Unmarshal(m.Method, &method) != nil {
			return reject(id, `"method" must be a string`)
		}
		if len(m.ID) > 0 && !idOK {
			return reject(nil, `"id" must be a string or an integer`)
		}
		if len(m.Params) > 0 && m.Params[0] != '{' && m.Params[0] != '[' {
			return reject(id, `"params" must be an object or an array`)
		}
		return &inbound{wireID: id, method: method, params: m.Params}, nil
	}
	if len(m.Result) > 0 || len(m.Error) > 0 {
		return &inbound{response: &m}, nil
	}
	return reject(id, `a message needs "method" (a request or notification) or "result"/"error" (a response)`)
}

// postModern serves one 2026-07-28 request: no session, its headers checked
// against its body, its own session of the server for as long as it runs.
func (h *StreamableHandler) postModern(w http.ResponseWriter, r *http.Request, body []byte) {
	if body[0] == '[' {
		writeJSON(w, http.StatusBadRequest, errorLine(nil, errcodes.InvalidRequest, map[string]any{"reason": "JSON-RPC batches are not part of this protocol revision"}))
		return
	}
	in, refused := decodeHTTPMessage(body)
	if refused != nil {
		writeJSON(w, http.StatusBadRequest, refused)
		return
	}
	header := strings.TrimSpace(r.Header.Get("MCP-Protocol-Version"))
	var envelope struct {
		Meta struct {
			ProtocolVersion *string `json:"io.modelcontextprotocol/protocolVersion"`
		} `json:"_meta"`
		Name *string `json:"name"`
		URI  *string `json:"uri"`
	}
	if len(in.params) > 0 && in.params[0] == '{' {
		_ = json.Unmarshal(in.params, &envelope)
	}
	metaVersion := envelope.Meta.ProtocolVersion
	if header == "" && metaVersion == nil {
		writeJSON(w, http.StatusBadRequest, errorLine(in.wireID, errcodes.InvalidRequest, map[string]any{
			"reason": "no Mcp-Session-Id: a legacy client starts with initialize; a 2026-07-28 request carries io.modelcontextprotocol/protocolVersion in _meta and the MCP-Protocol-Version header",
		}))
		return
	}
	if in.response != nil || in.wireID == nil {
		// A modern client sends no notifications and answers no requests
		// over HTTP (cancellation is closing the stream).
		w.WriteHeader(http.StatusAccepted)
		return
	}
	mismatch := func(reason string) {
		e := NewError(errcodes.HeaderMismatch, map[string]any{"reason": reason})
		writeJSON(w, http.StatusBadRequest, joinResponse(in.wireID, "error", marshal(e)))
	}
	switch {
	case metaVersion == nil:
		writeJSON(w, http.StatusBadRequest, joinResponse(in.wireID, "error", marshal(InvalidParams(nil, Violation{
			Path: "/_meta/io.modelcontextprotocol~1protocolVersion", Message: "required on every 2026-07-28 request",
		}))))
		return
	case header != *metaVersion:
		mismatch("the MCP-Protocol-Version header must equal _meta io.modelcontextprotocol/protocolVersion")
		return
	case strings.TrimSpace(r.Header.Get("Mcp-Method")) != in.method:
		mismatch("the Mcp-Method header must equal the request's method")
		return
	}
	var named *string
	switch in.method {
	case "tools/call", "prompts/get":
		named = envelope.Name
	case "resources/read":
		named = envelope.URI
	}
	if named != nil {
		value, present := r.Header["Mcp-Name"]
		if !present || len(value) != 1 {
			mismatch("the Mcp-Name header must name what the request names (params.name or params.uri)")
			return
		}
		decoded, ok := decodeHeaderValue(strings.TrimSpace(value[0]))
		if !ok || decoded != *named {
			mismatch("the Mcp-Name header must equal " + quoteHeader(*named))
			return
		}
	}
	select {
	case h.stateless <- struct{}{}:
		defer func() { <-h.stateless }()
	default:
		w.Header().Set("Retry-After", "1")
		refuseHTTP(w, http.StatusServiceUnavailable, fmt.Sprintf("this server already answers %d requests; retry", h.opts.MaxStatelessInFlight))
		return
	}
	c := newHTTPConn(h, true)
	h.start(c)
	st := c.newStream(accepts(r, "text/event-stream"))
	c.register(in, st)
	c.deliver(in)
	h.trackModern(c)
	defer h.untrackModern(c)
	st.serve(w, r, -1, true)
}

// trackModern lists a modern request's conn for Close; one that arrives
// while Close runs has its input ended at once, so it is drained the same.
func (h *StreamableHandler) trackModern(c *httpConn) {
	h.mu.Lock()
	closing := h.closing
	if !closing {
		h.modern[c] = struct{}{}
	}
	h.mu.Unlock()
	if closing {
		c.endInput()
	}
}

func (h *StreamableHandler) untrackModern(c *httpConn) {
	h.mu.Lock()
	delete(h.modern, c)
	h.mu.Unlock()
}

// decodeHeaderValue undoes the transport's base64 sentinel (=?base64?…?=)
// for values a header cannot carry as they are.
func decodeHeaderValue(v string) (string, bool) {
	if !strings.HasPrefix(v, "=?base64?") || !strings.HasSuffix(v, "?=") {
		return v, true
	}
	b, err := base64.StdEncoding.DecodeString(v[len("=?base64?") : len(v)-2])
	return string(b), err == nil
}

// writeJSON writes one JSON body.
func writeJSON(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// modernStatus is the HTTP status 2026-07-28 prescribes for a JSON-RPC
// error answered as JSON.
func modernStatus(code int64) int {
	switch code {
	case errcodes.InvalidParams, errcodes.UnsupportedProtocolVersion, errcodes.InvalidRequest, errcodes.ParseError, errcodes.HeaderMismatch, errcodes.MissingRequiredClientCapability:
		return http.StatusBadRequest
	case errcodes.MethodNotFound:
		return http.StatusNotFound
	}
	return http.StatusOK
}

// httpConn is the conn of a session served over streamable HTTP: a legacy
// session's (for its whole life) or a modern request's (until it is
// answered, oneShot). Requests arrive by POST; each one's answer and the
// messages related to it go to the stream of its POST, the rest to the
// session's standalone (GET) streams.
type httpConn struct {
	h       *StreamableHandler
	oneShot bool

	inbox     chan *inbound
	ended     chan struct{}
	endOnce   sync.Once
	closeOnce sync.Once

	mu         sync.Mutex
	next       uint64
	pending    map[uint64]*pendingRequest
	streams    map[int64]*stream // by id: those that may still be read or resumed
	nextStream int64
	standalone []*stream // GET streams, oldest first
	lastSeen   time.Time
	version    string // negotiated at initialize
}

type pendingRequest struct {
	in *inbound
	st *stream
}

func newHTTPConn(h *StreamableHandler, oneShot bool) *httpConn {
	return &httpConn{
		h:        h,
		oneShot:  oneShot,
		inbox:    make(chan *inbound),
		ended:    make(chan struct{}),
		pending:  map[uint64]*pendingRequest{},
		streams:  map[int64]*stream{},
		lastSeen: time.Now(),
	}
}

// touch marks the session active now (a request begins or ends).
func (c *httpConn) touch() {
	c.mu.Lock()
	c.lastSeen = time.Now()
	c.mu.Unlock()
}

// idleSince reports how long the session has had no request and no reader
// on any stream.
func (c *httpConn) idleSince(now time.Time) time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, st := range c.streams {
		if st.attached {
			return 0
		}
	}
	return now.Sub(c.lastSeen)
}

// batchesAllowed reports whether the negotiated revision has JSON-RPC
// batches.
func (c *httpConn) batchesAllowed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.version == "" || c.version <= "2025-03-26"
}

// endInput ends what the session reads: it drains and closes.
func (c *httpConn) endInput() {
	c.endOnce.Do(func() { close(c.ended) })
}

// deliver hands one message to the session's read loop, unless the session
// has ended.
func (c *httpConn) deliver(in *inbound) {
	if in.token == 0 && in.response == nil {
		c.mu.Lock()
		c.next++
		in.token = c.next
		c.mu.Unlock()
	}
	select {
	case c.inbox <- in:
	case <-c.ended:
		if in.wireID != nil && in.response == nil {
			c.respond(in.token, "error", marshal(NewError(errcodes.InternalError, map[string]any{"reason": "the session ended"})))
		}
	}
}

// register makes in a request the stream st waits for.
func (c *httpConn) register(in *inbound, st *stream) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.next++
	in.token = c.next
	c.pending[in.token] = &pendingRequest{in: in, st: st}
	st.expected++
}

// read implements conn.
func (c *httpConn) read() (*inbound, error) {
	select {
	case in := <-c.inbox:
		return in, nil
	case <-c.ended:
		return nil, io.EOF
	}
}

// respond implements conn.
func (c *httpConn) respond(token uint64, member string, body []byte) error {
	c.mu.Lock()
	p := c.pending[token]
	delete(c.pending, token)
	if p != nil && p.in.method == "initialize" && member == "result" {
		var r struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = json.Unmarshal(body, &r)
		c.version = r.ProtocolVersion
	}
	done := c.oneShot && len(c.pending) == 0
	c.mu.Unlock()
	if p == nil {
		return nil
	}
	p.st.answer(p.in.pos, joinResponse(p.in.wireID, member, body), member == "error")
	if done {
		c.endInput()
	}
	return nil
}

// discard implements conn.
func (c *httpConn) discard(token uint64) {
	c.mu.Lock()
	p := c.pending[token]
	delete(c.pending, token)
	done := c.oneShot && len(c.pending) == 0
	c.mu.Unlock()
	if p != nil {
		p.st.answer(p.in.pos, nil, false)
	}
	if done {
		c.endInput()
	}
}

// send implements conn: a message related to a request goes where that
// request's answer goes; the others to the newest standalone stream.
func (c *httpConn) send(related uint64, message []byte) error {
	c.mu.Lock()
	var st *stream
	if p := c.pending[related]; related != 0 && p != nil && p.st.allowSSE {
		st = p.st
	} else if n := len(c.standalone); n > 0 {
		st = c.standalone[n-1]
		for i := n - 1; i >= 0; i-- {
			if c.standalone[i].attached {
				st = c.standalone[i]
				break
			}
		}
	}
	c.mu.Unlock()
	if st == nil {
		return errors.New("no stream open to the client")
	}
	st.event(message)
	return nil
}

// close implements conn: a request the session never answered (the drain
// gave up on it) gets an error, so that its POST is not left without an
// answer, and every stream ends once written.
func (c *httpConn) close() error {
	c.closeOnce.Do(func() {
		c.endInput()
		c.mu.Lock()
		tokens := make([]uint64, 0, len(c.pending))
		for token := range c.pending {
			tokens = append(tokens, token)
		}
		c.mu.Unlock()
		for _, token := range tokens {
			c.respond(token, "error", marshal(NewError(errcodes.InternalError, map[string]any{"reason": "the session ended before the request was answered"})))
		}
		c.mu.Lock()
		streams := make([]*stream, 0, len(c.streams))
		for _, st := range c.streams {
			streams = append(streams, st)
		}
		c.mu.Unlock()
		for _, st := range streams {
			st.finish()
		}
	})
	return nil
}

// priming reports whether streams send a first event with an id and no
// data, so that a client can resume them from the start (2025-11-25).
func (c *httpConn) priming() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return !c.oneShot && c.version >= "2025-11-25"
}

// maxKeptStreams bounds the finished streams a session keeps for clients
// that lost them before reading everything.
const maxKeptStreams = 64

func (c *httpConn) newStream(allowSSE bool) *stream {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.streams) >= maxKeptStreams {
		for _, id := range slices.Sorted(maps.Keys(c.streams)) {
			if st := c.streams[id]; !st.attached && (st.done || st.standalone) && len(c.streams) >= maxKeptStreams {
				delete(c.streams, id)
				c.standalone = slices.DeleteFunc(c.standalone, func(s *stream) bool { return s == st })
			}
		}
	}
	c.nextStream++
	st := &stream{conn: c, id: c.nextStream, allowSSE: allowSSE, wake: make(chan struct{}, 1), resumable: !c.oneShot}
	c.streams[st.id] = st
	return st
}

func (c *httpConn) dropStream(st *stream) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.streams, st.id)
	c.standalone = slices.DeleteFunc(c.standalone, func(s *stream) bool { return s == st })
}

func (c *httpConn) openStandalone() *stream {
	st := c.newStream(true)
	st.standalone = true
	c.mu.Lock()
	c.standalone = append(c.standalone, st)
	c.mu.Unlock()
	return st
}

// resume finds the stream an event id belongs to and the sequence number
// of that event.
func (c *httpConn) resume(lastEventID string) (*stream, int64) {
	sid, seq, ok := strings.Cut(lastEventID, "-")
	if !ok {
		return nil, 0
	}
	id, err1 := strconv.ParseInt(sid, 10, 64)
	n, err2 := strconv.ParseInt(seq, 10, 64)
	if err1 != nil || err2 != nil {
		return nil, 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	st := c.streams[id]
	if st == nil {
		return nil, 0
	}
	return st, n
}

// maxBufferedEvents bounds what a stream keeps for a client to resume.
const maxBufferedEvents = 1024

// stream is where the answers to one POST, or a GET's messages, go: as one
// JSON body when the answers come before anything else, as SSE otherwise.
// Its events are kept (bounded) with ids so that a client that lost the
// connection resumes with Last-Event-ID.
type stream struct {
	conn       *httpConn
	id         int64
	allowSSE   bool // the client accepts text/event-stream
	standalone bool // a GET stream: it ends with the session
	resumable  bool // a legacy stream: events have ids
	onHeader   func(failed bool)

	wake chan struct{}

	// The fields below are guarded by conn.mu.
	expected  int             // requests it answers
	answered  int             // of them, answered or discarded
	responses []batchResponse // the answers, while it may still be JSON
	failed    bool            // an answer is an error
	sse       bool            // committed to SSE
	events    []sseEvent
	nextSeq   int64
	attached  bool
	done      bool // every answer is in, or the session ended
	cut       bool // the server closes the current response (CloseStream)
}

type sseEvent struct {
	seq  int64
	data []byte
}

func (st *stream) signal() {
	select {
	case st.wake <- struct{}{}:
	default:
	}
}

func (st *stream) waiting() int {
	st.conn.mu.Lock()
	defer st.conn.mu.Unlock()
	return st.expected - st.answered
}

// answer records the answer of a registered request at its place in the
// POST (nil: the request was discarded).
func (st *stream) answer(pos int, line []byte, isError bool) {
	st.conn.h.trace(true, line)
	st.conn.mu.Lock()
	st.answered++
	st.recordLocked(batchResponse{pos, line}, isError)
	st.conn.mu.Unlock()
	st.signal()
}

// refuse records the transport's own answer to a member that is not
// JSON-RPC.
func (st *stream) refuse(res batchResponse) {
	st.conn.h.trace(true, res.line)
	st.conn.mu.Lock()
	st.recordLocked(res, true)
	st.conn.mu.Unlock()
	st.signal()
}

func (st *stream) recordLocked(res batchResponse, isError bool) {
	st.failed = st.failed || isError
	if res.line != nil {
		if st.sse {
			st.appendLocked(res.line)
		} else {
			st.responses = append(st.responses, res)
		}
	}
	if st.answered >= st.expected && !st.standalone {
		st.done = true
	}
}

// event records a message that is not an answer: the stream becomes SSE.
func (st *stream) event(message []byte) {
	st.conn.h.trace(true, message)
	st.conn.mu.Lock()
	if !st.sse {
		st.commitLocked()
	}
	st.appendLocked(message)
	st.conn.mu.Unlock()
	st.signal()
}

// commitLocked turns the stream to SSE: the answers held so far become its
// first events.
func (st *stream) commitLocked() {
	st.sse = true
	held := st.responses
	st.responses = nil
	slices.SortStableFunc(held, func(a, b batchResponse) int { return a.pos - b.pos })
	for _, res := range held {
		st.appendLocked(res.line)
	}
}

func (st *stream) appendLocked(data []byte) {
	st.nextSeq++
	st.events = append(st.events, sseEvent{seq: st.nextSeq, data: data})
	if len(st.events) > maxBufferedEvents {
		st.events = st.events[len(st.events)-maxBufferedEvents:]
	}
}

// finish ends the stream once its events are written (the session ended).
func (st *stream) finish() {
	st.conn.mu.Lock()
	st.done = true
	st.conn.mu.Unlock()
	st.signal()
}

// cutResponse closes the response being written after the events so far;
// the client reconnects (GET, Last-Event-ID) for the rest.
func (st *stream) cutResponse() bool {
	st.conn.mu.Lock()
	ok := st.resumable && st.allowSSE
	if ok {
		if !st.sse {
			st.commitLocked()
		}
		st.cut = true
	}
	st.conn.mu.Unlock()
	st.signal()
	return ok
}

// serve writes the stream to one HTTP response, from the event after
// sequence number after on (-1: a new stream, which a priming event opens), until its answers are all written, the client
// goes away, or the server cuts the response. modern decides the statuses
// of a JSON answer and makes the client's going away a cancellation.
func (st *stream) serve(w http.ResponseWriter, r *http.Request, after int64, modern bool) {
	c := st.conn
	rc := http.NewResponseController(w)
	sent := max(after, 0)
	c.mu.Lock()
	st.attached = true
	if after >= 0 {
		// A reconnection reads on; a cut asked for before the first
		// response was written still applies to it.
		st.cut = false
	}
	if st.standalone || after >= 0 {
		st.sse = true
	}
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		st.attached = false
		finished := st.done && sent >= st.nextSeq
		c.mu.Unlock()
		if finished {
			c.dropStream(st)
		}
	}()
	headerWritten := false
	writeHeader := func(failed bool) {
		if headerWritten {
			return
		}
		headerWritten = true
		if st.onHeader != nil {
			st.onHeader(failed)
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Cache-Control", "no-cache")
		w.WriteHeader(http.StatusOK)
		if st.resumable && after < 0 && c.priming() {
			// The priming event: an id to resume from before anything else
			// is written, and how long to wait before reconnecting.
			fmt.Fprintf(w, "id: %d-0\nretry: %d\ndata: \n\n", st.id, c.h.opts.RetryAfter.Milliseconds())
		}
	}
	for {
		c.mu.Lock()
		if !st.sse && st.done {
			responses, failed := st.responses, st.failed
			st.responses = nil
			c.mu.Unlock()
			if st.onHeader != nil {
				st.onHeader(failed)
			}
			writeAnswers(w, responses, modern)
			return
		}
		var batch []sseEvent
		if st.sse {
			for _, e := range st.events {
				if e.seq > sent {
					batch = append(batch, e)
				}
			}
		}
		sse, done, cut, failed := st.sse, st.done, st.cut, st.failed
		c.mu.Unlock()
		if sse && (!headerWritten || len(batch) > 0) {
			writeHeader(failed)
			for _, e := range batch {
				if st.resumable {
					fmt.Fprintf(w, "id: %d-%d\n", st.id, e.seq)
				}
				fmt.Fprintf(w, "event: message\ndata: %s\n\n", e.data)
				sent = e.seq
			}
			if err := rc.Flush(); err != nil {
				return
			}
			continue
		}
		if done || cut {
			return
		}
		select {
		case <-st.wake:
		case <-r.Context().Done():
			if modern {
				st.cancelAll()
			}
			return
		}
	}
}

// cancelAll cancels the requests a modern stream answers: the client
// closed it.
func (st *stream) cancelAll() {
	c := st.conn
	c.mu.Lock()
	var ids []json.RawMessage
	for _, p := range c.pending {
		if p.st == st {
			ids = append(ids, p.in.wireID)
		}
	}
	c.mu.Unlock()
	for _, id := range ids {
		c.deliver(&inbound{method: "notifications/cancelled", params: marshal(map[string]json.RawMessage{"requestId": id})})
	}
}

// writeAnswers writes the answers of a POST as one JSON body: an array,
// in the order of the requests, for a batch.
func writeAnswers(w http.ResponseWriter, responses []batchResponse, modern bool) {
	if len(responses) == 0 {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	if len(responses) == 1 {
		status := http.StatusOK
		if modern {
			var m struct {
				Error *struct {
					Code int64 `json:"code"`
				} `json:"error"`
			}
			if json.Unmarshal(responses[0].line, &m) == nil && m.Error != nil {
				status = modernStatus(m.Error.Code)
			}
		}
		writeJSON(w, status, responses[0].line)
		return
	}
	slices.SortStableFunc(responses, func(a, b batchResponse) int { return a.pos - b.pos })
	body := []byte{'['}
	for i, res := range responses {
		if i > 0 {
			body = append(body, ',')
		}
		body = append(body, res.line...)
	}
	writeJSON(w, http.StatusOK, append(body, ']'))
}

// CloseStream closes the HTTP response that carries the answer of the
// request ctx belongs to, after what was written so far, as 2025-11-25
// allows ("SSE polling"): the client reconnects with GET and Last-Event-ID
// and reads the rest. It reports whether it did: over stdio, in the modern
// era and for a client that does not read SSE there is nothing to close.
func CloseStream(ctx context.Context) bool {
	c := callFrom(ctx)
	if c == nil {
		return false
	}
	hc, ok := c.ss.conn.(*httpConn)
	if !ok || !hc.priming() {
		return false
	}
	hc.mu.Lock()
	p := hc.pending[c.in.token]
	hc.mu.Unlock()
	if p == nil {
		return false
	}
	return p.st.cutResponse()
}

var _ conn = (*httpConn)(nil)
