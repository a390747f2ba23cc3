package analyze

import (
	"math"
	"path"
	"sort"
	"strings"

	"github.com/kontext-dev/kontext/internal/repo/model"
)

// The weights of module importance (docs/decisions/0004-module-importance.md).
// Every term is a base-2 logarithm, so the score is the logarithm of a
// weighted product: a module needs several kinds of weight to lead, and no
// single count (the fan-in of a tiny string helper, the size of a
// generated table) outweighs the others however large it grows.
const (
	weightFanIn     = 3.0  // modules that import it (production imports)
	weightFanOut    = 1.5  // modules it imports: how much of the project it ties together
	weightSize      = 1.5  // its lines, in hundreds
	weightEntry     = 1.0  // it is started or used from outside (an entry point)…
	weightStarts    = 1.5  // …and then by how much of the project it starts: its fan-out again
	weightChurn     = 1.0  // commits that changed it in the history window
	peripheryFactor = 0.25 // examples, docs, fuzz corpora, test support, benchmarks, tooling
)

// Importance is how much a module matters to someone learning the
// repository:
//
//	3·log2(1+fanIn) + 1.5·log2(1+fanOut) + 1.5·log2(1+lines/100) + log2(1+changes)
//	  + [entry point]·(1 + 1.5·log2(1+fanOut))
//
// times 0.25 for the periphery (PeripheryOf its directory). An entry point
// is one a program or package starts from, not a directory's index file.
// fanIn and fanOut count the modules of UsedBy and DependsOn, the
// production edges; changes are the commits of its Git figures. It depends
// on the module alone, so any two modules compare the same way wherever
// they are ranked.
func Importance(m *model.Module) float64 { return importance(m, true) }

// StructuralImportance is Importance without churn and with its size
// counted in whole doublings (floor of the logarithm), so that an edit or
// an unrelated commit never reorders what ranks by it: the files
// committed to the repository (the bootstrap's overview and module docs)
// change when a module, an edge or an entry point comes or goes, or a
// module doubles in size, not with every commit.
func StructuralImportance(m *model.Module) float64 { return importance(m, false) }

func importance(m *model.Module, live bool) float64 {
	size := math.Log2(1 + float64(m.Lines)/100)
	if !live {
		size = math.Floor(size)
	}
	s := weightFanIn*log1p2(len(m.UsedBy)) +
		weightFanOut*log1p2(len(m.DependsOn)) +
		weightSize*size
	if startsHere(m) {
		// A program is as important as what it ties together: the
		// command that starts the whole server, not the UI shell that
		// imports one module.
		s += weightEntry + weightStarts*log1p2(len(m.DependsOn))
	}
	if live && m.Git != nil {
		s += weightChurn * log1p2(m.Git.Changes)
	}
	if PeripheryOf(m.ID) != Core {
		s *= peripheryFactor
	}
	return s
}

func log1p2(n int) float64 { return math.Log2(1 + float64(n)) }

// startsHere reports a module that is started or used from outside: an
// entry point that is not merely an index file re-exporting the module's
// own code (a barrel), unless the module is a package, whose index is its
// entry.
func startsHere(m *model.Module) bool {
	pkg := m.Basis == model.BasisManifest || m.Basis == model.BasisWorkspacePackage
	for _, p := range m.EntryPoints {
		if pkg || !strings.EqualFold(stem(p), "index") {
			return true
		}
	}
	return false
}

// MoreImportant orders modules for every list that may be cut (the repo
// tools' summaries, the knowledge brief, the bootstrap's module docs): by
// Importance, then by files, then by id. It is the engine's one ranking of
// modules, so that every surface names the same core.
func MoreImportant(a, b *model.Module) bool {
	if ia, ib := Importance(a), Importance(b); ia != ib {
		return ia > ib
	}
	if a.Files != b.Files {
		return a.Files > b.Files
	}
	return a.ID < b.ID
}

// RankModules returns the graph's modules, most important first.
func RankModules(g *model.Graph) []*model.Module { return rankModules(g, Importance) }

// RankModulesStructurally returns the graph's modules by
// StructuralImportance, for what is committed to the repository.
func RankModulesStructurally(g *model.Graph) []*model.Module {
	return rankModules(g, StructuralImportance)
}

func rankModules(g *model.Graph, score func(*model.Module) float64) []*model.Module {
	mods := make([]*model.Module, 0, len(g.Modules))
	scores := make(map[*model.Module]float64, len(g.Modules))
	for i := range g.Modules {
		m := &g.Modules[i]
		mods = append(mods, m)
		scores[m] = score(m)
	}
	sort.SliceStable(mods, func(i, j int) bool {
		a, b := mods[i], mods[j]
		if scores[a] != scores[b] {
			return scores[a] > scores[b]
		}
		if a.Files != b.Files {
			return a.Files > b.Files
		}
		return a.ID < b.ID
	})
	return mods
}

// The tiers of the entry-point ranking, first to last.
const (
	tierOwn       = iota // the project's own binaries and main library
	tierCore             // the other entry points of the project's code
	tierBuild            // build scripts and tooling
	tierPeriphery        // examples, docs, fuzz corpora, test support, benchmarks
	tierTest             // tests
)

