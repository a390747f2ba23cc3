package interop_test

// kontext's MCP client over streamable HTTP (mcp.ConnectHTTP) against
// server-everything in its streamableHttp mode, through a reverse proxy in
// the test that records the HTTP exchanges and can cut the notification
// stream, as a network drop would.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kontext-dev/kontext/internal/mcp"
)

// everythingHTTP is server-everything serving streamable HTTP on a fixed
// port, so that it can be restarted where the client expects it.
type everythingHTTP struct {
	t      *testing.T
	node   string
	script string
	port   int
	cmd    *exec.Cmd
	log    *syncBuffer
}

func (e *everythingHTTP) start() {
	e.t.Helper()
	cmd := exec.Command(e.node, e.script, "streamableHttp")
	cmd.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", e.port))
	cmd.Stdout, cmd.Stderr = e.log, e.log
	if err := cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	e.cmd = cmd
	deadline := time.Now().Add(20 * time.Second)
	for !strings.Contains(e.log.String(), fmt.Sprintf("listening on port %d", e.port)) {
		if time.Now().After(deadline) {
			e.t.Fatalf("server-everything did not start listening:\n%s", e.log.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (e *everythingHTTP) stop() {
	if e.cmd == nil {
		return
	}
	_ = e.cmd.Process.Kill()
	_ = e.cmd.Wait()
	e.cmd = nil
}

// freePort returns a loopback port nothing listens on.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// recordingProxy forwards to the server and records what passes: the
// methods POSTed, the Last-Event-ID of each GET, DELETEs, and the messages
// that arrived on GET streams. cut ends every open GET stream.
type recordingProxy struct {
	mu          sync.Mutex
	posted      []string
	getIDs      []string
	deletes     int
	onGetStream []string // methods of the messages streamed on GETs
	lastGetID   string   // the last event id streamed on a GET
	getStatuses []int
	cancels     []context.CancelFunc
}

func (p *recordingProxy) handler(target *url.URL) http.Handler {
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.FlushInterval = -1
	rp.ErrorLog = log.New(io.Discard, "", 0) // the cuts are deliberate
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodPost:
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			var m struct {
				Method string `json:"method"`
			}
			_ = json.Unmarshal(body, &m)
			p.mu.Lock()
			p.posted = append(p.posted, m.Method)
			p.mu.Unlock()
			rp.ServeHTTP(w, r)
		case http.MethodGet:
			ctx, cancel := context.WithCancel(r.Context())
			p.mu.Lock()
			p.getIDs = append(p.getIDs, r.Header.Get("Last-Event-ID"))
			p.cancels = append(p.cancels, cancel)
			p.mu.Unlock()
			pr, pw := io.Pipe()
			done := make(chan struct{})
			go func() {
				defer close(done)
				sc := bufio.NewScanner(pr)
				sc.Buffer(make([]byte, 0, 64<<10), 8<<20)
				for sc.Scan() {
					var m struct {
						Method string `json:"method"`
					}
					if id, ok := strings.CutPrefix(sc.Text(), "id: "); ok {
						p.mu.Lock()
						p.lastGetID = id
						p.mu.Unlock()
					}
					if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok && json.Unmarshal([]byte(data), &m) == nil && m.Method != "" {
						p.mu.Lock()
						p.onGetStream = append(p.onGetStream, m.Method)
						p.mu.Unlock()
					}
				}
				_, _ = io.Copy(io.Discard, pr)
			}()
			tee := &teeWriter{ResponseWriter: w, copy: pw, status: func(status int) {
				p.mu.Lock()
				p.getStatuses = append(p.getStatuses, status)
				p.mu.Unlock()
			}}
			rp.ServeHTTP(tee, r.WithContext(ctx))
			pw.Close()
			<-done
		default:
			if r.Method == http.MethodDelete {
				p.mu.Lock()
				p.deletes++
				p.mu.Unlock()
			}
			rp.ServeHTTP(w, r)
		}
	})
}

// cut ends the open GET streams.
func (p *recordingProxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, cancel := range p.cancels {
		cancel()
	}
	p.cancels = nil
}

func (p *recordingProxy) snapshot() (posted, getIDs, onGetStream []string, deletes int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.posted...), append([]string(nil), p.getIDs...), append([]string(nil), p.onGetStream...), p.deletes
}

