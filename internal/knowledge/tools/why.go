package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	spec "github.com/kontext-dev/kontext/gen/toolsets/knowledge"
	"github.com/kontext-dev/kontext/internal/git"
	"github.com/kontext-dev/kontext/internal/glob"
	"github.com/kontext-dev/kontext/internal/knowledge"
	"github.com/kontext-dev/kontext/internal/knowledge/adapters"
	"github.com/kontext-dev/kontext/internal/knowledge/store"
	"github.com/kontext-dev/kontext/internal/lazyregexp"
	"github.com/kontext-dev/kontext/internal/mcp"
	"github.com/kontext-dev/kontext/internal/secrets"
)

// whyHistory is how many recent commits touching a path are weighed.
const whyHistory = 60

var (
	lineTargetRE = lazyregexp.New(`^(.+):(\d+)(?:-(\d+))?$`)
	shaRE        = lazyregexp.New(`^[0-9a-fA-F]{7,40}$`)
	symbolRE     = lazyregexp.New(`^[A-Za-z_$][A-Za-z0-9_$.]*$`)
)

func (h *Handlers) CtxWhy(ctx context.Context, in *spec.CtxWhyInput) (*mcp.ToolResult, error) {
	o, err := h.svc.Open(ctx)
	if err != nil {
		return nil, err
	}
	target := strings.TrimSpace(in.Target)
	w := &why{o: o, limit: in.Limit, v: knowledge.VoiceOf(ctx)}
	mgr, err := h.svc.Adapters(ctx)
	if err != nil {
		w.notes = append(w.notes, "the adapters are not used: "+knowledge.OneParagraph(err.Error(), 300))
	}
	w.mgr = mgr
	switch {
	case w.isPath(target):
		return w.path(ctx, target, 0, 0)
	case lineTargetRE.MatchString(target) && w.isPath(lineTargetRE.FindStringSubmatch(target)[1]):
		m := lineTargetRE.FindStringSubmatch(target)
		start, _ := strconv.Atoi(m[2])
		end := start
		if m[3] != "" {
			end, _ = strconv.Atoi(m[3])
		}
		if start < 1 || end < start {
			return nil, fmt.Errorf("%s: lines are numbered from 1 and a range goes forward (path:start-end)", target)
		}
		return w.path(ctx, m[1], start, end)
	case shaRE.MatchString(target):
		if sha, err := o.Git.ResolveCommit(ctx, target); err == nil {
			return w.commit(ctx, sha)
		}
	}
	if symbolRE.MatchString(target) {
		return w.symbol(ctx, target)
	}
	return nil, fmt.Errorf("%q is not a path in the repository, a path:line, a commit or a symbol", target)
}

type why struct {
	o     *knowledge.Opened
	limit int
	v     knowledge.Voice
	mgr   *adapters.Manager // nil when no adapter is configured
	// asked is set while a caller has asked the adapters already (a
	// symbol explained through the lines that define it).
	asked bool
	notes []string // on the adapters, said after the sections
}

// adapterAsk is the adapters' answers to one ctx_why, asked in parallel
// while the local sections are written; each op is bounded by the
// adapter's own deadline (12 s for history and code unless configured).
type adapterAsk struct {
	wg      sync.WaitGroup
	answers []adapterAnswer
}

type adapterAnswer struct {
	adapter, op string
	hits        []adapters.Hit
	err         error
}

// ask asks every adapter with one of ops about target: code first, as the
// original (code adapters locate a symbol, history adapters follow).
func (w *why) ask(ctx context.Context, target string, ops ...string) *adapterAsk {
	a := &adapterAsk{}
	if w.mgr == nil || w.asked {
		return a
	}
	for _, op := range ops {
		for _, name := range w.mgr.With(op) {
			a.answers = append(a.answers, adapterAnswer{adapter: name, op: op})
		}
	}
	for i := range a.answers {
		a.wg.Add(1)
		go func() {
			defer a.wg.Done()
			ans := &a.answers[i]
			if ans.op == adapters.OpCode {
				ans.hits, ans.err = w.mgr.Code(ctx, ans.adapter, target, w.limit)
			} else {
				ans.hits, ans.err = w.mgr.History(ctx, ans.adapter, target, w.limit)
			}
		}()
	}
	return a
}

