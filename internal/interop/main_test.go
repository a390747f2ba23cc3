// Package interop_test is kontext's interop suite: real third-party MCP
// clients (the TypeScript SDK v1 and v2 clients, the official Go SDK) drive a
// real kontext-testkit process over stdio, kontext's own client
// (internal/mcp) drives the TypeScript SDK's reference server
// (server-everything), and every message kontext-testkit writes is validated
// against the official JSON Schema of the revision it negotiated.
//
// The npm packages come from testdata/node/package-lock.json (make interop-deps).
// Without them the tests that need them skip, unless KONTEXT_INTEROP=1, which
// makes a missing install a failure (make interop, CI).
package interop_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

var (
	// repoRoot is the module root (the directory holding go.mod).
	repoRoot string
	// testkitBin is kontext-testkit, built once by TestMain.
	testkitBin string
	// kontextBin is the shipped kontext, built once by TestMain.
	kontextBin string
	// notesBin is examples/notes, the example App Context application.
	notesBin string
	// setupErr is why TestMain could not prepare the suite.
	setupErr error
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "kontext-interop-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	setupErr = setup(dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func setup(dir string) error {
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			repoRoot = d
			break
		}
		if filepath.Dir(d) == d {
			return fmt.Errorf("no go.mod above %s", wd)
		}
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	testkitBin = filepath.Join(dir, "kontext-testkit")
	cmd := exec.Command(goBin, "build", "-o", testkitBin, "./internal/mcptest/cmd/kontext-testkit")
	cmd.Dir = repoRoot
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("building kontext-testkit: %v\n%s", err, out)
	}
	kontextBin = filepath.Join(dir, "kontext")
	cmd = exec.Command(goBin, "build", "-o", kontextBin, "./cmd/kontext")
	cmd.Dir = repoRoot
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("building kontext: %v\n%s", err, out)
	}
	notesBin = filepath.Join(dir, "notes")
	cmd = exec.Command(goBin, "build", "-o", notesBin, "./examples/notes")
	cmd.Dir = repoRoot
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("building examples/notes: %v\n%s", err, out)
	}
	return nil
}

// requireSetup stops a test when TestMain could not build the server.
func requireSetup(t *testing.T) {
	t.Helper()
	if setupErr != nil {
		t.Fatal(setupErr)
	}
}

// interopRequired reports whether a missing npm install is a failure.
func interopRequired() bool { return os.Getenv("KONTEXT_INTEROP") == "1" }

// skipOrFail skips the test, or fails it when KONTEXT_INTEROP=1.
func skipOrFail(t *testing.T, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if interopRequired() {
		t.Fatal(msg + " (KONTEXT_INTEROP=1 makes this a failure)")
	}
	t.Skip(msg)
}

// npmDir returns the npm package of the suite (testdata/node), after checking that node is on PATH and the npm
// packages are installed.
func npmDir(t *testing.T) (node, dir string) {
	t.Helper()
	requireSetup(t)
	dir = filepath.Join(repoRoot, "internal", "interop", "testdata", "node")
	node, err := exec.LookPath("node")
	if err != nil {
		skipOrFail(t, "node is not on PATH; the interop suite needs Node 20 or later")
	}
	out, err := exec.Command(node, "--version").Output()
	var major int
	if _, scanErr := fmt.Sscanf(string(out), "v%d.", &major); err != nil || scanErr != nil || major < 20 {
		skipOrFail(t, "the interop suite needs Node 20 or later; %s --version says %q", node, strings.TrimSpace(string(out)))
	}
	for _, pkg := range []string{"sdk", "client", "server-everything", "server-memory"} {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", pkg, "package.json")); err != nil {
			skipOrFail(t, "internal/interop/testdata/node/node_modules lacks @modelcontextprotocol/%s: run `make interop-deps` (npm ci --prefix internal/interop/testdata/node)", pkg)
		}
	}
	return node, dir
}

// schemaDir returns the folder of the official MCP JSON Schemas (one
// <revision>/schema.json each): $KONTEXT_MCP_SCHEMA_DIR, or ../shared/mcp-schema
// beside the repository. ok is false when it does not exist.
func schemaDir() (dir string, ok bool) {
	dir = os.Getenv("KONTEXT_MCP_SCHEMA_DIR")
	if dir == "" {
		dir = filepath.Join(repoRoot, "..", "shared", "mcp-schema")
	}
	st, err := os.Stat(dir)
	return dir, err == nil && st.IsDir()
}

// syncBuffer collects a child process's stderr; it is shown when the test
// fails.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// logOnFailure shows what a child process wrote to stderr when t failed.
func logOnFailure(t *testing.T, name string, buf *syncBuffer) {
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("stderr of %s:\n%s", name, buf.String())
		}
	})
}

// testkitArgs are the arguments that serve MCP on root.
func testkitArgs(root string, extra ...string) []string {
	return append([]string{"mcp", "--root", root, "--log-level", "warn"}, extra...)
}

// traceFile returns a fresh trace path in dir for one server process.
func traceFile(dir, name string) string {
	return filepath.Join(dir, name+".jsonl")
}

// tracesIn lists the trace files a test's servers wrote.
func tracesIn(t *testing.T, dir string) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Fatalf("no trace was written in %s: is KONTEXT_TRACE honoured?", dir)
	}
	return paths
}
