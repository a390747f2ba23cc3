package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/kontext-dev/kontext/gen/errcodes"
)

// fakeStreamable is a streamable HTTP MCP server written for these tests:
// in the legacy era (sessions, a GET stream with event ids and replay, SSE
// answers carrying progress and a roots/list request to the client) or in
// 2026-07-28 (POST only, headers checked against the body,
// subscriptions/listen as a long SSE answer). It records what a test
// asserts on.
type fakeStreamable struct {
	t      *testing.T
	modern bool
	// goneStatus answers a forgotten session: 404, or the 400 of the
	// TypeScript SDK's servers.
	goneStatus int
	// retryMs is sent at the start of every GET stream.
	retryMs int
	// noStream answers GET with 405: the server offers no notification
	// stream.
	noStream bool

	mu           sync.Mutex
	nextSession  int
	sessions     map[string]*fakeSession
	methods      []string // every POSTed method, "session method"
	lastEventIDs []string // Last-Event-ID of each GET ("" for none)
	deleted      []string
	answers      map[string]chan json.RawMessage // client answers by request id
	polled       string                          // the answer a resumption from q1 gets
	listenClosed chan struct{}
	callClosed   chan struct{}
	// answeredClosed hears of a tools/call stream closed after its answer.
	answeredClosed chan struct{}
}

type fakeSession struct {
	history []string      // every event of the GET stream, id i+1
	wake    chan struct{} // a new event
	drop    chan struct{} // closed to drop the GET stream
}

func newFakeStreamable(t *testing.T, modern bool) *fakeStreamable {
	return &fakeStreamable{
		t: t, modern: modern, goneStatus: http.StatusNotFound,
		sessions:       map[string]*fakeSession{},
		answers:        map[string]chan json.RawMessage{},
		listenClosed:   make(chan struct{}, 4),
		callClosed:     make(chan struct{}, 4),
		answeredClosed: make(chan struct{}, 4),
	}
}

func (f *fakeStreamable) serve(t *testing.T, guard HTTPGuard) *httptest.Server {
	srv := httptest.NewServer(guard.Wrap(f))
	t.Cleanup(srv.Close)
	return srv
}

type fakeMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Name string          `json:"name"`
		URI  string          `json:"uri"`
		Meta json.RawMessage `json:"_meta"`
	} `json:"params"`
	Result json.RawMessage `json:"result"`
}

func (f *fakeStreamable) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if f.modern {
		f.serveModern(w, r)
		return
	}
	switch r.Method {
	case http.MethodPost:
		f.postLegacy(w, r)
	case http.MethodGet:
		f.getLegacy(w, r)
	case http.MethodDelete:
		f.mu.Lock()
		id := r.Header.Get("Mcp-Session-Id")
		delete(f.sessions, id)
		f.deleted = append(f.deleted, id)
		f.mu.Unlock()
	}
}

// session checks the session and version headers of a request after
// initialize; it answers the refusal itself.
func (f *fakeStreamable) session(w http.ResponseWriter, r *http.Request) (string, *fakeSession) {
	id := r.Header.Get("Mcp-Session-Id")
	f.mu.Lock()
	s := f.sessions[id]
	f.mu.Unlock()
	switch {
	case id == "":
		http.Error(w, "no session", http.StatusBadRequest)
	case s == nil:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(f.goneStatus)
		_, _ = w.Write([]byte(`{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: No valid session ID provided"},"id":null}`))
	case r.Header.Get("MCP-Protocol-Version") != LatestLegacyVersion:
		f.t.Errorf("%s %s: MCP-Protocol-Version %q", r.Method, id, r.Header.Get("MCP-Protocol-Version"))
		http.Error(w, "bad version", http.StatusBadRequest)
	default:
		return id, s
	}
	return "", nil
}

func fakeResult(w http.ResponseWriter, id json.RawMessage, result string) {
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, id, result)
}

func writeEvent(w http.ResponseWriter, id, data string) {
	if id != "" {
		fmt.Fprintf(w, "id: %s\n", id)
	}
	// Split over two data lines, so the client joins them.
	if i := strings.Index(data, ","); i > 0 {
		fmt.Fprintf(w, ": a comment\ndata: %s\ndata: %s\n\n", data[:i+1], data[i+1:])
	} else {
		fmt.Fprintf(w, "data: %s\n\n", data)
	}
	w.(http.Flusher).Flush()
}

