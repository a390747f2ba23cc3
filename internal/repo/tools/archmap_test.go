package tools

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/kontext-dev/kontext/internal/repo/results"
)

var mermaidNode = regexp.MustCompile(`(?m)^  (m_\w+)\["`)

// get_architecture with detail full carries the Mermaid map of what it
// lists; compact carries none.
func TestArchitectureMap(t *testing.T) {
	s, _ := layered(t)
	var compact, full results.Architecture
	s.ok("get_architecture", nil, &compact)
	s.ok("get_architecture", map[string]any{"detail": "full"}, &full)
	if compact.Map != "" {
		t.Errorf("a compact answer with a map:\n%s", compact.Map)
	}
	if !strings.HasPrefix(full.Map, "flowchart TD\n") {
		t.Fatalf("the full answer's map is no Mermaid flowchart:\n%s", full.Map)
	}
	if got, want := len(mermaidNode.FindAllString(full.Map, -1)), len(full.Modules); got != want {
		t.Errorf("%d nodes in the map, %d modules in the answer:\n%s", got, want, full.Map)
	}
	for _, want := range []string{"  m_src_domain --> m_src_infrastructure\n", "  m_src_billing -.-> m_src_payments\n", "  class m_src_billing,m_src_payments cycle\n"} {
		if !strings.Contains(full.Map, want) {
			t.Errorf("the map lacks %q:\n%s", want, full.Map)
		}
	}

	var around results.Architecture
	s.ok("get_architecture", map[string]any{"detail": "full", "module": "src/domain"}, &around)
	nodes := mermaidNode.FindAllStringSubmatch(around.Map, -1)
	var names []string
	for _, n := range nodes {
		names = append(names, n[1])
	}
	if len(nodes) != len(around.Modules) || strings.Contains(around.Map, "m_src_ui") || !strings.Contains(around.Map, "  class m_src_domain focus\n") {
		t.Errorf("the map of src/domain's neighbourhood (%v, the answer has %d modules):\n%s", names, len(around.Modules), around.Map)
	}
}

// On a repository made to exceed the cap the map is bounded, whole, and
// the full answer still within its budget.
func TestArchitectureMapBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a large fixture repository")
	}
	s := serveRepo(t, bigGoService(t))
	raw := s.ok("get_architecture", map[string]any{"detail": "full"}, nil)
	var full results.Architecture
	if err := json.Unmarshal(raw, &full); err != nil {
		t.Fatal(err)
	}
	if len(raw) > FullBudget {
		t.Errorf("the full answer is %d characters, over %d", len(raw), FullBudget)
	}
	n := len(mermaidNode.FindAllString(full.Map, -1))
	if n < 5 || n > mapModules || !strings.HasPrefix(full.Map, "flowchart TD\n") || strings.Contains(full.Map, "…") {
		t.Errorf("a map of %d nodes (want 5 to %d, whole):\n%s", n, mapModules, full.Map)
	}
	if !strings.Contains(full.Map, "more left out\n") {
		t.Errorf("the map does not say it left modules out:\n%s", full.Map)
	}
	t.Logf("full answer %d characters, map %d characters, %d nodes", len(raw), len(full.Map), n)
}
