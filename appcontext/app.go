package appcontext

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/kontext-dev/kontext/internal/apps/journal"
	"github.com/kontext-dev/kontext/internal/mcp"
	"github.com/kontext-dev/kontext/internal/mcp/legacyws"
	"github.com/kontext-dev/kontext/internal/procstart"
)

// Options describe an application.
type Options struct {
	// AppID is reverse-DNS and stable across versions and launches
	// (dev.example.notes).
	AppID   string
	Name    string
	Version string
	// Workspaces are the absolute folders the launch works on.
	Workspaces []string
	// Events are the event types the application emits, announced with
	// its instance.
	Events []EventType
	// Addr is the loopback address to listen on (127.0.0.1:0 when empty).
	Addr string
	// RuntimeDir is where the manifest goes (RuntimeDir() when empty).
	RuntimeDir string
	// Logger receives diagnostics; discarded when nil.
	Logger *slog.Logger
	// LegacyWebSocket serves only the WebSocket channel of earlier
	// releases and writes a manifest without an MCP endpoint, for testing
	// how a broker treats an old application.
	LegacyWebSocket bool
}

// EventType is one kind of event an application emits.
type EventType struct {
	Type        string `json:"type"`
	Description string `json:"description,omitempty"`
}

// Action is one semantic action of the application.
type Action struct {
	Name        string
	Title       string
	Description string
	// InputSchema is a JSON Schema object that names its dialect with
	// "$schema"; it is advertised byte for byte.
	InputSchema json.RawMessage
	// OutputSchema, when set, describes the structured result.
	OutputSchema json.RawMessage
	// Annotations are the MCP hints, each sent only when set. State
	// destructiveness (ReadOnlyHint true, or DestructiveHint): a broker
	// treats an action that says neither as destructive.
	Annotations Annotations
	// Confirmation, when set, makes the action run only once the user
	// confirmed it: the call's _meta must carry MetaConfirmed: true (a
	// broker sets it after asking the user). Other calls are refused.
	Confirmation *Confirmation
	// Handler runs the action with its arguments (already valid against
	// InputSchema). A string result is sent as text, any other value as
	// structured content; an error is a failed result.
	Handler func(ctx context.Context, args json.RawMessage) (any, error)
}

// Annotations are an action's MCP hints; nil means not stated.
type Annotations struct {
	ReadOnlyHint, DestructiveHint, IdempotentHint, OpenWorldHint *bool
}

// Confirmation says an action needs the user's consent, and what to ask.
type Confirmation struct {
	Prompt string
}

// App is one launch of an application: its actions, state and events,
// served as an MCP endpoint on loopback.
type App struct {
	opts       Options
	instanceID string
	token      string
	log        *slog.Logger
	srv        *mcp.Server
	prefix     string

	mu       sync.Mutex
	state    map[string]json.RawMessage
	manifest *Manifest
	path     string
	serving  bool

	events *journal.Journal
}

