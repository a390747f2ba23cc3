package apps

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/kontext-dev/kontext/appcontext"
	"github.com/kontext-dev/kontext/gen/protocol"
	"github.com/kontext-dev/kontext/internal/apps/journal"
	"github.com/kontext-dev/kontext/internal/apps/manifest"
	"github.com/kontext-dev/kontext/internal/apps/results"
	"github.com/kontext-dev/kontext/internal/mcp"
	"github.com/kontext-dev/kontext/internal/mcp/proxy"
)

// Instance states.
const (
	stateConnecting  = "connecting"
	stateAvailable   = "available"
	stateUnavailable = "unavailable"
)

// Channels an instance is reached by.
const (
	channelMCP       = "mcp"
	channelWebSocket = "legacy-websocket"
)

// instance is one application launch, from its manifest.
type instance struct {
	b     *Broker
	path  string
	stamp fileStamp

	mu        sync.Mutex
	m         *appcontext.Manifest
	status    string
	reason    string
	channel   string
	client    *mcp.Client
	mount     *proxy.Mount
	events    []results.EventType
	stateKeys []string
	closed    bool

	// registrations counts, per action, the surfaces seen, for an
	// application that gives no registrationId.
	registrations map[string]registration

	// journal is the broker's own: it records while an upstream client
	// follows the events resource, from what the application journals.
	journal *journal.Journal
	appSeq  uint64 // the application's last event seen
	fresh   bool   // no event seen since recording started
	pullMu  sync.Mutex

	// followMu orders the runs of follow; downstream is what the broker
	// has subscribed to on the current connection.
	followMu   sync.Mutex
	downstream map[string]bool
}

type registration struct {
	sum   [32]byte
	count int
}

func newInstance(b *Broker, path string, stamp fileStamp) *instance {
	return &instance{b: b, path: path, stamp: stamp, status: stateConnecting, registrations: map[string]registration{}, journal: journal.New()}
}

func (i *instance) id() string {
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.m != nil {
		return i.m.InstanceID
	}
	return strings.TrimSuffix(pathBase(i.path), ".json")
}

func (i *instance) appID() string {
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.m == nil {
		return ""
	}
	return i.m.AppID
}

func pathBase(p string) string {
	if j := strings.LastIndexByte(p, '/'); j >= 0 {
		return p[j+1:]
	}
	return p
}

// live says whether the manifest's process is still the one that wrote it
// (an instance whose manifest did not parse stays until it is removed).
func (i *instance) live() bool {
	i.mu.Lock()
	m := i.m
	i.mu.Unlock()
	if m == nil {
		return true
	}
	ok, _ := manifest.Live(m)
	return ok
}

// connect runs the checks in the profile's order — the file's owner and
// modes, its schema, the endpoint's loopback address, the handshake, the
// instance the endpoint names — and fails closed at the first.
func (i *instance) connect() {
	m, err := manifest.Load(i.path)
	i.mu.Lock()
	i.m = m
	i.mu.Unlock()
	if m != nil {
		if ok, _ := manifest.Live(m); !ok {
			i.b.markStale(i)
			return
		}
	}
	if err != nil {
		i.fail(err.Error())
		return
	}
	mount := proxy.New(proxy.Options{
		// The broker names and serves the typed tools itself (names are
		// chosen across every instance at once); the mount keeps the
		// application's tools for forwarding.
		Project: func(d protocol.Tool) (*mcp.Tool, bool) {
			return &mcp.Tool{Name: d.Name, InputSchema: d.InputSchema}, true
		},
		CallTimeout:        i.b.opts.CallTimeout,
		After:              i.audited,
		OnToolsChanged:     i.b.changed,
		OnResourcesChanged: i.resourcesChanged,
		OnResourceUpdated:  i.updated,
		Logger:             i.b.log,
	})
	ctx, cancel := i.b.requestContext()
	defer cancel()
	copts := mcp.ClientOptions{Info: mcp.Implementation{Name: "kontext-apps-broker", Version: "1"}, OnNotification: mount.Notify, Logger: i.b.log}
	var c *mcp.Client
	channel := channelMCP
	if m.Mcp != nil {
		c, err = mcp.ConnectHTTP(ctx, m.Mcp.URL, mcp.HTTPOptions{Token: m.Mcp.Auth.Token}, copts)
	} else {
		// Only a manifest without an MCP endpoint is reached this way.
		channel = channelWebSocket
		c, err = connectLegacy(ctx, m, copts)
	}
	if err != nil {
		i.fail("handshake: " + manifest.Redact(err.Error(), m))
		return
	}
	events, err := manifest.Echo(c.ResultMeta, m)
	if err != nil {
		_ = c.Close()
		i.fail(err.Error())
		return
	}
	if err := mount.Attach(ctx, c, nil); err != nil {
		_ = c.Close()
		i.fail("listing its tools: " + manifest.Redact(err.Error(), m))
		return
	}
	keys, err := stateKeysOf(ctx, mount, m)
	if err != nil {
		_ = mount.Close()
		i.fail("listing its resources: " + manifest.Redact(err.Error(), m))
		return
	}
	i.mu.Lock()
	if i.closed {
		i.mu.Unlock()
		_ = mount.Close()
		return
	}
	i.client, i.mount, i.channel, i.events, i.stateKeys = c, mount, channel, events, keys
	i.downstream = map[string]bool{}
	i.status, i.reason = stateAvailable, ""
	i.mu.Unlock()
	i.b.log.Info("apps: instance available", "app", m.AppID, "instance", m.InstanceID, "channel", channel)
	for _, uri := range i.b.followedOf(i.uriPrefix()) {
		kind := resourceState
		if _, _, k, _, ok := parseURI(uri); ok {
			kind = k
		}
		i.follow(uri, kind)
	}
	i.b.changed()
}

