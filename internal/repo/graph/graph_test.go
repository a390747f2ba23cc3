package graph

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kontext-dev/kontext/internal/repo/model"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// shop is a small service: an API over services over a domain, a cycle
// between services and billing, a command that reaches down two levels,
// a module whose directory needs escaping in every format, and decisions
// (one superseded) governing some of them.
func shop() *model.Graph {
	mod := func(id string, files int, role string) model.Module {
		m := model.Module{ID: id, Name: lastElem(id), Files: files, Lines: files * 40}
		if role != "" {
			m.Roles = []model.Role{{Role: role, Confidence: 0.8}}
		}
		return m
	}
	g := &model.Graph{
		Modules: []model.Module{
			mod(".", 1, ""),
			mod("cmd/shop", 1, "cli"),
			mod("src/api", 3, "api-routes"),
			mod("src/services", 4, "service"),
			mod("src/billing", 2, "service"),
			mod("src/domain", 2, "domain"),
			mod(`src/odd "dir" <#1> & co`, 1, ""),
			mod("docs", 0, ""),
		},
	}
	edge := func(from, to string, n int, scope string) {
		g.Dependencies = append(g.Dependencies, model.Dependency{From: from, To: to, Kind: model.ImportInternalModule, Scope: scope, Imports: n})
	}
	edge("cmd/shop", "src/api", 1, model.ScopeProduction)
	edge("cmd/shop", "src/domain", 1, model.ScopeProduction)
	edge("src/api", "src/services", 3, model.ScopeProduction)
	edge("src/services", "src/domain", 2, model.ScopeProduction)
	edge("src/services", "src/billing", 1, model.ScopeProduction)
	edge("src/billing", "src/services", 1, model.ScopeProduction)
	edge(`src/odd "dir" <#1> & co`, "src/domain", 1, model.ScopeProduction)
	edge("src/domain", "src/api", 1, model.ScopeTest) // test edges are no dependency of the code
	// DependsOn and UsedBy as the engine fills them: production edges.
	for i := range g.Modules {
		m := &g.Modules[i]
		for _, d := range g.Dependencies {
			if d.Scope == model.ScopeProduction && d.From == m.ID {
				m.DependsOn = append(m.DependsOn, d.To)
			}
			if d.Scope == model.ScopeProduction && d.To == m.ID {
				m.UsedBy = append(m.UsedBy, d.From)
			}
		}
	}
	for _, f := range []struct{ path, module string }{
		{"main.go", "."}, {"cmd/shop/main.go", "cmd/shop"},
		{"src/api/server.ts", "src/api"}, {"src/api/routes.ts", "src/api"}, {"src/api/handlers.ts", "src/api"},
		{"src/services/order.ts", "src/services"}, {"src/billing/invoice.ts", "src/billing"},
		{"src/domain/order.ts", "src/domain"}, {`src/odd "dir" <#1> & co/x.ts`, `src/odd "dir" <#1> & co`},
	} {
		g.Files = append(g.Files, model.File{Path: f.path, Module: f.module, Kind: model.FileSource})
	}
	g.Decisions = []model.Decision{
		{ID: "ADR-001", Title: "Use PostgreSQL", Status: "accepted", Source: "docs/adr/0001.md", Paths: []string{"src/domain/**", "src/billing"}},
		{ID: "ADR-002", Title: "Routes are thin", Status: "accepted", Source: ".ai/decisions/routes.md#x", Paths: []string{"src/api/*.ts"}},
		{ID: "ADR-000", Title: "Use MySQL", Status: "superseded", Source: "docs/adr/0000.md", Paths: []string{"src/domain"}},
		{ID: "GIT-1", Title: "Inferred from history", Status: "unknown", Source: "abc123"},
	}
	return g
}

func lastElem(id string) string {
	if i := strings.LastIndex(id, "/"); i >= 0 {
		return id[i+1:]
	}
	return id
}

