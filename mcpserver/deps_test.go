package mcpserver_test

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"

	"github.com/kontext-dev/kontext/internal/inventory"
	"github.com/kontext-dev/kontext/mcpserver"
)

// heavyDependencies are what an embedder of the runtime must not link: the
// command line, the knowledge index's database and the file watcher belong
// to the kontext binary, not to a server library.
var heavyDependencies = []string{
	"github.com/urfave/cli",
	"modernc.org/sqlite",
	"github.com/fsnotify",
	// The engines: describing the tools needs their answer types, not the
	// code that computes the answers.
	"github.com/kontext-dev/kontext/internal/repo/analyze",
	"github.com/kontext-dev/kontext/internal/repo/scan",
	"github.com/kontext-dev/kontext/internal/knowledge",
	"github.com/kontext-dev/kontext/internal/git",
}

// TestPublicPackageIsLight: mcpserver (and so an embedder) depends on the
// runtime and the generated toolset descriptions only.
func TestPublicPackageIsLight(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	cmd := exec.Command("go", "list", "-deps", "github.com/kontext-dev/kontext/mcpserver")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.Bytes())
	}
	deps := strings.Fields(string(out))
	if len(deps) == 0 {
		t.Fatal("go list listed no dependencies")
	}
	for _, pkg := range deps {
		for _, heavy := range heavyDependencies {
			if pkg == heavy || strings.HasPrefix(pkg, heavy+"/") {
				t.Errorf("mcpserver depends on %s", pkg)
			}
		}
	}
	t.Logf("mcpserver links %d packages", len(deps))
}

// TestToolDefinitionsAreTheShippedTools: the definitions mcpserver reads from
// the generated packages are the tools the kontext binary serves, in order.
func TestToolDefinitionsAreTheShippedTools(t *testing.T) {
	var want []string
	for _, f := range inventory.Shipped() {
		for _, tool := range f.Describe().Tools {
			want = append(want, tool.Name+" "+string(tool.InputSchema))
		}
	}
	var got []string
	for _, tool := range mcpserver.ToolDefinitions() {
		got = append(got, tool.Name+" "+string(tool.InputSchema))
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("mcpserver.ToolDefinitions differs from the shipped toolsets:\n got %d tools\nwant %d tools", len(got), len(want))
	}
}