// stateKeysOf lists the state keys the application's resources name.
func stateKeysOf(ctx context.Context, mount *proxy.Mount, m *appcontext.Manifest) ([]string, error) {
	res, err := mount.Resources(ctx)
	if err != nil {
		return nil, err
	}
	prefix := uriPrefix(m.AppID, m.InstanceID) + "state/"
	var keys []string
	for _, r := range res {
		if esc, ok := strings.CutPrefix(r.URI, prefix); ok && esc != "" {
			if key, err := url.PathUnescape(esc); err == nil {
				keys = append(keys, key)
			}
		}
	}
	slices.Sort(keys)
	return slices.Compact(keys), nil
}

func (i *instance) fail(reason string) {
	i.mu.Lock()
	if i.closed {
		i.mu.Unlock()
		return
	}
	i.status, i.reason = stateUnavailable, reason
	i.mu.Unlock()
	i.b.log.Warn("apps: instance unavailable", "manifest", i.path, "reason", reason)
	i.b.changed()
}

func (i *instance) close() {
	i.mu.Lock()
	i.closed = true
	mount := i.mount
	i.mount, i.client = nil, nil
	i.mu.Unlock()
	if mount != nil {
		_ = mount.Close()
	}
}

// snapshot is what apps_list says of the instance.
func (i *instance) snapshot() results.Instance {
	i.mu.Lock()
	defer i.mu.Unlock()
	out := results.Instance{InstanceID: strings.TrimSuffix(pathBase(i.path), ".json"), Workspaces: []string{}, Channel: i.channel}
	if i.m != nil {
		out.InstanceID, out.AppID, out.Name, out.Version = i.m.InstanceID, i.m.AppID, i.m.AppName, i.m.AppVersion
		if i.m.Workspaces != nil {
			out.Workspaces = slices.Clone(i.m.Workspaces)
		}
		if !i.m.StartedAt.IsZero() {
			out.StartedAt = i.m.StartedAt.UTC().Format(time.RFC3339)
		}
	}
	switch i.status {
	case stateAvailable:
		out.Available = true
	case stateConnecting:
		out.Reason = "connecting"
	default:
		out.Reason = i.reason
	}
	return out
}

// available returns the mount of an available instance, or a tool error
// naming the instance and why it cannot be reached.
func (i *instance) available() (*proxy.Mount, *appcontext.Manifest, error) {
	i.mu.Lock()
	defer i.mu.Unlock()
	switch {
	case i.closed:
		return nil, nil, fmt.Errorf("instance %s is gone (the application exited or restarted; apps_list lists the live instances)", i.idLocked())
	case i.status == stateConnecting:
		return nil, nil, fmt.Errorf("instance %s is still being connected; try again in a moment", i.idLocked())
	case i.status != stateAvailable:
		return nil, nil, fmt.Errorf("instance %s is unavailable: %s", i.idLocked(), i.reason)
	}
	return i.mount, i.m, nil
}

func (i *instance) idLocked() string {
	if i.m != nil {
		return i.m.InstanceID
	}
	return strings.TrimSuffix(pathBase(i.path), ".json")
}

// actionMeta is what an application says of an action in its tool's
// _meta.
type actionMeta struct {
	RegistrationID string `json:"registrationId"`
	Confirmation   *struct {
		Required bool   `json:"required"`
		Prompt   string `json:"prompt,omitempty"`
	} `json:"confirmation,omitempty"`
}

