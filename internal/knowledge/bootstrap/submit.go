package bootstrap

import (
	"context"
	"fmt"
	"os"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/kontext-dev/kontext/internal/knowledge/local"
	"github.com/kontext-dev/kontext/internal/knowledge/store"
	"github.com/kontext-dev/kontext/internal/secrets"
)

// Submission is what an agent hands in for a task.
type Submission struct {
	TaskID    string
	Summary   string
	Overview  string
	Decisions []DecisionInput
	Learnings []LearningInput
	Skip      bool
	Reason    string
}

// DecisionInput is one decision found in a history cluster.
type DecisionInput struct {
	Title, Decision, Summary, Context, Consequences, Date, Status string
	Paths, Commits, Tags                                          []string
}

// LearningInput is one learning.
type LearningInput struct {
	Title, Body string
	Paths, Tags []string
}

// Submitted says what a submission did to the store's files (paths from
// the top of the work tree, sorted).
type Submitted struct {
	// Created are new files; Rewritten files that held this task's
	// earlier submission, changed in place (same file, id and ADR
	// number); Unchanged files that already held what was submitted.
	Created, Rewritten, Unchanged []string
	// Removed are the task's earlier entries the submission has no
	// counterpart for.
	Removed []string
	// Written is Created and Rewritten, with the index README when it
	// changed: what to review and stage.
	Written []string
	Skipped bool
	// Redacted lists the secrets replaced by [redacted:<rule>].
	Redacted []secrets.Finding
}

// clean redacts every value of a submission as a capture's are (or, with
// capture.redact = false, refuses one that holds a high-severity secret).
func (p *Pipeline) clean(sub *Submission) ([]secrets.Finding, error) {
	scanner, err := secrets.New(p.Config.Secrets.Allow, p.Config.Secrets.Redact)
	if err != nil {
		return nil, err
	}
	r := secrets.NewRedactor(scanner, !p.Config.Capture.Redact)
	sub.Summary, sub.Overview, sub.Reason = r.Text(sub.Summary), r.Text(sub.Overview), r.Text(sub.Reason)
	for i := range sub.Decisions {
		d := &sub.Decisions[i]
		for _, f := range []*string{&d.Title, &d.Decision, &d.Summary, &d.Context, &d.Consequences, &d.Date, &d.Status} {
			*f = r.Text(*f)
		}
		d.Paths, d.Commits, d.Tags = r.List(d.Paths), r.List(d.Commits), r.List(d.Tags)
	}
	for i := range sub.Learnings {
		l := &sub.Learnings[i]
		l.Title, l.Body = r.Text(l.Title), r.Text(l.Body)
		l.Paths, l.Tags = r.List(l.Paths), r.List(l.Tags)
	}
	if refused := r.Refused(); refused != nil {
		return nil, &local.SecretError{Findings: refused}
	}
	return r.Redacted(), nil
}

