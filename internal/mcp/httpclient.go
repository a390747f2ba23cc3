package mcp

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/kontext-dev/kontext/gen/errcodes"
)

// HTTPOptions configure the streamable HTTP transport of a Client.
type HTTPOptions struct {
	// Token is sent as a bearer token with every request. It is never
	// logged.
	Token string
	// Headers are added to every request (an adapter's configured
	// headers). Like Token they may hold secrets and are never logged;
	// they cannot replace the transport's own headers.
	Headers map[string]string
	// Client makes the requests; when nil, a client with bounded connect
	// and TLS handshake times (and no overall timeout, since streams are
	// long) is used. Each call is bounded by its context.
	Client *http.Client
	// MaxMessageBytes bounds each message the server sends, in a JSON body
	// or an event (DefaultMaxMessageBytes when 0).
	MaxMessageBytes int
	// RetryDelay is the wait before the notification stream is reconnected
	// when the server named none with retry (1 s when 0). Repeated failures
	// double it, up to 30 s.
	RetryDelay time.Duration
}

// ConnectHTTP connects to the streamable HTTP MCP endpoint at url and
// returns a ready client, with the same API as over stdio. The era is
// negotiated as over stdio; in the legacy eras the session is kept (and
// re-initialised when the server forgets it) and the server's notification
// stream is followed; in 2026-07-28 every request is its own POST.
func ConnectHTTP(ctx context.Context, url string, hopts HTTPOptions, opts ClientOptions) (*Client, error) {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	s := newHTTPStream(url, hopts, log)
	c, err := Connect(ctx, s, opts)
	if err != nil {
		s.Close()
		return nil, err
	}
	return c, nil
}

// httpStream carries the client's JSON-RPC lines over streamable HTTP, as
// the io.ReadWriteCloser Connect frames: each line the client writes is
// POSTed, and each message the server answers with (a JSON body, or the
// events of an SSE stream, the GET notification stream's included) is read
// back as a line. So the client, its validation and its routing of the
// server's requests and notifications are the ones stdio uses, and the
// transport concerns — sessions, headers, streams, resumption — stay here.
type httpStream struct {
	url    string
	opts   HTTPOptions
	client *http.Client
	log    *slog.Logger

	ctx    context.Context // ends with Close: every request and stream
	cancel context.CancelFunc

	wmu     sync.Mutex
	partial []byte // the start of a line not yet written whole

	inR *io.PipeReader
	inW *io.PipeWriter // gated: parallel writes are sequential

	mu         sync.Mutex
	session    string // Mcp-Session-Id (legacy)
	version    string // the negotiated legacy version, for MCP-Protocol-Version
	initialize []byte // the initialize request, replayed on re-initialisation
	initNote   []byte // notifications/initialized, likewise
	subscribed map[string][]byte
	inflight   map[string]inflight // by request id
	listening  bool                // the GET stream runs
	closed     bool
}

func newHTTPStream(url string, opts HTTPOptions, log *slog.Logger) *httpStream {
	if opts.MaxMessageBytes <= 0 {
		opts.MaxMessageBytes = DefaultMaxMessageBytes
	}
	if opts.RetryDelay <= 0 {
		opts.RetryDelay = time.Second
	}
	client := opts.Client
	if client == nil {
		dialer := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
		client = &http.Client{Transport: &http.Transport{
			Proxy:               http.ProxyFromEnvironment,
			DialContext:         dialer.DialContext,
			TLSHandshakeTimeout: 10 * time.Second,
			MaxIdleConnsPerHost: 8,
			IdleConnTimeout:     90 * time.Second,
		}}
	}
	r, w := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	return &httpStream{
		url: url, opts: opts, client: client, log: log,
		ctx: ctx, cancel: cancel, inR: r, inW: w,
		subscribed: map[string][]byte{},
		inflight:   map[string]inflight{},
	}
}

// Read implements io.Reader: the server's messages, one a line.
func (s *httpStream) Read(p []byte) (int, error) { return s.inR.Read(p) }

