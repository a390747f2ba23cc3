package bootstrap

import (
	"context"
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/kontext-dev/kontext/internal/git"
	"github.com/kontext-dev/kontext/internal/knowledge/config"
	"github.com/kontext-dev/kontext/internal/knowledge/wording"
	"github.com/kontext-dev/kontext/internal/lazyregexp"
	"github.com/kontext-dev/kontext/internal/repo/scan"
	"github.com/kontext-dev/kontext/internal/secrets"
	"github.com/kontext-dev/kontext/internal/textclip"
)

// History is the part of the repository's history that explains decisions:
// the scored commits, clustered by the scope and the module they changed.
type History struct {
	Version int    `json:"version"`
	Head    string `json:"head"`
	Commits int    `json:"commits"` // non-merge commits read
	// Automated are the commits of bots and the dependency bumps among
	// them: read, never scored.
	Automated int `json:"automated"`
	// Bots names the automation that committed ("dependabot", "renovate").
	Bots         []string `json:"bots,omitempty"`
	Conventional int      `json:"conventional"`    // of the people's commits, Conventional Commits
	First        string   `json:"first,omitempty"` // the date of the oldest commit read
	// Founded is the date of the repository's first commit (of the oldest
	// root commit), read beyond the window when it is full.
	Founded      string    `json:"founded,omitempty"`
	Last         string    `json:"last,omitempty"`
	Contributors int       `json:"contributors"` // people, bots not counted
	Clusters     []Cluster `json:"clusters"`
}

// ConventionalCommits reports whether the people's commits follow
// Conventional Commits: three in five of them, so that a history near the
// line does not flip with every commit.
func (h *History) ConventionalCommits() bool {
	people := h.Commits - h.Automated
	return people >= 10 && h.Conventional*5 >= people*3
}

// Cluster is decision-shaped commits of one module, one commit scope or,
// where there is neither, one directory: one dec: task.
type Cluster struct {
	Area string `json:"area"` // the task's name: a module id, a scope, a directory, "root"; "-2" for a later part
	// Module is the module or directory the commits changed ("." for the
	// root and for a scope).
	Module string `json:"module"`
	// Scope is the Conventional Commits scope that grouped the commits
	// when no module did (Module is then ".").
	Scope   string      `json:"scope,omitempty"`
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
	// Files are the files it changed, where they are at HEAD: renames
	// followed, files deleted since left out.
	Files []string `json:"files,omitempty"`
	// Added are the dependencies a swap brought in (for telling which
	// recorded decision covers it).
	Added []string `json:"added,omitempty"`
}

// HistoryVersion changes when History's shape, content or the scoring
// does (2: secret files left out of the candidates' file lists, bots and
// bumps left unscored, clusters by scope): a cached history of another
// version is read again.
const HistoryVersion = 2

// candidateThreshold is the score from which a commit is worth a look.
const candidateThreshold = 3

// clusterMax is the most commits one dec: task holds; clusters below
// clusterMin merge into their parent module's.
const (
	clusterMax = 8
	clusterMin = 3
)

// areaTypes are the Conventional Commits types that name an area of the
// repository (its CI, its docs, its build) rather than a kind of change:
// unscoped, they group like a scope.
var areaTypes = map[string]bool{"ci": true, "docs": true, "build": true, "test": true}

// maxCandidateFiles bounds the files kept per candidate.
const maxCandidateFiles = 20

// isManifest reports whether a file's diffs can reveal a dependency swap.
func isManifest(p string) bool {
	switch base := path.Base(p); base {
	case "package.json", "go.mod", "Cargo.toml", "pyproject.toml", "Gemfile", "composer.json", "pom.xml",
		"build.gradle", "build.gradle.kts", "mix.exs", "Pipfile", "setup.cfg", "deno.json", "deno.jsonc":
		return true
	default:
		return strings.HasPrefix(base, "requirements") && strings.HasSuffix(base, ".txt") ||
			strings.HasSuffix(base, ".csproj") || strings.HasSuffix(base, ".fsproj")
	}
}

