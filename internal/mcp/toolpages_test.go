package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// listToolsOver opens a session that negotiates version and returns its
// tools/list result.
func listToolsOver(t *testing.T, srv *Server, version string) string {
	t.Helper()
	serverEnd, clientEnd := NewInMemoryTransport()
	done := make(chan struct{})
	go func() {
		srv.Serve(context.Background(), serverEnd)
		serverEnd.Close()
		close(done)
	}()
	defer func() { clientEnd.Close(); <-done }()
	lines := bufio.NewScanner(clientEnd)
	lines.Buffer(nil, 1<<20)
	roundTrip := func(request string) string {
		if _, err := clientEnd.Write([]byte(request + "\n")); err != nil {
			t.Fatal(err)
		}
		if !lines.Scan() {
			t.Fatalf("no answer to %s", request)
		}
		return lines.Text()
	}
	roundTrip(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + version + `","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	var answer struct {
		Result json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal([]byte(roundTrip(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)), &answer); err != nil {
		t.Fatal(err)
	}
	return string(answer.Result)
}

func cacheTestTool(name string) *Tool {
	return &Tool{Name: name, Toolset: "t", Title: "T " + name, Description: "d", InputSchema: json.RawMessage(`{"type":"object"}`),
		Call: func(context.Context, json.RawMessage) (*ToolResult, error) { return TextResult(""), nil }}
}

// A cached tools/list result is only ever served for the revision and the
// list it was encoded for.
func TestToolsListCacheFollowsRevisionAndChanges(t *testing.T) {
	srv, err := NewServer(Implementation{Name: "k", Version: "1"}, Options{}, &Toolset{Name: "t", Tools: []*Tool{cacheTestTool("a")}})
	if err != nil {
		t.Fatal(err)
	}
	old := listToolsOver(t, srv, "2024-11-05")
	titled := listToolsOver(t, srv, "2025-06-18")
	if strings.Contains(old, `"title"`) || !strings.Contains(titled, `"title":"T a"`) {
		t.Errorf("2024-11-05 listed %s and 2025-06-18 %s: each must have its own shape", old, titled)
	}
	if again := listToolsOver(t, srv, "2024-11-05"); again != old {
		t.Errorf("listed %s, then %s", old, again)
	}
	if err := srv.AddTool(cacheTestTool("b")); err != nil {
		t.Fatal(err)
	}
	if got := listToolsOver(t, srv, "2025-06-18"); !strings.Contains(got, `"name":"b"`) {
		t.Errorf("after AddTool, tools/list answered %s", got)
	}
	srv.RemoveTool("a")
	if got := listToolsOver(t, srv, "2024-11-05"); strings.Contains(got, `"name":"a"`) || !strings.Contains(got, `"name":"b"`) {
		t.Errorf("after RemoveTool, tools/list answered %s", got)
	}
}