// Write implements io.Writer: every whole line is one message to send.
func (s *httpStream) Write(p []byte) (int, error) {
	s.wmu.Lock()
	s.partial = append(s.partial, p...)
	var lines [][]byte
	for {
		i := bytes.IndexByte(s.partial, '\n')
		if i < 0 {
			break
		}
		if line := bytes.TrimSpace(s.partial[:i]); len(line) > 0 {
			lines = append(lines, bytes.Clone(line))
		}
		s.partial = s.partial[i+1:]
	}
	s.wmu.Unlock()
	for _, line := range lines {
		s.dispatch(line)
	}
	return len(p), nil
}

// Close implements io.Closer: streams and requests end, the session is
// deleted (bounded by 2 s), and Read reports the end.
func (s *httpStream) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	session, version := s.session, s.version
	s.mu.Unlock()
	s.cancel()
	if session != "" {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		req, err := http.NewRequestWithContext(ctx, http.MethodDelete, s.url, nil)
		if err == nil {
			s.legacyHeaders(req, session, version)
			if resp, err := s.client.Do(req); err == nil {
				drain(resp)
			}
		}
		cancel()
	}
	return s.inW.Close()
}

// inflight is a request waiting for its answer.
type inflight struct {
	abort  context.CancelFunc
	modern bool
}

// outgoing is what the transport needs to know of a message it sends.
type outgoing struct {
	line   []byte
	id     json.RawMessage // a request's id; nil for a notification or response
	method string
	name   string // Mcp-Name: the tool, prompt or resource a request names
	modern string // the _meta protocol version, when the message has one
}

func parseOutgoing(line []byte) outgoing {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Name string `json:"name"`
			URI  string `json:"uri"`
			Meta struct {
				Version string `json:"io.modelcontextprotocol/protocolVersion"`
			} `json:"_meta"`
		} `json:"params"`
	}
	_ = json.Unmarshal(line, &m)
	out := outgoing{line: line, method: m.Method, modern: m.Params.Meta.Version}
	if m.Method != "" && len(m.ID) > 0 {
		out.id = m.ID
	}
	switch m.Method {
	case "tools/call", "prompts/get":
		out.name = m.Params.Name
	case "resources/read":
		out.name = m.Params.URI
	}
	return out
}

// dispatch sends one message the client wrote. Requests are answered on
// their own POST; in 2026-07-28 cancelling one closes that POST, which is
// the era's cancellation, and in the legacy eras notifications/cancelled is
// sent and the POST's stream is given up.
func (s *httpStream) dispatch(line []byte) {
	msg := parseOutgoing(line)
	if msg.method == "notifications/cancelled" {
		var p struct {
			Params struct {
				RequestID json.RawMessage `json:"requestId"`
			} `json:"params"`
		}
		_ = json.Unmarshal(line, &p)
		s.mu.Lock()
		req, ok := s.inflight[string(p.Params.RequestID)]
		s.mu.Unlock()
		if !ok {
			return // answered already: nothing to cancel
		}
		// Off the write path; the notification goes before the stream is
		// given up, so the server hears of the cancellation first.
		go func() {
			if !req.modern {
				s.post(s.ctx, msg)
			}
			req.abort()
		}()
		return
	}
	if msg.id == nil {
		if msg.method == "notifications/initialized" {
			s.mu.Lock()
			s.initNote = line
			s.mu.Unlock()
			// The notification stream opens once the session is
			// initialised, so the server is ready for it.
			s.post(s.ctx, msg)
			s.startListening()
			return
		}
		go s.post(s.ctx, msg)
		return
	}
	ctx, cancel := context.WithCancel(s.ctx)
	key := string(msg.id)
	s.mu.Lock()
	s.inflight[key] = inflight{abort: cancel, modern: msg.modern != ""}
	s.mu.Unlock()
	go func() {
		defer func() {
			s.mu.Lock()
			delete(s.inflight, key)
			s.mu.Unlock()
			cancel()
		}()
		s.post(ctx, msg)
	}()
}

