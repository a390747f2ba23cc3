package analyze

import (
	"sort"

	"github.com/kontext-dev/kontext/internal/repo/model"
)

// MoreImportant orders modules for every list that may be cut (the repo
// tools' summaries, the knowledge brief, the bootstrap's module docs): the
// modules most depended upon first, then those that depend on most, then
// the biggest. It is the engine's one ranking of modules, so that every
// surface names the same core.
func MoreImportant(a, b *model.Module) bool {
	if len(a.UsedBy) != len(b.UsedBy) {
		return len(a.UsedBy) > len(b.UsedBy)
	}
	if len(a.DependsOn) != len(b.DependsOn) {
		return len(a.DependsOn) > len(b.DependsOn)
	}
	if a.Files != b.Files {
		return a.Files > b.Files
	}
	return a.ID < b.ID
}

// RankModules returns the graph's modules, most important first.
func RankModules(g *model.Graph) []*model.Module {
	mods := make([]*model.Module, 0, len(g.Modules))
	for i := range g.Modules {
		mods = append(mods, &g.Modules[i])
	}
	sort.SliceStable(mods, func(i, j int) bool { return MoreImportant(mods[i], mods[j]) })
	return mods
}
