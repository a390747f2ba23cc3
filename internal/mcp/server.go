package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

// Implementation names a server or client.
type Implementation struct {
	Name    string
	Title   string
	Version string
}

// Options configure a Server.
type Options struct {
	// Instructions are sent to the client (initialize, server/discover).
	// When empty, the enabled toolsets' instructions are joined.
	Instructions string
	// RequestTimeout bounds every request; 0 disables the bound.
	RequestTimeout time.Duration
	// AskTimeout bounds how long a handler waits for the client to answer
	// a request of the server (DefaultAskTimeout when 0).
	AskTimeout time.Duration
	// PageSize is the number of items per page of a list method (100 when 0).
	PageSize int
	// MaxMessageBytes is the longest line read (DefaultMaxMessageBytes when 0).
	MaxMessageBytes int
	// DrainTimeout bounds how long in-flight requests may run after the input
	// ends (5 s when 0).
	DrainTimeout time.Duration
	// MaxInFlight is how many requests of one session are handled at once
	// (DefaultMaxInFlight when 0); MaxQueued more wait for a turn
	// (DefaultMaxQueued when 0), and the next is refused with -32603 and
	// data.maxInFlight. Methods answered on the read loop (ping, lists)
	// and subscription listeners are not counted.
	MaxInFlight, MaxQueued int
	// RefuseInvalidArguments answers every tool's invalid arguments with
	// -32602 and its violations, whatever the tool's InvalidArguments
	// policy: a client that names the parameters itself (the command line,
	// which speaks of its flags) asks for them so.
	RefuseInvalidArguments bool
	// ResultMeta is added as _meta to the initialize and server/discover
	// results: what the server says of itself beyond serverInfo (an App
	// Context application names its instance there). Keys are reverse-DNS;
	// the io.modelcontextprotocol/ prefix is the runtime's own.
	ResultMeta map[string]any
	// ReservedToolNames are names no tool added at run time may take
	// (Declares reports them): the tools of toolsets this server does not
	// serve, which another run may.
	ReservedToolNames []string
	// ListChangedDebounce, when set, collects tools and resources
	// list changes and resource updates for that long and sends each kind
	// once (an update once per URI): a burst of applications appearing is
	// one notification, not fifty.
	ListChangedDebounce time.Duration
	// OnSubscription, when set, hears when the first session or listen
	// stream subscribes to a resource URI (active) and when the last one
	// stops following it (an unsubscribe, a listen stream's end, a
	// session's end). It is called in order and must not block.
	OnSubscription func(uri string, active bool)
	// Filter chooses which tools are served.
	Filter Filter
	// Logger receives diagnostics (never stdout). Discarded when nil.
	Logger *slog.Logger
	// Trace, when set, sees every line read (out=false) and written.
	Trace func(out bool, line []byte)
	// RootDiscovery, when set, makes the server wait for a client to name
	// its root before any handler runs (see RootDiscovery).
	RootDiscovery *RootDiscovery
	// OutputFilter, when set, sees every tool result, resource read and
	// prompt before it is sent, once (see OutputFilter).
	OutputFilter OutputFilter
}

// The per-session bounds on requests: a client that sends more at once
// than a person or an agent ever would is queued, then refused, instead of
// starting a handler (and its git processes) for each.
const (
	DefaultMaxInFlight = 16
	DefaultMaxQueued   = 240
)

// Filter selects tools: the named toolsets and the named tools (a union;
// everything when both are empty), then, with ReadOnly, only the tools that
// say readOnlyHint: true. ReadOnly wins over everything.
type Filter struct {
	Toolsets []string
	Tools    []string
	ReadOnly bool
}

func (f Filter) admits(t *Tool) bool {
	if f.ReadOnly && !t.ReadOnly() {
		return false
	}
	if len(f.Toolsets) == 0 && len(f.Tools) == 0 {
		return true
	}
	return slices.Contains(f.Toolsets, t.Toolset) || slices.Contains(f.Tools, t.Name)
}

// admitsToolset reports whether the prompts and resources of a toolset are
// served: they follow --toolsets (and are all read-only).
func (f Filter) admitsToolset(name string) bool {
	return len(f.Toolsets) == 0 && len(f.Tools) == 0 || slices.Contains(f.Toolsets, name)
}

