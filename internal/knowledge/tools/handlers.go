// Package tools serves the knowledge toolset: the tools, prompts and
// resources of gen/toolsets/knowledge over the Service of internal/knowledge
// (the store, the inbox, the search index), worded for an agent or, through
// the CLI, for a person (knowledge.Voice).
package tools

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"sync"

	spec "github.com/kontext-dev/kontext/gen/toolsets/knowledge"
	"github.com/kontext-dev/kontext/internal/knowledge"
	"github.com/kontext-dev/kontext/internal/knowledge/adapters"
	"github.com/kontext-dev/kontext/internal/knowledge/local"
	"github.com/kontext-dev/kontext/internal/knowledge/store"
	"github.com/kontext-dev/kontext/internal/mcp"
	"github.com/kontext-dev/kontext/internal/secrets"
)

// Handlers answer the knowledge toolset's tools, prompts and resources.
type Handlers struct {
	svc *knowledge.Service

	mu        sync.Mutex
	server    *mcp.Server
	published *adapters.Publisher
	stopRetry context.CancelFunc // of the outbox's retries on serving
	closed    bool

	events sync.WaitGroup // adapter deliveries under way
}

var _ spec.Handlers = (*Handlers)(nil)

// New serves the knowledge of svc.
func New(svc *knowledge.Service) *Handlers { return &Handlers{svc: svc} }

// Toolset is the knowledge toolset served by h.
func (h *Handlers) Toolset() *mcp.Toolset { return spec.Toolset(h) }

// Attach gives the handlers the server they announce changes on: a
// capture or promotion changes the entry resources and the brief.
func (h *Handlers) Attach(s *mcp.Server) {
	h.mu.Lock()
	h.server = s
	h.mu.Unlock()
}

// Serve publishes the adapters' tools on s (the toolset's OnServe: kontext
// mcp serves it): in the background, so that the tool list changes once
// per adapter when it is ready and never as a side effect of a request.
func (h *Handlers) Serve(s *mcp.Server) {
	go func() {
		m, err := h.svc.Adapters(context.Background())
		if m == nil {
			if err != nil {
				slog.Default().Warn("adapter tools not published", "error", err)
			}
			return
		}
		h.mu.Lock()
		if h.closed || h.published != nil {
			h.mu.Unlock()
			return
		}
		h.published = m.Publish(s, spec.Name)
		// The deliveries an earlier run left in the outbox, once; Close
		// cuts the retries short.
		ctx, cancel := context.WithCancel(context.Background())
		h.stopRetry = cancel
		h.events.Add(1)
		h.mu.Unlock()
		defer h.events.Done()
		defer cancel()
		m.RetryKept(ctx)
	}()
}

// Close stops publishing the adapters' tools and waits for the event
// deliveries under way (each bounded by its adapter's deadline), so that
// a server that shuts down does not cut them off.
func (h *Handlers) Close() {
	h.mu.Lock()
	h.closed = true
	p, stop := h.published, h.stopRetry
	h.mu.Unlock()
	if stop != nil {
		stop()
	}
	if p != nil {
		p.Close()
	}
	h.WaitEvents()
}

func (h *Handlers) changed() {
	h.mu.Lock()
	s := h.server
	h.mu.Unlock()
	if s != nil {
		s.ResourcesChanged()
		s.ResourceUpdated("kontext://brief")
	}
}

