package interop_test

// Coverage for the schema validation beyond the happy paths of the client
// tests: the older legacy revisions (through the Go SDK, which can ask for
// each) and the server's protocol errors (through raw JSON-RPC lines).

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestGoSDKOlderRevisions has the Go SDK negotiate each older legacy
// revision and exercises every list, read and call method, so that the
// revision-specific shapes kontext sends (no titles before 2025-06-18, no
// structured content before 2025-06-18, no annotations before 2025-03-26)
// are validated against that revision's schema.
func TestGoSDKOlderRevisions(t *testing.T) {
	requireSetup(t)
	for _, run := range []struct {
		rev     string
		connect goSDKConnector
	}{
		{"2024-11-05", goSDKConnect}, {"2025-03-26", goSDKConnect}, {"2025-06-18", goSDKConnect},
		// The first revision with streamable HTTP, over it.
		{"2025-03-26/http", goSDKConnectHTTP},
	} {
		rev, _, _ := strings.Cut(run.rev, "/")
		t.Run(run.rev, func(t *testing.T) {
			root := t.TempDir()
			traces := t.TempDir()
			t.Run("checks", func(t *testing.T) {
				client := mcp.NewClient(&mcp.Implementation{Name: "kontext-interop-go-sdk", Version: "1.0.0"}, &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}})
				cs := run.connect(t, client, root, traceFile(traces, "server"), rev)
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				defer cancel()
				if got := cs.InitializeResult().ProtocolVersion; got != rev {
					t.Fatalf("negotiated %q, want %q", got, rev)
				}
				tools, err := cs.ListTools(ctx, nil)
				if err != nil {
					t.Fatal(err)
				}
				var names []string
				for _, tool := range tools.Tools {
					names = append(names, tool.Name)
					if rev < "2025-06-18" && (tool.Title != "" || tool.OutputSchema != nil) {
						t.Errorf("%s: %s carries title %q / outputSchema %v, which %s does not define", tool.Name, rev, tool.Title, tool.OutputSchema, rev)
					}
					if rev < "2025-03-26" && tool.Annotations != nil {
						t.Errorf("%s: annotations in %s", tool.Name, rev)
					}
				}
				sort.Strings(names)
				if !slices.Equal(names, testkitTools) {
					t.Errorf("tools %v", names)
				}
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "add", Arguments: map[string]any{"a": 1, "b": 1}})
				if err != nil || res.IsError {
					t.Fatalf("add: %v %+v", err, res)
				}
				if (res.StructuredContent != nil) != (rev >= "2025-06-18") {
					t.Errorf("add in %s: structuredContent %v", rev, res.StructuredContent)
				}
				if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "write_note", Arguments: map[string]any{"name": "n1", "text": "t"}}); err != nil {
					t.Fatal(err)
				}
				if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{}}); err == nil {
					t.Error("echo without text succeeded")
				}
				if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "no-such-tool"}); err == nil {
					t.Error("an unknown tool succeeded")
				}
				if _, err := cs.ListPrompts(ctx, nil); err != nil {
					t.Error(err)
				}
				if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greet", Arguments: map[string]string{"who": "x"}}); err != nil {
					t.Error(err)
				}
				if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greet"}); err == nil {
					t.Error("greet without who succeeded")
				}
				list, err := cs.ListResources(ctx, nil)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.ContainsFunc(list.Resources, func(r *mcp.Resource) bool { return r.URI == "testkit://note/n1" }) {
					t.Errorf("testkit://note/n1 is not listed after write_note")
				}
				if _, err := cs.ListResourceTemplates(ctx, nil); err != nil {
					t.Error(err)
				}
				if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "testkit://note/n1"}); err != nil {
					t.Error(err)
				}
				if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "testkit://note/none"}); err == nil {
					t.Error("reading a missing note succeeded")
				}
				if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "debug"}); err != nil {
					t.Error(err)
				}
				if err := cs.Ping(ctx, nil); err != nil {
					t.Error(err)
				}
			})
			logs := readTraces(t, tracesIn(t, traces))
			t.Run("wire", func(t *testing.T) {
				checkPairing(t, logs)
				for _, l := range logs {
					for _, r := range l.Requests {
						if r.Revision != rev {
							t.Errorf("%s served as %s, want %s", r.Method, r.Revision, rev)
						}
					}
				}
			})
			t.Run("schema", func(t *testing.T) { validateWire(t, logs) })
		})
	}
}

