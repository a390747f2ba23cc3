package knowledge

import (
	"context"
	"fmt"
	"os"
	"path"
	"sort"
	"strings"

	spec "github.com/kontext-dev/kontext/gen/toolsets/knowledge"
	"github.com/kontext-dev/kontext/internal/knowledge/glob"
	"github.com/kontext-dev/kontext/internal/knowledge/index"
	"github.com/kontext-dev/kontext/internal/knowledge/store"
	"github.com/kontext-dev/kontext/internal/mcp"
	"github.com/kontext-dev/kontext/internal/textclip"
)

// agentRuleFiles are the files agents are told to follow, in the order the
// brief quotes them.
var agentRuleFiles = []string{"AGENTS.md", "CLAUDE.md", ".cursorrules", ".github/copilot-instructions.md", ".windsurfrules", "GEMINI.md"}

func (h *Handlers) CtxBrief(ctx context.Context, in *spec.CtxBriefInput) (*mcp.ToolResult, error) {
	o, err := h.svc.open(ctx)
	if err != nil {
		return nil, err
	}
	budget := o.cfg.Brief.BudgetTokens
	if in.BudgetTokens != nil {
		budget = *in.BudgetTokens
	}
	return mcp.TextResult(brief(ctx, o, in.Focus, budget*charsPerToken)), nil
}

// ReadBrief serves kontext://brief: the brief at the configured budget.
func (h *Handlers) ReadBrief(ctx context.Context) (*mcp.ResourceContents, error) {
	o, err := h.svc.open(ctx)
	if err != nil {
		return nil, err
	}
	return &mcp.ResourceContents{Text: brief(ctx, o, nil, o.cfg.Brief.BudgetTokens*charsPerToken)}, nil
}

// briefLinesPerSection bounds the lines rendered for one section; the
// budget cuts far earlier.
const briefLinesPerSection = 60

// section is one part of the brief: a heading and lines in the order they
// matter, and where to read the rest.
type section struct {
	heading string
	lines   []string
	more    string // the tool that lists what did not fit
}

// brief renders the team's context within budget characters. Sections come
// in the original's order; within one, what the focus names comes first.
// The State section always fits: it says what the agent should do next.
func brief(ctx context.Context, o *opened, focus []string, budget int) string {
	entries, loadErr := o.entries()
	f := newFocus(focus)

	var head strings.Builder
	name := o.cfg.Project.Name
	if name == "" {
		name = o.cfg.Identity.Name
	}
	if name == "" {
		name = path.Base(o.root.Dir())
	}
	fmt.Fprintf(&head, "# %s — team context\n", name)
	branch := o.state.Branch
	if branch == "" {
		branch = "detached HEAD"
	}
	fmt.Fprintf(&head, "%s · %s\n", o.cfg.Identity.ID, branch)
	if about := aboutText(o, entries); about != "" {
		fmt.Fprintf(&head, "About: %s\n", about)
	}
	if stack := overviewFact(entries, "Stack"); stack != "" {
		fmt.Fprintf(&head, "Stack: %s\n", stack)
	}

	var sections []section
	if rules := agentRules(o, f, budget/4); len(rules) > 0 {
		sections = append(sections, section{heading: "Rules for agents", lines: rules})
	}
	kindSection := func(heading, kind, more string, max int) {
		var list []*store.Entry
		for _, e := range entries {
			if e.Kind == kind && e.IsActive() {
				list = append(list, e)
			}
		}
		f.rank(list)
		// No budget holds more than a few dozen lines: render those, and
		// count the rest for the "+N more" line.
		shown := len(list)
		if max > 0 && shown > max {
			shown = max
		}
		if shown > briefLinesPerSection {
			shown = briefLinesPerSection
		}
		var lines []string
		for _, e := range list[:shown] {
			lines = append(lines, briefLine(e, entries))
		}
		for range list[shown:] {
			lines = append(lines, "")
		}
		if len(lines) > 0 {
			sections = append(sections, section{heading: heading, lines: lines, more: more})
		}
	}
	kindSection("Decisions", "decision", "ctx_log", o.cfg.Brief.MaxDecisions)
	kindSection("Conventions", "convention", "ctx_log kind: convention", 0)
	kindSection("Learnings & pitfalls", "learning", "ctx_log kind: learning", 0)
	kindSection("Incidents", "incident", "ctx_log kind: incident", 0)
	if mods := moduleLines(entries, f, o.cfg.Brief.MaxModules); len(mods) > 0 {
		sections = append(sections, section{heading: "Modules", lines: mods, more: "ctx_read kx:<module>"})
	}

	state := stateLines(ctx, o, entries, loadErr)

	var b strings.Builder
	b.WriteString(head.String())
	stateText := "\n## State\n" + strings.Join(state, "\n") + "\n"
	room := budget - b.Len() - len(stateText)
	for _, s := range sections {
		text, used, cut := s.render(room)
		if used == 0 && room < 80 {
			break
		}
		b.WriteString(text)
		room -= used
		if cut {
			room = 0
		}
	}
	b.WriteString(stateText)
	return strings.TrimRight(b.String(), "\n")
}