func (f *fakeStreamable) postLegacy(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var m fakeMessage
	if err := json.Unmarshal(body, &m); err != nil {
		http.Error(w, "bad json", http.StatusBadRequest)
		return
	}
	if accept := r.Header.Get("Accept"); !strings.Contains(accept, "application/json") || !strings.Contains(accept, "text/event-stream") {
		f.t.Errorf("POST %s: Accept %q", m.Method, accept)
	}
	if m.Method == "initialize" {
		f.mu.Lock()
		f.nextSession++
		id := fmt.Sprintf("s%d", f.nextSession)
		f.sessions[id] = &fakeSession{wake: make(chan struct{}, 1), drop: make(chan struct{})}
		f.methods = append(f.methods, id+" initialize")
		f.mu.Unlock()
		w.Header().Set("Mcp-Session-Id", id)
		fakeResult(w, m.ID, `{"protocolVersion":"2025-11-25","capabilities":{"tools":{},"resources":{"subscribe":true}},"serverInfo":{"name":"fake","version":"1"}}`)
		return
	}
	if bytes.Contains(m.Params.Meta, []byte(ModernVersion)) {
		// A legacy-only server refuses the modern probe as the
		// TypeScript SDK does.
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: Server not initialized"},"id":null}`))
		return
	}
	sid, _ := f.session(w, r)
	if sid == "" {
		return
	}
	f.mu.Lock()
	f.methods = append(f.methods, sid+" "+m.Method)
	f.mu.Unlock()
	if m.Method == "" { // the client's answer to a request of ours
		f.mu.Lock()
		ch := f.answers[string(m.ID)]
		f.mu.Unlock()
		if ch != nil {
			ch <- m.Result
		}
		w.WriteHeader(http.StatusAccepted)
		return
	}
	if len(m.ID) == 0 {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	switch m.Method {
	case "ping", "resources/subscribe":
		fakeResult(w, m.ID, `{}`)
	case "tools/list":
		fakeResult(w, m.ID, `{"tools":[{"name":"echo","inputSchema":{"type":"object"}}]}`)
	case "tools/call":
		f.callLegacy(w, r, m)
	default:
		fakeResult(w, m.ID, `{}`)
	}
}

// callLegacy answers tools/call on an SSE stream: progress, a roots/list
// request to the client, then the result naming the root it answered.
func (f *fakeStreamable) callLegacy(w http.ResponseWriter, r *http.Request, m fakeMessage) {
	switch m.Params.Name {
	case "big":
		fakeResult(w, m.ID, `{"content":[{"type":"text","text":"`+strings.Repeat("x", 4096)+`"}]}`)
		return
	case "slow":
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
		f.callClosed <- struct{}{}
		return
	case "polled":
		// The stream ends after a priming event; the answer waits for the
		// client to resume from it.
		f.mu.Lock()
		f.polled = fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"polled"}]}}`, m.ID)
		f.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		fmt.Fprint(w, "id: q1\nretry: 10\ndata:\n\n")
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	var meta struct {
		ProgressToken string `json:"progressToken"`
	}
	_ = json.Unmarshal(m.Params.Meta, &meta)
	if meta.ProgressToken != "" {
		writeEvent(w, "p1", `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"`+meta.ProgressToken+`","progress":1,"total":2}}`)
	}
	answer := make(chan json.RawMessage, 1)
	f.mu.Lock()
	f.answers[`"srv-1"`] = answer
	f.mu.Unlock()
	writeEvent(w, "p2", `{"jsonrpc":"2.0","id":"srv-1","method":"roots/list"}`)
	var roots struct {
		Roots []struct {
			URI string `json:"uri"`
		} `json:"roots"`
	}
	select {
	case raw := <-answer:
		_ = json.Unmarshal(raw, &roots)
	case <-time.After(5 * time.Second):
		f.t.Error("the client did not answer roots/list")
	}
	text := "no roots"
	if len(roots.Roots) > 0 {
		text = roots.Roots[0].URI
	}
	writeEvent(w, "p3", fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":%q}]}}`, m.ID, text))
	// The stream stays open after the answer: the client must close it
	// rather than wait for its end.
	<-r.Context().Done()
	f.answeredClosed <- struct{}{}
}