// goldenCases are the options kontext graph has, each drawn in every
// format.
var goldenCases = []struct {
	name      string
	decisions bool
	module    string
	depth     int
	top       int
}{
	{name: "all"},
	{name: "decisions", decisions: true},
	{name: "module-depth1", module: "src/services", depth: 1},
	{name: "module-depth0", module: "./src/services/", depth: 0},
	{name: "module-depth2-decisions", module: "src/api", depth: 2, decisions: true},
	{name: "top3", top: 3},
}

func build(t *testing.T, g *model.Graph, decisions bool, module string, depth, top int) *Graph {
	t.Helper()
	out := FromModel(g, decisions)
	if module != "" {
		var err error
		if out, err = out.Around(module, depth); err != nil {
			t.Fatal(err)
		}
	}
	return out.Top(top)
}

func render(t *testing.T, g *Graph, format string) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := Render(&b, g, format); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// Every format of every option, byte for byte.
func TestGolden(t *testing.T) {
	ext := map[string]string{"mermaid": "mmd", "dot": "dot", "svg": "svg", "json": "json"}
	for _, c := range goldenCases {
		for _, format := range Formats {
			t.Run(c.name+"/"+format, func(t *testing.T) {
				got := render(t, build(t, shop(), c.decisions, c.module, c.depth, c.top), format)
				golden(t, c.name+"."+ext[format], got)
			})
		}
	}
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	file := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/repo/graph -update to create it, then review it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs (-want +got; rerun with -update if the change is intended):\n%s", file, diff)
	}
}