// scored is a commit on its way to becoming a candidate: its message is
// scored as it streams by; the manifests it changed are compared once the
// stream has ended, with every blob read in one batch.
type scored struct {
	cand      Candidate
	manifests []git.FileChange
	touched   []string // every file it changed, at its HEAD path
	scope     string
	root      bool // a root commit
}

// ReadHistory scores the last init.history_max_commits non-merge commits in
// one `git log` stream, leaving out bots and dependency bumps, and
// clusters the decision-shaped ones by commit scope and module of scan.
// founded is the date of the first commit when an earlier read knows it
// ("" has it read, beside the stream: it needs a walk of the whole
// history when the stream stops short of it).
func ReadHistory(ctx context.Context, repo *git.Repo, s *Scan, cfg *config.Config, founded string) (*History, error) {
	h := &History{Version: HistoryVersion}
	head, err := repo.Head(ctx)
	if err != nil || head == "" {
		return h, err
	}
	h.Head = head
	atHead, err := headFiles(ctx, repo)
	if err != nil {
		return nil, err
	}
	// renamedTo maps a path to the one it was renamed to by a newer commit
	// (the log runs newest first), so that an older commit's files are
	// named as they are at HEAD.
	renamedTo := map[string]string{}
	resolve := func(p string) string {
		for range 64 { // a chain of renames, never a loop
			next, ok := renamedTo[p]
			if !ok || next == p {
				break
			}
			p = next
		}
		return p
	}
	// The date of the first commit: from the stream when it reaches it,
	// else from a walk of the rest of the history, run beside the stream.
	rootRead := make(chan string, 1)
	if founded != "" {
		rootRead <- founded
	} else {
		go func() { rootRead <- rootDate(ctx, repo) }()
	}
	var rootSeen string
	people := map[string]bool{}
	bots := map[string]string{} // lower-cased → as written
	var kept []*scored
	var oldest *scored
	// A cherry-picked commit is read once: the newest copy.
	seenMessage := map[string]bool{}
	err = repo.EachCommit(ctx, git.LogOptions{MaxCount: cfg.Init.HistoryMaxCommits, NoMerges: true, Raw: true, Renames: true}, func(c git.Commit) error {
		h.Commits++
		date := c.AuthorTime.Format("2006-01-02")
		if h.Last == "" {
			h.Last = date
		}
		h.First = date
		touched := make([]string, 0, len(c.Files))
		for _, f := range c.Files {
			touched = append(touched, resolve(f.Path))
		}
		if len(c.Parents) == 0 && (rootSeen == "" || date < rootSeen) {
			rootSeen = date
		}
		for _, f := range c.Files {
			if f.Status == 'R' && f.From != "" {
				renamedTo[f.From] = resolve(f.Path)
			}
		}
		oldest = nil
		if why := wording.Automated(c.AuthorName, c.AuthorEmail, c.Subject); why != "" {
			h.Automated++
			if name := wording.BotName(c.AuthorName); why == "bot" && bots[strings.ToLower(name)] == "" {
				bots[strings.ToLower(name)] = name
			}
			return nil
		}
		people[strings.ToLower(c.AuthorEmail)] = true
		if _, _, ok := wording.Conventional(c.Subject); ok {
			h.Conventional++
		}
		sc := &scored{touched: touched, scope: wording.Scope(c.Subject), root: len(c.Parents) == 0}
		if typ, _, ok := wording.Conventional(c.Subject); ok && sc.scope == "" && areaTypes[strings.ToLower(typ)] {
			// "ci: …", "docs: …" name an area of their own.
			sc.scope = strings.ToLower(typ)
		}
		sc.cand = Candidate{SHA: c.SHA, Date: date, Author: c.AuthorName, Subject: c.Subject, Body: clip(c.Body, 1200)}
		sc.cand.Score, sc.cand.Signals = scoreMessage(c)
		if len(c.Parents) == 1 {
			for _, f := range c.Files {
				if isManifest(f.Path) && (f.Status == 'M' || f.Status == 'R') && f.OldBlob != "" && f.NewBlob != "" && f.OldBlob != f.NewBlob {
					sc.manifests = append(sc.manifests, f)
				}
			}
		}
		for _, p := range touched {
			// The tasks show these lists: never a secret file's name.
			if atHead[p] && !secrets.IsSecretFile(p) && len(sc.cand.Files) < maxCandidateFiles {
				sc.cand.Files = append(sc.cand.Files, p)
			}
		}
		oldest = sc
		if sc.cand.Score >= candidateThreshold || len(sc.manifests) > 0 {
			if msg := c.Subject + "\n" + c.Body; !seenMessage[msg] {
				seenMessage[msg] = true
				kept = append(kept, sc)
			}
		}
		return nil
	})
	h.Founded = <-rootRead
	if err != nil {
		return nil, err
	}
	if h.Founded == "" {
		h.Founded = rootSeen
	}
	h.Contributors = len(people)
	for _, k := range sortedKeys(bots) {
		h.Bots = append(h.Bots, bots[k])
	}
	// The oldest commit read is the founding one when it has no parent.
	if oldest != nil && oldest.root {
		oldest.cand.Score += 3
		oldest.cand.Signals = append(oldest.cand.Signals, "founding commit")
		if len(kept) == 0 || kept[len(kept)-1] != oldest {
			kept = append(kept, oldest)
		}
	}
	if err := scoreSwaps(ctx, repo, kept); err != nil {
		return nil, err
	}
	var cands []*scored
	for _, sc := range kept {
		if sc.cand.Score >= candidateThreshold {
			cands = append(cands, sc)
		}
	}
	h.Clusters = cluster(s, cands, cfg.Init.MaxDecisionTasks)
	return h, nil
}