// render writes as many lines as fit in room characters; cut is true when
// some did not.
func (s section) render(room int) (text string, used int, cut bool) {
	var b strings.Builder
	heading := "\n## " + s.heading + "\n"
	if len(heading)+len(s.lines[0])+1 > room {
		return "", 0, true
	}
	b.WriteString(heading)
	for i, line := range s.lines {
		if line == "" { // a placeholder for what was not rendered
			fmt.Fprintf(&b, "(+%d more: %s)\n", len(s.lines)-i, s.more)
			return b.String(), b.Len(), true
		}
		tail := ""
		if i < len(s.lines)-1 && s.more != "" {
			tail = fmt.Sprintf("(+%d more: %s)\n", len(s.lines)-i-1, s.more)
		}
		if b.Len()+len(line)+1+len(tail) > room && i > 0 {
			more := fmt.Sprintf("(+%d more", len(s.lines)-i)
			if s.more != "" {
				more += ": " + s.more
			}
			b.WriteString(more + ")\n")
			return b.String(), b.Len(), true
		}
		b.WriteString(line + "\n")
	}
	return b.String(), b.Len(), false
}

// briefLine is an entry in the brief: its shortest unique id, title and
// summary.
func briefLine(e *store.Entry, all []*store.Entry) string {
	id := shortID(e, all)
	line := fmt.Sprintf("- [%s] %s", id, e.Title)
	if s := e.SummaryText(140); s != "" && s != e.Title {
		line += " — " + s
	}
	return line
}

// focus ranks entries and modules: those whose paths overlap the focus
// paths first, then those whose words match the focus words.
type focus struct {
	paths []string
	words []string
}

func newFocus(items []string) focus {
	var f focus
	for _, it := range items {
		it = strings.TrimSpace(it)
		if it == "" {
			continue
		}
		if strings.ContainsAny(it, "/.") {
			f.paths = append(f.paths, strings.TrimPrefix(strings.TrimSuffix(it, "/"), "./"))
		} else {
			for _, w := range index.Words(it) {
				f.words = append(f.words, w)
			}
		}
	}
	return f
}

func (f focus) score(e *store.Entry) int {
	score := 0
	for _, fp := range f.paths {
		for _, p := range e.Paths {
			if glob.Match(p, fp) || strings.HasPrefix(p, fp+"/") { // covers the focus, or lies inside it
				score += 10
				break
			}
		}
	}
	if len(f.words) > 0 {
		text := index.Words(e.Title + " " + e.Summary + " " + strings.Join(e.Tags, " "))
		for _, w := range f.words {
			for _, t := range text {
				if t == w {
					score += 3
					break
				}
			}
		}
	}
	return score
}

