package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/sourcegraph/jsonrpc2"

	"github.com/kontext-dev/kontext/appcontext"
	"github.com/kontext-dev/kontext/bench/internal/measure"
	"github.com/kontext-dev/kontext/gen/errcodes"
	"github.com/kontext-dev/kontext/gen/protocol"
	"github.com/kontext-dev/kontext/internal/mcp"
)

// The application every instance runs, and what it registers.
const (
	appID        = "dev.kontext.notes"
	notesActions = 4 // list_notes, add_note, clear_notes, touch
)

// fallbackPoll is how long the discovery loop waits for a
// notifications/tools/list_changed before it lists anyway: a missed
// notification costs time (and shows in the report), never the run.
const fallbackPoll = 2 * time.Second

// report is what one run measured.
type report struct {
	Instances int

	Discovery                  []time.Duration // per instance, manifest → listed, all started at once
	LaunchToAll, ManifestToAll time.Duration
	Join, Leave                []time.Duration
	ListsNotified, ListsPolled int
	StaleCursors               int

	// Legacy is measured through a broker spoken to in the legacy era,
	// Modern (nil when it could not be) through a second broker, started
	// once the first is gone, in 2026-07-28.
	Legacy        series
	Modern        *series
	ModernSkipped string

	BrokerRSSKiB  int64 // the legacy broker's
	AuditLines    int
	BrokeredCalls int
}

// series is what is measured in each era of the broker's client.
type series struct {
	ClientEra, DirectEra           string
	Tools, Typed, Pages, ListBytes int
	ToolsList                      []time.Duration
	Updated                        []time.Duration
	UpdatedSkipped                 string // why Updated is empty
	Direct                         []time.Duration
	Brokered                       []time.Duration
}

// app is one running examples/notes.
type app struct {
	cmd      *exec.Cmd
	stderr   *tail
	done     chan error
	id       string
	manifest appcontext.Manifest
	direct   *mcp.Client
	list     string // its list_notes typed tool at the broker
	stateURI string
	updated  chan time.Time // the broker's resources/updated of stateURI
}

type bench struct {
	cfg     config
	tmp     string
	rt      string // APPCONTEXT_RUNTIME_DIR
	dir     string // its appcontext/instances
	kontext string
	notes   string

	broker       *exec.Cmd
	brokerStderr *tail
	client       *mcp.Client
	toolsChanged chan struct{}
	notified     int
	polled       int
	restarts     int

	mu      sync.Mutex
	seen    map[string]time.Time // manifest appeared, by instanceId
	removed map[string]time.Time // manifest removed
	updated map[string]chan time.Time
	apps    []*app
}

func run(cfg config) (r *report, err error) {
	if cfg.progress == nil {
		cfg.progress = io.Discard
	}
	tmp, err := os.MkdirTemp("", "appsbench-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	b := &bench{
		cfg: cfg, tmp: tmp, rt: filepath.Join(tmp, "runtime"),
		kontext: cfg.kontext, notes: cfg.notes,
		toolsChanged: make(chan struct{}, 1),
		seen:         map[string]time.Time{}, removed: map[string]time.Time{}, updated: map[string]chan time.Time{},
	}
	b.dir = appcontext.InstancesDirIn(b.rt)
	defer b.stopAll()
	if err := b.build(); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(b.dir, 0o700); err != nil {
		return nil, err
	}
	stopWatch, err := b.watch()
	if err != nil {
		return nil, err
	}
	defer stopWatch()
	if err := b.startBroker(mcp.EraLegacy); err != nil {
		return nil, err
	}
	r = &report{Instances: cfg.instances}
	r.Legacy.ClientEra = eraOf(b.client)
	steps := []struct {
		what string
		run  func() error
	}{
		{"discovery", func() error { return b.discovery(r) }},
		{"tools/list", func() error { return b.toolsList(&r.Legacy) }},
		{"resources/updated", func() error { return b.updates(&r.Legacy) }},
		{"calls", func() error { return b.calls(r, &r.Legacy) }},
		{"join and leave", func() error { return b.joinLeave(r) }},
	}
	for _, s := range steps {
		b.progressf("%s", s.what)
		if err := s.run(); err != nil {
			return nil, fmt.Errorf("%s: %w%s", s.what, err, b.brokerTail())
		}
	}
	r.ListsNotified, r.ListsPolled, r.StaleCursors = b.notified, b.polled, b.restarts
	r.BrokerRSSKiB = measure.PeakRSSKiB(b.broker.Process.Pid)
	r.AuditLines = b.brokerStderr.audits()
	if cfg.modern {
		b.progressf("the same in 2026-07-28")
		if err := b.modern(r); err != nil {
			return nil, fmt.Errorf("2026-07-28: %w%s", err, b.brokerTail())
		}
	}
	return r, nil
}