var appIDPattern = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)+$`)

// New makes an application with a fresh instanceId and token; Serve
// publishes it.
func New(opts Options) (*App, error) {
	if !appIDPattern.MatchString(opts.AppID) || len(opts.AppID) > 128 {
		return nil, fmt.Errorf("appcontext: appId %q is not reverse-DNS (dev.example.app)", opts.AppID)
	}
	if opts.Name == "" || opts.Version == "" {
		return nil, errors.New("appcontext: an application needs a name and a version")
	}
	for _, w := range opts.Workspaces {
		if !strings.HasPrefix(w, "/") {
			return nil, fmt.Errorf("appcontext: workspace %q is not an absolute path", w)
		}
	}
	if opts.Addr == "" {
		opts.Addr = "127.0.0.1:0"
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	a := &App{
		opts: opts, instanceID: newInstanceID(), token: newToken(), log: log,
		state: map[string]json.RawMessage{}, events: journal.New(),
	}
	a.prefix = "appcontext://apps/" + url.PathEscape(opts.AppID) + "/" + url.PathEscape(a.instanceID) + "/"
	events := opts.Events
	if events == nil {
		events = []EventType{}
	}
	srv, err := mcp.NewServer(mcp.Implementation{Name: opts.AppID, Title: opts.Name, Version: opts.Version}, mcp.Options{
		Instructions: opts.Name + " " + opts.Version + " (App Context instance " + a.instanceID + ")",
		ResultMeta: map[string]any{MetaInstance: map[string]any{
			"appId": opts.AppID, "instanceId": a.instanceID, "events": events,
		}},
		OnSubscription: a.onSubscription,
		Logger:         log,
	}, a.toolset())
	if err != nil {
		return nil, err
	}
	a.srv = srv
	return a, nil
}

// newInstanceID is 26 lowercase base32 characters: 130 random bits, so
// an id is never reused.
func newInstanceID() string {
	b := make([]byte, 17)
	_, _ = rand.Read(b) // crypto/rand never fails on supported platforms
	return strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b))[:26]
}

// newToken is 256 random bits in hex, minted per launch.
func newToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// InstanceID names this launch.
func (a *App) InstanceID() string { return a.instanceID }

func (a *App) stateURI() string         { return a.prefix + "state" }
func (a *App) keyURI(key string) string { return a.prefix + "state/" + url.PathEscape(key) }
func (a *App) eventsURI() string        { return a.prefix + "events" }

// toolset holds the resources; tools come with Register.
func (a *App) toolset() *mcp.Toolset {
	return &mcp.Toolset{
		Name: "app",
		Resources: []*mcp.Resource{
			{URI: a.stateURI(), Name: "state", Title: a.opts.Name + " state", Description: "All of the state, as a JSON object.", MIMEType: "application/json",
				Read: func(context.Context) (*mcp.ResourceContents, error) {
					a.mu.Lock()
					b, err := json.Marshal(a.state)
					a.mu.Unlock()
					if err != nil {
						return nil, err
					}
					return &mcp.ResourceContents{URI: a.stateURI(), MIMEType: "application/json", Text: string(b)}, nil
				}},
			{URI: a.eventsURI(), Name: "events", Title: a.opts.Name + " events", Description: "The events emitted while this resource is subscribed (at most 256 or 64 KiB).", MIMEType: "application/json",
				Read: func(context.Context) (*mcp.ResourceContents, error) {
					b, err := json.Marshal(a.events.Snapshot())
					if err != nil {
						return nil, err
					}
					return &mcp.ResourceContents{URI: a.eventsURI(), MIMEType: "application/json", Text: string(b)}, nil
				}},
		},
		Templates: []*mcp.ResourceTemplate{{
			URITemplate: a.prefix + "state/{key}", Name: "state_key", Title: a.opts.Name + " state key",
			Description: "One state key's value, as JSON.", MIMEType: "application/json",
			Read: func(_ context.Context, vars map[string]string) (*mcp.ResourceContents, error) {
				a.mu.Lock()
				v, ok := a.state[vars["key"]]
				a.mu.Unlock()
				if !ok {
					return nil, nil
				}
				return &mcp.ResourceContents{URI: a.keyURI(vars["key"]), MIMEType: "application/json", Text: string(v)}, nil
			},
			List: func(context.Context) ([]*mcp.Resource, error) {
				a.mu.Lock()
				keys := make([]string, 0, len(a.state))
				for k := range a.state {
					keys = append(keys, k)
				}
				a.mu.Unlock()
				slices.Sort(keys)
				out := make([]*mcp.Resource, len(keys))
				for i, k := range keys {
					out[i] = &mcp.Resource{URI: a.keyURI(k), Name: k, Title: a.opts.Name + " state: " + k, MIMEType: "application/json"}
				}
				return out, nil
			},
		}},
	}
}

// Register adds an action, or registers it again: a new registration
// gets a new registrationId, so a broker's cached name for the old one
// stops working even when nothing else changed.
func (a *App) Register(act Action) error {
	if act.Name == "" {
		return errors.New("appcontext: an action needs a name")
	}
	if err := checkActionName(act.Name); err != nil {
		return err
	}
	if act.Handler == nil {
		return fmt.Errorf("appcontext: action %s has no handler", act.Name)
	}
	var schema struct {
		Dialect string `json:"$schema"`
		Type    string `json:"type"`
	}
	if err := json.Unmarshal(act.InputSchema, &schema); err != nil {
		return fmt.Errorf("appcontext: action %s: the input schema is not a JSON object: %v", act.Name, err)
	}
	if schema.Dialect == "" {
		return fmt.Errorf("appcontext: action %s: the input schema must name its dialect with \"$schema\"", act.Name)
	}
	if schema.Type != "object" {
		return fmt.Errorf("appcontext: action %s: the input schema must describe an object", act.Name)
	}
	if err := mcp.CheckInputSchema(act.Name, act.InputSchema); err != nil {
		return fmt.Errorf("appcontext: action %s: %w", act.Name, err)
	}
	if len(act.OutputSchema) > 0 && !json.Valid(act.OutputSchema) {
		return fmt.Errorf("appcontext: action %s: the output schema is not JSON", act.Name)
	}
	// Removing the name whether or not it is served makes a registration
	// one step of the server's: two concurrent first registrations of a
	// name are two registrations, not a "defined twice" error.
	return a.srv.ReplaceTools([]string{act.Name}, []*mcp.Tool{a.tool(act)})
}

// checkActionName refuses the names a client could not show or send
// back as given: not UTF-8 (JSON would rewrite it), control characters,
// surrounding or only white space. Any other name is kept, however long:
// a broker shortens it for its typed tool.
func checkActionName(name string) error {
	switch {
	case !utf8.ValidString(name):
		return fmt.Errorf("appcontext: action name %q is not UTF-8", name)
	case strings.IndexFunc(name, unicode.IsControl) >= 0:
		return fmt.Errorf("appcontext: action name %q holds a control character", name)
	case strings.TrimSpace(name) != name:
		return fmt.Errorf("appcontext: action name %q starts or ends with white space", name)
	}
	return nil
}

func (a *App) tool(act Action) *mcp.Tool {
	meta := map[string]any{"registrationId": newToken()[:24]}
	if act.Confirmation != nil {
		c := map[string]any{"required": true}
		if act.Confirmation.Prompt != "" {
			c["prompt"] = act.Confirmation.Prompt
		}
		meta["confirmation"] = c
	}
	metaJSON, _ := json.Marshal(map[string]any{MetaAction: meta})
	h := act.Annotations
	confirm := act.Confirmation != nil
	name := act.Name
	handler := act.Handler
	return &mcp.Tool{
		Name: act.Name, Title: act.Title, Description: act.Description,
		Annotations: mcp.Annotations{ReadOnly: h.ReadOnlyHint, Destructive: h.DestructiveHint, Idempotent: h.IdempotentHint, OpenWorld: h.OpenWorldHint},
		Meta:        metaJSON, InputSchema: act.InputSchema, OutputSchema: act.OutputSchema,
		InvalidArguments: mcp.InvalidArgumentsProtocolError,
		Call: func(ctx context.Context, args json.RawMessage) (*mcp.ToolResult, error) {
			if confirm && !confirmed(ctx) {
				return mcp.ErrorResult("%s needs the user's confirmation: the call must carry _meta %q: true (a broker asks the user, then sets it)", name, MetaConfirmed), nil
			}
			v, err := handler(ctx, args)
			if err != nil {
				return mcp.ErrorResult("%s: %v", name, err), nil
			}
			switch v := v.(type) {
			case nil:
				return mcp.TextResult("done"), nil
			case string:
				return mcp.TextResult(v), nil
			default:
				return mcp.StructuredResult(v)
			}
		},
	}
}

func confirmed(ctx context.Context) bool {
	var meta map[string]json.RawMessage
	if json.Unmarshal(mcp.RequestMeta(ctx), &meta) != nil {
		return false
	}
	return string(meta[MetaConfirmed]) == "true"
}

// SetState publishes one state key; followers of the key and of the whole
// state hear of it, and a new key changes the resource list.
func (a *App) SetState(key string, v any) error {
	if key == "" {
		return errors.New("appcontext: a state key cannot be empty")
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("appcontext: state %s: %w", key, err)
	}
	a.mu.Lock()
	old, existed := a.state[key]
	a.state[key] = b
	a.mu.Unlock()
	if existed && string(old) == string(b) {
		return nil
	}
	if !existed {
		a.srv.ResourcesChanged()
	}
	a.srv.ResourceUpdated(a.keyURI(key))
	a.srv.ResourceUpdated(a.stateURI())
	return nil
}

// Emit journals an event, which only happens while some client follows
// the events resource; it is then told of it.
func (a *App) Emit(typ string, data any) error {
	if typ == "" {
		return errors.New("appcontext: an event needs a type")
	}
	var raw json.RawMessage
	if data != nil {
		b, err := json.Marshal(data)
		if err != nil {
			return fmt.Errorf("appcontext: event %s: %w", typ, err)
		}
		raw = b
	}
	if _, ok := a.events.Append(typ, raw, time.Now()); ok {
		a.srv.ResourceUpdated(a.eventsURI())
	}
	return nil
}

func (a *App) onSubscription(uri string, active bool) {
	if uri == a.eventsURI() {
		a.events.SetRecording(active)
	}
}

// Manifest returns the launch's manifest (its endpoint once Serve listens).
func (a *App) Manifest() Manifest {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.manifest == nil {
		return Manifest{}
	}
	return *a.manifest
}

// ManifestPath is where Serve wrote the manifest ("" before).
func (a *App) ManifestPath() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.path
}

// Serve listens on loopback, writes the manifest and serves the endpoint
// until ctx ends; then it removes the manifest and returns nil.
func (a *App) Serve(ctx context.Context) error {
	a.mu.Lock()
	if a.serving {
		a.mu.Unlock()
		return errors.New("appcontext: already serving")
	}
	a.serving = true
	a.mu.Unlock()
	host, _, err := net.SplitHostPort(a.opts.Addr)
	if ip := net.ParseIP(host); err != nil || ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("appcontext: address %q is not a loopback IP literal and port", a.opts.Addr)
	}
	ln, err := net.Listen("tcp", a.opts.Addr)
	if err != nil {
		return fmt.Errorf("appcontext: listening: %w", err)
	}
	guard := mcp.HTTPGuard{Token: a.token, LoopbackOnly: true}
	handler := a.srv.NewStreamableHandler(mcp.StreamableOptions{})
	sessions, endSessions := context.WithCancel(ctx)
	defer endSessions()
	mux := http.NewServeMux()
	var endpoint string
	if a.opts.LegacyWebSocket {
		mux.Handle("/ws", guard.Wrap(legacyws.Handler(sessions, a.srv)))
		endpoint = "ws://" + ln.Addr().String() + "/ws"
	} else {
		mux.Handle("/mcp", guard.Wrap(handler))
		endpoint = "http://" + ln.Addr().String() + "/mcp"
	}
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	serveErr := make(chan error, 1)
	go func() { serveErr <- hs.Serve(ln) }()

	m, err := a.newManifest(endpoint)
	if err == nil {
		err = a.publish(m)
	}
	if err != nil {
		_ = hs.Close()
		return err
	}
	a.log.Info("appcontext: serving", "app", a.opts.AppID, "instance", a.instanceID, "url", endpoint, "manifest", a.ManifestPath())
	select {
	case <-ctx.Done():
	case err = <-serveErr:
	}
	rmErr := RemoveManifest(a.ManifestPath())
	endSessions()
	shutdown, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_ = handler.Close(shutdown)
	_ = hs.Shutdown(shutdown)
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return rmErr
}

func (a *App) newManifest(endpoint string) (*Manifest, error) {
	start, err := procstart.Of(os.Getpid())
	if errors.Is(err, procstart.ErrUnknown) {
		start, err = "0", nil
	}
	if err != nil {
		return nil, fmt.Errorf("appcontext: the process start time: %w", err)
	}
	workspaces := a.opts.Workspaces
	if workspaces == nil {
		workspaces = []string{}
	}
	m := &Manifest{
		Profile: ProfileVersion, AppID: a.opts.AppID, AppName: a.opts.Name, AppVersion: a.opts.Version,
		InstanceID: a.instanceID, Pid: os.Getpid(), ProcessStart: start, StartedAt: time.Now().UTC().Truncate(time.Second),
		Workspaces: workspaces,
	}
	if a.opts.LegacyWebSocket {
		m.Websocket = &WebSocketEndpoint{URL: endpoint, Token: a.token}
	} else {
		m.Mcp = &MCPEndpoint{
			Transport: "streamable-http", URL: endpoint, ProtocolVersions: mcp.SupportedVersions(),
			Auth: BearerAuth{Scheme: "bearer", Token: a.token},
		}
	}
	return m, nil
}

// publish writes the manifest where brokers look.
func (a *App) publish(m *Manifest) error {
	rt := a.opts.RuntimeDir
	if rt == "" {
		var err error
		if rt, err = RuntimeDir(); err != nil {
			return err
		}
	}
	path, err := WriteManifest(InstancesDirIn(rt), m)
	if err != nil {
		return err
	}
	a.mu.Lock()
	a.manifest, a.path = m, path
	a.mu.Unlock()
	return nil
}