// rank orders entries by focus score, then newest first.
func (f focus) rank(list []*store.Entry) {
	scores := make(map[*store.Entry]int, len(list))
	if len(f.paths)+len(f.words) > 0 {
		for _, e := range list {
			scores[e] = f.score(e)
		}
	}
	sort.SliceStable(list, func(i, j int) bool {
		si, sj := scores[list[i]], scores[list[j]]
		if si != sj {
			return si > sj
		}
		return list[i].Date > list[j].Date
	})
}

// aboutText is what the project is for: the overview's Purpose, the
// configured description, or the README's first paragraph.
func aboutText(o *opened, entries []*store.Entry) string {
	for _, e := range entries {
		if e.Kind == "architecture" && path.Base(e.Path) == "overview.md" {
			if p := e.Section("Purpose"); p != "" {
				return oneParagraph(p, 300)
			}
		}
	}
	if o.cfg.Project.Description != "" {
		return o.cfg.Project.Description
	}
	for _, name := range []string{"README.md", "readme.md", "README"} {
		data, err := o.root.ReadFile(name)
		if err != nil {
			continue
		}
		for _, para := range strings.Split(string(data), "\n\n") {
			para = strings.TrimSpace(para)
			if para == "" || strings.HasPrefix(para, "#") || strings.HasPrefix(para, "<") || strings.HasPrefix(para, "[!") || strings.HasPrefix(para, "![") {
				continue
			}
			return oneParagraph(para, 300)
		}
	}
	return ""
}

// overviewFact reads "<name>: …" from the overview's generated facts.
func overviewFact(entries []*store.Entry, name string) string {
	for _, e := range entries {
		if e.Kind != "architecture" || path.Base(e.Path) != "overview.md" {
			continue
		}
		for _, line := range strings.Split(e.Body, "\n") {
			line = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), "-"))
			if rest, ok := strings.CutPrefix(line, name+":"); ok {
				return strings.TrimSpace(rest)
			}
			if rest, ok := strings.CutPrefix(line, "**"+name+":**"); ok {
				return strings.TrimSpace(rest)
			}
		}
	}
	return ""
}

// agentRules quotes the rule files agents must follow (and nested
// AGENTS.md files on the focus paths), within room characters.
func agentRules(o *opened, f focus, room int) []string {
	files := append(append([]string(nil), agentRuleFiles...), nestedRuleFiles(o, f)...)
	var lines []string
	seen := map[string]bool{}
	for _, name := range files {
		if seen[name] {
			continue
		}
		seen[name] = true
		data, err := o.root.ReadFile(name)
		if err != nil {
			continue
		}
		text := strings.Join(strings.Fields(stripMarkdownHeadings(string(data))), " ")
		if text == "" {
			continue
		}
		max := room / 2
		if max < 200 {
			max = 200
		}
		if len(text) > max {
			text = textclip.Prefix(text, max) + fmt.Sprintf("… (ctx_read %s)", name)
		}
		lines = append(lines, fmt.Sprintf("- %s: %s", name, text))
		room -= len(text)
		if room <= 0 {
			break
		}
	}
	return lines
}

// nestedRuleFiles are the AGENTS.md files of the directories on the focus
// paths, deepest first. Directories are followed from the top and only
// while they exist, so a focus of thousands of levels costs what its
// existing part costs (it took 47.7 s for 2,000 levels when every level
// was tried).
func nestedRuleFiles(o *opened, f focus) []string {
	var files []string
	seen := map[string]bool{}
	for _, fp := range f.paths {
		var found []string
		dir := ""
		for _, part := range strings.Split(path.Clean(fp), "/") {
			if part == "." || part == "" {
				continue
			}
			if part == ".." {
				break // the guard would refuse it
			}
			dir = path.Join(dir, part)
			abs, err := o.root.Path(dir)
			if err != nil {
				break
			}
			if info, err := os.Stat(abs); err != nil || !info.IsDir() {
				break
			}
			if name := dir + "/AGENTS.md"; !seen[name] {
				seen[name] = true
				found = append(found, name)
			}
		}
		for i := len(found) - 1; i >= 0; i-- {
			files = append(files, found[i])
		}
	}
	return files
}

