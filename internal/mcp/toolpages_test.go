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

// listOver opens a session in version (a 2026-07-28 one sends no
// initialize, only _meta) and returns the result of a list method.
func listOver(t *testing.T, srv *Server, version, method string) string {
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
	params := ""
	if version == ModernVersion {
		params = `,"params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"` + version + `","io.modelcontextprotocol/clientCapabilities":{}}}`
	} else {
		roundTrip(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + version + `","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	}
	var answer struct {
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	line := roundTrip(`{"jsonrpc":"2.0","id":2,"method":"` + method + `"` + params + `}`)
	if err := json.Unmarshal([]byte(line), &answer); err != nil || answer.Error != nil {
		t.Fatalf("%s in %s answered %s (%v)", method, version, line, err)
	}
	return string(answer.Result)
}

// listsTestServer serves a prompt, a resource and a template whose
// listed resources are whatever *notes holds when resources/list asks.
func listsTestServer(t *testing.T, notes *[]string) *Server {
	t.Helper()
	ts := &Toolset{
		Name:    "t",
		Tools:   []*Tool{cacheTestTool("a")},
		Prompts: []*Prompt{{Name: "p", Title: "P", Description: "a prompt"}},
		Resources: []*Resource{{URI: "t://status", Name: "status", Title: "Status", MIMEType: "text/plain",
			Read: func(context.Context) (*ResourceContents, error) { return &ResourceContents{Text: "ok"}, nil }}},
		Templates: []*ResourceTemplate{{URITemplate: "t://note/{name}", Name: "note", Title: "Note", MIMEType: "text/plain",
			Read: func(context.Context, map[string]string) (*ResourceContents, error) { return nil, nil },
			List: func(context.Context) ([]*Resource, error) {
				var out []*Resource
				for _, n := range *notes {
					out = append(out, &Resource{URI: "t://note/" + n, Name: n})
				}
				return out, nil
			}}},
	}
	srv, err := NewServer(Implementation{Name: "k", Version: "1"}, Options{}, ts)
	if err != nil {
		t.Fatal(err)
	}
	return srv
}

// Every list is served from a page encoded once per revision: a revision
// without titles never gets the titled page, nor a legacy one the
// 2026-07-28 envelope, however the sessions interleave.
func TestListPagesFollowRevisionAndEra(t *testing.T) {
	notes := []string{"one"}
	srv := listsTestServer(t, &notes)
	for _, method := range []string{"tools/list", "prompts/list", "resources/list", "resources/templates/list"} {
		for range 2 { // the second round is served from the cache
			old := listOver(t, srv, "2024-11-05", method)
			titled := listOver(t, srv, "2025-06-18", method)
			modern := listOver(t, srv, ModernVersion, method)
			if strings.Contains(old, `"title"`) || !strings.Contains(titled, `"title"`) {
				t.Errorf("%s: 2024-11-05 listed %s and 2025-06-18 %s: each must have its own shape", method, old, titled)
			}
			if strings.Contains(titled, `"resultType"`) || !strings.Contains(modern, `"resultType":"complete"`) {
				t.Errorf("%s: 2025-06-18 listed %s and %s %s: only the latter has the envelope", method, titled, ModernVersion, modern)
			}
		}
	}
}

// resources/list follows what its templates list even when nobody calls
// ResourcesChanged, and a kept page is served again only for the same
// resources.
func TestResourcesListFollowsTemplateLists(t *testing.T) {
	notes := []string{"one"}
	srv := listsTestServer(t, &notes)
	first := listOver(t, srv, "2025-06-18", "resources/list")
	if !strings.Contains(first, `"uri":"t://note/one"`) {
		t.Fatalf("resources/list answered %s", first)
	}
	notes = append(notes, "two")
	if got := listOver(t, srv, "2025-06-18", "resources/list"); !strings.Contains(got, `"uri":"t://note/two"`) {
		t.Errorf("after a note was added, resources/list answered %s", got)
	}
	notes = notes[:1]
	if got := listOver(t, srv, "2025-06-18", "resources/list"); got != first {
		t.Errorf("with the first notes again, resources/list answered %s, then %s", first, got)
	}
}

// A change to a list drops the pages encoded before it.
func TestListPagesDroppedOnChange(t *testing.T) {
	notes := []string{"one"}
	srv := listsTestServer(t, &notes)
	before := listOver(t, srv, "2025-06-18", "tools/list")
	if err := srv.AddTool(cacheTestTool("b")); err != nil {
		t.Fatal(err)
	}
	after := listOver(t, srv, "2025-06-18", "tools/list")
	if before == after || !strings.Contains(after, `"name":"b"`) {
		t.Errorf("tools/list answered %s before AddTool and %s after", before, after)
	}
}

// A tool's input schema is compiled when the tool is first called, not
// when it is registered; one that does not compile fails its calls (and
// CompileSchemas) and nothing else.
func TestInputSchemasCompileOnFirstCall(t *testing.T) {
	broken := cacheTestTool("broken")
	broken.InputSchema = json.RawMessage(`{"type":"object","properties":{"q":{"type":"string","pattern":"("}}}`)
	srv, err := NewServer(Implementation{Name: "k", Version: "1"}, Options{}, &Toolset{Name: "t", Tools: []*Tool{cacheTestTool("a"), broken}})
	if err != nil {
		t.Fatalf("NewServer refused a schema it need not compile yet: %v", err)
	}
	a, _ := srv.tool("a")
	if a.validator.v != nil {
		t.Fatal("a's schema was compiled before any call")
	}
	serverEnd, clientEnd := NewInMemoryTransport()
	go srv.Serve(context.Background(), serverEnd)
	defer clientEnd.Close()
	lines := bufio.NewScanner(clientEnd)
	roundTrip := func(request string) string {
		if _, err := clientEnd.Write([]byte(request + "\n")); err != nil {
			t.Fatal(err)
		}
		if !lines.Scan() {
			t.Fatalf("no answer to %s", request)
		}
		return lines.Text()
	}
	roundTrip(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if got := roundTrip(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"a","arguments":{}}}`); !strings.Contains(got, `"result"`) {
		t.Errorf("calling a answered %s", got)
	}
	if a.validator.v == nil {
		t.Error("a's schema is not compiled after its call")
	}
	got := roundTrip(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"broken","arguments":{}}}`)
	if !strings.Contains(got, `"code":-32603`) || !strings.Contains(got, "tool broken: input schema does not compile") {
		t.Errorf("calling broken answered %s", got)
	}
	if err := srv.CompileSchemas(); err == nil || !strings.Contains(err.Error(), "tool broken") || strings.Contains(err.Error(), "tool a:") {
		t.Errorf("CompileSchemas returned %v", err)
	}
}

// A schema that is not JSON is still refused when the tool is registered.
func TestInputSchemaNotJSONRefused(t *testing.T) {
	bad := cacheTestTool("bad")
	bad.InputSchema = json.RawMessage(`{"type":`)
	if _, err := NewServer(Implementation{Name: "k", Version: "1"}, Options{}, &Toolset{Name: "t", Tools: []*Tool{bad}}); err == nil || !strings.Contains(err.Error(), "tool bad: input schema is not JSON") {
		t.Errorf("NewServer returned %v", err)
	}
}
