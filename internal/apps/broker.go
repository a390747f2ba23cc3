// Package apps is the App Context broker: it finds the running application
// instances through their manifests, reaches each one's MCP endpoint
// through the runtime's proxy layer, and serves their actions as typed
// tools and their state and events as resources.
package apps

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/kontext-dev/kontext/appcontext"
	"github.com/kontext-dev/kontext/internal/mcp"
)

// Options configure a Broker.
type Options struct {
	// RuntimeDir is the folder whose appcontext/instances the broker
	// watches (appcontext.RuntimeDir() when empty).
	RuntimeDir string
	// NameBudget bounds a typed tool's name (DefaultNameBudget when 0).
	NameBudget int
	// ReadOnly keeps only the actions that say readOnlyHint: true: the
	// others are no typed tools and app_call refuses them.
	ReadOnly bool
	// CallTimeout bounds every forwarded call, beside the request's own
	// deadline (0: the request's deadline only).
	CallTimeout time.Duration
	// Liveness is the period of the pass that drops instances whose
	// process is gone and rescans the folder (2 s when 0).
	Liveness time.Duration
	// Debounce collects surface changes for this long and announces them
	// once (150 ms when 0).
	Debounce time.Duration
	// ConnectTimeout bounds the handshake with an application (5 s when 0).
	ConnectTimeout time.Duration
	// Audit receives one JSON line per forwarded call (os.Stderr when nil).
	Audit io.Writer
	// Logger receives diagnostics; discarded when nil.
	Logger *slog.Logger
}

// Broker is the apps toolset's engine, one per kontext mcp process.
type Broker struct {
	opts  Options
	dir   string
	log   *slog.Logger
	audit *auditLog

	mu        sync.Mutex
	srv       *mcp.Server
	instances map[string]*instance // by manifest path
	stale     map[string]fileStamp // manifests of processes that are gone
	served    []string             // typed tool names on srv
	typed     map[string]*typedTool
	// gone remembers the typed tools of instances that went away (or of
	// actions registered again), oldest first, so that a client still
	// calling one hears why instead of "unknown tool".
	gone      []tombstone
	resources []string // the resource URIs last listed
	following map[string]bool
	closed    bool
	dirty     *time.Timer

	started  bool
	stop     chan struct{}
	wg       sync.WaitGroup
	scanning sync.Mutex
}

