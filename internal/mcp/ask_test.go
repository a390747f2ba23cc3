package mcp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
)

// A request of the server belongs to the call that asked: a transport
// with a stream per request (streamable HTTP) writes it, and the
// cancellation of it, where the client reads that call's answer; the
// client's response comes back as an inbound response.
func TestAskIsSentOnTheCallersStream(t *testing.T) {
	asked := make(chan struct{}, 1)
	tools := []*Tool{{Name: "roots", Toolset: "t", InputSchema: json.RawMessage(`{"type":"object"}`),
		Call: func(ctx context.Context, _ json.RawMessage) (*ToolResult, error) {
			asked <- struct{}{}
			roots, err := ListRoots(ctx)
			if err != nil {
				return nil, err
			}
			return TextResult(roots[0].URI), nil
		}}}
	srv, err := NewServer(Implementation{Name: "k", Version: "1"}, Options{}, &Toolset{Name: "t", Tools: tools})
	if err != nil {
		t.Fatal(err)
	}
	p := newPostConn()
	served := make(chan error, 1)
	go func() { served <- srv.serve(context.Background(), p) }()
	p.in <- &inbound{token: 1, wireID: json.RawMessage(`1`), method: "initialize",
		params: json.RawMessage(`{"protocolVersion":"2025-11-25","capabilities":{"roots":{}},"clientInfo":{"name":"t","version":"1"}}`)}
	p.next(t)
	p.in <- &inbound{token: 7, wireID: json.RawMessage(`"r"`), method: "tools/call", params: json.RawMessage(`{"name":"roots"}`)}
	<-asked
	if got, want := p.nextSent(t), `{"related":7,"message":{"jsonrpc":"2.0","id":1,"method":"roots/list"}}`; got != want {
		t.Fatalf("roots/list sent as\n%s\nwant\n%s", got, want)
	}
	p.in <- &inbound{response: &wireMessage{ID: json.RawMessage(`1`), Result: json.RawMessage(`{"roots":[{"uri":"file:///r"}]}`)}}
	if got := p.next(t); !strings.Contains(got, `"token":7`) || !strings.Contains(got, "file:///r") {
		t.Errorf("the call answered %s, want the root", got)
	}
	// Cancelled by the client: the server's request is cancelled on the same stream.
	p.in <- &inbound{token: 8, wireID: json.RawMessage(`"s"`), method: "tools/call", params: json.RawMessage(`{"name":"roots"}`)}
	<-asked
	p.nextSent(t)
	p.in <- &inbound{token: 9, method: "notifications/cancelled", params: json.RawMessage(`{"requestId":"s"}`)}
	if got, want := p.nextSent(t), `{"related":8,"message":{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"reason":"the request that asked was cancelled","requestId":2}}}`; got != want {
		t.Errorf("cancellation sent as\n%s\nwant\n%s", got, want)
	}
	close(p.in)
	if err := <-served; err != nil {
		t.Fatal(err)
	}
}

// requestState opens only unaltered, for the request it was sealed for.
func TestRequestStateIntegrity(t *testing.T) {
	answers := map[string]json.RawMessage{"k": json.RawMessage(`{"action":"accept"}`)}
	state := sealState("tools/call", "t", answers)
	if got, ok := openState(state, "tools/call", "t"); !ok || string(got["k"]) != `{"action":"accept"}` {
		t.Fatalf("a sealed state did not open: %v %v", got, ok)
	}
	body, mac, _ := cutState(state)
	forged := sealedState{Method: "tools/call", Target: "t", Answers: map[string]json.RawMessage{"k": json.RawMessage(`{"action":"decline"}`)}}
	raw, _ := json.Marshal(forged)
	for name, s := range map[string]string{
		"altered body":   body[:len(body)-1] + "A." + mac,
		"altered mac":    body + "." + mac[:len(mac)-2] + "AA",
		"forged answers": base64.RawURLEncoding.EncodeToString(raw) + "." + mac,
		"no mac":         body,
		"appended":       state + "-TAMPERED",
	} {
		if _, ok := openState(s, "tools/call", "t"); ok {
			t.Errorf("%s: opened", name)
		}
	}
	if _, ok := openState(state, "prompts/get", "t"); ok {
		t.Error("a tools/call state opened for prompts/get")
	}
	if _, ok := openState(state, "tools/call", "other"); ok {
		t.Error("a state of tool t opened for another tool")
	}
}
