package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kontext-dev/kontext/internal/mcp"
)

// httpPeer is a minimal streamable HTTP client for the tests: it speaks the
// wire itself so that the tests see statuses, headers and SSE events.
type httpPeer struct {
	t       *testing.T
	url     string
	session string
	version string
}

func (p *httpPeer) request(ctx context.Context, method, body string, header map[string]string) *http.Response {
	p.t.Helper()
	req, err := http.NewRequestWithContext(ctx, method, p.url, strings.NewReader(body))
	if err != nil {
		p.t.Fatal(err)
	}
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Content-Type", "application/json")
	if p.session != "" {
		req.Header.Set("Mcp-Session-Id", p.session)
		req.Header.Set("MCP-Protocol-Version", p.version)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		p.t.Fatal(err)
	}
	return resp
}

func (p *httpPeer) initialize(version string) {
	p.t.Helper()
	resp := p.request(context.Background(), "POST", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"`+version+`","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, nil)
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Mcp-Session-Id") == "" {
		p.t.Fatalf("initialize: %s, session %q", resp.Status, resp.Header.Get("Mcp-Session-Id"))
	}
	p.session, p.version = resp.Header.Get("Mcp-Session-Id"), version
	p.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`).Body.Close()
}

func (p *httpPeer) post(body string) *http.Response {
	return p.request(context.Background(), "POST", body, nil)
}

// sseEvent is one event read from a stream.
type sseEvent struct{ id, data string }

// events reads the SSE events of resp onto a channel, closed at the end of
// the stream.
func events(resp *http.Response) <-chan sseEvent {
	ch := make(chan sseEvent, 64)
	go func() {
		defer close(ch)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		var ev sseEvent
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				ch <- ev
				ev = sseEvent{}
			case strings.HasPrefix(line, "id: "):
				ev.id = strings.TrimPrefix(line, "id: ")
			case strings.HasPrefix(line, "data: "):
				ev.data = strings.TrimPrefix(line, "data: ")
			}
		}
	}()
	return ch
}

func nextEvent(t *testing.T, ch <-chan sseEvent, within time.Duration) (sseEvent, bool) {
	t.Helper()
	select {
	case ev, ok := <-ch:
		return ev, ok
	case <-time.After(within):
		return sseEvent{}, false
	}
}

func serveHTTP(t *testing.T, opts mcp.StreamableOptions, tools ...*mcp.Tool) (*mcp.Server, *mcp.StreamableHandler, string) {
	t.Helper()
	tools = append(tools, &mcp.Tool{Name: "noop", InputSchema: json.RawMessage(`{"type":"object"}`),
		Call: func(context.Context, json.RawMessage) (*mcp.ToolResult, error) { return mcp.TextResult("ok"), nil }})
	srv, err := mcp.NewServer(mcp.Implementation{Name: "k", Version: "1"}, mcp.Options{}, &mcp.Toolset{Name: "t", Tools: tools})
	if err != nil {
		t.Fatal(err)
	}
	h := srv.NewStreamableHandler(opts)
	ts := httptest.NewServer(mcp.HTTPGuard{}.Wrap(h))
	t.Cleanup(func() {
		h.Close(context.Background())
		ts.Close()
	})
	return srv, h, ts.URL
}

// A message that belongs to no request goes to exactly one of the
// session's open GET streams.
func TestStandaloneStreamsDeliverEachMessageOnce(t *testing.T) {
	srv, _, url := serveHTTP(t, mcp.StreamableOptions{})
	p := &httpPeer{t: t, url: url}
	p.initialize("2025-11-25")
	var streams []<-chan sseEvent
	for range 2 {
		resp := p.request(context.Background(), "GET", "", map[string]string{"Accept": "text/event-stream"})
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
			t.Fatalf("GET: %s %s", resp.Status, resp.Header.Get("Content-Type"))
		}
		ch := events(resp)
		if ev, ok := nextEvent(t, ch, 5*time.Second); !ok || ev.data != "" || ev.id == "" {
			t.Fatalf("the stream did not begin with a priming event: %+v", ev)
		}
		streams = append(streams, ch)
	}
	srv.RemoveTool("noop")
	got := 0
	for _, ch := range streams {
		if ev, ok := nextEvent(t, ch, 500*time.Millisecond); ok {
			if !strings.Contains(ev.data, "notifications/tools/list_changed") {
				t.Errorf("unexpected event %+v", ev)
			}
			got++
		}
	}
	if got != 1 {
		t.Fatalf("the list change arrived on %d streams, want exactly 1", got)
	}
}

// A handler may close its POST's stream early (2025-11-25 "SSE polling"):
// the client resumes with GET and Last-Event-ID and reads the answer.
func TestClosedStreamResumesWithLastEventID(t *testing.T) {
	release := make(chan struct{})
	closed := make(chan bool, 1)
	slow := &mcp.Tool{Name: "slow", InputSchema: json.RawMessage(`{"type":"object"}`),
		Call: func(ctx context.Context, _ json.RawMessage) (*mcp.ToolResult, error) {
			closed <- mcp.CloseStream(ctx)
			<-release
			return mcp.TextResult("after the reconnection"), nil
		}}
	_, _, url := serveHTTP(t, mcp.StreamableOptions{RetryAfter: 10 * time.Millisecond}, slow)
	p := &httpPeer{t: t, url: url}
	p.initialize("2025-11-25")
	resp := p.post(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"slow"}}`)
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("a closed stream must be SSE, got %s", ct)
	}
	if !<-closed {
		t.Fatal("CloseStream reported nothing to close")
	}
	var last string
	for ev := range events(resp) {
		if strings.Contains(ev.data, `"id":7`) {
			t.Fatalf("the answer came before the stream was closed: %s", ev.data)
		}
		last = ev.id
	}
	if last == "" {
		t.Fatal("the closed stream carried no event id to resume from")
	}
	close(release)
	again := p.request(context.Background(), "GET", "", map[string]string{"Accept": "text/event-stream", "Last-Event-ID": last})
	if again.StatusCode != 200 {
		t.Fatalf("resuming: %s", again.Status)
	}
	ev, ok := nextEvent(t, events(again), 5*time.Second)
	if !ok || !strings.Contains(ev.data, `"id":7`) || !strings.Contains(ev.data, "after the reconnection") {
		t.Fatalf("resumed stream said %+v, want the answer", ev)
	}
	// Over stdio there is no stream to close.
	if mcp.CloseStream(context.Background()) {
		t.Error("CloseStream outside an HTTP request reported success")
	}
}

