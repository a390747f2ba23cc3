package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	spec "github.com/kontext-dev/kontext/gen/toolsets/repo"
	"github.com/kontext-dev/kontext/internal/repo/analyze"
	"github.com/kontext-dev/kontext/internal/repo/model"
	"github.com/kontext-dev/kontext/internal/repo/results"
	"github.com/kontext-dev/kontext/internal/textclip"
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
		addTruncated(&res.Truncated, "analysis."+name, 0, narrowAnalysis)
	}
	for _, m := range cut(d.rankedModules(), in.MaxModules, "modules", "raise maxModules (at most 100), or call get_architecture", &res.Truncated) {
		res.Modules = append(res.Modules, moduleSummary(m))
	}
	res.EntryPoints = cut(d.rankedEntryPoints(), in.MaxEntryPoints, "entryPoints", "raise maxEntryPoints (at most 200), or call explain_module for one module's", &res.Truncated)
	res.ExternalCounts = externalCounts(g.External)
	external := cut(sortedExternal(g.External), in.MaxExternalDependencies, "externalDependencies", narrowExternal, &res.Truncated)
	res.Conventions = cut(g.Conventions, in.MaxConventions, "conventions", "raise maxConventions (at most 200), or call get_conventions with a category", &res.Truncated)
	res.Decisions = cut(explicitFirst(append([]model.Decision(nil), g.Decisions...)), in.MaxDecisions, "decisions", "raise maxDecisions (at most 200), or call get_decisions with an origin", &res.Truncated)
	res.Cycles = cut(g.Cycles, in.MaxCycles, "cycles", "raise maxCycles (at most 200), or call get_architecture", &res.Truncated)
	res.Violations = cut(g.Violations, maxViolations, "layeringViolations", "call get_architecture, with module for one module's", &res.Truncated)
	return withExternal(res, external, full(in.Detail)), nil
}

// externalShare is the most of the repository context the external
// dependencies take: the modules are what it is for, and a large service
// declares hundreds of packages.
const externalShare = 0.2

// withExternal shapes the repository context, then adds the most used
// external dependencies within a fifth of the whole (ExternalCounts
// counts the rest).
func withExternal(res *results.RepositoryContext, external []model.External, detail bool) *results.RepositoryContext {
	res.External = nil
	// The dependencies get their fifth of the budget first, and the rest
	// of the answer what they leave; a rest smaller than its room (a small
	// repository) shrinks their share again, so that it stays a fifth of
	// the answer. notes is room for the notes of the external part.
	const notes = 400
	part := shapeWithin(&externalPart{External: external}, detail, narrowExternal, int(externalShare*float64(CompactBudget)))
	partJSON, _ := json.Marshal(part.External)
	out := shapeWithin(res, detail, narrowRepositoryContext, CompactBudget-len(partJSON)-notes)
	rest, _ := json.Marshal(out)
	if share := int(externalShare / (1 - externalShare) * float64(len(rest))); len(partJSON) > share {
		part = shapeWithin(&externalPart{External: external}, detail, narrowExternal, share)
	}
	out.External = part.External
	if out.External == nil {
		out.External = []model.External{}
	}
	// The part's notes join the answer's: a note of the tool's bound
	// keeps the total it saw, and learns what the share kept.
	for _, t := range part.Truncated {
		if i := slices.IndexFunc(out.Truncated, func(e results.Truncation) bool { return e.Field == t.Field }); i >= 0 {
			out.Truncated[i].Kept = t.Kept
			continue
		}
		out.Truncated = append(out.Truncated, t)
	}
	for i, t := range out.Truncated {
		if t.Field == "externalDependencies" {
			out.Truncated[i].Kept = len(out.External)
		}
	}
	return out
}

// externalPart is the external dependencies of a repository context,
// shaped on their own.
type externalPart struct {
	External  []model.External     `json:"externalDependencies"`
	Truncated []results.Truncation `json:"truncated,omitempty"`
}

func externalCounts(ext []model.External) results.ExternalCounts {
	c := results.ExternalCounts{Total: len(ext), Ecosystems: []results.EcosystemCount{}}
	by := map[string]int{}
	for _, e := range ext {
		if e.Dev {
			c.Development++
		}
		by[e.Ecosystem]++
	}
	for _, k := range sortedKeys(by) {
		c.Ecosystems = append(c.Ecosystems, results.EcosystemCount{Ecosystem: k, Count: by[k]})
	}
	sort.SliceStable(c.Ecosystems, func(i, j int) bool { return c.Ecosystems[i].Count > c.Ecosystems[j].Count })
	return c
}

// summaryDescription bounds a module's description in a list of modules:
// its first sentence, or its head; explain_module has the whole of it.
const summaryDescription = 120

func moduleSummary(m *model.Module) results.ModuleSummary {
	desc := m.Description
	if i := strings.Index(desc, ". "); i > 0 && i < summaryDescription {
		desc = desc[:i+1]
	}
	return results.ModuleSummary{
		ID: m.ID, Name: m.Name, Basis: string(m.Basis), Language: m.Language, Description: textclip.Ellipsis(desc, summaryDescription),
		Files: m.Files, Roles: m.Roles, EntryPoints: m.EntryPoints, DependsOn: m.DependsOn, UsedBy: m.UsedBy, Git: m.Git,
	}
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
	narrow := narrowArchitecture
	if centre != nil {
		narrow = narrowModuleArchitecture
	}
	if full(in.Detail) {
		return withMap(res, g, centre, narrow), nil
	}
	return shape(res, false, narrow), nil
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
		return shape(res, full(in.Detail), narrowConventions), nil
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
	return shape(res, full(in.Detail), narrowConventions), nil
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
	return shape(res, full(in.Detail), narrowDecisions), nil
}

func orDefault(n, def int) int {
	if n <= 0 {
		return def
	}
	return n
}