// entryTypeOrder puts binaries before libraries, and both before the
// routes and workers inside a program.
var entryTypeOrder = map[string]int{
	"cli": 0, "application": 0, "package-bin": 0,
	"library": 1, "package-main": 1, "package-export": 1,
	"http-routes": 2, "worker": 3, "build": 4, "test": 5,
}

// RankEntryPoints returns eps ordered for a bounded list: the project's
// own binaries (cmd/<project>/, what the root manifest and its workspace
// packages declare) and main library first, then the rest of its code, build scripts, the periphery
// (examples, docs, fuzz corpora, test support) and tests last; within a
// tier binaries before libraries, then the more important module, the
// more confident entry, the shallower path.
func RankEntryPoints(g *model.Graph, eps []model.EntryPoint) []model.EntryPoint {
	own := projectName(g)
	ownManifests := projectManifests(g)
	mods := make(map[string]*model.Module, len(g.Modules))
	for i := range g.Modules {
		mods[g.Modules[i].ID] = &g.Modules[i]
	}
	type ranked struct {
		ep               model.EntryPoint
		tier, typ, depth int
		importance       float64
	}
	list := make([]ranked, len(eps))
	for i, ep := range eps {
		r := ranked{ep: ep, tier: entryTier(ep, own, ownManifests), typ: 6, depth: strings.Count(ep.Path, "/")}
		if t, ok := entryTypeOrder[ep.Type]; ok {
			r.typ = t
		}
		if m := mods[ep.Module]; m != nil {
			r.importance = Importance(m)
		}
		list[i] = r
	}
	sort.SliceStable(list, func(i, j int) bool {
		a, b := &list[i], &list[j]
		switch {
		case a.tier != b.tier:
			return a.tier < b.tier
		case a.typ != b.typ:
			return a.typ < b.typ
		case a.importance != b.importance:
			return a.importance > b.importance
		case a.ep.Confidence != b.ep.Confidence:
			return a.ep.Confidence > b.ep.Confidence
		case a.depth != b.depth:
			return a.depth < b.depth
		case a.ep.Path != b.ep.Path:
			return a.ep.Path < b.ep.Path
		}
		return a.ep.Type < b.ep.Type
	})
	out := make([]model.EntryPoint, len(list))
	for i := range list {
		out[i] = list[i].ep
	}
	return out
}

// projectManifests are the manifests of the project itself: those at the
// root, and those of the members of the workspaces root manifests declare
// (a monorepo's packages, whose root package.json is private tooling).
func projectManifests(g *model.Graph) map[string]bool {
	members := map[string]bool{}
	for _, ws := range g.Workspaces {
		if path.Dir(ws.Manifest) == "." {
			for _, m := range ws.Members {
				members[m] = true
			}
		}
	}
	out := map[string]bool{}
	for _, mf := range g.Manifests {
		if d := path.Dir(mf.Path); (d == "." || members[d]) && PeripheryOf(d) == Core {
			out[mf.Path] = true
		}
	}
	return out
}

func entryTier(ep model.EntryPoint, project string, ownManifests map[string]bool) int {
	switch {
	case ep.Type == "test":
		return tierTest
	case ep.Type == "build":
		return tierBuild
	}
	switch PeripheryOf(ep.Path) {
	case Core:
	case Tooling:
		return tierBuild
	default:
		return tierPeriphery
	}
	if project != "" && isProjectBinary(ep.Path, project) {
		return tierOwn
	}
	for _, ev := range ep.Evidence {
		// What the project's manifests declare is its own.
		if ownManifests[ev.File] && isManifestName(path.Base(ev.File)) {
			return tierOwn
		}
	}
	return tierCore
}

// isProjectBinary: cmd/<project>/… (Go's layout for a project's commands).
func isProjectBinary(p, project string) bool {
	dir := path.Dir(p)
	if path.Base(path.Dir(dir)) != "cmd" && !strings.HasPrefix(dir, "cmd/") {
		return false
	}
	name := strings.ToLower(path.Base(dir))
	return name == project || strings.ReplaceAll(name, "_", "-") == project
}

func isManifestName(base string) bool {
	switch base {
	case "package.json", "Cargo.toml", "pyproject.toml", "setup.cfg", "go.mod", "deno.json", "deno.jsonc":
		return true
	}
	return false
}

// projectName is the last element of the repository's name, lower case:
// "github.com/prometheus/prometheus" → "prometheus", "@scope/x" → "x".
func projectName(g *model.Graph) string {
	n := strings.ToLower(strings.TrimSpace(g.Summary.Name))
	n = strings.TrimSuffix(n, "/")
	if i := strings.LastIndexByte(n, '/'); i >= 0 {
		if isMajorVersion(n[i+1:]) { // example.com/x/v2
			n = n[:i]
		}
		if i = strings.LastIndexByte(n, '/'); i >= 0 {
			n = n[i+1:]
		}
	}
	if n == "." {
		return ""
	}
	return strings.ReplaceAll(n, "_", "-")
}

func isMajorVersion(s string) bool {
	if len(s) < 2 || s[0] != 'v' {
		return false
	}
	for _, c := range s[1:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