// post sends one message and delivers what the server answers. A request
// always gets an answer: the server's, or an error made here when the
// transport failed (unless it was cancelled).
func (s *httpStream) post(ctx context.Context, msg outgoing) {
	for attempt := 0; ; attempt++ {
		session, retry := s.postOnce(ctx, msg)
		if !retry || attempt > 0 {
			return
		}
		if err := s.reinitialize(ctx, session); err != nil {
			s.fail(ctx, msg, fmt.Sprintf("the server forgot the session and re-initialising failed: %v", err))
			return
		}
	}
}

// postOnce makes one POST. It returns retry (with the session used) when
// the server no longer knows the session.
func (s *httpStream) postOnce(ctx context.Context, msg outgoing) (session string, retry bool) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.url, bytes.NewReader(msg.line))
	if err != nil {
		s.fail(ctx, msg, err.Error())
		return "", false
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if msg.modern != "" {
		s.authorize(req)
		req.Header.Set("MCP-Protocol-Version", msg.modern)
		req.Header.Set("Mcp-Method", msg.method)
		if msg.name != "" {
			req.Header.Set("Mcp-Name", headerValue(msg.name))
		}
	} else if msg.method != "initialize" {
		s.mu.Lock()
		session = s.session
		version := s.version
		s.mu.Unlock()
		s.legacyHeaders(req, session, version)
	} else {
		s.authorize(req)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		s.fail(ctx, msg, "the request failed: "+err.Error())
		return "", false
	}
	defer drain(resp)
	if session != "" && sessionGone(resp) {
		return session, true
	}
	if msg.method == "initialize" && resp.StatusCode/100 == 2 {
		s.mu.Lock()
		s.session = resp.Header.Get("Mcp-Session-Id")
		s.initialize = msg.line
		s.mu.Unlock()
	}
	if msg.method == "resources/subscribe" || msg.method == "resources/unsubscribe" {
		s.remember(msg)
	}
	switch {
	case resp.StatusCode == http.StatusAccepted:
		if msg.id != nil {
			s.fail(ctx, msg, "the server accepted the request without answering it")
		}
	case resp.StatusCode/100 != 2:
		s.refused(ctx, msg, resp)
	case msg.id == nil:
	default:
		s.answer(ctx, msg, resp)
	}
	return "", false
}

// answer delivers the body of a successful POST: a JSON message, or the
// events of an SSE stream until the answer to msg.
func (s *httpStream) answer(ctx context.Context, msg outgoing, resp *http.Response) {
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch mt {
	case "application/json":
		body, err := io.ReadAll(io.LimitReader(resp.Body, int64(s.opts.MaxMessageBytes)+1))
		switch {
		case err != nil:
			s.fail(ctx, msg, "reading the answer: "+err.Error())
		case len(body) > s.opts.MaxMessageBytes:
			s.fail(ctx, msg, fmt.Sprintf("the answer is larger than the limit of %d bytes", s.opts.MaxMessageBytes))
		default:
			s.learn(msg, body)
			s.deliver(body)
		}
	case "text/event-stream":
		handle := func(data []byte) bool {
			if isResponseTo(data, msg.id) {
				s.learn(msg, data)
				s.deliver(data)
				return true
			}
			s.deliver(data)
			return false
		}
		dec := newSSEDecoder(resp.Body, s.opts.MaxMessageBytes)
		answered, err := s.follow(ctx, dec, handle)
		if !answered && err == nil && msg.modern == "" {
			answered, err = s.resume(ctx, dec, handle)
		}
		if !answered {
			reason := "the server closed the stream without answering"
			if err != nil {
				reason = "the stream failed before the answer: " + err.Error()
			}
			s.fail(ctx, msg, reason)
		}
	default:
		s.fail(ctx, msg, fmt.Sprintf("the server answered with content type %q", resp.Header.Get("Content-Type")))
	}
}

// follow delivers the events of an SSE stream until handle reports the
// last one, the stream ends or ctx does.
func (s *httpStream) follow(ctx context.Context, dec *sseDecoder, handle func(data []byte) bool) (bool, error) {
	for {
		ev, err := dec.next()
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, io.EOF) {
				return false, nil
			}
			return false, err
		}
		if ev.Type != "" && ev.Type != "message" {
			continue
		}
		if len(bytes.TrimSpace(ev.Data)) == 0 {
			continue // a priming event: an id to resume from, no message
		}
		if handle(ev.Data) {
			return true, nil
		}
	}
}

