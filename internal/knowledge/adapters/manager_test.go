package adapters

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kontext-dev/kontext/internal/mcp"
)

// clock is a time the tests move.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func newManager(t *testing.T, opts Options, defs ...*Definition) (*Manager, *clock) {
	t.Helper()
	clk := &clock{now: time.Date(2026, 9, 28, 10, 0, 0, 0, time.UTC)}
	if opts.Root == "" {
		opts.Root = t.TempDir()
	}
	opts.Now = clk.Now
	if opts.Getenv == nil {
		opts.Getenv = func(string) string { return "" }
	}
	m := NewManager(opts)
	m.Configure(defs)
	t.Cleanup(func() { _ = m.Close() })
	return m, clk
}

func def(t *testing.T, name string, table map[string]any) *Definition {
	t.Helper()
	d, err := Decode(name, table)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// helperMCP is an mcp adapter over stdio running helperServer.
func helperMCP(t *testing.T, name string, ops map[string]any, extra map[string]any) *Definition {
	table := map[string]any{
		"driver":  "mcp",
		"command": []any{os.Args[0]},
		"env":     map[string]any{"KONTEXT_ADAPTER_HELPER": "mcp"},
		"ops":     ops,
	}
	for k, v := range extra {
		if k == "env" {
			for ek, ev := range v.(map[string]any) {
				table["env"].(map[string]any)[ek] = ev
			}
			continue
		}
		table[k] = v
	}
	return def(t, name, table)
}

func op(fields ...string) map[string]any {
	m := map[string]any{}
	for i := 0; i+1 < len(fields); i += 2 {
		m[fields[i]] = fields[i+1]
	}
	return m
}

// server-memory's search_nodes, configured with nothing but its tool name,
// yields hits; the one process serves every call.
func TestMCPSearchWithoutMapping(t *testing.T) {
	for _, era := range []mcp.Era{mcp.EraLegacy, mcp.EraModern} {
		t.Run(string(era), func(t *testing.T) {
			d := helperMCP(t, "memory", map[string]any{"search": op("tool", "search_nodes"), "code": op("tool", "pid")}, nil)
			m, _ := newManager(t, Options{Era: era}, d)
			if st := m.Status()[0]; st.State != StateConfigured {
				t.Fatalf("before first use: %+v", st)
			}
			hits, err := m.Search(context.Background(), "memory", "invoices", 10)
			if err != nil {
				t.Fatal(err)
			}
			if len(hits) != 2 || hits[0].Title != "Billing invoices" || hits[0].Snippet != "moved to Postgres" || hits[0].Adapter != "memory" {
				t.Fatalf("hits %+v", hits)
			}
			if hits, _ := m.Search(context.Background(), "memory", "x", 1); len(hits) != 1 {
				t.Fatalf("limit 1 gave %d hits", len(hits))
			}
			p1, err := m.Code(context.Background(), "memory", "", 5)
			if err != nil {
				t.Fatal(err)
			}
			p2, _ := m.Code(context.Background(), "memory", "", 5)
			if p1[0].Title != p2[0].Title {
				t.Fatalf("two calls reached two processes (%s, %s)", p1[0].Title, p2[0].Title)
			}
			if st := m.Status()[0]; st.State != StateRunning {
				t.Fatalf("after use: %+v", st)
			}
		})
	}
}

// The server's roots/list is answered with the repository root (kontext's
// own server asks for it); sampling/createMessage and elicitation/create
// are refused with -32601, in both eras.
func TestServerInitiatedRequests(t *testing.T) {
	for _, era := range []mcp.Era{mcp.EraLegacy, mcp.EraModern} {
		t.Run(string(era), func(t *testing.T) {
			root := t.TempDir()
			d := helperMCP(t, "h", map[string]any{"brief": op("tool", "roots")}, nil)
			m, _ := newManager(t, Options{Root: root, Era: era}, d)
			text, err := m.Brief(context.Background(), "h", nil, 100)
			if err != nil {
				t.Fatal(err)
			}
			abs, _ := filepath.Abs(root)
			if text != "file://"+filepath.ToSlash(abs) {
				t.Fatalf("roots = %q, want file://%s", text, abs)
			}

			raw := def(t, "raw", map[string]any{"driver": "mcp", "command": []any{os.Args[0]},
				"env": map[string]any{"KONTEXT_ADAPTER_HELPER": "raw", "HELPER_ERA": string(era)},
				"tools": []any{
					map[string]any{"name": "t_sample", "op": map[string]any{"tool": "sampling/createMessage"}},
					map[string]any{"name": "t_elicit", "op": map[string]any{"tool": "elicitation/create"}},
					map[string]any{"name": "t_roots", "op": map[string]any{"tool": "roots/list"}},
				}})
			rm, _ := newManager(t, Options{Root: root, Era: era}, raw)
			for _, tool := range []string{"t_sample", "t_elicit"} {
				rm.Configure(nil)
				rm.Configure([]*Definition{raw})
				text, err := rm.CallDeclared(context.Background(), "raw", tool, nil)
				got := text
				if err != nil {
					got = err.Error()
				}
				if !strings.Contains(got, "-32601") {
					t.Fatalf("%s: %q, %v; want the request refused with -32601", tool, text, err)
				}
			}
			rm.Configure(nil)
			rm.Configure([]*Definition{raw})
			text, err = rm.CallDeclared(context.Background(), "raw", "t_roots", nil)
			if err != nil || !strings.Contains(text, "file://"+filepath.ToSlash(abs)) {
				t.Fatalf("roots/list: %q, %v", text, err)
			}
		})
	}
}

// An MCP adapter over streamable HTTP gets its headers, and its secret
// never shows.
func TestMCPOverStreamableHTTP(t *testing.T) {
	srv := helperServer()
	h := srv.NewStreamableHandler(mcp.StreamableOptions{})
	var sawAuth sync.Map
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer tok-12345" {
			http.Error(w, "refused "+r.Header.Get("Authorization"), http.StatusUnauthorized)
			return
		}
		sawAuth.Store("ok", true)
		h.ServeHTTP(w, r)
	}))
	defer ts.Close()
	env := map[string]string{"MEM_TOKEN": "tok-12345"}
	getenv := func(k string) string { return env[k] }
	d := def(t, "remote", map[string]any{"driver": "mcp", "url": ts.URL + "/mcp", "headers": map[string]any{"Authorization": "Bearer ${env:MEM_TOKEN}"},
		"ops": map[string]any{"search": op("tool", "search_nodes")}})
	m, clk := newManager(t, Options{Getenv: getenv}, d)
	hits, err := m.Search(context.Background(), "remote", "q", 5)
	if err != nil || len(hits) != 2 {
		t.Fatalf("hits %v, %v", hits, err)
	}
	if _, ok := sawAuth.Load("ok"); !ok {
		t.Fatal("the header never arrived")
	}

	env["MEM_TOKEN"] = "tok-99999-wrong"
	m.Configure(nil)
	m.Configure([]*Definition{d})
	clk.Add(time.Hour)
	_, err = m.Search(context.Background(), "remote", "q", 5)
	if err == nil || strings.Contains(err.Error(), "tok-99999") {
		t.Fatalf("err = %v: want a failure without the secret", err)
	}
	if st := m.Status()[0]; st.State != StateFailing || strings.Contains(st.Reason, "tok-99999") || st.Reason == "" {
		t.Fatalf("status %+v", st)
	}
}