// The same repository gives the same bytes whatever order the analysis
// listed its modules, edges and files in.
func TestDeterministic(t *testing.T) {
	want := map[string][]byte{}
	for _, format := range Formats {
		want[format] = render(t, FromModel(shop(), true), format)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 5; i++ {
		g := shop()
		r.Shuffle(len(g.Modules), func(a, b int) { g.Modules[a], g.Modules[b] = g.Modules[b], g.Modules[a] })
		r.Shuffle(len(g.Dependencies), func(a, b int) { g.Dependencies[a], g.Dependencies[b] = g.Dependencies[b], g.Dependencies[a] })
		r.Shuffle(len(g.Files), func(a, b int) { g.Files[a], g.Files[b] = g.Files[b], g.Files[a] })
		r.Shuffle(len(g.Decisions), func(a, b int) { g.Decisions[a], g.Decisions[b] = g.Decisions[b], g.Decisions[a] })
		for _, format := range Formats {
			if got := render(t, FromModel(g, true), format); !bytes.Equal(got, want[format]) {
				t.Errorf("shuffle %d: %s differs:\n%s", i, format, cmp.Diff(string(want[format]), string(got)))
			}
		}
	}
}

// What the graph says: production edges only, modules without files but
// with edges kept, the cycle found and marked, levels that every edge
// outside a cycle descends, and the decisions that govern.
func TestGraphFacts(t *testing.T) {
	g := FromModel(shop(), true)
	var ids []string
	for _, n := range g.Nodes {
		ids = append(ids, n.ID)
	}
	wantIDs := []string{".", "cmd/shop", "src/api", "src/billing", "src/domain", `src/odd "dir" <#1> & co`, "src/services"}
	if diff := cmp.Diff(wantIDs, ids); diff != "" {
		t.Errorf("nodes (-want +got), docs has no files and no edge:\n%s", diff)
	}
	for _, e := range g.Edges {
		if e.From == "src/domain" && e.To == "src/api" {
			t.Errorf("the test edge %v is drawn", e)
		}
	}
	if diff := cmp.Diff([][]string{{"src/billing", "src/services"}}, g.Cycles); diff != "" {
		t.Errorf("cycles (-want +got):\n%s", diff)
	}
	level := map[string]int{}
	for _, n := range g.Nodes {
		level[n.ID] = n.Level
	}
	cycleEdges := 0
	for _, e := range g.Edges {
		inCycle := slices.Contains(g.Cycles[0], e.From) && slices.Contains(g.Cycles[0], e.To)
		if e.Cycle != inCycle {
			t.Errorf("edge %s → %s: cycle %v, want %v", e.From, e.To, e.Cycle, inCycle)
		}
		if e.Cycle {
			cycleEdges++
		} else if level[e.From] <= level[e.To] {
			t.Errorf("edge %s → %s goes from level %d to %d", e.From, e.To, level[e.From], level[e.To])
		}
	}
	if cycleEdges != 2 {
		t.Errorf("%d cycle edges, want 2", cycleEdges)
	}
	if level["cmd/shop"] != 3 || level["src/domain"] != 0 || level["src/api"] != 2 {
		t.Errorf("levels %v: want the command at 3 (longest path cmd → api → services → domain), domain at 0", level)
	}
	decisions := map[string][]string{}
	for _, n := range g.Nodes {
		for _, d := range n.Decisions {
			decisions[n.ID] = append(decisions[n.ID], d.ID)
		}
	}
	want := map[string][]string{"src/domain": {"ADR-001"}, "src/billing": {"ADR-001"}, "src/api": {"ADR-002"}}
	if diff := cmp.Diff(want, decisions); diff != "" {
		t.Errorf("decisions by module (-want +got; superseded and path-less ones govern nothing):\n%s", diff)
	}
	if FromModel(shop(), false).Nodes[4].Decisions != nil {
		t.Error("decisions listed without being asked for")
	}
}

func TestAround(t *testing.T) {
	g := FromModel(shop(), false)
	for _, c := range []struct {
		module string
		depth  int
		want   []string
	}{
		{"src/services", 0, []string{"src/services"}},
		{"src/services", 1, []string{"src/api", "src/billing", "src/domain", "src/services"}},
		{"src/services", 2, []string{"cmd/shop", "src/api", "src/billing", "src/domain", `src/odd "dir" <#1> & co`, "src/services"}},
		{".", 1, []string{"."}},
	} {
		around, err := g.Around(c.module, c.depth)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, n := range around.Nodes {
			ids = append(ids, n.ID)
		}
		if diff := cmp.Diff(c.want, ids); diff != "" {
			t.Errorf("Around(%q, %d) (-want +got):\n%s", c.module, c.depth, diff)
		}
		if around.Focus != c.module {
			t.Errorf("focus %q, want %q", around.Focus, c.module)
		}
	}
	for target, want := range map[string]string{"src/api": "src/api", "./src/api/": "src/api", "src/api/routes.ts": "src/api", "main.go": ".", "src/api/nope.ts": "src/api/nope.ts"} {
		if got, ok := ModuleOf(shop(), target); got != want || ok != (target != "src/api/nope.ts") {
			t.Errorf("ModuleOf(%q) = %q, %v; want %q", target, got, ok, want)
		}
	}
	if _, err := g.Around("src/servics", 1); !errors.Is(err, ErrUnknownModule) {
		t.Errorf("an unknown module: %v", err)
	}
	if got := g.Similar("src/servics", 3); !slices.Equal(got, []string{"src/services"}) {
		t.Errorf("Similar(src/servics) = %v, want the module a typo away", got)
	}
	if got := g.Similar("lib/nothing", 3); len(got) != 0 {
		t.Errorf("Similar(lib/nothing) = %v: nothing is like it", got)
	}
	if got := g.Similar("services", 3); !slices.Equal(got, []string{"src/services"}) {
		t.Errorf("Similar(services) = %v", got)
	}
}

// Top keeps the most important modules and counts the rest.
func TestTop(t *testing.T) {
	g := FromModel(shop(), false)
	top := g.Top(3)
	if len(top.Nodes) != 3 || top.Omitted != len(g.Nodes)-3 {
		t.Fatalf("Top(3): %d nodes, %d omitted", len(top.Nodes), top.Omitted)
	}
	// The ranking's first three: the most depended upon, then the
	// command that ties most together.
	var ids []string
	for _, n := range top.Nodes {
		ids = append(ids, n.ID)
	}
	if !slices.Contains(ids, "src/domain") || !slices.Contains(ids, "src/services") {
		t.Errorf("Top(3) = %v, want the domain and the services among them", ids)
	}
	if g.Top(0) != g || g.Top(100) != g {
		t.Error("an unbounded Top copies")
	}
}

// Barycentric ordering removes a crossing the initial (id) order has.
func TestOrderingRemovesCrossings(t *testing.T) {
	g := Build(Input{
		Nodes: []Node{{ID: "a"}, {ID: "b"}, {ID: "x"}, {ID: "y"}},
		Edges: []Edge{{From: "a", To: "y"}, {From: "b", To: "x"}},
	})
	l := g.layout()
	if c := l.crossings(); c != 0 {
		t.Errorf("%d crossings after ordering, want 0 (layers %v)", c, g.arrangedIDs())
	}
	// The count itself: the id order crosses once.
	l.layers = [][]*vertex{{l.byID["x"], l.byID["y"]}, {l.byID["a"], l.byID["b"]}}
	l.number()
	if c := l.crossings(); c != 1 {
		t.Errorf("the id order: %d crossings, want 1", c)
	}
}

func (g *Graph) arrangedIDs() [][]string {
	g.arrange()
	return g.Layers
}

// random is a bigger graph with long edges and cycles, for what must hold
// of any layout.
func random(seed uint64, n, edges int) *Graph {
	r := rand.New(rand.NewPCG(seed, seed))
	in := Input{}
	for i := 0; i < n; i++ {
		in.Nodes = append(in.Nodes, Node{ID: fmt.Sprintf("pkg/m%02d", i), Role: []string{"", "domain", "service"}[i%3]})
	}
	for i := 0; i < edges; i++ {
		a, b := r.IntN(n), r.IntN(n)
		if r.IntN(10) > 0 && a < b { // mostly downward, a few cycles
			a, b = b, a
		}
		in.Edges = append(in.Edges, Edge{From: in.Nodes[a].ID, To: in.Nodes[b].ID})
	}
	return Build(in)
}

// The SVG is one well-formed XML document with exactly one node element
// per module, and its boxes never overlap.
func TestSVGWellFormed(t *testing.T) {
	graphs := map[string]*Graph{"shop": FromModel(shop(), true), "empty": Build(Input{})}
	for seed := uint64(1); seed <= 4; seed++ {
		graphs[fmt.Sprintf("random%d", seed)] = random(seed, 40, 90)
	}
	for name, g := range graphs {
		doc := SVG(g)
		nodes, rects := svgNodes(t, name, doc)
		var want []string
		for _, n := range g.Nodes {
			want = append(want, n.ID)
		}
		if diff := cmp.Diff(want, nodes); diff != "" {
			t.Errorf("%s: node elements (-want +got):\n%s", name, diff)
		}
		for i := range rects {
			for j := i + 1; j < len(rects); j++ {
				if a, b := rects[i], rects[j]; a[0] < b[0]+b[2] && b[0] < a[0]+a[2] && a[1] < b[1]+b[3] && b[1] < a[1]+a[3] {
					t.Errorf("%s: the boxes of %s and %s overlap: %v %v", name, nodes[i], nodes[j], a, b)
				}
			}
		}
	}
}

// svgNodes decodes the whole document and returns the data-module of
// every <g class="node">, in order, and the box of each.
func svgNodes(t *testing.T, name, doc string) ([]string, [][4]float64) {
	t.Helper()
	dec := xml.NewDecoder(strings.NewReader(doc))
	var nodes []string
	var rects [][4]float64
	inNode := false
	depth := 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s: not well-formed XML: %v", name, err)
		}
		switch el := tok.(type) {
		case xml.StartElement:
			depth++
			attr := map[string]string{}
			for _, a := range el.Attr {
				attr[a.Name.Local] = a.Value
			}
			if depth == 1 && (el.Name.Local != "svg" || el.Name.Space != "http://www.w3.org/2000/svg") {
				t.Fatalf("%s: the root is %v", name, el.Name)
			}
			if el.Name.Local == "g" && attr["class"] == "node" {
				nodes = append(nodes, attr["data-module"])
				inNode = true
			}
			if el.Name.Local == "rect" && inNode {
				var r [4]float64
				for i, k := range []string{"x", "y", "width", "height"} {
					fmt.Sscan(attr[k], &r[i])
				}
				rects = append(rects, r)
			}
		case xml.EndElement:
			depth--
			if el.Name.Local == "g" {
				inNode = false
			}
		}
	}
	if len(rects) != len(nodes) {
		t.Fatalf("%s: %d boxes for %d nodes", name, len(rects), len(nodes))
	}
	return nodes, rects
}