// Submit writes a task's result: the overview's Purpose, a module doc's
// Overview and summary, and the decisions and learnings of any task
// (replacing the entries the same task wrote before, and nothing else).
// Whatever a submission carries is written or refused with an error that
// says why: a dec: task has no overview or summary to write, a skip
// carries nothing, a reason goes with a skip. A task that ctx_init does
// not know is an error, skipped or not. Progress is recorded in the files
// themselves (deepened, deepened_fingerprint, init_task).
func (p *Pipeline) Submit(ctx context.Context, sub Submission) (*Submitted, error) {
	kind, arg, _ := strings.Cut(sub.TaskID, ":")
	if sub.TaskID != "purpose" && (arg == "" || (kind != "mod" && kind != "dec" && kind != "refresh")) {
		return nil, fmt.Errorf("unknown task %q: use purpose, mod:<module>, dec:<area> or refresh:<module> as ctx_init gives them", sub.TaskID)
	}
	if !p.Store.Exists() {
		return nil, fmt.Errorf("this repository has no knowledge store yet: ctx_init with bootstrap: true (when the user asked for it) sets it up first")
	}
	carries := strings.TrimSpace(sub.Summary) != "" || strings.TrimSpace(sub.Overview) != "" || len(sub.Decisions)+len(sub.Learnings) > 0
	switch {
	case sub.Skip && carries:
		return nil, fmt.Errorf("skip: true would drop what this submission carries (summary, overview, decisions or learnings): submit them without skip, or skip with only a reason")
	case !sub.Skip && strings.TrimSpace(sub.Reason) != "":
		return nil, fmt.Errorf("reason says why a task is skipped: give skip: true with it, or leave it out (nothing else records it)")
	case kind == "dec" && (strings.TrimSpace(sub.Summary) != "" || strings.TrimSpace(sub.Overview) != ""):
		return nil, fmt.Errorf("a dec: task writes decisions and learnings; summary and overview belong to the purpose and mod: tasks, so nothing would keep them: put what they say into a decision's context or a learning")
	}
	redacted, err := p.clean(&sub)
	if err != nil {
		return nil, err
	}
	unlock, err := p.State.Lock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	entries, _ := p.Store.Load()
	done := LoadDone(p.State.Dir)
	if sub.Skip {
		key := sub.TaskID
		m, err := p.knownTask(ctx, kind, arg, sub.TaskID, entries)
		if err != nil {
			return nil, err
		}
		if kind == "refresh" {
			// A skipped refresh stays skipped only for this shape of the module.
			key += "@" + m.Fingerprint
		}
		if err := done.Skip(key, sub.Reason, p.now()); err != nil {
			return nil, err
		}
		return &Submitted{Skipped: true, Redacted: redacted}, nil
	}
	res := &Submitted{Redacted: redacted}
	var defaultPaths []string // what a learning without paths is about
	switch kind {
	case "purpose":
		err = p.submitPurpose(sub, res)
	case "mod", "refresh":
		defaultPaths, err = p.submitModule(ctx, arg, sub, res)
	case "dec":
		if len(sub.Decisions)+len(sub.Learnings) == 0 {
			return nil, fmt.Errorf("a dec: task needs decisions (at most three) or learnings, or skip: true with a reason when the commits hold none")
		}
		err = p.checkDecisionTask(ctx, sub, entries)
	}
	if err == nil {
		err = p.writeTaskEntries(ctx, sub, entries, defaultPaths, res)
	}
	if err != nil {
		return res, err
	}
	res.Redacted = redacted
	done.Unskip(sub.TaskID)
	if entries, err := p.Store.Load(); err == nil {
		if changed, err := p.Store.WriteIndex(entries); err == nil && changed {
			res.Written = append(res.Written, p.Store.Dir()+"/README.md")
		}
	}
	for _, l := range [][]string{res.Created, res.Rewritten, res.Unchanged, res.Removed, res.Written} {
		sort.Strings(l)
	}
	return res, nil
}

// knownTask checks that a task id names a task ctx_init gives (or gave:
// a dec: task with entries). For a module task it returns the module.
func (p *Pipeline) knownTask(ctx context.Context, kind, arg, id string, entries []*store.Entry) (Module, error) {
	switch kind {
	case "purpose":
		rel := path.Join(architectureDir(p.Config, p.Store), "overview.md")
		if _, err := p.Root.ReadFile(rel); err != nil {
			return Module{}, fmt.Errorf("no task purpose: %s is missing (kontext render writes it)", rel)
		}
	case "mod", "refresh":
		m, ok := p.module(ctx, arg)
		if !ok {
			return Module{}, fmt.Errorf("no task %s: no module %q in the repository (ctx_init lists the module tasks)", id, arg)
		}
		return m, nil
	case "dec":
		if err := p.checkDecisionTask(ctx, Submission{TaskID: id}, entries); err != nil {
			return Module{}, err
		}
	}
	return Module{}, nil
}

// record files a written path under what happened to it.
func (res *Submitted) record(rel string, created, changed bool) {
	switch {
	case created:
		res.Created = append(res.Created, rel)
		res.Written = append(res.Written, rel)
	case changed:
		res.Rewritten = append(res.Rewritten, rel)
		res.Written = append(res.Written, rel)
	default:
		res.Unchanged = append(res.Unchanged, rel)
	}
}

// rewrite writes an entry read from the store back, and records whether
// that changed its file.
func (p *Pipeline) rewrite(e *store.Entry, before string, res *Submitted) error {
	if err := p.Store.Rewrite(e); err != nil {
		return err
	}
	res.record(e.Path, false, string(store.Marshal(e)) != before)
	return nil
}

func (p *Pipeline) submitPurpose(sub Submission, res *Submitted) error {
	if strings.TrimSpace(sub.Overview) == "" {
		return fmt.Errorf("the purpose task needs an overview: 5–15 lines of Markdown on what the project is for (or skip: true with a reason)")
	}
	rel := path.Join(architectureDir(p.Config, p.Store), "overview.md")
	e, err := p.readEntry(rel, "architecture")
	if err != nil {
		return fmt.Errorf("%s is missing: run the bootstrap first (ctx_init with bootstrap: true, or kontext render)", rel)
	}
	before := string(store.Marshal(e))
	e.Body = setSection(e.Body, "Purpose", strings.TrimSpace(sub.Overview))
	if s := strings.TrimSpace(sub.Summary); s != "" {
		e.Summary = oneLine(s, 300)
	}
	e.Set(keyDeepened, p.now().Format("2006-01-02"))
	return p.rewrite(e, before, res)
}

