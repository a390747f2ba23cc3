package adapters

import (
	"context"
	"crypto/sha256"
	"encoding/base32"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/kontext-dev/kontext/gen/protocol"
	"github.com/kontext-dev/kontext/internal/mcp"
	"github.com/kontext-dev/kontext/internal/mcp/proxy"
)

// publishRetry is how often an exposed adapter that did not start is
// tried again, and publishPatience how long it is tried in all.
var (
	publishRetry    = 5 * time.Second
	publishPatience = startTimeout + DefaultCooldown + 30*time.Second
)

// Publisher serves the adapters' tools on a server: the tools an MCP
// adapter exposes (through the proxy mount the manager keeps for it) and
// the tools the configuration declares. It only adds what no toolset of
// the server declares.
type Publisher struct {
	m       *Manager
	srv     *mcp.Server
	toolset string

	syncMu sync.Mutex // one sync at a time
	mu     sync.Mutex
	closed bool
	served map[string][]string // adapter ("" for declared tools) → names
	last   map[string]string   // adapter → what was served, encoded
	stop   chan struct{}
	wg     sync.WaitGroup
}

// Publish starts serving the adapters' tools on srv, as tools of toolset,
// in the background: the declared tools at once, each exposed MCP adapter
// once it has started (one tools/list_changed each). A downstream list
// change re-publishes its adapter. Close stops it.
func (m *Manager) Publish(srv *mcp.Server, toolset string) *Publisher {
	p := &Publisher{m: m, srv: srv, toolset: toolset, served: map[string][]string{}, last: map[string]string{}, stop: make(chan struct{})}
	m.onTools(p, p.changed)
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		p.syncDeclared()
		var wg sync.WaitGroup
		for _, rt := range m.runtimes() {
			if !p.exposes(rt) {
				continue
			}
			wg.Add(1)
			go func(name string) {
				defer wg.Done()
				p.start(name)
			}(rt.def.Name)
		}
		wg.Wait()
	}()
	return p
}

// Close stops publishing. The tools stay on the server (a Rebase that
// closes the toolset has removed them already).
func (p *Publisher) Close() {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.closed = true
	close(p.stop)
	p.mu.Unlock()
	p.m.onTools(p, nil)
	p.wg.Wait()
}

func (p *Publisher) isClosed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.closed
}

// exposes says whether an adapter's downstream tools are published: an
// MCP adapter that exposes some and may run.
func (p *Publisher) exposes(rt *runtime) bool {
	if rt.def.Driver != DriverMCP || rt.def.Expose.None() {
		return false
	}
	st := rt.status().State
	return st != StateDisabled && st != StateInactive && st != StateUntrusted
}

// start mounts an exposed adapter, trying again while it fails for a
// while (a first start through npx can take long), and publishes it.
func (p *Publisher) start(name string) {
	deadline := time.Now().Add(publishPatience)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
		err := p.syncExposed(ctx, name)
		cancel()
		if err == nil || p.isClosed() {
			return
		}
		if time.Now().After(deadline) {
			p.m.log.Warn("adapter tools not published: the adapter did not start", "adapter", name, "error", err)
			return
		}
		select {
		case <-p.stop:
			return
		case <-time.After(publishRetry):
		}
	}
}

// changed re-publishes an adapter whose server changed its tool list or
// started again, or whose definition came, went or changed: the declared
// tools follow the configuration, and an adapter that no longer exposes
// tools (or is gone) takes its tools away.
func (p *Publisher) changed(adapter string) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.wg.Add(1)
	p.mu.Unlock()
	go func() {
		defer p.wg.Done()
		p.syncDeclared()
		rt, err := p.m.get(adapter)
		if err != nil || !p.exposes(rt) {
			if err := p.replace(adapter, nil); err != nil {
				p.m.log.Warn("adapter tools not withdrawn", "adapter", adapter, "error", err)
			}
			return
		}
		p.start(adapter)
	}()
}

// syncExposed lists an adapter's exposed tools and serves them in place
// of what it served before.
func (p *Publisher) syncExposed(ctx context.Context, name string) error {
	rt, err := p.m.get(name)
	if err != nil {
		return err
	}
	mount, err := p.m.Mount(ctx, name)
	if err != nil {
		return err
	}
	var tools []*mcp.Tool
	for _, pr := range mount.Tools() {
		if rt.def.Expose.Includes(pr.Down.Name) {
			tools = append(tools, p.exposed(rt.def, pr.Down))
		}
	}
	return p.replace(name, tools)
}