// TestServerErrorsOnTheWire sends kontext-testkit raw JSON-RPC lines that
// it must refuse — malformed JSON, invalid requests, unknown methods, an
// unsupported modern revision, a modern request without client
// capabilities, a batch — and validates every answer against the schema of
// the session's revision.
func TestServerErrorsOnTheWire(t *testing.T) {
	requireSetup(t)
	const caps = `"io.modelcontextprotocol/clientCapabilities":{}`
	const v = `"io.modelcontextprotocol/protocolVersion":"2026-07-28"`
	sessions := []struct {
		name  string
		lines []string
		want  map[string]int64 // id -> error code (0: a result)
		// wantNull are the codes of the errors answered with id null (lines
		// whose id could not be read), sorted.
		wantNull []int64
	}{
		{
			name: "modern",
			lines: []string{
				`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{` + v + `,` + caps + `}}}`,
				`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01",` + caps + `}}}`,
				`{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"_meta":{` + v + `}}}`,
				`{"jsonrpc":"2.0","id":4,"method":"ping","params":{"_meta":{` + v + `,` + caps + `}}}`,
				`{"jsonrpc":"2.0","id":5,"method":"no/such/method","params":{"_meta":{` + v + `,` + caps + `}}}`,
				`{"jsonrpc":"2.0","id":6,"method":"resources/read","params":{"_meta":{` + v + `,` + caps + `},"uri":"testkit://note/missing"}}`,
				`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"_meta":{` + v + `,` + caps + `},"name":"no-such-tool"}}`,
				`{"jsonrpc":"2.0","id":8,"method":"prompts/get","params":{"_meta":{` + v + `,` + caps + `},"name":"greet"}}`,
				`{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{"_meta":{` + v + `,` + caps + `},"cursor":"bogus"}}`,
				`[{"jsonrpc":"2.0","id":10,"method":"prompts/list","params":{"_meta":{` + v + `,` + caps + `}}},{"jsonrpc":"2.0","id":11,"method":"resources/templates/list","params":{"_meta":{` + v + `,` + caps + `}}}]`,
				`{"jsonrpc":"2.0","id":12,"method":"resources/list","params":{"_meta":{` + v + `,` + caps + `}}}`,
			},
			want: map[string]int64{"1": 0, "2": -32022, "3": -32602, "4": -32601, "5": -32601, "6": -32602, "7": -32602, "8": -32602, "9": -32602, "10": 0, "11": 0, "12": 0},
		},
		{
			name: "legacy",
			lines: []string{
				`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"1999-01-01","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`,
				`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
				`{"jsonrpc":"2.0","id":2,"method":"server/discover"}`,
				`{"jsonrpc":"2.0","id":3,"method":"logging/setLevel","params":{"level":"loud"}}`,
				`{"jsonrpc":"2.0","id":4,"method":"resources/subscribe","params":{"uri":"testkit://nothing"}}`,
				`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x","repeat":9}}}`,
				`{"jsonrpc":"2.0","id":6,"method":"ping"}`,
			},
			want: map[string]int64{"1": 0, "2": -32601, "3": -32602, "4": -32602, "5": -32602, "6": 0},
		},
		{
			// Lines that cannot be requests: the server answers without an
			// id it could read.
			name: "malformed",
			lines: []string{
				`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`,
				`{not json`,
				`{"jsonrpc":"2.0","id":2}`,
				`{"jsonrpc":"1.0","id":3,"method":"ping"}`,
				`[]`,
			},
			want:     map[string]int64{"1": 0, "2": -32600, "3": -32600},
			wantNull: []int64{-32700, -32600}, // {not json, []
		},
	}
	for _, s := range sessions {
		t.Run(s.name, func(t *testing.T) {
			root := t.TempDir()
			traces := t.TempDir()
			t.Run("answers", func(t *testing.T) {
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				defer cancel()
				cmd := exec.CommandContext(ctx, testkitBin, testkitArgs(root)...)
				cmd.Env = append(os.Environ(), "KONTEXT_TRACE="+traceFile(traces, "server"))
				cmd.Stdin = strings.NewReader(strings.Join(s.lines, "\n") + "\n")
				stderr := &syncBuffer{}
				cmd.Stderr = stderr
				logOnFailure(t, "kontext-testkit", stderr)
				out, err := cmd.Output()
				if err != nil {
					t.Fatalf("kontext-testkit: %v", err)
				}
				got := map[string]int64{}
				var gotNull []int64
				sc := bufio.NewScanner(bytes.NewReader(out))
				sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
				for sc.Scan() {
					var members []json.RawMessage
					line := sc.Bytes()
					if len(line) > 0 && line[0] == '[' {
						if err := json.Unmarshal(line, &members); err != nil {
							t.Fatalf("stdout: %v: %s", err, line)
						}
					} else {
						members = []json.RawMessage{append(json.RawMessage(nil), line...)}
					}
					for _, m := range members {
						var r struct {
							ID     json.RawMessage `json:"id"`
							Method string          `json:"method"`
							Error  *struct {
								Code int64 `json:"code"`
							} `json:"error"`
						}
						if err := json.Unmarshal(m, &r); err != nil {
							t.Fatalf("stdout: %v: %s", err, m)
						}
						if r.Method != "" {
							continue // a notification
						}
						code := int64(0)
						if r.Error != nil {
							code = r.Error.Code
						}
						if id := string(r.ID); id != "" && id != "null" {
							got[id] = code
						} else {
							gotNull = append(gotNull, code)
						}
					}
				}
				for id, want := range s.want {
					code, ok := got[id]
					switch {
					case !ok:
						t.Errorf("request %s was not answered", id)
					case code != want:
						t.Errorf("request %s: code %d, want %d", id, code, want)
					}
				}
				slices.Sort(gotNull)
				if !slices.Equal(gotNull, s.wantNull) {
					t.Errorf("errors answered with id null: codes %v, want %v", gotNull, s.wantNull)
				}
			})
			logs := readTraces(t, tracesIn(t, traces))
			t.Run("schema", func(t *testing.T) { validateWire(t, logs) })
		})
	}
}
