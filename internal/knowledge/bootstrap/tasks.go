package bootstrap

import (
	"context"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/kontext-dev/kontext/internal/knowledge/store"
	"github.com/kontext-dev/kontext/internal/lazyregexp"
	"github.com/kontext-dev/kontext/internal/secrets"
	"github.com/kontext-dev/kontext/internal/textclip"
)

// Task is one piece of bootstrap work for an agent.
type Task struct {
	ID    string // purpose, mod:<module>, dec:<area>, refresh:<module>
	Title string
	Why   string
	Read  []string // files to read, most telling first
	Known []string // what kontext already knows
	// Commits are the history cluster of a dec: task.
	Commits []Candidate
	Submit  string // what ctx_init_submit expects
}

// Front-matter keys the bootstrap keeps its progress in (committed with
// the docs, so every clone agrees on what is done).
const (
	keyDeepened    = "deepened"
	keyFingerprint = "deepened_fingerprint"
	keyInitTask    = "init_task"
)

// topFirst is how many module tasks come before the decision clusters.
const topFirst = 8

// Progress counts done and pending tasks.
type Progress struct {
	Done, Pending int
}

// Tasks returns the pending tasks in the original's order: purpose, the
// top modules, the decision clusters, the other modules, then refreshes.
func (p *Pipeline) Tasks(ctx context.Context) ([]Task, Progress, error) {
	s, h, err := p.inputs(ctx)
	if err != nil {
		return nil, Progress{}, err
	}
	entries, _ := p.Store.Load()
	done := LoadDone(p.State.Dir)
	byPath := map[string]*store.Entry{}
	byTask := map[string]bool{}
	for _, e := range entries {
		byPath[e.Path] = e
		if t := e.Get(keyInitTask); t != "" {
			byTask[t] = true
		}
	}
	archDir := architectureDir(p.Config, p.Store)
	var prog Progress
	var first, decisions, rest, refresh []Task
	settled := func(id string) bool { _, skipped := done.Tasks[id]; return skipped }

	if ov := byPath[path.Join(archDir, "overview.md")]; ov != nil {
		if ov.Get(keyDeepened) != "" || settled("purpose") {
			prog.Done++
		} else {
			first = append(first, p.purposeTask(s))
		}
	}
	for i, m := range TopModules(s, p.Config.Init.MaxModuleDocs) {
		doc := byPath[ModuleDocPath(archDir, m.ID)]
		if doc == nil {
			continue // not rendered yet
		}
		id := "mod:" + m.ID
		switch {
		case settled(id):
			prog.Done++
		case doc.Get(keyDeepened) == "":
			t := p.moduleTask(s, m, id, false)
			if i < topFirst {
				first = append(first, t)
			} else {
				rest = append(rest, t)
			}
		case doc.Get(keyFingerprint) != m.Fingerprint && !settled("refresh:"+m.ID+"@"+m.Fingerprint):
			prog.Done++
			refresh = append(refresh, p.moduleTask(s, m, "refresh:"+m.ID, true))
		default:
			prog.Done++
		}
	}
	for _, c := range h.Clusters {
		id := "dec:" + c.Area
		if byTask[id] || settled(id) {
			prog.Done++
			continue
		}
		decisions = append(decisions, p.decisionTask(c, id, entries))
	}
	tasks := append(append(append(first, decisions...), rest...), refresh...)
	prog.Pending = len(tasks)
	return tasks, prog, nil
}

func (p *Pipeline) purposeTask(s *Scan) Task {
	t := Task{
		ID:    "purpose",
		Title: "Say what " + s.Project + " is for",
		Why:   "Every brief opens with the project's purpose; the code alone does not say it.",
	}
	for _, f := range []string{"README.md", "readme.md", "docs/README.md", "CONTRIBUTING.md"} {
		if p.exists(f) {
			t.Read = append(t.Read, f)
		}
	}
	for _, m := range s.Manifests {
		if path.Dir(m.Path) == "." {
			t.Read = append(t.Read, m.Path)
		}
	}
	t.Read = append(t.Read, s.AgentFiles...)
	if len(s.Stack) > 0 {
		t.Known = append(t.Known, "Stack: "+strings.Join(s.Stack, ", "))
	}
	if s.Description != "" {
		t.Known = append(t.Known, "Manifest description: "+oneLine(s.Description, 200))
	}
	var mods []string
	for _, m := range TopModules(s, 12) {
		mods = append(mods, m.ID)
	}
	if len(mods) > 0 {
		t.Known = append(t.Known, "Main modules: "+strings.Join(mods, ", "))
	}
	t.Submit = `ctx_init_submit {"task_id": "purpose", "summary": "<one line: what the project is and who it serves>", "overview": "<5–15 lines of Markdown: the problem it solves, its users, its main parts and how they fit>"}`
	return t
}

