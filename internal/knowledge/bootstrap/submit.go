package bootstrap

import (
	"context"
	"fmt"
	"os"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/kontext-dev/kontext/internal/knowledge/store"
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

// Submitted says what a submission wrote.
type Submitted struct {
	Written []string
	Removed []string
	Skipped bool
}

// Submit writes a task's result: the overview's Purpose, a module doc's
// Overview, or the entries of a dec: task (replacing the entries the same
// task wrote before, and nothing else). Progress is recorded in the files
// themselves (deepened, deepened_fingerprint, init_task).
func (p *Pipeline) Submit(ctx context.Context, sub Submission) (*Submitted, error) {
	kind, arg, _ := strings.Cut(sub.TaskID, ":")
	if sub.TaskID != "purpose" && (arg == "" || (kind != "mod" && kind != "dec" && kind != "refresh")) {
		return nil, fmt.Errorf("unknown task %q: use purpose, mod:<module>, dec:<area> or refresh:<module> as ctx_init gives them", sub.TaskID)
	}
	if !p.Store.Exists() {
		return nil, fmt.Errorf("this repository has no knowledge store yet: ctx_init with bootstrap: true (when the user asked for it) sets it up first")
	}
	unlock, err := p.State.Lock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	done := LoadDone(p.State.Dir)
	if sub.Skip {
		key := sub.TaskID
		if kind == "refresh" {
			// A skipped refresh stays skipped only for this shape of the module.
			if m, ok := p.module(ctx, arg); ok {
				key += "@" + m.Fingerprint
			}
		}
		if err := done.Skip(key, sub.Reason, p.now()); err != nil {
			return nil, err
		}
		return &Submitted{Skipped: true}, nil
	}
	var res *Submitted
	switch kind {
	case "purpose":
		res, err = p.submitPurpose(sub)
	case "mod", "refresh":
		res, err = p.submitModule(ctx, arg, sub)
	case "dec":
		res, err = p.submitDecisions(ctx, sub)
	}
	if err != nil {
		return res, err
	}
	done.Unskip(sub.TaskID)
	if entries, err := p.Store.Load(); err == nil {
		if changed, err := p.Store.WriteIndex(entries); err == nil && changed {
			res.Written = append(res.Written, p.Store.Dir()+"/README.md")
		}
	}
	return res, nil
}

func (p *Pipeline) submitPurpose(sub Submission) (*Submitted, error) {
	if strings.TrimSpace(sub.Overview) == "" {
		return nil, fmt.Errorf("the purpose task needs an overview: 5–15 lines of Markdown on what the project is for (or skip: true with a reason)")
	}
	rel := path.Join(architectureDir(p.Config, p.Store), "overview.md")
	e, err := p.readEntry(rel, "architecture")
	if err != nil {
		return nil, fmt.Errorf("%s is missing: run the bootstrap first (ctx_init with bootstrap: true, or kontext render)", rel)
	}
	e.Body = setSection(e.Body, "Purpose", strings.TrimSpace(sub.Overview))
	if s := strings.TrimSpace(sub.Summary); s != "" {
		e.Summary = oneLine(s, 300)
	}
	e.Set(keyDeepened, p.now().Format("2006-01-02"))
	if err := p.Store.Rewrite(e); err != nil {
		return nil, err
	}
	return &Submitted{Written: []string{rel}}, nil
}

func (p *Pipeline) submitModule(ctx context.Context, id string, sub Submission) (*Submitted, error) {
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
	if o := strings.TrimSpace(sub.Overview); o != "" {
		e.Body = setSection(e.Body, "Overview", o)
	}
	if s := strings.TrimSpace(sub.Summary); s != "" {
		e.Summary = oneLine(s, 300)
	}
	e.Set(keyDeepened, p.now().Format("2006-01-02"))
	e.Set(keyFingerprint, m.Fingerprint)
	if err := p.Store.Rewrite(e); err != nil {
		return nil, err
	}
	return &Submitted{Written: []string{rel}}, nil
}

func (p *Pipeline) submitDecisions(ctx context.Context, sub Submission) (*Submitted, error) {
	if len(sub.Decisions)+len(sub.Learnings) == 0 {
		return nil, fmt.Errorf("a dec: task needs decisions (at most three) or learnings, or skip: true with a reason when the commits hold none")
	}
	res := &Submitted{}
	// Resubmitting replaces this task's own earlier entries, nothing else.
	entries, _ := p.Store.Load()
	known := slices.ContainsFunc(entries, func(e *store.Entry) bool { return e.Get(keyInitTask) == sub.TaskID })
	if !known {
		// Only now the scan and the history: a resubmission needs neither.
		known = p.hasCluster(ctx, strings.TrimPrefix(sub.TaskID, "dec:"))
	}
	if !known {
		return nil, fmt.Errorf("no task %s: the decision tasks are the history clusters ctx_init lists", sub.TaskID)
	}
	// The task's earlier entries, per kind in file order: a resubmission
	// rewrites them in place, the first new decision into the first old
	// one and so on, so their files, ids and ADR numbers — which commit
	// trailers and supersedes name — stay; what is left over is removed
	// or created.
	earlier := map[string][]*store.Entry{}
	for _, e := range entries {
		if e.Get(keyInitTask) == sub.TaskID {
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
			if err := p.Store.Rewrite(old); err != nil {
				return err
			}
			if string(store.Marshal(old)) != before {
				res.Written = append(res.Written, old.Path)
			}
			return nil
		}
		r, err := p.Store.Create(fresh)
		if err != nil {
			return err
		}
		res.Written = append(res.Written, r.Written...)
		return nil
	}
	defaultDate := p.clusterDate(ctx, strings.TrimPrefix(sub.TaskID, "dec:"))
	for _, d := range sub.Decisions {
		if strings.TrimSpace(d.Title) == "" || strings.TrimSpace(d.Decision) == "" {
			return res, fmt.Errorf("each decision needs a title and the decision")
		}
		e := &store.Entry{
			Kind: "decision", Title: strings.TrimSpace(d.Title), Status: firstNonEmpty(d.Status, "accepted"),
			Date: firstNonEmpty(d.Date, defaultDate), Summary: strings.TrimSpace(d.Summary),
			Paths: d.Paths, Commits: d.Commits, Tags: d.Tags, Origin: "agent",
			Body: decisionBody(d),
		}
		e.Set(keyInitTask, sub.TaskID)
		if err := write(e); err != nil {
			return res, err
		}
	}
	for _, l := range sub.Learnings {
		if strings.TrimSpace(l.Title) == "" || strings.TrimSpace(l.Body) == "" {
			return res, fmt.Errorf("each learning needs a title and a body")
		}
		e := &store.Entry{Kind: "learning", Title: strings.TrimSpace(l.Title), Date: p.now().Format("2006-01-02"), Paths: l.Paths, Tags: l.Tags, Origin: "agent", Body: strings.TrimSpace(l.Body)}
		e.Set(keyInitTask, sub.TaskID)
		if err := write(e); err != nil {
			return res, err
		}
	}
	for _, olds := range earlier {
		for _, e := range olds {
			abs, err := p.Root.Path(e.Path)
			if err != nil {
				return res, err
			}
			if err := os.Remove(abs); err != nil && !os.IsNotExist(err) {
				return res, err
			}
			res.Removed = append(res.Removed, e.Path)
		}
	}
	sort.Strings(res.Removed)
	sort.Strings(res.Written)
	return res, nil
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