// New makes a broker; Attach starts it.
func New(opts Options) (*Broker, error) {
	if opts.NameBudget == 0 {
		opts.NameBudget = DefaultNameBudget
	}
	if opts.NameBudget < MinNameBudget || opts.NameBudget > MaxNameBudget {
		return nil, fmt.Errorf("the name budget must be between %d and %d characters, not %d", MinNameBudget, MaxNameBudget, opts.NameBudget)
	}
	if opts.Liveness <= 0 {
		opts.Liveness = 2 * time.Second
	}
	if opts.Debounce <= 0 {
		opts.Debounce = 150 * time.Millisecond
	}
	if opts.ConnectTimeout <= 0 {
		opts.ConnectTimeout = 5 * time.Second
	}
	if opts.Audit == nil {
		opts.Audit = os.Stderr
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	rt := opts.RuntimeDir
	if rt == "" {
		var err error
		if rt, err = appcontext.RuntimeDir(); err != nil {
			return nil, err
		}
	}
	return &Broker{
		opts: opts, log: log, audit: &auditLog{w: opts.Audit},
		dir:       filepath.Join(rt, "appcontext", "instances"),
		instances: map[string]*instance{}, stale: map[string]fileStamp{},
		typed: map[string]*typedTool{}, following: map[string]bool{},
		stop: make(chan struct{}),
	}, nil
}

// ReadOnly says whether the broker serves only read-only actions.
func (b *Broker) ReadOnly() bool { return b.opts.ReadOnly }

// Dir is the instances folder the broker watches.
func (b *Broker) Dir() string { return b.dir }

// Attach starts discovery and serves what it finds on srv. The folder is
// created (0700) when missing, so an application started later is seen.
func (b *Broker) Attach(srv *mcp.Server) error {
	b.mu.Lock()
	if b.started {
		b.mu.Unlock()
		return errors.New("apps: broker already attached")
	}
	b.started, b.srv = true, srv
	b.mu.Unlock()
	if err := os.MkdirAll(b.dir, 0o700); err != nil {
		return fmt.Errorf("apps: the instances folder: %w", err)
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("apps: watching %s: %w", b.dir, err)
	}
	if err := w.Add(b.dir); err != nil {
		w.Close()
		return fmt.Errorf("apps: watching %s: %w", b.dir, err)
	}
	b.scan()
	b.wg.Add(1)
	go b.watch(w)
	return nil
}

// watch rescans on every change of the folder and on each liveness tick;
// a request never rescans (2026-07-28: lists change only on their own).
func (b *Broker) watch(w *fsnotify.Watcher) {
	defer b.wg.Done()
	defer w.Close()
	tick := time.NewTicker(b.opts.Liveness)
	defer tick.Stop()
	settle := time.NewTimer(time.Hour)
	settle.Stop()
	for {
		select {
		case <-b.stop:
			return
		case ev, ok := <-w.Events:
			if !ok {
				return
			}
			if strings.HasSuffix(ev.Name, ".json") {
				// A burst of writes (a rename, then a chmod) is one scan.
				settle.Reset(20 * time.Millisecond)
			}
		case err, ok := <-w.Errors:
			if !ok {
				return
			}
			b.log.Warn("apps: watching the instances folder", "error", err)
		case <-settle.C:
			b.scan()
		case <-tick.C:
			b.scan()
		}
	}
}

// fileStamp tells a rewritten manifest from the one already read.
type fileStamp struct {
	mod  time.Time
	size int64
}

// scan reconciles the instances with the folder: new and rewritten
// manifests are (re)connected, removed ones and those of processes that
// are gone are dropped.
func (b *Broker) scan() {
	b.scanning.Lock()
	defer b.scanning.Unlock()
	entries, err := os.ReadDir(b.dir)
	if err != nil {
		b.log.Warn("apps: reading the instances folder", "error", err)
		return
	}
	present := map[string]fileStamp{}
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".json") || strings.HasPrefix(name, ".") {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		present[filepath.Join(b.dir, name)] = fileStamp{mod: info.ModTime(), size: info.Size()}
	}
	var drop []*instance
	var add []*instance
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return
	}
	for path, inst := range b.instances {
		stamp, ok := present[path]
		switch {
		case !ok:
			drop = append(drop, inst)
			delete(b.instances, path)
		case stamp != inst.stamp:
			drop = append(drop, inst)
			delete(b.instances, path)
		case !inst.live():
			drop = append(drop, inst)
			delete(b.instances, path)
			b.stale[path] = stamp
		}
	}
	for path, stamp := range present {
		if _, ok := b.instances[path]; ok {
			continue
		}
		if s, ok := b.stale[path]; ok && s == stamp {
			continue
		}
		delete(b.stale, path)
		inst := newInstance(b, path, stamp)
		b.instances[path] = inst
		add = append(add, inst)
	}
	for path := range b.stale {
		if _, ok := present[path]; !ok {
			delete(b.stale, path)
		}
	}
	b.mu.Unlock()
	for _, inst := range drop {
		b.log.Info("apps: instance gone", "manifest", inst.path)
		inst.close()
	}
	for _, inst := range add {
		b.wg.Add(1)
		go func() {
			defer b.wg.Done()
			inst.connect()
		}()
	}
	if len(drop)+len(add) > 0 {
		b.changed()
	}
}