// modern replaces the legacy broker with one spoken to in 2026-07-28 and
// measures tools/list, updates and calls again; a broker that cannot be
// reached in that era is reported, not a failure of the run.
func (b *bench) modern(r *report) error {
	b.stopBroker()
	if err := b.startBroker(mcp.EraModern); err != nil {
		r.ModernSkipped = err.Error()
		return nil
	}
	s := &series{ClientEra: eraOf(b.client)}
	if err := b.client.Follow(); err != nil {
		r.ModernSkipped = "subscriptions/listen: " + err.Error()
		return nil
	}
	ctx, cancel := b.ctx()
	defer cancel()
	b.toolsChanged <- struct{}{} // list at once: the instances are there already
	apps := b.started()
	var typed map[string]map[string]string
	err := b.follow(ctx, func(t map[string]map[string]string, _ time.Time) bool {
		typed = t
		for _, a := range apps {
			if len(t[a.id]) != notesActions {
				return false
			}
		}
		return true
	})
	if err != nil {
		return fmt.Errorf("waiting for the typed tools: %w", err)
	}
	for _, a := range apps {
		a.list = typed[a.id]["list_notes"]
	}
	if err := b.toolsList(s); err != nil {
		return fmt.Errorf("tools/list: %w", err)
	}
	if err := b.updates(s); err != nil {
		// Reported beside the figures: the other series still count.
		s.UpdatedSkipped = err.Error()
	}
	if err := b.calls(nil, s); err != nil {
		return fmt.Errorf("calls: %w", err)
	}
	r.Modern = s
	return nil
}

func (b *bench) progressf(format string, args ...any) {
	fmt.Fprintf(b.cfg.progress, "appsbench: "+format+"\n", args...)
}

func (b *bench) brokerTail() string {
	if b.brokerStderr == nil {
		return ""
	}
	if s := b.brokerStderr.String(); s != "" {
		return " (broker stderr: " + measure.LastLines(s, 5) + ")"
	}
	return ""
}

func (b *bench) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), b.cfg.timeout)
}

// build builds kontext and examples/notes once, unless given, from the
// repository above the working directory (the smoke test runs in
// bench/appsbench).
func (b *bench) build() error {
	if b.kontext != "" && b.notes != "" {
		return nil
	}
	repo, err := measure.FindRepo()
	if err != nil {
		return err
	}
	for _, bin := range []struct {
		pkg  string
		path *string
	}{{"./cmd/kontext", &b.kontext}, {"./examples/notes", &b.notes}} {
		if *bin.path != "" {
			continue
		}
		*bin.path = filepath.Join(b.tmp, "bin", filepath.Base(bin.pkg))
		b.progressf("building %s", strings.TrimPrefix(bin.pkg, "./"))
		if err := measure.GoBuild(repo, bin.pkg, *bin.path); err != nil {
			return err
		}
	}
	return nil
}

// watch records when each manifest appears in the instances folder and
// when it goes, as the broker's own watcher could first see it.
func (b *bench) watch() (func(), error) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	if err := w.Add(b.dir); err != nil {
		w.Close()
		return nil, err
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case ev, ok := <-w.Events:
				if !ok {
					return
				}
				at := time.Now()
				base := filepath.Base(ev.Name)
				if !strings.HasSuffix(base, ".json") || strings.HasPrefix(base, ".") {
					continue
				}
				id := strings.TrimSuffix(base, ".json")
				_, statErr := os.Stat(ev.Name)
				b.mu.Lock()
				switch {
				case ev.Has(fsnotify.Remove) || (ev.Has(fsnotify.Rename) && statErr != nil):
					if _, ok := b.removed[id]; !ok {
						b.removed[id] = at
					}
				case statErr == nil:
					if _, ok := b.seen[id]; !ok {
						b.seen[id] = at
					}
				}
				b.mu.Unlock()
			case _, ok := <-w.Errors:
				if !ok {
					return
				}
			}
		}
	}()
	return func() { w.Close(); <-done }, nil
}