// found says whether any adapter answered with hits (it waits for them).
func (a *adapterAsk) found() bool {
	a.wg.Wait()
	for _, ans := range a.answers {
		if len(ans.hits) > 0 {
			return true
		}
	}
	return false
}

// write waits for the adapters and writes a section for each that found
// something ("## From <adapter> (<op>)", a hit a line, as ctx_search
// renders them), then a note for each that failed and the why's own.
func (w *why) write(b *strings.Builder, a *adapterAsk) {
	a.wg.Wait()
	notes := w.notes
	for _, ans := range a.answers {
		if ans.err != nil {
			notes = append(notes, knowledge.OneParagraph(ans.err.Error(), 300))
			continue
		}
		if len(ans.hits) == 0 {
			continue
		}
		fmt.Fprintf(b, "\n## From %s (%s)\n", ans.adapter, ans.op)
		for i, hit := range adapters.AsIndexHits(ans.hits) {
			hit.Source = "" // the heading names it
			b.WriteString(hitLine(i+1, hit) + "\n")
		}
	}
	if len(notes) > 0 {
		b.WriteString("\n")
	}
	for _, n := range notes {
		b.WriteString("Note: " + strings.TrimSuffix(n, ".") + ".\n")
	}
	w.notes = nil
}

func (w *why) isPath(p string) bool {
	abs, err := w.o.Root.Path(p)
	if err != nil {
		return false
	}
	_, err = os.Stat(abs)
	return err == nil
}

// path explains a file or directory, or lines of a file (start > 0).
func (w *why) path(ctx context.Context, target string, start, end int) (*mcp.ToolResult, error) {
	rel, err := w.o.Root.Rel(target)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	title := rel
	if start > 0 {
		title = fmt.Sprintf("%s:%d", rel, start)
		if end > start {
			title += fmt.Sprintf("-%d", end)
		}
	}
	fmt.Fprintf(&b, "# Why %s\n", title)
	ask := w.ask(ctx, title, adapters.OpHistory)

	entries, _ := w.o.Entries()
	w.knowledgeSection(&b, covering(entries, rel))

	var commits []git.Commit
	if start > 0 {
		if reason := w.o.SecretReason(target, rel); reason != "" {
			// Blame prints the lines: a secret file's history is told by
			// its commits alone.
			fmt.Fprintf(&b, "\n## Lines\n%s (%s: kontext never shows its lines).\n", secrets.LeftOut([]string{rel}), reason)
			start = 0
		}
	}
	if start > 0 {
		commits, err = w.blamed(ctx, rel, start, end, &b)
		if err != nil {
			ask.wg.Wait()
			return nil, err
		}
	} else {
		commits, err = w.o.Git.Log(ctx, git.LogOptions{MaxCount: whyHistory, NoMerges: true, Paths: []string{rel}})
		if err != nil {
			ask.wg.Wait()
			return nil, err
		}
	}
	w.commitsSection(&b, commits)
	if !w.asked {
		w.write(&b, ask)
	}
	return mcp.TextResult(strings.TrimRight(b.String(), "\n")), nil
}

// blamed returns the commits that last changed the lines, and shows them.
func (w *why) blamed(ctx context.Context, rel string, start, end int, b *strings.Builder) ([]git.Commit, error) {
	if end-start > 500 {
		end = start + 500
	}
	lines, err := w.o.Git.Blame(ctx, "", rel, start, end)
	if err != nil {
		return nil, fmt.Errorf("git blame %s:%d-%d: %w (is the file committed, and that long?)", rel, start, end, err)
	}
	b.WriteString("\n## Lines\n")
	seen := map[string]bool{}
	var shas []string
	for i, l := range lines {
		if i < w.limit {
			fmt.Fprintf(b, "%d  %s  %s\n", l.Line, short(l.SHA), strings.TrimRight(l.Text, " \t"))
		}
		if !seen[l.SHA] && !strings.HasPrefix(l.SHA, "0000000") {
			seen[l.SHA] = true
			shas = append(shas, l.SHA)
		}
	}
	if len(lines) > w.limit {
		fmt.Fprintf(b, "(+%d more lines)\n", len(lines)-w.limit)
	}
	// One git log for every commit the lines name (up to 500 of them),
	// not a process each.
	var commits []git.Commit
	if len(shas) > 0 {
		cs, err := w.o.Git.Log(ctx, git.LogOptions{Revs: shas})
		if err != nil && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		commits = cs
	}
	if len(shas) == 0 {
		b.WriteString("(these lines are not committed yet)\n")
	}
	return commits, nil
}

