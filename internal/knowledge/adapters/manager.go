package adapters

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/kontext-dev/kontext/gen/protocol"
	"github.com/kontext-dev/kontext/internal/mcp"
	"github.com/kontext-dev/kontext/internal/mcp/proxy"
)

// State is where an adapter stands.
type State string

// The states, as kontext adapters list and kontext status name them.
const (
	StateConfigured State = "configured" // valid, not started yet
	StateDisabled   State = "disabled"   // enabled = false
	StateInactive   State = "inactive"   // its when conditions do not hold
	StateUntrusted  State = "waiting for trust"
	StateRunning    State = "running"
	StateFailing    State = "failing" // its last call or start failed
)

// DefaultCooldown is how long a failing adapter is left alone before it is
// tried again: a broken adapter must not slow every call.
const DefaultCooldown = 30 * time.Second

// startTimeout bounds starting an MCP server and its handshake; the start
// goes on in the background when the call that caused it gives up sooner,
// so a slow first start (npx fetching a package) serves the next call.
const startTimeout = 60 * time.Second

// RepoInfo is the repository as templates see it ({{repo.id}}, …).
type RepoInfo struct {
	ID, Slug, Name, Dir, Root, Remote, Branch, Worktree string
}

// Options configure a Manager.
type Options struct {
	// Root is the repository root: the default working directory, and
	// what MCP servers are told through roots/list.
	Root string
	Repo RepoInfo
	// Project is {{project.name}}.
	Project string
	// Vars are the configuration's global [vars].
	Vars map[string]string
	// Getenv reads the environment templates and when conditions consult
	// (os.Getenv when nil); child processes inherit os.Environ.
	Getenv func(string) string
	// Trust decides which team adapters may start; nil trusts none of them.
	Trust *Trust
	// Cooldown after a failure (DefaultCooldown when 0).
	Cooldown   time.Duration
	ClientInfo mcp.Implementation
	// Era is how MCP adapters are negotiated with (mcp.EraAuto when empty).
	Era mcp.Era
	// HTTPClient makes the http driver's requests (a default client when nil).
	HTTPClient *http.Client
	Logger     *slog.Logger
	Now        func() time.Time
	// StateDir, when set, is where the adapters' states are kept for
	// kontext adapters list in other processes (see ReadLive).
	StateDir string
}

// Manager runs the adapters of one repository for one kontext process:
// each starts on first use and is shared by every session.
type Manager struct {
	opts Options
	log  *slog.Logger

	mu       sync.Mutex
	adapters map[string]*runtime
	closed   bool

	liveMu   sync.Mutex
	liveLast []byte

	toolsMu sync.Mutex
	// toolsHeard hear that an adapter's tool list may have changed: its
	// server said so, or it started (again).
	toolsHeard map[any]func(adapter string)
}

// onTools registers (f non-nil) or removes what hears of an adapter's
// tool list changing.
func (m *Manager) onTools(key any, f func(adapter string)) {
	m.toolsMu.Lock()
	defer m.toolsMu.Unlock()
	if f == nil {
		delete(m.toolsHeard, key)
		return
	}
	if m.toolsHeard == nil {
		m.toolsHeard = map[any]func(string){}
	}
	m.toolsHeard[key] = f
}

func (m *Manager) toolsChanged(adapter string) {
	m.toolsMu.Lock()
	fs := make([]func(string), 0, len(m.toolsHeard))
	for _, f := range m.toolsHeard {
		fs = append(fs, f)
	}
	m.toolsMu.Unlock()
	for _, f := range fs {
		f(adapter)
	}
}

