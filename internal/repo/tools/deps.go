package tools

import (
	"context"
	"sort"

	spec "github.com/kontext-dev/kontext/gen/toolsets/repo"
	"github.com/kontext-dev/kontext/internal/repo/model"
	"github.com/kontext-dev/kontext/internal/repo/results"
)

// get_dependencies and get_dependents read the same module edges of the
// graph, so what one says A depends on, the other says depends on A.

func (h *Handlers) GetDependencies(ctx context.Context, in *spec.GetDependenciesInput) (*results.Dependencies, error) {
	snap, err := h.analysis(ctx, in.Root)
	if err != nil {
		return nil, err
	}
	d := h.derived.of(snap)
	g := d.g
	res := &results.Dependencies{SchemaVersion: model.SchemaVersion, Internal: []model.Dependency{}, External: []model.External{}}
	target := optional(in.Module)
	if target == "" {
		res.Internal = sortedEdges(g.Dependencies)
		res.External = sortedExternal(g.External)
		return shape(res, full(in.Detail), narrowDependencies), nil
	}
	m, err := d.resolveModule(target)
	if err != nil {
		return nil, err
	}
	res.Module = m.ID
	for _, e := range sortedEdges(g.Dependencies) {
		if e.From == m.ID {
			res.Internal = append(res.Internal, e)
		}
	}
	res.External = externalOf(g, m)
	return shape(res, full(in.Detail), narrowModuleDependencies), nil
}

// externalOf lists the third-party packages a module uses or its manifest
// declares.
func externalOf(g *model.Graph, m *model.Module) []model.External {
	declared := map[string]bool{}
	for _, name := range m.External {
		declared[name] = true
	}
	var out []model.External
	for _, e := range sortedExternal(g.External) {
		if contains(e.UsedBy, m.ID) || declared[e.Name] {
			out = append(out, e)
		}
	}
	return out
}

func (h *Handlers) GetDependents(ctx context.Context, in *spec.GetDependentsInput) (*results.Dependents, error) {
	snap, err := h.analysis(ctx, in.Root)
	if err != nil {
		return nil, err
	}
	d := h.derived.of(snap)
	m, err := d.resolveModule(in.Module)
	if err != nil {
		return nil, err
	}
	res := &results.Dependents{SchemaVersion: model.SchemaVersion, Module: m.ID, Direct: []model.Dependency{}, Transitive: []string{}, TestedBy: []model.Dependency{}}
	importers := map[string][]string{} // to → froms, production edges
	for _, e := range d.g.Dependencies {
		if e.Scope == model.ScopeTest {
			if e.To == m.ID {
				res.TestedBy = append(res.TestedBy, e)
			}
			continue // a change travels through production code only
		}
		importers[e.To] = append(importers[e.To], e.From)
		if e.To == m.ID {
			res.Direct = append(res.Direct, e)
		}
	}
	res.Direct = sortedEdges(res.Direct)
	res.TestedBy = sortedEdges(res.TestedBy)
	seen := map[string]bool{m.ID: true}
	var queue []string
	for _, e := range res.Direct {
		if !seen[e.From] {
			seen[e.From] = true
			queue = append(queue, e.From)
		}
	}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		for _, from := range importers[cur] {
			if !seen[from] {
				seen[from] = true
				res.Transitive = append(res.Transitive, from)
				queue = append(queue, from)
			}
		}
	}
	sort.Strings(res.Transitive)
	return shape(res, full(in.Detail), narrowDependents), nil
}
