package repo

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kontext-dev/kontext/internal/mcp"
)

// TestProgressOnTerminal: a cold analysis draws its phases on the
// terminal line and clears it at the end.
func TestProgressOnTerminal(t *testing.T) {
	f := newRepo(t, layeredApp)
	opts := testOptions(t)
	var term bytes.Buffer
	opts.NoTerminal, opts.Terminal = false, &term
	e := newEngine(t, opts)
	snapshot(t, e, f.dir)
	out := term.String()
	for _, want := range []string{"listing files", "parsing", "of 21 files", "source files", "reading git history", "roles"} {
		if !strings.Contains(out, want) {
			t.Errorf("the progress line never said %q:\n%q", want, out)
		}
	}
	if !strings.HasSuffix(out, "\r\x1b[K") {
		t.Errorf("the progress line is not cleared at the end: %q", out[max(0, len(out)-40):])
	}
}

// TestProgressOverMCP: a tool call that starts the analysis, with a
// progressToken, receives notifications/progress with a growing progress
// and the phase as message; without a token it receives none.
func TestProgressOverMCP(t *testing.T) {
	f := newRepo(t, layeredApp)
	e := newEngine(t, testOptions(t))
	ts := &mcp.Toolset{Name: "test", Tools: []*mcp.Tool{{
		Name: "analyse", Toolset: "test", InputSchema: json.RawMessage(`{"type":"object"}`),
		Call: func(ctx context.Context, _ json.RawMessage) (*mcp.ToolResult, error) {
			snap, err := e.Snapshot(ctx, f.dir)
			if err != nil {
				return nil, err
			}
			return mcp.TextResult(fmt.Sprint(len(snap.Graph.Files))), nil
		},
	}}}
	srv, err := mcp.NewServer(mcp.Implementation{Name: "t", Version: "1"}, mcp.Options{}, ts)
	if err != nil {
		t.Fatal(err)
	}
	serverEnd, clientEnd := mcp.NewInMemoryTransport()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go srv.Serve(ctx, serverEnd)
	defer clientEnd.Close()
	lines := bufio.NewScanner(clientEnd)
	lines.Buffer(make([]byte, 1<<20), 1<<20)
	send := func(s string) {
		if _, err := clientEnd.Write([]byte(s + "\n")); err != nil {
			t.Fatal(err)
		}
	}
	// read returns the notifications up to the response to id.
	read := func(id int) (notes []map[string]any) {
		deadline := time.AfterFunc(30*time.Second, func() { clientEnd.Close() })
		defer deadline.Stop()
		for lines.Scan() {
			var msg map[string]any
			if err := json.Unmarshal(lines.Bytes(), &msg); err != nil {
				t.Fatal(err)
			}
			if msg["method"] == "notifications/progress" {
				notes = append(notes, msg["params"].(map[string]any))
			}
			if v, ok := msg["id"].(float64); ok && int(v) == id {
				if msg["error"] != nil {
					t.Fatalf("error: %v", msg["error"])
				}
				return notes
			}
		}
		t.Fatal("no response")
		return nil
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	read(1)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"analyse","arguments":{},"_meta":{"progressToken":"p1"}}}`)
	notes := read(2)
	if len(notes) < 3 {
		t.Fatalf("%d progress notifications for a cold analysis, want several: %v", len(notes), notes)
	}
	last := -1.0
	var messages []string
	for _, n := range notes {
		if n["progressToken"] != "p1" {
			t.Fatalf("progress for token %v", n["progressToken"])
		}
		p := n["progress"].(float64)
		if p <= last {
			t.Fatalf("progress went from %v to %v", last, p)
		}
		last = p
		if n["total"] != 100.0 {
			t.Fatalf("total %v", n["total"])
		}
		messages = append(messages, n["message"].(string))
	}
	all := strings.Join(messages, " | ")
	for _, want := range []string{"parsing", "reading git history"} {
		if !strings.Contains(all, want) {
			t.Errorf("no %q among the progress messages: %s", want, all)
		}
	}

	// A change, then a call without a token: no notifications.
	f.write(map[string]string{"src/domain/order.ts": "export const progress = 1;\n"})
	send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"analyse","arguments":{}}}`)
	if notes := read(3); len(notes) != 0 {
		t.Fatalf("progress without a progressToken: %v", notes)
	}
}