// NewManager returns a manager with no adapters; Configure gives it some.
func NewManager(opts Options) *Manager {
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	if opts.Cooldown <= 0 {
		opts.Cooldown = DefaultCooldown
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.ClientInfo.Name == "" {
		opts.ClientInfo = mcp.Implementation{Name: "kontext-adapters", Version: "1"}
	}
	if opts.HTTPClient == nil {
		opts.HTTPClient = &http.Client{Timeout: 0}
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return &Manager{opts: opts, log: log, adapters: map[string]*runtime{}}
}

// Configure replaces the definitions. An adapter whose definition is
// unchanged keeps running; a changed or removed one is stopped, and its
// published tools follow the new definition.
func (m *Manager) Configure(defs []*Definition) {
	m.mu.Lock()
	next := map[string]*runtime{}
	var stop []*runtime
	for _, d := range defs {
		if old := m.adapters[d.Name]; old != nil && old.def.Hash() == d.Hash() && old.def.Team == d.Team {
			next[d.Name] = old
			continue
		}
		next[d.Name] = newRuntime(m, d)
	}
	for name, old := range m.adapters {
		if next[name] != old {
			stop = append(stop, old)
		}
	}
	var changed []string
	for name, rt := range next {
		if m.adapters[name] != rt {
			changed = append(changed, name)
		}
	}
	for name := range m.adapters {
		if next[name] == nil {
			changed = append(changed, name)
		}
	}
	m.adapters = next
	m.mu.Unlock()
	for _, rt := range stop {
		rt.close()
	}
	m.persist()
	// Whoever publishes the adapters' tools hears of every adapter that
	// came, went or changed its definition.
	for _, name := range changed {
		m.toolsChanged(name)
	}
}

// SetTrust replaces the trust the manager consults (after kontext trust).
func (m *Manager) SetTrust(t *Trust) {
	m.mu.Lock()
	m.opts.Trust = t
	m.mu.Unlock()
}

// Definitions are the configured adapters, sorted by name.
func (m *Manager) Definitions() []*Definition {
	var out []*Definition
	for _, rt := range m.runtimes() {
		out = append(out, rt.def)
	}
	return out
}

func (m *Manager) runtimes() []*runtime {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]*runtime, 0, len(m.adapters))
	for _, rt := range m.adapters {
		out = append(out, rt)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].def.Name < out[j].def.Name })
	return out
}

func (m *Manager) get(name string) (*runtime, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, errors.New("adapters: closed")
	}
	rt := m.adapters[name]
	if rt == nil {
		names := make([]string, 0, len(m.adapters))
		for n := range m.adapters {
			names = append(names, n)
		}
		sort.Strings(names)
		return nil, &UnknownError{Name: name, Known: names}
	}
	return rt, nil
}

func (m *Manager) trusted(d *Definition) bool {
	m.mu.Lock()
	t := m.opts.Trust
	m.mu.Unlock()
	if !d.Team {
		return true
	}
	return t != nil && t.Trusted(m.opts.Root, d)
}

// UnknownError names an adapter that is not configured.
type UnknownError struct {
	Name  string
	Known []string
}

func (e *UnknownError) Error() string {
	if len(e.Known) == 0 {
		return fmt.Sprintf("no adapter %q: none is configured", e.Name)
	}
	return fmt.Sprintf("no adapter %q (configured: %s)", e.Name, strings.Join(e.Known, ", "))
}

// ErrNoOp is returned for an op the adapter does not declare.
var ErrNoOp = errors.New("the adapter does not declare this op")

// NotReadyError is an adapter that may not run now: disabled, inactive,
// waiting for trust, or cooling down after a failure.
type NotReadyError struct {
	Adapter string
	State   State
	Reason  string
}

func (e *NotReadyError) Error() string {
	switch e.State {
	case StateUntrusted:
		return fmt.Sprintf("adapter %s is declared in the repository's shared configuration and waits for trust (kontext trust)", e.Adapter)
	case StateDisabled:
		return fmt.Sprintf("adapter %s is disabled (enabled = false)", e.Adapter)
	case StateInactive:
		return fmt.Sprintf("adapter %s is inactive: %s", e.Adapter, e.Reason)
	}
	return fmt.Sprintf("adapter %s is cooling down after a failure: %s", e.Adapter, e.Reason)
}

// OpError is a failed call; its message never holds a secret.
type OpError struct {
	Adapter string
	Op      string
	Message string
	// Timeout says the op ran out of time.
	Timeout bool
}

func (e *OpError) Error() string {
	return fmt.Sprintf("adapter %s: %s: %s", e.Adapter, e.Op, e.Message)
}

// Status is an adapter's state for listings.
type Status struct {
	Name        string
	Driver      Driver
	Description string
	Ops         []string
	Events      []string
	Team        bool
	State       State
	// Reason says why it is inactive, or its last error when failing.
	Reason string
	// RetryAt is when a failing adapter is tried again.
	RetryAt time.Time
}

// Status lists every adapter's state, sorted by name.
func (m *Manager) Status() []Status {
	var out []Status
	for _, rt := range m.runtimes() {
		out = append(out, rt.status())
	}
	return out
}

