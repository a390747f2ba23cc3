// Package freshness finds the decisions that may no longer hold: those
// whose paths saw more than freshness.threshold_commits commits since the
// commit that last changed the decision (a decision recorded or revised
// minutes ago is fresh, whatever date it carries). One `git log
// --name-only` pass since the oldest decision covers them all, and the
// answer is kept per HEAD (in memory, and in a file for the next
// process), so a brief pays for it once per commit.
package freshness

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kontext-dev/kontext/internal/atomicfile"
	"github.com/kontext-dev/kontext/internal/fsroot"
	"github.com/kontext-dev/kontext/internal/git"
	"github.com/kontext-dev/kontext/internal/glob"
	"github.com/kontext-dev/kontext/internal/knowledge/store"
)

// Stale is a decision whose paths changed a lot since it was last changed.
type Stale struct {
	ID string
	// Commits is how many commits touched its paths since Since.
	Commits int
	// Since is the day counting starts: of the commit that last changed
	// the decision's file, or its date when that commit is out of reach.
	Since string
}

// Checker computes and caches the stale decisions of one work tree.
type Checker struct {
	// File keeps the last answer for other processes ("" keeps none).
	File string

	mu      sync.Mutex
	key     string  // the question result answers
	result  []Stale // the answer for key
	last    []Stale // the latest answer to any question: what Quick falls back on
	hasLast bool
	running map[string]*run // questions being answered
}

// run is one computation in progress.
type run struct {
	done   chan struct{}
	result []Stale
	err    error
}

type cached struct {
	Key   string  `json:"key"`
	Stale []Stale `json:"stale"`
}

// maxCommits bounds the pass: past it a decision's count is a lower bound,
// which still flags what changed a lot recently, and a repository with
// decades of history costs no more than one with a few years.
const maxCommits = 10000

// Stale returns the active decisions among entries whose paths saw more
// than threshold commits (non-merge, reachable from HEAD, among the last
// 10,000) after the commit that last changed the decision's file, or after
// its date when that commit is older than the pass. A decision not yet
// committed is fresh. Decisions without a valid date or without paths are
// not judged. The most changed come first.
func (c *Checker) Stale(ctx context.Context, repo *git.Repo, entries []*store.Entry, threshold int) ([]Stale, error) {
	got, _, err := c.answer(ctx, repo, entries, threshold, -1)
	return got, err
}

// Quick is Stale for a caller that cannot wait long (the brief): when the
// answer takes longer than wait, it returns the last answer it knows (for
// an earlier HEAD, or none) with fresh false, and the computation goes on
// in the background for the next call.
func (c *Checker) Quick(ctx context.Context, repo *git.Repo, entries []*store.Entry, threshold int, wait time.Duration) (stale []Stale, fresh bool) {
	got, fresh, err := c.answer(ctx, repo, entries, threshold, wait)
	if err != nil {
		return nil, false
	}
	return got, fresh
}

// answer waits up to wait for the answer (forever when wait < 0).
func (c *Checker) answer(ctx context.Context, repo *git.Repo, entries []*store.Entry, threshold int, wait time.Duration) ([]Stale, bool, error) {
	if threshold <= 0 {
		return nil, true, nil
	}
	var decisions []*store.Entry
	for _, e := range entries {
		if e.Kind == store.KindDecision && e.IsActive() && len(e.Paths) > 0 && store.ValidDate(e.Date) {
			decisions = append(decisions, e)
		}
	}
	if len(decisions) == 0 {
		return nil, true, nil
	}
	head, err := repo.HeadFromRefs(ctx)
	if err != nil || head == "" {
		return nil, true, err
	}
	key := cacheKey(head, threshold, decisions)
	c.mu.Lock()
	if c.key == key {
		defer c.mu.Unlock()
		return c.result, true, nil
	}
	if got, ok := c.readFile(key); ok {
		c.key, c.result, c.last, c.hasLast = key, got, got, true
		c.mu.Unlock()
		return got, true, nil
	}
	r := c.running[key]
	if r == nil {
		r = &run{done: make(chan struct{})}
		if c.running == nil {
			c.running = map[string]*run{}
		}
		c.running[key] = r
		// Not the caller's context: a computation the caller stopped
		// waiting for still fills the cache.
		bg, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Minute)
		go func() {
			defer cancel()
			r.result, r.err = compute(bg, repo, head, decisions, threshold)
			c.mu.Lock()
			delete(c.running, key)
			if r.err == nil {
				c.key, c.result, c.last, c.hasLast = key, r.result, r.result, true
				c.writeFile(key, r.result)
			}
			c.mu.Unlock()
			close(r.done)
		}()
	}
	last, hasLast := c.last, c.hasLast
	c.mu.Unlock()
	if wait < 0 {
		<-r.done
		return r.result, true, r.err
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case <-r.done:
		return r.result, true, r.err
	case <-timer.C:
	case <-ctx.Done():
	}
	if !hasLast {
		if got, ok := c.readFile(""); ok {
			last = got
		}
	}
	return last, false, nil
}

