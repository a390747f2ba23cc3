package mcp

import (
	"context"
	"encoding/json"
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

	// toolPages holds the encoded tools/list results of one listVersion:
	// encoding one re-compacts every advertised schema, and the tools of a
	// version never change.
	toolPagesMu sync.Mutex
	toolPages   toolPageCache

	sessionsMu sync.Mutex
	sessions   map[*session]struct{}

	roots rootGate // RootDiscovery
}

type registeredTool struct {
	*Tool
	validator *argumentValidator
}

// NewServer returns a server that serves the given toolsets through opts.Filter.
// It fails when a tool's input schema does not compile or a name is taken twice.
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
	v, err := compileInputSchema(t.Name, t.InputSchema)
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
		s.broadcast(func(ss *session) { ss.toolsChanged() })
	}
	return err
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
		s.broadcast(func(ss *session) { ss.toolsChanged() })
	}
}

// ResourcesChanged tells clients that the resource list changed.
func (s *Server) ResourcesChanged() {
	s.mu.Lock()
	s.listVersion++
	s.mu.Unlock()
	s.broadcast(func(ss *session) { ss.resourcesChanged() })
}

// ResourceUpdated tells clients subscribed to uri that it changed.
func (s *Server) ResourceUpdated(uri string) {
	s.broadcast(func(ss *session) { ss.resourceUpdated(uri) })
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

// toolPageCache is the tools/list results encoded for one list version.
type toolPageCache struct {
	version uint64
	bodies  map[toolPageKey]json.RawMessage
}

// toolPageKey is what, beside the list version, shapes a tools/list
// result: the revision's features and where the page starts (the page
// size is fixed per server).
type toolPageKey struct {
	feat  features
	start int
}

func (s *Server) cachedToolPage(version uint64, key toolPageKey) (json.RawMessage, bool) {
	s.toolPagesMu.Lock()
	defer s.toolPagesMu.Unlock()
	if s.toolPages.version != version {
		return nil, false
	}
	body, ok := s.toolPages.bodies[key]
	return body, ok
}

// cacheToolPage keeps a body for its version; the first body of a newer
// version drops those of older ones. A body of an older version than
// the cache's (a request that raced a change) is not kept.
func (s *Server) cacheToolPage(version uint64, key toolPageKey, body json.RawMessage) {
	s.toolPagesMu.Lock()
	defer s.toolPagesMu.Unlock()
	switch {
	case s.toolPages.bodies == nil || version > s.toolPages.version:
		s.toolPages = toolPageCache{version: version, bodies: map[toolPageKey]json.RawMessage{}}
	case version < s.toolPages.version:
		return
	}
	s.toolPages.bodies[key] = body
}

// ValidatedSchema returns the bytes the validator of a tool compiled.
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