// rootDate is the date of the oldest root commit ("" when it cannot be
// read).
func rootDate(ctx context.Context, repo *git.Repo) string {
	out, err := repo.Run(ctx, "log", "--max-parents=0", "--format=%at", "HEAD")
	if err != nil {
		return ""
	}
	oldest := int64(0)
	for _, f := range strings.Fields(string(out)) {
		if n, err := strconv.ParseInt(f, 10, 64); err == nil && (oldest == 0 || n < oldest) {
			oldest = n
		}
	}
	if oldest == 0 {
		return ""
	}
	return time.Unix(oldest, 0).UTC().Format("2006-01-02")
}

// headFiles is the set of files in HEAD's tree.
func headFiles(ctx context.Context, repo *git.Repo) (map[string]bool, error) {
	out, err := repo.Run(ctx, "ls-tree", "-r", "-z", "--name-only", "--full-tree", "HEAD")
	if err != nil {
		return nil, err
	}
	files := map[string]bool{}
	for _, p := range strings.Split(string(out), "\x00") {
		if p != "" {
			files[p] = true
		}
	}
	return files, nil
}

// scoreMessage weighs a commit message's decision signals. Quoted lines are
// someone else's words (release notes, a review), not the author's reasons.
func scoreMessage(c git.Commit) (float64, []string) {
	body := unquoted(c.Body)
	score, signals := wording.Score(c.Subject + "\n" + body)
	if typ, breaking, ok := wording.Conventional(c.Subject); ok {
		if breaking {
			score += 3
			signals = append(signals, typ+"!")
		} else if typ == "refactor" {
			score += 1.5
			signals = append(signals, "refactor")
		}
	}
	if n := len(strings.Fields(body)); n >= 40 {
		score += 2
		signals = append(signals, "long explanation")
	}
	return score, signals
}

