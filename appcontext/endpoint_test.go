package appcontext_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/kontext-dev/kontext/appcontext"
)

const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`

// post sends an initialize to the endpoint with the headers given
// (Host sets the request's Host header) and returns the status and body.
func post(t *testing.T, endpoint string, headers map[string]string) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(initializeBody))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range headers {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	c := &http.Client{Timeout: 10 * time.Second}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header, body
}

// jsonrpcBody is the one JSON-RPC message of a response, whether sent as
// JSON or as one server-sent event.
func jsonrpcBody(t *testing.T, h http.Header, body []byte) []byte {
	t.Helper()
	if !strings.HasPrefix(h.Get("Content-Type"), "text/event-stream") {
		return body
	}
	sc := bufio.NewScanner(bytes.NewReader(body))
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data:"); ok {
			return []byte(strings.TrimSpace(data))
		}
	}
	t.Fatalf("no data in the event stream:\n%s", body)
	return nil
}

// TestEndpointGuard is the direct endpoint's front door, over real HTTP:
// the token is required and must be the launch's, a foreign Origin and a
// non-loopback Host are refused, and the right token gets the instance.
func TestEndpointGuard(t *testing.T) {
	s := serve(t, newApp(t, t.TempDir()))
	ep, token := s.m.Mcp.URL, s.m.Mcp.Auth.Token
	u, _ := url.Parse(ep)
	auth := "Bearer " + token
	other := strings.Repeat("0", 63) + "1"
	if other == token {
		other = strings.Repeat("1", 64)
	}
	for _, c := range []struct {
		name    string
		headers map[string]string
		want    int
	}{
		{"no token", nil, http.StatusUnauthorized},
		{"empty bearer", map[string]string{"Authorization": "Bearer "}, http.StatusUnauthorized},
		{"wrong token", map[string]string{"Authorization": "Bearer " + other}, http.StatusUnauthorized},
		{"token with a suffix", map[string]string{"Authorization": auth + "0"}, http.StatusUnauthorized},
		{"token prefix", map[string]string{"Authorization": "Bearer " + token[:32]}, http.StatusUnauthorized},
		{"upper-case token", map[string]string{"Authorization": "Bearer " + strings.ToUpper(token)}, http.StatusUnauthorized},
		{"basic scheme", map[string]string{"Authorization": "Basic " + token}, http.StatusUnauthorized},
		{"token as a query", nil, http.StatusUnauthorized}, // below: ?token=
		{"foreign origin", map[string]string{"Authorization": auth, "Origin": "https://evil.example"}, http.StatusForbidden},
		{"null origin", map[string]string{"Authorization": auth, "Origin": "null"}, http.StatusForbidden},
		{"foreign origin without token", map[string]string{"Origin": "https://evil.example"}, http.StatusForbidden},
		{"non-loopback host", map[string]string{"Authorization": auth, "Host": "evil.example:" + u.Port()}, http.StatusForbidden},
		{"rebinding host", map[string]string{"Authorization": auth, "Host": "127.0.0.1.nip.io:" + u.Port()}, http.StatusForbidden},
		{"LAN address as host", map[string]string{"Authorization": auth, "Host": "192.168.1.10:" + u.Port()}, http.StatusForbidden},
		{"the token", map[string]string{"Authorization": auth}, http.StatusOK},
		{"the token, lower-case scheme", map[string]string{"Authorization": "bearer " + token}, http.StatusOK},
		{"the token, loopback origin", map[string]string{"Authorization": auth, "Origin": "http://127.0.0.1:" + u.Port()}, http.StatusOK},
	} {
		t.Run(c.name, func(t *testing.T) {
			target := ep
			if c.name == "token as a query" {
				target = ep + "?token=" + token
			}
			status, h, body := post(t, target, c.headers)
			if status != c.want {
				t.Fatalf("HTTP %d, want %d: %s", status, c.want, body)
			}
			if status == http.StatusUnauthorized && !strings.HasPrefix(h.Get("WWW-Authenticate"), "Bearer") {
				t.Errorf("a 401 without a Bearer challenge: WWW-Authenticate %q", h.Get("WWW-Authenticate"))
			}
			if status != http.StatusOK {
				if bytes.Contains(body, []byte(token)) {
					t.Errorf("a refusal echoes the token: %s", body)
				}
				return
			}
			// Accepted: the endpoint answers as this launch.
			var res struct {
				Result struct {
					ProtocolVersion string `json:"protocolVersion"`
					ServerInfo      struct {
						Name, Version string
					} `json:"serverInfo"`
					Meta map[string]struct {
						AppID      string `json:"appId"`
						InstanceID string `json:"instanceId"`
					} `json:"_meta"`
				} `json:"result"`
			}
			msg := jsonrpcBody(t, h, body)
			if err := json.Unmarshal(msg, &res); err != nil {
				t.Fatalf("%v: %s", err, msg)
			}
			inst := res.Result.Meta[appcontext.MetaInstance]
			if inst.InstanceID != s.app.InstanceID() || inst.AppID != "dev.example.test" {
				t.Errorf("initialize _meta %q = %+v, want instance %s of dev.example.test: %s", appcontext.MetaInstance, inst, s.app.InstanceID(), msg)
			}
			if res.Result.ServerInfo.Name != "dev.example.test" || res.Result.ServerInfo.Version != "1.2.3" {
				t.Errorf("serverInfo %+v", res.Result.ServerInfo)
			}
			if res.Result.ProtocolVersion != "2025-11-25" {
				t.Errorf("protocolVersion %q, want 2025-11-25", res.Result.ProtocolVersion)
			}
		})
	}
}

// TestServeRefusesNonLoopback: Serve listens only on a loopback IP
// literal, and writes no manifest otherwise.
func TestServeRefusesNonLoopback(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:0", "localhost:0", "[::]:0", "192.0.2.1:0", "127.0.0.1"} {
		rt := t.TempDir()
		app, err := appcontext.New(appcontext.Options{AppID: "dev.example.test", Name: "Test", Version: "1", RuntimeDir: rt, Addr: addr})
		if err != nil {
			t.Fatal(err)
		}
		if err := app.Serve(t.Context()); err == nil {
			t.Errorf("Serve on %q returned nil, want an error", addr)
		}
		if app.ManifestPath() != "" {
			t.Errorf("Serve on %q wrote a manifest", addr)
		}
	}
}
