package tools

import (
	"context"
	"fmt"
	"os"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"

	spec "github.com/kontext-dev/kontext/gen/toolsets/knowledge"
	"github.com/kontext-dev/kontext/internal/glob"
	"github.com/kontext-dev/kontext/internal/knowledge"
	"github.com/kontext-dev/kontext/internal/knowledge/adapters"
	"github.com/kontext-dev/kontext/internal/knowledge/index"
	"github.com/kontext-dev/kontext/internal/knowledge/store"
	"github.com/kontext-dev/kontext/internal/mcp"
	"github.com/kontext-dev/kontext/internal/textclip"
)

// agentRuleFiles are the files agents are told to follow, in the order the
// brief quotes them.
var agentRuleFiles = []string{"AGENTS.md", "CLAUDE.md", ".cursorrules", ".github/copilot-instructions.md", ".windsurfrules", "GEMINI.md"}

func (h *Handlers) CtxBrief(ctx context.Context, in *spec.CtxBriefInput) (*mcp.ToolResult, error) {
	o, err := h.svc.Open(ctx)
	if err != nil {
		return nil, err
	}
	budget := o.Config.Brief.BudgetTokens
	if in.BudgetTokens != nil {
		budget = *in.BudgetTokens
	}
	return mcp.TextResult(brief(ctx, h.svc, o, in.Focus, budget*charsPerToken, in.Adapters)), nil
}

// briefLinesPerSection bounds the lines rendered for one section; the
// budget cuts far earlier.
const briefLinesPerSection = 60

// section is one part of the brief: a heading and lines in the order they
// matter, and where to read the rest.
type section struct {
	heading string
	lines   []string
	// total counts the section's items, those without a line included:
	// what the "+N more" line counts from.
	total int
	more  string // the call that lists what did not fit
	// weight is the section's claim on the budget, against the others'.
	weight int
	// clip cuts a line that does not fit whole (a quoted rule file)
	// instead of leaving it out; nil when lines are kept whole.
	clip func(line string, room int) string
}

// The sections' claims on the budget: what agents must follow and what
// was decided weigh most.
const (
	weightRules       = 3
	weightDecisions   = 3
	weightConventions = 2
	weightLearnings   = 2
	weightIncidents   = 1
	weightModules     = 2
)