// Mermaid and DOT keep every label inside its quotes.
func TestLabelsEscaped(t *testing.T) {
	g := FromModel(shop(), false)
	odd := `src/odd "dir" <#1> & co`
	mmd := Mermaid(g)
	if !strings.Contains(mmd, `m_src_odd_dir_1_co["src/odd #quot;dir#quot; #lt;#35;1#gt; #amp; co"]`) {
		t.Errorf("the odd module in Mermaid:\n%s", mmd)
	}
	for _, line := range strings.Split(strings.TrimSpace(mmd), "\n") {
		if strings.Count(line, `"`) != 0 && strings.Count(line, `"`) != 2 {
			t.Errorf("a Mermaid line with a stray quote: %q", line)
		}
	}
	dot := DOT(g)
	if !strings.Contains(dot, `"src/odd \"dir\" <#1> & co" [label="src/odd \"dir\" <#1> & co"];`) {
		t.Errorf("the odd module in DOT:\n%s", dot)
	}
	if !strings.Contains(SVG(g), `data-module="src/odd &#34;dir&#34; &lt;#1&gt; &amp; co"`) {
		t.Error("the odd module's data-module in the SVG")
	}
	ids := mermaidIDs([]Node{{ID: "a-b"}, {ID: "a_b"}, {ID: "a/b"}})
	if ids["a-b"] != "m_a_b" || ids["a/b"] == ids["a_b"] || ids["a/b"] == "m_a_b" || ids["a_b"] == "m_a_b" {
		t.Errorf("colliding Mermaid ids: %v", ids)
	}
	_ = odd
}

