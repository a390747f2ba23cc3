package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// postConn is a conn without framing: the test hands the session one
// message at a time, as streamable HTTP delivers one per POST, and
// collects the answers by token.
type postConn struct {
	in       chan *inbound
	answered chan string // {"token":…,"result" or "error":…}
	noted    chan string

	mu        sync.Mutex
	discarded []uint64
	closed    bool
}

func newPostConn() *postConn {
	return &postConn{in: make(chan *inbound), answered: make(chan string, 8), noted: make(chan string, 8)}
}

func (p *postConn) read() (*inbound, error) {
	in, ok := <-p.in
	if !ok {
		return nil, io.EOF
	}
	return in, nil
}

func (p *postConn) respond(token uint64, member string, body []byte) error {
	p.answered <- fmt.Sprintf(`{"token":%d,%q:%s}`, token, member, body)
	return nil
}

func (p *postConn) discard(token uint64) {
	p.mu.Lock()
	p.discarded = append(p.discarded, token)
	p.mu.Unlock()
}

func (p *postConn) send(related uint64, message []byte) error {
	p.noted <- fmt.Sprintf(`{"related":%d,"message":%s}`, related, message)
	return nil
}

func (p *postConn) nextSent(t *testing.T) string {
	t.Helper()
	select {
	case n := <-p.noted:
		return n
	case <-time.After(10 * time.Second):
		t.Fatal("nothing sent for 10 s")
		return ""
	}
}

func (p *postConn) close() error {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	return nil
}

func (p *postConn) next(t *testing.T) string {
	t.Helper()
	select {
	case a := <-p.answered:
		return a
	case <-time.After(10 * time.Second):
		t.Fatal("no answer for 10 s")
		return ""
	}
}

// The session needs nothing of lineConn: over a conn that delivers
// messages one by one it answers by token, runs tools, and cancels through
// discard.
func TestSessionOverAConnWithoutLines(t *testing.T) {
	started := make(chan struct{})
	tools := []*Tool{
		{Name: "add", Toolset: "t", InputSchema: json.RawMessage(`{"type":"object","properties":{"a":{"type":"integer"},"b":{"type":"integer"}},"required":["a","b"]}`),
			Call: func(_ context.Context, args json.RawMessage) (*ToolResult, error) {
				var in struct{ A, B int }
				if err := json.Unmarshal(args, &in); err != nil {
					return nil, err
				}
				return StructuredResult(map[string]int{"sum": in.A + in.B})
			}},
		{Name: "step", Toolset: "t", InputSchema: json.RawMessage(`{"type":"object"}`),
			Call: func(ctx context.Context, _ json.RawMessage) (*ToolResult, error) {
				Progress(ctx, 1, 2, "half")
				return TextResult("done"), nil
			}},
		{Name: "wait", Toolset: "t", InputSchema: json.RawMessage(`{"type":"object"}`),
			Call: func(ctx context.Context, _ json.RawMessage) (*ToolResult, error) {
				close(started)
				<-ctx.Done()
				return nil, ctx.Err()
			}},
	}
	srv, err := NewServer(Implementation{Name: "k", Version: "1"}, Options{}, &Toolset{Name: "t", Tools: tools})
	if err != nil {
		t.Fatal(err)
	}
	p := newPostConn()
	served := make(chan error, 1)
	go func() { served <- srv.serve(context.Background(), p) }()

	p.in <- &inbound{token: 1, wireID: json.RawMessage(`1`), method: "initialize",
		params: json.RawMessage(`{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}`)}
	if got := p.next(t); !json.Valid([]byte(got)) || got[:20] != `{"token":1,"result":` {
		t.Fatalf("initialize answered %s", got)
	}
	p.in <- &inbound{token: 2, method: "notifications/initialized"}
	p.in <- &inbound{token: 3, wireID: json.RawMessage(`"c"`), method: "tools/call", params: json.RawMessage(`{"name":"add","arguments":{"a":1,"b":2}}`)}
	if got, want := p.next(t), `{"token":3,"result":{"content":[{"type":"text","text":"{\"sum\":3}"}],"structuredContent":{"sum":3}}}`; got != want {
		t.Errorf("tools/call answered\n%s\nwant\n%s", got, want)
	}
	// A call's progress belongs to it: a transport with a stream per
	// request needs the token to write it where its answer goes.
	p.in <- &inbound{token: 9, wireID: json.RawMessage(`9`), method: "tools/call", params: json.RawMessage(`{"name":"step","_meta":{"progressToken":"p"}}`)}
	if got, want := p.nextSent(t), `{"related":9,"message":{"jsonrpc":"2.0","method":"notifications/progress","params":{"message":"half","progress":1,"progressToken":"p","total":2}}}`; got != want {
		t.Errorf("progress sent as\n%s\nwant\n%s", got, want)
	}
	if got := p.next(t); got[:20] != `{"token":9,"result":` {
		t.Errorf("step answered %s", got)
	}
	// A list change belongs to no request.
	srv.RemoveTool("step")
	if got, want := p.nextSent(t), `{"related":0,"message":{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{}}}`; got != want {
		t.Errorf("list change sent as\n%s\nwant\n%s", got, want)
	}
	p.in <- &inbound{token: 4, wireID: json.RawMessage(`-7`), method: "tools/call", params: json.RawMessage(`{"name":"wait"}`)}
	<-started
	p.in <- &inbound{token: 5, method: "notifications/cancelled", params: json.RawMessage(`{"requestId":-7}`)}
	p.in <- &inbound{token: 6, wireID: json.RawMessage(`8`), method: "ping"}
	if got, want := p.next(t), `{"token":6,"result":{}}`; got != want {
		t.Errorf("ping answered %s, want %s", got, want)
	}
	close(p.in)
	if err := <-served; err != nil {
		t.Fatal(err)
	}
	select {
	case a := <-p.answered:
		t.Errorf("a cancelled request was answered: %s", a)
	default:
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.discarded) != 1 || p.discarded[0] != 4 || !p.closed {
		t.Errorf("discarded %v and closed %v, want [4] and true", p.discarded, p.closed)
	}
}