// readFile returns the answer the file keeps for key (any key when key is
// "": the last answer another process found).
func (c *Checker) readFile(key string) ([]Stale, bool) {
	if c.File == "" {
		return nil, false
	}
	data, err := fsroot.Read(nil, c.File, 0)
	if err != nil {
		return nil, false
	}
	var got cached
	if json.Unmarshal(data, &got) != nil || (key != "" && got.Key != key) {
		return nil, false
	}
	return got.Stale, true
}

func (c *Checker) writeFile(key string, result []Stale) {
	if c.File == "" {
		return
	}
	if data, err := json.Marshal(cached{Key: key, Stale: result}); err == nil {
		_ = atomicfile.Write(c.File, data, 0o644) // a cache: losing it costs one pass
	}
}

// cacheKey names one question: HEAD, the threshold, and every judged
// decision's id, file, date and paths.
func cacheKey(head string, threshold int, decisions []*store.Entry) string {
	h := sha256.New()
	fmt.Fprintf(h, "v2\x00%s\x00%d\n", head, threshold)
	for _, e := range decisions {
		fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\n", e.ID, e.Path, e.Date, strings.Join(e.Paths, "\x00"))
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// commit is one commit of the pass: its time and the files it touched
// (indexes into the pass's file table).
type commit struct {
	time  int64
	files []int
}

func compute(ctx context.Context, repo *git.Repo, head string, decisions []*store.Entry, threshold int) ([]Stale, error) {
	oldest := ""
	for _, e := range decisions {
		if d := e.Date[:10]; oldest == "" || d < oldest {
			oldest = d
		}
	}
	since, err := time.Parse("2006-01-02", oldest)
	if err != nil {
		return nil, err
	}
	// A day's margin: --since compares committer dates, the entry's date
	// is a calendar day in someone's time zone.
	out, err := repo.Run(ctx, "log", "-z", "--no-merges", "--name-only", "--format=%x1e%ct", "--max-count="+strconv.Itoa(maxCommits),
		"--since="+strconv.FormatInt(since.Add(-24*time.Hour).Unix(), 10), head, "--")
	if err != nil {
		return nil, err
	}
	// Newest first, as git prints them.
	var commits []commit
	fileIndex := map[string]int{}
	var files []string
	for _, rec := range strings.Split(string(out), "\x1e") {
		if rec == "" {
			continue
		}
		fields := strings.Split(rec, "\x00")
		header, first, _ := strings.Cut(fields[0], "\n")
		t, err := strconv.ParseInt(strings.TrimSpace(header), 10, 64)
		if err != nil {
			continue
		}
		c := commit{time: t}
		names := append([]string{first}, fields[1:]...)
		for _, name := range names {
			name = strings.TrimPrefix(name, "\n")
			if name == "" {
				continue
			}
			i, ok := fileIndex[name]
			if !ok {
				i = len(files)
				fileIndex[name] = i
				files = append(files, name)
			}
			c.files = append(c.files, i)
		}
		commits = append(commits, c)
	}

	// Which commits touch each pattern: patterns are shared by many
	// decisions, so each is matched against each file once.
	touching := map[string][]int{} // pattern → commit indexes, ascending (newest first)
	for _, e := range decisions {
		for _, p := range e.Paths {
			if _, done := touching[p]; done {
				continue
			}
			match := glob.Matcher(p)
			hit := make([]bool, len(files))
			for i, f := range files {
				hit[i] = match(f)
			}
			var list []int
			for ci, c := range commits {
				for _, fi := range c.files {
					if hit[fi] {
						list = append(list, ci)
						break
					}
				}
			}
			touching[p] = list
		}
	}

	var stale []Stale
	for _, e := range decisions {
		// The commit that last changed the entry's file: the newest in
		// the pass that touched it. Without one, the file is not
		// committed yet (fresh) or was last changed before the pass
		// began (counted from its date).
		limit := -1 // count commits with index < limit
		since := ""
		if fi, ok := fileIndex[e.Path]; ok {
			for ci := range commits {
				if containsInt(commits[ci].files, fi) {
					limit = ci
					since = time.Unix(commits[ci].time, 0).UTC().Format("2006-01-02")
					break
				}
			}
		}
		if limit < 0 {
			if _, _, tracked, err := repo.Object(ctx, head+":"+e.Path); err != nil {
				return nil, err
			} else if !tracked {
				continue // recorded, not committed: nothing has changed since
			}
			day, _ := time.Parse("2006-01-02", e.Date[:10])
			limit = sort.Search(len(commits), func(i int) bool { return commits[i].time < day.Unix() })
			since = e.Date[:10]
		}
		seen := map[int]bool{}
		for _, p := range e.Paths {
			for _, ci := range touching[p] {
				if ci >= limit {
					break
				}
				seen[ci] = true
			}
		}
		if n := len(seen); n > threshold {
			stale = append(stale, Stale{ID: e.ID, Commits: n, Since: since})
		}
	}
	sort.SliceStable(stale, func(i, j int) bool {
		if stale[i].Commits != stale[j].Commits {
			return stale[i].Commits > stale[j].Commits
		}
		return stale[i].ID < stale[j].ID
	})
	return stale, nil
}

func containsInt(list []int, v int) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}
