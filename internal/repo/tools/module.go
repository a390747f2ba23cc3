package tools

import (
	"context"

	spec "github.com/kontext-dev/kontext/gen/toolsets/repo"
	"github.com/kontext-dev/kontext/internal/repo/analyze"
	"github.com/kontext-dev/kontext/internal/repo/model"
	"github.com/kontext-dev/kontext/internal/repo/results"
)

// Bounds of explain_module's lists; the compact budget may cut further.
const (
	maxModuleFiles   = 500
	maxModuleSymbols = 500
	moduleHistory    = 10
)

func (h *Handlers) ExplainModule(ctx context.Context, in *spec.ExplainModuleInput) (*results.ModuleExplanation, error) {
	snap, err := h.analysis(ctx, in.Root)
	if err != nil {
		return nil, err
	}
	d := h.derived.of(snap)
	m, err := d.resolveModule(in.Path)
	if err != nil {
		return nil, err
	}
	g := d.g
	res := &results.ModuleExplanation{SchemaVersion: model.SchemaVersion, Module: *m}
	files := d.byModule[m.ID]
	for _, f := range files {
		res.Files = append(res.Files, results.FileSummary{Path: f.Path, Language: f.Language, Kind: string(f.Kind), Lines: f.Lines, Generated: f.Generated})
	}
	res.Files = cut(res.Files, maxModuleFiles, "files", narrowModule, &res.Truncated)
	for _, f := range files {
		if f.Generated || f.Kind == model.FileTest {
			continue // what the module offers is in its written, non-test code
		}
		for _, s := range f.Symbols {
			res.Symbols = append(res.Symbols, results.FileSymbol{File: f.Path, Name: s.Name, Kind: s.Kind, Line: s.Line})
		}
	}
	res.Symbols = cut(res.Symbols, maxModuleSymbols, "symbols", narrowModule, &res.Truncated)
	for _, e := range sortedEdges(g.Dependencies) {
		if e.From == m.ID {
			res.Dependencies = append(res.Dependencies, e)
		}
		if e.To == m.ID {
			res.Dependents = append(res.Dependents, e)
		}
	}
	res.External = externalOf(g, m)
	for _, ep := range d.rankedEntryPoints() {
		if ep.Module == m.ID {
			res.EntryPoints = append(res.EntryPoints, ep)
		}
	}
	res.Conventions = d.conventionsFor(m.ID)
	res.Decisions = d.decisionsFor(m.ID)
	var truncated bool
	res.History, truncated = analyze.ModuleHistory(g, snap.History, m.ID, moduleHistory)
	if truncated {
		addTruncated(&res.Truncated, "history", len(res.History), narrowModuleHistory)
	}
	return shape(res, full(in.Detail), narrowModule), nil
}
