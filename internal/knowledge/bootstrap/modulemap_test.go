package bootstrap

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// The overview's module map is Mermaid between the facts markers, bounded
// to the most important modules by rank, with the rest counted.
func TestOverviewModuleMap(t *testing.T) {
	scan := &Scan{Project: "chain"}
	for i := 0; i < 40; i++ {
		m := Module{ID: fmt.Sprintf("pkg/m%02d", i), Name: fmt.Sprintf("m%02d", i), Files: 2, Rank: 39 - i}
		if i > 0 {
			m.DependsOn = []Edge{{To: fmt.Sprintf("pkg/m%02d", i-1), Kind: "internal-module"}}
		}
		scan.Modules = append(scan.Modules, m)
	}
	scan.Modules = append(scan.Modules, Module{ID: "docs", Files: 0, Rank: 40})
	facts := overviewFacts(scan, nil)
	start, end := strings.Index(facts, factsStart), strings.Index(facts, factsEnd)
	block := regexp.MustCompile("(?s)\n### Module map\n\n```mermaid\nflowchart TD\n(.*?)```\n").FindStringSubmatchIndex(facts)
	if block == nil || block[0] < start || block[1] > end {
		t.Fatalf("no Mermaid map between the facts markers:\n%s", facts)
	}
	body := facts[block[2]:block[3]]
	nodes := regexp.MustCompile(`(?m)^  (m_\w+)\["`).FindAllStringSubmatch(body, -1)
	if len(nodes) != overviewMapModules {
		t.Errorf("%d nodes, want %d:\n%s", len(nodes), overviewMapModules, body)
	}
	// The most important are the highest-numbered (rank 0 is m39).
	if !strings.Contains(body, `m_pkg_m39["pkg/m39"]`) || !strings.Contains(body, `m_pkg_m10["pkg/m10"]`) || strings.Contains(body, "m_pkg_m09") {
		t.Errorf("not the top %d by rank:\n%s", overviewMapModules, body)
	}
	if n := strings.Count(body, " --> "); n != overviewMapModules-1 {
		t.Errorf("%d edges, want the %d among the modules shown", n, overviewMapModules-1)
	}
	if !strings.Contains(facts, "\nThe 30 most important of 40 modules (+10 more: `kontext graph` draws them all).\n") {
		t.Errorf("the rest not counted:\n%s", facts)
	}
	// Facts only: the same scan renders the same bytes.
	if again := overviewFacts(scan, nil); again != facts {
		t.Error("the map is not deterministic")
	}

	// Without an edge there is nothing to draw.
	for i := range scan.Modules {
		scan.Modules[i].DependsOn = nil
	}
	if strings.Contains(overviewFacts(scan, nil), "Module map") {
		t.Error("a map of modules without edges")
	}
}

// The bootstrap writes the map into the overview of a real repository.
func TestBootstrapWritesModuleMap(t *testing.T) {
	files := shipitFiles()
	files["internal/pipe/brew/extra.go"] = "package brew\n\nimport _ \"github.com/acme/shipit/v2/internal/pipe/p01\"\n"
	files["internal/pipe/p01/p.go"] = "// Package p01 is a pipe.\npackage p01\n\n// Run runs it.\nfunc Run() {}\n"
	dir := newRepo(t, files)
	if _, err := openPipeline(t, dir).Bootstrap(context.Background()); err != nil {
		t.Fatal(err)
	}
	overview := readFile(t, dir, ".ai/architecture/overview.md")
	i, j, k := strings.Index(overview, factsStart), strings.Index(overview, "```mermaid\nflowchart TD\n"), strings.Index(overview, factsEnd)
	if i < 0 || j < i || k < j || !strings.Contains(overview[j:k], " --> m_internal_pipe_p01\n") {
		t.Errorf("no map with brew's edge to p01 between the facts markers:\n%s", overview)
	}
}