// failure turns the store's and the inbox's typed errors into messages that
// tell the reader what to do next, in their terms.
func failure(err error, v knowledge.Voice) error {
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		var each []error
		for _, e := range joined.Unwrap() {
			each = append(each, failure(e, v))
		}
		return errors.Join(each...)
	}
	var noStore *local.NoStoreError
	var noCandidate *local.NotFoundError
	var private *local.PrivateError
	var secret *local.SecretError
	var unknownKind *store.UnknownKindError
	var notFound *store.NotFoundError
	var ambiguous *store.AmbiguousError
	switch {
	case errors.As(err, &noStore):
		if v.Shell {
			return fmt.Errorf("this repository has no knowledge store (%s/) yet, so only private captures are kept and nothing can be promoted: capture with --visibility private, or set kontext up (kontext init)", noStore.StoreDir)
		}
		return fmt.Errorf("this repository has no knowledge store (%s/) yet, so only visibility: private captures are accepted and nothing can be promoted. Capture with visibility \"private\", or ask the user whether to set kontext up", noStore.StoreDir)
	case errors.As(err, &noCandidate):
		return fmt.Errorf("no inbox candidate %q (%s lists them)", noCandidate.ID, v.Tool("ctx_inbox"))
	case errors.As(err, &private):
		return fmt.Errorf("%s is private: it stays in this clone's inbox and is never promoted into the team's store", private.ID)
	case errors.As(err, &secret):
		var rules []string
		for _, f := range secret.Findings {
			rules = append(rules, fmt.Sprintf("%s (line %d)", f.Rule, f.Line))
		}
		return fmt.Errorf("refused: the capture contains what looks like a secret (%s). Remove it, or mark a false positive with kontext:allow-secret on that line", strings.Join(rules, ", "))
	case errors.As(err, &unknownKind):
		return fmt.Errorf("unknown kind %q: use one of %s (aliases such as adr, rule, pitfall, postmortem are accepted)", unknownKind.Kind, strings.Join(unknownKind.Known, ", "))
	case errors.As(err, &ambiguous), errors.As(err, &notFound):
		return err
	}
	return err
}

func (h *Handlers) CtxCapture(ctx context.Context, in *spec.CtxCaptureInput) (*mcp.ToolResult, error) {
	v := knowledge.VoiceOf(ctx)
	o, err := h.svc.Open(ctx)
	if err != nil {
		return nil, err
	}
	// A person who ran kontext capture wrote it; an agent otherwise.
	origin := "agent"
	if v.Shell {
		origin = "human"
	}
	c := local.Capture{
		Kind:       in.Kind,
		Title:      in.Title,
		Body:       in.Body,
		Paths:      in.Paths,
		Tags:       in.Tags,
		Supersedes: in.Supersedes,
		Origin:     origin,
		Promote:    in.Promote,
	}
	if in.Summary != nil {
		c.Summary = *in.Summary
	}
	if in.Visibility != nil {
		c.Visibility = string(*in.Visibility)
	}
	if in.Status != nil {
		c.Status = string(*in.Status)
	}
	got, err := o.State.Capture(ctx, c)
	if err != nil {
		return nil, failure(err, v)
	}
	h.changed()
	var b strings.Builder
	e := got.Entry
	if got.Promoted {
		h.deliver(ctx, o, adapters.EventPromote, e)
	} else {
		h.deliver(ctx, o, adapters.EventCapture, e)
	}
	if got.Promoted {
		fmt.Fprintf(&b, "Written into the store as kx:%s (%s). It is not staged: %s stages it with the change.\n", e.ID, got.Result.Path, v.Tool("ctx_prepare_commit"))
		for _, old := range got.Result.Superseded {
			fmt.Fprintf(&b, "Marked kx:%s superseded.\n", old.ID)
		}
		for _, m := range got.Result.Missing {
			fmt.Fprintf(&b, "No entry matches supersedes %q: nothing was marked.\n", m)
		}
	} else {
		vis := e.Visibility
		fmt.Fprintf(&b, "Captured to the inbox as inbox:%s (%s %s, %s).\n", e.ID, vis, e.Kind, e.Title)
		if vis == local.Private {
			b.WriteString("It stays in this clone: private captures are never promoted into the team's store.\n")
		} else {
			fmt.Fprintf(&b, "Before committing, %s writes it into the store and stages it.\n", v.Call("ctx_prepare_commit", "promote", []string{e.ID}))
		}
	}
	if len(got.Redacted) > 0 {
		b.WriteString(redactedLine(got.Redacted))
	}
	return mcp.TextResult(strings.TrimRight(b.String(), "\n")), nil
}

// promotedEntries are the store entries promotions wrote.
func promotedEntries(done []local.Promotion) []*store.Entry {
	var out []*store.Entry
	for _, p := range done {
		out = append(out, p.Entry)
	}
	return out
}