// exposed is a downstream tool as we serve it: our name, its description
// marked as an adapter's, its schemas and hints as they are.
func (p *Publisher) exposed(d *Definition, down protocol.Tool) *mcp.Tool {
	desc := ""
	if down.Description != nil {
		desc = *down.Description
	}
	desc = adapterDescription(d.Name, desc)
	t := &mcp.Tool{
		Name: exposedName(d.ToolName(down.Name)), Description: desc, Toolset: p.toolset,
		InputSchema: down.InputSchema, OutputSchema: down.OutputSchema,
	}
	if down.Title != nil {
		t.Title = *down.Title
	}
	if a := down.Annotations; a != nil {
		t.Annotations = mcp.Annotations{ReadOnly: a.ReadOnlyHint, Destructive: a.DestructiveHint, Idempotent: a.IdempotentHint, OpenWorld: a.OpenWorldHint}
		if t.Title == "" && a.Title != nil {
			t.Title = *a.Title
		}
	}
	adapter, downName := d.Name, down.Name
	// Each call asks the manager for the mount, so an adapter that
	// crashed starts again (lazily, as for any op) and is answered there.
	t.Call = func(ctx context.Context, args json.RawMessage) (*mcp.ToolResult, error) {
		mount, err := p.m.Mount(ctx, adapter)
		if err != nil {
			return nil, err
		}
		res, err := mount.Call(ctx, downName, args)
		if errors.Is(err, proxy.ErrNoSuchTool) {
			return nil, errors.New(adapter + " no longer offers " + downName)
		}
		return res, err
	}
	return t
}

// exposedName fits a downstream tool's name, prefixed, to the character
// set and budget of the tools kontext makes (mcp.IsToolName): other
// characters become "_", and a name over the budget is cut and ends in a
// digest of the whole, so that it stays the same from run to run and
// apart from its neighbours. A name that fits is kept as it is.
func exposedName(name string) string {
	if mcp.IsToolName(name, mcp.ToolNameBudget) {
		return name
	}
	b := make([]byte, 0, len(name))
	for _, r := range name {
		if r < 0x80 && mcp.IsToolNameByte(byte(r)) {
			b = append(b, byte(r))
		} else {
			b = append(b, '_')
		}
	}
	if len(b) <= mcp.ToolNameBudget {
		return string(b)
	}
	sum := sha256.Sum256([]byte(name))
	digest := strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(sum[:]))[:exposedDigest]
	return strings.TrimRight(string(b[:mcp.ToolNameBudget-exposedDigest-1]), "_-") + "_" + digest
}

// exposedDigest is the length of the digest a cut name ends in (50 bits).
const exposedDigest = 10

// adapterDescription starts with "[adapter]", as the seed has every
// adapter tool's description start, and names the adapter, so that an
// agent tells which server answers.
func adapterDescription(adapter, desc string) string {
	desc = strings.TrimSpace(desc)
	if desc == "" {
		return "[adapter] " + adapter
	}
	return "[adapter] " + adapter + ": " + desc
}

// syncDeclared serves the tools the configuration declares.
func (p *Publisher) syncDeclared() {
	var tools []*mcp.Tool
	for _, dt := range p.m.DeclaredTools() {
		adapter, name := dt.Adapter, dt.Tool.Name
		desc := adapterDescription(adapter, dt.Tool.Description)
		tools = append(tools, &mcp.Tool{
			Name: name, Description: desc, Toolset: p.toolset, InputSchema: dt.Tool.Schema,
			Call: func(ctx context.Context, args json.RawMessage) (*mcp.ToolResult, error) {
				text, err := p.m.CallDeclared(ctx, adapter, name, args)
				if err != nil {
					return nil, err
				}
				return mcp.TextResult(text), nil
			},
		})
	}
	if err := p.replace("", tools); err != nil {
		p.m.log.Warn("declared adapter tools not published", "error", err)
	}
}

// replace serves tools for key in place of what key served: names that
// are not tool names (mcp.IsToolName), that a toolset declares
// (ctx_* among them) or that another adapter took are left out with a
// warning. An unchanged list changes nothing.
func (p *Publisher) replace(key string, tools []*mcp.Tool) error {
	p.syncMu.Lock()
	defer p.syncMu.Unlock()
	if p.isClosed() {
		return nil
	}
	own := map[string]bool{}
	for _, n := range p.served[key] {
		own[n] = true
	}
	var add []*mcp.Tool
	var names []string
	seen := map[string]bool{}
	var sig strings.Builder
	for _, t := range tools {
		warn := func(why string) { p.m.log.Warn("adapter tool not published: "+why, "adapter", key, "tool", t.Name) }
		switch {
		case !mcp.IsToolName(t.Name, mcp.ToolNameBudget):
			warn(fmt.Sprintf("a tool name may hold letters, digits, _ and - (at most %d)", mcp.ToolNameBudget))
			continue
		case strings.HasPrefix(t.Name, "ctx_") || (!own[t.Name] && p.srv.Declares(t.Name)) || seen[t.Name]:
			warn("its name is taken")
			continue
		}
		if err := mcp.CheckInputSchema(t.Name, t.InputSchema); err != nil {
			warn(err.Error())
			continue
		}
		seen[t.Name] = true
		add = append(add, t)
		names = append(names, t.Name)
		b, _ := json.Marshal([]any{t.Name, t.Title, t.Description, t.InputSchema, t.OutputSchema, t.Annotations})
		sig.Write(b)
	}
	p.mu.Lock()
	same := p.last[key] == sig.String() && len(p.served[key]) == len(names)
	p.mu.Unlock()
	if same {
		return nil
	}
	if err := p.srv.ReplaceTools(p.served[key], add); err != nil {
		return err
	}
	p.mu.Lock()
	p.served[key], p.last[key] = names, sig.String()
	p.mu.Unlock()
	return nil
}
