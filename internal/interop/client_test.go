package interop_test

// kontext's own MCP client (internal/mcp.Client) against third-party servers
// (the TypeScript SDK's reference server, server-everything, and a small
// server built on the TypeScript SDK v1) and against kontext-testkit in both
// eras.

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/kontext-dev/kontext/gen/protocol"
	"github.com/kontext-dev/kontext/internal/mcp"
)

// clientNotes records OnNotification calls.
func clientNotes(ev *events) func(method string, params json.RawMessage) {
	return func(method string, params json.RawMessage) {
		var p map[string]any
		_ = json.Unmarshal(params, &p)
		ev.add(method, p)
	}
}

func resultText(res *protocol.CallToolResult) string {
	var b strings.Builder
	for _, raw := range res.Content {
		var block struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if json.Unmarshal(raw, &block) == nil && block.Type == "text" {
			b.WriteString(block.Text)
		}
	}
	return b.String()
}

func isErrorResult(res *protocol.CallToolResult) bool { return res.IsError != nil && *res.IsError }

// rootURI is the file:// URI the client answers roots/list with.
func rootURI(t *testing.T, root string) string {
	t.Helper()
	abs, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
}

// bounded returns a context for one check, so that an unanswered request
// fails that check (in 10 s) instead of hanging the suite.
func bounded(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func startClient(t *testing.T, command string, args, env []string, opts mcp.ClientOptions) *mcp.Client {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if opts.Info.Name == "" {
		opts.Info = mcp.Implementation{Name: "kontext-interop", Version: "1.0.0"}
	}
	c, err := mcp.StartProcess(ctx, command, args, env, opts)
	if err != nil {
		t.Fatalf("connecting to %s: %v", filepath.Base(command), err)
	}
	t.Cleanup(func() {
		if err := c.Close(); err != nil {
			t.Logf("closing %s: %v", filepath.Base(command), err)
		}
	})
	return c
}

// TestKontextClientServerEverything drives the TypeScript SDK's reference
// server with kontext's client. server-everything is legacy-only (built on
// the SDK v1), so the auto era must fall back to initialize.
func TestKontextClientServerEverything(t *testing.T) {
	node, dir := npmDir(t)
	server := filepath.Join(dir, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
	args := []string{server, "stdio"}

	t.Run("modern era is refused", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		c, err := mcp.StartProcess(ctx, node, args, nil, mcp.ClientOptions{Era: mcp.EraModern, Root: t.TempDir(), Info: mcp.Implementation{Name: "kontext-interop", Version: "1.0.0"}})
		if err == nil {
			c.Close()
			t.Fatalf("EraModern connected to a legacy-only server (version %s)", c.Version)
		}
		t.Logf("as expected: %v", err)
	})

	root := t.TempDir()
	ev := newEvents()
	c := startClient(t, node, args, nil, mcp.ClientOptions{Era: mcp.EraAuto, Root: root, OnNotification: clientNotes(ev)})

	t.Run("auto falls back to legacy", func(t *testing.T) {
		if c.Modern || c.Version != "2025-11-25" {
			t.Errorf("modern %v version %q, want the legacy 2025-11-25", c.Modern, c.Version)
		}
		if c.ServerInfo.Name != "mcp-servers/everything" {
			t.Errorf("serverInfo %+v", c.ServerInfo)
		}
	})

	t.Run("tools/list", func(t *testing.T) {
		ctx := bounded(t)
		tools, err := c.ListTools(ctx)
		if err != nil {
			t.Fatalf("tools/list: %v (the SDK v1 server does not answer a request it cannot parse; see TestKontextClientTestkit/legacy/client_requests_are_valid_JSON-RPC)", err)
		}
		var names []string
		for _, tool := range tools {
			names = append(names, tool.Name)
		}
		for _, want := range []string{"echo", "toggle-subscriber-updates", "get-roots-list"} {
			if !slices.Contains(names, want) {
				t.Errorf("tool %s is not listed (tools: %v)", want, names)
			}
		}
	})

	t.Run("call echo", func(t *testing.T) {
		ctx := bounded(t)
		res, err := c.CallTool(ctx, "echo", map[string]any{"message": "from kontext"})
		if err != nil {
			t.Fatal(err)
		}
		if isErrorResult(res) || resultText(res) != "Echo: from kontext" {
			t.Errorf("echo: isError %v text %q", isErrorResult(res), resultText(res))
		}
	})

	t.Run("invalid arguments are refused", func(t *testing.T) {
		ctx := bounded(t)
		// The SDK v1 server reports a failed input validation as a tool
		// error (SEP-1303) or as -32602; either way it is no success.
		res, err := c.CallTool(ctx, "echo", map[string]any{"message": 5})
		var rpcErr *jsonrpc2.Error
		switch {
		case errors.As(err, &rpcErr):
			if rpcErr.Code != -32602 {
				t.Errorf("code %d, want -32602", rpcErr.Code)
			}
		case err != nil:
			t.Fatal(err)
		case !isErrorResult(res):
			t.Errorf("echo {message: 5} succeeded: %q", resultText(res))
		}
	})

	t.Run("roots/list answered with the root", func(t *testing.T) {
		ctx := bounded(t)
		// server-everything asks for roots 350 ms after initialization when
		// the client declares the roots capability, and logs what it got.
		want := rootURI(t, root)
		gotRoots := func(v any) bool {
			p, _ := v.(map[string]any)
			data, _ := p["data"].(string)
			return strings.HasPrefix(data, "Roots updated: 1 root(s)")
		}
		if !ev.waitFor("notifications/message", 1, gotRoots, 5*time.Second) {
			t.Fatalf("server-everything never logged receiving our root (log: %v)", ev.all("notifications/message"))
		}
		res, err := c.CallTool(ctx, "get-roots-list", nil)
		if err != nil {
			t.Fatal(err)
		}
		if text := resultText(res); !strings.Contains(text, "URI: "+want+"\n") {
			t.Errorf("get-roots-list does not show %s:\n%s", want, text)
		}
	})

	// A static document server-everything serves (its docs/ folder).
	uri := "demo://resource/static/document/architecture.md"
	t.Run("resources/list", func(t *testing.T) {
		ctx := bounded(t)
		resources, err := c.ListResources(ctx)
		if err != nil {
			t.Fatalf("resources/list: %v (the SDK v1 server does not answer a request it cannot parse; see TestKontextClientTestkit/legacy/client_requests_are_valid_JSON-RPC)", err)
		}
		if !slices.ContainsFunc(resources, func(r protocol.Resource) bool { return r.URI == uri }) {
			t.Errorf("%s is not among the %d resources listed", uri, len(resources))
		}
	})
	t.Run("resources/read", func(t *testing.T) {
		ctx := bounded(t)
		res, err := c.ReadResource(ctx, uri)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Contents) != 1 || res.Contents[0].URI != uri || res.Contents[0].Text == "" {
			t.Errorf("read %s: %+v", uri, res.Contents)
		}
	})

	t.Run("resources/subscribe and updated", func(t *testing.T) {
		ctx := bounded(t)
		if err := c.Subscribe(ctx, uri); err != nil {
			t.Fatal(err)
		}
		// toggle-subscriber-updates sends an update for every subscribed
		// resource at once, then every 5 s.
		res, err := c.CallTool(ctx, "toggle-subscriber-updates", nil)
		if err != nil || isErrorResult(res) {
			t.Fatalf("toggle-subscriber-updates: %v %v", err, res)
		}
		t.Cleanup(func() { _, _ = c.CallTool(ctx, "toggle-subscriber-updates", nil) })
		if !ev.waitFor("notifications/resources/updated", 1, func(v any) bool { return v.(map[string]any)["uri"] == uri }, 5*time.Second) {
			t.Fatalf("no notifications/resources/updated for %s", uri)
		}
	})
}

