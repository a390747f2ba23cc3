package knowledge

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/kontext-dev/kontext/internal/fsroot"
	"github.com/kontext-dev/kontext/internal/knowledge/bootstrap"
	"github.com/kontext-dev/kontext/internal/knowledge/check"
	"github.com/kontext-dev/kontext/internal/knowledge/freshness"
	"github.com/kontext-dev/kontext/internal/knowledge/hooks"
	"github.com/kontext-dev/kontext/internal/knowledge/store"
)

// maxStaleLines and maxStatusStale bound the stale decisions the brief and
// kontext status name (the most changed first): both stay one screen.
const (
	maxStaleLines  = 5
	maxStatusStale = 12
)

// openAt opens the knowledge of the repository at dir (or the root the
// environment names) for a one-shot command.
func openAt(ctx context.Context, dir string) (*Service, *Opened, error) {
	choice, err := fsroot.Choose(dir, os.Getenv)
	if err != nil {
		return nil, nil, err
	}
	svc := NewService(choice.Dir)
	o, err := svc.Open(ctx)
	if err != nil {
		return nil, nil, err
	}
	return svc, o, nil
}

// Check runs `kontext check [--staged]` on the repository at dir: one line
// per problem (`path:line: error|warning: message`) and a summary line on
// w. It returns the number of errors.
func Check(ctx context.Context, dir string, staged bool, w io.Writer) (int, error) {
	svc, o, err := openAt(ctx, dir)
	if err != nil {
		return 0, err
	}
	defer svc.Close()
	name := "kontext check"
	if staged {
		name += " --staged"
	}
	if !o.Store.Exists() {
		fmt.Fprintf(w, "%s: no knowledge store (%s/) in this repository: nothing to check\n", name, o.Store.Dir())
		return 0, nil
	}
	t := o.checkTarget()
	var res *check.Result
	if staged {
		changes, err := check.StagedChanges(ctx, o.Git)
		if err != nil {
			return 0, err
		}
		if res, err = t.Staged(ctx, changes, nil, check.StagedOptions{}); err != nil {
			return 0, err
		}
	} else if res, err = t.WorkTree(ctx); err != nil {
		return 0, err
	}
	for _, p := range res.Problems {
		fmt.Fprintln(w, check.Line(p))
	}
	switch {
	case staged && res.Files == 0 && len(res.Problems) == 0:
		fmt.Fprintf(w, "%s: no knowledge is staged\n", name)
	case staged:
		fmt.Fprintf(w, "%s: %s staged: %s\n", name, Plural(res.Files, "file", "files"), res.Counts())
	default:
		fmt.Fprintf(w, "%s: %s in %s: %s\n", name, Plural(res.Files, "file", "files"), strings.Join(t.Dirs(), ", "), res.Counts())
	}
	return res.Errors(), nil
}

func (o *Opened) checkTarget() *check.Target {
	return &check.Target{Repo: o.Git, Store: o.Store, Config: o.Config, Scanner: o.Secrets}
}

// Status renders `kontext status` for the repository at dir: the store,
// the inbox, stale decisions, problems, the hooks and the bootstrap, on
// one screen.
func Status(ctx context.Context, dir string) (string, error) {
	svc, o, err := openAt(ctx, dir)
	if err != nil {
		return "", err
	}
	defer svc.Close()
	return o.status(ctx, svc.Getenv), nil
}

func (o *Opened) status(ctx context.Context, getenv func(string) string) string {
	var b strings.Builder
	branch := o.State.Branch
	if branch == "" {
		branch = "detached HEAD"
	}
	fmt.Fprintf(&b, "kontext status — %s · %s\n\n", o.Config.Identity.ID, branch)
	row := func(label, text string) { fmt.Fprintf(&b, "%-10s %s\n", label, text) }

	entries, loadErr := o.Entries()
	exists := o.Store.Exists()
	if exists {
		row("Store", o.Store.Dir()+"/ — "+storeSummary(entries))
		if loadErr != nil {
			row("", "some entries could not be read: "+OneParagraph(loadErr.Error(), 200))
		}
	} else {
		row("Store", fmt.Sprintf("none yet (%s/): kontext init sets it up; until then captures stay private", o.Store.Dir()))
	}

	row("Inbox", o.inboxSummary(ctx))

	if exists {
		stale, err := o.stale(ctx, entries)
		switch {
		case o.Config.Freshness.ThresholdCommits <= 0:
			row("Stale", "not checked (freshness.threshold_commits is 0)")
		case err != nil:
			row("Stale", "not known: "+err.Error())
		case len(stale) == 0:
			row("Stale", fmt.Sprintf("none (no decision's paths saw more than %d commits since it was last committed)", o.Config.Freshness.ThresholdCommits))
		default:
			row("Stale", fmt.Sprintf("%s whose paths saw more than %d commits since it was last committed — check they still hold:", Plural(len(stale), "decision", "decisions"), o.Config.Freshness.ThresholdCommits))
			for i, s := range stale {
				if i == maxStatusStale && len(stale) > maxStatusStale+1 {
					row("", fmt.Sprintf("  (+%d more, less changed)", len(stale)-i))
					break
				}
				row("", fmt.Sprintf("  kx:%s — %d commits to its paths since %s", s.ID, s.Commits, s.Since))
			}
		}
		if res, err := o.checkTarget().WorkTree(ctx); err != nil {
			row("Problems", "not known: "+err.Error())
		} else if len(res.Problems) == 0 {
			row("Problems", "none (kontext check)")
		} else {
			text := res.Counts() + " (kontext check lists them)"
			if res.Errors() > 0 {
				text += "; errors block commits"
			}
			row("Problems", text)
		}
	}

	if text := o.adaptersRow(getenv); text != "" {
		row("Adapters", text)
	}

	if st, err := o.hookStatus(ctx); err != nil {
		row("Hooks", "not known: "+err.Error())
	} else {
		row("Hooks", hooksSummary(st))
	}
	if p := BootstrapProgress(o, Voice{Shell: true}, entries); p != "" {
		row("Bootstrap", p)
	}
	return strings.TrimRight(b.String(), "\n")
}

