package interop_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kontext-dev/kontext/internal/gittest"
)

// TestCompletionsGoSDK asks a real `kontext mcp` for completions with the
// official Go SDK's ClientSession.Complete, in both eras, in a repository
// with a knowledge store: entry ids for kontext://entry/{id} (active and
// newest first), module paths for the repo prompts' target (the most
// depended on first), kontext-init's task counts, the completions
// capability, and -32602 for a prompt the server does not have. Every
// message is validated against the official schema of its revision.
func TestCompletionsGoSDK(t *testing.T) {
	requireSetup(t)
	repo := gitRepo(t)
	write := func(rel, text string) {
		t.Helper()
		path := filepath.Join(repo, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/shop\n\ngo 1.22\n")
	write("src/ordersapi/api.go", "package ordersapi\n\nimport \"example.com/shop/src/orders\"\n\nvar _ = orders.Total\n")
	write("src/orders/export.go", "package orders\n\n// Total is an order's total.\nvar Total = orderTotal\n")
	write(".ai/decisions/2026-01-05-store-orders-in-postgres.md", "---\nkind: decision\ntitle: Store orders in Postgres\nstatus: accepted\ndate: 2026-01-05\n---\n\nRedis lost orders.\n")
	write(".ai/decisions/2026-01-07-keep-carts-in-redis.md", "---\nkind: decision\ntitle: Keep carts in Redis\nstatus: accepted\ndate: 2026-01-07\n---\n\nCarts may be lost.\n")
	write(".ai/decisions/2026-01-03-store-orders-in-files.md", "---\nkind: decision\ntitle: Store orders in files\nstatus: superseded\ndate: 2026-01-03\n---\n\nIt did not scale.\n")
	gittest.Run(t, repo, gittest.Ada(), "add", ".")
	gittest.Run(t, repo, gittest.Ada(), "commit", "-q", "-m", "A store and an API")

	for _, era := range []struct{ name, ask string }{{"legacy", "2025-11-25"}, {"modern", "2026-07-28"}} {
		t.Run(era.name, func(t *testing.T) {
			traces := t.TempDir()
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cmd := exec.Command(kontextBin, "mcp", "--root", repo)
			cmd.Env = append(os.Environ(), "KONTEXT_TRACE="+traceFile(traces, "kontext"), "KONTEXT_CONFIG_DIR="+t.TempDir())
			stderr := &syncBuffer{}
			cmd.Stderr = stderr
			logOnFailure(t, "kontext", stderr)
			client := mcp.NewClient(&mcp.Implementation{Name: "complete", Version: "1"}, nil)
			cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: era.ask})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			if caps := cs.InitializeResult().Capabilities; caps == nil || caps.Completions == nil {
				t.Fatalf("no completions capability: %+v", caps)
			}

			complete := func(ref *mcp.CompleteReference, arg, value string) []string {
				t.Helper()
				res, err := cs.Complete(ctx, &mcp.CompleteParams{Ref: ref, Argument: mcp.CompleteParamsArgument{Name: arg, Value: value}})
				if err != nil {
					t.Fatalf("completing %s of %+v: %v", arg, ref, err)
				}
				if res.Completion.Total != len(res.Completion.Values) || res.Completion.HasMore {
					t.Errorf("total %d, hasMore %v for %d values", res.Completion.Total, res.Completion.HasMore, len(res.Completion.Values))
				}
				return res.Completion.Values
			}
			entry := &mcp.CompleteReference{Type: "ref/resource", URI: "kontext://entry/{id}"}
			if got, want := complete(entry, "id", "2026-01-0"), []string{"2026-01-07-keep-carts-in-redis", "2026-01-05-store-orders-in-postgres", "2026-01-03-store-orders-in-files"}; !slices.Equal(got, want) {
				t.Errorf("entry ids: %q, want %q", got, want)
			}
			if got := complete(entry, "id", "2027"); len(got) != 0 {
				t.Errorf("entry ids of 2027: %q, want none", got)
			}
			for _, prompt := range []string{"review_change_impact", "explain_architecture"} {
				ref := &mcp.CompleteReference{Type: "ref/prompt", Name: prompt}
				if got, want := complete(ref, "target", "src/ord"), []string{"src/orders", "src/ordersapi"}; !slices.Equal(got, want) {
					t.Errorf("%s target: %q, want %q", prompt, got, want)
				}
			}
			if got, want := complete(&mcp.CompleteReference{Type: "ref/prompt", Name: "kontext-init"}, "tasks", ""), []string{"1", "2", "3", "4", "5"}; !slices.Equal(got, want) {
				t.Errorf("kontext-init tasks: %q, want %q", got, want)
			}
			_, err = cs.Complete(ctx, &mcp.CompleteParams{Ref: &mcp.CompleteReference{Type: "ref/prompt", Name: "no_such_prompt"}, Argument: mcp.CompleteParamsArgument{Name: "target", Value: ""}})
			if werr, data := wireError(t, err); werr.Code != -32602 || data["prompt"] != "no_such_prompt" {
				t.Errorf("an unknown prompt: %d %v, want -32602 naming it", werr.Code, data)
			}
			cs.Close()
			validateWire(t, readTraces(t, tracesIn(t, traces)))
		})
	}
}