// maxIdleResumptions bounds the resumptions of a stream in a row that bring
// no event, so that a server that keeps closing a stream without ever
// answering does not keep the client polling.
const maxIdleResumptions = 5

// resume follows a request's SSE stream the server closed before answering
// (the legacy eras let a server end a stream after an event id and have the
// client poll): it reconnects with GET and Last-Event-ID after the
// server's retry, for as long as the stream names an event to resume from.
func (s *httpStream) resume(ctx context.Context, dec *sseDecoder, handle func(data []byte) bool) (bool, error) {
	idle := 0
	for dec.lastID != "" && idle < maxIdleResumptions {
		wait := dec.retry
		if wait <= 0 {
			wait = s.opts.RetryDelay
		}
		select {
		case <-ctx.Done():
			return false, nil
		case <-time.After(wait):
		}
		s.mu.Lock()
		session, version := s.session, s.version
		s.mu.Unlock()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.url, nil)
		if err != nil {
			return false, err
		}
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set("Last-Event-ID", dec.lastID)
		s.legacyHeaders(req, session, version)
		resp, err := s.client.Do(req)
		if err != nil {
			return false, err
		}
		if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); resp.StatusCode != http.StatusOK || mt != "text/event-stream" {
			drain(resp)
			return false, fmt.Errorf("resuming with Last-Event-ID was answered HTTP %s", resp.Status)
		}
		next := newSSEDecoder(resp.Body, s.opts.MaxMessageBytes)
		next.lastID, next.retry = dec.lastID, dec.retry
		answered, err := s.follow(ctx, next, handle)
		drain(resp)
		if answered || err != nil {
			return answered, err
		}
		if next.lastID == dec.lastID {
			idle++
		} else {
			idle = 0
		}
		dec = next
	}
	return false, nil
}

// learn keeps the protocol version the server chose at initialize.
func (s *httpStream) learn(msg outgoing, body []byte) {
	if msg.method != "initialize" {
		return
	}
	var r struct {
		Result struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"result"`
	}
	if json.Unmarshal(body, &r) == nil && r.Result.ProtocolVersion != "" {
		s.mu.Lock()
		s.version = r.Result.ProtocolVersion
		s.mu.Unlock()
	}
}

// remember keeps the resources the client subscribed to, so that a new
// session gets the same subscriptions.
func (s *httpStream) remember(msg outgoing) {
	var p struct {
		Params struct {
			URI string `json:"uri"`
		} `json:"params"`
	}
	_ = json.Unmarshal(msg.line, &p)
	s.mu.Lock()
	defer s.mu.Unlock()
	if msg.method == "resources/subscribe" {
		s.subscribed[p.Params.URI] = msg.line
	} else {
		delete(s.subscribed, p.Params.URI)
	}
}

// refused delivers the answer to a POST the server refused: its JSON-RPC
// error when the body has one (the 2026-07-28 statuses come with one),
// else an error naming the status.
func (s *httpStream) refused(ctx context.Context, msg outgoing, resp *http.Response) {
	if msg.id == nil {
		s.log.Warn("mcp: the server refused a notification", "method", msg.method, "status", resp.StatusCode)
		return
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	var m struct {
		ID    json.RawMessage `json:"id"`
		Error *struct {
			Code    int64           `json:"code"`
			Message string          `json:"message"`
			Data    json.RawMessage `json:"data,omitempty"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &m) != nil || m.Error == nil {
		s.fail(ctx, msg, "the server answered HTTP "+resp.Status)
		return
	}
	if !bytes.Equal(m.ID, msg.id) {
		// An error about the HTTP request rather than an answer to the
		// message (id null): the status says more than the code.
		m.Error.Message = "streamable HTTP: the server answered HTTP " + resp.Status + ": " + m.Error.Message
	}
	s.deliver(joinResponse(msg.id, "error", marshal(m.Error)))
}