// storeSummary counts the entries per kind, and for each kind that has
// retired entries, how many are active.
func storeSummary(entries []*store.Entry) string {
	type count struct {
		total, active int
		retired       map[string]int
	}
	byKind := map[string]*count{}
	var kinds []string
	for _, e := range entries {
		c := byKind[e.Kind]
		if c == nil {
			c = &count{retired: map[string]int{}}
			byKind[e.Kind] = c
			kinds = append(kinds, e.Kind)
		}
		c.total++
		if e.IsActive() {
			c.active++
		} else {
			c.retired[e.Status]++
		}
	}
	order := map[string]int{store.KindDecision: 0, store.KindConvention: 1, store.KindLearning: 2, store.KindIncident: 3, store.KindArchitecture: 4}
	sort.SliceStable(kinds, func(i, j int) bool {
		oi, ok := order[kinds[i]]
		if !ok {
			oi = len(order)
		}
		oj, ok := order[kinds[j]]
		if !ok {
			oj = len(order)
		}
		if oi != oj {
			return oi < oj
		}
		return kinds[i] < kinds[j]
	})
	if len(kinds) == 0 {
		return "no entries yet"
	}
	var parts []string
	for _, k := range kinds {
		c := byKind[k]
		name := k + "s"
		if k == store.KindArchitecture {
			name = "architecture docs"
			if c.total == 1 {
				name = "architecture doc"
			}
		} else if c.total == 1 {
			name = k
		}
		part := fmt.Sprintf("%d %s", c.total, name)
		if c.active < c.total {
			details := []string{fmt.Sprintf("%d active", c.active)}
			var statuses []string
			for s := range c.retired {
				statuses = append(statuses, s)
			}
			sort.Strings(statuses)
			for _, s := range statuses {
				details = append(details, fmt.Sprintf("%d %s", c.retired[s], s))
			}
			part += " (" + strings.Join(details, ", ") + ")"
		}
		parts = append(parts, part)
	}
	return Plural(len(entries), "entry", "entries") + ": " + strings.Join(parts, ", ")
}

func (o *Opened) inboxSummary(ctx context.Context) string {
	cands, err := o.State.List(ctx)
	if err != nil {
		return "not readable: " + err.Error()
	}
	here, elsewhere, private := 0, 0, 0
	for _, c := range cands {
		switch {
		case c.Private():
			private++
		case c.Here:
			here++
		default:
			elsewhere++
		}
	}
	if here+elsewhere+private == 0 {
		return "empty"
	}
	var parts []string
	if here > 0 {
		parts = append(parts, Plural(here, "team candidate", "team candidates")+" from this worktree")
	}
	if elsewhere > 0 {
		parts = append(parts, Plural(elsewhere, "team candidate", "team candidates")+" from other worktrees")
	}
	if private > 0 {
		parts = append(parts, Plural(private, "private capture", "private captures"))
	}
	text := strings.Join(parts, ", ")
	if here+elsewhere > 0 {
		text += " (kontext inbox; promote with the commit: kontext prepare-commit --promote <id>)"
	}
	return text
}

func hooksSummary(st hooks.Status) string {
	missing, outdated, broken := st.Missing(), st.Outdated(), st.Broken()
	gone, _ := st.Gone()
	switch {
	case len(missing) == len(st.Hooks):
		return fmt.Sprintf("not installed in %s (kontext hooks install)", st.Location)
	case len(missing) > 0:
		return fmt.Sprintf("%s missing in %s (kontext hooks install)", strings.Join(missing, ", "), st.Location)
	case len(broken) > 0:
		which := "they do"
		if len(broken) < len(st.Hooks) {
			which = strings.Join(broken, ", ") + " do"
		}
		return fmt.Sprintf("installed in %s, but %s nothing: %s (kontext hooks install)", st.Location, which, noKontext(gone))
	case gone != "":
		return fmt.Sprintf("installed in %s; the kontext they call, %s, is missing, so they run the one on PATH (kontext hooks install records it)", st.Location, gone)
	case len(outdated) > 0:
		return fmt.Sprintf("installed in %s; %s carry an older block (kontext hooks install updates them)", st.Location, strings.Join(outdated, ", "))
	}
	text := fmt.Sprintf("installed in %s (%s)", st.Location, strings.Join(hooks.Names, ", "))
	if len(st.Hooks) > 0 && st.Hooks[0].Calls != "" {
		text += "; they call " + st.Hooks[0].Calls
	}
	return text
}