// teeWriter copies what the proxy writes to the client into a pipe.
type teeWriter struct {
	http.ResponseWriter
	copy   io.Writer
	status func(int) // told the status, once
	told   bool
}

func (t *teeWriter) WriteHeader(status int) {
	if !t.told {
		t.told = true
		t.status(status)
	}
	t.ResponseWriter.WriteHeader(status)
}

func (t *teeWriter) Write(b []byte) (int, error) {
	if !t.told {
		t.WriteHeader(http.StatusOK)
	}
	_, _ = t.copy.Write(b)
	return t.ResponseWriter.Write(b)
}

func (t *teeWriter) Flush() { t.ResponseWriter.(http.Flusher).Flush() }

func count(list []string, s string) int {
	n := 0
	for _, x := range list {
		if x == s {
			n++
		}
	}
	return n
}

// TestKontextHTTPClientServerEverything drives server-everything's
// streamable HTTP transport with kontext's client: tools/list, a call with
// progress, a notification on the GET stream, the stream cut and resumed
// with Last-Event-ID, and a new session after the server restarts and
// forgets the old one.
func TestKontextHTTPClientServerEverything(t *testing.T) {
	node, dir := npmDir(t)
	srv := &everythingHTTP{
		t: t, node: node, port: freePort(t), log: &syncBuffer{},
		script: filepath.Join(dir, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js"),
	}
	logOnFailure(t, "server-everything", srv.log)
	srv.start()
	t.Cleanup(srv.stop)

	target, _ := url.Parse(fmt.Sprintf("http://127.0.0.1:%d", srv.port))
	proxy := &recordingProxy{}
	front := httptest.NewServer(proxy.handler(target))
	t.Cleanup(front.Close)

	ev := newEvents()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := mcp.ConnectHTTP(ctx, front.URL+"/mcp", mcp.HTTPOptions{}, mcp.ClientOptions{
		Info: mcp.Implementation{Name: "kontext-interop", Version: "1.0.0"},
		Root: t.TempDir(), OnNotification: clientNotes(ev),
	})
	if err != nil {
		t.Fatalf("ConnectHTTP: %v", err)
	}
	closed := false
	t.Cleanup(func() {
		if !closed {
			c.Close()
		}
	})

	if c.Modern || c.Version != "2025-11-25" || c.ServerInfo.Name != "mcp-servers/everything" {
		t.Fatalf("modern %v version %q server %+v: want the legacy 2025-11-25 with server-everything", c.Modern, c.Version, c.ServerInfo)
	}

	t.Run("tools/list", func(t *testing.T) {
		tools, err := c.ListTools(bounded(t))
		if err != nil {
			t.Fatal(err)
		}
		names := map[string]bool{}
		for _, tool := range tools {
			names[tool.Name] = true
		}
		for _, want := range []string{"echo", "trigger-long-running-operation", "toggle-simulated-logging"} {
			if !names[want] {
				t.Errorf("no %s among %d tools", want, len(tools))
			}
		}
	})

	t.Run("a call with progress", func(t *testing.T) {
		res, err := c.CallToolWithProgress(bounded(t), "trigger-long-running-operation", map[string]any{"duration": 1, "steps": 3}, "kontext-progress")
		if err != nil {
			t.Fatal(err)
		}
		if isErrorResult(res) || !strings.Contains(resultText(res), "completed") {
			t.Errorf("result %q", resultText(res))
		}
		progress := 0
		for _, v := range ev.all("notifications/progress") {
			if p, _ := v.(map[string]any); p["progressToken"] == "kontext-progress" {
				progress++
			}
		}
		if progress != 3 {
			t.Errorf("%d progress notifications for 3 steps", progress)
		}
	})

	isLog := func(any) bool { return true }
	streamedLogs := func() int {
		_, _, streamed, _ := proxy.snapshot()
		return count(streamed, "notifications/message")
	}
	waitStreamedLogs := func(t *testing.T, n int) {
		t.Helper()
		deadline := time.Now().Add(15 * time.Second)
		for streamedLogs() < n {
			if time.Now().After(deadline) {
				t.Fatalf("%d log messages on the GET stream in 15 s, want %d", streamedLogs(), n)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}

	t.Run("a notification on the GET stream", func(t *testing.T) {
		if _, err := c.CallTool(bounded(t), "toggle-simulated-logging", nil); err != nil {
			t.Fatal(err)
		}
		waitStreamedLogs(t, 1)
		if !ev.waitFor("notifications/message", 1, isLog, 5*time.Second) {
			t.Fatal("the client did not pass on the log message of the GET stream")
		}
	})

	// server-everything's event store answers a resumption with the last
	// event's id where the SDK's EventStore contract wants the stream's
	// (dist/transports/streamableHttp.js, replayEventsAfter), so the SDK
	// registers the resumed GET stream under that id and sends it nothing
	// new. So this checks the resumption itself: the client reconnects at
	// once, naming the last event it received, and the server takes it;
	// delivery on a resumed stream is checked against the httptest server
	// of internal/mcp, and a fresh stream's delivery after the restart
	// below.
	t.Run("the stream survives a drop", func(t *testing.T) {
		// The simulated logging is turned off and the stream left to go
		// quiet, so that the last event the proxy passed on is the last
		// one the client has read when the stream is cut: with messages
		// still flowing, either side may be one event ahead.
		if _, err := c.CallTool(bounded(t), "toggle-simulated-logging", nil); err != nil {
			t.Fatal(err)
		}
		for quiet, seen := 0, -1; quiet < 5; time.Sleep(100 * time.Millisecond) {
			if n := streamedLogs(); n == seen {
				quiet++
			} else {
				quiet, seen = 0, n
			}
		}
		if n := streamedLogs(); !ev.waitFor("notifications/message", n, isLog, 5*time.Second) {
			t.Fatalf("the client did not read the %d log messages the proxy passed on", n)
		}
		proxy.mu.Lock()
		lastID, gets := proxy.lastGetID, len(proxy.getIDs)
		proxy.mu.Unlock()
		if lastID == "" {
			t.Fatal("the GET stream carried no event id")
		}
		proxy.cut()
		deadline := time.Now().Add(10 * time.Second)
		for {
			proxy.mu.Lock()
			getIDs, statuses := append([]string(nil), proxy.getIDs...), append([]int(nil), proxy.getStatuses...)
			proxy.mu.Unlock()
			if len(getIDs) > gets {
				if getIDs[gets] != lastID {
					t.Errorf("reconnected with Last-Event-ID %q, want %q (the last event received)", getIDs[gets], lastID)
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("no reconnection in 10 s (GETs %q, statuses %v)", getIDs, statuses)
			}
			time.Sleep(20 * time.Millisecond)
		}
		// The client still works over the session, and the server took
		// the resumption.
		if err := c.Ping(bounded(t)); err != nil {
			t.Fatal(err)
		}
		proxy.mu.Lock()
		statuses, open := append([]int(nil), proxy.getStatuses...), len(proxy.cancels)
		proxy.mu.Unlock()
		if len(statuses) <= gets || statuses[gets] != http.StatusOK {
			t.Errorf("GET statuses %v: the resumption was not answered 200", statuses)
		}
		if open != 1 {
			t.Errorf("%d GET streams open after the reconnection, want 1", open)
		}
	})

	t.Run("a new session after the server forgets the old one", func(t *testing.T) {
		srv.stop()
		srv.log = &syncBuffer{}
		srv.start()
		before, _, _, _ := proxy.snapshot()
		tools, err := c.ListTools(bounded(t))
		if err != nil || len(tools) == 0 {
			t.Fatalf("tools/list after the restart: %d tools, %v", len(tools), err)
		}
		posted, _, _, _ := proxy.snapshot()
		if count(posted, "initialize") != count(before, "initialize")+1 {
			t.Errorf("POSTs %q: want one new initialize", posted[len(before):])
		}
		// The notification stream follows the new session.
		logs := streamedLogs()
		if _, err := c.CallTool(bounded(t), "toggle-simulated-logging", nil); err != nil {
			t.Fatal(err)
		}
		waitStreamedLogs(t, logs+1)
	})

	t.Run("DELETE on close", func(t *testing.T) {
		closed = true
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
		if _, _, _, deletes := proxy.snapshot(); deletes != 1 {
			t.Errorf("%d DELETEs, want 1", deletes)
		}
	})
}
