package interop_test

// Root discovery with a real kontext mcp (issue 12 point 6): started, as
// Claude Desktop and Cline start servers, in a directory that is no git
// work tree (here the home directory) and given no root, kontext serves
// the first of its client's roots that is a repository, follows the
// client when its roots change, and tells a client without roots how to
// name one. It analyses nothing it was not pointed at.

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

// unrootedKontext starts kontext mcp in home, which is also its HOME,
// with no root in its arguments or environment.
func unrootedKontext(t *testing.T, home string) (*exec.Cmd, *syncBuffer) {
	t.Helper()
	cmd := exec.Command(kontextBin, "mcp", "--log-level", "debug")
	cmd.Dir = home
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "KONTEXT_ROOT", "AGENT_CONTEXT_ROOT", "HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "KONTEXT_CONFIG_DIR":
			continue
		}
		cmd.Env = append(cmd.Env, kv)
	}
	cmd.Env = append(cmd.Env, "HOME="+home)
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	logOnFailure(t, "kontext", stderr)
	return cmd, stderr
}

// fileURI is the file:// URI of an absolute directory.
func fileURI(dir string) string { return "file://" + filepath.ToSlash(dir) }

func TestRootDiscoveryGoSDK(t *testing.T) {
	requireSetup(t)
	home := t.TempDir()
	shop := gitRepo(t)
	library := gitRepo(t)
	os.WriteFile(filepath.Join(library, "README.md"), []byte("# Library\n\nA library that lends books.\n"), 0o644)
	gitOut(t, library, "commit", "-q", "-am", "A library")

	cmd, stderr := unrootedKontext(t, home)
	client := mcp.NewClient(&mcp.Implementation{Name: "kontext-roots-check", Version: "1.0.0"}, nil)
	client.AddRoots(&mcp.Root{URI: fileURI(home), Name: "home"}, &mcp.Root{URI: "https://example.com/x"}, &mcp.Root{URI: fileURI(shop), Name: "shop"})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	// overview is what get_repository_context says of the served root.
	overview := func() string {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_repository_context", Arguments: map[string]any{}})
		if err != nil {
			t.Fatal(err)
		}
		if res.IsError {
			t.Fatalf("get_repository_context: %s", textContent(t, res))
		}
		return textContent(t, res)
	}
	if got := overview(); !strings.Contains(got, "tea") {
		t.Fatalf("served something else than the shop: %.300s", got)
	}

	// The client's roots change: kontext asks again and serves the library.
	client.RemoveRoots(fileURI(shop))
	client.AddRoots(&mcp.Root{URI: fileURI(library), Name: "library"})
	deadline := time.Now().Add(30 * time.Second)
	for got := overview(); !strings.Contains(got, "books"); got = overview() {
		if time.Now().After(deadline) {
			t.Fatalf("still not serving the library after the roots changed: %.300s", got)
		}
		time.Sleep(100 * time.Millisecond)
	}
	assertNothingAnalysed(t, home, stderr)
}

func TestRootDiscoveryWithoutRoots(t *testing.T) {
	requireSetup(t)
	for _, era := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(era, func(t *testing.T) {
			home := t.TempDir()
			cmd, stderr := unrootedKontext(t, home)
			client := mcp.NewClient(&mcp.Implementation{Name: "kontext-roots-check", Version: "1.0.0"}, &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}})
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: era})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			for _, name := range []string{"get_repository_context", "ctx_brief"} {
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: map[string]any{}})
				if err != nil {
					t.Fatal(err)
				}
				got := textContent(t, res)
				if !res.IsError || !strings.Contains(got, "--root DIR") || !strings.Contains(got, "kontext config <client> --root DIR") || !strings.Contains(got, home) {
					t.Errorf("%s: got %q (isError %v), want the hint naming %s, --root DIR and kontext config", name, got, res.IsError, home)
				}
			}
			if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "kontext://brief"}); err == nil || !strings.Contains(err.Error(), "--root DIR") {
				t.Errorf("resources/read: %v, want the hint", err)
			}
			assertNothingAnalysed(t, home, stderr)
		})
	}
}

// assertNothingAnalysed checks that kontext neither analysed nor wrote
// anything in home: the repo engine never logged a word about it, and the
// directory holds what the test put there.
func assertNothingAnalysed(t *testing.T, home string, stderr *syncBuffer) {
	t.Helper()
	for _, line := range strings.Split(stderr.String(), "\n") {
		if strings.Contains(line, "repo engine") && strings.Contains(line, "root="+home+" ") {
			t.Errorf("the repo engine worked on the home directory: %s", line)
		}
	}
	entries, err := os.ReadDir(home)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("kontext wrote %s in the home directory", e.Name())
	}
}
