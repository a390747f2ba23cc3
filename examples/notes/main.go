// Command notes is an example App Context application: a list of notes
// whose actions, state and events the kontext broker
// (kontext mcp --toolsets apps) projects to agents.
//
//	go run ./examples/notes [--name N] [--legacy-websocket] [--no-hints] [--touch-hints] [--reregister-after 2s]
//
// touch states no hints, as an older endpoint might, so that a broker's
// defaults can be seen; kontext apps check fails it for that
// (action-destructiveness). With --touch-hints it states them, and the
// application passes every rule of the profile.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/kontext-dev/kontext/appcontext"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "notes:", err)
		os.Exit(1)
	}
}

func run() error {
	name := flag.String("name", "Notes", "the application's name")
	legacy := flag.Bool("legacy-websocket", false, "serve only the legacy WebSocket channel (an old manifest)")
	noHints := flag.Bool("no-hints", false, "register every action without MCP hints")
	touchHints := flag.Bool("touch-hints", false, "give touch its hints (read-only), so that every action states its destructiveness")
	reregister := flag.Duration("reregister-after", 0, "register every action again once, after this long")
	flag.Parse()

	wd, _ := os.Getwd()
	app, err := appcontext.New(appcontext.Options{
		AppID: "dev.kontext.notes", Name: *name, Version: "1.0.0", Workspaces: []string{wd},
		Events:          []appcontext.EventType{{Type: "note_added", Description: "a note was added"}},
		LegacyWebSocket: *legacy,
	})
	if err != nil {
		return err
	}
	n := &notes{app: app, list: []string{}}
	actions := n.actions(*noHints, *touchHints && !*noHints)
	for _, a := range actions {
		if err := app.Register(a); err != nil {
			return err
		}
	}
	if err := n.publish(); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *reregister > 0 {
		go func() {
			select {
			case <-ctx.Done():
			case <-time.After(*reregister):
				for _, a := range actions {
					if err := app.Register(a); err != nil {
						fmt.Fprintln(os.Stderr, "notes: registering again:", err)
					}
				}
				fmt.Fprintln(os.Stderr, "notes: every action registered again")
			}
		}()
	}
	go func() {
		// Say where the launch is once the manifest is written.
		for i := 0; i < 200 && app.ManifestPath() == ""; i++ {
			time.Sleep(10 * time.Millisecond)
		}
		fmt.Fprintf(os.Stderr, "notes: instance %s, manifest %s\n", app.InstanceID(), app.ManifestPath())
	}()
	return app.Serve(ctx)
}

type notes struct {
	app  *appcontext.App
	mu   sync.Mutex
	list []string
}

func (n *notes) publish() error {
	n.mu.Lock()
	list := append([]string{}, n.list...)
	n.mu.Unlock()
	if err := n.app.SetState("notes", list); err != nil {
		return err
	}
	return n.app.SetState("count", len(list))
}

const dialect = "https://json-schema.org/draft/2020-12/schema"

func (n *notes) actions(noHints, touchHints bool) []appcontext.Action {
	hint := func(b bool) *bool {
		if noHints {
			return nil
		}
		return &b
	}
	var touch appcontext.Annotations
	touchDesc := "Does nothing; it states no hints."
	if touchHints {
		touchDesc = "Does nothing."
		touch = appcontext.Annotations{ReadOnlyHint: hint(true), IdempotentHint: hint(true), OpenWorldHint: hint(false)}
	}
	empty := json.RawMessage(`{"$schema":"` + dialect + `","type":"object","properties":{},"additionalProperties":false}`)
	return []appcontext.Action{
		{
			Name: "list_notes", Title: "List notes", Description: "Every note, oldest first.",
			InputSchema: empty,
			Annotations: appcontext.Annotations{ReadOnlyHint: hint(true), OpenWorldHint: hint(false)},
			Handler: func(context.Context, json.RawMessage) (any, error) {
				n.mu.Lock()
				defer n.mu.Unlock()
				return map[string]any{"notes": append([]string{}, n.list...)}, nil
			},
		},
		{
			Name: "add_note", Title: "Add a note", Description: "Adds a note at the end.",
			InputSchema: json.RawMessage(`{"$schema":"` + dialect + `","type":"object","properties":{"text":{"type":"string","minLength":1,"maxLength":10000}},"required":["text"],"additionalProperties":false}`),
			Annotations: appcontext.Annotations{ReadOnlyHint: hint(false), DestructiveHint: hint(false), IdempotentHint: hint(false), OpenWorldHint: hint(false)},
			Handler: func(_ context.Context, args json.RawMessage) (any, error) {
				var in struct{ Text string }
				if err := json.Unmarshal(args, &in); err != nil || in.Text == "" {
					return nil, errors.New("text is required")
				}
				n.mu.Lock()
				n.list = append(n.list, in.Text)
				count := len(n.list)
				n.mu.Unlock()
				if err := n.publish(); err != nil {
					return nil, err
				}
				if err := n.app.Emit("note_added", map[string]any{"text": in.Text, "count": count}); err != nil {
					return nil, err
				}
				return map[string]any{"count": count}, nil
			},
		},
		{
			Name: "clear_notes", Title: "Clear notes", Description: "Deletes every note.",
			InputSchema:  empty,
			Annotations:  appcontext.Annotations{ReadOnlyHint: hint(false), DestructiveHint: hint(true), IdempotentHint: hint(true), OpenWorldHint: hint(false)},
			Confirmation: &appcontext.Confirmation{Prompt: "Delete every note?"},
			Handler: func(context.Context, json.RawMessage) (any, error) {
				n.mu.Lock()
				cleared := len(n.list)
				n.list = []string{}
				n.mu.Unlock()
				if err := n.publish(); err != nil {
					return nil, err
				}
				return map[string]any{"cleared": cleared}, nil
			},
		},
		{
			// touch states no hints at all, as an older endpoint might
			// (unless --touch-hints).
			Name: "touch", Description: touchDesc,
			InputSchema: empty,
			Annotations: touch,
			Handler:     func(context.Context, json.RawMessage) (any, error) { return "touched", nil },
		},
	}
}
