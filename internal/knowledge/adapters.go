package knowledge

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/kontext-dev/kontext/internal/knowledge/adapters"
	"github.com/kontext-dev/kontext/internal/knowledge/hooks"
	"github.com/kontext-dev/kontext/internal/knowledge/local"
	"github.com/kontext-dev/kontext/internal/knowledge/store"
)

// Adapters returns the process's adapter manager for this repository,
// configured from the current configuration and trust file. One manager
// serves every session of the process; a changed configuration or trust
// file reconfigures it (unchanged adapters keep running).
func (s *Service) Adapters(ctx context.Context) (*adapters.Manager, error) {
	o, err := s.Open(ctx)
	if err != nil {
		return nil, err
	}
	trustPath := adapters.TrustPath(s.Getenv)
	stamp := o.stamp + "|" + fileStamp(trustPath)
	s.adaptersMu.Lock()
	defer s.adaptersMu.Unlock()
	if s.adapters != nil && s.adaptersStamp == stamp {
		return s.adapters, s.adaptersErr
	}
	defs, defErr := adapters.FromConfig(o.Config)
	trust, err := adapters.LoadTrust(trustPath)
	if err != nil {
		return nil, err
	}
	if s.adapters == nil {
		s.adapters = adapters.NewManager(o.managerOptions(s.Getenv, trust))
	}
	s.adapters.SetTrust(trust)
	s.adapters.Configure(defs)
	s.adaptersStamp, s.adaptersErr = stamp, defErr
	return s.adapters, defErr
}

func (o *Opened) managerOptions(getenv func(string) string, trust *adapters.Trust) adapters.Options {
	id := o.Config.Identity
	root := o.Root.Dir()
	return adapters.Options{
		Root: root,
		Repo: adapters.RepoInfo{ID: id.ID, Slug: id.Slug, Name: id.Name, Dir: filepath.Base(root), Root: root,
			Remote: id.Remote, Branch: o.State.Branch, Worktree: o.State.Worktree},
		Project:  o.Config.Project.Name,
		Vars:     o.Config.Vars,
		Getenv:   getenv,
		Trust:    trust,
		StateDir: o.adapterStateDir(),
	}
}

func (o *Opened) adapterStateDir() string {
	return filepath.Join(o.State.Dir, "worktrees", o.State.Worktree, "adapters")
}

func (s *Service) closeAdapters() {
	s.adaptersMu.Lock()
	m := s.adapters
	s.adapters = nil
	s.adaptersMu.Unlock()
	if m != nil {
		_ = m.Close()
	}
}

// adapterReport is what listings say of the configured adapters, without
// starting any.
type adapterReport struct {
	defs   []*adapters.Definition
	status []adapters.Status
	live   map[string]adapters.LiveState
	kept   map[string]int // deliveries waiting in the outbox
	err    error          // the first invalid definition
}

func (o *Opened) adapterReport(getenv func(string) string) (adapterReport, error) {
	defs, defErr := adapters.FromConfig(o.Config)
	trust, err := adapters.LoadTrust(adapters.TrustPath(getenv))
	if err != nil {
		return adapterReport{}, err
	}
	m := adapters.NewManager(o.managerOptions(getenv, trust))
	m.Configure(defs)
	defer m.Close()
	return adapterReport{defs: defs, status: m.Status(), live: adapters.ReadLive(o.adapterStateDir()), kept: m.Kept(), err: defErr}, nil
}

// adaptersRow is kontext status's line on the adapters ("" when none is
// configured).
func (o *Opened) adaptersRow(getenv func(string) string) string {
	if len(o.Config.Adapters) == 0 {
		return ""
	}
	r, err := o.adapterReport(getenv)
	if err != nil {
		return "not known: " + err.Error()
	}
	var ready, waiting, other []string
	for _, st := range r.status {
		switch st.State {
		case adapters.StateUntrusted:
			waiting = append(waiting, st.Name)
		case adapters.StateConfigured:
			label := st.Name + " (" + string(st.Driver) + ")"
			if l, ok := r.live[st.Name]; ok && l.Hash == defHash(r.defs, st.Name) {
				label = st.Name + " (" + string(l.State) + ")"
			}
			ready = append(ready, label)
		default:
			other = append(other, st.Name+" ("+string(st.State)+")")
		}
	}
	var parts []string
	if len(ready) > 0 {
		parts = append(parts, strings.Join(ready, ", "))
	}
	if len(other) > 0 {
		parts = append(parts, strings.Join(other, ", "))
	}
	if len(waiting) > 0 {
		parts = append(parts, "waiting for trust: "+strings.Join(waiting, ", ")+" (declared in the repository's configuration; kontext trust starts them)")
	}
	if r.err != nil {
		parts = append(parts, "invalid: "+OneParagraph(r.err.Error(), 200))
	}
	return strings.Join(parts, "; ")
}