func (p *Pipeline) moduleTask(s *Scan, m Module, id string, refresh bool) Task {
	t := Task{ID: id, Title: "Describe the module " + m.ID}
	if refresh {
		t.Title = "Refresh the description of " + m.ID
		t.Why = "The module's files, exports or dependencies changed since its doc was written."
	} else {
		t.Why = "Agents read module docs before changing code; this one has only generated facts."
	}
	max := p.Config.Init.TaskMaxFiles
	for i, f := range m.KeyFiles {
		if i == max {
			break
		}
		t.Read = append(t.Read, f)
	}
	t.Known = append(t.Known, fmt.Sprintf("%d files, %d lines, %s", m.Files, m.Lines, firstNonEmpty(m.Language, "mixed languages")))
	if m.Description != "" {
		t.Known = append(t.Known, "Description: "+oneLine(m.Description, 200))
	}
	if m.Role != "" {
		t.Known = append(t.Known, "Role (heuristic): "+m.Role)
	}
	if len(m.DependsOn) > 0 {
		var deps []string
		for _, e := range m.DependsOn {
			deps = append(deps, e.To)
		}
		t.Known = append(t.Known, "Depends on: "+strings.Join(deps, ", "))
	}
	if len(m.UsedBy) > 0 {
		t.Known = append(t.Known, "Used by: "+strings.Join(m.UsedBy, ", "))
	}
	if len(m.External) > 0 {
		t.Known = append(t.Known, "External: "+strings.Join(limit(m.External, 12), ", "))
	}
	if len(m.Symbols) > 0 {
		t.Known = append(t.Known, "Exports: "+strings.Join(limit(m.Symbols, 20), ", "))
	}
	t.Submit = fmt.Sprintf(`ctx_init_submit {"task_id": %q, "summary": "<one line: what the module does>", "overview": "<5–15 lines of Markdown: its job, how it is organised, how it talks to the other modules, what to watch out for>"}`, id)
	return t
}

func (p *Pipeline) decisionTask(c Cluster, id string, entries []*store.Entry) Task {
	t := Task{
		ID:      id,
		Title:   "Find the decisions in the history of " + c.Module,
		Why:     "These commits read like decisions (their wording, dependency swaps, breaking changes); the store does not record them yet.",
		Commits: c.Commits,
	}
	switch {
	case c.Scope != "":
		t.Title = "Find the decisions in the commits scoped " + c.Scope
	case c.Module == ".":
		t.Title = "Find the decisions in the history of the repository's root"
	}
	seen := map[string]bool{}
	for _, cm := range c.Commits {
		for _, f := range cm.Files {
			// The history names files as they are at HEAD; the work tree
			// may have moved on since.
			if !seen[f] && len(t.Read) < 8 && p.exists(f) {
				seen[f] = true
				t.Read = append(t.Read, f)
			}
		}
	}
	covers := coverage(c, entries)
	covered := map[string]bool{}
	for _, cv := range covers {
		t.Known = append(t.Known, cv.String(len(c.Commits)))
		for _, sha := range cv.commits {
			covered[sha] = true
		}
	}
	switch {
	case len(covers) > 0 && len(covered) == len(c.Commits):
		t.Why = "These commits read like decisions, and the decisions above already record every one of them: skip this task unless they leave something out."
	case len(covers) > 0:
		t.Why = "These commits read like decisions (their wording, dependency swaps, breaking changes); the decisions above record some of them: write only what they leave out."
	}
	t.Submit = fmt.Sprintf(`ctx_init_submit {"task_id": %q, "decisions": [{"title": "<the decision as a statement>", "decision": "<what was decided>", "context": "<why>", "consequences": "<what follows>", "paths": "<globs it governs>", "commits": "<shas>", "date": "YYYY-MM-DD"}]} — at most three, only what still holds and matters; or "skip": true with a "reason"`, id)
	return t
}

// covered is a recorded decision that covers commits of a cluster.
type covered struct {
	entry   *store.Entry
	commits []string // the shas it covers
	how     []string // how it was told, one per way
}

func (cv covered) String(of int) string {
	title := cv.entry.Title
	status := cv.entry.Status
	if status == "" {
		status = "no status"
	}
	return fmt.Sprintf("Recorded already: kx:%s %q [%s] covers %d of these %d commits (%s)", cv.entry.ID, title, status, len(cv.commits), of, strings.Join(cv.how, "; "))
}

// coverage finds the decisions of the store that already record a
// cluster's commits: one that names the commit, one the commit wrote, one
// the commit cites by number or id, one that names the dependency a swap
// brought in.
func coverage(c Cluster, entries []*store.Entry) []covered {
	var out []covered
	for _, e := range entries {
		if e.Kind != store.KindDecision {
			continue
		}
		cv := covered{entry: e}
		ways := map[string][]string{}
		for _, cm := range c.Commits {
			var why string
			switch {
			case namesCommit(e, cm.SHA):
				why = "names"
			case slices.Contains(cm.Files, e.Path):
				why = "written by"
			case citesEntry(cm, e):
				why = "cited by"
			default:
				for _, dep := range cm.Added {
					if mentions(e.Title+"\n"+e.Body, dep) {
						why = "records the swap to " + dep + " in"
						break
					}
				}
			}
			if why != "" {
				cv.commits = append(cv.commits, cm.SHA)
				ways[why] = append(ways[why], short(cm.SHA))
			}
		}
		if len(cv.commits) == 0 {
			continue
		}
		for _, why := range sortedKeys(ways) {
			cv.how = append(cv.how, why+" "+strings.Join(ways[why], ", "))
		}
		out = append(out, cv)
	}
	sort.SliceStable(out, func(i, j int) bool { return len(out[i].commits) > len(out[j].commits) })
	return out
}