// noKontext says why installed hooks do nothing.
func noKontext(gone string) string {
	if gone != "" {
		return "the kontext they call, " + gone + ", is missing, and no kontext is on PATH"
	}
	return "no kontext is on PATH"
}

// BootstrapProgress says how far the deepening of the bootstrap's docs is
// ("" when there is nothing left to deepen). The deepening is an agent's
// work: a person is told to ask for it.
func BootstrapProgress(o *Opened, v Voice, entries []*store.Entry) string {
	p := bootstrap.StoreProgress(entries, o.Config, o.Store, o.State.Dir)
	if p.Rendered == 0 || p.Deepened >= p.Rendered {
		return ""
	}
	next := "ctx_init gives the next tasks"
	if v.Shell {
		next = "ask your agent to run ctx_init (the kontext-init prompt) for the next tasks"
	}
	return fmt.Sprintf("%d of %d architecture docs deepened; %s", p.Deepened, p.Rendered, next)
}

// extras are the per-repository answers the brief and status reuse between
// calls: stale decisions per HEAD, and where the hooks live.
type extras struct {
	freshOnce sync.Once
	fresh     freshness.Checker

	hooksMu    sync.Mutex
	hooksStamp string
	hooksLoc   hooks.Location
}

// stale returns the decisions whose paths changed more than the threshold
// since they were made (computed once per HEAD and state of the store).
func (o *Opened) stale(ctx context.Context, entries []*store.Entry) ([]freshness.Stale, error) {
	return o.freshness().Stale(ctx, o.Git, entries, o.Config.Freshness.ThresholdCommits)
}

// briefFreshnessWait bounds what the brief waits for the stale decisions
// after a commit; a longer pass finishes in the background, and the brief
// says what the last one found meanwhile.
const briefFreshnessWait = 250 * time.Millisecond

func (o *Opened) freshness() *freshness.Checker {
	x := &o.extras
	x.freshOnce.Do(func() {
		x.fresh.File = filepath.Join(o.State.Dir, "worktrees", o.State.Worktree, "freshness.json")
	})
	return &x.fresh
}

// hookStatus inspects the hooks; where they live is asked of git again
// only when the repository's configuration file changes.
func (o *Opened) hookStatus(ctx context.Context) (hooks.Status, error) {
	x := &o.extras
	stamp := fileStamp(filepath.Join(o.Git.CommonDir, "config")) + fileStamp(filepath.Join(o.Git.GitDir, "config.worktree"))
	x.hooksMu.Lock()
	defer x.hooksMu.Unlock()
	if x.hooksStamp != stamp || x.hooksLoc.Dir == "" {
		loc, err := hooks.Locate(ctx, o.Git)
		if err != nil {
			return hooks.Status{}, err
		}
		x.hooksStamp, x.hooksLoc = stamp, loc
	}
	return hooks.InspectDir(x.hooksLoc), nil
}

func fileStamp(p string) string {
	info, err := os.Stat(p)
	if err != nil {
		return "-;"
	}
	return fmt.Sprintf("%d:%d;", info.Size(), info.ModTime().UnixNano())
}

// StaleAndHooksLines are the brief's State lines about stale decisions
// and missing hooks.
func (o *Opened) StaleAndHooksLines(ctx context.Context, entries []*store.Entry) []string {
	var lines []string
	if stale, _ := o.freshness().Quick(ctx, o.Git, entries, o.Config.Freshness.ThresholdCommits, briefFreshnessWait); len(stale) > 0 {
		for i, s := range stale {
			if i == maxStaleLines {
				lines = append(lines, fmt.Sprintf("- Stale: %d more decisions, less changed (kontext status)", len(stale)-i))
				break
			}
			lines = append(lines, fmt.Sprintf("- Stale: kx:%s (%d commits to its paths since %s) — check it still holds", s.ID, s.Commits, s.Since))
		}
	}
	if st, err := o.hookStatus(ctx); err == nil {
		missing, broken := st.Missing(), st.Broken()
		gone, _ := st.Gone()
		switch {
		case len(missing) == len(st.Hooks):
			lines = append(lines, "- Hooks: not installed (kontext hooks install)")
		case len(missing) > 0:
			lines = append(lines, "- Hooks: "+strings.Join(missing, ", ")+" not installed (kontext hooks install)")
		case len(broken) > 0:
			lines = append(lines, "- Hooks: installed, but they do nothing: "+noKontext(gone)+" (kontext hooks install)")
		case gone != "":
			lines = append(lines, "- Hooks: the kontext they call, "+gone+", is missing; they run the one on PATH (kontext hooks install)")
		}
	}
	return lines
}