// An idle session ends: its id is then 404, and a new initialize works.
func TestIdleSessionsExpire(t *testing.T) {
	_, h, url := serveHTTP(t, mcp.StreamableOptions{IdleTimeout: 50 * time.Millisecond})
	p := &httpPeer{t: t, url: url}
	p.initialize("2025-06-18")
	if n := h.SessionCount(); n != 1 {
		t.Fatalf("%d sessions, want 1", n)
	}
	deadline := time.Now().Add(5 * time.Second)
	for h.SessionCount() != 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	resp := p.post(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("ping on an expired session: %s, want 404", resp.Status)
	}
	p.session = ""
	p.initialize("2025-06-18")
}

// In 2026-07-28 closing the response is how a client cancels: the
// handler's context ends.
func TestModernClosingTheStreamCancels(t *testing.T) {
	cancelled := make(chan struct{})
	wait := &mcp.Tool{Name: "wait", InputSchema: json.RawMessage(`{"type":"object"}`),
		Call: func(ctx context.Context, _ json.RawMessage) (*mcp.ToolResult, error) {
			mcp.Progress(ctx, 1, 0, "waiting")
			<-ctx.Done()
			close(cancelled)
			return nil, ctx.Err()
		}}
	_, _, url := serveHTTP(t, mcp.StreamableOptions{}, wait)
	p := &httpPeer{t: t, url: url}
	ctx, cancel := context.WithCancel(context.Background())
	resp := p.request(ctx, "POST", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"wait","_meta":{"progressToken":1,"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`,
		map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "wait"})
	if ev, ok := nextEvent(t, events(resp), 5*time.Second); !ok || !strings.Contains(ev.data, "notifications/progress") {
		t.Fatalf("first event %+v, want the progress", ev)
	}
	cancel()
	select {
	case <-cancelled:
	case <-time.After(5 * time.Second):
		t.Fatal("closing the stream did not cancel the request")
	}
}