func defHash(defs []*adapters.Definition, name string) string {
	for _, d := range defs {
		if d.Name == name {
			return d.Hash()
		}
	}
	return ""
}

// AdaptersList prints `kontext adapters list`: every adapter with its
// driver, ops, events and state (configured, disabled, inactive and why,
// waiting for trust, and — as a running kontext mcp of this worktree
// reports — running or failing with the last error).
func AdaptersList(ctx context.Context, dir string, w io.Writer) error {
	svc, o, err := openAt(ctx, dir)
	if err != nil {
		return err
	}
	defer svc.Close()
	r, err := o.adapterReport(svc.Getenv)
	if err != nil {
		return err
	}
	if len(r.status) == 0 && r.err == nil {
		fmt.Fprintln(w, "No adapter is configured ([adapters.<name>] in ~/.config/kontext/config.toml, or the repository's .kontext.toml).")
		return nil
	}
	for _, st := range r.status {
		state := string(st.State)
		reason := st.Reason
		if l, ok := r.live[st.Name]; ok && st.State == adapters.StateConfigured && l.Hash == defHash(r.defs, st.Name) {
			state, reason = string(l.State), l.Reason
			state += fmt.Sprintf(" (kontext pid %d)", l.PID)
		}
		if reason != "" {
			state += ": " + reason
		}
		origin := "user"
		if st.Team {
			origin = "repository"
		}
		fmt.Fprintf(w, "%s — %s, %s configuration — %s\n", st.Name, st.Driver, origin, state)
		if st.Description != "" {
			fmt.Fprintf(w, "    %s\n", st.Description)
		}
		ops := "none"
		if len(st.Ops) > 0 {
			ops = strings.Join(st.Ops, ", ")
		}
		fmt.Fprintf(w, "    ops: %s", ops)
		if len(st.Events) > 0 {
			fmt.Fprintf(w, "; events: %s", strings.Join(st.Events, ", "))
		}
		if n := r.kept[st.Name]; n > 0 {
			fmt.Fprintf(w, "; %d failed %s waiting to be tried again", n, map[bool]string{true: "delivery", false: "deliveries"}[n == 1])
		}
		fmt.Fprintln(w)
	}
	if r.err != nil {
		fmt.Fprintln(w, "invalid: "+r.err.Error())
		return ErrAdapterInvalid
	}
	return nil
}

// ErrAdapterInvalid is returned by AdaptersList when a definition is
// invalid (it is printed already).
var ErrAdapterInvalid = errors.New("an adapter definition is invalid")

// ErrAdapterTest is returned when kontext adapters test failed (the
// message is printed already).
var ErrAdapterTest = errors.New("the adapter test failed")

