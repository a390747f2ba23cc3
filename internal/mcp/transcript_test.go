package mcp_test

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"golang.org/x/tools/txtar"

	"github.com/kontext-dev/kontext/gen/protocol"
	"github.com/kontext-dev/kontext/internal/fsroot"
	"github.com/kontext-dev/kontext/internal/inventory"
	"github.com/kontext-dev/kontext/internal/knowledge"
	knowledgetools "github.com/kontext-dev/kontext/internal/knowledge/tools"
	"github.com/kontext-dev/kontext/internal/mcp"
	"github.com/kontext-dev/kontext/internal/mcptest"
)

var update = flag.Bool("update", false, "rewrite the expected side of transcripts and snapshots")

// TestTranscripts replays the wire-level scenarios in testdata/transcripts.
//
// Each file has a prose header, a "flags" section (server options as
// key=value words), a "client" section and the expected "server" section.
// The client lines are sent one at a time inside a synctest bubble; after
// each, the test waits until every goroutine is blocked and collects what the
// server wrote, so the order of the transcript is deterministic and time is
// fake. Directives in the client section:
//
//	# sleep 1.5s   let fake time pass (timers fire: timeouts, slow tools)
//	# reconnect    end this connection (EOF) and open a new one
//	# comment      anything else starting with "#" is a comment
//
// The flag "completers" serves completersToolset beside the testkit: a
// prompt and a template whose completers exercise the runtime's bounds.
//
// $ROOT in a client line stands for the root directory.
//
// The flag "asking" serves the testkit's ask_client; "asktimeout=D"
// bounds the server's requests to the client; "discover" starts the
// server with no root (see discovery). requestState is sealed with a
// fixed key, so that the states in a transcript stay the same from run to
// run.
//
// The flag "shipped" serves the toolsets kontext ships (knowledge, repo)
// beside the testkit, for transcripts of what their specs declare. The root
// is no git repository: a knowledge handler that runs answers at once that
// it needs one (in a repository it would start a file watcher, whose read
// of inotify never counts as blocked in a bubble), and repo tools are
// called only with arguments they refuse (an analysis would outlive the
// bubble). What the handlers do with the arguments is tested on real
// repositories in internal/inventory and internal/interop.
//
// go test ./internal/mcp -run TestTranscripts -update rewrites the server
// sections from what the server now says.
func TestTranscripts(t *testing.T) {
	files, err := filepath.Glob("testdata/transcripts/*.txtar")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no transcripts")
	}
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			runTranscript(t, file)
		})
	}
}