func metaOf(d protocol.Tool) actionMeta {
	var all map[string]json.RawMessage
	var am actionMeta
	if json.Unmarshal(d.Meta, &all) == nil {
		_ = json.Unmarshal(all[appcontext.MetaAction], &am)
	}
	return am
}

// typedTool is one action served as a tool of its own.
type typedTool struct {
	named
	inst         *instance
	m            *appcontext.Manifest
	down         protocol.Tool
	registration string
	confirm      bool
	prompt       string
}

// typedTools are the instance's actions as typed tools, waiting for their
// names (none while it is not available).
func (i *instance) typedTools() []*typedTool {
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.status != stateAvailable || i.closed || i.mount == nil {
		return nil
	}
	var out []*typedTool
	for _, p := range i.mount.Tools() {
		d := p.Down
		if i.b.opts.ReadOnly && !explicitlyReadOnly(d) {
			continue
		}
		am := metaOf(d)
		var confirmation json.RawMessage
		if am.Confirmation != nil {
			confirmation, _ = json.Marshal(am.Confirmation)
		}
		var annotations json.RawMessage
		if d.Annotations != nil {
			annotations, _ = json.Marshal(d.Annotations)
		}
		s := surface{
			Profile: appcontext.ProfileVersion, AppID: i.m.AppID, InstanceID: i.m.InstanceID, Action: d.Name,
			Description: deref(d.Description), Title: deref(d.Title), InputSchema: d.InputSchema, OutputSchema: d.OutputSchema,
			Annotations: annotations, Confirmation: confirmation,
		}
		reg := am.RegistrationID
		if reg == "" {
			// No registrationId: every surface the broker has seen for the
			// action is one registration.
			r := i.registrations[d.Name]
			if sum := s.sum(); r.count == 0 || r.sum != sum {
				r = registration{sum: sum, count: r.count + 1}
				i.registrations[d.Name] = r
			}
			reg = fmt.Sprintf("broker-%d", r.count)
		}
		s.RegistrationID = reg
		t := &typedTool{
			named: named{app: appSlug(i.m.AppID), action: d.Name, sum: s.sum()},
			inst:  i, m: i.m, down: d, registration: reg,
		}
		if am.Confirmation != nil && am.Confirmation.Required {
			t.confirm, t.prompt = true, am.Confirmation.Prompt
		}
		out = append(out, t)
	}
	return out
}