// AdaptersTest runs `kontext adapters test <name>`: it starts the adapter
// and runs one search (its health op when it has no search) and prints the
// hits or the error.
func AdaptersTest(ctx context.Context, dir, name, query string, limit int, w io.Writer) error {
	svc, _, err := openAt(ctx, dir)
	if err != nil {
		return err
	}
	defer svc.Close()
	m, err := svc.Adapters(ctx)
	if m == nil {
		return err
	}
	var def *adapters.Definition
	for _, d := range m.Definitions() {
		if d.Name == name {
			def = d
		}
	}
	if def == nil {
		if err != nil {
			return err
		}
		_, err := m.Search(ctx, name, query, limit)
		return err
	}
	start := time.Now()
	if def.Ops[adapters.OpSearch] == nil {
		if def.Ops[adapters.OpHealth] == nil {
			fmt.Fprintf(w, "%s declares no search op (ops: %s): nothing to test\n", name, strings.Join(def.OpNames(), ", "))
			return ErrAdapterTest
		}
		text, err := m.CallOp(ctx, name, adapters.OpHealth)
		if err != nil {
			fmt.Fprintf(w, "%s: health failed after %s: %v\n", name, time.Since(start).Round(time.Millisecond), err)
			return ErrAdapterTest
		}
		fmt.Fprintf(w, "%s: health answered in %s:\n%s\n", name, time.Since(start).Round(time.Millisecond), text)
		return nil
	}
	hits, err := m.Search(ctx, name, query, limit)
	took := time.Since(start).Round(time.Millisecond)
	if err != nil {
		fmt.Fprintf(w, "%s: search %q failed after %s: %v\n", name, query, took, err)
		return ErrAdapterTest
	}
	fmt.Fprintf(w, "%s: search %q answered %s in %s\n", name, query, Plural(len(hits), "hit", "hits"), took)
	for i, h := range hits {
		line := fmt.Sprintf("%d. %s", i+1, h.Title)
		if h.Snippet != "" {
			line += " — " + h.Snippet
		}
		var meta []string
		for _, p := range []string{h.Kind, h.Date} {
			if p != "" {
				meta = append(meta, p)
			}
		}
		if len(meta) > 0 {
			line += " [" + strings.Join(meta, " · ") + "]"
		}
		if h.URI != "" {
			line += " <" + h.URI + ">"
		}
		fmt.Fprintln(w, line)
	}
	return nil
}

// TrustMode is what kontext trust does.
type TrustMode int

// The modes of kontext trust.
const (
	TrustPin TrustMode = iota
	TrustList
	TrustRevoke
)

// Trust runs `kontext trust`: it pins the current definitions of the
// adapters the repository's configuration declares (--list shows them and
// their pins, --revoke removes this repository's pins).
func Trust(ctx context.Context, dir string, mode TrustMode, w io.Writer) error {
	svc, o, err := openAt(ctx, dir)
	if err != nil {
		return err
	}
	defer svc.Close()
	defs, defErr := adapters.FromConfig(o.Config)
	path := adapters.TrustPath(svc.Getenv)
	trust, err := adapters.LoadTrust(path)
	if err != nil {
		return err
	}
	root := o.Root.Dir()
	var team []*adapters.Definition
	for _, d := range defs {
		if d.Team {
			team = append(team, d)
		}
	}
	switch mode {
	case TrustRevoke:
		gone := trust.Revoke(root)
		if len(gone) == 0 {
			fmt.Fprintf(w, "No adapter of %s is trusted: nothing to revoke.\n", root)
			return nil
		}
		if err := trust.Save(); err != nil {
			return err
		}
		fmt.Fprintf(w, "Revoked trust in %s for %s (%s).\n", strings.Join(gone, ", "), root, path)
		return nil
	case TrustList:
		pins := trust.Pins(root)
		if len(team) == 0 && len(pins) == 0 {
			fmt.Fprintln(w, "The repository's configuration declares no adapter, and none is trusted here.")
		}
		for _, d := range team {
			state := "waiting for trust"
			switch {
			case trust.Trusted(root, d):
				state = "trusted since " + pins[d.Name].TrustedAt.Local().Format("2006-01-02 15:04")
			case trust.Changed(root, d):
				state = "changed since it was trusted: waiting for trust again"
			}
			fmt.Fprintf(w, "%s — %s — %s (%s)\n", d.Name, d.Driver, state, d.Hash()[:len("sha256:")+12])
		}
		for name := range pins {
			if defHash(team, name) == "" {
				fmt.Fprintf(w, "%s — trusted, but no longer declared\n", name)
			}
		}
		return defErr
	}
	if defErr != nil {
		return fmt.Errorf("nothing trusted: %w", defErr)
	}
	if len(team) == 0 {
		fmt.Fprintln(w, "The repository's configuration declares no adapter: nothing to trust.")
		return nil
	}
	now := time.Now()
	for _, d := range team {
		what := "trusted"
		switch {
		case trust.Trusted(root, d):
			what = "already trusted"
		case trust.Changed(root, d):
			what = "trusted again (its definition changed)"
		}
		trust.Pin(root, d, now)
		fmt.Fprintf(w, "%s — %s — %s\n", d.Name, describeStart(d), what)
	}
	if err := trust.Save(); err != nil {
		return err
	}
	fmt.Fprintf(w, "Pinned in %s; a changed definition needs kontext trust again.\n", path)
	return nil
}