// A hanging tool costs its deadline, not more, and the adapter cools
// down; a crash mid-call is an error, and after the cool-down a new
// process serves.
func TestDeadlinesCooldownAndCrash(t *testing.T) {
	d := helperMCP(t, "h", map[string]any{
		"search":  map[string]any{"tool": "hang", "timeout_ms": 300},
		"history": op("tool", "crash"),
		"code":    op("tool", "pid"),
	}, nil)
	m, clk := newManager(t, Options{}, d)
	if _, err := m.Code(context.Background(), "h", "", 1); err != nil { // started
		t.Fatal(err)
	}
	start := time.Now()
	_, err := m.Search(context.Background(), "h", "q", 5)
	var oe *OpError
	if !errors.As(err, &oe) || !oe.Timeout || time.Since(start) > 3*time.Second {
		t.Fatalf("hang: %v after %s", err, time.Since(start))
	}
	_, err = m.Code(context.Background(), "h", "", 1)
	var nr *NotReadyError
	if !errors.As(err, &nr) || nr.State != StateFailing {
		t.Fatalf("during the cool-down: %v", err)
	}
	clk.Add(DefaultCooldown + time.Second)
	before, err := m.Code(context.Background(), "h", "", 1)
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.History(context.Background(), "h", "a.go", 5)
	if err == nil || !strings.Contains(err.Error(), "exited") {
		t.Fatalf("crash: %v", err)
	}
	if st := m.Status()[0]; st.State != StateFailing {
		t.Fatalf("after the crash %+v", st)
	}
	clk.Add(DefaultCooldown + time.Second)
	after, err := m.Code(context.Background(), "h", "", 1)
	if err != nil {
		t.Fatal(err)
	}
	if before[0].Title == after[0].Title {
		t.Fatal("the crashed process was not replaced")
	}
}