// Sessions are independent: each has its own log level, over one server.
func TestConcurrentSessionsKeepTheirOwnState(t *testing.T) {
	logging := &mcp.Tool{Name: "note", InputSchema: json.RawMessage(`{"type":"object"}`),
		Call: func(ctx context.Context, _ json.RawMessage) (*mcp.ToolResult, error) {
			mcp.Log(ctx, "debug", "t", "a detail")
			return mcp.TextResult("noted"), nil
		}}
	_, h, url := serveHTTP(t, mcp.StreamableOptions{}, logging)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := &httpPeer{t: t, url: url}
			p.initialize("2025-11-25")
			verbose := i%2 == 0
			if verbose {
				p.post(`{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"debug"}}`).Body.Close()
			}
			resp := p.post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"note"}}`)
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if got := strings.Contains(string(body), "a detail"); got != verbose {
				t.Errorf("session %d (debug %v) got the debug message: %v\n%s", i, verbose, got, body)
			}
		}()
	}
	wg.Wait()
	if n := h.SessionCount(); n != 8 {
		t.Errorf("%d sessions alive, want 8", n)
	}
}

// Close lets a running request finish and answer, then refuses new ones.
func TestCloseFinishesInFlightRequests(t *testing.T) {
	started := make(chan struct{})
	slow := &mcp.Tool{Name: "slow", InputSchema: json.RawMessage(`{"type":"object"}`),
		Call: func(ctx context.Context, _ json.RawMessage) (*mcp.ToolResult, error) {
			close(started)
			time.Sleep(200 * time.Millisecond)
			return mcp.TextResult("finished"), nil
		}}
	_, h, url := serveHTTP(t, mcp.StreamableOptions{}, slow)
	p := &httpPeer{t: t, url: url}
	p.initialize("2025-11-25")
	answered := make(chan string, 1)
	go func() {
		resp := p.post(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"slow"}}`)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		answered <- string(body)
	}()
	<-started
	if err := h.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if body := <-answered; !strings.Contains(body, "finished") {
		t.Fatalf("the in-flight request was answered %q", body)
	}
	resp := p.post(`{"jsonrpc":"2.0","id":4,"method":"ping"}`)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("after Close: %s, want 503", resp.Status)
	}
}

