package tools

import (
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/kontext-dev/kontext/internal/glob"
	"github.com/kontext-dev/kontext/internal/repo"
	"github.com/kontext-dev/kontext/internal/repo/analyze"
	"github.com/kontext-dev/kontext/internal/repo/model"
)

// derived is what the tools compute from one snapshot and reuse while the
// snapshot stands: lookups, the search indexes and which decisions and
// conventions touch which module. Snapshots are immutable, so derived data
// never goes stale; a new snapshot of the root replaces it.
type derived struct {
	snap     *repo.Snapshot
	g        *model.Graph
	files    map[string]*model.File
	modules  map[string]*model.Module
	byName   map[string]*model.Module
	byModule map[string][]*model.File // sorted by path
	paths    []string                 // every file, sorted
	depth    int                      // the most components a module id has

	searchOnce sync.Once
	search     *index
	docs       []searchDoc

	moduleOnce sync.Once
	moduleIx   *index // document i is g.Modules[i]

	touchOnce     sync.Once
	decisionsOf   map[string][]int // module id → indices into g.Decisions
	conventionsOf map[string][]int // module id → indices into g.Conventions

	rankOnce    sync.Once
	ranked      []*model.Module    // analyze.RankModules
	entryPoints []model.EntryPoint // analyze.RankEntryPoints of every entry point
}

// rankings computes, once per snapshot, the engine's ranking of modules
// and of entry points, which every bounded list follows.
func (d *derived) rankings() {
	d.rankOnce.Do(func() {
		d.ranked = analyze.RankModules(d.g)
		d.entryPoints = analyze.RankEntryPoints(d.g, d.g.EntryPoints)
	})
}

// rankedModules are the modules, most important first.
func (d *derived) rankedModules() []*model.Module {
	d.rankings()
	return d.ranked
}

// rankedEntryPoints are the entry points, in the order a bounded list
// keeps them (the project's binaries and main library first, tests last).
func (d *derived) rankedEntryPoints() []model.EntryPoint {
	d.rankings()
	return d.entryPoints
}

// maxDerivedRoots bounds the cache: a server analyses its root and, rarely,
// a few roots below it.
const maxDerivedRoots = 8

type derivedCache struct {
	mu     sync.Mutex
	byRoot map[string]*derived
}

// of returns the derived data of snap, building the lookups now and the
// indexes when first asked for.
func (c *derivedCache) of(snap *repo.Snapshot) *derived {
	c.mu.Lock()
	defer c.mu.Unlock()
	if d := c.byRoot[snap.Root]; d != nil && d.snap == snap {
		return d
	}
	if c.byRoot == nil {
		c.byRoot = map[string]*derived{}
	}
	if len(c.byRoot) >= maxDerivedRoots {
		for k := range c.byRoot {
			delete(c.byRoot, k)
			break
		}
	}
	d := newDerived(snap)
	c.byRoot[snap.Root] = d
	return d
}

func newDerived(snap *repo.Snapshot) *derived {
	g := snap.Graph
	d := &derived{
		snap:     snap,
		g:        g,
		files:    make(map[string]*model.File, len(g.Files)),
		modules:  make(map[string]*model.Module, len(g.Modules)),
		byName:   map[string]*model.Module{},
		byModule: map[string][]*model.File{},
		paths:    make([]string, 0, len(g.Files)),
	}
	for i := range g.Modules {
		m := &g.Modules[i]
		d.modules[m.ID] = m
		d.depth = max(d.depth, analyze.Depth(m.ID))
		if _, taken := d.byName[m.Name]; m.Name != "" && !taken {
			d.byName[m.Name] = m
		}
	}
	for i := range g.Files {
		f := &g.Files[i]
		d.files[f.Path] = f
		d.paths = append(d.paths, f.Path)
		if m := d.moduleOf(f.Path); m != "" {
			d.byModule[m] = append(d.byModule[m], f)
		}
	}
	sort.Strings(d.paths)
	for _, fs := range d.byModule {
		sort.Slice(fs, func(i, j int) bool { return fs[i].Path < fs[j].Path })
	}
	return d
}

