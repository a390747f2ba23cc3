package interop_test

// An unmodified official Go SDK client connected straight to a real
// examples/notes process with its manifest's URL and token (issue 14
// point 3), and the endpoint's refusals over raw HTTP.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kontext-dev/kontext/appcontext"
	"github.com/kontext-dev/kontext/internal/apps/manifest"
)

// waitManifest waits for the instance's manifest under rt and loads it
// with the broker's checks (owner, modes, schema, endpoint).
func waitManifest(t *testing.T, rt, instanceID string) *appcontext.Manifest {
	t.Helper()
	path := filepath.Join(appcontext.InstancesDirIn(rt), instanceID+".json")
	deadline := time.Now().Add(15 * time.Second)
	for {
		m, err := manifest.Load(path)
		if err == nil {
			return m
		}
		if time.Now().After(deadline) {
			t.Fatalf("no valid manifest at %s: %v", path, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// recordingBearer adds the manifest's token to every request, as any
// MCP client's HTTP hook can, and keeps the response bodies so that the
// test can look at the wire (which hints are present at all).
type recordingBearer struct {
	token    string
	mu       sync.Mutex
	bodies   []*syncBuffer
	versions []string // the MCP-Protocol-Version header of each request
}

func (r *recordingBearer) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("Authorization", "Bearer "+r.token)
	r.mu.Lock()
	r.versions = append(r.versions, req.Header.Get("MCP-Protocol-Version"))
	r.mu.Unlock()
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	buf := &syncBuffer{}
	r.mu.Lock()
	r.bodies = append(r.bodies, buf)
	r.mu.Unlock()
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.TeeReader(resp.Body, buf), resp.Body}
	return resp, nil
}

// messages are the JSON-RPC messages the client received so far.
func (r *recordingBearer) messages() []json.RawMessage {
	r.mu.Lock()
	bodies := slices.Clone(r.bodies)
	r.mu.Unlock()
	var out []json.RawMessage
	for _, b := range bodies {
		sc := bufio.NewScanner(strings.NewReader(b.String()))
		sc.Buffer(nil, 8<<20)
		for sc.Scan() {
			line := strings.TrimSpace(sc.Text())
			if data, ok := strings.CutPrefix(line, "data:"); ok {
				line = strings.TrimSpace(data)
			}
			if json.Valid([]byte(line)) && strings.HasPrefix(line, "{") {
				out = append(out, json.RawMessage(line))
			}
		}
	}
	return out
}

// wireTools is the tools of the last tools/list result on the wire, as
// raw JSON objects.
func (r *recordingBearer) wireTools(t *testing.T) map[string]map[string]json.RawMessage {
	t.Helper()
	var last map[string]map[string]json.RawMessage
	for _, msg := range r.messages() {
		var res struct {
			Result struct {
				Tools []map[string]json.RawMessage `json:"tools"`
			} `json:"result"`
		}
		if json.Unmarshal(msg, &res) != nil || res.Result.Tools == nil {
			continue
		}
		last = map[string]map[string]json.RawMessage{}
		for _, tool := range res.Result.Tools {
			var name string
			_ = json.Unmarshal(tool["name"], &name)
			last[name] = tool
		}
	}
	if last == nil {
		t.Fatal("no tools/list result on the wire")
	}
	return last
}

// TestAppsDirectGoSDK: the official Go SDK, unmodified, reaches a real
// examples/notes with its manifest's URL and token, in both eras: the
// four actions with their hints, add_note then list_notes, the state.
func TestAppsDirectGoSDK(t *testing.T) {
	requireSetup(t)
	for _, era := range []struct{ name, ask, want string }{
		{"legacy", "2025-11-25", "2025-11-25"},
		{"modern", "", "2026-07-28"}, // the SDK's default: its latest
	} {
		t.Run(era.name, func(t *testing.T) {
			rt := t.TempDir()
			p := startNotes(t, rt)
			m := waitManifest(t, rt, p.id)
			if m.Mcp == nil {
				t.Fatal("examples/notes advertises no MCP endpoint")
			}
			rec := &recordingBearer{token: m.Mcp.Auth.Token}
			client := mcp.NewClient(&mcp.Implementation{Name: "direct-go-sdk", Version: "0"}, nil)
			var opts *mcp.ClientSessionOptions
			if era.ask != "" {
				opts = &mcp.ClientSessionOptions{ProtocolVersion: era.ask}
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{
				Endpoint: m.Mcp.URL, HTTPClient: &http.Client{Transport: rec}, MaxRetries: -1,
			}, opts)
			if err != nil {
				t.Fatalf("connecting the Go SDK to %s: %v", m.Mcp.URL, err)
			}
			defer cs.Close()
			// The era on the wire: every request after the handshake names it.
			if _, err := cs.ListTools(ctx, nil); err != nil {
				t.Fatal(err)
			}
			rec.mu.Lock()
			if v := rec.versions[len(rec.versions)-1]; v != era.want {
				t.Errorf("requests carry MCP-Protocol-Version %q, want %s (all: %q)", v, era.want, rec.versions)
			}
			rec.mu.Unlock()

			lt, err := cs.ListTools(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			tools := map[string]*mcp.Tool{}
			names := []string{}
			for _, tool := range lt.Tools {
				tools[tool.Name] = tool
				names = append(names, tool.Name)
			}
			slices.Sort(names)
			if want := []string{"add_note", "clear_notes", "list_notes", "touch"}; !slices.Equal(names, want) {
				t.Fatalf("tools %v, want %v", names, want)
			}
			if a := tools["list_notes"].Annotations; a == nil || !a.ReadOnlyHint {
				t.Errorf("list_notes is not read-only: %+v", a)
			}
			if a := tools["add_note"].Annotations; a == nil || a.DestructiveHint == nil || *a.DestructiveHint || a.ReadOnlyHint {
				t.Errorf("add_note's hints: %+v, want destructiveHint false", a)
			}
			if a := tools["clear_notes"].Annotations; a == nil || a.DestructiveHint == nil || !*a.DestructiveHint {
				t.Errorf("clear_notes's hints: %+v, want destructiveHint true", a)
			}
			action, _ := tools["clear_notes"].Meta[appcontext.MetaAction].(map[string]any)
			if conf, _ := action["confirmation"].(map[string]any); conf["required"] != true {
				t.Errorf("clear_notes is not confirmation-required: _meta %v", tools["clear_notes"].Meta)
			}

			// The wire, where the SDK's types cannot tell absent from false.
			wire := rec.wireTools(t)
			hints := func(name string) map[string]json.RawMessage {
				h := map[string]json.RawMessage{}
				if raw, ok := wire[name]["annotations"]; ok {
					if err := json.Unmarshal(raw, &h); err != nil {
						t.Fatalf("%s annotations %s: %v", name, raw, err)
					}
				}
				return h
			}
			for _, k := range []string{"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"} {
				if v, ok := hints("touch")[k]; ok {
					t.Errorf("touch states %s: %s, want no hints at all", k, v)
				}
			}
			if h := hints("add_note"); string(h["destructiveHint"]) != "false" {
				t.Errorf("add_note on the wire: %v, want destructiveHint false", h)
			}
			if h := hints("list_notes"); string(h["readOnlyHint"]) != "true" {
				t.Errorf("list_notes on the wire: %v, want readOnlyHint true", h)
			}
			if h := hints("clear_notes"); string(h["destructiveHint"]) != "true" {
				t.Errorf("clear_notes on the wire: %v, want destructiveHint true", h)
			}
			var schema bytes.Buffer
			if err := json.Compact(&schema, wire["add_note"]["inputSchema"]); err != nil || schema.String() != notesSchema {
				t.Errorf("add_note's input schema on the wire %s, want %s byte for byte", schema.String(), notesSchema)
			}

			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "add_note", Arguments: map[string]any{"text": "buy tea"}})
			if err != nil || res.IsError {
				t.Fatalf("add_note: %v %+v", err, res)
			}
			if got := structured[map[string]int](t, res); got["count"] != 1 {
				t.Errorf("add_note answered %v, want count 1", got)
			}
			res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "list_notes", Arguments: map[string]any{}})
			if err != nil || res.IsError {
				t.Fatalf("list_notes: %v %+v", err, res)
			}
			if got := structured[map[string][]string](t, res); !slices.Equal(got["notes"], []string{"buy tea"}) {
				t.Errorf("list_notes answered %v, want [buy tea]", got)
			}
			// clear_notes runs only once the user confirmed: the SDK, not
			// asking, is refused and the note stays.
			res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "clear_notes", Arguments: map[string]any{}})
			if err != nil || !res.IsError {
				t.Errorf("clear_notes without confirmation: %v %+v", err, res)
			}

			prefix := "appcontext://apps/dev.kontext.notes/" + p.id + "/"
			read := func(uri string) string {
				t.Helper()
				rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
				if err != nil || len(rr.Contents) != 1 {
					t.Fatalf("reading %s: %v %+v", uri, err, rr)
				}
				return rr.Contents[0].Text
			}
			var state struct {
				Notes []string `json:"notes"`
				Count int      `json:"count"`
			}
			if err := json.Unmarshal([]byte(read(prefix+"state")), &state); err != nil {
				t.Fatal(err)
			}
			if state.Count != 1 || !slices.Equal(state.Notes, []string{"buy tea"}) {
				t.Errorf("the state resource holds %+v, want the one note", state)
			}
			if got := read(prefix + "state/count"); got != "1" {
				t.Errorf("state/count = %s, want 1", got)
			}
		})
	}
}

