package inventory_test

import (
	"bufio"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kontext-dev/kontext/internal/fsroot"
	"github.com/kontext-dev/kontext/internal/gittest"
	"github.com/kontext-dev/kontext/internal/inventory"
	"github.com/kontext-dev/kontext/internal/mcp"
)

// kontextHTTP starts `kontext mcp --http` (the test binary as kontext, see
// TestMain) with extra arguments and returns its URL, read from stderr, and
// the process.
func kontextHTTP(t *testing.T, dir string, extra ...string) (string, *exec.Cmd) {
	t.Helper()
	cmd := exec.Command("kontext", append([]string{"mcp", "--root", dir, "--log-level", "warn"}, extra...)...)
	cmd.Env = append(os.Environ(), "KONTEXT_CONFIG_DIR="+filepath.Join(dir, ".no-user-config"))
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		pattern := regexp.MustCompile(`^kontext: serving MCP at (http://127\.0\.0\.1:\d+/mcp)$`)
		for sc.Scan() {
			if m := pattern.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
	}()
	select {
	case url := <-found:
		if strings.HasSuffix(url, ":0/mcp") {
			t.Fatalf("the URL names port 0: %s", url)
		}
		return url, cmd
	case <-time.After(20 * time.Second):
		t.Fatal("kontext mcp --http printed no URL within 20 s")
		return "", nil
	}
}

func smallRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	gittest.Git(t, dir, "init", "-q", "-b", "main")
	gittest.WriteFile(t, dir, "main.go", "package main\n\nfunc main() {}\n")
	gittest.Git(t, dir, "add", ".")
	gittest.Git(t, dir, "commit", "-q", "-m", "First")
	return dir
}

// A real kontext mcp --http process on port 0: it prints its URL, serves
// the official Go SDK's streamable client in every revision the SDK speaks
// (both eras), and exits 0 on SIGTERM.
func TestMCPOverHTTPProcess(t *testing.T) {
	dir := smallRepo(t)
	url, cmd := kontextHTTP(t, dir, "--http", "127.0.0.1:0")
	for _, version := range []string{"2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			client := sdk.NewClient(&sdk.Implementation{Name: "go-sdk", Version: "1"}, nil)
			cs, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url, MaxRetries: -1}, &sdk.ClientSessionOptions{ProtocolVersion: version})
			if err != nil {
				t.Fatalf("connect: %v", err)
			}
			defer cs.Close()
			if got := cs.InitializeResult(); got == nil || got.ProtocolVersion != version {
				t.Errorf("negotiated %+v, want %s", got, version)
			}
			tools, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tool := range tools.Tools {
				names = append(names, tool.Name)
			}
			for _, want := range []string{"ctx_brief", "get_architecture"} {
				if !slices.Contains(names, want) {
					t.Errorf("tools/list lacks %s: %v", want, names)
				}
			}
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "get_architecture", Arguments: map[string]any{}})
			if err != nil {
				t.Fatal(err)
			}
			if res.IsError {
				t.Errorf("get_architecture failed: %+v", res.Content)
			}
		})
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("after SIGTERM: %v, want exit status 0", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("kontext did not exit within 15 s of SIGTERM")
	}
}

// Beyond loopback a token is required; with one, a request without it is
// 401.
func TestMCPOverHTTPSecurity(t *testing.T) {
	dir := smallRepo(t)
	out, err := exec.Command("kontext", "mcp", "--root", dir, "--http", "0.0.0.0:0").CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 2 || !strings.Contains(string(out), "--http-token-file") {
		t.Fatalf("non-loopback without a token: %v\n%s", err, out)
	}
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	url, _ := kontextHTTP(t, dir, "--http", "127.0.0.1:0", "--http-token-file", tokenFile)
	for _, c := range []struct {
		auth string
		want int
	}{{"", 401}, {"Bearer wrong", 401}, {"Bearer s3cret", 200}} {
		req, _ := http.NewRequest("POST", url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if c.auth != "" {
			req.Header.Set("Authorization", c.auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Errorf("Authorization %q: %s, want %d", c.auth, resp.Status, c.want)
		}
	}
}

// Many HTTP sessions, of both eras and all at once, share the server's one
// engine: the repository is analysed once, whatever the number of clients.
func TestHTTPSessionsShareOneAnalysis(t *testing.T) {
	dir := smallRepo(t)
	t.Setenv("KONTEXT_CONFIG_DIR", filepath.Join(dir, ".no-user-config"))
	root, err := fsroot.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	var sets []*mcp.Toolset
	var attach []func(*mcp.Server)
	for _, f := range inventory.Shipped() {
		ts, a, err := f.Open(root)
		if err != nil {
			t.Fatal(err)
		}
		sets = append(sets, ts)
		if a != nil {
			attach = append(attach, a)
		}
	}
	srv, err := mcp.NewServer(mcp.Implementation{Name: "kontext", Version: "test"}, mcp.Options{}, sets...)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range attach {
		a(srv)
	}
	// Last of all, once the sessions have ended, the toolsets release
	// their watcher and index, which would otherwise still write under the
	// test's directory while it is removed.
	defer func() {
		for _, set := range sets {
			if set.Close != nil {
				set.Close()
			}
		}
	}()
	endpoint := srv.NewStreamableHandler(mcp.StreamableOptions{})
	ts := httptest.NewServer(mcp.HTTPGuard{}.Wrap(endpoint))
	defer ts.Close()
	defer endpoint.Close(context.Background())

	before := inventory.SharedEngineStats()
	versions := []string{"2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			client := sdk.NewClient(&sdk.Implementation{Name: "go-sdk", Version: "1"}, nil)
			cs, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: ts.URL, MaxRetries: -1}, &sdk.ClientSessionOptions{ProtocolVersion: versions[i%len(versions)]})
			if err != nil {
				t.Errorf("session %d: %v", i, err)
				return
			}
			defer cs.Close()
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "get_architecture", Arguments: map[string]any{}})
			if err != nil || res.IsError {
				t.Errorf("session %d: get_architecture: %v %+v", i, err, res)
			}
		}()
	}
	wg.Wait()
	after := inventory.SharedEngineStats()
	if n := (after.FullScans + after.CacheLoads) - (before.FullScans + before.CacheLoads); n != 1 {
		t.Fatalf("8 sessions ran %d analyses, want 1 (before %+v, after %+v)", n, before, after)
	}
}
