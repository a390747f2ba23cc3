package interop_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestArgumentContract drives a real `kontext mcp` serving both toolsets
// with the official Go SDK, in both eras, through the argument contract each
// toolset declares (issues 10.17 and 10.18): a knowledge tool answers an
// argument it refuses with a tool result with isError naming the parameter,
// takes digits and clamps a limit with a note; a repo tool refuses bad
// arguments with -32602 and data.violations; an unknown tool is -32602.
// Every message the server writes is validated against the official schema.
func TestArgumentContract(t *testing.T) {
	for _, era := range []struct{ name, ask string }{{"legacy", "2025-11-25"}, {"modern", "2026-07-28"}} {
		t.Run(era.name, func(t *testing.T) { argumentContract(t, era.ask) })
	}
}

// storeRepo is gitRepo with one decision committed in its store.
func storeRepo(t *testing.T) string {
	t.Helper()
	repo := gitRepo(t)
	os.MkdirAll(filepath.Join(repo, ".ai", "decisions"), 0o755)
	os.WriteFile(filepath.Join(repo, ".ai", "decisions", "2026-01-01-orders-live-in-postgres.md"), []byte("---\nkind: decision\ntitle: Orders live in Postgres\nstatus: accepted\ndate: 2026-01-01\n---\n\n## Decision\n\nOrders live in Postgres.\n"), 0o644)
	gitOut(t, repo, "add", ".ai")
	gitOut(t, repo, "commit", "-q", "-m", "Record the orders decision")
	return repo
}

// TestArgumentContractTypeScriptSDK runs testdata/node/arguments-check.mjs: the
// same contract through the TypeScript SDK v1 client.
func TestArgumentContractTypeScriptSDK(t *testing.T) {
	requireSetup(t)
	node, dir := npmDir(t)
	traces := t.TempDir()
	t.Setenv("KONTEXT_CONFIG_DIR", t.TempDir())
	checks := runChecks(t, node, dir, "arguments-check.mjs", []string{kontextBin, storeRepo(t)}, traceFile(traces, "kontext"), []string{
		"handshake",
		"knowledge invalid argument is isError",
		"knowledge digits, clamp and alias",
		"repo invalid argument is -32602",
		"unknown tool is -32602",
	})
	if checks == nil {
		return
	}
	validateWire(t, readTraces(t, tracesIn(t, traces)))
}

func argumentContract(t *testing.T, ask string) {
	requireSetup(t)
	repo := storeRepo(t)
	traces := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	cmd := exec.Command(kontextBin, "mcp", "--root", repo)
	cmd.Env = append(os.Environ(), "KONTEXT_TRACE="+traceFile(traces, "kontext"), "KONTEXT_CONFIG_DIR="+t.TempDir())
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	logOnFailure(t, "kontext", stderr)
	client := mcp.NewClient(&mcp.Implementation{Name: "arguments", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: ask})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	// knowledge: a result with isError whose text names the parameter.
	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{}, "Invalid arguments for ctx_search: query: missing (required)."},
		{map[string]any{"query": "orders", "limit": 0}, "limit: must be at least 1, got 0"},
		{map[string]any{"query": "orders", "kinds": "decisions"}, `kinds[0]: must be one of decision, convention`},
		{map[string]any{"query": "orders", "sources": "wiki"}, `sources: unknown source "wiki"`},
	} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ctx_search", Arguments: c.args})
		if err != nil {
			t.Errorf("ctx_search %v: %v, want a tool result with isError", c.args, err)
			continue
		}
		if text := textContent(t, res); !res.IsError || !strings.Contains(text, c.want) {
			t.Errorf("ctx_search %v: isError=%v %q, want it to name %q", c.args, res.IsError, text, c.want)
		}
	}
	// The original's forms: digits, a clamped limit with a note, an alias.
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ctx_search", Arguments: map[string]any{"query": "orders postgres", "limit": "100", "kinds": "adr", "budget_tokens": "2000"}})
	if err != nil || res.IsError {
		t.Fatalf("ctx_search with digits and an alias: %v %v", err, res)
	}
	if text := textContent(t, res); !strings.Contains(text, "1. Orders live in Postgres") || !strings.Contains(text, "Note: limit 100 is more than its maximum of 50, so 50 was used.") {
		t.Errorf("ctx_search limit \"100\" kinds adr:\n%s", text)
	}

	// repo: -32602 with data.violations; the tool never ran.
	for _, c := range []struct {
		tool string
		args map[string]any
		path string
	}{
		{"get_dependents", map[string]any{}, "/arguments"},
		{"explain_module", map[string]any{"path": "src", "detail": "verbose"}, "/arguments/detail"},
		{"get_module_history", map[string]any{"target": "src", "limit": "5"}, "/arguments/limit"},
	} {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
		werr, data := wireError(t, err)
		violations, _ := data["violations"].([]any)
		first, _ := func() (map[string]any, bool) {
			if len(violations) == 0 {
				return nil, false
			}
			m, ok := violations[0].(map[string]any)
			return m, ok
		}()
		if werr.Code != -32602 || data["tool"] != c.tool || first["path"] != c.path {
			t.Errorf("%s %v: code %d data %v, want -32602 with a violation at %s", c.tool, c.args, werr.Code, data, c.path)
		}
	}

	// An unknown tool is a protocol error in both toolsets' world.
	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "ctx_nope", Arguments: map[string]any{}})
	if werr, data := wireError(t, err); werr.Code != -32602 || data["tool"] != "ctx_nope" {
		t.Errorf("unknown tool: code %d data %v, want -32602", werr.Code, data)
	}
	cs.Close()
	validateWire(t, readTraces(t, tracesIn(t, traces)))
}
