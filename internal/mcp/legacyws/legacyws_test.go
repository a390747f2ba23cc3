package legacyws

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/kontext-dev/kontext/internal/mcp"
)

func serve(t *testing.T) string {
	t.Helper()
	echo := &mcp.Tool{Name: "echo", InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}}}`), Annotations: mcp.Annotations{ReadOnly: mcp.Bool(true)},
		Call: func(_ context.Context, args json.RawMessage) (*mcp.ToolResult, error) {
			var in struct{ Text string }
			_ = json.Unmarshal(args, &in)
			return mcp.TextResult(in.Text), nil
		}}
	srv, err := mcp.NewServer(mcp.Implementation{Name: "ws", Version: "1"}, mcp.Options{}, &mcp.Toolset{Name: "t", Tools: []*mcp.Tool{echo}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	hs := httptest.NewServer(Handler(ctx, srv))
	t.Cleanup(func() { cancel(); hs.Close() })
	return "ws" + strings.TrimPrefix(hs.URL, "http")
}

// kontext's own client negotiates and calls over the channel.
func TestDialNegotiatesAndCalls(t *testing.T) {
	url := serve(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := Dial(ctx, url, "", mcp.ClientOptions{Info: mcp.Implementation{Name: "c", Version: "1"}, Era: mcp.EraLegacy})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	res, err := c.CallTool(ctx, "echo", map[string]string{"text": "über the wire"})
	if err != nil {
		t.Fatal(err)
	}
	var block struct{ Text string }
	_ = json.Unmarshal(res.Content[0], &block)
	if block.Text != "über the wire" {
		t.Fatalf("echo answered %q", block.Text)
	}
}

// One frame is one message, pretty-printed or not; a frame that is not
// JSON gets a parse error and the session goes on.
func TestFramesAreMessages(t *testing.T) {
	url := serve(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, _, err := websocket.Dial(ctx, url, &websocket.DialOptions{Subprotocols: []string{Subprotocol}})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.CloseNow()
	exchange := func(frame string) map[string]any {
		t.Helper()
		if err := conn.Write(ctx, websocket.MessageText, []byte(frame)); err != nil {
			t.Fatal(err)
		}
		_, msg, err := conn.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.IndexByte(msg, '\n') >= 0 {
			t.Errorf("a frame written holds a newline: %q", msg)
		}
		var m map[string]any
		if err := json.Unmarshal(msg, &m); err != nil {
			t.Fatalf("frame %q: %v", msg, err)
		}
		return m
	}
	init := exchange("{\n  \"jsonrpc\": \"2.0\",\n  \"id\": 1,\n  \"method\": \"initialize\",\n  \"params\": {\"protocolVersion\": \"2025-11-25\", \"capabilities\": {}, \"clientInfo\": {\"name\": \"raw\", \"version\": \"1\"}}\n}")
	if init["result"] == nil {
		t.Fatalf("a pretty-printed initialize: %v", init)
	}
	if bad := exchange("not json"); bad["error"] == nil || bad["error"].(map[string]any)["code"].(float64) != -32700 {
		t.Fatalf("a frame that is not JSON: %v", bad)
	}
	if ping := exchange(`{"jsonrpc":"2.0","id":2,"method":"ping"}`); ping["result"] == nil {
		t.Fatalf("ping after a bad frame: %v", ping)
	}
}

func FuzzFrameLine(f *testing.F) {
	for _, seed := range []string{"", " ", "{}", "{\n}", "{\"a\":\n1}", "x\ny", "\n\n", "{\"s\":\"a\\nb\"}"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, frame []byte) {
		line := frameLine(frame)
		if line == nil {
			if len(bytes.TrimSpace(frame)) != 0 {
				t.Fatalf("a frame with content %q was dropped", frame)
			}
			return
		}
		if bytes.IndexByte(line[:len(line)-1], '\n') >= 0 || line[len(line)-1] != '\n' {
			t.Fatalf("frame %q became %q, not one line", frame, line)
		}
		if json.Valid(bytes.TrimSpace(frame)) && !json.Valid(line) {
			t.Fatalf("valid JSON %q became invalid %q", frame, line)
		}
	})
}