// markStale drops an instance whose process turned out to be gone while
// it was being connected.
func (b *Broker) markStale(inst *instance) {
	b.mu.Lock()
	if b.instances[inst.path] == inst {
		delete(b.instances, inst.path)
		b.stale[inst.path] = inst.stamp
	}
	b.mu.Unlock()
	inst.close()
	b.changed()
}

// changed schedules one reconciliation of the served surface at the end
// of the debounce window.
func (b *Broker) changed() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed || b.dirty != nil {
		return
	}
	b.dirty = time.AfterFunc(b.opts.Debounce, func() {
		b.mu.Lock()
		b.dirty = nil
		b.mu.Unlock()
		b.reconcile()
	})
}

// reconcile serves the typed tools of every available instance in one
// change and announces a changed resource list.
func (b *Broker) reconcile() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed || b.srv == nil {
		return
	}
	var candidates []*typedTool
	for _, inst := range b.instancesLocked() {
		candidates = append(candidates, inst.typedTools()...)
	}
	list := make([]*named, len(candidates))
	for i, t := range candidates {
		list[i] = &t.named
	}
	if err := assignNames(list, b.opts.NameBudget); err != nil {
		b.log.Error("apps: naming typed tools", "error", err)
		return
	}
	next := map[string]*typedTool{}
	for _, t := range candidates {
		if _, dup := next[t.name]; dup {
			continue
		}
		next[t.name] = t
	}
	if !sameTyped(b.typed, next) {
		gone := b.buryLocked(next)
		var add []*mcp.Tool
		for _, name := range slices.Sorted(maps.Keys(next)) {
			add = append(add, next[name].tool(b))
		}
		served := slices.Sorted(maps.Keys(next))
		for _, g := range gone {
			add = append(add, g.tool())
			served = append(served, g.name)
		}
		if err := b.srv.ReplaceTools(b.served, add); err != nil {
			b.log.Error("apps: serving typed tools", "error", err)
		} else {
			b.served, b.typed, b.gone = served, next, gone
		}
	}
	uris := b.resourceURIsLocked()
	if !slices.Equal(uris, b.resources) {
		b.resources = uris
		go b.srv.ResourcesChanged()
	}
}

// maxTombstones bounds how many vanished typed tools keep answering.
const maxTombstones = 1024

// tombstone is a typed tool whose instance or registration is gone: a
// hidden tool under the old name that explains, so that a call never
// reaches a replacement by accident and never fails as merely unknown.
type tombstone struct {
	name, why string
}

func (g tombstone) tool() *mcp.Tool {
	why := g.why
	return &mcp.Tool{
		Name: g.name, Toolset: "apps", Hidden: true,
		// Hidden tools are never listed; stating read-only keeps the
		// explanation under --read-only too.
		Annotations: mcp.Annotations{ReadOnly: mcp.Bool(true)},
		InputSchema: json.RawMessage(`{"type":"object"}`),
		Call: func(context.Context, json.RawMessage) (*mcp.ToolResult, error) {
			return mcp.ErrorResult("%s", why), nil
		},
	}
}

