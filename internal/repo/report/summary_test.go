package report

import (
	"strings"
	"testing"

	"github.com/kontext-dev/kontext/internal/repo"
	"github.com/kontext-dev/kontext/internal/repo/model"
)

// A workspace whose members are not in the tree says so; it is not "(0
// members)".
func TestSummaryEmptyWorkspace(t *testing.T) {
	g := &model.Graph{Summary: model.Summary{Name: "x"}, Workspaces: []model.Workspace{
		{Tool: "cargo", Manifest: "Cargo.toml", Members: []string{}},
		{Tool: "npm", Manifest: "package.json", Members: []string{"packages/a", "packages/b"}},
	}}
	var b strings.Builder
	if err := Summary(&b, &repo.Snapshot{Root: "/r", Graph: g}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.Contains(out, "0 members") || !strings.Contains(out, "Cargo.toml: no member found in the tree") || !strings.Contains(out, "package.json (2 members)") {
		t.Errorf("summary:\n%s", out)
	}
}
