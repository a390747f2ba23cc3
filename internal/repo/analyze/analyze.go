// Package analyze is the heuristic half of the repo engine. It takes the
// facts internal/repo/scan found (files, imports, manifests, modules,
// module edges) and adds what can only be inferred: module roles, entry
// points, dependency cycles, layering violations, conventions, decisions,
// git activity, and the change-impact and revision views built on them.
//
// Every value it adds carries a Confidence strictly between 0 and 1 and the
// Evidence (file and line, or commit) that produced it. The steps are
// exported separately so an engine can re-run only what a change affects:
//
//	obs := Observe(…)        per-file observations (the only step that reads content)
//	EntryPoints, Roles       need obs; Roles uses the entry points
//	Cycles, Layering         need the module edges; Layering uses the roles
//	Conventions              needs obs
//	ReadHistory, GitSignals  one pass over git history, then per-module figures
//	Decisions                markdown, configuration and the history's commits
//
// Run does all of it in that order; Heuristics is everything after
// Observe and ReadHistory, for an engine that keeps those two.
package analyze

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"math"
	"path"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/kontext-dev/kontext/internal/git"
	"github.com/kontext-dev/kontext/internal/repo/model"
)

// Source reads a file of the analysed tree by its slash path relative to
// the root. It is how analyze sees content: the engine can serve it from
// the scan's cache, the work tree, or a revision.
type Source func(path string) ([]byte, error)

// Options tune the analysis. The zero value means the defaults of the
// original (windowDays 180, maxCommits 5000, recentDays 30, 1 MiB files).
type Options struct {
	// Now is the end of the git windows (history, recent changes); zero
	// is HEAD's commit date, so the activity of an idle repository is
	// still its activity.
	Now          time.Time
	WindowDays   int
	MaxCommits   int
	RecentDays   int
	MaxFileBytes int64
	// Workers bounds the parallel content readers; 0 is GOMAXPROCS.
	Workers int
	// Progress, when set, is told how far Observe has gone through the
	// files.
	Progress func(done, total int)
}

// Defaults are the original's configuration defaults.
const (
	DefaultWindowDays   = 180
	DefaultMaxCommits   = 5000
	DefaultRecentDays   = 30
	DefaultMaxFileBytes = 1 << 20
)

// withDefaults fills in the zero values but Now, whose zero means HEAD's
// commit date (ReadHistory).
func (o Options) withDefaults() Options {
	if o.WindowDays <= 0 {
		o.WindowDays = DefaultWindowDays
	}
	if o.MaxCommits <= 0 {
		o.MaxCommits = DefaultMaxCommits
	}
	if o.RecentDays <= 0 {
		o.RecentDays = DefaultRecentDays
	}
	if o.MaxFileBytes <= 0 {
		o.MaxFileBytes = DefaultMaxFileBytes
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	return o
}

// Run fills in every heuristic part of g. repo may be nil (no git signals,
// no git decisions). Content that cannot be read is skipped, never fatal:
// only a cancelled ctx or a failing git stops the analysis.
func Run(ctx context.Context, g *model.Graph, src Source, repo *git.Repo, opts Options) error {
	opts = opts.withDefaults()
	obs, err := Observe(ctx, g, src, opts)
	if err != nil {
		return err
	}
	var hist *History
	if repo != nil {
		hist, err = ReadHistory(ctx, repo, opts)
		if err != nil {
			return err
		}
	}
	Heuristics(g, obs, src, hist)
	return ctx.Err()
}

// Heuristics runs every step that works from memory: entry points,
// roles, cycles, layering, conventions, git signals (when hist is not nil)
// and decisions. It is what an engine re-runs after each change, so it
// runs on two goroutines: one line computes entry points, roles and
// conventions; the other cycles, git signals and decisions, then layering
// once the roles exist. The lines write different parts of the graph and
// neither reads what the other writes (but layering, which waits). The
// index every step looks files and modules up in is built once and only
// read, and the module edges cycles and layering both need are computed
// once.
func Heuristics(g *model.Graph, obs *Observations, src Source, hist *History) {
	ix := newIndex(g)
	roles := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		edges := moduleEdges(ix)
		cycles(g, ix, edges)
		gitSignals(g, ix, hist)
		Decisions(g, src, hist)
		<-roles
		layering(g, ix, edges)
	}()
	entryPoints(g, ix, obs, src)
	assignRoles(g, ix, obs)
	close(roles)
	conventions(g, ix, obs, src)
	<-done
}

// conf makes a heuristic confidence presentable and honest: three decimals,
// never 1 (nor 0, which would claim knowledge of absence).
func conf(x float64) float64 {
	if math.IsNaN(x) || x <= 0 {
		return 0.01
	}
	x = math.Round(x*1000) / 1000
	if x >= 0.99 {
		return 0.99
	}
	if x < 0.01 {
		return 0.01
	}
	return x
}

// hash8 is the short, stable hash the ids use.
func hash8(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:4])
}

// clip shortens s to at most n bytes on a rune boundary, with an
// ellipsis; invalid UTF-8 (a file name can be any bytes) is replaced.
func clip(s string, n int) string {
	s = strings.TrimSpace(strings.ToValidUTF8(s, "\uFFFD"))
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strings.TrimSpace(s[:cut]) + "…"
}

// family is the language family a file's rules are written for.
type family string

const (
	famNone   family = ""
	famJS     family = "js" // TypeScript and JavaScript share npm and the same syntax rules
	famGo     family = "go"
	famPython family = "python"
	famRust   family = "rust"
	famJava   family = "java" // Java and Kotlin share the JVM package space
)

