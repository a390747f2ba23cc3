package adapters

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/kontext-dev/kontext/internal/mcp"
)

// The test binary doubles as the programs adapters start: an MCP server
// over stdio (built from kontext's own server) and a command-line tool.
// KONTEXT_ADAPTER_HELPER chooses which.
func TestMain(m *testing.M) {
	switch os.Getenv("KONTEXT_ADAPTER_HELPER") {
	case "mcp":
		if f := os.Getenv("HELPER_STARTED"); f != "" {
			_ = os.WriteFile(f, []byte("started"), 0o600)
		}
		srv := helperServer()
		_ = srv.ServeStdio(context.Background())
		os.Exit(0)
	case "command":
		helperCommand(os.Args[1:])
		os.Exit(0)
	case "raw":
		rawServer()
		os.Exit(0)
	case "fail":
		fmt.Fprintln(os.Stderr, "fatal: token "+os.Getenv("HELPER_SECRET")+" was refused")
		os.Exit(3)
	}
	os.Exit(m.Run())
}

// helperServer is a small knowledge-graph server: search_nodes answers in
// server-memory's shape, the other tools ask the client for its roots, for
// a model's message or for input, hang, or kill the process.
func helperServer() *mcp.Server {
	ro := mcp.Annotations{ReadOnly: mcp.Bool(true)}
	obj := func(props string, required ...string) json.RawMessage {
		req, _ := json.Marshal(required)
		if required == nil {
			req = []byte("[]")
		}
		return json.RawMessage(`{"type":"object","properties":{` + props + `},"required":` + string(req) + `}`)
	}
	text := func(s string) *mcp.ToolResult { return mcp.TextResult(s) }
	tools := []*mcp.Tool{
		{Name: "search_nodes", Description: "find entities", Annotations: ro, InputSchema: obj(`"query":{"type":"string"}`, "query"),
			Call: func(_ context.Context, args json.RawMessage) (*mcp.ToolResult, error) {
				var in struct{ Query string }
				_ = json.Unmarshal(args, &in)
				body, _ := json.Marshal(map[string]any{
					"entities": []any{
						map[string]any{"type": "entity", "name": "Billing " + in.Query, "entityType": "service", "observations": []string{"moved to Postgres"}},
						map[string]any{"type": "entity", "name": "Ada", "entityType": "person", "observations": []string{"owns billing"}},
					},
					"relations": []any{},
				})
				return text(string(body)), nil
			}},
		{Name: "roots", Annotations: ro, InputSchema: obj(""),
			Call: func(ctx context.Context, _ json.RawMessage) (*mcp.ToolResult, error) {
				roots, err := mcp.ListRoots(ctx)
				if err != nil {
					return nil, err
				}
				var uris []string
				for _, r := range roots {
					uris = append(uris, r.URI)
				}
				return text(strings.Join(uris, ",")), nil
			}},
		{Name: "sample", Annotations: ro, InputSchema: obj(""),
			Call: func(ctx context.Context, _ json.RawMessage) (*mcp.ToolResult, error) {
				if _, err := mcp.CreateMessage(ctx, "s", map[string]any{"messages": []any{}, "maxTokens": 5}); err != nil {
					return nil, err
				}
				return text("the client sampled"), nil
			}},
		{Name: "elicit", Annotations: ro, InputSchema: obj(""),
			Call: func(ctx context.Context, _ json.RawMessage) (*mcp.ToolResult, error) {
				if _, err := mcp.Elicit(ctx, "e", map[string]any{"message": "name?", "requestedSchema": map[string]any{"type": "object", "properties": map[string]any{}}}); err != nil {
					return nil, err
				}
				return text("the client answered"), nil
			}},
		{Name: "hang", Annotations: ro, InputSchema: obj(""),
			Call: func(ctx context.Context, _ json.RawMessage) (*mcp.ToolResult, error) {
				select {
				case <-ctx.Done():
				case <-time.After(time.Minute):
				}
				return text("late"), nil
			}},
		{Name: "crash", Annotations: ro, InputSchema: obj(""),
			Call: func(context.Context, json.RawMessage) (*mcp.ToolResult, error) {
				fmt.Fprintln(os.Stderr, "helper: crashing on purpose")
				os.Exit(2)
				return nil, nil
			}},
		{Name: "env", Annotations: ro, InputSchema: obj(`"name":{"type":"string"}`, "name"),
			Call: func(_ context.Context, args json.RawMessage) (*mcp.ToolResult, error) {
				var in struct{ Name string }
				_ = json.Unmarshal(args, &in)
				wd, _ := os.Getwd()
				return text(fmt.Sprintf("%s=%d cwd=%s", in.Name, len(os.Getenv(in.Name)), wd)), nil
			}},
		{Name: "refuse", Annotations: ro, InputSchema: obj(`"why":{"type":"string"}`, "why"),
			Call: func(_ context.Context, args json.RawMessage) (*mcp.ToolResult, error) {
				res := mcp.TextResult("refused: " + string(args))
				res.IsError = true
				return res, nil
			}},
		{Name: "pid", Annotations: ro, InputSchema: obj(""),
			Call: func(context.Context, json.RawMessage) (*mcp.ToolResult, error) {
				return text(fmt.Sprint(os.Getpid())), nil
			}},
	}
	srv, err := mcp.NewServer(mcp.Implementation{Name: "helper", Version: "1"}, mcp.Options{}, &mcp.Toolset{Name: "helper", Tools: tools})
	if err != nil {
		panic(err)
	}
	return srv
}