// TestAppsDirectRefusals: the endpoint of a real examples/notes over raw
// HTTP: no token or a wrong one is 401, a foreign Origin or Host 403,
// and the token alone is let in.
func TestAppsDirectRefusals(t *testing.T) {
	requireSetup(t)
	rt := t.TempDir()
	p := startNotes(t, rt)
	m := waitManifest(t, rt, p.id)
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`
	wrong := strings.Repeat("f", 64)
	if wrong == m.Mcp.Auth.Token {
		wrong = strings.Repeat("e", 64)
	}
	for _, c := range []struct {
		name         string
		auth, origin string
		host         string
		want         int
	}{
		{"no token", "", "", "", http.StatusUnauthorized},
		{"wrong token", wrong, "", "", http.StatusUnauthorized},
		{"foreign origin", m.Mcp.Auth.Token, "https://evil.example", "", http.StatusForbidden},
		{"non-loopback host", m.Mcp.Auth.Token, "", "evil.example", http.StatusForbidden},
		{"the token", m.Mcp.Auth.Token, "", "", http.StatusOK},
	} {
		t.Run(c.name, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodPost, m.Mcp.URL, strings.NewReader(init))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			if c.auth != "" {
				req.Header.Set("Authorization", "Bearer "+c.auth)
			}
			if c.origin != "" {
				req.Header.Set("Origin", c.origin)
			}
			if c.host != "" {
				req.Host = c.host
			}
			resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != c.want {
				t.Fatalf("HTTP %d, want %d: %s", resp.StatusCode, c.want, body)
			}
			if c.want == http.StatusOK && !bytes.Contains(body, []byte(p.id)) {
				t.Errorf("the accepted initialize does not name instance %s: %s", p.id, body)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(appcontext.InstancesDirIn(rt), p.id+".json")); err != nil {
		t.Errorf("the manifest vanished while the application runs: %v", err)
	}
}
