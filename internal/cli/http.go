package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/kontext-dev/kontext/internal/mcp"
)

// shutdownTimeout bounds how long kontext mcp --http lets in-flight
// requests finish after SIGINT or SIGTERM.
const shutdownTimeout = 10 * time.Second

// httpFlags are the flags of kontext mcp that serve it over streamable HTTP.
func httpFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "http", Usage: "serve streamable HTTP at http://`ADDR`/mcp instead of stdio (e.g. 127.0.0.1:7777; port 0 picks one; a host other than loopback needs a token)"},
		&cli.StringFlag{Name: "http-token-file", TakesFile: true, Usage: "require the bearer token in `FILE` (default $KONTEXT_HTTP_TOKEN)"},
		&cli.DurationFlag{Name: "http-idle-timeout", Value: mcp.DefaultHTTPIdleTimeout, Usage: "end an HTTP session after this long without a request"},
	}
}

// httpSetup is what kontext mcp --http needs, read from its flags before
// the server is built, so that a refusal costs nothing.
type httpSetup struct {
	addr  string
	token string
	idle  time.Duration
}

// readHTTPSetup checks the HTTP flags: a listener on anything but loopback
// is refused unless a bearer token guards it.
func readHTTPSetup(c *cli.Context) (*httpSetup, error) {
	addr := c.String("http")
	if addr == "" {
		return nil, nil
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, cli.Exit(fmt.Sprintf("--http %q: want HOST:PORT, e.g. 127.0.0.1:7777 (%v)", addr, err), 2)
	}
	if host == "" {
		host = "127.0.0.1" // loopback unless told otherwise
	}
	token := os.Getenv("KONTEXT_HTTP_TOKEN")
	if file := c.String("http-token-file"); file != "" {
		b, err := os.ReadFile(file)
		if err != nil {
			return nil, cli.Exit(fmt.Sprintf("--http-token-file: %v", err), 2)
		}
		token = strings.TrimSpace(string(b))
		if token == "" {
			return nil, cli.Exit(fmt.Sprintf("--http-token-file %s is empty", file), 2)
		}
	}
	if token == "" && !loopbackHost(host) {
		return nil, cli.Exit(fmt.Sprintf("--http %s listens beyond this machine: give a bearer token with --http-token-file FILE or $KONTEXT_HTTP_TOKEN, or listen on 127.0.0.1", addr), 2)
	}
	idle := c.Duration("http-idle-timeout")
	if idle <= 0 {
		return nil, cli.Exit("--http-idle-timeout must be positive", 2)
	}
	return &httpSetup{addr: net.JoinHostPort(host, port), token: token, idle: idle}, nil
}

// loopbackHost is true for localhost and loopback IP literals; an empty or
// unspecified address (0.0.0.0, ::) is every interface.
func loopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// serveHTTP serves srv at /mcp until ctx ends, then stops accepting, lets
// in-flight requests finish for at most shutdownTimeout and returns nil.
func serveHTTP(ctx context.Context, setup *httpSetup, srv *mcp.Server, stderr io.Writer) error {
	ln, err := net.Listen("tcp", setup.addr)
	if err != nil {
		return cli.Exit(fmt.Sprintf("--http: %v", err), 1)
	}
	endpoint := srv.NewStreamableHandler(mcp.StreamableOptions{IdleTimeout: setup.idle})
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.HTTPGuard{Token: setup.token}.Wrap(endpoint))
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	fmt.Fprintf(stderr, "kontext: serving MCP at http://%s/mcp\n", ln.Addr())

	select {
	case err := <-served:
		endpoint.Close(context.Background())
		return err
	case <-ctx.Done():
	}
	drain, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	// Shutdown stops accepting at once and then waits for connections; it
	// runs beside the drain of the endpoint's requests.
	shutdownDone := make(chan struct{})
	go func() { _ = hs.Shutdown(drain); close(shutdownDone) }()
	if err := endpoint.Close(drain); errors.Is(err, context.DeadlineExceeded) {
		fmt.Fprintf(stderr, "kontext: requests still running after %s were abandoned\n", shutdownTimeout)
	}
	// Every request is answered. What may remain are answers on their way
	// out, given a moment, and connections that never sent a request,
	// which Shutdown would wait five seconds for.
	select {
	case <-shutdownDone:
	case <-time.After(time.Second):
	}
	hs.Close()
	return nil
}
