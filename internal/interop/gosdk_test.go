package interop_test

// The official Go SDK client (github.com/modelcontextprotocol/go-sdk v1.8.0)
// driving kontext-testkit over stdio, in both eras.
//
// Era selection in the Go SDK: Client.Connect takes ClientSessionOptions;
// its ProtocolVersion (the latest, 2026-07-28, when empty) decides. A version
// >= 2026-07-28 probes server/discover and, when the server offers it, runs
// the modern era (per-request _meta, subscriptions/listen for list changes
// and resource subscriptions); anything older, or a failed probe, runs the
// initialize handshake with that version.

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestGoSDK(t *testing.T) {
	requireSetup(t)
	for _, era := range []struct {
		name string
		ask  string // ClientSessionOptions.ProtocolVersion
		want string
	}{
		{"legacy", "2025-11-25", "2025-11-25"},
		{"modern", "", "2026-07-28"}, // the SDK's default: its latest
	} {
		t.Run(era.name, func(t *testing.T) { testGoSDK(t, era.ask, era.want, goSDKConnect) })
	}
}

// TestGoSDKOverHTTP makes the same checks through the SDK's
// StreamableClientTransport against kontext-testkit mcp --http, in the
// revisions with structured content (2025-03-26, the first with streamable
// HTTP, is in TestGoSDKOlderRevisions).
func TestGoSDKOverHTTP(t *testing.T) {
	requireSetup(t)
	for _, rev := range []string{"2025-06-18", "2025-11-25", "2026-07-28"} {
		t.Run(rev, func(t *testing.T) { testGoSDK(t, rev, rev, goSDKConnectHTTP) })
	}
}

// goSDKConnectHTTP starts kontext-testkit mcp --http on port 0 and
// connects the client to the URL it prints; the server gets SIGTERM (and
// must exit 0) once the session is closed.
func goSDKConnectHTTP(t *testing.T, client *mcp.Client, root, trace, ask string, extra ...string) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(testkitBin, append(testkitArgs(root, extra...), "--http", "127.0.0.1:0")...)
	cmd.Env = append(os.Environ(), "KONTEXT_TRACE="+trace)
	stderr := &syncBuffer{}
	logOnFailure(t, "kontext-testkit", stderr)
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			stderr.Write([]byte(sc.Text() + "\n"))
			if url, ok := strings.CutPrefix(sc.Text(), "kontext: serving MCP at "); ok {
				found <- url
			}
		}
	}()
	var url string
	select {
	case url = <-found:
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatal("kontext-testkit mcp --http printed no URL within 20 s")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var opts *mcp.ClientSessionOptions
	if ask != "" {
		opts = &mcp.ClientSessionOptions{ProtocolVersion: ask}
	}
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1}, opts)
	if err != nil {
		cmd.Process.Kill()
		t.Fatalf("connecting: %v", err)
	}
	t.Cleanup(func() {
		_ = cs.Close()
		_ = cmd.Process.Signal(syscall.SIGTERM)
		if err := cmd.Wait(); err != nil {
			t.Errorf("kontext-testkit after SIGTERM: %v, want exit status 0", err)
		}
	})
	return cs
}