// Server is an MCP server. One Server can serve many connections.
type Server struct {
	info Implementation
	opts Options
	log  *slog.Logger

	mu           sync.RWMutex
	toolsets     []*Toolset
	tools        map[string]*registeredTool
	toolOrder    []string
	prompts      map[string]*Prompt
	promptOrder  []string
	resources    map[string]*Resource
	resourceURIs []string
	templates    []*ResourceTemplate
	// completes says a served prompt or template has a completer: the
	// completions capability says exactly that.
	completes   bool
	listVersion uint64 // bumped on every change to a list (cursors carry it)
	serving     bool   // Serving was called

	// listPages holds the list results (tools, prompts, resources,
	// templates) encoded for one listVersion: encoding tools/list
	// re-compacts every advertised schema, and the lists of a version
	// never change (resources/list checks what its templates list too).
	listPagesMu sync.Mutex
	listPages   listPageCache

	sessionsMu sync.Mutex
	sessions   map[*session]struct{}

	// subscribers counts, per URI, the sessions and listen streams that
	// follow it, for OnSubscription.
	subscribersMu sync.Mutex
	subscribers   map[string]int

	// pending holds the changes a ListChangedDebounce window collects.
	pendingMu    sync.Mutex
	pending      pendingChanges
	pendingTimer *time.Timer

	roots rootGate // RootDiscovery
}

type registeredTool struct {
	*Tool
	validator *lazyValidator
}

// lazyValidator compiles a tool's input schema the first time its
// arguments are checked: compiling every schema of kontext's tools took
// longer than all the rest of the start-up, and a session calls few tools.
type lazyValidator struct {
	name   string
	source []byte
	once   sync.Once
	v      *argumentValidator
	err    error
}

func newLazyValidator(name string, schema []byte) (*lazyValidator, error) {
	if !json.Valid(schema) {
		_, err := compileInputSchema(name, schema) // words the error
		return nil, err
	}
	return &lazyValidator{name: name, source: schema}, nil
}

// compiled returns the validator, compiling it on first use.
func (l *lazyValidator) compiled() (*argumentValidator, error) {
	l.once.Do(func() { l.v, l.err = compileInputSchema(l.name, l.source) })
	return l.v, l.err
}