func namesCommit(e *store.Entry, sha string) bool {
	for _, c := range e.Commits {
		if len(c) >= 7 && strings.HasPrefix(sha, strings.ToLower(c)) {
			return true
		}
	}
	return false
}

// citesEntry reports whether a commit message names an ADR: its id, or
// "ADR 12" / "ADR-0012" for a numbered one.
func citesEntry(c Candidate, e *store.Entry) bool {
	msg := c.Subject + "\n" + c.Body
	if len(e.ID) >= 6 && strings.Contains(msg, e.ID) {
		return true
	}
	n, ok := e.Number()
	if !ok {
		return false
	}
	for _, m := range adrCiteRE.FindAllStringSubmatch(msg, -1) {
		if atoi(m[1]) == n {
			return true
		}
	}
	return false
}

var adrCiteRE = lazyregexp.New(`(?i)\badr[\s#:_-]*0*(\d{1,5})\b`)

// mentions reports whether text names a dependency as a word.
func mentions(text, dep string) bool {
	text, dep = strings.ToLower(text), strings.ToLower(dep)
	for i := 0; ; {
		j := strings.Index(text[i:], dep)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(dep)
		if (start == 0 || !isWordByte(text[start-1])) && (end == len(text) || !isWordByte(text[end])) {
			return true
		}
		i = start + 1
	}
}

func isWordByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z'
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}

// Text renders tasks for the agent, inlining the start of the files to read
// within budget characters.
func (p *Pipeline) Text(tasks []Task, prog Progress, budget int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Bootstrap: %d task(s) done, %d pending.\n", prog.Done, prog.Pending)
	per := budget
	if len(tasks) > 0 {
		per = budget / len(tasks)
	}
	for i, t := range tasks {
		fmt.Fprintf(&b, "\n## Task %d: %s — %s\n%s\n", i+1, t.ID, t.Title, t.Why)
		if len(t.Known) > 0 {
			b.WriteString("\nAlready known:\n")
			for _, k := range t.Known {
				b.WriteString("- " + k + "\n")
			}
		}
		if len(t.Commits) > 0 {
			b.WriteString("\nCommits:\n")
			for _, c := range t.Commits {
				fmt.Fprintf(&b, "- %s %s %s: %s [%s]\n", short(c.SHA), c.Date, c.Author, c.Subject, strings.Join(c.Signals, ", "))
				if c.Body != "" {
					fmt.Fprintf(&b, "  %s\n", oneLine(c.Body, 400))
				}
			}
		}
		if len(t.Read) > 0 {
			b.WriteString("\nRead:\n")
			room := per
			for _, f := range t.Read {
				b.WriteString("- " + f + "\n")
			}
			for _, f := range t.Read {
				if room < 400 {
					break
				}
				text := p.excerpt(f, min(room, 6000))
				if text == "" {
					continue
				}
				fmt.Fprintf(&b, "\n```%s\n%s\n```\n", f, text)
				room -= len(text)
			}
		}
		b.WriteString("\nSubmit: " + t.Submit + "\n")
	}
	if len(tasks) == 0 {
		b.WriteString("\nNothing is pending: the knowledge is as deep as the bootstrap goes. Capture what you learn with ctx_capture.\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// excerpt is the start of a file for inlining (never a secret file, by
// its name or its content).
func (p *Pipeline) excerpt(rel string, max int) string {
	if secrets.IsSecretFile(rel) {
		return ""
	}
	data, err := p.Root.ReadFile(rel)
	if err != nil || !utf8.Valid(data) || secrets.SecretContent(rel, data) != "" {
		return ""
	}
	text := string(data)
	if len(text) > max {
		cut := strings.LastIndexByte(text[:max], '\n')
		if cut < max/2 {
			cut = max
		}
		text = textclip.Prefix(text, cut) + "\n… (truncated)"
	}
	return strings.TrimRight(text, "\n")
}

func (p *Pipeline) exists(rel string) bool {
	abs, err := p.Root.Path(rel)
	return err == nil && fileExists(abs)
}

func short(sha string) string {
	if len(sha) > 8 {
		return sha[:8]
	}
	return sha
}

func limit(list []string, n int) []string {
	if len(list) > n {
		return append(list[:n:n], fmt.Sprintf("… (+%d)", len(list)-n))
	}
	return list
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