// fail answers a request with an error made here, so that the call waiting
// for it returns. A cancelled request is not answered: its caller is gone.
func (s *httpStream) fail(ctx context.Context, msg outgoing, reason string) {
	if msg.id == nil || ctx.Err() != nil {
		if msg.id == nil && ctx.Err() == nil {
			s.log.Warn("mcp: sending a message failed", "method", msg.method, "reason", reason)
		}
		return
	}
	s.deliver(joinResponse(msg.id, "error", marshal(map[string]any{
		"code":    errcodes.InternalError,
		"message": "streamable HTTP: " + reason,
	})))
}

// deliver hands one message to the client's read loop, as one line: a
// message spread over lines (SSE data lines are joined with LF) is
// compacted, and one that is not JSON is dropped here, since its lines
// could otherwise pass for several messages.
func (s *httpStream) deliver(message []byte) {
	var line bytes.Buffer
	if err := json.Compact(&line, message); err != nil {
		s.log.Warn("mcp: dropped a message from the server that is not JSON", "error", err, "bytes", len(message))
		return
	}
	line.WriteByte('\n')
	_, _ = s.inW.Write(line.Bytes())
}

// reinitialize starts a new session when the server forgot the one used
// (404, or its stand-in, below): the initialize request, the initialized
// notification and the resource subscriptions are sent again, their answers
// kept here. Of several requests that meet the same expiry, one
// re-initialises and the rest use its session.
func (s *httpStream) reinitialize(ctx context.Context, stale string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.session != stale {
		return nil
	}
	if s.initialize == nil {
		return errors.New("no initialize request to replay")
	}
	s.log.Info("mcp: the server forgot the session; initialising a new one")
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.url, bytes.NewReader(s.initialize))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	s.authorize(req)
	resp, err := s.client.Do(req)
	if err != nil {
		return err
	}
	defer drain(resp)
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("initialize answered HTTP %s", resp.Status)
	}
	s.session = resp.Header.Get("Mcp-Session-Id")
	var result []byte
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt == "text/event-stream" {
		_, _ = s.follow(ctx, newSSEDecoder(resp.Body, s.opts.MaxMessageBytes), func(data []byte) bool { result = data; return isResponseTo(data, idOf(s.initialize)) })
	} else {
		result, _ = io.ReadAll(io.LimitReader(resp.Body, int64(s.opts.MaxMessageBytes)))
	}
	var r struct {
		Result struct {
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"result"`
	}
	if json.Unmarshal(result, &r) != nil || r.Result.ProtocolVersion == "" {
		return errors.New("initialize was not answered with a result")
	}
	s.version = r.Result.ProtocolVersion
	replay := [][]byte{s.initNote}
	for _, line := range s.subscribed {
		replay = append(replay, line)
	}
	for _, line := range replay {
		if line == nil {
			continue
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.url, bytes.NewReader(line))
		if err != nil {
			return err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		s.legacyHeaders(req, s.session, s.version)
		resp, err := s.client.Do(req)
		if err != nil {
			return err
		}
		drain(resp)
	}
	return nil
}

// startListening opens the server's notification stream (legacy eras),
// once.
func (s *httpStream) startListening() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.listening || s.closed || s.version == "" {
		return
	}
	s.listening = true
	go s.listen()
}

// listen follows the GET notification stream for as long as the stream is
// open: after a drop it reconnects with Last-Event-ID, after the server's
// retry (or RetryDelay, doubled on each failure in a row, up to 30 s); a
// forgotten session is re-initialised; a server that offers no stream
// (405) is left alone.
func (s *httpStream) listen() {
	var lastID, lastSession string
	var retry time.Duration
	failures := 0
	for s.ctx.Err() == nil {
		s.mu.Lock()
		session, version := s.session, s.version
		s.mu.Unlock()
		if session != lastSession {
			lastID, lastSession = "", session // event ids belong to a session
		}
		status, gone, dec, err := s.listenOnce(session, version, lastID)
		switch {
		case status == http.StatusMethodNotAllowed:
			s.log.Debug("mcp: the server offers no notification stream")
			return
		case gone && session != "":
			if rerr := s.reinitialize(s.ctx, session); rerr != nil {
				s.log.Warn("mcp: re-initialising the session failed", "error", rerr)
			}
			failures++
		case err != nil || status/100 != 2:
			failures++
		default:
			failures = 0
		}
		if dec != nil {
			if dec.lastID != "" {
				lastID = dec.lastID
			}
			if dec.retry > 0 {
				retry = dec.retry
			}
		}
		if s.ctx.Err() != nil {
			return
		}
		wait := retry
		if wait <= 0 {
			wait = s.opts.RetryDelay
		}
		for i := 1; i < failures && wait < 30*time.Second; i++ {
			wait *= 2
		}
		wait = min(wait, 30*time.Second)
		select {
		case <-s.ctx.Done():
			return
		case <-time.After(wait):
		}
	}
}

// listenOnce makes one GET and delivers its events until the stream ends.
func (s *httpStream) listenOnce(session, version, lastID string) (status int, gone bool, dec *sseDecoder, err error) {
	req, err := http.NewRequestWithContext(s.ctx, http.MethodGet, s.url, nil)
	if err != nil {
		return 0, false, nil, err
	}
	req.Header.Set("Accept", "text/event-stream")
	s.legacyHeaders(req, session, version)
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return 0, false, nil, err
	}
	defer drain(resp)
	if resp.StatusCode != http.StatusOK {
		return resp.StatusCode, sessionGone(resp), nil, nil
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt != "text/event-stream" {
		return resp.StatusCode, false, nil, fmt.Errorf("the notification stream has content type %q", mt)
	}
	dec = newSSEDecoder(resp.Body, s.opts.MaxMessageBytes)
	for {
		ev, err := dec.next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = nil
			}
			return resp.StatusCode, false, dec, err
		}
		if (ev.Type == "" || ev.Type == "message") && len(bytes.TrimSpace(ev.Data)) > 0 {
			s.deliver(ev.Data)
		}
	}
}

// legacyHeaders sets the headers every request after initialize carries in
// the legacy eras.
func (s *httpStream) legacyHeaders(req *http.Request, session, version string) {
	s.authorize(req)
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	if version != "" {
		req.Header.Set("MCP-Protocol-Version", version)
	}
}

func (s *httpStream) authorize(req *http.Request) {
	for k, v := range s.opts.Headers {
		if req.Header.Get(k) == "" {
			req.Header.Set(k, v)
		}
	}
	if s.opts.Token != "" {
		req.Header.Set("Authorization", "Bearer "+s.opts.Token)
	}
}

// sessionGone reports whether the server no longer knows the session a
// request carried: 404, as the legacy transport prescribes, or the 400 the
// TypeScript SDK's servers (server-everything among them) answer with, a
// JSON-RPC error about the session id.
func sessionGone(resp *http.Response) bool {
	if resp.StatusCode == http.StatusNotFound {
		return true
	}
	if resp.StatusCode != http.StatusBadRequest {
		return false
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	resp.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), resp.Body))
	var m struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	return json.Unmarshal(body, &m) == nil && strings.Contains(strings.ToLower(m.Error.Message), "session")
}

// isResponseTo reports whether message is the response to the request with
// the given id.
func isResponseTo(message []byte, id json.RawMessage) bool {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	return json.Unmarshal(message, &m) == nil && m.Method == "" && bytes.Equal(m.ID, id)
}

func idOf(line []byte) json.RawMessage {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	_ = json.Unmarshal(line, &m)
	return m.ID
}

// headerValue is a value fit for an HTTP header: as is when it is visible
// ASCII without surrounding spaces, else in the base64 form the 2026-07-28
// transport defines.
func headerValue(v string) string {
	safe := v == strings.TrimSpace(v)
	for i := 0; safe && i < len(v); i++ {
		safe = v[i] >= 0x20 && v[i] < 0x7f
	}
	if safe {
		return v
	}
	return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(v)) + "?="
}

// drain reads a little of what is left of a body, so the connection can be
// reused, and closes it. An event stream is only closed: a server may keep
// it open after the answer, and reading on would wait for it.
func drain(resp *http.Response) {
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt != "text/event-stream" {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	}
	resp.Body.Close()
}