// startBroker starts kontext mcp --toolsets apps and connects to its stdio
// in era. Its stderr (the audit lines among it) is kept, not printed.
func (b *bench) startBroker(era mcp.Era) error {
	cmd := exec.Command(b.kontext, "mcp", "--toolsets", "apps", "--log-level", "warn")
	cmd.Env = append(os.Environ(), "APPCONTEXT_RUNTIME_DIR="+b.rt, "KONTEXT_CONFIG_DIR="+filepath.Join(b.tmp, "config"))
	cmd.Dir = b.tmp
	b.brokerStderr = &tail{}
	cmd.Stderr = b.brokerStderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting kontext: %w", err)
	}
	b.broker = cmd
	b.mu.Lock()
	b.updated = map[string]chan time.Time{}
	b.mu.Unlock()
	drain(b.toolsChanged)
	ctx, cancel := b.ctx()
	defer cancel()
	c, err := mcp.Connect(ctx, &pipes{stdin, stdout}, mcp.ClientOptions{
		Info: mcp.Implementation{Name: "appsbench", Version: "1"}, Era: era,
		OnNotification: b.notification,
	})
	if err != nil {
		return fmt.Errorf("connecting to kontext mcp --toolsets apps: %w%s", err, b.brokerTail())
	}
	b.client = c
	return nil
}

// notification hears the broker: list changes wake the discovery loop,
// resources/updated is timed the moment it is read.
func (b *bench) notification(method string, params json.RawMessage) {
	at := time.Now()
	switch method {
	case "notifications/tools/list_changed":
		select {
		case b.toolsChanged <- struct{}{}:
		default:
		}
	case "notifications/resources/updated":
		var p struct {
			URI string `json:"uri"`
		}
		if json.Unmarshal(params, &p) != nil {
			return
		}
		b.mu.Lock()
		ch := b.updated[p.URI]
		b.mu.Unlock()
		if ch != nil {
			select {
			case ch <- at:
			default:
			}
		}
	}
}

// launch starts one examples/notes under the runtime folder.
func (b *bench) launch(name string) (*app, error) {
	cmd := exec.Command(b.notes, "--name", name)
	cmd.Env = append(os.Environ(), "APPCONTEXT_RUNTIME_DIR="+b.rt)
	cmd.Dir = b.tmp
	a := &app{cmd: cmd, stderr: &tail{}, done: make(chan error, 1), updated: make(chan time.Time, 64)}
	cmd.Stderr = a.stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting examples/notes: %w", err)
	}
	go func() { a.done <- cmd.Wait() }()
	b.mu.Lock()
	b.apps = append(b.apps, a)
	b.mu.Unlock()
	return a, nil
}

