package analyze

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/kontext-dev/kontext/internal/git"
	"github.com/kontext-dev/kontext/internal/repo/model"
)

// History is the window of git history the analysis reads, once: the
// commits (merges excluded: they repeat their parents' changes) with the
// paths each touched. Module figures are computed from it without going
// back to git, so a change of module layout does not re-read history.
type History struct {
	Head string
	// Now is where the window ends: HEAD's commit date, or the clock the
	// options gave.
	Now        time.Time
	WindowDays int
	RecentDays int
	Commits    []HistoryCommit // newest first
	// Truncated says MaxCommits cut the window short.
	Truncated bool
}

// HistoryCommit is one commit of the window.
type HistoryCommit struct {
	SHA     string
	Author  string
	Email   string
	Time    time.Time
	Subject string
	Paths   []string
}

// ReadHistory reads the last opts.MaxCommits commits of the last
// opts.WindowDays days in one `git log` pass. The days are counted back
// from opts.Now when it is set, else from HEAD's commit date: a repository
// nobody committed to for a year still shows the activity that made it,
// and the figures of one commit do not change with the day they are read.
func ReadHistory(ctx context.Context, repo *git.Repo, opts Options) (*History, error) {
	anchor := opts.Now
	opts = opts.withDefaults()
	head, err := repo.Head(ctx)
	if err != nil {
		return nil, err
	}
	if anchor.IsZero() && head != "" {
		if anchor, err = commitTime(ctx, repo, head); err != nil {
			return nil, err
		}
	}
	if anchor.IsZero() {
		anchor = time.Now() // no commits: an empty window
	}
	h := &History{Head: head, Now: anchor, WindowDays: opts.WindowDays, RecentDays: opts.RecentDays}
	if head == "" {
		return h, nil
	}
	since := anchor.AddDate(0, 0, -opts.WindowDays)
	err = repo.EachCommit(ctx, git.LogOptions{
		Rev: head, MaxCount: opts.MaxCommits + 1, NoMerges: true, Files: true, Since: since,
	}, func(c git.Commit) error {
		if len(h.Commits) == opts.MaxCommits {
			h.Truncated = true
			return git.Stop
		}
		// --since filters by committer date; the window is about authorship.
		if c.AuthorTime.Before(since) {
			return nil
		}
		hc := HistoryCommit{SHA: c.SHA, Author: c.AuthorName, Email: c.AuthorEmail, Time: c.AuthorTime, Subject: c.Subject}
		for _, f := range c.Files {
			hc.Paths = append(hc.Paths, f.Path)
		}
		h.Commits = append(h.Commits, hc)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return h, nil
}

// commitTime is the committer date of a commit: when it became part of
// the history, which is what "the repository's activity up to HEAD" means.
func commitTime(ctx context.Context, repo *git.Repo, sha string) (time.Time, error) {
	out, err := repo.Run(ctx, "log", "-1", "--format=%ct", sha, "--")
	if err != nil {
		return time.Time{}, err
	}
	secs, err := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("the commit date of %s: %q: %w", sha, out, err)
	}
	return time.Unix(secs, 0).UTC(), nil
}

// authorKey identifies a person across name spellings by email.
func authorKey(c *HistoryCommit) string {
	if e := strings.ToLower(strings.TrimSpace(c.Email)); e != "" {
		return e
	}
	return c.Author
}

// GitSignals sets each module's Git figures and g.Git from h. The change
// frequency bucket is relative to this repository: a module's mid-rank
// among the modules that changed at all, in thirds (low, medium, high).
func GitSignals(g *model.Graph, h *History) {
	if h == nil {
		return
	}
	gitSignals(g, newIndex(g), h)
}

func gitSignals(g *model.Graph, ix *index, h *History) {
	if h == nil {
		return
	}
	type acc struct {
		changes, recent int
		last            time.Time
		authors         map[string]int
		names           map[string]string
	}
	accs := map[string]*acc{}
	recentStart := h.Now.AddDate(0, 0, -h.RecentDays)
	people := map[string]bool{}
	sum := &model.GitSummary{WindowDays: h.WindowDays, WindowEnd: h.Now}
	for i := range h.Commits {
		c := &h.Commits[i]
		key := authorKey(c)
		people[key] = true
		if sum.LastCommit.IsZero() || c.Time.After(sum.LastCommit) {
			sum.LastCommit = c.Time
		}
		if sum.FirstCommit.IsZero() || c.Time.Before(sum.FirstCommit) {
			sum.FirstCommit = c.Time
		}
		touched := map[string]bool{}
		for _, p := range c.Paths {
			if m := ix.moduleOf(p); m != "" {
				touched[m] = true
			}
		}
		for m := range touched {
			a := accs[m]
			if a == nil {
				a = &acc{authors: map[string]int{}, names: map[string]string{}}
				accs[m] = a
			}
			a.changes++
			if !c.Time.Before(recentStart) {
				a.recent++
			}
			if c.Time.After(a.last) {
				a.last = c.Time
			}
			a.authors[key]++
			if a.names[key] == "" {
				a.names[key] = c.Author // newest first: the name they use now
			}
		}
	}
	sum.Commits = len(h.Commits)
	sum.Contributors = len(people)
	g.Git = sum

	var counts []int
	for _, a := range accs {
		counts = append(counts, a.changes)
	}
	sort.Ints(counts)
	for i := range g.Modules {
		m := &g.Modules[i]
		a := accs[m.ID]
		if a == nil {
			m.Git = &model.ModuleGit{ChangeFrequency: "none"}
			continue
		}
		top := make([]model.Contributor, 0, len(a.authors))
		for k, n := range a.authors {
			top = append(top, model.Contributor{Name: a.names[k], Commits: n})
		}
		sort.Slice(top, func(i, j int) bool {
			if top[i].Commits != top[j].Commits {
				return top[i].Commits > top[j].Commits
			}
			return top[i].Name < top[j].Name
		})
		if len(top) > 3 {
			top = top[:3]
		}
		m.Git = &model.ModuleGit{
			Changes: a.changes, RecentChanges: a.recent, LastChanged: a.last,
			ChangeFrequency: frequency(counts, a.changes), Contributors: len(a.authors), TopContributors: top,
		}
	}
}

// frequency buckets a change count by its mid-rank in the sorted counts
// of the modules that changed: the lower third is low, the upper high.
func frequency(sorted []int, n int) string {
	if n <= 0 || len(sorted) == 0 {
		return "none"
	}
	less := sort.SearchInts(sorted, n)
	eq := sort.SearchInts(sorted, n+1) - less
	p := (float64(less) + 0.5*float64(eq)) / float64(len(sorted))
	switch {
	case p < 1.0/3:
		return "low"
	case p > 2.0/3:
		return "high"
	}
	return "medium"
}

// HistoryEntry is one commit in a module's or file's history.
type HistoryEntry = model.HistoryEntry

// ModuleHistory lists the commits of h that touched target (a module id,
// a directory or a file), newest first, at most limit of them.
func ModuleHistory(g *model.Graph, h *History, target string, limit int) (entries []HistoryEntry, truncated bool) {
	if h == nil {
		return nil, false
	}
	if limit <= 0 {
		limit = 20
	}
	target = cleanTarget(target)
	ix := newIndex(g)
	_, isModule := ix.modules[target]
	for i := range h.Commits {
		c := &h.Commits[i]
		var files []string
		for _, p := range c.Paths {
			if inDir(p, target) || isModule && ix.moduleOf(p) == target {
				files = append(files, p)
			}
		}
		if len(files) == 0 {
			continue
		}
		if len(entries) == limit {
			return entries, true
		}
		if len(files) > 10 {
			files = files[:10]
		}
		entries = append(entries, HistoryEntry{
			SHA: c.SHA, Date: c.Time, Author: c.Author, Subject: excerptTitle(c.Subject), Files: files,
			ArchitectureSignal: reArchSubject.MatchString(c.Subject),
		})
	}
	return entries, false
}

// cleanTarget normalises a user-given path: slashes, no ./ or trailing /.
func cleanTarget(t string) string {
	t = strings.TrimSpace(strings.ReplaceAll(t, "\\", "/"))
	for strings.HasPrefix(t, "./") {
		t = t[2:]
	}
	t = strings.TrimRight(t, "/")
	if t == "" {
		return "."
	}
	return t
}