// submitModule writes a module doc's Overview and summary, and returns the
// paths the doc governs (what the task's learnings are about unless they
// say).
func (p *Pipeline) submitModule(ctx context.Context, id string, sub Submission, res *Submitted) ([]string, error) {
	if strings.TrimSpace(sub.Overview) == "" && strings.TrimSpace(sub.Summary) == "" {
		return nil, fmt.Errorf("a module task needs an overview (5–15 lines of Markdown) and a summary (one line), or skip: true with a reason")
	}
	m, ok := p.module(ctx, id)
	if !ok {
		return nil, fmt.Errorf("no module %q in the repository (ctx_init lists the module tasks)", id)
	}
	rel := ModuleDocPath(architectureDir(p.Config, p.Store), id)
	e, err := p.readEntry(rel, "architecture")
	if err != nil {
		return nil, fmt.Errorf("%s is missing: kontext render writes the docs of the top modules", rel)
	}
	before := string(store.Marshal(e))
	if o := strings.TrimSpace(sub.Overview); o != "" {
		e.Body = setSection(e.Body, "Overview", o)
	}
	if s := strings.TrimSpace(sub.Summary); s != "" {
		e.Summary = oneLine(s, 300)
	}
	e.Set(keyDeepened, p.now().Format("2006-01-02"))
	e.Set(keyFingerprint, m.Fingerprint)
	return e.Paths, p.rewrite(e, before, res)
}

// checkDecisionTask checks that a dec: task is one ctx_init gives (or
// gave: this task's entries are in the store).
func (p *Pipeline) checkDecisionTask(ctx context.Context, sub Submission, entries []*store.Entry) error {
	known := slices.ContainsFunc(entries, func(e *store.Entry) bool { return e.Get(keyInitTask) == sub.TaskID })
	if !known {
		// Only now the scan and the history: a resubmission needs neither.
		known = p.hasCluster(ctx, strings.TrimPrefix(sub.TaskID, "dec:"))
	}
	if !known {
		return fmt.Errorf("no task %s: the decision tasks are the history clusters ctx_init lists", sub.TaskID)
	}
	return nil
}

// writeTaskEntries writes a submission's decisions and learnings. The
// task's earlier entries, per kind in file order, are rewritten in place —
// the first new decision into the first old one and so on — so their
// files, ids and ADR numbers, which commit trailers and supersedes name,
// stay; what is left over is removed or created.
func (p *Pipeline) writeTaskEntries(ctx context.Context, sub Submission, entries []*store.Entry, defaultPaths []string, res *Submitted) error {
	earlier := map[string][]*store.Entry{}
	for _, e := range entries {
		if e.Get(keyInitTask) == sub.TaskID && (e.Kind == store.KindDecision || e.Kind == store.KindLearning) {
			earlier[e.Kind] = append(earlier[e.Kind], e)
		}
	}
	write := func(fresh *store.Entry) error {
		if olds := earlier[fresh.Kind]; len(olds) > 0 {
			old := olds[0]
			earlier[fresh.Kind] = olds[1:]
			before := string(store.Marshal(old))
			old.Title, old.Status, old.Date, old.Summary = fresh.Title, fresh.Status, fresh.Date, fresh.Summary
			old.Paths, old.Commits, old.Tags, old.Body = fresh.Paths, fresh.Commits, fresh.Tags, fresh.Body
			return p.rewrite(old, before, res)
		}
		r, err := p.Store.Create(fresh)
		if err != nil {
			return err
		}
		res.record(r.Path, true, true)
		for _, w := range r.Written[1:] { // entries it superseded
			res.record(w, false, true)
		}
		return nil
	}
	today := p.now().Format("2006-01-02")
	defaultDate := today
	if strings.HasPrefix(sub.TaskID, "dec:") {
		defaultDate = p.clusterDate(ctx, strings.TrimPrefix(sub.TaskID, "dec:"))
	}
	for _, d := range sub.Decisions {
		if strings.TrimSpace(d.Title) == "" || strings.TrimSpace(d.Decision) == "" {
			return fmt.Errorf("each decision needs a title and the decision")
		}
		e := &store.Entry{
			Kind: "decision", Title: strings.TrimSpace(d.Title), Status: firstNonEmpty(d.Status, "accepted"),
			Date: firstNonEmpty(d.Date, defaultDate), Summary: strings.TrimSpace(d.Summary),
			Paths: d.Paths, Commits: d.Commits, Tags: d.Tags, Origin: "agent",
			Body: decisionBody(d),
		}
		e.Set(keyInitTask, sub.TaskID)
		if err := write(e); err != nil {
			return err
		}
	}
	for _, l := range sub.Learnings {
		if strings.TrimSpace(l.Title) == "" || strings.TrimSpace(l.Body) == "" {
			return fmt.Errorf("each learning needs a title and a body")
		}
		paths := l.Paths
		if len(paths) == 0 {
			paths = defaultPaths
		}
		e := &store.Entry{Kind: "learning", Title: strings.TrimSpace(l.Title), Date: today, Paths: paths, Tags: l.Tags, Origin: "agent", Body: strings.TrimSpace(l.Body)}
		e.Set(keyInitTask, sub.TaskID)
		if err := write(e); err != nil {
			return err
		}
	}
	for _, olds := range earlier {
		for _, e := range olds {
			abs, err := p.Root.Path(e.Path)
			if err != nil {
				return err
			}
			if err := os.Remove(abs); err != nil && !os.IsNotExist(err) {
				return err
			}
			res.Removed = append(res.Removed, e.Path)
		}
	}
	return nil
}