// goSDKConnect starts kontext-testkit and connects the client to it.
func goSDKConnect(t *testing.T, client *mcp.Client, root, trace, ask string, extra ...string) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(testkitBin, testkitArgs(root, extra...)...)
	cmd.Env = append(os.Environ(), "KONTEXT_TRACE="+trace)
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	logOnFailure(t, "kontext-testkit", stderr)
	var opts *mcp.ClientSessionOptions
	if ask != "" {
		opts = &mcp.ClientSessionOptions{ProtocolVersion: ask}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, opts)
	if err != nil {
		t.Fatalf("connecting: %v", err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

func textContent(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// wireError returns the JSON-RPC error inside err, failing t when there is
// none (a tool result or a transport failure is not a protocol error).
func wireError(t *testing.T, err error) (*jsonrpc.Error, map[string]any) {
	t.Helper()
	var werr *jsonrpc.Error
	if !errors.As(err, &werr) {
		t.Fatalf("got %v (%T), want a JSON-RPC error", err, err)
	}
	var data map[string]any
	if len(werr.Data) > 0 {
		if err := json.Unmarshal(werr.Data, &data); err != nil {
			t.Fatalf("error data %s: %v", werr.Data, err)
		}
	}
	return werr, data
}

// goSDKConnector starts a server and connects a Go SDK client to it.
type goSDKConnector func(t *testing.T, client *mcp.Client, root, trace, ask string, extra ...string) *mcp.ClientSession

func testGoSDK(t *testing.T, ask, want string, connect goSDKConnector) {
	root := t.TempDir()
	traces := t.TempDir()
	trace := traceFile(traces, "server")
	modern := want >= firstModern

	t.Run("checks", func(t *testing.T) {
		ev := newEvents()
		client := mcp.NewClient(&mcp.Implementation{Name: "kontext-interop-go-sdk", Version: "1.0.0"}, &mcp.ClientOptions{
			Capabilities: &mcp.ClientCapabilities{}, // no roots: kontext never asks
			ToolListChangedHandler: func(_ context.Context, _ *mcp.ToolListChangedRequest) {
				ev.add("tools/list_changed", nil)
			},
			ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
				ev.add("resources/updated", req.Params.URI)
			},
			ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
				ev.add("progress", *req.Params)
			},
		})
		cs := connect(t, client, root, trace, ask)
		ctx := context.Background()

		t.Run("negotiated revision", func(t *testing.T) {
			res := cs.InitializeResult()
			if res.ProtocolVersion != want {
				t.Fatalf("negotiated %q, want %q", res.ProtocolVersion, want)
			}
			if res.ServerInfo == nil || res.ServerInfo.Name != "kontext" {
				t.Errorf("serverInfo %+v, want kontext", res.ServerInfo)
			}
			if res.Capabilities == nil || res.Capabilities.Tools == nil || !res.Capabilities.Tools.ListChanged {
				t.Errorf("capabilities %+v lack tools.listChanged", res.Capabilities)
			}
		})

		t.Run("tools/list", func(t *testing.T) {
			res, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tool := range res.Tools {
				names = append(names, tool.Name)
				schema, _ := tool.InputSchema.(map[string]any)
				if schema["type"] != "object" || schema["additionalProperties"] != false {
					t.Errorf("%s: inputSchema type %v additionalProperties %v, want object and false", tool.Name, schema["type"], schema["additionalProperties"])
				}
				if tool.Name == "add" {
					out, _ := tool.OutputSchema.(map[string]any)
					props, _ := out["properties"].(map[string]any)
					if out["type"] != "object" || props["sum"] == nil {
						t.Errorf("add: outputSchema %v, want an object schema with sum", tool.OutputSchema)
					}
				}
			}
			sort.Strings(names)
			if !slices.Equal(names, testkitTools) {
				t.Errorf("tools %v, want %v", names, testkitTools)
			}
		})

		t.Run("call echo", func(t *testing.T) {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi", "upper": true, "repeat": 2}})
			if err != nil {
				t.Fatal(err)
			}
			if res.IsError || textContent(t, res) != "HIHI" {
				t.Errorf("echo: isError %v text %q, want HIHI", res.IsError, textContent(t, res))
			}
		})

		t.Run("call add (structured)", func(t *testing.T) {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "add", Arguments: map[string]any{"a": 2, "b": 3.5}})
			if err != nil {
				t.Fatal(err)
			}
			got, _ := res.StructuredContent.(map[string]any)
			if res.IsError || got["sum"] != 5.5 || len(got) != 1 {
				t.Errorf("add: isError %v structuredContent %#v, want {sum: 5.5}", res.IsError, res.StructuredContent)
			}
		})

		t.Run("call choose (comma-separated tags)", func(t *testing.T) {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "choose", Arguments: map[string]any{"color": "blue", "tags": "a,b"}})
			if err != nil {
				t.Fatal(err)
			}
			var got struct {
				Color string   `json:"color"`
				Tags  []string `json:"tags"`
			}
			if err := json.Unmarshal([]byte(textContent(t, res)), &got); err != nil {
				t.Fatalf("choose: %v in %q", err, textContent(t, res))
			}
			if got.Color != "blue" || !slices.Equal(got.Tags, []string{"a", "b"}) {
				t.Errorf("choose: %+v, want blue [a b]", got)
			}
		})

		for _, tc := range []struct {
			name string
			args map[string]any
		}{
			{"invalid argument type is -32602", map[string]any{"text": 5}},
			{"unknown argument is -32602", map[string]any{"text": "x", "bogus": 1}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: tc.args})
				if err == nil {
					t.Fatalf("got a result (isError %v, %q), want a protocol error", res.IsError, textContent(t, res))
				}
				werr, data := wireError(t, err)
				if werr.Code != -32602 || data["tool"] != "echo" || data["violations"] == nil {
					t.Errorf("got code %d data %v, want -32602 naming tool echo with violations", werr.Code, data)
				}
			})
		}

		t.Run("tool failure is isError", func(t *testing.T) {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "fail", Arguments: map[string]any{"message": "on purpose"}})
			if err != nil {
				t.Fatalf("got a protocol error %v, want an isError result", err)
			}
			if !res.IsError || !strings.Contains(textContent(t, res), "on purpose") {
				t.Errorf("fail: isError %v text %q", res.IsError, textContent(t, res))
			}
		})

		t.Run("cancellation", func(t *testing.T) {
			cctx, cancel := context.WithCancel(ctx)
			done := make(chan error, 1)
			go func() {
				_, err := cs.CallTool(cctx, &mcp.CallToolParams{Name: "sleep", Arguments: map[string]any{"ms": 10000}})
				done <- err
			}()
			time.Sleep(200 * time.Millisecond)
			cancel()
			select {
			case err := <-done:
				if !errors.Is(err, context.Canceled) {
					t.Errorf("the cancelled call returned %v, want context.Canceled", err)
				}
			case <-time.After(3 * time.Second):
				t.Fatal("the cancelled call did not return")
			}
			start := time.Now()
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "after"}})
			if err != nil || textContent(t, res) != "after" {
				t.Fatalf("echo after the cancel: %v", err)
			}
			if took := time.Since(start); took > 1500*time.Millisecond {
				t.Errorf("echo after the cancel took %v", took)
			}
			// That the server never answers the cancelled request is
			// checked on the trace once the server has exited (wire).
		})

		t.Run("progress", func(t *testing.T) {
			params := &mcp.CallToolParams{Name: "sleep", Arguments: map[string]any{"ms": 300, "steps": 3}}
			params.SetProgressToken("go-sdk-progress")
			res, err := cs.CallTool(ctx, params)
			if err != nil || res.IsError {
				t.Fatalf("sleep: %v %v", err, res)
			}
			mine := func(v any) bool { return v.(mcp.ProgressNotificationParams).ProgressToken == "go-sdk-progress" }
			if !ev.waitFor("progress", 3, mine, 2*time.Second) {
				t.Fatalf("progress notifications: %v, want 3", ev.all("progress"))
			}
			var values []float64
			for _, v := range ev.all("progress") {
				if p := v.(mcp.ProgressNotificationParams); mine(p) {
					values = append(values, p.Progress)
					if p.Total != 3 {
						t.Errorf("total %v, want 3", p.Total)
					}
				}
			}
			if !slices.Equal(values, []float64{1, 2, 3}) {
				t.Errorf("progress %v, want [1 2 3]", values)
			}
		})

		t.Run("prompts/get greet", func(t *testing.T) {
			res, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "greet", Arguments: map[string]string{"who": "Bo"}})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Messages) != 1 {
				t.Fatalf("messages %v", res.Messages)
			}
			if tc, ok := res.Messages[0].Content.(*mcp.TextContent); !ok || tc.Text != "Hi Bo!" || res.Messages[0].Role != "user" {
				t.Errorf("message %+v, want user: Hi Bo!", res.Messages[0])
			}
		})

		t.Run("resources/read testkit://status", func(t *testing.T) {
			res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "testkit://status"})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Contents) != 1 || res.Contents[0].URI != "testkit://status" || !strings.HasPrefix(res.Contents[0].Text, "notes written: ") {
				t.Errorf("contents %+v", res.Contents)
			}
		})

		t.Run("resource updated after subscribe", func(t *testing.T) {
			if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: "testkit://status"}); err != nil {
				t.Fatal(err)
			}
			if modern {
				// Subscribe opens a subscriptions/listen stream and returns
				// without waiting for its acknowledgement; events before the
				// acknowledgement are not promised. The tools/list_changed
				// stream opened by Connect is the first acknowledgement.
				waitTrace(t, trace, `"notifications/subscriptions/acknowledged"`, 2)
			}
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "write_note", Arguments: map[string]any{"name": "go-sdk", "text": "from the Go SDK"}})
			if err != nil || res.IsError {
				t.Fatalf("write_note: %v %v", err, res)
			}
			if !ev.waitFor("resources/updated", 1, func(v any) bool { return v == "testkit://status" }, 3*time.Second) {
				t.Fatalf("no notifications/resources/updated for testkit://status (got %v)", ev.all("resources/updated"))
			}
			if err := cs.Unsubscribe(ctx, &mcp.UnsubscribeParams{URI: "testkit://status"}); err != nil {
				t.Error(err)
			}
		})

		t.Run("tools/list_changed", func(t *testing.T) {
			if modern {
				// Connect opened subscriptions/listen {toolsListChanged}
				// because ToolListChangedHandler is set.
				waitTrace(t, trace, `"notifications/subscriptions/acknowledged"`, 1)
			}
			before := len(ev.all("tools/list_changed"))
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "toggle_bonus"})
			if err != nil || textContent(t, res) != "bonus added" {
				t.Fatalf("toggle_bonus: %v %v", err, res)
			}
			if !ev.waitFor("tools/list_changed", before+1, nil, 3*time.Second) {
				t.Fatal("no notifications/tools/list_changed after toggle_bonus")
			}
			list, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.ContainsFunc(list.Tools, func(tool *mcp.Tool) bool { return tool.Name == "bonus" }) {
				t.Error("bonus is not listed after toggle_bonus (a stale cache?)")
			}
			res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "bonus"})
			if err != nil || textContent(t, res) != "bonus!" {
				t.Errorf("bonus: %v %v", err, res)
			}
		})
	})

	t.Run("request timeout", func(t *testing.T) {
		client := mcp.NewClient(&mcp.Implementation{Name: "kontext-interop-go-sdk", Version: "1.0.0"}, &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}})
		cs := connect(t, client, root, traceFile(traces, "timeout"), ask, "--request-timeout", "500ms")
		if got := cs.InitializeResult().ProtocolVersion; got != want {
			t.Fatalf("negotiated %q, want %q", got, want)
		}
		start := time.Now()
		_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "sleep", Arguments: map[string]any{"ms": 3000}})
		took := time.Since(start)
		if err == nil {
			t.Fatal("sleep 3000 ms succeeded under a 500 ms request timeout")
		}
		werr, data := wireError(t, err)
		if werr.Code != -32603 || data["timeoutMs"] != float64(500) {
			t.Errorf("got code %d data %v, want -32603 with timeoutMs 500", werr.Code, data)
		}
		if took > 2500*time.Millisecond {
			t.Errorf("the timeout answered after %v", took)
		}
	})

	logs := readTraces(t, tracesIn(t, traces))
	t.Run("wire", func(t *testing.T) {
		checkPairing(t, logs)
		checkCancelled(t, logs, 10000)
		for _, l := range logs {
			for _, r := range l.Requests {
				if r.Revision != want {
					t.Errorf("%s:%d: %s was served as %s, want %s", filepath.Base(l.Path), r.Line, r.Method, r.Revision, want)
				}
			}
			if modern && len(l.find("initialize", nil)) > 0 {
				t.Errorf("%s: the modern session sent initialize", filepath.Base(l.Path))
			}
			if !modern && len(l.find("server/discover", nil)) > 0 {
				t.Errorf("%s: the legacy session probed server/discover", filepath.Base(l.Path))
			}
		}
		if modern {
			listens := 0
			for _, l := range logs {
				listens += len(l.find("subscriptions/listen", nil))
			}
			if listens < 2 {
				t.Errorf("%d subscriptions/listen requests, want one for tools/list_changed and one for the resource", listens)
			}
		}
	})
	t.Run("schema", func(t *testing.T) { validateWire(t, logs) })
}