// NewServer returns a server that serves the given toolsets through opts.Filter.
// It fails when a tool's input schema is not JSON or a name is taken twice;
// a schema that does not compile fails the tool's calls (CompileSchemas
// finds it at once).
func NewServer(info Implementation, opts Options, toolsets ...*Toolset) (*Server, error) {
	if opts.PageSize <= 0 {
		opts.PageSize = 100
	}
	if opts.DrainTimeout <= 0 {
		opts.DrainTimeout = 5 * time.Second
	}
	if opts.MaxInFlight <= 0 {
		opts.MaxInFlight = DefaultMaxInFlight
	}
	if opts.MaxQueued <= 0 {
		opts.MaxQueued = DefaultMaxQueued
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	s := &Server{
		info:      info,
		opts:      opts,
		log:       log,
		tools:     map[string]*registeredTool{},
		prompts:   map[string]*Prompt{},
		resources: map[string]*Resource{},
		sessions:  map[*session]struct{}{},
	}
	for _, ts := range toolsets {
		if err := s.addToolset(ts); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func (s *Server) addToolset(ts *Toolset) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.toolsets = append(s.toolsets, ts)
	for _, t := range ts.Tools {
		if t.Toolset == "" {
			t.Toolset = ts.Name
		}
		if err := s.addToolLocked(t); err != nil {
			return err
		}
	}
	if !s.opts.Filter.admitsToolset(ts.Name) {
		return nil
	}
	for _, p := range ts.Prompts {
		if _, dup := s.prompts[p.Name]; dup {
			return fmt.Errorf("prompt %s is defined twice", p.Name)
		}
		s.prompts[p.Name] = p
		s.promptOrder = append(s.promptOrder, p.Name)
	}
	for _, r := range ts.Resources {
		if _, dup := s.resources[r.URI]; dup {
			return fmt.Errorf("resource %s is defined twice", r.URI)
		}
		s.resources[r.URI] = r
		s.resourceURIs = append(s.resourceURIs, r.URI)
	}
	s.templates = append(s.templates, ts.Templates...)
	s.completes = s.completes || completesAny(ts.Prompts, ts.Templates)
	return nil
}

func (s *Server) addToolLocked(t *Tool) error {
	if _, dup := s.tools[t.Name]; dup {
		return fmt.Errorf("tool %s is defined twice", t.Name)
	}
	if !s.opts.Filter.admits(t) {
		return nil
	}
	v, err := newLazyValidator(t.Name, t.InputSchema)
	if err != nil {
		return err
	}
	s.tools[t.Name] = &registeredTool{Tool: t, validator: v}
	s.toolOrder = append(s.toolOrder, t.Name)
	return nil
}

// AddTool serves one more tool (subject to the filter) and tells clients the
// tool list changed.
func (s *Server) AddTool(t *Tool) error {
	s.mu.Lock()
	before := len(s.toolOrder)
	err := s.addToolLocked(t)
	changed := len(s.toolOrder) != before
	if changed {
		s.listVersion++
	}
	s.mu.Unlock()
	if changed {
		s.announce(pendingChanges{tools: true})
	}
	return err
}

// ReplaceTools removes the tools named and serves the ones given (subject to
// the filter) as one change: one list version, one list_changed. Nothing
// changes when an added tool's name is taken (and not removed).
func (s *Server) ReplaceTools(remove []string, add []*Tool) error {
	s.mu.Lock()
	gone := map[string]bool{}
	for _, name := range remove {
		if _, ok := s.tools[name]; ok {
			gone[name] = true
		}
	}
	seen := map[string]bool{}
	for _, t := range add {
		if _, dup := s.tools[t.Name]; (dup && !gone[t.Name]) || seen[t.Name] {
			s.mu.Unlock()
			return fmt.Errorf("tool %s is defined twice", t.Name)
		}
		seen[t.Name] = true
	}
	for name := range gone {
		delete(s.tools, name)
	}
	s.toolOrder = slices.DeleteFunc(s.toolOrder, func(n string) bool { return gone[n] })
	before := len(s.toolOrder)
	var err error
	for _, t := range add {
		if err = s.addToolLocked(t); err != nil {
			break
		}
	}
	changed := len(gone) > 0 || len(s.toolOrder) != before
	if changed {
		s.listVersion++
	}
	s.mu.Unlock()
	if changed {
		s.announce(pendingChanges{tools: true})
	}
	return err
}

// Serving says the server is served to clients for real (kontext mcp),
// and runs the OnServe hooks of the toolsets it serves, once. Toolsets a
// Rebase brings in later have theirs run by the Rebase.
func (s *Server) Serving() {
	s.mu.Lock()
	if s.serving {
		s.mu.Unlock()
		return
	}
	s.serving = true
	hooks := s.serveHooksLocked()
	s.mu.Unlock()
	for _, h := range hooks {
		h(s)
	}
}

// serveHooksLocked are the OnServe hooks of the toolsets the filter serves.
func (s *Server) serveHooksLocked() []func(*Server) {
	var hooks []func(*Server)
	for _, ts := range s.toolsets {
		if ts.OnServe != nil && s.opts.Filter.admitsToolset(ts.Name) {
			hooks = append(hooks, ts.OnServe)
		}
	}
	return hooks
}

// Declares reports whether a tool of that name is served, declared by a
// toolset of the server even when the filter leaves it out, or reserved
// (Options.ReservedToolNames): a name a tool added at run time must not
// take.
func (s *Server) Declares(name string) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if _, ok := s.tools[name]; ok || slices.Contains(s.opts.ReservedToolNames, name) {
		return true
	}
	for _, ts := range s.toolsets {
		for _, t := range ts.Tools {
			if t.Name == name {
				return true
			}
		}
	}
	return false
}

// RemoveTool stops serving a tool and tells clients the tool list changed.
func (s *Server) RemoveTool(name string) {
	s.mu.Lock()
	_, ok := s.tools[name]
	if ok {
		delete(s.tools, name)
		s.toolOrder = slices.DeleteFunc(s.toolOrder, func(n string) bool { return n == name })
		s.listVersion++
	}
	s.mu.Unlock()
	if ok {
		s.announce(pendingChanges{tools: true})
	}
}

// ResourcesChanged tells clients that the resource list changed.
func (s *Server) ResourcesChanged() {
	s.mu.Lock()
	s.listVersion++
	s.mu.Unlock()
	s.announce(pendingChanges{resources: true})
}

// ResourceUpdated tells clients subscribed to uri that it changed.
func (s *Server) ResourceUpdated(uri string) {
	s.announce(pendingChanges{updated: []string{uri}})
}

// pendingChanges are notifications waiting for the debounce window.
type pendingChanges struct {
	tools, resources bool
	updated          []string
}

// announce sends the changes now, or at the end of the debounce window with
// whatever else it collects.
func (s *Server) announce(c pendingChanges) {
	if s.opts.ListChangedDebounce <= 0 {
		s.send(c)
		return
	}
	s.pendingMu.Lock()
	defer s.pendingMu.Unlock()
	s.pending.tools = s.pending.tools || c.tools
	s.pending.resources = s.pending.resources || c.resources
	for _, uri := range c.updated {
		if !slices.Contains(s.pending.updated, uri) {
			s.pending.updated = append(s.pending.updated, uri)
		}
	}
	if s.pendingTimer == nil {
		s.pendingTimer = time.AfterFunc(s.opts.ListChangedDebounce, func() {
			s.pendingMu.Lock()
			c := s.pending
			s.pending, s.pendingTimer = pendingChanges{}, nil
			s.pendingMu.Unlock()
			s.send(c)
		})
	}
}

func (s *Server) send(c pendingChanges) {
	s.broadcast(func(ss *session) {
		if c.tools {
			ss.toolsChanged()
		}
		if c.resources {
			ss.resourcesChanged()
		}
		for _, uri := range c.updated {
			ss.resourceUpdated(uri)
		}
	})
}

// follow counts delta more (or fewer) followers of each URI and tells
// OnSubscription when a URI gains its first or loses its last.
func (s *Server) follow(uris []string, delta int) {
	if len(uris) == 0 {
		return
	}
	var hooks []func(string, bool)
	if s.opts.OnSubscription != nil {
		hooks = append(hooks, s.opts.OnSubscription)
	}
	s.mu.Lock()
	for _, ts := range s.toolsets {
		if ts.OnSubscription != nil {
			hooks = append(hooks, ts.OnSubscription)
		}
	}
	s.mu.Unlock()
	if len(hooks) == 0 {
		return
	}
	notify := func(uri string, active bool) {
		for _, h := range hooks {
			h(uri, active)
		}
	}
	s.subscribersMu.Lock()
	defer s.subscribersMu.Unlock()
	if s.subscribers == nil {
		s.subscribers = map[string]int{}
	}
	for _, uri := range uris {
		before := s.subscribers[uri]
		after := max(before+delta, 0)
		if after == 0 {
			delete(s.subscribers, uri)
		} else {
			s.subscribers[uri] = after
		}
		switch {
		case before == 0 && after > 0:
			notify(uri, true)
		case before > 0 && after == 0:
			notify(uri, false)
		}
	}
}

func (s *Server) broadcast(f func(*session)) {
	s.sessionsMu.Lock()
	list := make([]*session, 0, len(s.sessions))
	for ss := range s.sessions {
		list = append(list, ss)
	}
	s.sessionsMu.Unlock()
	for _, ss := range list {
		f(ss)
	}
}

// Tools returns the tools being served, in registration order.
func (s *Server) Tools() []*Tool {
	tools, _ := s.toolsAndVersion()
	return tools
}

// toolsAndVersion returns the tools and the list version they belong to.
func (s *Server) toolsAndVersion() ([]*Tool, uint64) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]*Tool, 0, len(s.toolOrder))
	for _, name := range s.toolOrder {
		out = append(out, s.tools[name].Tool)
	}
	return out, s.listVersion
}

