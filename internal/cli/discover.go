package cli

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"sync"

	"github.com/urfave/cli/v2"

	"github.com/kontext-dev/kontext/gen/protocol"
	"github.com/kontext-dev/kontext/internal/fsroot"
	"github.com/kontext-dev/kontext/internal/git"
	"github.com/kontext-dev/kontext/internal/mcp"
)

// mcpServer builds the server of kontext mcp. Given a root (--root,
// KONTEXT_ROOT, AGENT_CONTEXT_ROOT) or started inside a git work tree, it
// serves that directory as every command does. Started anywhere else (/,
// the home directory, as Claude Desktop and Cline start servers), it
// opens nothing there: it asks the client for its roots and serves the
// first one that is a git work tree. Over HTTP, where every session shares
// the server, it refuses to start instead.
func mcpServer(c *cli.Context, p Program, opts mcp.Options, log *slog.Logger) (*built, error) {
	choice, err := Root(c)
	if err != nil {
		return nil, err
	}
	if choice.Source != "working directory" || inWorkTree(choice.Dir) || rootFree(c, p) {
		return buildServer(c, p, opts, log)
	}
	if c.String("http") != "" {
		// Every HTTP session shares one engine, so one client's roots must
		// not choose the repository the others are served.
		return nil, cli.Exit(fmt.Sprintf("kontext mcp --http serves one repository to every client and does not ask them for theirs: "+
			"%s is not inside a git work tree, so name the repository with --root DIR or KONTEXT_ROOT=DIR", choice.Dir), 2)
	}
	d := &discoverer{c: c, p: p, log: log, started: choice.Dir}
	if p.OutputFilter != nil {
		d.filter = &switchingFilter{}
		opts.OutputFilter = d.filter
	}
	opts.RootDiscovery = &mcp.RootDiscovery{Hint: unrootedHint(choice.Dir), Roots: d.roots}
	// The toolsets are only described until a root is known: their lists
	// are served, their handlers never run.
	described := p
	described.OutputFilter = nil
	described.Toolsets = make([]ToolsetFactory, len(p.Toolsets))
	for i, f := range p.Toolsets {
		describe := f.Describe
		f.Open = func(*fsroot.Root) (*mcp.Toolset, func(*mcp.Server), error) { return describe(), nil, nil }
		described.Toolsets[i] = f
	}
	b, err := buildServer(c, described, opts, log)
	if err != nil {
		return nil, err
	}
	d.srv = b.server
	b.close = func() {
		d.mu.Lock()
		defer d.mu.Unlock()
		closeToolsets(d.served)
		d.served = nil
	}
	log.Info("not in a git work tree and given no root: asking the client for its roots", "dir", choice.Dir)
	return b, nil
}

// unrootedHint is what every tool call answers until a root is known.
func unrootedHint(dir string) string {
	return fmt.Sprintf("kontext has no repository to serve: it was started in %s, which is not inside a git work tree, "+
		"and the client named no root that is one. Name the repository with --root DIR in the client's configuration "+
		"(kontext config <client> --root DIR writes it), or set KONTEXT_ROOT=DIR.", dir)
}

func inWorkTree(dir string) bool {
	repo, err := git.Open(context.Background(), dir)
	if err != nil {
		return false
	}
	repo.Close()
	return true
}

// discoverer serves the first of a client's roots that is a git work tree.
type discoverer struct {
	c       *cli.Context
	p       Program
	log     *slog.Logger
	started string
	srv     *mcp.Server
	filter  *switchingFilter

	mu      sync.Mutex
	serving string         // the root served, "" before one
	served  []*mcp.Toolset // its toolsets, closed when another root is served
}

// roots chooses among the client's roots; a root that is no longer listed
// stays served until another one is.
func (d *discoverer) roots(_ context.Context, roots []protocol.Root) {
	dir, ok := firstWorkTree(roots)
	if !ok {
		d.log.Warn("none of the client's roots is a git work tree", "roots", len(roots))
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if dir == d.serving {
		return
	}
	if err := d.serve(dir); err != nil {
		d.log.Error("serving the client's root", "root", dir, "error", err)
		return
	}
	d.serving = dir
	d.log.Info("kontext serving the client's root", "root", dir)
}

// serve opens the toolsets on dir and has the server serve them.
func (d *discoverer) serve(dir string) error {
	root, err := fsroot.Open(dir)
	if err != nil {
		return err
	}
	var sets []*mcp.Toolset
	var attach []func(*mcp.Server)
	sel := selection{mcp.Filter{Toolsets: splitList(d.c.StringSlice("toolsets")), Tools: splitList(d.c.StringSlice("tools"))}}
	for _, f := range d.p.Toolsets {
		if !sel.Wants(f) {
			continue
		}
		if f.Configure != nil {
			if err := f.Configure(d.c); err != nil {
				closeToolsets(sets)
				return err
			}
		}
		ts, a, err := f.Open(root)
		if err != nil {
			closeToolsets(sets)
			return fmt.Errorf("toolset %s: %w", f.Name, err)
		}
		sets = append(sets, ts)
		if a != nil {
			attach = append(attach, a)
		}
	}
	if d.filter != nil {
		d.filter.set(d.p.OutputFilter(root))
	}
	if err := d.srv.Rebase(sets...); err != nil {
		closeToolsets(sets)
		return err
	}
	for _, a := range attach {
		a(d.srv)
	}
	// The previous root's toolsets are served no more: their watchers and
	// indexes go (a call still running on them waits for its search, or
	// reopens git on demand).
	closeToolsets(d.served)
	d.served = sets
	return nil
}

// closeToolsets releases what toolsets hold once no server serves them.
func closeToolsets(sets []*mcp.Toolset) {
	for _, ts := range sets {
		if ts.Close != nil {
			_ = ts.Close()
		}
	}
}

// firstWorkTree returns the directory of the first file:// root inside a
// git work tree.
func firstWorkTree(roots []protocol.Root) (string, bool) {
	for _, r := range roots {
		u, err := url.Parse(r.URI)
		if err != nil || u.Scheme != "file" || (u.Host != "" && u.Host != "localhost") || u.Path == "" {
			continue
		}
		dir := filepath.FromSlash(u.Path)
		if info, err := os.Stat(dir); err != nil || !info.IsDir() {
			continue
		}
		if inWorkTree(dir) {
			return dir, true
		}
	}
	return "", false
}

// switchingFilter is the output filter of whichever root is served; none
// is served before one is known, and nothing is answered then but hints.
type switchingFilter struct {
	mu sync.RWMutex
	f  mcp.OutputFilter
}

func (s *switchingFilter) set(f mcp.OutputFilter) {
	s.mu.Lock()
	s.f = f
	s.mu.Unlock()
}

func (s *switchingFilter) current() mcp.OutputFilter {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.f
}

func (s *switchingFilter) Suspect(text []byte) bool {
	if f := s.current(); f != nil {
		return f.Suspect(text)
	}
	return false
}

func (s *switchingFilter) Redact(key, text string) string {
	if f := s.current(); f != nil {
		return f.Redact(key, text)
	}
	return text
}