// getLegacy serves the notification stream: retry first, then the events
// after Last-Event-ID, then new ones as they come, until dropped.
func (f *fakeStreamable) getLegacy(w http.ResponseWriter, r *http.Request) {
	sid, s := f.session(w, r)
	if sid == "" {
		return
	}
	if f.noStream {
		f.mu.Lock()
		f.lastEventIDs = append(f.lastEventIDs, r.Header.Get("Last-Event-ID"))
		f.mu.Unlock()
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	if !strings.Contains(r.Header.Get("Accept"), "text/event-stream") {
		f.t.Errorf("GET Accept %q", r.Header.Get("Accept"))
	}
	last := r.Header.Get("Last-Event-ID")
	f.mu.Lock()
	f.lastEventIDs = append(f.lastEventIDs, last)
	drop := s.drop
	polled := f.polled
	f.mu.Unlock()
	if last == "q1" {
		w.Header().Set("Content-Type", "text/event-stream")
		writeEvent(w, "q2", polled)
		return
	}
	next := 0
	if last != "" {
		fmt.Sscanf(last, "%d", &next)
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	if f.retryMs > 0 {
		fmt.Fprintf(w, "retry: %d\n\n", f.retryMs)
	}
	w.(http.Flusher).Flush()
	for {
		f.mu.Lock()
		pending := s.history[next:]
		f.mu.Unlock()
		for _, ev := range pending {
			next++
			writeEvent(w, fmt.Sprint(next), ev)
		}
		select {
		case <-s.wake:
		case <-drop:
			return
		case <-r.Context().Done():
			return
		}
	}
}

// notify queues a message on a session's GET stream.
func (f *fakeStreamable) notify(sid, message string) {
	f.mu.Lock()
	s := f.sessions[sid]
	s.history = append(s.history, message)
	f.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// dropStream ends a session's GET stream from the server's side.
func (f *fakeStreamable) dropStream(sid string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.sessions[sid]
	close(s.drop)
	s.drop = make(chan struct{})
}

// forget loses every session, as a restarted server does.
func (f *fakeStreamable) forget() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, s := range f.sessions {
		close(s.drop)
	}
	f.sessions = map[string]*fakeSession{}
}

func (f *fakeStreamable) record() (methods, lastEventIDs, deleted []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.methods...), append([]string(nil), f.lastEventIDs...), append([]string(nil), f.deleted...)
}

// serveModern is the 2026-07-28 side: every request stands alone.
func (f *fakeStreamable) serveModern(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	body, _ := io.ReadAll(r.Body)
	var m fakeMessage
	_ = json.Unmarshal(body, &m)
	var meta struct {
		Version string `json:"io.modelcontextprotocol/protocolVersion"`
	}
	_ = json.Unmarshal(m.Params.Meta, &meta)
	f.mu.Lock()
	f.methods = append(f.methods, m.Method)
	f.mu.Unlock()
	if len(m.ID) == 0 {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	if got := r.Header.Get("MCP-Protocol-Version"); got != meta.Version || got != ModernVersion {
		f.t.Errorf("%s: MCP-Protocol-Version %q, _meta %q", m.Method, got, meta.Version)
	}
	if got := r.Header.Get("Mcp-Method"); got != m.Method {
		f.t.Errorf("%s: Mcp-Method %q", m.Method, got)
	}
	wantName := m.Params.Name
	if m.Method == "resources/read" {
		wantName = m.Params.URI
	}
	if got := r.Header.Get("Mcp-Name"); got != wantName && got != headerValue(wantName) {
		f.t.Errorf("%s: Mcp-Name %q, want %q", m.Method, got, wantName)
	}
	if sid := r.Header.Get("Mcp-Session-Id"); sid != "" {
		f.t.Errorf("%s: a modern request carries Mcp-Session-Id %q", m.Method, sid)
	}
	switch m.Method {
	case "server/discover":
		fakeResult(w, m.ID, `{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{},"resources":{"subscribe":true}},"ttlMs":0,"cacheScope":"private"}`)
	case "tools/list":
		fakeResult(w, m.ID, `{"resultType":"complete","tools":[{"name":"echo","inputSchema":{"type":"object"}}],"ttlMs":0,"cacheScope":"private"}`)
	case "tools/call":
		if m.Params.Name == "slow" {
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			w.(http.Flusher).Flush()
			<-r.Context().Done()
			f.callClosed <- struct{}{}
			return
		}
		fakeResult(w, m.ID, `{"resultType":"complete","content":[{"type":"text","text":"hi"}]}`)
	case "subscriptions/listen":
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		writeEvent(w, "", `{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":{}}}`)
		writeEvent(w, "", `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"kontext://a"}}`)
		<-r.Context().Done()
		f.listenClosed <- struct{}{}
	default:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":%d,"message":"Method not found"}}`, m.ID, errcodes.MethodNotFound)
	}
}

// noted collects OnNotification calls.
type noted struct {
	mu    sync.Mutex
	seen  []string
	wake  chan struct{}
	notes map[string][]json.RawMessage
}

func newNoted() *noted {
	return &noted{wake: make(chan struct{}, 1), notes: map[string][]json.RawMessage{}}
}

func (n *noted) add(method string, params json.RawMessage) {
	n.mu.Lock()
	n.seen = append(n.seen, method)
	n.notes[method] = append(n.notes[method], params)
	n.mu.Unlock()
	select {
	case n.wake <- struct{}{}:
	default:
	}
}

// wait returns the params of the count-th notification of method, or fails.
func (n *noted) wait(t *testing.T, method string, count int) json.RawMessage {
	t.Helper()
	deadline := time.After(5 * time.Second)
	for {
		n.mu.Lock()
		got := n.notes[method]
		n.mu.Unlock()
		if len(got) >= count {
			return got[count-1]
		}
		select {
		case <-n.wake:
		case <-deadline:
			t.Fatalf("no %d× %s in 5 s; seen %v", count, method, n.seen)
		}
	}
}

func connectFake(t *testing.T, url string, hopts HTTPOptions, opts ClientOptions) *Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if opts.Info.Name == "" {
		opts.Info = Implementation{Name: "test", Version: "1"}
	}
	c, err := ConnectHTTP(ctx, url, hopts, opts)
	if err != nil {
		t.Fatalf("ConnectHTTP: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func within(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestHTTPClientLegacy(t *testing.T) {
	fake := newFakeStreamable(t, false)
	fake.retryMs = 20
	srv := fake.serve(t, HTTPGuard{})
	notes := newNoted()
	root := t.TempDir()
	// A RetryDelay far beyond the test's patience: reconnecting in time
	// proves the server's retry is followed.
	c := connectFake(t, srv.URL, HTTPOptions{RetryDelay: time.Minute}, ClientOptions{Root: root, OnNotification: notes.add})

	if c.Modern || c.Version != LatestLegacyVersion {
		t.Fatalf("modern %v version %q: the auto era should fall back to initialize", c.Modern, c.Version)
	}
	t.Run("tools/list", func(t *testing.T) {
		tools, err := c.ListTools(within(t))
		if err != nil || len(tools) != 1 || tools[0].Name != "echo" {
			t.Fatalf("tools %v, %v", tools, err)
		}
	})
	t.Run("an SSE answer with progress and a request to the client", func(t *testing.T) {
		res, err := c.CallToolWithProgress(within(t), "echo", nil, "tok-1")
		if err != nil {
			t.Fatal(err)
		}
		if got := resultTextOf(res.Content); !strings.HasPrefix(got, "file://") {
			t.Errorf("the call's result %q does not name the root the client answered roots/list with", got)
		}
		if p := notes.wait(t, "notifications/progress", 1); !bytes.Contains(p, []byte(`"tok-1"`)) {
			t.Errorf("progress %s", p)
		}
		select {
		case <-fake.answeredClosed:
		case <-time.After(5 * time.Second):
			t.Error("the client kept the call's stream open after its answer")
		}
	})
	t.Run("the GET stream, dropped and resumed", func(t *testing.T) {
		fake.notify("s1", `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"kontext://one"}}`)
		notes.wait(t, "notifications/resources/updated", 1)
		fake.dropStream("s1")
		deadline := time.Now().Add(5 * time.Second)
		for {
			if _, ids, _ := fake.record(); contains(ids, "1") {
				break
			} else if time.Now().After(deadline) {
				t.Fatalf("GET Last-Event-ID headers %q: no reconnection from event 1", ids)
			}
			time.Sleep(5 * time.Millisecond)
		}
		fake.notify("s1", `{"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"kontext://two"}}`)
		if p := notes.wait(t, "notifications/resources/updated", 2); !bytes.Contains(p, []byte("kontext://two")) {
			t.Errorf("after the drop: %s", p)
		}
		n := notes.notes["notifications/resources/updated"]
		if len(n) != 2 {
			t.Errorf("%d updates, want each once: %s", len(n), n)
		}
	})
	t.Run("a forgotten session is re-initialised", func(t *testing.T) {
		if err := c.Subscribe(within(t), "kontext://sub"); err != nil {
			t.Fatal(err)
		}
		fake.forget()
		if err := c.Ping(within(t)); err != nil {
			t.Fatalf("ping after the server forgot the session: %v", err)
		}
		methods, _, _ := fake.record()
		for _, want := range []string{"s2 initialize", "s2 notifications/initialized", "s2 resources/subscribe", "s2 ping"} {
			if !contains(methods, want) {
				t.Errorf("no %q in %q", want, methods)
			}
		}
		// The GET stream follows the new session.
		deadline := time.Now().Add(5 * time.Second)
		for {
			fake.mu.Lock()
			s := fake.sessions["s2"]
			fake.mu.Unlock()
			if s != nil {
				fake.notify("s2", `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`)
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("no session s2")
			}
		}
		notes.wait(t, "notifications/tools/list_changed", 1)
	})
	t.Run("a cancelled call sends notifications/cancelled", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		if _, err := c.CallTool(ctx, "slow", nil); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("got %v, want the deadline", err)
		}
		select {
		case <-fake.callClosed:
		case <-time.After(5 * time.Second):
			t.Fatal("the call's stream stayed open")
		}
		methods, _, _ := fake.record()
		if !contains(methods, "s2 notifications/cancelled") {
			t.Errorf("no notifications/cancelled in %q", methods)
		}
	})
	t.Run("a stream the server closes before answering is resumed", func(t *testing.T) {
		res, err := c.CallTool(within(t), "polled", nil)
		if err != nil || resultTextOf(res.Content) != "polled" {
			t.Fatalf("%v, %v", res, err)
		}
		if _, ids, _ := fake.record(); !contains(ids, "q1") {
			t.Errorf("GET Last-Event-ID headers %q: no resumption from q1", ids)
		}
	})
	t.Run("DELETE on close", func(t *testing.T) {
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
		if _, _, deleted := fake.record(); !contains(deleted, "s2") {
			t.Errorf("deleted %q, want s2", deleted)
		}
	})
}

// TestHTTPClientSessionGone400 re-initialises on the 400 about the session
// id the TypeScript SDK's servers answer instead of 404.
func TestHTTPClientSessionGone400(t *testing.T) {
	fake := newFakeStreamable(t, false)
	fake.goneStatus = http.StatusBadRequest
	srv := fake.serve(t, HTTPGuard{})
	c := connectFake(t, srv.URL, HTTPOptions{}, ClientOptions{Era: EraLegacy})
	fake.forget()
	if _, err := c.ListTools(within(t)); err != nil {
		t.Fatalf("tools/list after the server forgot the session: %v", err)
	}
	methods, _, _ := fake.record()
	if !contains(methods, "s2 tools/list") {
		t.Errorf("no tools/list in the new session: %q", methods)
	}
}

// TestHTTPClientNoStream asks once for a notification stream a server
// does not offer, and works without it.
func TestHTTPClientNoStream(t *testing.T) {
	fake := newFakeStreamable(t, false)
	fake.noStream = true
	srv := fake.serve(t, HTTPGuard{})
	c := connectFake(t, srv.URL, HTTPOptions{RetryDelay: time.Millisecond}, ClientOptions{Era: EraLegacy})
	time.Sleep(100 * time.Millisecond) // a hundred retries, were it to retry
	if err := c.Ping(within(t)); err != nil {
		t.Fatal(err)
	}
	if _, gets, _ := fake.record(); len(gets) != 1 {
		t.Errorf("%d GETs to a server that answered 405, want 1", len(gets))
	}
}

func TestHTTPClientBounds(t *testing.T) {
	fake := newFakeStreamable(t, false)
	srv := fake.serve(t, HTTPGuard{})
	c := connectFake(t, srv.URL, HTTPOptions{MaxMessageBytes: 1024}, ClientOptions{Era: EraLegacy})
	_, err := c.CallTool(within(t), "big", nil)
	var rpcErr *jsonrpc2.Error
	if !errors.As(err, &rpcErr) || !strings.Contains(rpcErr.Message, "larger than the limit") {
		t.Fatalf("a 4 KB answer under a 1 KB bound: %v", err)
	}
	if err := c.Ping(within(t)); err != nil {
		t.Fatalf("the client is unusable after an oversized answer: %v", err)
	}
}

func TestHTTPClientToken(t *testing.T) {
	const token = "s3cret-t0ken-value"
	fake := newFakeStreamable(t, false)
	srv := fake.serve(t, HTTPGuard{Token: token})
	var logs bytes.Buffer
	var logMu sync.Mutex
	logger := slog.New(slog.NewTextHandler(lockedWriter{&logMu, &logs}, &slog.HandlerOptions{Level: slog.LevelDebug}))

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if c, err := ConnectHTTP(ctx, srv.URL, HTTPOptions{}, ClientOptions{Era: EraLegacy, Logger: logger}); err == nil {
		c.Close()
		t.Fatal("connected without the token")
	} else if !strings.Contains(err.Error(), "HTTP 401") {
		t.Errorf("without the token: %v (want the 401 named)", err)
	}
	if _, err := ConnectHTTP(ctx, srv.URL, HTTPOptions{Token: "wrong"}, ClientOptions{Era: EraLegacy, Logger: logger}); err == nil {
		t.Fatal("connected with a wrong token")
	}
	c := connectFake(t, srv.URL, HTTPOptions{Token: token}, ClientOptions{Logger: logger})
	if _, err := c.ListTools(within(t)); err != nil {
		t.Fatal(err)
	}
	fake.forget() // the re-initialisation logs, and must not log the token
	if err := c.Ping(within(t)); err != nil {
		t.Fatal(err)
	}
	c.Close()
	logMu.Lock()
	defer logMu.Unlock()
	if strings.Contains(logs.String(), token) {
		t.Errorf("the token was logged:\n%s", logs.String())
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func TestHTTPClientModern(t *testing.T) {
	fake := newFakeStreamable(t, true)
	srv := fake.serve(t, HTTPGuard{})
	notes := newNoted()
	c := connectFake(t, srv.URL, HTTPOptions{}, ClientOptions{OnNotification: notes.add})
	if !c.Modern || c.Version != ModernVersion {
		t.Fatalf("modern %v version %q", c.Modern, c.Version)
	}
	t.Run("requests carry the headers their body implies", func(t *testing.T) {
		if _, err := c.ListTools(within(t)); err != nil {
			t.Fatal(err)
		}
		res, err := c.CallTool(within(t), "echo", nil)
		if err != nil || resultTextOf(res.Content) != "hi" {
			t.Fatalf("%v, %v", res, err)
		}
	})
	t.Run("404 with -32601 is the server's error", func(t *testing.T) {
		_, err := c.ListResources(within(t))
		var rpcErr *jsonrpc2.Error
		if !errors.As(err, &rpcErr) || rpcErr.Code != errcodes.MethodNotFound {
			t.Fatalf("got %v, want -32601", err)
		}
	})
	t.Run("a cancelled call closes its POST and sends nothing", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		if _, err := c.CallTool(ctx, "slow", nil); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("got %v", err)
		}
		select {
		case <-fake.callClosed:
		case <-time.After(5 * time.Second):
			t.Fatal("the call's POST stayed open")
		}
		if methods, _, _ := fake.record(); contains(methods, "notifications/cancelled") {
			t.Errorf("notifications/cancelled sent over HTTP in 2026-07-28: %q", methods)
		}
	})
	t.Run("subscriptions/listen is a long SSE answer; closing it cancels", func(t *testing.T) {
		if err := c.Subscribe(within(t), "kontext://a"); err != nil {
			t.Fatal(err)
		}
		notes.wait(t, "notifications/subscriptions/acknowledged", 1)
		if p := notes.wait(t, "notifications/resources/updated", 1); !bytes.Contains(p, []byte("kontext://a")) {
			t.Errorf("update %s", p)
		}
		c.Close()
		select {
		case <-fake.listenClosed:
		case <-time.After(5 * time.Second):
			t.Fatal("closing the client left subscriptions/listen open")
		}
	})
}

func TestHeaderValue(t *testing.T) {
	for in, want := range map[string]string{
		"get_architecture":    "get_architecture",
		"kontext://entry/a b": "kontext://entry/a b",
		" padded":             "=?base64?IHBhZGRlZA==?=",
		"ünïcode":             "=?base64?w7xuw69jb2Rl?=",
		"line\nbreak":         "=?base64?bGluZQpicmVhaw==?=",
	} {
		if got := headerValue(in); got != want {
			t.Errorf("headerValue(%q) = %q, want %q", in, got, want)
		}
	}
}

func resultTextOf(content []json.RawMessage) string {
	var b strings.Builder
	for _, raw := range content {
		var block struct {
			Text string `json:"text"`
		}
		_ = json.Unmarshal(raw, &block)
		b.WriteString(block.Text)
	}
	return b.String()
}