// TestKontextClientServerRequests checks how kontext's client answers
// server-initiated requests, against a server built on the TypeScript SDK v1
// (testdata/node/ts-sdk-v1-server.mjs): ping and roots/list are answered, anything
// else is refused with -32601.
func TestKontextClientServerRequests(t *testing.T) {
	node, dir := npmDir(t)
	root := t.TempDir()
	c := startClient(t, node, []string{filepath.Join(dir, "ts-sdk-v1-server.mjs")}, nil, mcp.ClientOptions{Era: mcp.EraAuto, Root: root})
	if c.Modern || c.Version != "2025-11-25" {
		t.Errorf("modern %v version %q, want the legacy 2025-11-25 (an SDK v1 server)", c.Modern, c.Version)
	}
	type clientError struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	}
	for _, tool := range []string{"ask-sampling", "ask-elicitation"} {
		t.Run(tool+" is refused with -32601", func(t *testing.T) {
			ctx := bounded(t)
			res, err := c.CallTool(ctx, tool, nil)
			if err != nil {
				t.Fatal(err)
			}
			var got clientError
			_ = json.Unmarshal([]byte(resultText(res)), &got)
			if !isErrorResult(res) || got.Code != -32601 {
				t.Errorf("%s: isError %v answer %q, want the client's -32601", tool, isErrorResult(res), resultText(res))
			}
		})
	}
	t.Run("ask-roots is answered with the root", func(t *testing.T) {
		ctx := bounded(t)
		res, err := c.CallTool(ctx, "ask-roots", nil)
		if err != nil {
			t.Fatal(err)
		}
		var got struct {
			Roots []struct {
				URI  string `json:"uri"`
				Name string `json:"name"`
			} `json:"roots"`
		}
		if isErrorResult(res) || json.Unmarshal([]byte(resultText(res)), &got) != nil {
			t.Fatalf("ask-roots: %q", resultText(res))
		}
		want := rootURI(t, root)
		if len(got.Roots) != 1 || got.Roots[0].URI != want || got.Roots[0].Name != filepath.Base(root) {
			t.Errorf("roots %+v, want one root %s named %s", got.Roots, want, filepath.Base(root))
		}
	})
	t.Run("ask-ping is answered", func(t *testing.T) {
		ctx := bounded(t)
		res, err := c.CallTool(ctx, "ask-ping", nil)
		if err != nil {
			t.Fatal(err)
		}
		if isErrorResult(res) || resultText(res) != "{}" {
			t.Errorf("ask-ping: isError %v %q, want {}", isErrorResult(res), resultText(res))
		}
	})
}

