package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// These tests run kontext as its users do: a binary built from this
// checkout, started by make, by hand on a terminal, by a client on a pipe.

// moduleRoot is the checkout the package is in (tests run in cmd/kontext).
func moduleRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("no go.mod at %s: %v", root, err)
	}
	return root
}

// build compiles cmd/kontext into dir, with flags.
func build(t *testing.T, dir string, flags ...string) string {
	t.Helper()
	bin := filepath.Join(dir, "kontext")
	args := append(append([]string{"build"}, flags...), "-o", bin, ".")
	cmd := exec.Command("go", args...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

var (
	plainOnce sync.Once
	plainDir  string
	plainBin  string
	plainErr  error
)

// plainBuild is one default build shared by the tests that need no stamps.
func plainBuild(t *testing.T) string {
	t.Helper()
	plainOnce.Do(func() {
		if plainDir, plainErr = os.MkdirTemp("", "kontext-test-"); plainErr != nil {
			return
		}
		plainBin = filepath.Join(plainDir, "kontext")
		out, err := exec.Command("go", "build", "-o", plainBin, ".").CombinedOutput()
		if err != nil {
			plainErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if plainErr != nil {
		t.Fatal(plainErr)
	}
	return plainBin
}

func TestMain(m *testing.M) {
	code := m.Run()
	if plainDir != "" {
		os.RemoveAll(plainDir)
	}
	os.Exit(code)
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).Output()
	if err != nil {
		t.Skipf("git %s in %s: %v (not a git checkout?)", strings.Join(args, " "), dir, err)
	}
	return strings.TrimSpace(string(out))
}

// kontext version and --version name the commit the binary was built
// from, its time, and whether the checkout had uncommitted changes, as go
// build stamped them; compared with what git says about the checkout.
func TestVersionNamesTheRevisionItWasBuiltFrom(t *testing.T) {
	root := moduleRoot(t)
	head := git(t, root, "rev-parse", "HEAD")
	committed, err := strconv.ParseInt(git(t, root, "show", "-s", "--format=%ct", "HEAD"), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	dirty := git(t, root, "status", "--porcelain") != ""
	bin := build(t, t.TempDir(), "-buildvcs=true")

	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	flag, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, flag) {
		t.Errorf("kontext version and kontext --version differ:\n%s\n%s", out, flag)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "kontext ") || !strings.HasPrefix(lines[3], "MCP 2026-07-28, ") {
		t.Fatalf("unexpected version text:\n%s", out)
	}
	want := "revision " + head + " (" + time.Unix(committed, 0).UTC().Format(time.RFC3339)
	if dirty {
		want += ", with uncommitted changes"
	}
	if lines[1] != want+")" {
		t.Errorf("revision line %q, want %q", lines[1], want+")")
	}
}

// Built without VCS stamps, it says so instead of inventing a revision.
func TestVersionWithoutVCSStampsSaysSo(t *testing.T) {
	bin := build(t, t.TempDir(), "-buildvcs=false")
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "\nrevision unknown (not built from a git checkout)\n") {
		t.Errorf("version text:\n%s", out)
	}
}

// make run is what the README tells a new user to run, and what a client
// may be configured to start: its stdout must carry JSON-RPC and nothing
// else, not make's echo of the recipe nor the build's output. It is run
// as a client would start it, in the checkout and, with -s, from elsewhere.
func TestMakeRunWritesOnlyJSONRPC(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make here:", err)
	}
	root := moduleRoot(t)
	for _, args := range [][]string{{"run"}, {"-s", "-C", root, "run"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			cmd := exec.Command("make", args...)
			cmd.Dir = root
			if len(args) > 1 {
				cmd.Dir = t.TempDir()
			}
			// A client's environment, not that of a make running this test:
			// MAKELEVEL would make the inner make announce its directory.
			cmd.Env = withoutMake(os.Environ())
			cmd.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"make-test","version":"1"}}}` + "\n")
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("make %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
			}
			if !bytes.HasSuffix(stdout.Bytes(), []byte("\n")) {
				t.Fatalf("stdout does not end in a line break:\n%s", stdout.String())
			}
			answered := false
			for i, line := range strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n") {
				var msg struct {
					JSONRPC string          `json:"jsonrpc"`
					ID      json.RawMessage `json:"id"`
					Result  *struct {
						ProtocolVersion string `json:"protocolVersion"`
					} `json:"result"`
				}
				if err := json.Unmarshal([]byte(line), &msg); err != nil || msg.JSONRPC != "2.0" {
					t.Fatalf("stdout line %d is not JSON-RPC 2.0 (%v): %q\nall of stdout:\n%s", i+1, err, line, stdout.String())
				}
				if string(msg.ID) == "1" && msg.Result != nil && msg.Result.ProtocolVersion == "2025-11-25" {
					answered = true
				}
			}
			if !answered {
				t.Errorf("no answer to initialize on stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
			}
		})
	}
}

func withoutMake(env []string) []string {
	var out []string
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "MAKEFLAGS", "MAKELEVEL", "MFLAGS", "MAKEOVERRIDES":
			continue
		}
		out = append(out, kv)
	}
	return out
}

// gitRepo is an empty repository for kontext mcp to serve.
func gitRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command("git", "init", "-q", dir).CombinedOutput(); err != nil {
		t.Skipf("git init: %v\n%s", err, out)
	}
	return dir
}

// A client starts kontext mcp on a pipe: no word about terminals.
func TestMCPOnAPipeSaysNothingAboutWaiting(t *testing.T) {
	bin := plainBuild(t)
	cmd := exec.Command(bin, "mcp")
	cmd.Dir = gitRepo(t)
	cmd.Stdin = strings.NewReader("")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if len(out) != 0 || strings.Contains(stderr.String(), "waiting for an MCP client") {
		t.Errorf("stdout %q, stderr:\n%s", out, stderr.String())
	}
}

// readLines copies r's lines to a channel, closing it at the end.
func readLines(r *os.File) <-chan string {
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	return lines
}