func runTranscript(t *testing.T, file string) {
	ar, err := txtar.ParseFile(file)
	if err != nil {
		t.Fatal(err)
	}
	sections := map[string][]byte{}
	for _, f := range ar.Files {
		sections[f.Name] = f.Data
	}
	client, ok := sections["client"]
	if !ok {
		t.Fatalf("%s has no client section", file)
	}
	dir := t.TempDir()
	var shipped []opened
	if slices.Contains(strings.Fields(string(sections["flags"])), "shipped") {
		shipped = openShipped(t, dir)
	}
	var got []string
	synctest.Test(t, func(t *testing.T) {
		got = replay(t, dir, string(sections["flags"]), string(client), shipped)
	})
	gotText := strings.Join(got, "\n")
	if len(got) > 0 {
		gotText += "\n"
	}
	gotText = strings.ReplaceAll(gotText, dir, "$ROOT")
	if *update {
		var files []txtar.File
		for _, f := range ar.Files {
			if f.Name != "server" {
				files = append(files, f)
			}
		}
		files = append(files, txtar.File{Name: "server", Data: []byte(gotText)})
		ar.Files = files
		if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want := string(sections["server"])
	if gotText != want {
		t.Errorf("%s: the server said something else (go test ./internal/mcp -run TestTranscripts -update rewrites it)\n%s", file, lineDiff(want, gotText))
	}
}

// options reads the flags section.
func options(t *testing.T, flags string) (mcp.Options, int) {
	opts := mcp.Options{}
	maxBytes := 0
	for _, word := range strings.Fields(flags) {
		key, value, _ := strings.Cut(word, "=")
		switch key {
		case "timeout":
			d, err := time.ParseDuration(value)
			if err != nil {
				t.Fatal(err)
			}
			opts.RequestTimeout = d
		case "pagesize":
			opts.PageSize, _ = strconv.Atoi(value)
		case "maxbytes":
			maxBytes, _ = strconv.Atoi(value)
			opts.MaxMessageBytes = maxBytes
		case "readonly":
			opts.Filter.ReadOnly = true
		case "toolsets":
			opts.Filter.Toolsets = strings.Split(value, ",")
		case "tools":
			opts.Filter.Tools = strings.Split(value, ",")
		case "asktimeout":
			d, err := time.ParseDuration(value)
			if err != nil {
				t.Fatal(err)
			}
			opts.AskTimeout = d
		case "discover":
			// Set up by replay, which has the toolsets.
		case "shipped", "asking", "completers":
		default:
			t.Fatalf("unknown flag %q", word)
		}
	}
	return opts, maxBytes
}

// opened is a shipped toolset, the function that gives it its server, and
// what releases it.
type opened struct {
	toolset *mcp.Toolset
	attach  func(*mcp.Server)
	close   func()
}

// openShipped opens the shipped toolsets on dir.
func openShipped(t *testing.T, dir string) []opened {
	t.Helper()
	root, err := fsroot.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	svc := knowledge.NewService(dir)
	h := knowledgetools.New(svc)
	repoSet, _, err := inventory.Repo().Open(root)
	if err != nil {
		t.Fatal(err)
	}
	return []opened{
		{h.Toolset(), h.Attach, func() { svc.Close() }},
		{repoSet, nil, func() {}},
	}
}

// replay runs one transcript inside the bubble and returns the server lines.
func replay(t *testing.T, dir, flags, client string, shipped []opened) []string {
	opts, _ := options(t, flags)
	root, err := fsroot.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	kit := mcptest.New(root)
	if slices.Contains(strings.Fields(flags), "asking") {
		kit = mcptest.NewAsking(root)
	}
	mcp.SetRequestStateKey([]byte("the transcripts' requestState key"))
	sets := []*mcp.Toolset{kit.Toolset()}
	if slices.Contains(strings.Fields(flags), "completers") {
		sets = append(sets, completersToolset())
	}
	for _, o := range shipped {
		sets = append(sets, o.toolset)
	}
	var srv *mcp.Server
	if slices.Contains(strings.Fields(flags), "discover") {
		opts.RootDiscovery = discovery(t, dir, &srv)
	}
	srv, err = mcp.NewServer(mcp.Implementation{Name: "kontext", Title: "kontext", Version: "test"}, opts, sets...)
	if err != nil {
		t.Fatal(err)
	}
	kit.Attach(srv)
	for _, o := range shipped {
		if o.attach != nil {
			o.attach(srv)
		}
	}

	var (
		mu  sync.Mutex
		out []string
	)
	type conn struct {
		clientEnd io.ReadWriteCloser
		done      chan struct{}
	}
	open := func() conn {
		serverEnd, clientEnd := mcp.NewInMemoryTransport()
		c := conn{clientEnd: clientEnd, done: make(chan struct{})}
		go func() {
			srv.Serve(context.Background(), serverEnd)
			serverEnd.Close()
		}()
		go func() {
			defer close(c.done)
			sc := bufio.NewScanner(clientEnd)
			sc.Buffer(nil, 16<<20)
			for sc.Scan() {
				mu.Lock()
				out = append(out, sc.Text())
				mu.Unlock()
			}
		}()
		return c
	}
	closeConn := func(c conn) {
		c.clientEnd.Close()
		synctest.Wait()
		// Whatever the drain still answers arrives before the server end
		// closes; give the drain its full timeout.
		time.Sleep(10 * time.Second)
		<-c.done
	}

	cur := open()
	for _, line := range strings.Split(client, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "":
			continue
		case strings.HasPrefix(line, "# sleep "):
			d, err := time.ParseDuration(strings.TrimPrefix(line, "# sleep "))
			if err != nil {
				t.Fatal(err)
			}
			time.Sleep(d)
		case line == "# reconnect":
			closeConn(cur)
			cur = open()
		case strings.HasPrefix(line, "#"):
			continue
		case strings.HasPrefix(line, "<<big "):
			// <<big N: a line of N bytes (for the size limit).
			n, _ := strconv.Atoi(strings.TrimPrefix(line, "<<big "))
			cur.clientEnd.Write(append(bytes.Repeat([]byte("x"), n), '\n'))
		default:
			// $ROOT in a client line is the root directory, as in the output.
			cur.clientEnd.Write([]byte(strings.ReplaceAll(line, "$ROOT", dir) + "\n"))
		}
		synctest.Wait()
	}
	closeConn(cur)
	for _, o := range shipped {
		o.close()
	}
	mu.Lock()
	defer mu.Unlock()
	return append([]string(nil), out...)
}