// With lists the adapters that declare op and may run (not disabled,
// inactive or untrusted), sorted: those a fan-out asks.
func (m *Manager) With(op string) []string {
	var out []string
	for _, rt := range m.runtimes() {
		if rt.def.Ops[op] == nil {
			continue
		}
		if st := rt.status().State; st == StateDisabled || st == StateInactive || st == StateUntrusted {
			continue
		}
		out = append(out, rt.def.Name)
	}
	return out
}

// Weight is an adapter's search weight (0 for an unknown one).
func (m *Manager) Weight(name string) float64 {
	rt, err := m.get(name)
	if err != nil {
		return 0
	}
	return rt.def.Weight
}

// Search runs an adapter's search op.
func (m *Manager) Search(ctx context.Context, name, query string, limit int) ([]Hit, error) {
	return m.hits(ctx, name, OpSearch, scope{"query": query, "limit": limit})
}

// Code runs an adapter's code op (a symbol's locations).
func (m *Manager) Code(ctx context.Context, name, query string, limit int) ([]Hit, error) {
	return m.hits(ctx, name, OpCode, scope{"query": query, "limit": limit})
}

// History runs an adapter's history op for a path, path:line, sha or topic.
func (m *Manager) History(ctx context.Context, name, target string, limit int) ([]Hit, error) {
	return m.hits(ctx, name, OpHistory, scope{"target": target, "query": target, "limit": limit})
}

func (m *Manager) hits(ctx context.Context, name, op string, inputs scope) ([]Hit, error) {
	rt, err := m.get(name)
	if err != nil {
		return nil, err
	}
	payload, sc, err := rt.run(ctx, op, rt.def.Ops[op], inputs)
	if err != nil {
		return nil, err
	}
	hits := mapHits(name, payload, rt.def.Ops[op], rt.renderer(), sc)
	if limit, ok := inputs["limit"].(int); ok && limit > 0 && len(hits) > limit {
		hits = hits[:limit]
	}
	return hits, nil
}

// Brief runs an adapter's brief op: its section of ctx_brief, within
// budgetTokens (the text is cut to fit).
func (m *Manager) Brief(ctx context.Context, name string, focus []string, budgetTokens int) (string, error) {
	rt, err := m.get(name)
	if err != nil {
		return "", err
	}
	anyFocus := make([]any, len(focus))
	for i, f := range focus {
		anyFocus[i] = f
	}
	payload, _, err := rt.run(ctx, OpBrief, rt.def.Ops[OpBrief], scope{"query": strings.Join(focus, " "), "focus": anyFocus, "budget_tokens": budgetTokens})
	if err != nil {
		return "", err
	}
	text := rt.sec.Redact(strings.TrimSpace(textOf(payload, rt.def.Ops[OpBrief])))
	if budgetTokens > 0 && len(text) > budgetTokens*4 {
		text = strings.TrimSpace(truncateUTF8(text, budgetTokens*4)) + "…"
	}
	return text, nil
}

// CallOp runs any op of an adapter without inputs (health, or one of its
// own) and returns its text answer.
func (m *Manager) CallOp(ctx context.Context, name, op string) (string, error) {
	rt, err := m.get(name)
	if err != nil {
		return "", err
	}
	payload, _, err := rt.run(ctx, op, rt.def.Ops[op], scope{})
	if err != nil {
		return "", err
	}
	return rt.sec.Redact(textOf(payload, rt.def.Ops[op])), nil
}

// Owner is the adapter whose read op owns uri ("" when none does).
func (m *Manager) Owner(uri string) string {
	for _, rt := range m.runtimes() {
		if rt.def.Owns(uri) {
			return rt.def.Name
		}
	}
	return ""
}

// Read reads uri through the adapter that owns it (ok is false when none
// does).
func (m *Manager) Read(ctx context.Context, uri string, level int) (adapter, text string, ok bool, err error) {
	name := m.Owner(uri)
	if name == "" {
		return "", "", false, nil
	}
	rt, err := m.get(name)
	if err != nil {
		return name, "", true, err
	}
	payload, _, err := rt.run(ctx, OpRead, rt.def.Ops[OpRead], scope{"uri": uri, "level": level})
	if err != nil {
		return name, "", true, err
	}
	return name, textOf(payload, rt.def.Ops[OpRead]), true, nil
}

// Event is something that happened to an entry, for the adapters that
// subscribe to it: capture (a candidate entered the inbox), promote (it was
// written into the store), sync (knowledge at HEAD changed).
type Event struct {
	Name string // capture, promote or sync
	// Fields are the payload templates see: id, kind, title, status, date,
	// summary, tags, paths, body, markdown, path, visibility, source.repo,
	// source.branch.
	Fields map[string]any
	// Skip, when set, leaves out the subscriptions it reports (a sync of
	// a version an adapter has already).
	Skip func(adapter, op string) bool
}