// TestKontextClientTestkit drives kontext-testkit with kontext's own client
// in each era setting; auto must pick 2026-07-28.
func TestKontextClientTestkit(t *testing.T) {
	requireSetup(t)
	for _, tc := range []struct {
		era  mcp.Era
		want string
	}{
		{mcp.EraAuto, "2026-07-28"},
		{mcp.EraLegacy, "2025-11-25"},
		{mcp.EraModern, "2026-07-28"},
	} {
		t.Run(string(tc.era), func(t *testing.T) { testKontextClient(t, tc.era, tc.want) })
	}
}

func testKontextClient(t *testing.T, era mcp.Era, want string) {
	root := t.TempDir()
	traces := t.TempDir()
	trace := traceFile(traces, "server")
	modern := want >= firstModern

	t.Run("checks", func(t *testing.T) {
		ev := newEvents()
		c := startClient(t, testkitBin, testkitArgs(root), []string{"KONTEXT_TRACE=" + trace}, mcp.ClientOptions{Era: era, Root: root, OnNotification: clientNotes(ev)})

		t.Run("negotiated revision", func(t *testing.T) {
			if c.Version != want || c.Modern != modern {
				t.Fatalf("version %q modern %v, want %q", c.Version, c.Modern, want)
			}
			if c.Capabilities.Tools == nil {
				t.Error("no tools capability")
			}
		})

		t.Run("tools/list", func(t *testing.T) {
			ctx := bounded(t)
			tools, err := c.ListTools(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tool := range tools {
				names = append(names, tool.Name)
			}
			sort.Strings(names)
			if !slices.Equal(names, testkitTools) {
				t.Errorf("tools %v, want %v", names, testkitTools)
			}
		})

		t.Run("calls", func(t *testing.T) {
			ctx := bounded(t)
			res, err := c.CallTool(ctx, "echo", map[string]any{"text": "ok", "repeat": 3})
			if err != nil || resultText(res) != "okokok" {
				t.Errorf("echo: %v %v", err, res)
			}
			res, err = c.CallTool(ctx, "add", map[string]any{"a": 1, "b": 2})
			if err != nil || string(res.StructuredContent) != `{"sum":3}` {
				t.Errorf("add: %v %+v", err, res)
			}
			res, err = c.CallTool(ctx, "fail", map[string]any{"message": "nope"})
			if err != nil || !isErrorResult(res) {
				t.Errorf("fail: %v %+v, want an isError result", err, res)
			}
			_, err = c.CallTool(ctx, "echo", map[string]any{"text": 5})
			var rpcErr *jsonrpc2.Error
			if !errors.As(err, &rpcErr) || rpcErr.Code != -32602 {
				t.Errorf("echo {text: 5}: %v, want -32602", err)
			}
		})

		t.Run("cancellation", func(t *testing.T) {
			ctx := bounded(t)
			cctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
			defer cancel()
			_, err := c.CallTool(cctx, "sleep", map[string]any{"ms": 10000})
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("sleep under a 200 ms context: %v", err)
			}
			start := time.Now()
			res, err := c.CallTool(ctx, "echo", map[string]any{"text": "after"})
			if err != nil || resultText(res) != "after" {
				t.Fatalf("echo after the cancel: %v", err)
			}
			if took := time.Since(start); took > 1500*time.Millisecond {
				t.Errorf("echo after the cancel took %v", took)
			}
		})

		t.Run("resources/read", func(t *testing.T) {
			ctx := bounded(t)
			res, err := c.ReadResource(ctx, "testkit://status")
			if err != nil || len(res.Contents) != 1 || !strings.HasPrefix(res.Contents[0].Text, "notes written: ") {
				t.Errorf("read testkit://status: %v %+v", err, res)
			}
		})

		t.Run("resource updated after subscribe", func(t *testing.T) {
			ctx := bounded(t)
			if err := c.Subscribe(ctx, "testkit://status"); err != nil {
				t.Fatal(err)
			}
			if modern {
				// Subscribe opens subscriptions/listen in the background.
				waitTrace(t, trace, `"notifications/subscriptions/acknowledged"`, 1)
			}
			res, err := c.CallTool(ctx, "write_note", map[string]any{"name": "kontext-client", "text": "hello"})
			if err != nil || isErrorResult(res) {
				t.Fatalf("write_note: %v %+v", err, res)
			}
			if !ev.waitFor("notifications/resources/updated", 1, func(v any) bool { return v.(map[string]any)["uri"] == "testkit://status" }, 3*time.Second) {
				t.Fatalf("no notifications/resources/updated (got %v)", ev.all("notifications/resources/updated"))
			}
		})

		t.Run("tools/list_changed", func(t *testing.T) {
			ctx := bounded(t)
			// Legacy sessions hear of every change; the modern listener
			// opened by Subscribe asks for toolsListChanged too.
			res, err := c.CallTool(ctx, "toggle_bonus", nil)
			if err != nil || resultText(res) != "bonus added" {
				t.Fatalf("toggle_bonus: %v %+v", err, res)
			}
			if !ev.waitFor("notifications/tools/list_changed", 1, nil, 3*time.Second) {
				t.Fatal("no notifications/tools/list_changed")
			}
		})
	})

	logs := readTraces(t, tracesIn(t, traces))
	t.Run("client requests are valid JSON-RPC", func(t *testing.T) {
		// JSON-RPC 2.0 §4.2: params, when present, is an object or an
		// array; MCP requests take an object. A null params is refused by
		// kontext (-32600) and silently dropped by the TypeScript SDK.
		for _, l := range logs {
			for _, r := range l.Requests {
				if len(r.Params) > 0 && r.Params[0] != '{' {
					t.Errorf("%s:%d: kontext's client sent %s with params %s", filepath.Base(l.Path), r.Line, r.Method, r.Params)
				}
			}
		}
	})
	t.Run("wire", func(t *testing.T) {
		checkPairing(t, logs)
		checkCancelled(t, logs, 10000)
		for _, l := range logs {
			for _, r := range l.Requests {
				if r.Method == "server/discover" && era == mcp.EraLegacy {
					t.Errorf("%s:%d: EraLegacy probed server/discover", filepath.Base(l.Path), r.Line)
				}
				if r.Revision != want {
					t.Errorf("%s:%d: %s was served as %s, want %s", filepath.Base(l.Path), r.Line, r.Method, r.Revision, want)
				}
			}
		}
	})
	t.Run("schema", func(t *testing.T) { validateWire(t, logs) })
}