// A slow start does not hold the caller past its deadline; the start goes
// on and serves the next call.
func TestCallerDeadlineDoesNotStopTheStart(t *testing.T) {
	d := helperMCP(t, "h", map[string]any{"code": op("tool", "pid")}, nil)
	m, _ := newManager(t, Options{}, d)
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	_, _ = m.Code(ctx, "h", "", 1)
	deadline := time.Now().Add(10 * time.Second)
	for m.Status()[0].State != StateRunning && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := m.Code(context.Background(), "h", "", 1); err != nil {
		t.Fatal(err)
	}
}

// A team adapter that is not trusted never starts; once its hash is
// pinned it does, and a changed definition waits again.
func TestUntrustedTeamAdapterDoesNotStart(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "started")
	d := helperMCP(t, "team", map[string]any{"search": op("tool", "search_nodes")}, map[string]any{"env": map[string]any{"HELPER_STARTED": marker}})
	d.Team = true
	root := t.TempDir()
	trust, err := LoadTrust(filepath.Join(t.TempDir(), "trust.toml"))
	if err != nil {
		t.Fatal(err)
	}
	m, _ := newManager(t, Options{Root: root, Trust: trust}, d)
	_, err = m.Search(context.Background(), "team", "q", 5)
	var nr *NotReadyError
	if !errors.As(err, &nr) || nr.State != StateUntrusted || !strings.Contains(err.Error(), "kontext trust") {
		t.Fatalf("err = %v", err)
	}
	if len(m.With(OpSearch)) != 0 {
		t.Fatal("an untrusted adapter is offered for search")
	}
	time.Sleep(100 * time.Millisecond)
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the untrusted adapter's process started")
	}
	trust.Pin(root, d, time.Now())
	if _, err := m.Search(context.Background(), "team", "q", 5); err != nil {
		t.Fatal(err)
	}
	changed := helperMCP(t, "team", map[string]any{"search": op("tool", "search_nodes"), "code": op("tool", "pid")}, nil)
	changed.Team = true
	if trust.Trusted(root, changed) || !trust.Changed(root, changed) {
		t.Fatal("a changed definition keeps its trust")
	}
	// The user's own adapters need none.
	mine := helperMCP(t, "mine", nil, nil)
	if !trust.Trusted(root, mine) {
		t.Fatal("a user adapter waits for trust")
	}
}

func TestTrustFileRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "trust.toml")
	tr, err := LoadTrust(path)
	if err != nil {
		t.Fatal(err)
	}
	d := def(t, "a", map[string]any{"driver": "command", "command": "x", "ops": map[string]any{"search": map[string]any{}}})
	d.Team = true
	tr.Pin("/repo/one", d, time.Now())
	tr.Pin("/repo/two", d, time.Now())
	if err := tr.Save(); err != nil {
		t.Fatal(err)
	}
	if info, _ := os.Stat(path); info.Mode().Perm() != 0o600 {
		t.Fatalf("trust file mode %v", info.Mode())
	}
	back, err := LoadTrust(path)
	if err != nil {
		t.Fatal(err)
	}
	if !back.Trusted("/repo/one", d) || !back.Trusted("/repo/two/", d) || back.Trusted("/repo/three", d) {
		t.Fatal("pins did not survive")
	}
	if gone := back.Revoke("/repo/one"); len(gone) != 1 || back.Trusted("/repo/one", d) {
		t.Fatalf("revoke removed %v", gone)
	}
}