// brief renders the team's context within budget characters. Sections come
// in the original's order, each with a share of the budget (by weight);
// what a section does not need goes to the others, and a section that
// needs more than its share is cut inside itself, saying how many of its
// items it left out and where to read them. Within a section, what the
// focus names comes first. The State section always fits: it says what
// the agent should do next.
//
// With withAdapters, every adapter with a brief op is asked, in parallel
// and while the local sections are gathered, for a section of its own
// ("From <adapter>", after Modules, as the original orders them); a
// failing adapter is a note under State instead.
func brief(ctx context.Context, s *knowledge.Service, o *knowledge.Opened, focusItems []string, budget int, withAdapters bool) string {
	v := knowledge.VoiceOf(ctx)
	var fromAdapters func() ([]section, []string)
	if withAdapters {
		fromAdapters = briefAdapters(ctx, s, focusItems, budget)
	}
	entries, loadErr := o.Entries()
	mods := moduleDocs(entries)
	f := newFocus(focusItems, mods)

	var head strings.Builder
	name := o.Config.Project.Name
	if name == "" {
		name = o.Config.Identity.Name
	}
	if name == "" {
		name = path.Base(o.Root.Dir())
	}
	fmt.Fprintf(&head, "# %s — team context\n", name)
	branch := o.State.Branch
	if branch == "" {
		branch = "detached HEAD"
	}
	fmt.Fprintf(&head, "%s · %s\n", o.Config.Identity.ID, branch)
	if about := aboutText(o, entries); about != "" {
		fmt.Fprintf(&head, "About: %s\n", about)
	}
	if stack := overviewFact(entries, "Stack"); stack != "" {
		fmt.Fprintf(&head, "Stack: %s\n", stack)
	}

	var sections []section
	if rules := agentRules(o, f, v, budget/3); len(rules) > 0 {
		sections = append(sections, section{heading: "Rules for agents", lines: rules, total: len(rules), weight: weightRules, clip: clipRule(v)})
	}
	kindSection := func(heading, kind string, max, weight int) {
		var list []*store.Entry
		for _, e := range entries {
			if e.Kind == kind && e.IsActive() {
				list = append(list, e)
			}
		}
		if len(list) == 0 {
			return
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
		more := v.Tool("ctx_log")
		if kind != store.KindDecision {
			more = v.Call("ctx_log", "kind", kind)
		}
		sections = append(sections, section{heading: heading, lines: lines, total: len(list), more: more, weight: weight})
	}
	kindSection("Decisions", store.KindDecision, o.Config.Brief.MaxDecisions, weightDecisions)
	kindSection("Conventions", store.KindConvention, 0, weightConventions)
	kindSection("Learnings & pitfalls", store.KindLearning, 0, weightLearnings)
	kindSection("Incidents", store.KindIncident, 0, weightIncidents)
	if len(mods) > 0 {
		s.RankModules(ctx, o, mods)
		lines := moduleLines(mods, f, o.Config.Brief.MaxModules)
		sections = append(sections, section{heading: "Modules", lines: lines, total: len(mods), more: v.Call("ctx_log", "kind", store.KindArchitecture), weight: weightModules})
	}

	state := stateLines(ctx, o, v, entries, loadErr)
	var adapterSections []section
	if fromAdapters != nil {
		var notes []string
		adapterSections, notes = fromAdapters()
		for _, n := range notes {
			state = append(state, "Note: "+strings.TrimSuffix(n, ".")+".")
		}
	}

	var b strings.Builder
	b.WriteString(head.String())
	stateText := "\n## State\n" + strings.Join(state, "\n") + "\n"
	room := budget - b.Len() - len(stateText)
	needs := make([]int, 0, len(sections)+len(adapterSections))
	weights := make([]int, 0, len(sections)+len(adapterSections))
	for _, sec := range sections {
		needs, weights = append(needs, len(sec.render(1<<30))), append(weights, sec.weight)
	}
	for _, sec := range adapterSections {
		// An adapter's section gets at most a third of the room the
		// sections share (the original: "at most a third of the remaining
		// budget each"); within that it competes by weight as the local
		// sections do.
		needs, weights = append(needs, min(len(sec.render(1<<30)), max(room, 0)/adapterShare)), append(weights, sec.weight)
	}
	sections = append(sections, adapterSections...)
	for i, sec := range sections {
		// The shares are worked out again after each section: what one
		// left unused flows on to those after it.
		share := shares(needs[i:], weights[i:], room)[0]
		text := sec.render(share)
		b.WriteString(text)
		room -= len(text)
	}
	b.WriteString(stateText)
	return strings.TrimRight(b.String(), "\n")
}

// adapterShare is the part of the brief's room one adapter's section may
// take at most: a third, the original's figure.
const adapterShare = 3

// weightAdapter is an adapter section's claim on the budget against the
// local sections'.
const weightAdapter = 2

// briefAdapters asks every adapter with a brief op for its section, in
// parallel, each within its own brief deadline (8 s unless configured);
// the returned function waits for the answers and returns the sections,
// sorted by adapter, and a note for each adapter that failed. Each
// adapter is told a third of the budget, the most its section gets.
func briefAdapters(ctx context.Context, s *knowledge.Service, focus []string, budget int) func() ([]section, []string) {
	mgr, err := s.Adapters(ctx)
	var notes []string
	if err != nil {
		notes = append(notes, "the adapters are not used: "+knowledge.OneParagraph(err.Error(), 300))
	}
	if mgr == nil {
		return func() ([]section, []string) { return nil, notes }
	}
	names := mgr.With(adapters.OpBrief)
	texts := make([]string, len(names))
	errs := make([]error, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Add(1)
		go func() {
			defer wg.Done()
			texts[i], errs[i] = mgr.Brief(ctx, name, focus, budget/charsPerToken/adapterShare)
		}()
	}
	return func() ([]section, []string) {
		wg.Wait()
		var out []section
		for i, name := range names {
			if errs[i] != nil {
				notes = append(notes, knowledge.OneParagraph(errs[i].Error(), 300))
				continue
			}
			if texts[i] == "" {
				continue
			}
			lines := strings.Split(texts[i], "\n")
			out = append(out, section{heading: "From " + name, lines: lines, total: len(lines), weight: weightAdapter, clip: clipText})
		}
		return out, notes
	}
}

// clipText cuts an adapter's line to room characters.
func clipText(line string, room int) string {
	return strings.TrimRight(textclip.Prefix(line, max(room-len("…"), 0)), " ") + "…"
}

// shares divides room between sections that need needs characters, in
// proportion to their weights: a section that needs less than its share
// gets what it needs, and the rest is divided again among the others
// (max-min fairness), so no room is left unused while a section is cut.
func shares(needs, weights []int, room int) []int {
	out := make([]int, len(needs))
	if room <= 0 {
		return out
	}
	open := make([]int, 0, len(needs))
	for i, n := range needs {
		if n > 0 {
			open = append(open, i)
		}
	}
	for len(open) > 0 {
		total := 0
		for _, i := range open {
			total += max(weights[i], 1)
		}
		var still []int
		for _, i := range open {
			if share := room * max(weights[i], 1) / total; needs[i] > share {
				still = append(still, i)
			}
		}
		if len(still) == len(open) {
			for _, i := range open {
				out[i] = room * max(weights[i], 1) / total
			}
			return out
		}
		for _, i := range open {
			if !slices.Contains(still, i) {
				out[i] = needs[i]
				room -= needs[i]
			}
		}
		open = still
	}
	return out
}

// minLine is the shortest a clipped line may get and still say something.
const minLine = 60

// render writes the section in at most room characters: the heading and
// as many lines as fit, then "(+N more: <call>)" for the items left out.
// When not even one line fits, the heading and the count alone; when not
// even that, nothing.
func (s section) render(room int) string {
	heading := "\n## " + s.heading + "\n"
	moreLine := func(n int) string {
		if n <= 0 {
			return ""
		}
		if s.more == "" {
			return fmt.Sprintf("(+%d more)\n", n)
		}
		return fmt.Sprintf("(+%d more: %s)\n", n, s.more)
	}
	var b strings.Builder
	b.WriteString(heading)
	for i, line := range s.lines {
		rest := s.total - i - 1 // left out if this line is the last one
		tail := moreLine(rest)
		if b.Len()+len(line)+1+len(tail) <= room {
			b.WriteString(line + "\n")
			continue
		}
		// This line does not fit whole.
		if s.clip != nil {
			if fit := room - b.Len() - 1 - len(tail); fit >= minLine {
				b.WriteString(s.clip(line, fit) + "\n")
				b.WriteString(tail)
				return b.String()
			}
		}
		if i == 0 {
			if count := heading + moreLine(s.total); len(count) <= room {
				return count
			}
			return ""
		}
		b.WriteString(moreLine(s.total - i))
		return b.String()
	}
	b.WriteString(moreLine(s.total - len(s.lines)))
	return b.String()
}

// clipRule cuts a quoted rule file's line to room characters, pointing to
// the whole file.
func clipRule(v knowledge.Voice) func(string, int) string {
	return func(line string, room int) string {
		name, _, _ := strings.Cut(strings.TrimPrefix(line, "- "), ":")
		hint := fmt.Sprintf("… (%s)", v.Call("ctx_read", "uri", name))
		keep := room - len(hint)
		if keep < 0 {
			keep = 0
		}
		if strings.HasSuffix(line, ")") && strings.Contains(line, "… (") {
			line = line[:strings.LastIndex(line, "… (")] // already clipped once
		}
		return strings.TrimRight(textclip.Prefix(line, keep), " ") + hint
	}
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
	// modules are the module docs the focus names (by path, or by a word
	// of their path): their own paths join the focus paths, so their
	// decisions and learnings come first too.
	modules map[*store.Entry]bool
}

func newFocus(items []string, mods []*store.Entry) focus {
	f := focus{modules: map[*store.Entry]bool{}}
	for _, it := range items {
		it = strings.TrimSpace(it)
		if it == "" {
			continue
		}
		if strings.ContainsAny(it, "/.") {
			f.paths = append(f.paths, strings.TrimPrefix(strings.TrimSuffix(it, "/"), "./"))
		} else {
			f.words = append(f.words, index.Words(it)...)
		}
	}
	if len(f.paths)+len(f.words) == 0 {
		return f
	}
	var extra []string
	for _, m := range mods {
		id := knowledge.ModuleID(m)
		named := false
		for _, fp := range f.paths {
			// The module, a path inside it, or a directory holding it; the
			// root module only by name (every path lies inside it).
			if fp == id || id != "." && (strings.HasPrefix(fp, id+"/") || strings.HasPrefix(id, fp+"/")) {
				named = true
			}
		}
		if !named && len(f.words) > 0 {
			words := index.Words(id + " " + m.Title)
			for _, w := range f.words {
				if slices.Contains(words, w) {
					named = true
				}
			}
		}
		if !named {
			continue
		}
		f.modules[m] = true
		if id != "." {
			extra = append(extra, id)
		}
		for _, p := range m.Paths {
			if p = strings.TrimSuffix(strings.TrimSuffix(p, "/**"), "/"); p != "" && p != "**" {
				extra = append(extra, p)
			}
		}
	}
	for _, p := range extra {
		if !slices.Contains(f.paths, p) {
			f.paths = append(f.paths, p)
		}
	}
	return f
}

func (f focus) score(e *store.Entry) int {
	score := 0
	if f.modules[e] {
		score += 10
	}
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
			if slices.Contains(text, w) {
				score += 3
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
func aboutText(o *knowledge.Opened, entries []*store.Entry) string {
	for _, e := range entries {
		if e.Kind == "architecture" && path.Base(e.Path) == "overview.md" {
			// Until the purpose task writes it, the section holds only
			// the bootstrap's placeholder comment: nothing to say.
			if p := strings.TrimSpace(index.StripComments(e.Section("Purpose"))); p != "" {
				return knowledge.OneParagraph(p, 300)
			}
		}
	}
	if o.Config.Project.Description != "" {
		return o.Config.Project.Description
	}
	for _, name := range []string{"README.md", "readme.md", "README"} {
		data, err := o.ReadShown(name)
		if err != nil {
			continue
		}
		for _, para := range strings.Split(index.StripComments(string(data)), "\n\n") {
			para = strings.TrimSpace(para)
			if para == "" || strings.HasPrefix(para, "#") || strings.HasPrefix(para, "<") || strings.HasPrefix(para, "[!") || strings.HasPrefix(para, "![") {
				continue
			}
			return knowledge.OneParagraph(para, 300)
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
func agentRules(o *knowledge.Opened, f focus, v knowledge.Voice, room int) []string {
	files := append(append([]string(nil), agentRuleFiles...), nestedRuleFiles(o, f)...)
	var lines []string
	seen := map[string]bool{}
	for _, name := range files {
		if seen[name] {
			continue
		}
		seen[name] = true
		data, err := o.ReadShown(name)
		if err != nil {
			continue
		}
		text := strings.Join(strings.Fields(stripMarkdownHeadings(index.StripComments(string(data)))), " ")
		if text == "" {
			continue
		}
		max := room / 2
		if max < 200 {
			max = 200
		}
		if len(text) > max {
			text = textclip.Prefix(text, max) + fmt.Sprintf("… (%s)", v.Call("ctx_read", "uri", name))
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
func nestedRuleFiles(o *knowledge.Opened, f focus) []string {
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
			abs, err := o.Root.Path(dir)
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

// moduleDocs are the module docs among entries
// (.ai/architecture/modules/*.md), in file order.
func moduleDocs(entries []*store.Entry) []*store.Entry {
	var mods []*store.Entry
	for _, e := range entries {
		if e.Kind == store.KindArchitecture && strings.Contains(e.Path, "/modules/") {
			mods = append(mods, e)
		}
	}
	return mods
}

// moduleLines lists the modules by their short path, the focused ones
// first with the start of their overview, then the rest in the order
// mods has (rankModules put them in), at most max.
func moduleLines(mods []*store.Entry, f focus, max int) []string {
	order := append([]*store.Entry(nil), mods...)
	sort.SliceStable(order, func(i, j int) bool { return f.modules[order[i]] && !f.modules[order[j]] })
	var lines []string
	for _, e := range order {
		name := knowledge.ModuleID(e)
		if name == "." {
			name = e.Title
		}
		line := "- " + name
		if s := moduleSummary(e); s != "" {
			line += " — " + s
		}
		if f.modules[e] {
			if ov := knowledge.OneParagraph(strings.TrimSpace(index.StripComments(e.Section("Overview"))), 300); ov != "" && ov != moduleSummary(e) {
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

// moduleSummary is what a module doc says the module is: its summary, or
// the first paragraph of its Overview once an agent wrote one. Never the
// generated facts, nor the placeholder of an unwritten Overview: a module
// without a summary says nothing.
func moduleSummary(e *store.Entry) string {
	if s := strings.Join(strings.Fields(index.StripComments(e.Summary)), " "); s != "" {
		if s == e.Title {
			return ""
		}
		return knowledge.OneParagraph(s, 140)
	}
	return knowledge.OneParagraph(strings.TrimSpace(index.StripComments(e.Section("Overview"))), 140)
}

// stateLines says what needs attention: the inbox, problems in the store,
// stale decisions, missing hooks, the bootstrap.
func stateLines(ctx context.Context, o *knowledge.Opened, v knowledge.Voice, entries []*store.Entry, loadErr error) []string {
	var lines []string
	if !o.Store.Exists() {
		lines = append(lines, fmt.Sprintf("- No knowledge store (%s/) yet: only private captures are kept. Ask the user before setting kontext up.", o.Store.Dir()))
	} else {
		lines = append(lines, fmt.Sprintf("- Store: %s in %s/.", knowledge.Plural(len(entries), "entry", "entries"), o.Store.Dir()))
	}
	if cands, err := o.State.List(ctx); err == nil && len(cands) > 0 {
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
			part := knowledge.Plural(team, "team candidate", "team candidates")
			if team != here {
				part += fmt.Sprintf(" (%d from other worktrees)", team-here)
			}
			parts = append(parts, part+fmt.Sprintf(" to review (%s; %s promotes them with the commit)", v.Tool("ctx_inbox"), v.Tool("ctx_prepare_commit")))
		}
		if private > 0 {
			parts = append(parts, knowledge.Plural(private, "private capture", "private captures")+" kept in this clone")
		}
		lines = append(lines, "- Inbox: "+strings.Join(parts, "; ")+".")
	}
	if loadErr != nil {
		lines = append(lines, "- Some entries could not be read: "+knowledge.OneParagraph(loadErr.Error(), 200))
	}
	if errs, _ := o.StoreErrors(entries); errs > 0 {
		lines = append(lines, fmt.Sprintf("- %d problem(s) in the store block commits (kontext check).", errs))
	}
	if o.Store.Exists() {
		lines = append(lines, o.StaleAndHooksLines(ctx, entries)...)
	}
	if p := knowledge.BootstrapProgress(o, v, entries); p != "" {
		lines = append(lines, "- Bootstrap: "+p)
	}
	if _, err := os.Stat(o.Root.Dir()); err != nil {
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