// The JSON has what it promises: nodes, edges, layers with every node
// once, cycles.
func TestJSON(t *testing.T) {
	var got struct {
		Nodes  []Node     `json:"nodes"`
		Edges  []Edge     `json:"edges"`
		Layers [][]string `json:"layers"`
		Cycles [][]string `json:"cycles"`
	}
	if err := json.Unmarshal(render(t, FromModel(shop(), false), "json"), &got); err != nil {
		t.Fatal(err)
	}
	var inLayers []string
	for lv, layer := range got.Layers {
		for _, id := range layer {
			inLayers = append(inLayers, id)
			i := slices.IndexFunc(got.Nodes, func(n Node) bool { return n.ID == id })
			if i < 0 || got.Nodes[i].Level != lv {
				t.Errorf("%s in layer %d, not a node of that level", id, lv)
			}
		}
	}
	slices.Sort(inLayers)
	if len(inLayers) != len(got.Nodes) || len(got.Edges) != 7 || len(got.Cycles) != 1 {
		t.Errorf("%d nodes in layers of %d, %d edges, %d cycles", len(inLayers), len(got.Nodes), len(got.Edges), len(got.Cycles))
	}
}

func TestUnknownFormat(t *testing.T) {
	if err := Render(io.Discard, Build(Input{}), "png"); err == nil || !strings.Contains(err.Error(), "mermaid, dot, svg, json") {
		t.Errorf("Render png: %v", err)
	}
}