// redactedLine says which secrets a write replaced.
func redactedLine(fs []secrets.Finding) string {
	var rules []string
	for _, f := range fs {
		rules = append(rules, f.Rule)
	}
	return fmt.Sprintf("Redacted %d secret(s) as [redacted:<rule>]: %s.\n", len(fs), strings.Join(dedupe(rules), ", "))
}

func (h *Handlers) CtxInbox(ctx context.Context, in *spec.CtxInboxInput) (*mcp.ToolResult, error) {
	v := knowledge.VoiceOf(ctx)
	o, err := h.svc.Open(ctx)
	if err != nil {
		return nil, err
	}
	switch in.Action {
	case spec.CtxInboxInputActionShow:
		if len(in.Ids) == 0 {
			return nil, fmt.Errorf("show needs ids: the inbox ids to show (%s lists them)", v.Tool("ctx_inbox"))
		}
		var parts []string
		for _, id := range in.Ids {
			c, err := o.State.Show(ctx, id)
			if err != nil {
				return nil, failure(err, v)
			}
			parts = append(parts, candidateText(c, true))
		}
		return mcp.TextResult(strings.Join(parts, "\n\n---\n\n")), nil
	case spec.CtxInboxInputActionPromote:
		if len(in.Ids) == 0 {
			return nil, errors.New("promote needs ids: the inbox ids to write into the store")
		}
		done, err := o.State.Promote(ctx, in.Ids...)
		if len(done) > 0 {
			h.changed()
		}
		h.deliver(ctx, o, adapters.EventPromote, promotedEntries(done)...)
		var b strings.Builder
		for _, p := range done {
			fmt.Fprintf(&b, "Promoted inbox:%s to kx:%s (%s).\n", p.ID, p.Entry.ID, p.Entry.Path)
		}
		if len(done) > 0 {
			fmt.Fprintf(&b, "Not staged yet: %s stages the knowledge with the change.\n", v.Tool("ctx_prepare_commit"))
		}
		if err != nil {
			fmt.Fprintf(&b, "Not promoted: %v\n", failure(err, v))
			return &mcp.ToolResult{Content: mcp.TextResult(strings.TrimSpace(b.String())).Content, IsError: len(done) == 0}, nil
		}
		return mcp.TextResult(strings.TrimSpace(b.String())), nil
	case spec.CtxInboxInputActionDrop:
		if len(in.Ids) == 0 {
			return nil, errors.New("drop needs ids: the inbox ids to discard")
		}
		dropped, err := o.State.Drop(ctx, in.Ids...)
		if len(dropped) > 0 {
			h.changed()
		}
		msg := fmt.Sprintf("Dropped %d candidate(s): %s.", len(dropped), strings.Join(dropped, ", "))
		if err != nil {
			return nil, fmt.Errorf("%s Not dropped: %v", msg, failure(err, v))
		}
		return mcp.TextResult(msg), nil
	}
	cands, err := o.State.List(ctx)
	if err != nil {
		return nil, err
	}
	if len(cands) == 0 {
		return mcp.TextResult(fmt.Sprintf("The inbox is empty. Capture with %s.", v.Tool("ctx_capture"))), nil
	}
	return mcp.TextResult(inboxList(cands)), nil
}

