package mcp_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/kontext-dev/kontext/internal/fsroot"
	"github.com/kontext-dev/kontext/internal/mcp"
	"github.com/kontext-dev/kontext/internal/mcptest"
)

// FuzzSession feeds arbitrary bytes to a server session, as a client's
// stdin would, and checks that the server neither panics nor hangs, and
// writes nothing but JSON-RPC: every output line is a JSON object with
// "jsonrpc":"2.0", or a non-empty array of them.
func FuzzSession(f *testing.F) {
	seeds := []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"f","version":"1"}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x","repeat":2}}}`,
		`{"jsonrpc":"2.0","id":"s","method":"tools/call","params":{"name":"sleep","arguments":{"ms":50,"steps":5},"_meta":{"progressToken":1}}}` + "\n" + `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"s"}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"x"},{}]`,
		`{"jsonrpc":"2.0","id":-1,"method":"tools/list","params":{"cursor":"eyJsIjoidG9vbHMiLCJvIjo1fQ"}}`,
		`{"jsonrpc":"2.0","id":3,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true,"resourceSubscriptions":["testkit://status"]},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`,
		`{"jsonrpc":"2.0","id":5,"method":"resources/read","params":{"uri":"testkit://note/%2e%2e"}}`,
		`{"jsonrpc":"2.0","id":6,"result":{}}`,
		"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"}\r\n\n\n[",
		`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"choose","arguments":{"color":"red","tags":"a,,b","point":{"x":1,"y":2}}}}`,
		"\x00\xff{",
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	root, err := fsroot.Open(f.TempDir())
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, input []byte) {
		kit := mcptest.New(root)
		srv, err := mcp.NewServer(mcp.Implementation{Name: "kontext", Version: "fuzz"},
			mcp.Options{RequestTimeout: 200 * time.Millisecond, DrainTimeout: 300 * time.Millisecond, PageSize: 2, MaxMessageBytes: 4096},
			kit.Toolset())
		if err != nil {
			t.Fatal(err)
		}
		kit.Attach(srv)
		serverEnd, clientEnd := mcp.NewInMemoryTransport()
		done := make(chan struct{})
		go func() {
			srv.Serve(context.Background(), serverEnd)
			serverEnd.Close()
			close(done)
		}()
		var out bytes.Buffer
		read := make(chan struct{})
		go func() {
			out.ReadFrom(clientEnd)
			close(read)
		}()
		clientEnd.Write(input)
		clientEnd.Close()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatalf("the session did not end within 10 s of the end of input %q", input)
		}
		<-read
		sc := bufio.NewScanner(&out)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			line := sc.Bytes()
			if !validJSONRPC(line) {
				t.Fatalf("the server wrote a line that is not JSON-RPC: %q (input %q)", line, input)
			}
		}
	})
}

func validJSONRPC(line []byte) bool {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return false
	}
	if line[0] == '[' {
		var batch []json.RawMessage
		if json.Unmarshal(line, &batch) != nil || len(batch) == 0 {
			return false
		}
		for _, m := range batch {
			if !validJSONRPC(m) {
				return false
			}
		}
		return true
	}
	var m struct {
		JSONRPC string `json:"jsonrpc"`
	}
	return line[0] == '{' && json.Unmarshal(line, &m) == nil && m.JSONRPC == "2.0"
}