// unquoted is a message body without its quoted lines ("> …").
func unquoted(body string) string {
	if !strings.Contains(body, ">") {
		return body
	}
	lines := strings.Split(body, "\n")
	kept := lines[:0]
	for _, l := range lines {
		if !strings.HasPrefix(strings.TrimLeft(l, " \t"), ">") {
			kept = append(kept, l)
		}
	}
	return strings.Join(kept, "\n")
}

// scoreSwaps compares the dependencies of the manifests the kept commits
// changed, reading every version in one batch: a dependency replaced by
// another is the strongest signal of a decision; an upgrade of the same
// dependency (a new version, a new major version path) is none.
func scoreSwaps(ctx context.Context, repo *git.Repo, kept []*scored) error {
	var ids []string
	for _, sc := range kept {
		for _, f := range sc.manifests {
			ids = append(ids, f.OldBlob, f.NewBlob)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	blobs, err := repo.Blobs(ctx, ids)
	if err != nil {
		return err
	}
	parsed := map[string]map[string]string{} // blob → its dependencies by key
	depsOf := func(p, blob string) map[string]string {
		if d, ok := parsed[blob]; ok {
			return d
		}
		d := dependencyNames(p, blobs[blob])
		parsed[blob] = d
		return d
	}
	for _, sc := range kept {
		for _, f := range sc.manifests {
			before, ok1 := blobs[f.OldBlob]
			after, ok2 := blobs[f.NewBlob]
			if !ok1 || !ok2 || path.Base(f.Path) == "go.mod" && !goMayHaveSwapped(before, after) {
				continue
			}
			added, removed := dependencySwap(depsOf(f.Path, f.OldBlob), depsOf(f.Path, f.NewBlob))
			if len(added) > 0 && len(removed) > 0 {
				sc.cand.Score += 6
				sc.cand.Signals = append(sc.cand.Signals, fmt.Sprintf("dependency swap in %s: -%s +%s", f.Path, strings.Join(removed, ","), strings.Join(added, ",")))
				sc.cand.Added = append(sc.cand.Added, added...)
				break
			}
		}
	}
	return nil
}

// goMayHaveSwapped reports whether two versions of a go.mod can differ by a
// swap. Most changes to a go.mod are new versions, or a dependency added
// or dropped alone: the module paths of the lines the newer version gained
// and of those it lost then leave no path on both sides, and the files
// need no parsing.
func goMayHaveSwapped(before, after []byte) bool {
	count := func(data []byte) map[string]int {
		out := map[string]int{}
		for _, l := range strings.Split(string(data), "\n") {
			out[strings.TrimSpace(l)]++
		}
		return out
	}
	key := func(l string) string {
		l = strings.TrimSpace(strings.TrimPrefix(l, "require "))
		first, _, _ := strings.Cut(l, " ")
		return first
	}
	b, a := count(before), count(after)
	gone, came := map[string]bool{}, map[string]bool{}
	for l, n := range b {
		if a[l] < n {
			gone[key(l)] = true
		}
	}
	for l, n := range a {
		if b[l] < n {
			came[key(l)] = true
		}
	}
	lost, gained := 0, 0
	for k := range gone {
		if !came[k] {
			lost++
		}
	}
	for k := range came {
		if !gone[k] {
			gained++
		}
	}
	return lost > 0 && gained > 0
}

var goMajorRE = lazyregexp.New(`(/v\d+|\.v\d+)$`)

// dependencyNames are the dependencies a manifest declares, by a key
// without their major version (github.com/x/y/v2 is github.com/x/y,
// gopkg.in/yaml.v3 is gopkg.in/yaml), so that an upgrade is never a swap.
func dependencyNames(p string, data []byte) map[string]string {
	deps, _ := scan.ManifestDependencies(p, data)
	out := map[string]string{}
	for _, d := range deps {
		if d.Path != "" {
			continue // a local (workspace or path) dependency
		}
		key := strings.ToLower(goMajorRE.ReplaceAllString(d.Name, ""))
		if _, ok := out[key]; !ok {
			out[key] = d.Name
		}
	}
	return out
}

// dependencySwap compares the dependencies of two versions of a manifest:
// what the newer one adds and what it no longer has.
func dependencySwap(b, a map[string]string) (added, removed []string) {
	for k, n := range a {
		if _, ok := b[k]; !ok {
			added = append(added, n)
		}
	}
	for k, n := range b {
		if _, ok := a[k]; !ok {
			removed = append(removed, n)
		}
	}
	sort.Strings(added)
	sort.Strings(removed)
	return added, removed
}

// moduleOf is the deepest module containing p.
func moduleOf(s *Scan, p string) string {
	best := "."
	for _, m := range s.Modules {
		if m.ID != "." && (p == m.ID || strings.HasPrefix(p, m.ID+"/")) && len(m.ID) > len(best) {
			best = m.ID
		}
	}
	return best
}

// grouped is a candidate with the cluster it goes to.
type grouped struct {
	cand                Candidate
	area, module, scope string
	dir                 bool // the area is a directory, not a module
}

// place chooses a candidate's cluster: the module its scope names, else
// the module most of its files are in, else its scope, else the root.
func place(s *Scan, sc *scored) grouped {
	g := grouped{cand: sc.cand}
	counts := map[string]int{}
	for _, p := range sc.touched {
		counts[moduleOf(s, p)]++
	}
	if sc.scope != "" {
		if m := scopeModule(s, sc.scope, counts); m != "" {
			g.area, g.module = m, m
			return g
		}
	}
	best, bestN := ".", 0
	for _, m := range sortedKeys(counts) {
		if counts[m] > bestN {
			best, bestN = m, counts[m]
		}
	}
	switch {
	case best != ".":
		g.area, g.module = best, best
	case sc.scope != "" && sc.scope != "root":
		g.area, g.module, g.scope = sc.scope, ".", sc.scope
	default:
		// No module, no scope (a Terraform tree, say): the directory the
		// commit changed, so that terraform/projects/app-x is a cluster of
		// its own and not the root's.
		g.area, g.module = "root", "."
		if d := dirArea(sc.touched); d != "." {
			g.area, g.module, g.dir = d, d, true
		}
	}
	return g
}

// dirAreaDepth bounds the directories that name clusters.
const dirAreaDepth = 3

// dirArea is the directory (at most dirAreaDepth deep) that holds at
// least half of files, else the one they all share; "." for the root.
func dirArea(files []string) string {
	if len(files) == 0 {
		return "."
	}
	counts := map[string]int{}
	dirs := make([]string, 0, len(files))
	for _, f := range files {
		d := path.Dir(f)
		if parts := strings.Split(d, "/"); len(parts) > dirAreaDepth {
			d = strings.Join(parts[:dirAreaDepth], "/")
		}
		counts[d]++
		dirs = append(dirs, d)
	}
	best, bestN := ".", 0
	for _, d := range sortedKeys(counts) {
		if counts[d] > bestN {
			best, bestN = d, counts[d]
		}
	}
	if bestN*2 >= len(files) {
		return best
	}
	common := dirs[0]
	for _, d := range dirs[1:] {
		for common != "." && d != common && !strings.HasPrefix(d, common+"/") {
			common = path.Dir(common)
		}
	}
	return common
}

// scopeModule is the module a commit scope names: by its directory, its
// last path element or its package name ("brew" → internal/pipe/brew, "api"
// → apps/api); among several, one the commit touched, then the shortest.
func scopeModule(s *Scan, scope string, touched map[string]int) string {
	var matches []string
	for _, m := range s.Modules {
		if m.ID == "." {
			continue
		}
		name := strings.ToLower(m.Name)
		if i := strings.LastIndexByte(name, '/'); i >= 0 {
			name = name[i+1:]
		}
		if strings.ToLower(m.ID) == scope || strings.ToLower(path.Base(m.ID)) == scope || name == scope || strings.HasSuffix(strings.ToLower(m.ID), "/"+scope) {
			matches = append(matches, m.ID)
		}
	}
	sort.SliceStable(matches, func(i, j int) bool {
		ti, tj := touched[matches[i]] > 0, touched[matches[j]] > 0
		if ti != tj {
			return ti
		}
		if len(matches[i]) != len(matches[j]) {
			return len(matches[i]) < len(matches[j])
		}
		return matches[i] < matches[j]
	})
	if len(matches) == 0 {
		return ""
	}
	return matches[0]
}

// cluster groups candidates by scope and module; groups smaller than
// clusterMin merge into their parent module's (a scope's into the root's),
// groups larger than clusterMax become parts of that size, the strongest
// commits first; the best max become tasks.
func cluster(s *Scan, cands []*scored, max int) []Cluster {
	type group struct {
		module, scope string
		dir           bool
		list          []Candidate
	}
	groups := map[string]*group{}
	add := func(area, module, scope string, dir bool, cs ...Candidate) {
		g := groups[area]
		if g == nil {
			g = &group{module: module, scope: scope, dir: dir}
			groups[area] = g
		}
		g.list = append(g.list, cs...)
	}
	for _, sc := range cands {
		g := place(s, sc)
		add(g.area, g.module, g.scope, g.dir, g.cand)
	}
	// Small groups merge upward, deepest first, until none is left: a
	// module's into its parent module's, a directory's into its parent
	// directory's, a scope's into the root's.
	for {
		var small []string
		for area, g := range groups {
			if area != "root" && len(g.list) < clusterMin {
				small = append(small, area)
			}
		}
		if len(small) == 0 {
			break
		}
		sort.Strings(small)
		sort.SliceStable(small, func(i, j int) bool { return strings.Count(small[i], "/") > strings.Count(small[j], "/") })
		area := small[0]
		g := groups[area]
		delete(groups, area)
		parent, dir := ".", false
		switch {
		case g.scope != "":
		case g.dir:
			parent, dir = path.Dir(g.module), true
			if m := parentModule(s, g.module); m != "." && len(m) > len(parent) {
				parent, dir = m, false
			}
		default:
			parent = parentModule(s, g.module)
		}
		if parent == "." {
			add("root", ".", "", false, g.list...)
		} else {
			add(parent, parent, "", dir, g.list...)
		}
	}
	var out []Cluster
	for _, area := range sortedKeys(groups) {
		g := groups[area]
		list := g.list
		sort.SliceStable(list, func(i, j int) bool {
			if list[i].Score != list[j].Score {
				return list[i].Score > list[j].Score
			}
			return list[i].Date > list[j].Date || list[i].Date == list[j].Date && list[i].SHA < list[j].SHA
		})
		for part := 0; part*clusterMax < len(list); part++ {
			end := min((part+1)*clusterMax, len(list))
			commits := append([]Candidate(nil), list[part*clusterMax:end]...)
			// Within a part, newest first: the order a history reads in.
			sort.SliceStable(commits, func(i, j int) bool {
				return commits[i].Date > commits[j].Date || commits[i].Date == commits[j].Date && commits[i].SHA < commits[j].SHA
			})
			c := Cluster{Module: g.module, Scope: g.scope, Area: partName(area, part), Commits: commits}
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

func parentModule(s *Scan, id string) string {
	for dir := path.Dir(id); dir != "." && dir != "/"; dir = path.Dir(dir) {
		for _, m := range s.Modules {
			if m.ID == dir {
				return dir
			}
		}
	}
	return "."
}

// partName names a part of a cluster's task: the area, with the part
// number after the first.
func partName(area string, part int) string {
	if part == 0 {
		return area
	}
	return fmt.Sprintf("%s-%d", area, part+1)
}

func clip(s string, max int) string {
	if len(s) <= max {
		return s
	}
	return textclip.Prefix(s, max) + "…"
}
