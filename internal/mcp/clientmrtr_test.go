package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/kontext-dev/kontext/gen/errcodes"
)

// A modern server that needs the client's roots asks for them in an
// input_required result; the client answers with the repository root and
// retries with the server's requestState.
func TestClientAnswersRootsInAMultiRoundTrip(t *testing.T) {
	tool := &Tool{Name: "roots", InputSchema: json.RawMessage(`{"type":"object"}`), Annotations: Annotations{ReadOnly: Bool(true)},
		Call: func(ctx context.Context, _ json.RawMessage) (*ToolResult, error) {
			roots, err := ListRoots(ctx)
			if err != nil {
				return nil, err
			}
			return TextResult(roots[0].URI), nil
		}}
	srv, err := NewServer(Implementation{Name: "s", Version: "1"}, Options{}, &Toolset{Name: "t", Tools: []*Tool{tool}})
	if err != nil {
		t.Fatal(err)
	}
	serverEnd, clientEnd := NewInMemoryTransport()
	go func() { _ = srv.Serve(context.Background(), serverEnd) }()
	root := t.TempDir()
	c, err := Connect(context.Background(), clientEnd, ClientOptions{Info: Implementation{Name: "c", Version: "1"}, Era: EraModern, Root: root})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	res, err := c.CallTool(context.Background(), "roots", nil)
	if err != nil {
		t.Fatal(err)
	}
	var block struct{ Text string }
	_ = json.Unmarshal(res.Content[0], &block)
	if !strings.HasPrefix(block.Text, "file://") || !strings.HasSuffix(block.Text, root) {
		t.Fatalf("the server saw roots %q, want file://…%s", block.Text, root)
	}
}

// Any other input request fails the call with -32601, as the legacy
// request would be refused; the server is not asked again.
func TestClientRefusesOtherInputRequests(t *testing.T) {
	serverEnd, clientEnd := NewInMemoryTransport()
	calls := make(chan int, 4)
	go func() {
		in := bufio.NewScanner(serverEnd)
		n := 0
		for in.Scan() {
			var m struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			_ = json.Unmarshal(in.Bytes(), &m)
			var result string
			switch m.Method {
			case "server/discover":
				result = `{"resultType":"complete","supportedVersions":["` + ModernVersion + `"],"capabilities":{"tools":{}}}`
			case "tools/call":
				n++
				calls <- n
				result = `{"resultType":"input_required","inputRequests":{"s1":{"method":"sampling/createMessage","params":{"messages":[],"maxTokens":5}}},"requestState":"x"}`
			default:
				continue
			}
			_, _ = serverEnd.Write([]byte(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":` + result + "}\n"))
		}
	}()
	c, err := Connect(context.Background(), clientEnd, ClientOptions{Info: Implementation{Name: "c", Version: "1"}, Era: EraModern})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = c.CallTool(context.Background(), "sample", nil)
	var rpcErr *jsonrpc2.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != errcodes.MethodNotFound || !strings.Contains(rpcErr.Message, "sampling/createMessage") {
		t.Fatalf("err = %v, want -32601 naming sampling/createMessage", err)
	}
	if len(calls) != 1 {
		t.Fatalf("the server was called %d times, want 1", len(calls))
	}
}