// describeStart says what trusting an adapter lets run, templates
// unexpanded (they may name secrets).
func describeStart(d *adapters.Definition) string {
	switch {
	case d.Driver == adapters.DriverMCP && d.URL != "":
		return "MCP server at " + d.URL
	case d.Driver == adapters.DriverMCP:
		return "starts " + strings.Join(d.Command, " ")
	case d.Driver == adapters.DriverHTTP:
		return "HTTP requests to " + d.BaseURL
	}
	var progs []string
	for _, name := range d.OpNames() {
		if c := d.Ops[name].Command; len(c) > 0 && !containsString(progs, c[0]) {
			progs = append(progs, c[0])
		}
	}
	return "runs " + strings.Join(progs, ", ")
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// EventFields is an entry as the templates of an op subscribed to an event
// see it.
func (o *Opened) EventFields(e *store.Entry) map[string]any {
	list := func(ss []string) []any {
		out := make([]any, len(ss))
		for i, s := range ss {
			out[i] = s
		}
		return out
	}
	return map[string]any{
		"id":         e.ID,
		"kind":       e.Kind,
		"title":      e.Title,
		"status":     e.Status,
		"date":       e.Date,
		"summary":    e.SummaryText(400),
		"tags":       list(e.Tags),
		"paths":      list(e.Paths),
		"body":       e.Body,
		"markdown":   string(store.Marshal(e)),
		"path":       e.Path,
		"visibility": e.Visibility,
		"source":     map[string]any{"repo": o.Config.Identity.ID, "branch": o.State.Branch},
	}
}

// SyncDelivery is what the sync event did for one committed entry.
type SyncDelivery struct {
	Entry      *store.Entry
	Deliveries []adapters.Delivery
	// Again is set when once was asked and every subscriber has this
	// version of the entry already.
	Again bool
}

// DeliverSync delivers the sync event, each entry that rev adds or
// changes relative to base ("": rev's first parent) as committed, to the
// adapters that subscribe to it, and waits for the deliveries (each
// bounded by its adapter's deadline). With once, a subscriber that a sync
// gave this version of an entry already is left out, and what is
// delivered now is recorded (the hooks' runs); a failed delivery is tried
// again by the next sync of that entry.
func (s *Service) DeliverSync(ctx context.Context, base, rev string, once bool) ([]SyncDelivery, error) {
	o, err := s.Open(ctx)
	if err != nil {
		return nil, err
	}
	for _, r := range []*string{&base, &rev} {
		if *r == "" {
			continue
		}
		sha, err := o.Git.ResolveCommit(ctx, *r)
		if err != nil {
			return nil, fmt.Errorf("%q is not a commit of this repository", *r)
		}
		*r = sha
	}
	committed, err := hooks.CommittedEntries(ctx, o.Git, o.Store, base, rev)
	if err != nil {
		return nil, err
	}
	if len(committed) == 0 {
		return nil, nil
	}
	mgr, err := s.Adapters(ctx)
	if mgr == nil {
		return nil, err
	}
	var synced local.Synced
	if once {
		unlock, err := o.State.LockSynced(ctx)
		if err != nil {
			return nil, err
		}
		defer unlock()
		synced = o.State.ReadSynced()
	}
	var out []SyncDelivery
	for _, c := range committed {
		fields := o.EventFields(c.Entry)
		fields["visibility"] = "team" // what a commit holds is the team's
		ev := adapters.Event{Name: adapters.EventSync, Fields: fields}
		key := func(adapter, op string) string { return c.Entry.Path + " " + adapter + "." + op }
		skipped := 0
		if once {
			ev.Skip = func(adapter, op string) bool {
				if synced[key(adapter, op)] == c.Version {
					skipped++
					return true
				}
				return false
			}
		}
		d := SyncDelivery{Entry: c.Entry, Deliveries: mgr.Deliver(ctx, ev)}
		d.Again = skipped > 0 && len(d.Deliveries) == 0
		for _, dl := range d.Deliveries {
			if once && dl.Err == nil {
				synced[key(dl.Adapter, dl.Op)] = c.Version
			}
		}
		out = append(out, d)
	}
	if once {
		if err := o.State.WriteSynced(synced); err != nil {
			return out, err
		}
	}
	return out, nil
}
