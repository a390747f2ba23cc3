package bootstrap

import (
	"fmt"
	"sort"

	"github.com/kontext-dev/kontext/internal/repo/graph"
)

// overviewMapModules bounds the overview's module map: more boxes than
// this are no longer read at a glance where GitHub and GitLab draw it.
const overviewMapModules = 30

// moduleMap is the overview's Mermaid map of the most important modules
// (by Rank, the structural ranking, so that it rewrites only when the
// modules or their edges change) and their production dependencies, the
// rest counted; "" for a repository with no edge to draw.
func moduleMap(scan *Scan) string {
	var mods []Module
	for _, m := range scan.Modules {
		if m.Files > 0 {
			mods = append(mods, m)
		}
	}
	sort.SliceStable(mods, func(i, j int) bool {
		if mods[i].Rank != mods[j].Rank {
			return mods[i].Rank < mods[j].Rank
		}
		return mods[i].ID < mods[j].ID
	})
	in := graph.Input{}
	for _, m := range mods {
		in.Nodes = append(in.Nodes, graph.Node{ID: m.ID, Name: m.Name, Role: m.Role, Files: m.Files})
		for _, e := range m.DependsOn {
			in.Edges = append(in.Edges, graph.Edge{From: m.ID, To: e.To})
		}
	}
	g := graph.Build(in).Top(overviewMapModules)
	if len(g.Edges) == 0 {
		return ""
	}
	s := "```mermaid\n" + graph.Mermaid(g) + "```\n"
	if g.Omitted > 0 {
		s += fmt.Sprintf("\nThe %d most important of %d modules (+%d more: `kontext graph` draws them all).\n", len(g.Nodes), len(g.Nodes)+g.Omitted, g.Omitted)
	}
	return s
}