// Ending a session (DELETE) while a request runs still answers that
// request's POST once the drain gives up on it.
func TestEndedSessionAnswersItsPendingRequests(t *testing.T) {
	started := make(chan struct{})
	release := make(chan struct{})
	defer close(release)
	// A handler that does not heed its cancellation: only the session can
	// answer for it.
	stuck := &mcp.Tool{Name: "stuck", InputSchema: json.RawMessage(`{"type":"object"}`),
		Call: func(ctx context.Context, _ json.RawMessage) (*mcp.ToolResult, error) {
			close(started)
			<-release
			return nil, ctx.Err()
		}}
	srv, err := mcp.NewServer(mcp.Implementation{Name: "k", Version: "1"}, mcp.Options{DrainTimeout: 50 * time.Millisecond}, &mcp.Toolset{Name: "t", Tools: []*mcp.Tool{stuck}})
	if err != nil {
		t.Fatal(err)
	}
	h := srv.NewStreamableHandler(mcp.StreamableOptions{})
	ts := httptest.NewServer(h)
	defer ts.Close()
	defer h.Close(context.Background())
	p := &httpPeer{t: t, url: ts.URL}
	p.initialize("2025-11-25")
	answered := make(chan *http.Response, 1)
	go func() { answered <- p.post(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"stuck"}}`) }()
	<-started
	resp := p.request(context.Background(), "DELETE", "", nil)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE: %s", resp.Status)
	}
	select {
	case resp := <-answered:
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(body), `"id":5,"error"`) || !strings.Contains(string(body), "the session ended") {
			t.Fatalf("the pending request got %s %q, want its answer", resp.Status, body)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the pending request was never answered")
	}
}

// Modern requests have no session to bound them: the handler bounds how
// many it answers at once and refuses the next with 503.
func TestStatelessRequestsAreBounded(t *testing.T) {
	started := make(chan struct{})
	release := make(chan struct{})
	hold := &mcp.Tool{Name: "hold", InputSchema: json.RawMessage(`{"type":"object"}`),
		Call: func(ctx context.Context, _ json.RawMessage) (*mcp.ToolResult, error) {
			close(started)
			<-release
			return mcp.TextResult("held"), nil
		}}
	_, _, url := serveHTTP(t, mcp.StreamableOptions{MaxStatelessInFlight: 1}, hold)
	p := &httpPeer{t: t, url: url}
	call := func(name string) *http.Response {
		return p.request(context.Background(), "POST", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"`+name+`","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`,
			map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": name})
	}
	first := make(chan *http.Response, 1)
	go func() { first <- call("hold") }()
	<-started
	refused := call("noop")
	refused.Body.Close()
	if refused.StatusCode != http.StatusServiceUnavailable || refused.Header.Get("Retry-After") == "" {
		t.Errorf("a second request at the bound: %s (Retry-After %q), want 503 with Retry-After", refused.Status, refused.Header.Get("Retry-After"))
	}
	close(release)
	if resp := <-first; resp.StatusCode != 200 {
		t.Errorf("the first request: %s", resp.Status)
	} else {
		resp.Body.Close()
	}
	// The turn is given back as the first handler returns, just after its
	// answer is written.
	status := 0
	for deadline := time.Now().Add(5 * time.Second); status != 200 && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		again := call("noop")
		again.Body.Close()
		status = again.StatusCode
	}
	if status != 200 {
		t.Errorf("once the first was answered: %d, want 200", status)
	}
}

// Close drains a modern request as it drains a session: it runs for the
// server's DrainTimeout, then is answered for, and Close returns.
func TestCloseDrainsModernRequests(t *testing.T) {
	started := make(chan struct{})
	release := make(chan struct{})
	stuck := &mcp.Tool{Name: "stuck", InputSchema: json.RawMessage(`{"type":"object"}`),
		Call: func(ctx context.Context, _ json.RawMessage) (*mcp.ToolResult, error) {
			close(started)
			<-release
			return nil, ctx.Err()
		}}
	srv, err := mcp.NewServer(mcp.Implementation{Name: "k", Version: "1"}, mcp.Options{DrainTimeout: 50 * time.Millisecond}, &mcp.Toolset{Name: "t", Tools: []*mcp.Tool{stuck}})
	if err != nil {
		t.Fatal(err)
	}
	h := srv.NewStreamableHandler(mcp.StreamableOptions{})
	ts := httptest.NewServer(h)
	defer ts.Close()
	defer close(release) // before ts.Close, which waits for the POST
	p := &httpPeer{t: t, url: ts.URL}
	answered := make(chan string, 1)
	go func() {
		resp := p.request(context.Background(), "POST", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"stuck","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`,
			map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "stuck"})
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		answered <- string(body)
	}()
	<-started
	// A deadline far beyond the drain: Close must not need it.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := h.Close(ctx); err != nil {
		t.Fatalf("Close: %v (the modern request was not drained)", err)
	}
	if body := <-answered; !strings.Contains(body, `"id":1,"error"`) {
		t.Fatalf("the modern request was answered %q, want the drain's error", body)
	}
}