func stripMarkdownHeadings(s string) string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

// moduleLines lists the module docs (.ai/architecture/modules/*.md), the
// focused ones first with the start of their overview.
func moduleLines(entries []*store.Entry, f focus, max int) []string {
	var mods []*store.Entry
	for _, e := range entries {
		if e.Kind == "architecture" && strings.Contains(e.Path, "/modules/") {
			mods = append(mods, e)
		}
	}
	f.rank(mods)
	var lines []string
	for _, e := range mods {
		line := "- " + e.Title
		if s := e.SummaryText(140); s != "" && s != e.Title {
			line += " — " + s
		}
		if f.score(e) > 0 {
			if ov := oneParagraph(e.Section("Overview"), 300); ov != "" {
				line += "\n  " + ov
			}
		}
		lines = append(lines, line)
		if max > 0 && len(lines) == max {
			break
		}
	}
	return lines
}

// stateLines says what needs attention: the inbox, problems in the store,
// stale decisions, missing hooks, the bootstrap.
func stateLines(ctx context.Context, o *opened, entries []*store.Entry, loadErr error) []string {
	var lines []string
	if !o.store.Exists() {
		lines = append(lines, fmt.Sprintf("- No knowledge store (%s/) yet: only private captures are kept. Ask the user before setting kontext up.", o.store.Dir()))
	} else {
		lines = append(lines, fmt.Sprintf("- Store: %s in %s/.", plural(len(entries), "entry", "entries"), o.store.Dir()))
	}
	if cands, err := o.state.List(ctx); err == nil && len(cands) > 0 {
		team, here, private := 0, 0, 0
		for _, c := range cands {
			switch {
			case c.Private():
				private++
			case c.Here:
				here++
				team++
			default:
				team++
			}
		}
		var parts []string
		if team > 0 {
			part := plural(team, "team candidate", "team candidates")
			if team != here {
				part += fmt.Sprintf(" (%d from other worktrees)", team-here)
			}
			parts = append(parts, part+" to review (ctx_inbox; ctx_prepare_commit promotes them with the commit)")
		}
		if private > 0 {
			parts = append(parts, plural(private, "private capture", "private captures")+" kept in this clone")
		}
		lines = append(lines, "- Inbox: "+strings.Join(parts, "; ")+".")
	}
	if loadErr != nil {
		lines = append(lines, "- Some entries could not be read: "+oneParagraph(loadErr.Error(), 200))
	}
	if errs, _ := o.storeErrors(entries); errs > 0 {
		lines = append(lines, fmt.Sprintf("- %d problem(s) in the store block commits (kontext check).", errs))
	}
	if o.store.Exists() {
		lines = append(lines, o.staleAndHooksLines(ctx, entries)...)
	}
	if p := bootstrapProgress(o, entries); p != "" {
		lines = append(lines, "- Bootstrap: "+p)
	}
	if _, err := os.Stat(o.root.Dir()); err != nil {
		lines = append(lines, "- The repository root is not readable.")
	}
	return lines
}

// shortID is the shortest unique prefix of an entry's id that still says
// something: a dated id keeps its date and first word
// (2026-09-28-adapters), a numbered one its number.
func shortID(e *store.Entry, all []*store.Entry) string {
	id := store.ShortestPrefix(all, e.ID)
	if len(e.ID) > 11 && store.ValidDate(e.ID[:10]) && e.ID[10] == '-' && len(id) <= 10 {
		word, _, _ := strings.Cut(e.ID[11:], "-")
		id = e.ID[:11] + word
	}
	return id
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