// covering returns the entries whose paths cover rel (a file, or any file
// under a directory), active decisions first.
func covering(entries []*store.Entry, rel string) []*store.Entry {
	var out []*store.Entry
	for _, e := range entries {
		for _, p := range e.Paths {
			// The entry covers rel (glob.Match: a directory pattern covers
			// its files), or rel is a directory holding what it governs.
			if glob.Match(p, rel) || strings.HasPrefix(strings.TrimSuffix(p, "/**"), rel+"/") {
				out = append(out, e)
				break
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return rankEntry(out[i]) < rankEntry(out[j]) })
	return out
}

// rankEntry orders knowledge: active decisions, then conventions,
// learnings, incidents, then what is no longer active.
func rankEntry(e *store.Entry) int {
	r := 4
	switch e.Kind {
	case "decision":
		r = 0
	case "convention":
		r = 1
	case "learning":
		r = 2
	case "incident":
		r = 3
	}
	if !e.IsActive() {
		r += 10
	}
	return r
}

func (w *why) knowledgeSection(b *strings.Builder, entries []*store.Entry) {
	b.WriteString("\n## Team knowledge\n")
	if len(entries) == 0 {
		fmt.Fprintf(b, "No entry of the store names these paths. (%s finds entries by topic.)\n", w.v.Tool("ctx_search"))
		return
	}
	for i, e := range entries {
		if i == w.limit {
			fmt.Fprintf(b, "(+%d more)\n", len(entries)-i)
			break
		}
		fmt.Fprintf(b, "- %s\n", entryLine(e))
		if d := e.Section("Decision"); d != "" && e.Kind == "decision" && e.IsActive() {
			fmt.Fprintf(b, "  > %s\n", knowledge.OneParagraph(d, 300))
		}
	}
}

// entryLine is an entry on one line, as briefs and why show it.
func entryLine(e *store.Entry) string {
	meta := []string{e.Kind}
	for _, s := range []string{e.Status, e.Date} {
		if s != "" {
			meta = append(meta, s)
		}
	}
	line := fmt.Sprintf("[%s] kx:%s %s", strings.Join(meta, " · "), e.ID, e.Title)
	if s := e.SummaryText(160); s != "" && s != e.Title {
		line += " — " + s
	}
	return line
}

func (w *why) commitsSection(b *strings.Builder, commits []git.Commit) {
	b.WriteString("\n## Commits that explain it\n")
	if len(commits) == 0 {
		b.WriteString("No commit touches it yet.\n")
		return
	}
	ranked := rankCommits(commits)
	shown := map[string]bool{}
	n := 0
	for _, r := range ranked {
		if n == w.limit || r.score <= 0 && n >= 3 {
			break
		}
		shown[r.c.SHA] = true
		n++
		b.WriteString(commitLine(r.c, r.reasons))
	}
	// The latest changes matter whatever their wording.
	latest := 0
	for i := range commits {
		if latest == 3 {
			break
		}
		if !shown[commits[i].SHA] {
			if latest == 0 {
				b.WriteString("Latest changes:\n")
			}
			latest++
			b.WriteString(commitLine(commits[i], nil))
		}
	}
}

func commitLine(c git.Commit, reasons []string) string {
	line := fmt.Sprintf("- git:%s %s %s: %s", short(c.SHA), c.AuthorTime.Format("2006-01-02"), c.AuthorName, c.Subject)
	if len(reasons) > 0 {
		line += " [" + strings.Join(reasons, ", ") + "]"
	}
	line += "\n"
	if body := knowledge.OneParagraph(c.Body, 240); body != "" {
		line += "  " + body + "\n"
	}
	return line
}

func (w *why) commit(ctx context.Context, sha string) (*mcp.ToolResult, error) {
	cs, err := w.o.Git.Log(ctx, git.LogOptions{Rev: sha, MaxCount: 1, Files: true, Renames: true})
	if err != nil || len(cs) != 1 {
		return nil, fmt.Errorf("cannot read commit %s: %v", sha, err)
	}
	c := cs[0]
	ask := w.ask(ctx, c.SHA, adapters.OpHistory)
	var b strings.Builder
	fmt.Fprintf(&b, "# Why git:%s\n\n%s (%s, %s)\n", short(c.SHA), c.Subject, c.AuthorName, c.AuthorTime.Format("2006-01-02"))
	if c.Body != "" {
		b.WriteString("\n" + clip(c.Body, 2000, w.v.Call("ctx_read", "uri", "git:"+short(c.SHA))) + "\n")
	}
	if score, reasons := decisionScore(c); score > 0 && len(reasons) > 0 {
		b.WriteString("\nDecision signals: " + strings.Join(reasons, ", ") + "\n")
	} else if score == 0 && len(reasons) == 1 {
		b.WriteString("\nAutomated (" + reasons[0] + "): not read as a decision.\n")
	}
	var files, leftOut []string
	for _, f := range c.Files {
		if secrets.IsSecretFile(f.Path) || (f.From != "" && secrets.IsSecretFile(f.From)) {
			leftOut = append(leftOut, f.Path)
			continue
		}
		if f.From != "" {
			files = append(files, string(f.Status)+" "+f.From+" → "+f.Path)
			continue
		}
		files = append(files, string(f.Status)+" "+f.Path)
	}
	b.WriteString("\n## Files\n")
	for i, f := range files {
		if i == w.limit {
			fmt.Fprintf(&b, "(+%d more)\n", len(files)-i)
			break
		}
		b.WriteString("- " + f + "\n")
	}
	if note := secrets.LeftOut(leftOut); note != "" {
		b.WriteString(note + "\n")
	}
	entries, _ := w.o.Entries()
	var related []*store.Entry
	seen := map[string]bool{}
	// The knowledge this commit introduced, or only moved: renames are
	// followed, so a folder rename is not where an ADR came from.
	if len(entries) > 0 {
		intro := introductions(ctx, w.o.Git, w.o.StoreDirs())
		var added, moved []string
		for _, e := range entries {
			in, ok := intro[e.Path]
			switch {
			case !ok:
			case in.SHA == c.SHA:
				added = append(added, fmt.Sprintf("- kx:%s %s", e.ID, e.Title))
				seen[e.ID] = true
				related = append(related, e)
			case in.MovedIn == c.SHA:
				moved = append(moved, fmt.Sprintf("- kx:%s %s: moved from %s; introduced in git:%s", e.ID, e.Title, in.From, short(in.SHA)))
			}
		}
		if len(added) > 0 {
			b.WriteString("\n## Knowledge it introduced\n" + strings.Join(added, "\n") + "\n")
		}
		if len(moved) > 0 {
			b.WriteString("\n## Knowledge it only moved\n" + strings.Join(moved, "\n") + "\n")
		}
	}
	for _, e := range entries {
		for _, cm := range e.Commits {
			if strings.HasPrefix(c.SHA, cm) && len(cm) >= 7 && !seen[e.ID] {
				seen[e.ID] = true
				related = append(related, e)
			}
		}
		if strings.Contains(c.Body, e.ID) && !seen[e.ID] {
			seen[e.ID] = true // named by a trailer or in the message
			related = append(related, e)
		}
	}
	for _, f := range c.Files {
		for _, e := range covering(entries, f.Path) {
			if !seen[e.ID] {
				seen[e.ID] = true
				related = append(related, e)
			}
		}
	}
	w.knowledgeSection(&b, related)
	w.write(&b, ask)
	return mcp.TextResult(strings.TrimRight(b.String(), "\n")), nil
}

// definitionRE recognises a line that declares a symbol in common languages.
func definitionRE(symbol string) *regexp.Regexp {
	s := regexp.QuoteMeta(symbol)
	return regexp.MustCompile(`(?:\b(?:func|type|class|interface|struct|enum|trait|def|fn|const|let|var|module|object|impl)\s+(?:\([^)]*\)\s*)?` + s + `\b)|(?:^\s*(?:export\s+)?(?:default\s+)?(?:async\s+)?(?:function\s*\*?\s*)?` + s + `\s*[=:(])`)
}

// symbol finds where a symbol is defined and explains those lines.
func (w *why) symbol(ctx context.Context, symbol string) (*mcp.ToolResult, error) {
	ask := w.ask(ctx, symbol, adapters.OpCode, adapters.OpHistory)
	res, err := w.localSymbol(ctx, symbol)
	if err != nil {
		if ctx.Err() != nil || !ask.found() {
			ask.wg.Wait()
			return nil, err
		}
		// Not found here, but an adapter knows it.
		var b strings.Builder
		fmt.Fprintf(&b, "# Why %s\n\n%s.\n", symbol, strings.TrimSuffix(err.Error(), "."))
		w.write(&b, ask)
		return mcp.TextResult(strings.TrimRight(b.String(), "\n")), nil
	}
	var b strings.Builder
	w.write(&b, ask)
	if b.Len() > 0 {
		res.Content = append(res.Content, mcp.TextBlock(strings.TrimRight(b.String(), "\n")))
	}
	return res, nil
}

// localSymbol explains a symbol from the repository alone.
func (w *why) localSymbol(ctx context.Context, symbol string) (*mcp.ToolResult, error) {
	// -F: a symbol is text, not a pattern ("." and "$" are in symbols).
	// -z: a path may hold a colon.
	out, err := w.o.Git.Run(ctx, "grep", "-n", "-z", "-I", "-w", "-F", "--untracked", "-e", symbol, "--", ".")
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err != nil && len(out) == 0 {
		return nil, fmt.Errorf("%q is not a path, a line, a commit, or a symbol that appears in the repository", symbol)
	}
	def := definitionRE(symbol)
	type hit struct {
		path string
		line int
		text string
	}
	var defs, uses []hit
	var leftOut []string
	byPath, byContent := map[string]bool{}, map[string]bool{}
	leave := func(p string) {
		if !slices.Contains(leftOut, p) {
			leftOut = append(leftOut, p)
		}
	}
	for i, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		// A common word matches millions of lines: stop with the request.
		if i%4096 == 4095 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		parts := strings.SplitN(l, "\x00", 3)
		if len(parts) != 3 {
			continue
		}
		p := parts[0]
		secret, ok := byPath[p]
		if !ok {
			secret = secrets.IsSecretFile(p)
			byPath[p] = secret
		}
		if secret {
			leave(p)
			continue
		}
		n, _ := strconv.Atoi(parts[1])
		h := hit{p, n, strings.TrimSpace(parts[2])}
		if !def.MatchString(parts[2]) {
			uses = append(uses, h)
			continue
		}
		// Content counts where a line is shown: the definitions, the
		// first of which is blamed.
		secret, ok = byContent[p]
		if !ok {
			secret = w.o.SecretContent(p) != ""
			byContent[p] = secret
		}
		if secret {
			leave(p)
			continue
		}
		defs = append(defs, h)
	}
	sort.Strings(leftOut)
	if len(defs) == 0 {
		if len(uses) == 0 {
			if len(leftOut) > 0 {
				return nil, fmt.Errorf("%q appears only in files kontext never reads (%s)", symbol, secrets.LeftOut(leftOut))
			}
			return nil, fmt.Errorf("%q does not appear in the repository", symbol)
		}
		defs = uses[:1]
	}
	first := defs[0]
	w.asked = true // the symbol's adapters are asked already
	res, err := w.path(ctx, first.path, first.line, first.line)
	w.asked = false
	if err != nil {
		return nil, err
	}
	var note strings.Builder
	fmt.Fprintf(&note, "%s is defined at %s:%d: %s\n", symbol, first.path, first.line, first.text)
	if len(defs) > 1 {
		var others []string
		for _, d := range defs[1:min(len(defs), 6)] {
			others = append(others, fmt.Sprintf("%s:%d", d.path, d.line))
		}
		fmt.Fprintf(&note, "Also defined at %s.\n", strings.Join(others, ", "))
	}
	fmt.Fprintf(&note, "%d other line(s) mention it.\n", len(uses))
	if l := secrets.LeftOut(leftOut); l != "" {
		note.WriteString(l + "\n")
	}
	note.WriteString("\n")
	res.Content = append([]json.RawMessage{mcp.TextBlock(note.String())}, res.Content...)
	return res, nil
}

func short(sha string) string {
	if len(sha) > 8 {
		return sha[:8]
	}
	return sha
}
