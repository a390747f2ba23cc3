package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

// A flood of tool calls runs at most MaxInFlight handlers at once; MaxQueued
// more wait for a turn, and the rest are refused at once with -32603 and
// data.maxInFlight. A queued request that is cancelled never runs.
func TestRequestsInFlightAreBoundedPerSession(t *testing.T) {
	const maxInFlight, maxQueued, flood = 4, 8, 20
	var running, peak, calls atomic.Int64
	var started sync.Map // wire keys of the requests whose handler ran
	gate := make(chan struct{})
	tool := &Tool{
		Name:        "block",
		InputSchema: json.RawMessage(`{"type":"object"}`),
		Annotations: Annotations{ReadOnly: Bool(true)},
		Call: func(ctx context.Context, _ json.RawMessage) (*ToolResult, error) {
			calls.Add(1)
			started.Store(callFrom(ctx).key, true)
			n := running.Add(1)
			defer running.Add(-1)
			for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
			}
			select {
			case <-gate:
			case <-ctx.Done():
			}
			return TextResult("done"), nil
		},
	}
	srv, err := NewServer(Implementation{Name: "t", Version: "1"}, Options{MaxInFlight: maxInFlight, MaxQueued: maxQueued},
		&Toolset{Name: "t", Tools: []*Tool{tool}})
	if err != nil {
		t.Fatal(err)
	}
	serverEnd, clientEnd := NewInMemoryTransport()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(context.Background(), serverEnd) }()
	send := func(line string) {
		if _, err := clientEnd.Write([]byte(line + "\n")); err != nil {
			t.Fatal(err)
		}
	}
	answers := bufio.NewScanner(clientEnd)
	answers.Buffer(nil, 1<<20)
	read := func() map[string]any {
		if !answers.Scan() {
			t.Fatalf("the server stopped answering: %v", answers.Err())
		}
		var m map[string]any
		if err := json.Unmarshal(answers.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	read()
	for i := 1; i <= flood; i++ {
		send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"block","arguments":{}}}`, i))
	}
	// The handlers that got a turn block on the gate; wait for them
	// without a clock.
	for running.Load() < maxInFlight {
		runtime.Gosched()
	}
	// The requests beyond the queue are refused at once, while the others
	// still run or wait, and ping is answered on the read loop meanwhile.
	refused := map[float64]bool{}
	for range flood - maxInFlight - maxQueued {
		m := read()
		e, _ := m["error"].(map[string]any)
		data, _ := e["data"].(map[string]any)
		if e == nil || e["code"].(float64) != -32603 || data["maxInFlight"].(float64) != maxInFlight {
			t.Fatalf("a request beyond the bound got %v, want -32603 with data.maxInFlight", m)
		}
		refused[m["id"].(float64)] = true
	}
	send(`{"jsonrpc":"2.0","id":"p","method":"ping"}`)
	if m := read(); m["id"] != "p" {
		t.Fatalf("ping answered %v", m)
	}
	// Cancel one that waits: it never runs and is never answered.
	var queuedID float64
	for i := flood; i > 0; i-- {
		if _, ran := started.Load(fmt.Sprintf("n:%d", i)); !ran && !refused[float64(i)] {
			queuedID = float64(i)
			break
		}
	}
	send(fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%d}}`, int(queuedID)))
	// The read loop handles lines in order: once ping is answered, the
	// cancellation has been seen.
	send(`{"jsonrpc":"2.0","id":"p2","method":"ping"}`)
	if m := read(); m["id"] != "p2" {
		t.Fatalf("ping answered %v", m)
	}
	close(gate)
	done := 0
	for done < maxInFlight+maxQueued-1 {
		m := read()
		if m["id"] == queuedID {
			t.Fatalf("the cancelled request was answered: %v", m)
		}
		if _, ok := m["result"]; !ok {
			t.Fatalf("a queued request got %v", m)
		}
		done++
	}
	clientEnd.Close()
	if err := <-served; err != nil {
		t.Fatal(err)
	}
	if p := peak.Load(); p != maxInFlight {
		t.Errorf("%d handlers ran at once, want %d", p, maxInFlight)
	}
	if c := calls.Load(); c != maxInFlight+maxQueued-1 {
		t.Errorf("%d handlers ran, want %d (the cancelled one never)", c, maxInFlight+maxQueued-1)
	}
}