// buryLocked returns the tombstones to serve beside next: the earlier
// ones still unused, and one for each typed tool that next drops.
func (b *Broker) buryLocked(next map[string]*typedTool) []tombstone {
	var gone []tombstone
	for _, g := range b.gone {
		if _, back := next[g.name]; !back {
			gone = append(gone, g)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(b.typed)) {
		if _, kept := next[name]; kept {
			continue
		}
		t := b.typed[name]
		why := fmt.Sprintf("%s is gone: it called action %q of %s (app %s, instance %s), ", name, t.down.Name, t.m.AppName, t.m.AppID, t.m.InstanceID)
		if _, _, err := t.inst.available(); b.instances[t.inst.path] == t.inst && err == nil {
			why += "which registered the action again under a new name"
		} else {
			why += "which exited, restarted (a restarted application is another instance) or became unavailable"
		}
		why += "; nothing was called. tools/list and apps_list show what is live now."
		gone = append(gone, tombstone{name: name, why: why})
	}
	if len(gone) > maxTombstones {
		gone = gone[len(gone)-maxTombstones:]
	}
	return gone
}

func sameTyped(a, b map[string]*typedTool) bool {
	if len(a) != len(b) {
		return false
	}
	for name, t := range a {
		u, ok := b[name]
		if !ok || u.inst != t.inst || u.down.Name != t.down.Name {
			return false
		}
	}
	return true
}

// instancesLocked are the instances sorted by instanceId (then path),
// so lists and names do not depend on map order.
func (b *Broker) instancesLocked() []*instance {
	out := slices.Collect(maps.Values(b.instances))
	slices.SortFunc(out, func(x, y *instance) int {
		if c := strings.Compare(x.id(), y.id()); c != 0 {
			return c
		}
		return strings.Compare(x.path, y.path)
	})
	return out
}

// Instances returns the instances, sorted by instanceId.
func (b *Broker) Instances() []*instance {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.instancesLocked()
}

// Lookup finds an instance by its instanceId.
func (b *Broker) Lookup(instanceID string) (*instance, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, inst := range b.instances {
		if inst.id() == instanceID {
			return inst, true
		}
	}
	return nil, false
}

// Close stops discovery, disconnects every application and takes their
// tools away.
func (b *Broker) Close() error {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil
	}
	b.closed = true
	if b.dirty != nil {
		b.dirty.Stop()
	}
	insts := slices.Collect(maps.Values(b.instances))
	b.instances = map[string]*instance{}
	srv, served := b.srv, b.served
	b.served, b.typed = nil, map[string]*typedTool{}
	started := b.started
	b.mu.Unlock()
	if started {
		close(b.stop)
	}
	for _, inst := range insts {
		inst.close()
	}
	b.wg.Wait()
	if srv != nil && len(served) > 0 {
		_ = srv.ReplaceTools(served, nil)
	}
	return nil
}

// OnSubscription follows the resources upstream clients follow: a state
// URI's first follower subscribes downstream, an events URI's starts its
// journal; the last one leaving undoes it.
func (b *Broker) OnSubscription(uri string, active bool) {
	inst, kind, ok := b.resolve(uri)
	if !ok {
		return
	}
	b.mu.Lock()
	if active {
		b.following[uri] = true
	} else {
		delete(b.following, uri)
	}
	b.mu.Unlock()
	// The subscription is answered once the application follows too, so
	// that a change right after it is heard; an application slower than
	// followWait is followed in the background.
	done := make(chan struct{})
	go func() {
		defer close(done)
		inst.follow(uri, kind)
	}()
	select {
	case <-done:
	case <-time.After(followWait):
	}
}

// followWait bounds how long a subscription waits for the application.
const followWait = 2 * time.Second

// resolve finds the instance a resource URI names.
func (b *Broker) resolve(uri string) (*instance, resourceKind, bool) {
	app, id, kind, _, ok := parseURI(uri)
	if !ok {
		return nil, 0, false
	}
	inst, found := b.Lookup(id)
	if !found || inst.appID() != app {
		return nil, 0, false
	}
	return inst, kind, true
}

// isFollowed says whether some upstream client follows uri (a
// reconnected instance subscribes again).
func (b *Broker) isFollowed(uri string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.following[uri]
}

func (b *Broker) followedOf(prefix string) []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []string
	for uri := range b.following {
		if strings.HasPrefix(uri, prefix) {
			out = append(out, uri)
		}
	}
	slices.Sort(out)
	return out
}

func (b *Broker) server() *mcp.Server {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.srv
}

// resourceURIsLocked are the URIs resources/list shows now.
func (b *Broker) resourceURIsLocked() []string {
	var out []string
	for _, inst := range b.instancesLocked() {
		out = append(out, inst.resourceURIs()...)
	}
	return out
}

// context bounds for the broker's own requests to applications.
func (b *Broker) requestContext() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), b.opts.ConnectTimeout)
}
