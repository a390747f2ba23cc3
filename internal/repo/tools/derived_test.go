package tools

import (
	"slices"
	"testing"

	"github.com/kontext-dev/kontext/internal/repo"
	"github.com/kontext-dev/kontext/internal/repo/analyze"
	"github.com/kontext-dev/kontext/internal/repo/model"
)

// TestDecisionPathsMatchAsTheStoreDoes: the paths a knowledge-store
// decision governs match as internal/glob matches them — a
// directory without a trailing slash covers its files, a pattern without
// a slash matches at any depth — and explain_module (decisionsFor) and
// get_change_impact (analyze.Impact) agree on which modules they govern.
func TestDecisionPathsMatchAsTheStoreDoes(t *testing.T) {
	files := []string{"api/proto/user.proto", "api/routes.go", "store/db.go", "web/app.ts"}
	g := &model.Graph{}
	for _, p := range files {
		g.Files = append(g.Files, model.File{Path: p, Kind: model.FileSource})
	}
	g.Files[0].Module, g.Files[1].Module, g.Files[2].Module, g.Files[3].Module = "api", "api", "store", "web"
	g.Modules = []model.Module{{ID: "api", Name: "api"}, {ID: "store", Name: "store"}, {ID: "web", Name: "web"}}
	g.Decisions = []model.Decision{
		{ID: "KS-store", Title: "storage", Source: ".ai/decisions/store.md", Origin: "explicit", Paths: []string{"store"}},
		{ID: "KS-proto", Title: "wire format", Source: ".ai/decisions/proto.md", Origin: "explicit", Paths: []string{"*.proto"}},
		{ID: "KS-web", Title: "ui", Source: ".ai/decisions/web.md", Origin: "explicit", Paths: []string{"./web/"}},
	}
	d := newDerived(&repo.Snapshot{Root: "/r", Graph: g})
	want := map[string][]string{"api": {"KS-proto"}, "store": {"KS-store"}, "web": {"KS-web"}}
	for _, m := range g.Modules {
		got := ids(d.decisionsFor(m.ID), func(dec model.Decision) string { return dec.ID })
		if !slices.Equal(got, want[m.ID]) {
			t.Errorf("explain_module %s: decisions %v, want %v", m.ID, got, want[m.ID])
		}
		imp, err := analyze.Impact(g, m.ID, 0)
		if err != nil {
			t.Fatal(err)
		}
		if byImpact := ids(imp.Decisions, func(r analyze.ImpactRef) string { return r.ID }); !slices.Equal(byImpact, got) {
			t.Errorf("module %s: get_change_impact lists decisions %v, explain_module %v", m.ID, byImpact, got)
		}
	}
}