// listPageCache is the list results encoded for one list version.
type listPageCache struct {
	version uint64
	pages   map[listPageKey]listPage
}

// listPageKey is what, beside the list version, shapes a list result: the
// list, the revision's features (features.modern: a 2026-07-28 result
// carries its envelope) and where the page starts (the page size is fixed
// per server).
type listPageKey struct {
	list  string
	feat  features
	start int
}

// listPage is one encoded result. For resources/list, listed is what the
// page was encoded from: templates list their resources anew each time,
// and the page is only served again for the same resources.
type listPage struct {
	body   preparedResult
	listed []listedResource
}

// listedResource is what resources/list says of a resource.
type listedResource struct {
	uri, name, title, description, mimeType string
}

func (s *Server) cachedListPage(version uint64, key listPageKey) (listPage, bool) {
	s.listPagesMu.Lock()
	defer s.listPagesMu.Unlock()
	if s.listPages.version != version {
		return listPage{}, false
	}
	page, ok := s.listPages.pages[key]
	return page, ok
}

// cacheListPage keeps a page for its version; the first page of a newer
// version drops those of older ones. A page of an older version than
// the cache's (a request that raced a change) is not kept.
func (s *Server) cacheListPage(version uint64, key listPageKey, page listPage) {
	s.listPagesMu.Lock()
	defer s.listPagesMu.Unlock()
	switch {
	case s.listPages.pages == nil || version > s.listPages.version:
		s.listPages = listPageCache{version: version, pages: map[listPageKey]listPage{}}
	case version < s.listPages.version:
		return
	}
	s.listPages.pages[key] = page
}