// Delivery is one subscription's outcome.
type Delivery struct {
	Adapter, Op string
	Receipt     string
	Err         error
}

// Deliver runs every subscribed op for the event, in parallel, and
// returns their outcomes sorted by adapter. A capture or promote delivery
// that fails waits in the outbox for RetryKept.
func (m *Manager) Deliver(ctx context.Context, ev Event) []Delivery {
	kind, _ := ev.Fields["kind"].(string)
	vis, _ := ev.Fields["visibility"].(string)
	type job struct {
		rt *runtime
		op string
	}
	var jobs []job
	for _, rt := range m.runtimes() {
		for _, s := range rt.def.On {
			if s.Event != ev.Name || (s.Visibility != "" && s.Visibility != vis) || (len(s.Kinds) > 0 && !contains(s.Kinds, kind)) {
				continue
			}
			if ev.Skip != nil && ev.Skip(rt.def.Name, s.Op) {
				continue
			}
			jobs = append(jobs, job{rt, s.Op})
		}
	}
	out := make([]Delivery, len(jobs))
	var wg sync.WaitGroup
	for i, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			inputs := scope{}
			for k, v := range ev.Fields {
				inputs[k] = v
			}
			payload, _, err := j.rt.run(ctx, j.op, j.rt.def.Ops[j.op], inputs)
			d := Delivery{Adapter: j.rt.def.Name, Op: j.op, Err: err}
			if err == nil {
				d.Receipt = j.rt.sec.Redact(textOf(payload, j.rt.def.Ops[j.op]))
			}
			m.keep(ev, d)
			out[i] = d
		}()
	}
	wg.Wait()
	return out
}

// DeclaredTool pairs a configured tool with its adapter.
type DeclaredToolOf struct {
	Adapter string
	Tool    *DeclaredTool
}

// DeclaredTools lists the tools the configuration declares, of adapters
// that may run, sorted by name.
func (m *Manager) DeclaredTools() []DeclaredToolOf {
	var out []DeclaredToolOf
	for _, rt := range m.runtimes() {
		if st := rt.status().State; st == StateDisabled || st == StateInactive || st == StateUntrusted {
			continue
		}
		for _, t := range rt.def.Tools {
			out = append(out, DeclaredToolOf{rt.def.Name, t})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Tool.Name < out[j].Tool.Name })
	return out
}

// CallDeclared runs a declared tool with its arguments and returns its
// answer as text.
func (m *Manager) CallDeclared(ctx context.Context, adapter, tool string, args json.RawMessage) (string, error) {
	rt, err := m.get(adapter)
	if err != nil {
		return "", err
	}
	var t *DeclaredTool
	for _, dt := range rt.def.Tools {
		if dt.Name == tool {
			t = dt
		}
	}
	if t == nil {
		return "", fmt.Errorf("adapter %s declares no tool %q", adapter, tool)
	}
	var given map[string]any
	if len(args) > 0 && string(args) != "null" {
		if err := json.Unmarshal(args, &given); err != nil {
			return "", fmt.Errorf("arguments must be an object: %w", err)
		}
	}
	inputs := scope{"args": map[string]any(given)}
	for k, v := range given {
		if _, reserved := inputs[k]; !reserved {
			inputs[k] = v
		}
	}
	op, opName := t.Op, t.Name
	if t.OpName != "" {
		op, opName = rt.def.Ops[t.OpName], t.OpName
	}
	payload, _, err := rt.run(ctx, opName, op, inputs)
	if err != nil {
		return "", err
	}
	return rt.sec.Redact(textOf(payload, op)), nil
}

// Mount starts an MCP adapter (when it is not running) and returns its
// proxy mount: what exposing its tools builds on.
func (m *Manager) Mount(ctx context.Context, name string) (*proxy.Mount, error) {
	rt, err := m.get(name)
	if err != nil {
		return nil, err
	}
	if rt.def.Driver != DriverMCP {
		return nil, fmt.Errorf("adapter %s is not an mcp adapter", name)
	}
	if err := rt.ready(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, rt.def.OpTimeout(OpHealth))
	defer cancel()
	s, err := rt.session(ctx)
	if err != nil {
		return nil, rt.failed("start", err, ctx)
	}
	return s.mount, nil
}