// discovery is the root discovery of the flag "discover": the server
// starts with no root and serves the testkit on the first root whose URI
// is file://$ROOT; other roots are not work trees.
func discovery(t *testing.T, dir string, srv **mcp.Server) *mcp.RootDiscovery {
	return &mcp.RootDiscovery{
		Hint: "kontext serves no repository yet: name one with --root DIR",
		Roots: func(_ context.Context, roots []protocol.Root) {
			for _, r := range roots {
				if r.URI != "file://"+dir {
					continue
				}
				root, err := fsroot.Open(dir)
				if err != nil {
					t.Error(err)
					return
				}
				kit := mcptest.New(root)
				if err := (*srv).Rebase(kit.Toolset()); err != nil {
					t.Error(err)
				}
				kit.Attach(*srv)
				return
			}
		},
	}
}

// lineDiff shows which lines differ.
func lineDiff(want, got string) string {
	w := strings.Split(want, "\n")
	g := strings.Split(got, "\n")
	var b strings.Builder
	for i := 0; i < len(w) || i < len(g); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			b.WriteString("line " + strconv.Itoa(i+1) + ":\n  want: " + wl + "\n  got:  " + gl + "\n")
		}
	}
	return b.String()
}

// completersToolset is a toolset of completers only a test needs: paint's
// colour follows the family already chosen (context.arguments), and a
// part number has more candidates than one answer may carry.
func completersToolset() *mcp.Toolset {
	families := map[string][]string{"warm": {"red", "orange", "ochre"}, "cool": {"blue", "teal", "olive"}}
	matching := func(values []string, prefix string) *mcp.Completion {
		out := &mcp.Completion{Values: []string{}}
		for _, v := range values {
			if strings.HasPrefix(v, prefix) {
				out.Values = append(out.Values, v)
			}
		}
		return out
	}
	return &mcp.Toolset{
		Name: "completers",
		Prompts: []*mcp.Prompt{{
			Name: "paint",
			Arguments: []mcp.PromptArgument{
				{Name: "family", Complete: func(_ context.Context, req mcp.CompletionRequest) (*mcp.Completion, error) {
					return matching([]string{"cool", "warm"}, req.Value), nil
				}},
				{Name: "colour", Complete: func(_ context.Context, req mcp.CompletionRequest) (*mcp.Completion, error) {
					if colours, ok := families[req.Arguments["family"]]; ok {
						return matching(colours, req.Value), nil
					}
					return matching(append(slices.Clone(families["cool"]), families["warm"]...), req.Value), nil
				}},
				{Name: "note"},
			},
			Get: func(context.Context, map[string]string) (*mcp.PromptResult, error) {
				return &mcp.PromptResult{Messages: []mcp.PromptMessage{{Role: "user", Text: "paint"}}}, nil
			},
		}},
		Templates: []*mcp.ResourceTemplate{{
			URITemplate: "test://parts/{number}",
			Name:        "part",
			Read: func(context.Context, map[string]string) (*mcp.ResourceContents, error) {
				return nil, nil
			},
			Complete: map[string]mcp.Completer{
				"number": func(_ context.Context, req mcp.CompletionRequest) (*mcp.Completion, error) {
					var all []string
					for i := range 250 {
						all = append(all, fmt.Sprintf("%03d", i))
					}
					return matching(all, req.Value), nil
				},
			},
		}},
	}
}
