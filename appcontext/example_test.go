package appcontext_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/kontext-dev/kontext/appcontext"
)

// An application: one action, one state key, served until its context
// ends. A real application passes a context from signal.NotifyContext
// and leaves Options.RuntimeDir empty, so that the manifest goes where
// the broker (kontext mcp --toolsets apps) looks.
func Example() {
	runtimeDir, _ := os.MkdirTemp("", "appcontext-example-")
	defer os.RemoveAll(runtimeDir)

	app, err := appcontext.New(appcontext.Options{AppID: "dev.example.counter", Name: "Counter", Version: "1.0.0", RuntimeDir: runtimeDir})
	if err != nil {
		log.Fatal(err)
	}
	count, no := 0, false
	err = app.Register(appcontext.Action{
		Name: "increment", Description: "Adds one to the counter.",
		InputSchema: json.RawMessage(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object"}`),
		Annotations: appcontext.Annotations{ReadOnlyHint: &no, DestructiveHint: &no},
		Handler: func(context.Context, json.RawMessage) (any, error) {
			count++
			return map[string]int{"count": count}, app.SetState("count", count)
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	_ = app.SetState("count", count)

	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error)
	go func() { served <- app.Serve(ctx) }()

	for app.ManifestPath() == "" { // Serve listens, then writes the manifest
		time.Sleep(time.Millisecond)
	}
	m := app.Manifest()
	fmt.Println("announced:", m.AppID, m.AppName, m.AppVersion)
	fmt.Println("endpoint:", m.Mcp.Transport, m.Mcp.Auth.Scheme, len(m.Mcp.Auth.Token)*4, "bits")

	stop() // SIGTERM, for a real application
	err = <-served
	_, statErr := os.Stat(app.ManifestPath())
	fmt.Println("after exit:", err, "manifest removed:", errors.Is(statErr, os.ErrNotExist))
	// Output:
	// announced: dev.example.counter Counter 1.0.0
	// endpoint: streamable-http bearer 256 bits
	// after exit: <nil> manifest removed: true
}