// Close stops every adapter.
func (m *Manager) Close() error {
	m.mu.Lock()
	m.closed = true
	rts := make([]*runtime, 0, len(m.adapters))
	for _, rt := range m.adapters {
		rts = append(rts, rt)
	}
	m.adapters = map[string]*runtime{}
	m.mu.Unlock()
	for _, rt := range rts {
		rt.close()
	}
	m.removeLive()
	return nil
}

// runtime is one adapter's live state.
type runtime struct {
	m   *Manager
	def *Definition
	sec *secrets

	whenOnce   sync.Once
	whenReason string // "" when the conditions hold

	mu       sync.Mutex
	lastErr  string
	failedAt time.Time
	running  bool
	sess     *mcpSession
	starting chan struct{} // closed when the start in progress ends
	startErr error
	closed   bool
}

// mcpSession is a connected MCP adapter.
type mcpSession struct {
	client *mcp.Client
	mount  *proxy.Mount
	stderr *tail
}

func newRuntime(m *Manager, d *Definition) *runtime {
	return &runtime{m: m, def: d, sec: &secrets{}}
}

func (rt *runtime) renderer() *renderer {
	return &renderer{getenv: rt.m.opts.Getenv, secrets: rt.sec}
}

// baseScope is what every template of the adapter sees.
func (rt *runtime) baseScope() scope {
	o := rt.m.opts
	now := o.Now()
	repo := map[string]any{"id": o.Repo.ID, "slug": o.Repo.Slug, "name": o.Repo.Name, "dir": o.Repo.Dir, "root": o.Root,
		"remote": o.Repo.Remote, "branch": o.Repo.Branch, "worktree": o.Repo.Worktree}
	if o.Repo.Root != "" {
		repo["root"] = o.Repo.Root
	}
	sc := scope{
		"repo":    repo,
		"project": map[string]any{"name": firstNonEmpty(o.Project, o.Repo.Name)},
		"now":     map[string]any{"date": now.Format("2006-01-02"), "iso": now.Format(time.RFC3339)},
		"adapter": map[string]any{"name": rt.def.Name},
	}
	vars := map[string]any{}
	for k, v := range o.Vars {
		vars[k] = v
	}
	sc["vars"] = vars
	r := rt.renderer()
	for _, k := range slices.Sorted(maps.Keys(rt.def.Vars)) {
		// Adapter vars are templates themselves, over the global ones.
		v, err := r.String(rt.def.Vars[k], sc)
		if err != nil {
			v = rt.def.Vars[k]
		}
		vars[k] = v
	}
	return sc
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

func (rt *runtime) status() Status {
	d := rt.def
	st := Status{Name: d.Name, Driver: d.Driver, Description: d.Description, Ops: d.OpNames(), Team: d.Team}
	for _, s := range d.On {
		st.Events = append(st.Events, s.Event+"→"+s.Op)
	}
	switch {
	case !d.Enabled:
		st.State = StateDisabled
		return st
	case rt.inactive() != "":
		st.State, st.Reason = StateInactive, rt.inactive()
		return st
	case !rt.m.trusted(d):
		st.State = StateUntrusted
		return st
	}
	rt.mu.Lock()
	defer rt.mu.Unlock()
	switch {
	case rt.lastErr != "" && rt.m.opts.Now().Sub(rt.failedAt) < rt.m.opts.Cooldown:
		st.State, st.Reason = StateFailing, rt.lastErr
		st.RetryAt = rt.failedAt.Add(rt.m.opts.Cooldown)
	case rt.lastErr != "" && !rt.running:
		st.State, st.Reason = StateFailing, rt.lastErr
	case rt.running:
		st.State = StateRunning
	default:
		st.State = StateConfigured
	}
	return st
}

// inactive says which when condition fails ("" when all hold), checked
// once per process.
func (rt *runtime) inactive() string {
	rt.whenOnce.Do(func() { rt.whenReason = rt.checkWhen() })
	return rt.whenReason
}

func (rt *runtime) checkWhen() string {
	w := rt.def.When
	root := rt.m.opts.Root
	if w.Command != "" {
		if _, err := exec.LookPath(w.Command); err != nil {
			return fmt.Sprintf("%s is not on PATH (when.command)", w.Command)
		}
	}
	if w.File != "" {
		p := w.File
		if !filepath.IsAbs(p) {
			p = filepath.Join(root, p)
		}
		if _, err := os.Stat(p); err != nil {
			return fmt.Sprintf("%s does not exist in the repository (when.file)", w.File)
		}
	}
	if w.Repo != "" {
		if re, err := regexp.Compile(w.Repo); err != nil || !re.MatchString(rt.m.opts.Repo.ID) {
			return fmt.Sprintf("the repository %s does not match %q (when.repo)", rt.m.opts.Repo.ID, w.Repo)
		}
	}
	if w.Env != "" && rt.m.opts.Getenv(w.Env) == "" {
		return fmt.Sprintf("%s is not set (when.env)", w.Env)
	}
	if w.Exists != "" {
		// The path is not shown: it may be built from the environment.
		p, err := rt.renderer().String(w.Exists, rt.baseScope())
		if err != nil {
			return "when.exists: " + rt.sec.Redact(err.Error())
		}
		matches, _ := filepath.Glob(p)
		if len(matches) == 0 {
			return "the path of when.exists does not exist"
		}
	}
	return ""
}

// ready says whether the adapter may be called now.
func (rt *runtime) ready() error {
	st := rt.status()
	switch st.State {
	case StateDisabled, StateInactive, StateUntrusted:
		return &NotReadyError{Adapter: rt.def.Name, State: st.State, Reason: st.Reason}
	case StateFailing:
		if !st.RetryAt.IsZero() {
			return &NotReadyError{Adapter: rt.def.Name, State: StateFailing, Reason: st.Reason}
		}
	}
	return nil
}

// run calls one op with a deadline and returns its payload and the scope
// its templates saw.
func (rt *runtime) run(ctx context.Context, opName string, op *Op, inputs scope) (any, scope, error) {
	if op == nil {
		return nil, nil, fmt.Errorf("adapter %s: %s: %w", rt.def.Name, opName, ErrNoOp)
	}
	if err := rt.ready(); err != nil {
		return nil, nil, err
	}
	timeout := rt.def.OpTimeout(opName)
	if op.TimeoutMS > 0 {
		timeout = time.Duration(op.TimeoutMS) * time.Millisecond
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	sc := rt.baseScope()
	for k, v := range inputs {
		sc[k] = v
	}
	var payload any
	var err error
	switch rt.def.Driver {
	case DriverMCP:
		payload, err = rt.callMCP(ctx, opName, op, sc)
	case DriverHTTP:
		payload, err = rt.callHTTP(ctx, op, sc)
	case DriverCommand:
		payload, err = rt.callCommand(ctx, op, sc)
	}
	if err != nil {
		return nil, sc, rt.failed(opName, err, ctx)
	}
	rt.succeeded()
	return payload, sc, nil
}

func (rt *runtime) succeeded() {
	rt.mu.Lock()
	rt.lastErr, rt.running = "", true
	rt.mu.Unlock()
	rt.m.persist()
}

// failed records a failure (unless the caller gave up), starts the
// cool-down, drops a dead MCP session, and returns the error without
// secrets.
//
// An error the server answered with (an isError result, a JSON-RPC error)
// is the call's, not the adapter's: it starts no cool-down, so that an
// agent's bad arguments to one tool do not take the adapter's other tools
// and ops away for 30 s.
func (rt *runtime) failed(op string, err error, ctx context.Context) error {
	timeout := errors.Is(err, context.DeadlineExceeded) || ctx.Err() == context.DeadlineExceeded
	msg := err.Error()
	if timeout {
		msg = fmt.Sprintf("no answer within %s", rt.def.OpTimeout(op).Round(time.Millisecond))
	}
	var answered *answerError
	var refused *jsonrpc2.Error
	if !timeout && (errors.As(err, &answered) || errors.As(err, &refused)) {
		return &OpError{Adapter: rt.def.Name, Op: op, Message: clean(rt.sec.Redact(msg), 400)}
	}
	rt.mu.Lock()
	s := rt.sess
	rt.mu.Unlock()
	var tailText string
	if s != nil {
		// A call that failed because the connection closed races the
		// client noticing; wait a moment so a crash is named as one.
		dead := false
		if errors.Is(err, jsonrpc2.ErrClosed) || errors.Is(err, io.EOF) {
			select {
			case <-s.client.Done():
				dead = true
			case <-time.After(time.Second):
			}
		} else {
			select {
			case <-s.client.Done():
				dead = true
			default:
			}
		}
		if dead {
			tailText = s.stderr.String()
			msg = "the server exited during the call"
			rt.mu.Lock()
			if rt.sess == s {
				rt.sess, rt.running = nil, false
			}
			rt.mu.Unlock()
			go s.mount.Close()
		}
	}
	rt.mu.Lock()
	if tailText != "" {
		msg += ": " + lastLine(tailText)
	}
	msg = clean(rt.sec.Redact(msg), 400)
	cancelled := errors.Is(err, context.Canceled) && !timeout
	if !cancelled {
		rt.lastErr, rt.failedAt = msg, rt.m.opts.Now()
	}
	rt.mu.Unlock()
	if !cancelled {
		rt.m.log.Warn("adapter failed", "adapter", rt.def.Name, "op", op, "error", msg)
		rt.m.persist()
	}
	return &OpError{Adapter: rt.def.Name, Op: op, Message: msg, Timeout: timeout}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

func (rt *runtime) close() {
	rt.mu.Lock()
	rt.closed = true
	s := rt.sess
	rt.sess, rt.running = nil, false
	rt.mu.Unlock()
	if s != nil {
		_ = s.mount.Close()
	}
}

// session returns the running MCP session, starting it when needed. The
// start runs on its own deadline; ctx only bounds the wait for it.
func (rt *runtime) session(ctx context.Context) (*mcpSession, error) {
	rt.mu.Lock()
	if rt.closed {
		rt.mu.Unlock()
		return nil, errors.New("the adapter was stopped")
	}
	if s := rt.sess; s != nil {
		select {
		case <-s.client.Done():
			rt.sess, rt.running = nil, false
			go s.mount.Close()
		default:
			rt.mu.Unlock()
			return s, nil
		}
	}
	wait := rt.starting
	if wait == nil {
		wait = make(chan struct{})
		rt.starting = wait
		go rt.start(wait)
	}
	rt.mu.Unlock()
	select {
	case <-wait:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.sess == nil {
		if rt.startErr != nil {
			return nil, rt.startErr
		}
		return nil, errors.New("the server did not start")
	}
	return rt.sess, nil
}

func (rt *runtime) start(done chan struct{}) {
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	s, err := rt.connect(ctx)
	rt.mu.Lock()
	rt.starting = nil
	rt.startErr = err
	if err == nil {
		if rt.closed {
			rt.mu.Unlock()
			_ = s.mount.Close()
			close(done)
			return
		}
		rt.sess, rt.running, rt.lastErr = s, true, ""
		defer rt.m.toolsChanged(rt.def.Name)
	} else {
		rt.lastErr, rt.failedAt = clean(rt.sec.Redact(err.Error()), 400), rt.m.opts.Now()
	}
	rt.mu.Unlock()
	close(done)
	rt.m.persist()
}

// connect starts the MCP server (or opens the HTTP session), and mounts it
// through the proxy.
func (rt *runtime) connect(ctx context.Context) (*mcpSession, error) {
	d := rt.def
	r := rt.renderer()
	sc := rt.baseScope()
	mount := proxy.New(proxy.Options{
		// Exposed tools are named and served by whoever publishes them;
		// the mount keeps every downstream tool for calls and binding.
		Project: func(down protocol.Tool) (*mcp.Tool, bool) {
			desc := ""
			if down.Description != nil {
				desc = *down.Description
			}
			return &mcp.Tool{Name: down.Name, Description: desc, InputSchema: down.InputSchema}, true
		},
		OnToolsChanged: func() { rt.m.toolsChanged(d.Name) },
		Logger:         rt.m.log,
	})
	copts := mcp.ClientOptions{Info: rt.m.opts.ClientInfo, Root: rt.m.opts.Root, Era: rt.m.opts.Era, OnNotification: mount.Notify, Logger: rt.m.log}
	s := &mcpSession{mount: mount, stderr: &tail{max: 4096}}
	var c *mcp.Client
	if d.URL != "" {
		u, err := r.String(d.URL, sc)
		if err != nil {
			return nil, fmt.Errorf("url: %w", err)
		}
		if err := checkURL(u); err != nil {
			return nil, fmt.Errorf("url: %w", err)
		}
		headers, err := rt.renderMap(d.Headers, sc, "headers")
		if err != nil {
			return nil, err
		}
		if c, err = mcp.ConnectHTTP(ctx, u, mcp.HTTPOptions{Headers: headers, Client: rt.m.opts.HTTPClient}, copts); err != nil {
			return nil, fmt.Errorf("connecting: %w", err)
		}
	} else {
		cmd, err := rt.command(d.Command, d.Cwd, d.Env, nil, sc, "command")
		if err != nil {
			return nil, err
		}
		cmd.Stderr = s.stderr
		if c, err = mcp.StartCommand(ctx, cmd, copts); err != nil {
			if t := s.stderr.String(); t != "" {
				return nil, fmt.Errorf("%w: %s", err, lastLine(t))
			}
			return nil, err
		}
	}
	if err := mount.Attach(ctx, c, nil); err != nil {
		_ = mount.Close()
		if err := c.Close(); err != nil {
			rt.m.log.Debug("closing adapter", "adapter", d.Name, "error", rt.sec.Redact(err.Error()))
		}
		return nil, err
	}
	s.client = c
	rt.m.log.Info("adapter started", "adapter", d.Name, "server", c.ServerInfo.Name, "version", c.Version)
	return s, nil
}

// renderMap expands a table of templates (headers, env).
func (rt *runtime) renderMap(m map[string]string, sc scope, field string) (map[string]string, error) {
	if len(m) == 0 {
		return nil, nil
	}
	r := rt.renderer()
	out := make(map[string]string, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		v, err := r.String(m[k], sc)
		if err != nil {
			return nil, fmt.Errorf("%s.%s: %w", field, k, err)
		}
		out[k] = v
	}
	return out, nil
}

// command prepares an argument vector: never through a shell, in the
// configured directory (the repository root by default), with the
// configured environment over ours.
func (rt *runtime) command(argv []string, cwd string, env, opEnv map[string]string, sc scope, field string) (*exec.Cmd, error) {
	r := rt.renderer()
	args := make([]string, 0, len(argv))
	for i, a := range argv {
		v, err := r.String(a, sc)
		if err != nil {
			return nil, fmt.Errorf("%s[%d]: %w", field, i, err)
		}
		args = append(args, v)
	}
	if len(args) == 0 || args[0] == "" {
		return nil, fmt.Errorf("%s names no program", field)
	}
	cmd := exec.Command(args[0], args[1:]...)
	dir := rt.m.opts.Root
	if cwd != "" {
		v, err := r.String(cwd, sc)
		if err != nil {
			return nil, fmt.Errorf("cwd: %w", err)
		}
		if !filepath.IsAbs(v) {
			v = filepath.Join(rt.m.opts.Root, v)
		}
		dir = v
	}
	cmd.Dir = dir
	cmd.Env = os.Environ()
	for _, e := range []struct {
		m     map[string]string
		field string
	}{{env, "env"}, {opEnv, field + ".env"}} {
		vals, err := rt.renderMap(e.m, sc, e.field)
		if err != nil {
			return nil, err
		}
		for _, k := range slices.Sorted(maps.Keys(vals)) {
			cmd.Env = append(cmd.Env, k+"="+vals[k])
		}
	}
	return cmd, nil
}

// callMCP calls the op's tool with arguments bound from its schema and
// the op's args.
func (rt *runtime) callMCP(ctx context.Context, opName string, op *Op, sc scope) (any, error) {
	s, err := rt.session(ctx)
	if err != nil {
		return nil, err
	}
	r := rt.renderer()
	tool, err := r.String(op.Tool, sc)
	if err != nil {
		return nil, fmt.Errorf("tool: %w", err)
	}
	p, ok := s.mount.Lookup(tool)
	if !ok {
		var names []string
		for _, t := range s.mount.Tools() {
			names = append(names, t.Down.Name)
		}
		return nil, fmt.Errorf("the server has no tool %q (it has %s)", tool, listOr(names))
	}
	var explicit map[string]any
	if len(op.Args) > 0 {
		v, err := r.Value(map[string]any(op.Args), sc)
		if err != nil {
			return nil, fmt.Errorf("args: %w", err)
		}
		explicit, _ = v.(map[string]any)
	}
	args := bindArgs(opName, p.Down.InputSchema, sc, explicit)
	raw, err := json.Marshal(args)
	if err != nil {
		return nil, err
	}
	res, err := s.mount.Call(ctx, tool, raw)
	if err != nil {
		return nil, err
	}
	if res.IsError {
		return nil, &answerError{fmt.Sprintf("%s answered with an error: %s", tool, clean(resultText(res), 300))}
	}
	return toolPayload(res), nil
}

// answerError is an op the server answered with an error (an isError
// result): the adapter works, the call does not.
type answerError struct{ msg string }

func (e *answerError) Error() string { return e.msg }

// tail keeps the last bytes a child wrote to stderr.
type tail struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = append([]byte(nil), t.buf[len(t.buf)-t.max:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

func truncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }
