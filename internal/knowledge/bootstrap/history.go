package bootstrap

import (
	"context"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/kontext-dev/kontext/internal/git"
	"github.com/kontext-dev/kontext/internal/knowledge/config"
	"github.com/kontext-dev/kontext/internal/knowledge/wording"
	"github.com/kontext-dev/kontext/internal/lazyregexp"
	"github.com/kontext-dev/kontext/internal/secrets"
	"github.com/kontext-dev/kontext/internal/textclip"
)

// History is the part of the repository's history that explains decisions:
// the scored commits, clustered by the module they changed.
type History struct {
	Version      int       `json:"version"`
	Head         string    `json:"head"`
	Commits      int       `json:"commits"`      // non-merge commits read
	Conventional int       `json:"conventional"` // of them, Conventional Commits
	First        string    `json:"first,omitempty"`
	Last         string    `json:"last,omitempty"`
	Contributors int       `json:"contributors"`
	Clusters     []Cluster `json:"clusters"`
}

// Cluster is a module's decision-shaped commits: one dec: task.
type Cluster struct {
	Area    string      `json:"area"` // the task's name: a module id, "-2" for a later part
	Module  string      `json:"module"`
	Score   float64     `json:"score"`
	Commits []Candidate `json:"commits"`
}

// Candidate is a commit that looks like it records a decision.
type Candidate struct {
	SHA     string   `json:"sha"`
	Date    string   `json:"date"`
	Author  string   `json:"author"`
	Subject string   `json:"subject"`
	Body    string   `json:"body,omitempty"`
	Score   float64  `json:"score"`
	Signals []string `json:"signals"`
	Files   []string `json:"files,omitempty"`
}

// HistoryVersion changes when History's shape or content does (2: secret
// files left out of the candidates' file lists).
const HistoryVersion = 2

// candidateThreshold is the score from which a commit is worth a look.
const candidateThreshold = 3

// clusterMax is the most commits one dec: task holds; clusters below
// clusterMin merge into their parent module's.
const (
	clusterMax = 8
	clusterMin = 3
)

// manifestNames are the files whose diffs reveal dependency swaps.
var manifestNames = map[string]bool{"package.json": true, "go.mod": true, "Cargo.toml": true, "pyproject.toml": true, "requirements.txt": true, "Gemfile": true, "composer.json": true, "pom.xml": true, "build.gradle": true, "build.gradle.kts": true, "mix.exs": true}

// ReadHistory scores the last init.history_max_commits non-merge commits
// and clusters the decision-shaped ones per module of scan.
func ReadHistory(ctx context.Context, repo *git.Repo, scan *Scan, cfg *config.Config) (*History, error) {
	h := &History{Version: HistoryVersion}
	head, err := repo.Head(ctx)
	if err != nil || head == "" {
		return h, err
	}
	h.Head = head
	commits, err := repo.Log(ctx, git.LogOptions{MaxCount: cfg.Init.HistoryMaxCommits, NoMerges: true, Files: true})
	if err != nil {
		return nil, err
	}
	h.Commits = len(commits)
	authors := map[string]bool{}
	var cands []Candidate
	var candModules []string
	for i, c := range commits {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		authors[c.AuthorEmail] = true
		if _, _, ok := wording.Conventional(c.Subject); ok {
			h.Conventional++
		}
		founding := i == len(commits)-1 && len(c.Parents) == 0
		score, signals := scoreCommit(ctx, repo, c, founding)
		if score < candidateThreshold {
			continue
		}
		var files []string
		for _, f := range c.Files {
			if !secrets.IsSecretFile(f.Path) { // the tasks show these lists
				files = append(files, f.Path)
			}
		}
		if len(files) > 20 {
			files = files[:20]
		}
		cands = append(cands, Candidate{
			SHA: c.SHA, Date: c.AuthorTime.Format("2006-01-02"), Author: c.AuthorName,
			Subject: c.Subject, Body: clip(c.Body, 1200), Score: score, Signals: signals, Files: files,
		})
		candModules = append(candModules, majorityModule(scan, c.Files))
	}
	h.Contributors = len(authors)
	if len(commits) > 0 {
		h.Last = commits[0].AuthorTime.Format("2006-01-02")
		h.First = commits[len(commits)-1].AuthorTime.Format("2006-01-02")
	}
	h.Clusters = cluster(scan, cands, candModules, cfg.Init.MaxDecisionTasks)
	return h, nil
}

