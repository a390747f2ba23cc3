package tools

import (
	"encoding/json"

	"github.com/kontext-dev/kontext/internal/repo/graph"
	"github.com/kontext-dev/kontext/internal/repo/model"
	"github.com/kontext-dev/kontext/internal/repo/results"
)

// The Mermaid map of a full architecture answer: at most mapModules
// modules, fewer where their edges would take more than mapBudget of the
// answer's characters. The rest of the answer keeps to what is left, so
// the map is never cut (a cut flowchart draws nothing).
const (
	mapModules = 30
	mapBudget  = 8_000
)

// withMap shapes a full architecture answer around its module map: the
// most important modules of the whole graph, or centre's neighbourhood
// (the modules it uses and those using it, as the answer lists them).
func withMap(res *results.Architecture, g *model.Graph, centre *model.Module, narrow string) *results.Architecture {
	mg := graph.FromModel(g, false)
	if centre != nil {
		around, err := mg.Around(centre.ID, 1)
		if err != nil { // a module with neither files nor edges: nothing to draw
			return shape(res, true, narrow)
		}
		mg = around
	}
	for n := mapModules; n >= 5; n -= 5 {
		mmd := graph.Mermaid(mg.Top(n))
		encoded, _ := json.Marshal(mmd)
		if len(encoded) > mapBudget {
			continue
		}
		out := shapeWithin(res, true, narrow, FullBudget-len(encoded)-len(`,"map":`))
		out.Map = mmd
		return out
	}
	return shape(res, true, narrow)
}
