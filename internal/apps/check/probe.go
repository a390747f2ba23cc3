package check

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/kontext-dev/kontext/internal/apps/manifest"
	"github.com/kontext-dev/kontext/internal/mcp"
)

// The probes are raw HTTP requests: the MCP client cannot send a request
// without its token, or with a forged Origin or Host, and must not.

// foreignOrigin and foreignHost name no machine (RFC 2606): a probe
// carrying them cannot reach anything but the endpoint it is sent to.
const (
	foreignOrigin = "https://example.invalid"
	foreignHost   = "example.invalid"
)

type probeOutcome struct {
	status int
	err    error
}

// probeClient never follows a proxy or a redirect: the token goes to the
// manifest's loopback address and nowhere else.
var probeClient = &http.Client{
	Transport: &http.Transport{
		Proxy:                 nil,
		DialContext:           (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
		ResponseHeaderTimeout: 10 * time.Second,
		DisableKeepAlives:     true,
	},
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
}

// probe sends one initialize request, as a client opening a session does,
// with the token unless edit changes the request, and returns the status.
// A session it opens is closed again.
func (r *run) probe(edit func(*http.Request)) probeOutcome {
	ctx, cancel := r.request()
	defer cancel()
	body, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0", "id": 1, "method": "initialize",
		"params": map[string]any{
			"protocolVersion": mcp.LatestLegacyVersion,
			"capabilities":    map[string]any{},
			"clientInfo":      map[string]any{"name": "kontext-apps-check", "version": r.opts.Version},
		},
	})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.m.Mcp.URL, bytes.NewReader(body))
	if err != nil {
		return probeOutcome{err: err}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+manifest.Token(r.m))
	if edit != nil {
		edit(req)
	}
	resp, err := probeClient.Do(req)
	if err != nil {
		return probeOutcome{err: err}
	}
	// An answered initialize ends with its one message; the bound keeps a
	// misbehaving endpoint from holding the check.
	_, _ = io.CopyN(io.Discard, resp.Body, 1<<20)
	_ = resp.Body.Close()
	if session := resp.Header.Get("Mcp-Session-Id"); session != "" && resp.StatusCode/100 == 2 {
		r.endSession(session)
	}
	return probeOutcome{status: resp.StatusCode}
}

// endSession closes a session a probe opened (with the right token: a
// session opened without one is the endpoint's failure, not ours to keep).
func (r *run) endSession(session string) {
	ctx, cancel := r.request()
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, r.m.Mcp.URL, nil)
	if err != nil {
		return
	}
	req.Header.Set("Authorization", "Bearer "+manifest.Token(r.m))
	req.Header.Set("Mcp-Session-Id", session)
	if resp, err := probeClient.Do(req); err == nil {
		_ = resp.Body.Close()
	}
}

// controlled runs the control probe once: the same request with the
// manifest's token and nothing forged must be accepted, or a refusal of a
// forged one proves nothing.
func (r *run) controlled() error {
	if r.control == nil {
		out := r.probe(nil)
		r.control = &out
	}
	switch c := r.control; {
	case c.err != nil:
		return fmt.Errorf("the endpoint cannot be reached: %v", c.err)
	case c.status/100 != 2:
		return fmt.Errorf("initialize with the manifest's token was answered %s, so a refusal proves nothing", statusText(c.status))
	}
	return nil
}

func statusText(code int) string {
	if t := http.StatusText(code); t != "" {
		return fmt.Sprintf("%d %s", code, t)
	}
	return fmt.Sprint(code)
}

func (r *run) endpointToken() error {
	if err := r.controlled(); err != nil {
		return err
	}
	none := r.probe(func(req *http.Request) { req.Header.Del("Authorization") })
	if none.err != nil {
		return fmt.Errorf("a request without a token: %v", none.err)
	}
	if none.status != http.StatusUnauthorized {
		return fmt.Errorf("a request without a token was answered %s, not 401", statusText(none.status))
	}
	wrong := r.probe(func(req *http.Request) { req.Header.Set("Authorization", "Bearer "+wrongToken(manifest.Token(r.m))) })
	if wrong.err != nil {
		return fmt.Errorf("a request with a wrong token: %v", wrong.err)
	}
	if wrong.status != http.StatusUnauthorized {
		return fmt.Errorf("a request with a wrong token was answered %s, not 401", statusText(wrong.status))
	}
	return nil
}

// wrongToken is as long as the right one and differs from it, so that an
// endpoint comparing only lengths or prefixes is caught.
func wrongToken(right string) string {
	for {
		b := make([]byte, (len(right)+1)/2)
		_, _ = rand.Read(b)
		if tok := hex.EncodeToString(b)[:len(right)]; tok != right {
			return tok
		}
	}
}

func (r *run) endpointOrigin() error {
	if err := r.controlled(); err != nil {
		return err
	}
	out := r.probe(func(req *http.Request) { req.Header.Set("Origin", foreignOrigin) })
	if out.err != nil {
		return fmt.Errorf("a request from origin %s: %v", foreignOrigin, out.err)
	}
	if out.status != http.StatusForbidden {
		return fmt.Errorf("a request from origin %s was answered %s, not 403", foreignOrigin, statusText(out.status))
	}
	return nil
}

func (r *run) endpointHost() error {
	if err := r.controlled(); err != nil {
		return err
	}
	u, err := url.Parse(r.m.Mcp.URL)
	if err != nil {
		return err
	}
	host := net.JoinHostPort(foreignHost, u.Port())
	out := r.probe(func(req *http.Request) { req.Host = host })
	if out.err != nil {
		return fmt.Errorf("a request with Host %s: %v", host, out.err)
	}
	if out.status/100 != 4 {
		return fmt.Errorf("a request with Host %s was answered %s, not refused", host, statusText(out.status))
	}
	return nil
}
