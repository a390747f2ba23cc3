package mcp

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/kontext-dev/kontext/gen/errcodes"
)

// DefaultMaxHTTPBody bounds one HTTP request body. A JSON-RPC message larger
// than the stdio line limit is no more acceptable over HTTP.
const DefaultMaxHTTPBody = DefaultMaxMessageBytes

// HTTPGuard is the front door of every HTTP endpoint kontext serves: the team
// server of kontext mcp --http and the loopback endpoint of an application. It
// refuses, before any JSON-RPC is read, what the transport's security section
// says a server must refuse: a Host or Origin that is not ours (DNS
// rebinding), a missing or wrong bearer token, and oversized bodies.
type HTTPGuard struct {
	// Token, when not empty, must come as "Authorization: Bearer <Token>".
	Token string
	// Hosts are the host names (without port) a request's Host header may
	// name besides the loopback ones. Empty means loopback only, unless a
	// Token is set: a rebinding page cannot know the token, so a server that
	// requires one accepts any Host.
	Hosts []string
	// Origins are the origins (scheme://host[:port]) a browser request may
	// come from besides loopback ones.
	Origins []string
	// MaxBody bounds a request body; 0 means DefaultMaxHTTPBody.
	MaxBody int64
	// LoopbackOnly refuses every Host but a loopback one, token or not
	// (an App Context endpoint: nothing off the machine names it).
	LoopbackOnly bool
}

// Wrap returns next behind the guard.
func (g HTTPGuard) Wrap(next http.Handler) http.Handler {
	tokenSum := sha256.Sum256([]byte(g.Token))
	maxBody := g.MaxBody
	if maxBody <= 0 {
		maxBody = DefaultMaxHTTPBody
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !g.hostAllowed(r.Host) {
			refuseHTTP(w, http.StatusForbidden, "the Host header "+quoteHeader(r.Host)+" is not this server's")
			return
		}
		if origin := r.Header.Get("Origin"); origin != "" && !g.originAllowed(origin) {
			refuseHTTP(w, http.StatusForbidden, "requests from origin "+quoteHeader(origin)+" are not allowed")
			return
		}
		if g.Token != "" {
			presented, ok := bearerToken(r.Header.Get("Authorization"))
			if !ok {
				w.Header().Set("WWW-Authenticate", `Bearer realm="kontext"`)
				refuseHTTP(w, http.StatusUnauthorized, "this server requires a bearer token (Authorization: Bearer <token>)")
				return
			}
			// Comparing digests keeps the comparison constant in time and
			// independent of the token's length.
			presentedSum := sha256.Sum256([]byte(presented))
			if subtle.ConstantTimeCompare(presentedSum[:], tokenSum[:]) != 1 {
				w.Header().Set("WWW-Authenticate", `Bearer realm="kontext", error="invalid_token"`)
				refuseHTTP(w, http.StatusUnauthorized, "the bearer token is not valid")
				return
			}
		}
		if r.ContentLength > maxBody {
			refuseHTTP(w, http.StatusRequestEntityTooLarge, "the request body is larger than this server accepts")
			return
		}
		if r.Body != nil {
			r.Body = http.MaxBytesReader(w, r.Body, maxBody)
		}
		next.ServeHTTP(w, r)
	})
}

// IsBodyTooLarge reports whether err came from reading past the guard's body
// bound, so that a handler answers 413 rather than a parse error.
func IsBodyTooLarge(err error) bool {
	var tooLarge *http.MaxBytesError
	return errors.As(err, &tooLarge)
}

func (g HTTPGuard) hostAllowed(hostport string) bool {
	host := hostOnly(hostport)
	if host == "" {
		return false
	}
	if isLoopbackHost(host) {
		return true
	}
	if g.LoopbackOnly {
		return false
	}
	for _, h := range g.Hosts {
		if strings.EqualFold(host, hostOnly(h)) {
			return true
		}
	}
	return g.Token != "" && len(g.Hosts) == 0
}

func (g HTTPGuard) originAllowed(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	if isLoopbackHost(u.Hostname()) {
		return true
	}
	for _, o := range g.Origins {
		if strings.EqualFold(strings.TrimRight(o, "/"), origin) {
			return true
		}
	}
	return false
}

// hostOnly strips the port and IPv6 brackets from a Host header value.
func hostOnly(hostport string) string {
	if host, _, err := net.SplitHostPort(hostport); err == nil {
		return host
	}
	return strings.TrimSuffix(strings.TrimPrefix(hostport, "["), "]")
}

// isLoopbackHost is true for localhost and loopback IP literals. Other names
// that resolve to loopback are exactly what a rebinding attack uses, so no
// name is resolved.
func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func bearerToken(header string) (string, bool) {
	scheme, token, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	token = strings.TrimSpace(token)
	return token, token != ""
}

// quoteHeader quotes a client-supplied value for an error message, clipped so
// that a huge header does not make a huge answer.
func quoteHeader(v string) string {
	const limit = 100
	if len(v) > limit {
		v = v[:limit] + "…"
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// refuseHTTP answers a request the guard refuses with a JSON-RPC error body
// (id null, as for a message that could not be read): MCP clients show its
// reason to their users.
func refuseHTTP(w http.ResponseWriter, status int, reason string) {
	body, _ := json.Marshal(struct {
		JSONRPC string `json:"jsonrpc"`
		ID      any    `json:"id"`
		Error   *Error `json:"error"`
	}{"2.0", nil, NewError(errcodes.InvalidRequest, map[string]string{"reason": reason})})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(append(body, '\n'))
}