// scoreCommit weighs a commit's decision signals; a dependency swap in a
// manifest is the strongest.
func scoreCommit(ctx context.Context, repo *git.Repo, c git.Commit, founding bool) (float64, []string) {
	msg := c.Subject + "\n" + c.Body
	score, signals := wording.Score(msg)
	if typ, breaking, ok := wording.Conventional(c.Subject); ok {
		if breaking {
			score += 3
			signals = append(signals, typ+"!")
		} else if typ == "refactor" {
			score += 1.5
			signals = append(signals, "refactor")
		}
	}
	if n := len(strings.Fields(c.Body)); n >= 40 {
		score += 2
		signals = append(signals, "long explanation")
	}
	if founding {
		score += 3
		signals = append(signals, "founding commit")
	}
	if len(c.Parents) == 1 {
		for _, f := range c.Files {
			if !manifestNames[path.Base(f.Path)] || f.Status != 'M' {
				continue
			}
			if added, removed := dependencySwap(ctx, repo, c, f.Path); len(added) > 0 && len(removed) > 0 {
				score += 6
				signals = append(signals, fmt.Sprintf("dependency swap in %s: -%s +%s", f.Path, strings.Join(removed, ","), strings.Join(added, ",")))
				break
			}
		}
	}
	return score, signals
}

var depLineRE = lazyregexp.New(`^\s*"?([@A-Za-z0-9_./-]+)"?\s*[:=<>~ ]`)

// dependencySwap compares the dependency names a manifest lists before and
// after a commit.
func dependencySwap(ctx context.Context, repo *git.Repo, c git.Commit, p string) (added, removed []string) {
	before, ok1, _ := repo.FileAt(ctx, c.Parents[0], p)
	after, ok2, _ := repo.FileAt(ctx, c.SHA, p)
	if !ok1 || !ok2 {
		return nil, nil
	}
	names := func(data []byte) map[string]bool {
		out := map[string]bool{}
		for _, line := range strings.Split(string(data), "\n") {
			if m := depLineRE.FindStringSubmatch(line); m != nil {
				out[m[1]] = true
			}
		}
		return out
	}
	b, a := names(before), names(after)
	for n := range a {
		if !b[n] {
			added = append(added, n)
		}
	}
	for n := range b {
		if !a[n] {
			removed = append(removed, n)
		}
	}
	sort.Strings(added)
	sort.Strings(removed)
	return added, removed
}

// majorityModule is the module most of a commit's files belong to.
func majorityModule(scan *Scan, files []git.FileChange) string {
	counts := map[string]int{}
	for _, f := range files {
		counts[moduleOf(scan, f.Path)]++
	}
	best, bestN := ".", -1
	for _, m := range sortedKeys(counts) {
		if counts[m] > bestN {
			best, bestN = m, counts[m]
		}
	}
	return best
}

// moduleOf is the deepest module containing p.
func moduleOf(scan *Scan, p string) string {
	best := "."
	for _, m := range scan.Modules {
		if m.ID != "." && (p == m.ID || strings.HasPrefix(p, m.ID+"/")) && len(m.ID) > len(best) {
			best = m.ID
		}
	}
	return best
}

// cluster groups candidates by module; small groups merge into their
// parent module's, large ones split into parts of at most clusterMax; the
// best max become tasks.
func cluster(scan *Scan, cands []Candidate, mods []string, max int) []Cluster {
	groups := map[string][]Candidate{}
	for i, c := range cands {
		groups[mods[i]] = append(groups[mods[i]], c)
	}
	// Merge small groups upward, deepest first.
	ids := sortedKeys(groups)
	sort.SliceStable(ids, func(i, j int) bool { return strings.Count(ids[i], "/") > strings.Count(ids[j], "/") })
	for _, id := range ids {
		if id == "." || len(groups[id]) >= clusterMin {
			continue
		}
		parent := parentModule(scan, id)
		groups[parent] = append(groups[parent], groups[id]...)
		delete(groups, id)
	}
	var out []Cluster
	for _, id := range sortedKeys(groups) {
		list := groups[id]
		sort.SliceStable(list, func(i, j int) bool {
			return list[i].Date > list[j].Date || list[i].Date == list[j].Date && list[i].SHA < list[j].SHA
		})
		for part := 0; part*clusterMax < len(list); part++ {
			end := min((part+1)*clusterMax, len(list))
			c := Cluster{Module: id, Area: areaName(id, part), Commits: list[part*clusterMax : end]}
			for _, cand := range c.Commits {
				c.Score += cand.Score
			}
			out = append(out, c)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].Area < out[j].Area
	})
	if max > 0 && len(out) > max {
		out = out[:max]
	}
	return out
}

func parentModule(scan *Scan, id string) string {
	for dir := path.Dir(id); dir != "." && dir != "/"; dir = path.Dir(dir) {
		for _, m := range scan.Modules {
			if m.ID == dir {
				return dir
			}
		}
	}
	return "."
}

// areaName names a cluster's task: the module's directory ("root" for the
// repository's root), with the part number of a split cluster.
func areaName(module string, part int) string {
	if module == "." {
		module = "root"
	}
	if part == 0 {
		return module
	}
	return fmt.Sprintf("%s-%d", module, part+1)
}

func clip(s string, max int) string {
	if len(s) <= max {
		return s
	}
	return textclip.Prefix(s, max) + "…"
}