var extFamily = map[string]family{
	".ts": famJS, ".tsx": famJS, ".mts": famJS, ".cts": famJS,
	".js": famJS, ".jsx": famJS, ".mjs": famJS, ".cjs": famJS,
	".go": famGo,
	".py": famPython, ".pyi": famPython,
	".rs":   famRust,
	".java": famJava, ".kt": famJava, ".kts": famJava,
}

// familyOf goes by extension rather than the scan's language name, so the
// rules do not depend on how a language library spells "TypeScript".
func familyOf(p string) family {
	return extFamily[strings.ToLower(path.Ext(p))]
}

func isTSLike(p string) bool {
	switch strings.ToLower(path.Ext(p)) {
	case ".ts", ".tsx", ".mts", ".cts":
		return true
	}
	return false
}

// stem is the base name without its last extension ("a.test.ts" → "a.test").
func stem(p string) string {
	b := path.Base(p)
	if i := strings.LastIndexByte(b, '.'); i > 0 {
		return b[:i]
	}
	return b
}

// index is the lookups every step needs, built once per call (once per
// Heuristics run, whose steps share it). It is only read once built, so
// concurrent steps may share it.
type index struct {
	g        *model.Graph
	files    map[string]*model.File
	modules  map[string]*model.Module
	byModule map[string][]*model.File
	byName   map[string]string // module name → id of the first module of that name
	depth    int               // the most components a module id has
}

func newIndex(g *model.Graph) *index {
	ix := &index{
		g:        g,
		files:    make(map[string]*model.File, len(g.Files)),
		modules:  make(map[string]*model.Module, len(g.Modules)),
		byModule: make(map[string][]*model.File, len(g.Modules)),
		byName:   make(map[string]string, len(g.Modules)),
	}
	for i := range g.Modules {
		m := &g.Modules[i]
		ix.modules[m.ID] = m
		if _, ok := ix.byName[m.Name]; !ok {
			ix.byName[m.Name] = m.ID
		}
		ix.depth = max(ix.depth, Depth(m.ID))
	}
	for i := range g.Files {
		f := &g.Files[i]
		ix.files[f.Path] = f
		if m := ix.moduleOf(f.Path); m != "" {
			ix.byModule[m] = append(ix.byModule[m], f)
		}
	}
	return ix
}

// moduleOf is the module a path belongs to: the scan's answer for a known
// file, else the nearest enclosing module directory (which also places
// files that no longer exist, as history and revisions need); none for a
// path in a vendored tree.
func (ix *index) moduleOf(p string) string {
	if f, ok := ix.files[p]; ok && f.Module != "" {
		return f.Module
	}
	for _, v := range ix.g.Vendored {
		if strings.HasPrefix(p, v+"/") {
			return ""
		}
	}
	if _, ok := ix.modules[p]; ok {
		return p // a single-file module
	}
	return EnclosingDir(p, ix.depth, ix.modules)
}

// Depth is the number of components of a slash path ("." has none).
func Depth(p string) int {
	if p == "." || p == "" || p == "/" {
		return 0
	}
	return strings.Count(strings.Trim(p, "/"), "/") + 1
}

// EnclosingDir returns the nearest parent directory of the slash path p
// (".", or "/" for an absolute path, last) that is a key of set, or ""
// when there is none. Only parents of at most maxDepth components are
// asked about: the deepest module is that deep, so a path of 32,000
// components costs one pass over it, not 32,000 cleaned copies and map
// lookups of it.
func EnclosingDir[V any](p string, maxDepth int, set map[string]V) string {
	p = path.Clean(p)
	end := len(p)
	n := 0
	for i := 1; i < len(p); i++ {
		if p[i] == '/' {
			if n++; n > maxDepth {
				end = i
				break
			}
		}
	}
	for j := strings.LastIndexByte(p[:end], '/'); j > 0; j = strings.LastIndexByte(p[:j], '/') {
		if _, ok := set[p[:j]]; ok {
			return p[:j]
		}
	}
	root := "."
	if strings.HasPrefix(p, "/") {
		root = "/"
	}
	if _, ok := set[root]; ok {
		return root
	}
	return ""
}

// sortedKeys returns a map's keys in order, for deterministic output.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// inDir reports whether p is dir or inside it ("." contains everything).
func inDir(p, dir string) bool {
	if dir == "." || dir == "" {
		return true
	}
	// No dir+"/": a long dir would be copied once per path asked about.
	return len(p) >= len(dir) && strings.HasPrefix(p, dir) && (len(p) == len(dir) || p[len(dir)] == '/')
}

// fileSet reports whether a path is one of g's files: by binary search in
// the sorted list a scan makes (no map of every path per call), by a map
// for a graph built otherwise.
func fileSet(g *model.Graph) func(string) bool {
	files := g.Files
	if sort.SliceIsSorted(files, func(i, j int) bool { return files[i].Path < files[j].Path }) {
		return func(p string) bool {
			i := sort.Search(len(files), func(i int) bool { return files[i].Path >= p })
			return i < len(files) && files[i].Path == p
		}
	}
	m := make(map[string]bool, len(files))
	for i := range files {
		m[files[i].Path] = true
	}
	return func(p string) bool { return m[p] }
}

// sortedPaths are g's file paths in order, once each (a scan's list is
// sorted already).
func sortedPaths(g *model.Graph) []string {
	out := make([]string, 0, len(g.Files))
	for i := range g.Files {
		out = append(out, g.Files[i].Path)
	}
	if !sort.StringsAreSorted(out) {
		sort.Strings(out)
	}
	return slices.Compact(out)
}
