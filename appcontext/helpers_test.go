package appcontext_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kontext-dev/kontext/appcontext"
)

// dialect is the JSON Schema dialect the tests' actions name.
const dialect = "https://json-schema.org/draft/2020-12/schema"

// emptySchema is an input schema taking no arguments.
var emptySchema = json.RawMessage(`{"$schema":"` + dialect + `","type":"object","properties":{},"additionalProperties":false}`)

func ptr[T any](v T) *T { return &v }

// newApp makes an application whose manifest goes under rt ("" leaves
// the runtime folder to RuntimeDir()).
func newApp(t *testing.T, rt string) *appcontext.App {
	t.Helper()
	app, err := appcontext.New(appcontext.Options{AppID: "dev.example.test", Name: "Test", Version: "1.2.3", RuntimeDir: rt})
	if err != nil {
		t.Fatal(err)
	}
	return app
}

// served is an application under Serve.
type served struct {
	app  *appcontext.App
	m    appcontext.Manifest
	path string
	stop func() error // cancels Serve's context and returns what Serve returned
}

// serve runs app.Serve until the test ends (or stop) and waits for the
// manifest.
func serve(t *testing.T, app *appcontext.App) *served {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- app.Serve(ctx) }()
	deadline := time.Now().Add(10 * time.Second)
	for app.ManifestPath() == "" {
		select {
		case err := <-done:
			cancel()
			t.Fatalf("Serve returned before writing a manifest: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			cancel()
			t.Fatal("Serve wrote no manifest within 10 s")
		}
		time.Sleep(5 * time.Millisecond)
	}
	s := &served{app: app, m: app.Manifest(), path: app.ManifestPath()}
	var once sync.Once
	var serveErr error
	s.stop = func() error {
		once.Do(func() {
			cancel()
			select {
			case serveErr = <-done:
			case <-time.After(10 * time.Second):
				serveErr = errors.New("Serve did not return within 10 s of its context ending")
			}
		})
		return serveErr
	}
	t.Cleanup(func() {
		if err := s.stop(); err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return s
}

// bearer adds the manifest's token to every request, which is all an
// unmodified MCP client needs to reach an application.
type bearer struct {
	token string
	base  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.base.RoundTrip(r)
}

// connect connects the official Go SDK client to the application's
// endpoint, asking for version ("" is the SDK's latest).
func connect(t *testing.T, m appcontext.Manifest, version string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	if m.Mcp == nil {
		t.Fatal("the manifest names no MCP endpoint")
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "appcontext-test", Version: "0"}, opts)
	transport := &mcp.StreamableClientTransport{
		Endpoint:   m.Mcp.URL,
		HTTPClient: &http.Client{Transport: bearer{m.Mcp.Auth.Token, http.DefaultTransport}},
		MaxRetries: -1,
	}
	var sopts *mcp.ClientSessionOptions
	if version != "" {
		sopts = &mcp.ClientSessionOptions{ProtocolVersion: version}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, transport, sopts)
	if err != nil {
		t.Fatalf("connecting the Go SDK to %s: %v", m.Mcp.URL, err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// eras are the protocol revisions the SDK tests run in: the last legacy
// one (initialize) and the SDK's latest (server/discover).
var eras = []struct{ name, version string }{
	{"2025-11-25", "2025-11-25"},
	{"latest", ""},
}