func explicitlyReadOnly(d protocol.Tool) bool {
	return d.Annotations != nil && d.Annotations.ReadOnlyHint != nil && *d.Annotations.ReadOnlyHint
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// tool is the typed tool as served: the application's schema byte for
// byte, its hints as given (destructive when it states neither read-only
// nor destructiveness), the action and the confirmation in _meta.
func (t *typedTool) tool(b *Broker) *mcp.Tool {
	d := t.down
	desc := deref(d.Description)
	where := t.m.AppName
	if t.m.AppVersion != "" {
		where += " " + t.m.AppVersion
	}
	where += ", instance " + t.m.InstanceID
	if len(t.m.Workspaces) > 0 {
		where += ", " + strings.Join(t.m.Workspaces, ", ")
	}
	if desc != "" {
		desc += " "
	}
	desc += "(" + where + "; action " + d.Name + ")"
	if t.confirm {
		desc = "[confirmation required] " + desc
	}
	up := &mcp.Tool{
		Name: t.name, Title: deref(d.Title), Description: desc, Toolset: "apps",
		InputSchema: d.InputSchema, OutputSchema: d.OutputSchema,
		InvalidArguments: mcp.InvalidArgumentsProtocolError,
	}
	if d.Annotations != nil {
		up.Annotations = mcp.Annotations{ReadOnly: d.Annotations.ReadOnlyHint, Destructive: d.Annotations.DestructiveHint, Idempotent: d.Annotations.IdempotentHint, OpenWorld: d.Annotations.OpenWorldHint}
		if up.Title == "" {
			up.Title = deref(d.Annotations.Title)
		}
	}
	if up.Annotations.ReadOnly == nil && up.Annotations.Destructive == nil {
		// Neither stated: the seed says treat it as destructive rather
		// than guess.
		up.Annotations.ReadOnly, up.Annotations.Destructive = mcp.Bool(false), mcp.Bool(true)
	}
	meta := map[string]any{appcontext.MetaAction: map[string]any{
		"appId": t.m.AppID, "instanceId": t.m.InstanceID, "action": d.Name,
		"registrationId": t.registration, "digest": t.name[strings.LastIndexByte(t.name, '_')+1:],
	}}
	if t.confirm {
		c := map[string]any{"required": true}
		if t.prompt != "" {
			c["prompt"] = t.prompt
		}
		meta[appcontext.MetaConfirmation] = c
	}
	up.Meta, _ = json.Marshal(meta)
	inst, action := t.inst, d.Name
	up.Call = func(ctx context.Context, args json.RawMessage) (*mcp.ToolResult, error) {
		return inst.call(ctx, action, args)
	}
	return up
}

// call forwards one call to the application: it asks the user first when
// the action needs confirmation and the client can ask, then tells the
// application so in the call's _meta. The application enforces the
// confirmation; without a client that can ask, it refuses.
func (i *instance) call(ctx context.Context, action string, args json.RawMessage) (*mcp.ToolResult, error) {
	mount, m, err := i.available()
	if err != nil {
		return nil, err
	}
	p, ok := mount.Lookup(action)
	if !ok {
		return nil, fmt.Errorf("%s (instance %s) has no action %q; app_describe lists its actions", m.AppName, m.InstanceID, action)
	}
	if i.b.opts.ReadOnly && !explicitlyReadOnly(p.Down) {
		return nil, fmt.Errorf("refused under --read-only: %s of %s does not state readOnlyHint: true", action, m.AppName)
	}
	if am := metaOf(p.Down); am.Confirmation != nil && am.Confirmation.Required && mcp.ClientSupports(ctx, "elicitation/create") {
		prompt := am.Confirmation.Prompt
		if prompt == "" {
			prompt = fmt.Sprintf("Allow %s to run %s?", m.AppName, action)
		}
		ans, err := mcp.Elicit(ctx, "confirm", map[string]any{
			"message":         fmt.Sprintf("%s (%s, instance %s)", prompt, m.AppName, m.InstanceID),
			"requestedSchema": map[string]any{"type": "object", "properties": map[string]any{}},
		})
		if err != nil {
			return nil, err
		}
		if ans.Action != "accept" {
			return mcp.ErrorResult("%s of %s (instance %s) was not run: the user answered %s to the confirmation", action, m.AppName, m.InstanceID, ans.Action), nil
		}
		ctx = mcp.WithCallMeta(ctx, map[string]any{appcontext.MetaConfirmed: true})
	}
	res, err := mount.Call(ctx, action, args)
	if errors.Is(err, proxy.ErrNoSuchTool) {
		return nil, fmt.Errorf("%s (instance %s) has no action %q any more", m.AppName, m.InstanceID, action)
	}
	return res, err
}

func (i *instance) audited(d protocol.Tool, outcome string, took time.Duration) {
	i.mu.Lock()
	m := i.m
	i.mu.Unlock()
	if m != nil {
		i.b.audit.write(m.AppID, m.InstanceID, d.Name, outcome, took)
	}
}

// Resource URIs: appcontext://apps/<appId>/<instanceId>/{state,state/<key>,events}.
type resourceKind int

const (
	resourceState resourceKind = iota
	resourceKey
	resourceEvents
)

func uriPrefix(appID, instanceID string) string {
	return "appcontext://apps/" + url.PathEscape(appID) + "/" + url.PathEscape(instanceID) + "/"
}

func (i *instance) uriPrefix() string {
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.m == nil {
		return "appcontext://apps/-/-/"
	}
	return uriPrefix(i.m.AppID, i.m.InstanceID)
}

// parseURI splits one of the broker's resource URIs.
func parseURI(uri string) (app, instanceID string, kind resourceKind, key string, ok bool) {
	rest, found := strings.CutPrefix(uri, "appcontext://apps/")
	if !found {
		return "", "", 0, "", false
	}
	parts := strings.SplitN(rest, "/", 4)
	if len(parts) < 3 {
		return "", "", 0, "", false
	}
	var err error
	if app, err = url.PathUnescape(parts[0]); err != nil {
		return "", "", 0, "", false
	}
	if instanceID, err = url.PathUnescape(parts[1]); err != nil {
		return "", "", 0, "", false
	}
	switch {
	case parts[2] == "state" && len(parts) == 3:
		return app, instanceID, resourceState, "", true
	case parts[2] == "state" && len(parts) == 4 && parts[3] != "":
		if key, err = url.PathUnescape(parts[3]); err != nil {
			return "", "", 0, "", false
		}
		return app, instanceID, resourceKey, key, true
	case parts[2] == "events" && len(parts) == 3:
		return app, instanceID, resourceEvents, "", true
	}
	return "", "", 0, "", false
}

// resourceURIs are the instance's resources while it is available.
func (i *instance) resourceURIs() []string {
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.status != stateAvailable || i.closed {
		return nil
	}
	p := uriPrefix(i.m.AppID, i.m.InstanceID)
	out := []string{p + "events", p + "state"}
	for _, k := range i.stateKeys {
		out = append(out, p+"state/"+url.PathEscape(k))
	}
	return out
}

func (i *instance) resourcesChanged() {
	i.mu.Lock()
	mount, m := i.mount, i.m
	i.mu.Unlock()
	if mount == nil {
		return
	}
	ctx, cancel := i.b.requestContext()
	defer cancel()
	keys, err := stateKeysOf(ctx, mount, m)
	if err != nil {
		i.b.log.Warn("apps: re-listing resources", "instance", m.InstanceID, "error", err)
		return
	}
	i.mu.Lock()
	i.stateKeys = keys
	i.mu.Unlock()
	i.b.changed()
}

// updated hears the application's resources/updated: the events journal
// is pulled into the broker's, a state change is passed on.
func (i *instance) updated(uri string) {
	i.mu.Lock()
	m := i.m
	i.mu.Unlock()
	if m == nil {
		return
	}
	if uri == uriPrefix(m.AppID, m.InstanceID)+"events" {
		go i.pullEvents(uri)
		return
	}
	if srv := i.b.server(); srv != nil {
		srv.ResourceUpdated(uri)
	}
}

// follow subscribes to (or leaves) one resource downstream for the
// upstream clients that follow it.
func (i *instance) follow(uri string, kind resourceKind) {
	i.followMu.Lock()
	defer i.followMu.Unlock()
	// What upstream wants now, not what it wanted when this was
	// scheduled: runs that overtake each other still end right.
	want := i.b.isFollowed(uri)
	i.mu.Lock()
	mount := i.mount
	if i.downstream == nil {
		i.downstream = map[string]bool{}
	}
	have := i.downstream[uri]
	i.mu.Unlock()
	if kind == resourceEvents {
		i.pullMu.Lock()
		if i.journal.Recording() != want {
			i.journal.SetRecording(want)
			i.fresh = true
		}
		i.pullMu.Unlock()
	}
	if mount == nil || want == have {
		return
	}
	ctx, cancel := i.b.requestContext()
	defer cancel()
	var err error
	if want {
		err = mount.Subscribe(ctx, uri)
	} else {
		err = mount.Unsubscribe(ctx, uri)
	}
	if err != nil {
		i.b.log.Warn("apps: following a resource downstream", "uri", uri, "active", want, "error", err)
		return
	}
	i.mu.Lock()
	if i.mount == mount {
		i.downstream[uri] = want
	}
	i.mu.Unlock()
}

// appJournal is the application's events resource.
type appJournal struct {
	Events []struct {
		Seq  uint64          `json:"seq"`
		At   time.Time       `json:"at"`
		Type string          `json:"type"`
		Data json.RawMessage `json:"data"`
	} `json:"events"`
	Dropped uint64 `json:"dropped"`
}

// pullEvents copies the application's new events into the broker's
// journal; a gap in its sequence (events it dropped before we read) is
// counted as dropped.
func (i *instance) pullEvents(uri string) {
	i.mu.Lock()
	mount := i.mount
	i.mu.Unlock()
	if mount == nil {
		return
	}
	i.pullMu.Lock()
	defer i.pullMu.Unlock()
	if !i.journal.Recording() {
		return
	}
	ctx, cancel := i.b.requestContext()
	defer cancel()
	contents, err := mount.Read(ctx, uri)
	if err != nil || len(contents) == 0 {
		i.b.log.Warn("apps: reading an application's events", "uri", uri, "error", err)
		return
	}
	var j appJournal
	if err := json.Unmarshal([]byte(contents[0].Text), &j); err != nil {
		i.b.log.Warn("apps: an application's events are not a journal", "uri", uri, "error", err)
		return
	}
	added := false
	for _, ev := range j.Events {
		if ev.Seq <= i.appSeq {
			continue
		}
		switch {
		case i.fresh:
			// The application started recording when we did: what it
			// dropped before our first read is what we missed.
			i.journal.Skip(j.Dropped)
		case ev.Seq > i.appSeq+1:
			i.journal.Skip(ev.Seq - i.appSeq - 1)
		}
		i.fresh = false
		i.appSeq = ev.Seq
		if _, ok := i.journal.Append(ev.Type, ev.Data, ev.At); ok {
			added = true
		}
	}
	if added {
		if srv := i.b.server(); srv != nil {
			srv.ResourceUpdated(uri)
		}
	}
}