// helperCommand prints JSON lines for its arguments, or fails.
func helperCommand(args []string) {
	if len(args) > 0 && args[0] == "cat-stdin" {
		b := make([]byte, 4096)
		n, _ := os.Stdin.Read(b)
		fmt.Print(string(b[:n]))
		return
	}
	if len(args) > 0 && args[0] == "write" {
		_ = os.WriteFile(args[1], []byte(`{"text":"from the output file"}`), 0o600)
		fmt.Println("log noise")
		return
	}
	if len(args) > 0 && args[0] == "sleep" {
		time.Sleep(time.Minute)
		return
	}
	fmt.Println("starting up")
	for _, a := range args {
		b, _ := json.Marshal(map[string]any{"type": "match", "path": a, "line": "found " + a})
		fmt.Println(string(b))
	}
	fmt.Println(`{"type":"summary"}`)
}

// rawServer is an MCP server that asks what kontext's own server would not
// ask a client that did not declare it: sampling/createMessage or
// elicitation/create on every tools/call, as a request in the legacy era
// and as an input request of an input_required result in 2026-07-28. The
// tool's answer quotes what the client replied.
func rawServer() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	out := json.NewEncoder(os.Stdout)
	var pending json.RawMessage
	for in.Scan() {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name            string          `json:"name"`
				ProtocolVersion string          `json:"protocolVersion"`
				InputResponses  json.RawMessage `json:"inputResponses"`
			} `json:"params"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if json.Unmarshal(in.Bytes(), &msg) != nil {
			continue
		}
		reply := func(result any) {
			_ = out.Encode(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": result})
		}
		tools := map[string]any{"tools": []any{
			map[string]any{"name": "sampling/createMessage", "inputSchema": map[string]any{"type": "object"}},
			map[string]any{"name": "elicitation/create", "inputSchema": map[string]any{"type": "object"}},
			map[string]any{"name": "roots/list", "inputSchema": map[string]any{"type": "object"}},
		}}
		switch {
		case msg.Method == "server/discover":
			reply(map[string]any{"resultType": "complete", "supportedVersions": []string{mcp.ModernVersion}, "capabilities": map[string]any{"tools": map[string]any{}},
				"_meta": map[string]any{"io.modelcontextprotocol/serverInfo": map[string]any{"name": "raw", "version": "1"}}})
		case msg.Method == "initialize":
			reply(map[string]any{"protocolVersion": msg.Params.ProtocolVersion, "capabilities": map[string]any{"tools": map[string]any{}}, "serverInfo": map[string]any{"name": "raw", "version": "1"}})
		case msg.Method == "subscriptions/listen":
			// Acknowledged and kept open, as a modern server does.
			_ = out.Encode(map[string]any{"jsonrpc": "2.0", "method": "notifications/subscriptions/acknowledged",
				"params": map[string]any{"notifications": map[string]any{}, "_meta": map[string]any{"io.modelcontextprotocol/subscriptionId": msg.ID}}})
		case msg.Method == "tools/list":
			reply(tools)
		case msg.Method == "tools/call" && len(msg.Params.InputResponses) > 0:
			reply(map[string]any{"resultType": "complete", "content": []any{map[string]any{"type": "text", "text": "answered " + string(msg.Params.InputResponses)}}})
		case msg.Method == "tools/call" && os.Getenv("HELPER_ERA") == "modern":
			reply(map[string]any{"resultType": "input_required", "requestState": "st",
				"inputRequests": map[string]any{"r1": map[string]any{"method": msg.Params.Name, "params": map[string]any{"messages": []any{}, "maxTokens": 5, "message": "m", "requestedSchema": map[string]any{"type": "object"}}}}})
		case msg.Method == "tools/call":
			pending = msg.ID
			_ = out.Encode(map[string]any{"jsonrpc": "2.0", "id": "srv-1", "method": msg.Params.Name, "params": map[string]any{"messages": []any{}, "maxTokens": 5}})
		case msg.Method == "" && pending != nil:
			answer := string(msg.Result)
			if msg.Error != nil {
				answer = "error " + string(msg.Error)
			}
			_ = out.Encode(map[string]any{"jsonrpc": "2.0", "id": pending, "result": map[string]any{"content": []any{map[string]any{"type": "text", "text": answer}}}})
			pending = nil
		case msg.ID != nil && msg.Method != "":
			reply(map[string]any{})
		}
	}
}
