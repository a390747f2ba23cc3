package mcp

import (
	"context"
	"sync"

	"github.com/kontext-dev/kontext/gen/errcodes"
	"github.com/kontext-dev/kontext/gen/protocol"
)

// RootDiscovery makes a server that was given no repository ask its
// clients for one. Until Rebase serves toolsets opened on a root, no
// handler runs: a tool call answers with Hint as an error result, prompts
// and resource reads with an error naming it, and resource lists leave
// out what a handler would list.
type RootDiscovery struct {
	// Hint says how to give the server its root.
	Hint string
	// Roots receives the roots of a client that declared the roots
	// capability: after initialize and whenever the client says they
	// changed (legacy eras), or when a 2026-07-28 request needs a root.
	// It chooses one and calls Rebase, or leaves the server as it is.
	Roots func(ctx context.Context, roots []protocol.Root)
}

// rootGate is the server's state of root discovery.
type rootGate struct {
	mu     sync.Mutex
	waitMu sync.Mutex // one Roots call at a time, in the order asked
	open   bool       // serving toolsets opened on a root
}

// rooted reports whether handlers may run.
func (s *Server) rooted() bool {
	if s.opts.RootDiscovery == nil {
		return true
	}
	s.roots.mu.Lock()
	defer s.roots.mu.Unlock()
	return s.roots.open
}

// Rebase serves toolsets (opened on the root a client named) instead of
// the ones the server was made with, lifts the gate of RootDiscovery and
// tells clients the lists changed. Tools added since are dropped.
func (s *Server) Rebase(toolsets ...*Toolset) error {
	fresh := &Server{
		opts:      s.opts,
		tools:     map[string]*registeredTool{},
		prompts:   map[string]*Prompt{},
		resources: map[string]*Resource{},
	}
	for _, ts := range toolsets {
		if err := fresh.addToolset(ts); err != nil {
			return err
		}
	}
	s.mu.Lock()
	s.toolsets, s.tools, s.toolOrder = fresh.toolsets, fresh.tools, fresh.toolOrder
	s.prompts, s.promptOrder = fresh.prompts, fresh.promptOrder
	s.resources, s.resourceURIs, s.templates = fresh.resources, fresh.resourceURIs, fresh.templates
	s.listVersion++
	var hooks []func(*Server)
	if s.serving {
		hooks = s.serveHooksLocked()
	}
	s.mu.Unlock()
	defer func() {
		for _, h := range hooks {
			h(s)
		}
	}()
	s.roots.mu.Lock()
	s.roots.open = true
	s.roots.mu.Unlock()
	s.broadcast(func(ss *session) {
		ss.toolsChanged()
		ss.resourcesChanged()
	})
	return nil
}

// rootNeeded lists the methods whose answer runs a handler of a toolset.
var rootNeeded = map[string]bool{
	"tools/call": true, "prompts/get": true, "resources/read": true, "resources/subscribe": true,
}

// runRooted runs a method once the server has a root. While discovery
// is under way (the session asked the client and waits for its answer),
// an async method waits for it; a 2026-07-28 request asks the client's
// roots itself, as a multi-round-trip request.
func (c *call) runRooted(m method, async bool) (any, error) {
	srv := c.ss.srv
	if srv.rooted() || !rootNeeded[c.method] {
		if !async {
			return m.run(c)
		}
		return c.runGuarded(m)
	}
	if async {
		c.ss.awaitRoots(c.ctx)
		if c.modern && mrtrMethods[c.method] && c.clientDeclares("roots") {
			var res protocol.ListRootsResult
			if err := Ask(c.ctx, Question{Key: "io.kontext/roots", Method: "roots/list", Answer: &res}); err != nil {
				return nil, err
			}
			srv.rootsOf(c.ctx, res.Roots)
		}
		if srv.rooted() {
			return c.runGuarded(m)
		}
	}
	hint := srv.opts.RootDiscovery.Hint
	if c.method == "tools/call" {
		return c.toolResult(ErrorResult("%s", hint)), nil
	}
	// The hint is the message: clients show a message, not data.
	return nil, &Error{Code: errcodes.InternalError, Message: hint}
}

// rootsOf hands a client's roots to RootDiscovery.Roots, one call at a
// time.
func (s *Server) rootsOf(ctx context.Context, roots []protocol.Root) {
	s.roots.waitMu.Lock()
	defer s.roots.waitMu.Unlock()
	s.opts.RootDiscovery.Roots(ctx, roots)
}

// sessionRoots is a legacy session's side of root discovery.
type sessionRoots struct {
	mu      sync.Mutex
	pending int           // asks of roots/list under way
	settled chan struct{} // closed when none is
}

// discoverRoots asks the client for its roots (after initialize, and when
// they changed) when the server looks for one and the client has roots.
func (ss *session) discoverRoots() {
	d := ss.srv.opts.RootDiscovery
	if d == nil || d.Roots == nil {
		return
	}
	ss.mu.Lock()
	declared := capsDeclare(ss.clientCaps, "roots")
	ss.mu.Unlock()
	if !declared {
		return
	}
	ss.roots.mu.Lock()
	if ss.roots.pending == 0 {
		ss.roots.settled = make(chan struct{})
	}
	ss.roots.pending++
	ss.roots.mu.Unlock()
	// Not counted in running: when the input ends, nobody can answer.
	go func() {
		defer func() {
			ss.roots.mu.Lock()
			ss.roots.pending--
			if ss.roots.pending == 0 {
				close(ss.roots.settled)
			}
			ss.roots.mu.Unlock()
		}()
		var res protocol.ListRootsResult
		if err := ss.ask(ss.ctx, 0, "roots/list", nil, &res); err != nil {
			ss.log.Warn("the client's roots could not be read", "error", err)
			return
		}
		ss.srv.rootsOf(ss.ctx, res.Roots)
	}()
}

// awaitRoots waits while the session asks the client for its roots
// (an ask bounded by the ask timeout).
func (ss *session) awaitRoots(ctx context.Context) {
	ss.roots.mu.Lock()
	settled := ss.roots.settled
	pending := ss.roots.pending
	ss.roots.mu.Unlock()
	if pending == 0 {
		return
	}
	select {
	case <-settled:
	case <-ctx.Done():
	}
}
