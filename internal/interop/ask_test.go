package interop_test

// The official Go SDK client answering kontext's questions: roots,
// elicitation and sampling handlers, over stdio, in both eras (JSON-RPC
// requests from the server in 2025-11-25; input_required and the SDK's
// automatic retry in 2026-07-28), against the testkit's ask_client.

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestGoSDKAnswersQuestions(t *testing.T) {
	requireSetup(t)
	for _, era := range []struct{ name, ask, want string }{
		{"legacy", "2025-11-25", "2025-11-25"},
		{"modern", "", "2026-07-28"},
	} {
		t.Run(era.name, func(t *testing.T) {
			client := mcp.NewClient(&mcp.Implementation{Name: "kontext-interop-go-sdk", Version: "1.0.0"}, &mcp.ClientOptions{
				Capabilities: &mcp.ClientCapabilities{RootsV2: &mcp.RootCapabilities{ListChanged: true}},
				ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					if strings.Contains(req.Params.Message, "color") {
						return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"color": "blue"}}, nil
					}
					return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Alice"}}, nil
				},
				CreateMessageHandler: func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
					return &mcp.CreateMessageResult{Role: "assistant", Model: "test-model", Content: &mcp.TextContent{Text: "Paris"}, StopReason: "endTurn"}, nil
				},
			})
			client.AddRoots(&mcp.Root{URI: "file:///work/repo", Name: "repo"})
			cs := askingConnect(t, client, era.ask)
			if got := cs.InitializeResult().ProtocolVersion; got != era.want {
				t.Fatalf("negotiated %s, want %s", got, era.want)
			}
			ctx := context.Background()
			for _, c := range []struct{ what, want string }{
				{"roots", `roots: [{"name":"repo","uri":"file:///work/repo"}]`},
				{"elicit", `name: accept {"name":"Alice"}`},
				{"sample", `"text":"Paris"`},
				{"all", "name: accept {\"name\":\"Alice\"}\nmessage: "},
				{"twice", "name: accept {\"name\":\"Alice\"}\ncolor: accept {\"color\":\"blue\"}"},
				{"ping", "the client answered ping"},
			} {
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask_client", Arguments: map[string]any{"what": c.what}})
				if err != nil {
					t.Fatalf("%s: %v", c.what, err)
				}
				if got := textContent(t, res); res.IsError || !strings.Contains(got, c.want) {
					t.Errorf("%s: got %q (isError %v), want it to contain %q", c.what, got, res.IsError, c.want)
				}
			}
		})
	}
}

// TestGoSDKWithoutCapabilities: a client that declares nothing is asked
// nothing, and the handler's question fails clearly.
func TestGoSDKWithoutCapabilities(t *testing.T) {
	requireSetup(t)
	client := mcp.NewClient(&mcp.Implementation{Name: "kontext-interop-go-sdk", Version: "1.0.0"}, &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{},
	})
	cs := askingConnect(t, client, "2025-11-25")
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "ask_client", Arguments: map[string]any{"what": "roots"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := textContent(t, res); !res.IsError || !strings.Contains(got, "did not declare the roots capability") {
		t.Errorf("got %q (isError %v), want an error result naming the roots capability", got, res.IsError)
	}
}

// askingConnect starts kontext-testkit serving ask_client and connects.
func askingConnect(t *testing.T, client *mcp.Client, ask string) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(testkitBin, testkitArgs(t.TempDir())...)
	cmd.Env = append(os.Environ(), "KONTEXT_TESTKIT_ASKING=1")
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