// The http driver sends the op's request; a failing one with a secret
// header never shows the secret.
func TestHTTPDriver(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Key") != "key-abcdef" {
			http.Error(w, "bad key "+r.Header.Get("X-Key"), http.StatusForbidden)
			return
		}
		switch r.URL.Path {
		case "/v1/search":
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"data":[{"title":"T ` + r.URL.Query().Get("q") + `","highlight":"h","url":"notes://1","updated_at":"2026-01-02"}]}`))
		case "/notes/7":
			_, _ = w.Write([]byte("the note"))
		default:
			http.NotFound(w, r)
		}
	}))
	defer ts.Close()
	env := map[string]string{"KEY": "key-abcdef"}
	d := def(t, "notes", map[string]any{"driver": "http", "base_url": ts.URL, "headers": map[string]any{"X-Key": "${env:KEY}"},
		"ops": map[string]any{
			"search": map[string]any{"method": "GET", "path": "/v1/search", "query": map[string]any{"q": "{{query}}", "empty": "{{nothing}}"},
				"items": "data[*]", "map": map[string]any{"snippet": "highlight|body", "date": "updated_at"}},
			"read": map[string]any{"path": "/notes/{{uri|after:notes://}}", "format": "text", "owns": []any{"notes://"}},
		}})
	m, clk := newManager(t, Options{Getenv: func(k string) string { return env[k] }}, d)
	hits, err := m.Search(context.Background(), "notes", "billing", 5)
	if err != nil || len(hits) != 1 || hits[0].Title != "T billing" || hits[0].Date != "2026-01-02" || hits[0].URI != "notes://1" {
		t.Fatalf("hits %+v, %v", hits, err)
	}
	name, text, ok, err := m.Read(context.Background(), "notes://7", 1)
	if !ok || err != nil || name != "notes" || text != "the note" {
		t.Fatalf("read %q %q %v %v", name, text, ok, err)
	}
	if _, _, ok, _ := m.Read(context.Background(), "kx:1", 1); ok {
		t.Fatal("a local URI was routed to an adapter")
	}
	env["KEY"] = "key-leaked-value"
	m.Configure(nil)
	m.Configure([]*Definition{d})
	clk.Add(time.Hour)
	_, err = m.Search(context.Background(), "notes", "billing", 5)
	if err == nil || !strings.Contains(err.Error(), "403") || strings.Contains(err.Error(), "leaked") {
		t.Fatalf("err = %v: want the 403 without the secret", err)
	}
}

// The command driver runs an argv without a shell and maps its output; a
// failure that prints a secret does not show it.
func TestCommandDriver(t *testing.T) {
	env := map[string]string{"SECRET": "pw-0123456789"}
	d := def(t, "wiki", map[string]any{"driver": "command", "command": []any{os.Args[0]},
		"env": map[string]any{"KONTEXT_ADAPTER_HELPER": "command", "HELPER_SECRET": "${env:SECRET}"},
		"ops": map[string]any{
			"search": map[string]any{"command": []any{os.Args[0], "{{query}}", "$(touch pwned)", "b;c"}, "format": "jsonl",
				"where": map[string]any{"type": "match"}, "map": map[string]any{"title": "path", "snippet": "line", "uri": "tpl:wiki://{{path}}"}},
			"brief":  map[string]any{"command": []any{os.Args[0], "cat-stdin"}, "stdin": "focus: {{query}}", "format": "text"},
			"code":   map[string]any{"command": []any{os.Args[0], "write", "{{output_file}}"}, "output_file": true, "items": "$"},
			"store":  map[string]any{"command": []any{os.Args[0]}, "env": map[string]any{"KONTEXT_ADAPTER_HELPER": "fail"}},
			"health": map[string]any{"command": []any{os.Args[0], "sleep"}, "timeout_ms": 200},
		},
		"on": []any{map[string]any{"event": "sync", "op": "store"}},
	})
	root := t.TempDir()
	m, _ := newManager(t, Options{Root: root, Getenv: func(k string) string { return env[k] }}, d)
	hits, err := m.Search(context.Background(), "wiki", "a", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 3 || hits[1].Title != "$(touch pwned)" || hits[2].URI != "wiki://b;c" {
		t.Fatalf("hits %+v", hits)
	}
	if _, err := os.Stat(filepath.Join(root, "pwned")); err == nil {
		t.Fatal("the argv went through a shell")
	}
	text, err := m.Brief(context.Background(), "wiki", []string{"billing"}, 100)
	if err != nil || text != "focus: billing" {
		t.Fatalf("brief %q %v", text, err)
	}
	code, err := m.Code(context.Background(), "wiki", "x", 5)
	if err != nil || len(code) != 1 || code[0].Title != "from the output file" {
		t.Fatalf("code %+v %v", code, err)
	}
	out := m.Deliver(context.Background(), Event{Name: EventSync, Fields: map[string]any{"kind": "decision", "markdown": "# x"}})
	if len(out) != 1 || out[0].Err == nil || !strings.Contains(out[0].Err.Error(), "status 3") || strings.Contains(out[0].Err.Error(), "pw-0123") {
		t.Fatalf("delivery %+v", out)
	}
	if st := m.Status()[0]; strings.Contains(st.Reason, "pw-0123") {
		t.Fatalf("status shows the secret: %+v", st)
	}
	if out := m.Deliver(context.Background(), Event{Name: EventCapture}); len(out) != 0 {
		t.Fatalf("an unsubscribed event was delivered: %+v", out)
	}
}

func TestCommandTimeoutKills(t *testing.T) {
	d := def(t, "slow", map[string]any{"driver": "command", "command": []any{os.Args[0], "sleep"},
		"env": map[string]any{"KONTEXT_ADAPTER_HELPER": "command"}, "ops": map[string]any{"search": map[string]any{"timeout_ms": 200}}})
	m, _ := newManager(t, Options{}, d)
	start := time.Now()
	_, err := m.Search(context.Background(), "slow", "q", 1)
	var oe *OpError
	if !errors.As(err, &oe) || !oe.Timeout || time.Since(start) > 3*time.Second {
		t.Fatalf("%v after %s", err, time.Since(start))
	}
}

func TestWhenConditions(t *testing.T) {
	root := t.TempDir()
	_ = os.WriteFile(filepath.Join(root, ".codegraph"), nil, 0o600)
	mk := func(name string, when map[string]any) *Definition {
		return def(t, name, map[string]any{"driver": "command", "command": "true", "when": when, "ops": map[string]any{"search": map[string]any{}}})
	}
	m, _ := newManager(t, Options{Root: root, Repo: RepoInfo{ID: "github.com/acme/shop"}, Getenv: func(k string) string {
		if k == "SET" {
			return "1"
		}
		return ""
	}},
		mk("ok", map[string]any{"file": ".codegraph", "repo": "github.com/acme/(shop|billing)", "env": "SET"}),
		mk("nofile", map[string]any{"file": "missing"}),
		mk("noenv", map[string]any{"env": "UNSET"}),
		mk("norepo", map[string]any{"repo": "^gitlab"}),
		mk("nocmd", map[string]any{"command": "no-such-program-kontext"}),
		def(t, "off", map[string]any{"driver": "command", "command": "true", "enabled": false}),
	)
	got := map[string]State{}
	for _, st := range m.Status() {
		got[st.Name] = st.State
	}
	want := map[string]State{"ok": StateConfigured, "nofile": StateInactive, "noenv": StateInactive, "norepo": StateInactive, "nocmd": StateInactive, "off": StateDisabled}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %s, want %s", k, got[k], v)
		}
	}
	if w := m.With(OpSearch); len(w) != 1 || w[0] != "ok" {
		t.Fatalf("With(search) = %v", w)
	}
	var ue *UnknownError
	if _, err := m.Search(context.Background(), "nope", "q", 1); !errors.As(err, &ue) {
		t.Fatalf("unknown adapter: %v", err)
	}
}

func TestDeclaredTool(t *testing.T) {
	d := def(t, "w", map[string]any{"driver": "command", "command": []any{os.Args[0], "cat-stdin"},
		"env":   map[string]any{"KONTEXT_ADAPTER_HELPER": "command"},
		"tools": []any{map[string]any{"name": "w_echo", "params": map[string]any{"q": "string!"}, "op": map[string]any{"stdin": "{{args.q}}/{{q}}", "format": "text"}}}})
	m, _ := newManager(t, Options{}, d)
	tools := m.DeclaredTools()
	if len(tools) != 1 || tools[0].Tool.Name != "w_echo" {
		t.Fatalf("tools %+v", tools)
	}
	text, err := m.CallDeclared(context.Background(), "w", "w_echo", []byte(`{"q":"hi"}`))
	if err != nil || text != "hi/hi" {
		t.Fatalf("%q %v", text, err)
	}
}
