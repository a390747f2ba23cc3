package mcp

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// guarded serves an echo of the body's length behind g, so a test sees both
// the refusals and what passes through.
func guarded(t *testing.T, g HTTPGuard) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(g.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if IsBodyTooLarge(err) {
			w.WriteHeader(http.StatusRequestEntityTooLarge)
			return
		}
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte(strings.Repeat("x", len(body))))
	})))
	t.Cleanup(srv.Close)
	return srv
}

type guardCase struct {
	name    string
	host    string // Host header; empty keeps the test server's 127.0.0.1:port
	origin  string
	auth    string
	body    string
	chunked bool // send the body without a Content-Length
	status  int
}

func runGuardCases(t *testing.T, g HTTPGuard, cases []guardCase) {
	t.Helper()
	srv := guarded(t, g)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var body io.Reader = strings.NewReader(c.body)
			if c.chunked {
				body = io.MultiReader(strings.NewReader(c.body)) // hides the length
			}
			req, err := http.NewRequest(http.MethodPost, srv.URL+"/mcp", body)
			if err != nil {
				t.Fatal(err)
			}
			if c.host != "" {
				req.Host = c.host
			}
			if c.origin != "" {
				req.Header.Set("Origin", c.origin)
			}
			if c.auth != "" {
				req.Header.Set("Authorization", c.auth)
			}
			resp, err := srv.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			got, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != c.status {
				t.Fatalf("status %d, want %d (body %s)", resp.StatusCode, c.status, got)
			}
			if resp.StatusCode == http.StatusUnauthorized && !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer ") {
				t.Errorf("401 without a Bearer challenge: %q", resp.Header.Get("WWW-Authenticate"))
			}
			if resp.StatusCode >= 400 && resp.StatusCode != http.StatusRequestEntityTooLarge || strings.HasPrefix(string(got), "{") {
				var msg struct {
					JSONRPC string          `json:"jsonrpc"`
					ID      json.RawMessage `json:"id"`
					Error   struct {
						Code int64 `json:"code"`
						Data struct {
							Reason string `json:"reason"`
						} `json:"data"`
					} `json:"error"`
				}
				if err := json.Unmarshal(got, &msg); err != nil || msg.JSONRPC != "2.0" || string(msg.ID) != "null" || msg.Error.Code != -32600 || msg.Error.Data.Reason == "" {
					t.Errorf("a refusal is a JSON-RPC error with id null and a reason, got %s", got)
				}
			}
		})
	}
}

func TestHTTPGuardLoopbackWithoutToken(t *testing.T) {
	runGuardCases(t, HTTPGuard{MaxBody: 16}, []guardCase{
		{name: "ip literal", status: 200},
		{name: "localhost with port", host: "localhost:7777", status: 200},
		{name: "LOCALHOST", host: "LOCALHOST", status: 200},
		{name: "ipv6 loopback", host: "[::1]:7777", status: 200},
		{name: "other loopback address", host: "127.1.2.3", status: 200},
		{name: "rebinding host", host: "evil.example.com", status: 403},
		{name: "rebinding host with port", host: "evil.example.com:7777", status: 403},
		{name: "a name for loopback is still a name", host: "localhost.evil.example.com", status: 403},
		{name: "private address", host: "192.168.1.10:7777", status: 403},
		{name: "empty host", host: " ", status: 403},
		{name: "loopback origin", origin: "http://localhost:3000", status: 200},
		{name: "loopback ip origin", origin: "https://127.0.0.1", status: 200},
		{name: "foreign origin", origin: "http://evil.example.com", status: 403},
		{name: "null origin", origin: "null", status: 403},
		{name: "file origin", origin: "file://", status: 403},
		{name: "body at the bound", body: strings.Repeat("a", 16), status: 200},
		{name: "body over the bound", body: strings.Repeat("a", 17), status: 413},
		{name: "streamed body over the bound", body: strings.Repeat("a", 17), chunked: true, status: 413},
	})
}

func TestHTTPGuardToken(t *testing.T) {
	const token = "s3cret-token-of-some-length"
	runGuardCases(t, HTTPGuard{Token: token}, []guardCase{
		{name: "no token", status: 401},
		{name: "right token", auth: "Bearer " + token, status: 200},
		{name: "scheme is case-insensitive", auth: "bearer " + token, status: 200},
		{name: "wrong token", auth: "Bearer nope", status: 401},
		{name: "token prefix", auth: "Bearer " + token[:10], status: 401},
		{name: "token with a suffix", auth: "Bearer " + token + "x", status: 401},
		{name: "basic auth", auth: "Basic " + token, status: 401},
		{name: "empty bearer", auth: "Bearer ", status: 401},
		// With a token required and no host list, a team server is reached
		// under any name.
		{name: "any host with the token", host: "kontext.team.internal:7777", auth: "Bearer " + token, status: 200},
		{name: "foreign origin even with the token", origin: "http://evil.example.com", auth: "Bearer " + token, status: 403},
	})
}

func TestHTTPGuardAllowLists(t *testing.T) {
	runGuardCases(t, HTTPGuard{Token: "t", Hosts: []string{"kontext.team.internal"}, Origins: []string{"https://ide.example.com"}}, []guardCase{
		{name: "listed host", host: "kontext.team.internal:7777", auth: "Bearer t", status: 200},
		{name: "listed host, other case", host: "Kontext.Team.Internal", auth: "Bearer t", status: 200},
		{name: "unlisted host", host: "other.internal", auth: "Bearer t", status: 403},
		{name: "loopback still", auth: "Bearer t", status: 200},
		{name: "listed origin", origin: "https://ide.example.com", auth: "Bearer t", status: 200},
		{name: "listed origin, other port", origin: "https://ide.example.com:8443", auth: "Bearer t", status: 403},
		{name: "listed origin, other scheme", origin: "http://ide.example.com", auth: "Bearer t", status: 403},
	})
}

func TestHTTPGuardClipsEchoedHeaders(t *testing.T) {
	srv := guarded(t, HTTPGuard{})
	req, _ := http.NewRequest(http.MethodPost, srv.URL, nil)
	req.Header.Set("Origin", "http://"+strings.Repeat("e", 5000)+".example")
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 403 || len(body) > 400 {
		t.Fatalf("status %d, %d bytes: a refusal quotes at most a clipped header", resp.StatusCode, len(body))
	}
}
