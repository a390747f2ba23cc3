//go:build linux || darwin

package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
)

// Started by hand on a terminal, kontext mcp looks as if it hung; it says
// on stderr, once, that it waits for a client and how to configure one,
// and stdout stays JSON-RPC only (here: nothing). Ctrl-D ends it.
func TestMCPOnATerminalSaysItIsWaiting(t *testing.T) {
	bin := plainBuild(t)
	terminal, tty, err := pty.Open()
	if err != nil {
		t.Skip("no pseudo-terminal here:", err)
	}
	defer terminal.Close()

	// The context only keeps a broken build from hanging the test run.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "mcp")
	cmd.Dir = gitRepo(t)
	cmd.Stdin = tty
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	stderrR, stderrW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = stderrW
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close()
	stderrW.Close()

	// End of input, as a user ends it: Ctrl-D at the start of a line. The
	// terminal holds it until kontext reads, by when the notice is out.
	if _, err := terminal.Write([]byte{4}); err != nil {
		t.Fatal(err)
	}
	var stderr []string
	for line := range readLines(stderrR) {
		stderr = append(stderr, line)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("kontext mcp: %v\nstderr:\n%s", err, strings.Join(stderr, "\n"))
	}
	all := strings.Join(stderr, "\n")
	if n := strings.Count(all, "waiting for an MCP client"); n != 1 {
		t.Errorf("the notice appears %d times, want once:\n%s", n, all)
	}
	if !strings.Contains(all, "kontext mcp is waiting for an MCP client on stdin; a client starts it itself. To connect one: kontext config --list, then e.g. kontext config cursor --write. Ctrl-D or Ctrl-C ends it.") {
		t.Errorf("stderr:\n%s", all)
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout is for JSON-RPC only, got %q", stdout.String())
	}
}