// CompileSchemas compiles the input schema of every tool served now, as
// their first calls would, and returns the errors of those that do not
// compile (a test of a toolset's schemas; serving needs no such step).
func (s *Server) CompileSchemas() error {
	s.mu.RLock()
	tools := make([]*registeredTool, 0, len(s.toolOrder))
	for _, name := range s.toolOrder {
		tools = append(tools, s.tools[name])
	}
	s.mu.RUnlock()
	var errs []error
	for _, t := range tools {
		if _, err := t.validator.compiled(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// ValidatedSchema returns the bytes the validator of a tool compiles.
func (s *Server) ValidatedSchema(name string) ([]byte, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	t, ok := s.tools[name]
	if !ok {
		return nil, false
	}
	return t.validator.source, true
}

func (s *Server) tool(name string) (*registeredTool, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	t, ok := s.tools[name]
	return t, ok
}

func (s *Server) instructions() string {
	if s.opts.Instructions != "" {
		return s.opts.Instructions
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	var parts []string
	for _, ts := range s.toolsets {
		if ts.Instructions == "" {
			continue
		}
		for _, name := range s.toolOrder {
			if s.tools[name].Toolset == ts.Name {
				parts = append(parts, ts.Instructions)
				break
			}
		}
	}
	return strings.Join(parts, "\n\n")
}

// capabilities are derived from what is served, so they advertise exactly
// what is implemented.
type capabilities struct {
	tools, prompts, resources, completions bool
}

// offers reports whether the capability a method needs is served.
func (c capabilities) offers(name string) bool {
	switch name {
	case "tools":
		return c.tools
	case "prompts":
		return c.prompts
	case "resources":
		return c.resources
	case "completions":
		return c.completions
	}
	return false
}

func (s *Server) capabilities() capabilities {
	s.mu.RLock()
	defer s.mu.RUnlock()
	c := capabilities{prompts: len(s.prompts) > 0, resources: len(s.resources) > 0 || len(s.templates) > 0, completions: s.completes}
	// The tools capability stays on even when a filter leaves no tool: the
	// list can grow at run time and clients then hear about it.
	c.tools = len(s.toolsets) > 0
	return c
}

// Serve runs one MCP connection over rwc until the input ends and in-flight
// requests have finished (or DrainTimeout passed). It returns nil on a clean
// end of input.
func (s *Server) Serve(ctx context.Context, rwc io.ReadWriteCloser) error {
	lines := newLineConn(rwc, rwc, rwc, s.opts.MaxMessageBytes)
	lines.trace = s.opts.Trace
	lines.logf = func(format string, args ...any) { s.log.Warn(fmt.Sprintf(format, args...)) }
	return s.serve(ctx, lines)
}

// serve runs one session over c until its input ends.
func (s *Server) serve(ctx context.Context, c conn) error {
	ss := newSession(ctx, s, c)
	s.sessionsMu.Lock()
	s.sessions[ss] = struct{}{}
	s.sessionsMu.Unlock()
	defer func() {
		s.sessionsMu.Lock()
		delete(s.sessions, ss)
		s.sessionsMu.Unlock()
		ss.mu.Lock()
		followed := sortedKeys(ss.subscribed)
		ss.subscribed = map[string]bool{}
		ss.mu.Unlock()
		s.follow(followed, -1)
	}()
	return ss.run()
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