// moduleOf is the module a path belongs to: the scan's answer for a file
// it knows, else the nearest enclosing module (paths in history and in
// evidence need not exist any more).
func (d *derived) moduleOf(p string) string {
	p = strings.TrimSuffix(p, "/")
	if f := d.files[p]; f != nil && f.Module != "" {
		return f.Module
	}
	if _, ok := d.modules[p]; ok {
		return p
	}
	return analyze.EnclosingDir(p, d.depth, d.modules)
}

// isDir reports whether some file of the repository is under dir.
func (d *derived) isDir(dir string) bool {
	if dir == "." {
		return len(d.paths) > 0
	}
	prefix := dir + "/"
	i := sort.SearchStrings(d.paths, prefix)
	return i < len(d.paths) && strings.HasPrefix(d.paths[i], prefix)
}

// touches computes, once, which modules each decision and convention
// concerns: where it is recorded, where its evidence points, and (for a
// decision) the paths it says it governs.
func (d *derived) touches() {
	d.touchOnce.Do(func() {
		d.decisionsOf = map[string][]int{}
		d.conventionsOf = map[string][]int{}
		add := func(m map[string][]int, module string, i int) {
			if module == "" {
				return
			}
			if l := m[module]; len(l) > 0 && l[len(l)-1] == i {
				return
			}
			m[module] = append(m[module], i)
		}
		for i := range d.g.Decisions {
			dec := &d.g.Decisions[i]
			mods := map[string]bool{}
			if src, _, _ := strings.Cut(dec.Source, "#"); src != "" {
				mods[d.moduleOf(src)] = true
			}
			for _, ev := range dec.Evidence {
				if ev.File != "" {
					mods[d.moduleOf(ev.File)] = true
				}
			}
			// The paths match as the knowledge store's do, and as change
			// impact matches them (analyze.Impact): a directory covers its
			// contents, a pattern without a slash matches at any depth.
			for _, pattern := range dec.Paths {
				for _, p := range d.paths {
					if glob.Match(pattern, p) {
						mods[d.moduleOf(p)] = true
					}
				}
			}
			for _, m := range sortedKeys(mods) {
				add(d.decisionsOf, m, i)
			}
		}
		for i := range d.g.Conventions {
			c := &d.g.Conventions[i]
			mods := map[string]bool{}
			for _, ev := range c.Evidence {
				if ev.File != "" {
					mods[d.moduleOf(ev.File)] = true
				}
			}
			for _, m := range sortedKeys(mods) {
				add(d.conventionsOf, m, i)
			}
		}
	})
}

func (d *derived) decisionsFor(module string) []model.Decision {
	d.touches()
	var out []model.Decision
	for _, i := range d.decisionsOf[module] {
		out = append(out, d.g.Decisions[i])
	}
	return explicitFirst(out)
}

func (d *derived) conventionsFor(module string) []model.Convention {
	d.touches()
	var out []model.Convention
	for _, i := range d.conventionsOf[module] {
		out = append(out, d.g.Conventions[i])
	}
	return out
}

// explicitFirst orders decisions explicit before inferred, keeping the
// analysis' order otherwise.
func explicitFirst(ds []model.Decision) []model.Decision {
	sort.SliceStable(ds, func(i, j int) bool {
		return ds[i].Origin == "explicit" && ds[j].Origin != "explicit"
	})
	return ds
}

// sourceLine splits a decision source "README.md#L5" into path and line.
func sourceLine(src string) (string, int) {
	p, frag, ok := strings.Cut(src, "#")
	if !ok {
		return p, 0
	}
	n, err := strconv.Atoi(strings.TrimPrefix(frag, "L"))
	if err != nil {
		return p, 0
	}
	return p, n
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