// identify waits for the manifests of apps (matched by pid) and reads them.
func (b *bench) identify(apps []*app) error {
	deadline := time.Now().Add(b.cfg.timeout)
	for {
		missing := 0
		byPid := map[int]*app{}
		for _, a := range apps {
			if a.id == "" {
				byPid[a.cmd.Process.Pid] = a
				missing++
			}
		}
		if missing == 0 {
			return nil
		}
		files, _ := filepath.Glob(filepath.Join(b.dir, "*.json"))
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				continue
			}
			var m appcontext.Manifest
			if json.Unmarshal(data, &m) != nil {
				continue
			}
			if a := byPid[m.Pid]; a != nil && m.Mcp != nil && filepath.Base(f) == m.InstanceID+".json" {
				a.id, a.manifest = m.InstanceID, m
				a.stateURI = "appcontext://apps/" + m.AppID + "/" + m.InstanceID + "/state"
			}
		}
		for _, a := range apps {
			select {
			case err := <-a.done:
				return fmt.Errorf("examples/notes exited (%v) before its manifest: %s", err, measure.LastLines(a.stderr.String(), 3))
			default:
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%d of %d manifests never appeared", missing, len(apps))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// follow lists the tools after every notifications/tools/list_changed (or
// after fallbackPoll without one) until done says so; at is when the
// listing came back, the moment a client knows.
func (b *bench) follow(ctx context.Context, done func(typed map[string]map[string]string, at time.Time) bool) error {
	for {
		select {
		case <-b.toolsChanged:
			b.notified++
		case <-time.After(fallbackPoll):
			b.polled++
		case <-ctx.Done():
			return ctx.Err()
		}
		l, err := b.listTools(ctx)
		if err != nil {
			return err
		}
		at := time.Now()
		b.restarts += l.restarts
		tools, err := l.tools()
		if err != nil {
			return err
		}
		if done(typedTools(tools), at) {
			return nil
		}
	}
}

// typedTools groups the typed tools by instance, then action.
func typedTools(tools []protocol.Tool) map[string]map[string]string {
	out := map[string]map[string]string{}
	for _, t := range tools {
		var meta map[string]json.RawMessage
		if json.Unmarshal(t.Meta, &meta) != nil {
			continue
		}
		var act struct {
			InstanceID string `json:"instanceId"`
			Action     string `json:"action"`
		}
		if raw, ok := meta[appcontext.MetaAction]; !ok || json.Unmarshal(raw, &act) != nil || act.InstanceID == "" {
			continue
		}
		if out[act.InstanceID] == nil {
			out[act.InstanceID] = map[string]string{}
		}
		out[act.InstanceID][act.Action] = t.Name
	}
	return out
}

func (b *bench) drainToolsChanged() { drain(b.toolsChanged) }

// drain empties a channel of what it holds now.
func drain[T any](ch chan T) {
	for {
		select {
		case <-ch:
		default:
			return
		}
	}
}

// discovery starts every instance at once under the running broker and
// times each from its manifest to its typed tools in the list.
func (b *bench) discovery(r *report) error {
	ctx, cancel := b.ctx()
	defer cancel()
	b.drainToolsChanged()
	listed := map[string]time.Time{}
	var typed map[string]map[string]string
	followed := make(chan error, 1)
	go func() {
		followed <- b.follow(ctx, func(t map[string]map[string]string, at time.Time) bool {
			for id, actions := range t {
				if _, ok := listed[id]; !ok && len(actions) == notesActions {
					listed[id] = at
				}
			}
			typed = t
			return len(listed) >= b.cfg.instances
		})
	}()
	launched := time.Now()
	var apps []*app
	for i := range b.cfg.instances {
		a, err := b.launch(fmt.Sprintf("Notes %d", i+1))
		if err != nil {
			return err
		}
		apps = append(apps, a)
	}
	if err := b.identify(apps); err != nil {
		return err
	}
	if err := <-followed; err != nil {
		return fmt.Errorf("waiting for %d instances' typed tools (%d listed): %w", b.cfg.instances, len(listed), err)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	var first, last time.Time
	for _, a := range apps {
		seen, ok := b.seen[a.id]
		at, listedOK := listed[a.id]
		if !ok || !listedOK {
			return fmt.Errorf("instance %s: manifest seen %v, listed %v", a.id, ok, listedOK)
		}
		r.Discovery = append(r.Discovery, at.Sub(seen))
		if first.IsZero() || seen.Before(first) {
			first = seen
		}
		if at.After(last) {
			last = at
		}
		a.list = typed[a.id]["list_notes"]
		if a.list == "" {
			return fmt.Errorf("instance %s has no list_notes typed tool", a.id)
		}
	}
	r.LaunchToAll, r.ManifestToAll = last.Sub(launched), last.Sub(first)
	return nil
}

// listing is one whole tools/list: every page.
type listing struct {
	raw      []json.RawMessage // the pages' results
	size     int
	restarts int // stale cursors: the list changed between pages
}

// listTools lists every page of the tools; a cursor the server calls stale
// (the list changed under it) makes it list again from the start, as the
// server asks a client to.
func (b *bench) listTools(ctx context.Context) (listing, error) {
	var l listing
	var cursor *string
	for {
		var params any
		if cursor != nil {
			params = map[string]string{"cursor": *cursor}
		}
		var raw json.RawMessage
		if err := b.client.Request(ctx, "tools/list", params, &raw); err != nil {
			var rpcErr *jsonrpc2.Error
			if cursor != nil && errors.As(err, &rpcErr) && rpcErr.Code == errcodes.InvalidParams && l.restarts < 100 {
				l = listing{restarts: l.restarts + 1}
				cursor = nil
				continue
			}
			return l, err
		}
		// Only the cursor now: decoding (and validating) the tools is the
		// client's cost, not the server's, and is left to tools().
		var page struct {
			NextCursor *string `json:"nextCursor"`
		}
		if err := json.Unmarshal(raw, &page); err != nil {
			return l, err
		}
		l.raw = append(l.raw, raw)
		l.size += len(raw)
		if page.NextCursor == nil {
			return l, nil
		}
		cursor = page.NextCursor
	}
}

// tools decodes the pages' tools.
func (l listing) tools() ([]protocol.Tool, error) {
	var all []protocol.Tool
	for _, raw := range l.raw {
		var res protocol.ListToolsResult
		if err := json.Unmarshal(raw, &res); err != nil {
			return nil, err
		}
		all = append(all, res.Tools...)
	}
	return all, nil
}

// toolsList times tools/list, every page, with all the typed tools listed.
func (b *bench) toolsList(r *series) error {
	ctx, cancel := b.ctx()
	defer cancel()
	for range b.cfg.warmup {
		if _, err := b.listTools(ctx); err != nil {
			return err
		}
	}
	var last listing
	for range b.cfg.lists {
		start := time.Now()
		l, err := b.listTools(ctx)
		if err != nil {
			return err
		}
		r.ToolsList = append(r.ToolsList, time.Since(start))
		if l.restarts > 0 {
			return errors.New("the tool list changed while it was timed")
		}
		last = l
	}
	tools, err := last.tools()
	if err != nil {
		return err
	}
	r.Tools, r.Pages, r.ListBytes = len(tools), len(last.raw), last.size
	for _, n := range typedTools(tools) {
		r.Typed += len(n)
	}
	if want := b.cfg.instances * notesActions; r.Typed != want {
		return fmt.Errorf("tools/list has %d typed tools, want %d", r.Typed, want)
	}
	return nil
}

// connectDirect connects to each application's own endpoint with its
// manifest's URL and token, negotiating as the broker does.
func (b *bench) connectDirect(apps []*app) error {
	for _, a := range apps {
		if a.direct != nil {
			continue
		}
		ctx, cancel := b.ctx()
		c, err := mcp.ConnectHTTP(ctx, a.manifest.Mcp.URL, mcp.HTTPOptions{Token: a.manifest.Mcp.Auth.Token},
			mcp.ClientOptions{Info: mcp.Implementation{Name: "appsbench-direct", Version: "1"}})
		cancel()
		if err != nil {
			return fmt.Errorf("connecting to %s directly: %w", a.id, err)
		}
		a.direct = c
	}
	return nil
}

func eraOf(c *mcp.Client) string {
	if c.Modern {
		return c.Version
	}
	return "legacy " + c.Version
}

// change adds a note directly on the application and waits for the
// broker's resources/updated of its whole state: the latency from the
// call leaving to the notification read.
func (b *bench) change(ctx context.Context, a *app, text string, wait time.Duration) (time.Duration, bool, error) {
	drain(a.updated)
	start := time.Now()
	res, err := a.direct.CallTool(ctx, "add_note", map[string]any{"text": text})
	if err != nil {
		return 0, false, fmt.Errorf("add_note on %s: %w", a.id, err)
	}
	if res.IsError != nil && *res.IsError {
		return 0, false, fmt.Errorf("add_note on %s failed: %s", a.id, content(res))
	}
	select {
	case at := <-a.updated:
		return at.Sub(start), true, nil
	case <-time.After(wait):
		return 0, false, nil
	case <-ctx.Done():
		return 0, false, ctx.Err()
	}
}

// updates subscribes to every instance's state through the broker, makes
// sure each subscription reached the application, then times changes
// round robin.
func (b *bench) updates(r *series) error {
	ctx, cancel := b.ctx()
	defer cancel()
	apps := b.started()
	if err := b.connectDirect(apps); err != nil {
		return err
	}
	r.DirectEra = eraOf(apps[0].direct)
	resources, err := b.client.ListResources(ctx)
	if err != nil {
		return err
	}
	for _, a := range apps {
		if !slices.ContainsFunc(resources, func(res protocol.Resource) bool { return res.URI == a.stateURI }) {
			return fmt.Errorf("resources/list has no %s", a.stateURI)
		}
		b.mu.Lock()
		b.updated[a.stateURI] = a.updated
		b.mu.Unlock()
		if err := b.client.Subscribe(ctx, a.stateURI); err != nil {
			return fmt.Errorf("subscribing to %s: %w", a.stateURI, err)
		}
	}
	// The broker follows downstream in the background: change each
	// instance until an update comes through, untimed.
	for _, a := range apps {
		for try := 1; ; try++ {
			_, ok, err := b.change(ctx, a, "warm-up", 250*time.Millisecond)
			if err != nil {
				return err
			}
			if ok {
				break
			}
			if try == 20 {
				return fmt.Errorf("no resources/updated of %s after %d changes", a.stateURI, try)
			}
		}
	}
	for i := range b.cfg.warmup + b.cfg.changes {
		a := apps[i%len(apps)]
		d, ok, err := b.change(ctx, a, fmt.Sprintf("note %d", i), b.cfg.timeout)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("no resources/updated of %s within %s", a.stateURI, b.cfg.timeout)
		}
		if i >= b.cfg.warmup {
			r.Updated = append(r.Updated, d)
		}
	}
	return nil
}

// calls times the same read-only call directly and brokered, interleaved
// (which goes first alternates) and round robin over the instances.
func (b *bench) calls(total *report, r *series) error {
	ctx, cancel := b.ctx()
	defer cancel()
	apps := b.started()
	if err := b.connectDirect(apps); err != nil {
		return err
	}
	r.DirectEra = eraOf(apps[0].direct)
	empty := map[string]any{}
	direct := func(a *app) (time.Duration, error) {
		start := time.Now()
		res, err := a.direct.CallTool(ctx, "list_notes", empty)
		d := time.Since(start)
		if err == nil && res.IsError != nil && *res.IsError {
			err = errors.New(content(res))
		}
		if err != nil {
			return 0, fmt.Errorf("list_notes on %s directly: %w", a.id, err)
		}
		return d, nil
	}
	brokered := func(a *app) (time.Duration, error) {
		start := time.Now()
		res, err := b.client.CallTool(ctx, a.list, empty)
		d := time.Since(start)
		if total != nil {
			total.BrokeredCalls++
		}
		if err == nil && res.IsError != nil && *res.IsError {
			err = errors.New(content(res))
		}
		if err != nil {
			return 0, fmt.Errorf("%s (list_notes of %s) through the broker: %w", a.list, a.id, err)
		}
		return d, nil
	}
	for i := range b.cfg.warmup + b.cfg.calls {
		a := apps[i%len(apps)]
		first, second := direct, brokered
		if i%2 == 1 {
			first, second = brokered, direct
		}
		d1, err := first(a)
		if err != nil {
			return err
		}
		d2, err := second(a)
		if err != nil {
			return err
		}
		if i < b.cfg.warmup {
			continue
		}
		if i%2 == 1 {
			d1, d2 = d2, d1
		}
		r.Direct = append(r.Direct, d1)
		r.Brokered = append(r.Brokered, d2)
	}
	return nil
}

// joinLeave starts one more instance beside the others and times it from
// manifest to listed, then stops it and times its manifest's removal to
// its typed tools leaving the list.
func (b *bench) joinLeave(r *report) error {
	for i := range b.cfg.joins {
		ctx, cancel := b.ctx()
		known := map[string]bool{}
		for _, a := range b.started() {
			known[a.id] = true
		}
		b.drainToolsChanged()
		a, err := b.launch(fmt.Sprintf("Joining %d", i+1))
		if err != nil {
			cancel()
			return err
		}
		var id string
		var listedAt time.Time
		err = b.follow(ctx, func(t map[string]map[string]string, at time.Time) bool {
			for tid, actions := range t {
				if !known[tid] && len(actions) == notesActions {
					id, listedAt = tid, at
					return true
				}
			}
			return false
		})
		if err == nil {
			err = b.identify([]*app{a})
		}
		if err == nil && a.id != id {
			err = fmt.Errorf("the new typed tools are of %s, the new instance is %s", id, a.id)
		}
		if err != nil {
			cancel()
			return err
		}
		b.mu.Lock()
		seen := b.seen[id]
		b.mu.Unlock()
		r.Join = append(r.Join, listedAt.Sub(seen))

		b.drainToolsChanged()
		if err := b.stop(a); err != nil {
			cancel()
			return err
		}
		var goneAt time.Time
		err = b.follow(ctx, func(t map[string]map[string]string, at time.Time) bool {
			goneAt = at
			return len(t[id]) == 0
		})
		cancel()
		if err != nil {
			return fmt.Errorf("waiting for %s's typed tools to go: %w", id, err)
		}
		b.mu.Lock()
		removed, ok := b.removed[id]
		b.mu.Unlock()
		if !ok {
			return fmt.Errorf("the manifest of %s was never seen removed", id)
		}
		r.Leave = append(r.Leave, goneAt.Sub(removed))
	}
	return nil
}

// started is every application still running, in launch order.
func (b *bench) started() []*app {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.apps)
}

// stop ends an application as a user would (SIGTERM), killing it after a
// while.
func (b *bench) stop(a *app) error {
	b.mu.Lock()
	b.apps = slices.DeleteFunc(b.apps, func(x *app) bool { return x == a })
	b.mu.Unlock()
	if a.direct != nil {
		_ = a.direct.Close()
	}
	_ = a.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-a.done:
		if err != nil {
			return fmt.Errorf("examples/notes after SIGTERM: %v: %s", err, measure.LastLines(a.stderr.String(), 3))
		}
	case <-time.After(10 * time.Second):
		_ = a.cmd.Process.Kill()
		<-a.done
		return errors.New("examples/notes did not exit on SIGTERM")
	}
	return nil
}