func decisionBody(d DecisionInput) string {
	var b strings.Builder
	if c := strings.TrimSpace(d.Context); c != "" {
		b.WriteString("## Context\n\n" + c + "\n\n")
	}
	b.WriteString("## Decision\n\n" + strings.TrimSpace(d.Decision) + "\n")
	if c := strings.TrimSpace(d.Consequences); c != "" {
		b.WriteString("\n## Consequences\n\n" + c + "\n")
	}
	return b.String()
}

// hasCluster reports whether the history has a cluster by that name.
func (p *Pipeline) hasCluster(ctx context.Context, area string) bool {
	_, h, err := p.inputs(ctx)
	if err != nil {
		return false
	}
	for _, c := range h.Clusters {
		if c.Area == area {
			return true
		}
	}
	return false
}

// clusterDate is the date of a cluster's newest commit (today when the
// cluster is gone).
func (p *Pipeline) clusterDate(ctx context.Context, area string) string {
	head, err := p.Git.Head(ctx)
	if err == nil {
		if h, ok := p.Cache.LoadHistory(head); ok {
			for _, c := range h.Clusters {
				if c.Area == area && len(c.Commits) > 0 {
					return c.Commits[0].Date
				}
			}
		}
	}
	return p.now().Format("2006-01-02")
}

func (p *Pipeline) module(ctx context.Context, id string) (Module, bool) {
	s, err := ScanRepository(ctx, p.Engine, p.Root, p.storeDirs())
	if err != nil {
		return Module{}, false
	}
	for _, m := range s.Modules {
		if m.ID == id {
			return m, true
		}
	}
	return Module{}, false
}

func (p *Pipeline) readEntry(rel, kind string) (*store.Entry, error) {
	data, err := p.Root.ReadFile(rel)
	if err != nil {
		return nil, err
	}
	return store.Parse(rel, data, kind), nil
}

// setSection replaces the text of a "## <heading>" section (up to the next
// heading or the facts marker), or adds the section before the facts.
func setSection(body, heading, text string) string {
	lines := strings.Split(body, "\n")
	start := -1
	for i, l := range lines {
		if strings.TrimSpace(l) == "## "+heading {
			start = i
			break
		}
	}
	if start < 0 {
		section := "## " + heading + "\n\n" + text + "\n\n"
		if i := strings.Index(body, "<!-- kontext:facts:start"); i >= 0 {
			return body[:i] + section + body[i:]
		}
		return strings.TrimRight(body, "\n") + "\n\n" + section
	}
	end := len(lines)
	for i := start + 1; i < len(lines); i++ {
		if strings.HasPrefix(lines[i], "## ") || strings.HasPrefix(lines[i], "# ") || strings.HasPrefix(lines[i], "<!-- kontext:facts:start") {
			end = i
			break
		}
	}
	out := append([]string{}, lines[:start+1]...)
	out = append(out, "", text, "")
	out = append(out, lines[end:]...)
	return strings.Join(out, "\n")
}
