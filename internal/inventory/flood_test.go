package inventory_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/kontext-dev/kontext/internal/fsroot"
	"github.com/kontext-dev/kontext/internal/git"
	"github.com/kontext-dev/kontext/internal/gittest"
	"github.com/kontext-dev/kontext/internal/inventory"
	"github.com/kontext-dev/kontext/internal/mcp"
)

// A flood of tool calls of both toolsets, all sent before the first is
// answered (it started 171 concurrent git processes before): every call is
// answered or refused, at most 16 handlers run, the rest wait or are
// refused with -32603, and never more than the bound of git processes runs.
func TestFloodIsBoundedAndEveryCallAnswered(t *testing.T) {
	dir := t.TempDir()
	run := func(args ...string) { gittest.Git(t, dir, args...) }
	run("init", "-q", "-b", "main")
	for i := range 5 {
		p := filepath.Join(dir, "src", fmt.Sprintf("f%d.go", i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(fmt.Sprintf("package src\n\nfunc F%d() {}\n", i)), 0o644); err != nil {
			t.Fatal(err)
		}
		run("add", ".")
		run("commit", "-q", "-m", fmt.Sprintf("Add F%d", i))
	}
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
	serverEnd, clientEnd := mcp.NewInMemoryTransport()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(context.Background(), serverEnd) }()

	calls := []string{
		`{"name":"ctx_why","arguments":{"target":"src/f1.go:1-3"}}`,
		`{"name":"ctx_why","arguments":{"target":"F3"}}`,
		`{"name":"ctx_log","arguments":{}}`,
		`{"name":"ctx_search","arguments":{"query":"F2"}}`,
		`{"name":"get_module_history","arguments":{"target":"src"}}`,
		`{"name":"get_revision_diff","arguments":{"revision":"HEAD"}}`,
	}
	const flood = 400
	var lines []byte
	lines = append(lines, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n"...)
	for i := 1; i <= flood; i++ {
		lines = append(lines, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":%s}`+"\n", i, calls[i%len(calls)])...)
	}
	git.ResetPeak()
	// One write: the server reads the whole flood before answering much.
	if _, err := clientEnd.Write(lines); err != nil {
		t.Fatal(err)
	}
	answers := bufio.NewScanner(clientEnd)
	answers.Buffer(nil, 8<<20)
	results, refused := 0, 0
	for results+refused < flood+1 {
		if !answers.Scan() {
			t.Fatalf("the server stopped after %d answers: %v", results+refused, answers.Err())
		}
		var m struct {
			ID     int             `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Code int `json:"code"`
				Data struct {
					MaxInFlight int `json:"maxInFlight"`
				} `json:"data"`
			} `json:"error"`
		}
		if err := json.Unmarshal(answers.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		switch {
		case m.Result != nil:
			results++
		case m.Error != nil && m.Error.Code == -32603 && m.Error.Data.MaxInFlight == mcp.DefaultMaxInFlight:
			refused++
		default:
			t.Fatalf("answer %s", answers.Bytes())
		}
	}
	clientEnd.Close()
	if err := <-served; err != nil {
		t.Fatal(err)
	}
	peak := git.Processes().Peak
	t.Logf("%d calls: %d answered, %d refused; at most %d git processes at once", flood, results-1, refused, peak)
	if peak > git.MaxProcesses+git.MaxBatchReaders {
		t.Errorf("%d git processes ran at once, want at most %d commands and %d batch readers", peak, git.MaxProcesses, git.MaxBatchReaders)
	}
	if results-1 < mcp.DefaultMaxInFlight+mcp.DefaultMaxQueued {
		t.Errorf("only %d calls were answered; the session holds %d", results-1, mcp.DefaultMaxInFlight+mcp.DefaultMaxQueued)
	}
}