// stopBroker ends the broker: its stdin closed, killed after a while.
func (b *bench) stopBroker() {
	if b.client != nil {
		_ = b.client.Close()
		b.client = nil
	}
	if b.broker != nil {
		done := make(chan struct{})
		go func() { _ = b.broker.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = b.broker.Process.Kill()
			<-done
		}
		b.broker = nil
	}
}

// stopAll ends the broker and every application still running.
func (b *bench) stopAll() {
	b.stopBroker()
	var wg sync.WaitGroup
	for _, a := range b.started() {
		wg.Add(1)
		go func() { defer wg.Done(); _ = b.stop(a) }()
	}
	wg.Wait()
}

// content is a tool result's text, for an error message.
func content(res *protocol.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		var t struct {
			Text string `json:"text"`
		}
		if json.Unmarshal(c, &t) == nil && t.Text != "" {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, " ")
}

// pipes is a child's stdin and stdout as one connection.
type pipes struct {
	w io.WriteCloser
	r io.ReadCloser
}

func (p *pipes) Read(b []byte) (int, error)  { return p.r.Read(b) }
func (p *pipes) Write(b []byte) (int, error) { return p.w.Write(b) }
func (p *pipes) Close() error                { return p.w.Close() }

// tail keeps the end of a child's stderr, less the broker's audit lines,
// which it counts (one per forwarded call, each written whole).
type tail struct {
	mu    sync.Mutex
	buf   []byte
	audit int
}

const tailBytes = 16 << 10

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if n := bytes.Count(p, []byte(`"audit":"apps.call"`)); n > 0 {
		t.audit += n
		return len(p), nil
	}
	t.buf = append(t.buf, p...)
	if len(t.buf) > tailBytes {
		t.buf = slices.Clone(t.buf[len(t.buf)-tailBytes:])
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

func (t *tail) audits() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.audit
}