// answerThenSend is a conn whose client sends its next request the moment
// it reads the answer to request 1, and waits for what becomes of it.
type answerThenSend struct {
	*postConn
	next    *inbound
	outcome chan string
}

func (a *answerThenSend) respond(token uint64, member string, body []byte) error {
	answer := fmt.Sprintf(`{"token":%d,%q:%s}`, token, member, body)
	switch token {
	case 1:
		a.in <- a.next
		select {
		case got := <-a.outcome:
			a.answered <- got
		case <-time.After(10 * time.Second):
			a.answered <- "the next request was never answered"
		}
	case a.next.token:
		a.outcome <- answer
	default:
		a.answered <- answer
	}
	return nil
}

// A client that never has more requests unanswered than the session admits
// is never refused: the room a request took is free before its answer is
// written.
func TestAnsweredRequestsMakeRoomBeforeTheAnswer(t *testing.T) {
	release := make(chan struct{})
	tools := []*Tool{
		{Name: "gate", Toolset: "t", InputSchema: json.RawMessage(`{"type":"object"}`),
			Call: func(context.Context, json.RawMessage) (*ToolResult, error) {
				<-release
				return TextResult("opened"), nil
			}},
		{Name: "now", Toolset: "t", InputSchema: json.RawMessage(`{"type":"object"}`),
			Call: func(context.Context, json.RawMessage) (*ToolResult, error) { return TextResult("ok"), nil }},
	}
	// One runs and one waits: two requests fill the session.
	srv, err := NewServer(Implementation{Name: "k", Version: "1"}, Options{MaxInFlight: 1, MaxQueued: 1}, &Toolset{Name: "t", Tools: tools})
	if err != nil {
		t.Fatal(err)
	}
	p := newPostConn()
	c := &answerThenSend{postConn: p, outcome: make(chan string, 1),
		next: &inbound{token: 3, wireID: json.RawMessage(`3`), method: "tools/call", params: json.RawMessage(`{"name":"now"}`)}}
	served := make(chan error, 1)
	go func() { served <- srv.serve(context.Background(), c) }()
	p.in <- &inbound{token: 1, wireID: json.RawMessage(`1`), method: "tools/call", params: json.RawMessage(`{"name":"gate"}`)}
	p.in <- &inbound{token: 2, wireID: json.RawMessage(`2`), method: "tools/call", params: json.RawMessage(`{"name":"now"}`)}
	// The session reads in order: once it takes the ping, request 2 has
	// been admitted and waits behind the gate.
	p.in <- &inbound{token: 9, wireID: json.RawMessage(`9`), method: "ping"}
	if got, want := p.next(t), `{"token":9,"result":{}}`; got != want {
		t.Fatalf("ping answered %s", got)
	}
	close(release)
	// Requests 2 and 3 run in either order; what matters is that both run.
	got := []string{p.next(t), p.next(t)}
	slices.Sort(got)
	want := []string{
		`{"token":2,"result":{"content":[{"type":"text","text":"ok"}]}}`,
		`{"token":3,"result":{"content":[{"type":"text","text":"ok"}]}}`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("after the first answer, requests 2 and 3 got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	close(p.in)
	if err := <-served; err != nil {
		t.Fatal(err)
	}
}
