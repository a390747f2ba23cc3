package tools

import (
	"context"
	"fmt"
	"sort"
	"strings"

	spec "github.com/kontext-dev/kontext/gen/toolsets/repo"
	"github.com/kontext-dev/kontext/internal/repo/analyze"
	"github.com/kontext-dev/kontext/internal/repo/model"
	"github.com/kontext-dev/kontext/internal/repo/results"
)

// maxViolations bounds the layering violations of the repository context,
// which has no parameter for them.
const maxViolations = 20

func (h *Handlers) GetRepositoryContext(ctx context.Context, in *spec.GetRepositoryContextInput) (*results.RepositoryContext, error) {
	snap, err := h.analysis(ctx, in.Root)
	if err != nil {
		return nil, err
	}
	d := h.derived.of(snap)
	g := d.g
	res := &results.RepositoryContext{
		SchemaVersion: model.SchemaVersion,
		Root:          g.Root,
		Head:          g.Head,
		Summary:       g.Summary,
		Workspaces:    g.Workspaces,
		Git:           g.Git,
	}
	// Called from Go rather than through the schema, a zero bound means
	// the default, as an absent argument does.
	in.MaxModules = orDefault(in.MaxModules, 25)
	in.MaxEntryPoints = orDefault(in.MaxEntryPoints, 20)
	in.MaxExternalDependencies = orDefault(in.MaxExternalDependencies, 30)
	in.MaxConventions = orDefault(in.MaxConventions, 20)
	in.MaxDecisions = orDefault(in.MaxDecisions, 20)
	for _, name := range g.Truncated {
		addTruncated(&res.Truncated, "analysis."+name)
	}
	mods := make([]*model.Module, 0, len(g.Modules))
	for i := range g.Modules {
		mods = append(mods, &g.Modules[i])
	}
	sort.Slice(mods, func(i, j int) bool { return analyze.MoreImportant(mods[i], mods[j]) })
	for _, m := range cut(mods, in.MaxModules, "modules", &res.Truncated) {
		res.Modules = append(res.Modules, moduleSummary(m))
	}
	res.EntryPoints = cut(sortedEntryPoints(g.EntryPoints), in.MaxEntryPoints, "entryPoints", &res.Truncated)
	res.External = cut(sortedExternal(g.External), in.MaxExternalDependencies, "externalDependencies", &res.Truncated)
	res.Conventions = cut(g.Conventions, in.MaxConventions, "conventions", &res.Truncated)
	res.Decisions = cut(explicitFirst(append([]model.Decision(nil), g.Decisions...)), in.MaxDecisions, "decisions", &res.Truncated)
	res.Cycles = cut(g.Cycles, in.MaxCycles, "cycles", &res.Truncated)
	res.Violations = cut(g.Violations, maxViolations, "layeringViolations", &res.Truncated)
	return shape(res, full(in.Detail)), nil
}

func moduleSummary(m *model.Module) results.ModuleSummary {
	return results.ModuleSummary{
		ID: m.ID, Name: m.Name, Basis: string(m.Basis), Language: m.Language, Description: m.Description,
		Files: m.Files, Roles: m.Roles, EntryPoints: m.EntryPoints, DependsOn: m.DependsOn, UsedBy: m.UsedBy, Git: m.Git,
	}
}

// entryRank puts the ways a program starts before the ways it is used and
// tested, so a bounded list keeps the ones worth reading first.
var entryRank = map[string]int{
	"application": 0, "cli": 1, "package-main": 2, "package-bin": 3, "http-routes": 4, "worker": 5,
	"package-export": 6, "library": 7, "test": 9,
}

func rankOf(typ string) int {
	if r, ok := entryRank[typ]; ok {
		return r
	}
	return 8
}

func sortedEntryPoints(eps []model.EntryPoint) []model.EntryPoint {
	out := append([]model.EntryPoint(nil), eps...)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if rankOf(a.Type) != rankOf(b.Type) {
			return rankOf(a.Type) < rankOf(b.Type)
		}
		if a.Confidence != b.Confidence {
			return a.Confidence > b.Confidence
		}
		return a.Path < b.Path
	})
	return out
}

// sortedExternal lists runtime dependencies before development ones, the
// most used first.
func sortedExternal(ext []model.External) []model.External {
	out := append([]model.External(nil), ext...)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Dev != b.Dev {
			return !a.Dev
		}
		if len(a.UsedBy) != len(b.UsedBy) {
			return len(a.UsedBy) > len(b.UsedBy)
		}
		if a.Name != b.Name {
			return a.Name < b.Name
		}
		return a.Ecosystem < b.Ecosystem
	})
	return out
}

// sortedEdges lists the heaviest dependencies first.
func sortedEdges(edges []model.Dependency) []model.Dependency {
	out := append([]model.Dependency(nil), edges...)
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Imports != b.Imports {
			return a.Imports > b.Imports
		}
		if a.From != b.From {
			return a.From < b.From
		}
		return a.To < b.To
	})
	return out
}