// inboxList renders the inbox, this worktree's candidates first.
func inboxList(cands []*local.Candidate) string {
	var here, elsewhere []*local.Candidate
	for _, c := range cands {
		if c.Here {
			here = append(here, c)
		} else {
			elsewhere = append(elsewhere, c)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Inbox: %d candidate(s).\n", len(cands))
	for _, c := range here {
		b.WriteString(candidateText(c, false) + "\n")
	}
	if len(elsewhere) > 0 {
		b.WriteString("\nFrom other worktrees:\n")
		for _, c := range elsewhere {
			b.WriteString(candidateText(c, false) + "\n")
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

func candidateText(c *local.Candidate, full bool) string {
	where := c.Branch
	if where == "" {
		where = c.Worktree
	}
	if c.Gone {
		where += ", worktree gone"
	}
	line := fmt.Sprintf("- inbox:%s [%s · %s · %s · %s] %s", c.ID, c.Kind, c.Visibility, c.Captured.Format("2006-01-02"), where, c.Title)
	if len(c.Paths) > 0 {
		line += " — paths: " + strings.Join(c.Paths, ", ")
	}
	if !full {
		if s := c.SummaryText(160); s != "" {
			line += "\n  " + s
		}
		return line
	}
	return line + "\n\n" + strings.TrimSpace(c.Body)
}

func (h *Handlers) CtxLog(ctx context.Context, in *spec.CtxLogInput) (*mcp.ToolResult, error) {
	o, err := h.svc.Open(ctx)
	if err != nil {
		return nil, err
	}
	known := func(k string) bool { _, ok := o.Config.Kind(k); return ok }
	kind, _, ok := store.NormalizeKind(in.Kind, known)
	if !ok {
		return nil, failure(&store.UnknownKindError{Kind: in.Kind, Known: kindNames(o)}, knowledge.VoiceOf(ctx))
	}
	entries, err := o.Entries()
	if err != nil && len(entries) == 0 {
		return nil, err
	}
	var list []*store.Entry
	hidden := 0
	for _, e := range entries {
		if e.Kind != kind {
			continue
		}
		if !in.All && !e.IsActive() {
			hidden++
			continue
		}
		list = append(list, e)
	}
	sort.SliceStable(list, func(i, j int) bool {
		if list[i].Date != list[j].Date {
			return list[i].Date > list[j].Date
		}
		return list[i].ID > list[j].ID
	})
	if len(list) == 0 {
		msg := fmt.Sprintf("No %s entries.", kind)
		if hidden > 0 {
			msg = fmt.Sprintf("No active %s entries (%d superseded or rejected: all: true lists them).", kind, hidden)
		}
		return mcp.TextResult(msg), nil
	}
	introduced := introducingCommits(ctx, o, list)
	var b strings.Builder
	shown := 0
	for _, e := range list {
		if shown == in.Limit {
			break
		}
		shown++
		date := e.Date
		if date == "" {
			date = "----------"
		}
		status := e.Status
		if status == "" {
			status = "no status"
		}
		if e.Status == store.StatusSuperseded && e.StatusNote != "" {
			status += " in part: " + e.StatusNote // "Partly superseded by 0015"
		}
		fmt.Fprintf(&b, "%s  %s  %s  [%s]", date, e.ID, e.Title, status)
		if len(e.Supersedes) > 0 {
			fmt.Fprintf(&b, "  supersedes %s", strings.Join(e.Supersedes, ", "))
		}
		if len(e.SupersededBy) > 0 {
			fmt.Fprintf(&b, "  superseded by %s", strings.Join(e.SupersededBy, ", "))
		}
		if sha := introduced[e.Path]; sha != "" {
			fmt.Fprintf(&b, "  (introduced in %s)", sha)
		} else {
			b.WriteString("  (not committed yet)")
		}
		b.WriteByte('\n')
	}
	if rest := len(list) - shown; rest > 0 {
		fmt.Fprintf(&b, "(+%d more — raise limit)\n", rest)
	}
	if hidden > 0 && !in.All {
		fmt.Fprintf(&b, "(%d superseded, deprecated or rejected not shown — all: true)\n", hidden)
	}
	return mcp.TextResult(strings.TrimRight(b.String(), "\n")), nil
}

// introducingCommits maps each entry's file to the commit that added it,
// renames followed (short shas).
func introducingCommits(ctx context.Context, o *knowledge.Opened, entries []*store.Entry) map[string]string {
	out := map[string]string{}
	for p, in := range introductions(ctx, o.Git, o.StoreDirs()) {
		out[p] = short(in.SHA)
	}
	return out
}

func kindNames(o *knowledge.Opened) []string {
	var names []string
	for _, k := range o.Config.Kinds() {
		names = append(names, k.Name)
	}
	return names
}

func dedupe(list []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range list {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