func (h *Handlers) GetArchitecture(ctx context.Context, in *spec.GetArchitectureInput) (*results.Architecture, error) {
	snap, err := h.analysis(ctx, in.Root)
	if err != nil {
		return nil, err
	}
	d := h.derived.of(snap)
	g := d.g
	res := &results.Architecture{SchemaVersion: model.SchemaVersion}
	inSet := func(string) bool { return true }
	var centre *model.Module
	if target := optional(in.Module); target != "" {
		if centre, err = d.resolveModule(target); err != nil {
			return nil, err
		}
		res.Module = centre.ID
		set := map[string]bool{centre.ID: true}
		for _, id := range centre.DependsOn {
			set[id] = true
		}
		for _, id := range centre.UsedBy {
			set[id] = true
		}
		inSet = func(id string) bool { return set[id] }
	}
	var mods []*model.Module
	for i := range g.Modules {
		if inSet(g.Modules[i].ID) {
			mods = append(mods, &g.Modules[i])
		}
	}
	sort.Slice(mods, func(i, j int) bool {
		if centre != nil && (mods[i].ID == centre.ID) != (mods[j].ID == centre.ID) {
			return mods[i].ID == centre.ID
		}
		return analyze.MoreImportant(mods[i], mods[j])
	})
	for _, m := range mods {
		am := results.ArchModule{ID: m.ID, Name: m.Name, Roles: m.Roles, Files: m.Files}
		if top, ok := analyze.TopRole(m); ok {
			am.Layer = top.Role
		}
		res.Modules = append(res.Modules, am)
	}
	for _, e := range sortedEdges(g.Dependencies) {
		if inSet(e.From) && inSet(e.To) {
			res.Edges = append(res.Edges, e)
		}
	}
	for _, c := range g.Cycles {
		if centre == nil || contains(c.Modules, centre.ID) {
			res.Cycles = append(res.Cycles, c)
		}
	}
	for _, v := range g.Violations {
		if inSet(v.From) && inSet(v.To) {
			res.Violations = append(res.Violations, v)
		}
	}
	return shape(res, full(in.Detail)), nil
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// conventionCategories are the categories the analysis writes; a filter
// naming none of them (nor any category present) is a mistake worth
// saying, not an empty answer.
var conventionCategories = []string{"Languages", "Toolchain", "Naming", "Imports", "Exports", "Structure", "Error handling", "Tests", "Documentation"}

// categoryKey folds the spellings an agent may use: "tests", "Test",
// "error-handling", "Error handling".
func categoryKey(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	s = strings.NewReplacer("-", " ", "_", " ").Replace(s)
	return stem(strings.Join(strings.Fields(s), " "))
}

func (h *Handlers) GetConventions(ctx context.Context, in *spec.GetConventionsInput) (*results.Conventions, error) {
	snap, err := h.analysis(ctx, in.Root)
	if err != nil {
		return nil, err
	}
	g := snap.Graph
	res := &results.Conventions{SchemaVersion: model.SchemaVersion, Conventions: []model.Convention{}}
	category := strings.TrimSpace(optional(in.Category))
	if category == "" {
		res.Conventions = g.Conventions
		return shape(res, full(in.Detail)), nil
	}
	known := map[string]string{}
	for _, c := range conventionCategories {
		known[categoryKey(c)] = c
	}
	for _, c := range g.Conventions {
		known[categoryKey(c.Category)] = c.Category
	}
	name, ok := known[categoryKey(category)]
	if !ok {
		var names []string
		for _, k := range sortedKeys(known) {
			names = append(names, known[k])
		}
		return nil, fmt.Errorf("unknown convention category %q: use one of %s", category, strings.Join(names, ", "))
	}
	res.Category = name
	for _, c := range g.Conventions {
		if categoryKey(c.Category) == categoryKey(name) {
			res.Conventions = append(res.Conventions, c)
		}
	}
	return shape(res, full(in.Detail)), nil
}

func (h *Handlers) GetDecisions(ctx context.Context, in *spec.GetDecisionsInput) (*results.Decisions, error) {
	snap, err := h.analysis(ctx, in.Root)
	if err != nil {
		return nil, err
	}
	res := &results.Decisions{SchemaVersion: model.SchemaVersion, Decisions: []model.Decision{}}
	if in.Origin != nil {
		res.Origin = string(*in.Origin)
	}
	for _, dec := range snap.Graph.Decisions {
		if res.Origin == "" || dec.Origin == res.Origin {
			res.Decisions = append(res.Decisions, dec)
		}
	}
	res.Decisions = explicitFirst(res.Decisions)
	return shape(res, full(in.Detail)), nil
}

func orDefault(n, def int) int {
	if n <= 0 {
		return def
	}
	return n
}
