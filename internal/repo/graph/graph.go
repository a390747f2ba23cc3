// Package graph draws the repo engine's module graph: the production
// dependencies between modules, arranged in layers, with the cycles among
// them marked and, on request, the decisions that govern each module. It
// renders Mermaid (what GitHub and GitLab draw in Markdown), DOT, JSON and
// an SVG laid out here, so no system Graphviz is needed. Every format is
// deterministic: the same graph gives the same bytes.
package graph

import (
	"errors"
	"fmt"
	"path"
	"sort"
	"strings"

	"github.com/kontext-dev/kontext/internal/glob"
	"github.com/kontext-dev/kontext/internal/repo/analyze"
	"github.com/kontext-dev/kontext/internal/repo/model"
	"github.com/kontext-dev/kontext/internal/typo"
)

// Graph is a module graph ready to draw. Its JSON is kontext graph
// --format json.
type Graph struct {
	// Focus and Depth are set for a module's neighbourhood (Around).
	Focus string `json:"focus,omitempty"`
	Depth *int   `json:"depth,omitempty"`
	Nodes []Node `json:"nodes"`
	Edges []Edge `json:"edges"`
	// Layers are the modules by level, the foundations (modules that
	// depend on no module shown) first; within a level in the order the
	// drawing uses, crossings reduced. Rendering sets them.
	Layers [][]string `json:"layers"`
	// Cycles are the dependency cycles among the modules shown (each a
	// strongly connected component, sorted).
	Cycles [][]string `json:"cycles"`
	// Omitted counts the modules left out by a bound (Top).
	Omitted int `json:"omitted,omitempty"`
}

// Node is one module.
type Node struct {
	ID   string `json:"id"`
	Name string `json:"name,omitempty"`
	// Role is the module's top role, the engine's layer for it
	// (domain, service, infrastructure, …).
	Role  string `json:"role,omitempty"`
	Files int    `json:"files"`
	// Level is the node's layer: 0 for a module that depends on no module
	// shown, else one more than the highest level it depends on (cycle
	// edges aside).
	Level int `json:"level"`
	// InCycle marks a module in a dependency cycle.
	InCycle   bool       `json:"inCycle,omitempty"`
	Decisions []Decision `json:"decisions,omitempty"`
	rank      int        // importance, 0 first
}

// Decision is a decision record that governs a module.
type Decision struct {
	ID     string `json:"id"`
	Title  string `json:"title"`
	Source string `json:"source,omitempty"`
}

// Edge is a production dependency: From imports To.
type Edge struct {
	From    string `json:"from"`
	To      string `json:"to"`
	Imports int    `json:"imports,omitempty"`
	// Cycle marks an edge inside a dependency cycle.
	Cycle bool `json:"cycle,omitempty"`
}

// Label is how drawings name a node: its id, the root by its name.
func (n Node) Label() string {
	if n.ID == "." {
		if n.Name != "" && n.Name != "." {
			return n.Name + " (root)"
		}
		return "(root)"
	}
	return n.ID
}

// Input is what a graph is built from: the modules in order of importance
// and their production edges.
type Input struct {
	Nodes []Node
	Edges []Edge
}

// ErrUnknownModule is Around's error for a module the graph does not have.
var ErrUnknownModule = errors.New("unknown module")

// inactiveStatus are the decision statuses that govern nothing any more.
var inactiveStatus = map[string]bool{"superseded": true, "rejected": true, "deprecated": true}

// FromModel builds the whole graph of an analysis: its modules (those with
// files, or with an edge) ranked by analyze.RankModules, its production
// edges, and the cycles among them. With decisions, each module lists the active
// decisions whose paths cover one of its files, matched as the knowledge
// store matches an entry's paths.
func FromModel(g *model.Graph, decisions bool) *Graph {
	in := Input{}
	linked := map[string]bool{}
	for _, d := range g.Dependencies {
		if d.Scope == model.ScopeProduction && d.From != d.To {
			in.Edges = append(in.Edges, Edge{From: d.From, To: d.To, Imports: d.Imports})
			linked[d.From], linked[d.To] = true, true
		}
	}
	var governs map[string][]Decision
	if decisions {
		governs = governingDecisions(g)
	}
	for _, m := range analyze.RankModules(g) {
		if m.Files == 0 && !linked[m.ID] {
			continue
		}
		n := Node{ID: m.ID, Name: m.Name, Files: m.Files, Decisions: governs[m.ID]}
		if r, ok := analyze.TopRole(m); ok {
			n.Role = r.Role
		}
		in.Nodes = append(in.Nodes, n)
	}
	return Build(in)
}

// governingDecisions maps module ids to the decisions that govern them.
func governingDecisions(g *model.Graph) map[string][]Decision {
	var active []model.Decision
	for _, d := range g.Decisions {
		if len(d.Paths) > 0 && !inactiveStatus[d.Status] {
			active = append(active, d)
		}
	}
	out := map[string][]Decision{}
	if len(active) == 0 {
		return out
	}
	files := map[string][]string{}
	for _, f := range g.Files {
		if f.Module != "" {
			files[f.Module] = append(files[f.Module], f.Path)
		}
	}
	for _, d := range active {
		var matchers []func(string) bool
		for _, p := range d.Paths {
			matchers = append(matchers, glob.Matcher(strings.TrimPrefix(p, "./")))
		}
		for mod, paths := range files {
			if anyMatch(matchers, paths) {
				src, _, _ := strings.Cut(d.Source, "#")
				out[mod] = append(out[mod], Decision{ID: d.ID, Title: d.Title, Source: src})
			}
		}
	}
	for mod := range out {
		sort.Slice(out[mod], func(i, j int) bool { return out[mod][i].ID < out[mod][j].ID })
	}
	return out
}

func anyMatch(matchers []func(string) bool, paths []string) bool {
	for _, p := range paths {
		for _, m := range matchers {
			if m(p) {
				return true
			}
		}
	}
	return false
}

// Build makes a graph of in: edges between modules it does not list are
// dropped, and levels, cycles and the order within each level computed.
func Build(in Input) *Graph {
	g := &Graph{}
	ids := map[string]bool{}
	for i, n := range in.Nodes {
		if ids[n.ID] {
			continue
		}
		ids[n.ID] = true
		n.rank = i
		g.Nodes = append(g.Nodes, n)
	}
	seen := map[[2]string]bool{}
	for _, e := range in.Edges {
		k := [2]string{e.From, e.To}
		if e.From == e.To || !ids[e.From] || !ids[e.To] || seen[k] {
			continue
		}
		seen[k] = true
		g.Edges = append(g.Edges, e)
	}
	// The components of these very edges, as the engine's cycles are of
	// its production edges: without them the layering would not be
	// acyclic.
	g.finish(components(g.Nodes, g.Edges))
	return g
}

// finish marks the cycles (components of the whole graph, restricted to
// what is shown), sorts nodes and edges, and computes the layers.
func (g *Graph) finish(cycles [][]string) {
	shown := map[string]bool{}
	for _, n := range g.Nodes {
		shown[n.ID] = true
	}
	component := map[string]int{}
	g.Cycles = [][]string{}
	for _, c := range cycles {
		var members []string
		for _, id := range c {
			if shown[id] {
				members = append(members, id)
			}
		}
		if len(members) < 2 {
			continue
		}
		sort.Strings(members)
		for _, id := range members {
			component[id] = len(g.Cycles) + 1
		}
		g.Cycles = append(g.Cycles, members)
	}
	sort.Slice(g.Cycles, func(i, j int) bool { return g.Cycles[i][0] < g.Cycles[j][0] })
	for i := range g.Nodes {
		g.Nodes[i].InCycle = component[g.Nodes[i].ID] != 0
	}
	for i := range g.Edges {
		e := &g.Edges[i]
		e.Cycle = component[e.From] != 0 && component[e.From] == component[e.To]
	}
	sort.Slice(g.Nodes, func(i, j int) bool { return g.Nodes[i].ID < g.Nodes[j].ID })
	sort.Slice(g.Edges, func(i, j int) bool {
		if g.Edges[i].From != g.Edges[j].From {
			return g.Edges[i].From < g.Edges[j].From
		}
		return g.Edges[i].To < g.Edges[j].To
	})
	if g.Edges == nil {
		g.Edges = []Edge{}
	}
	if g.Nodes == nil {
		g.Nodes = []Node{}
	}
	g.assignLevels()
	g.Layers = nil
}

// arrange lays the graph out and sets Layers from it: the ordering is
// work that only the drawings and the JSON need.
func (g *Graph) arrange() *layered {
	l := g.layout()
	g.Layers = [][]string{}
	for _, layer := range l.layers {
		ids := []string{}
		for _, v := range layer {
			if !v.dummy {
				ids = append(ids, v.id)
			}
		}
		g.Layers = append(g.Layers, ids)
	}
	return l
}

// assignLevels is the longest-path layering: a module sits one level above
// the highest module it depends on, cycle edges ignored (what is left is
// acyclic).
func (g *Graph) assignLevels() {
	succ := map[string][]string{}
	for _, e := range g.Edges {
		if !e.Cycle {
			succ[e.From] = append(succ[e.From], e.To)
		}
	}
	level := map[string]int{}
	done := map[string]bool{}
	var visit func(id string) int
	visit = func(id string) int {
		if done[id] {
			return level[id]
		}
		done[id] = true // the graph without cycle edges is acyclic
		l := 0
		for _, s := range succ[id] {
			if v := visit(s) + 1; v > l {
				l = v
			}
		}
		level[id] = l
		return l
	}
	for i := range g.Nodes {
		g.Nodes[i].Level = visit(g.Nodes[i].ID)
	}
}

// Around returns the neighbourhood of module id: the modules within depth
// dependency steps of it, in either direction, and the edges among them.
// id may be written with a leading "./" or a trailing slash.
func (g *Graph) Around(id string, depth int) (*Graph, error) {
	id = cleanID(id)
	node, ok := g.node(id)
	if !ok {
		return nil, fmt.Errorf("%w %s", ErrUnknownModule, id)
	}
	near := map[string][]string{}
	for _, e := range g.Edges {
		near[e.From] = append(near[e.From], e.To)
		near[e.To] = append(near[e.To], e.From)
	}
	dist := map[string]int{node.ID: 0}
	queue := []string{node.ID}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		if dist[cur] == depth {
			continue
		}
		for _, n := range near[cur] {
			if _, ok := dist[n]; !ok {
				dist[n] = dist[cur] + 1
				queue = append(queue, n)
			}
		}
	}
	out := g.subgraph(func(n Node) bool { _, ok := dist[n.ID]; return ok })
	out.Focus, out.Depth = node.ID, &depth
	return out, nil
}

// Top returns the graph of the max most important modules, the others
// counted in Omitted; max <= 0 keeps every module.
func (g *Graph) Top(max int) *Graph {
	if max <= 0 || len(g.Nodes) <= max {
		return g
	}
	ranks := make([]int, 0, len(g.Nodes))
	for _, n := range g.Nodes {
		ranks = append(ranks, n.rank)
	}
	sort.Ints(ranks)
	cut := ranks[max-1]
	out := g.subgraph(func(n Node) bool { return n.rank <= cut })
	out.Focus, out.Depth = g.Focus, g.Depth
	out.Omitted = g.Omitted + len(g.Nodes) - len(out.Nodes)
	return out
}

// subgraph keeps the nodes keep accepts; its cycles stay those of g.
func (g *Graph) subgraph(keep func(Node) bool) *Graph {
	out := &Graph{Omitted: g.Omitted}
	ids := map[string]bool{}
	for _, n := range g.Nodes {
		if keep(n) {
			out.Nodes = append(out.Nodes, n)
			ids[n.ID] = true
		}
	}
	for _, e := range g.Edges {
		if ids[e.From] && ids[e.To] {
			e.Cycle = false
			out.Edges = append(out.Edges, e)
		}
	}
	out.finish(g.Cycles)
	return out
}

func (g *Graph) node(id string) (Node, bool) {
	i := sort.Search(len(g.Nodes), func(i int) bool { return g.Nodes[i].ID >= id })
	if i < len(g.Nodes) && g.Nodes[i].ID == id {
		return g.Nodes[i], true
	}
	return Node{}, false
}

// Similar lists up to max module ids that look like id: those a typo or
// two away, then those ending in or containing its last element, for an
// error that helps.
func (g *Graph) Similar(id string, max int) []string {
	id = cleanID(id)
	base := path.Base(id)
	var close, ends, has []string
	for _, n := range g.Nodes {
		switch {
		case typo.Distance(n.ID, id) <= typos(id):
			close = append(close, n.ID)
		case path.Base(n.ID) == base || strings.HasSuffix(n.ID, "/"+id):
			ends = append(ends, n.ID)
		case base != "" && strings.Contains(n.ID, base):
			has = append(has, n.ID)
		}
	}
	out := append(append(close, ends...), has...)
	if len(out) > max {
		out = out[:max]
	}
	return out
}

// typos is how many edits still read as a misspelling of s.
func typos(s string) int { return 1 + len(s)/8 }

// ModuleOf is the module a --module argument names: a module id as
// written, else the module owning that file; ok is false for neither.
func ModuleOf(g *model.Graph, target string) (id string, ok bool) {
	target = cleanID(target)
	for i := range g.Modules {
		if g.Modules[i].ID == target {
			return target, true
		}
	}
	for i := range g.Files {
		if g.Files[i].Path == target && g.Files[i].Module != "" {
			return g.Files[i].Module, true
		}
	}
	return target, false
}

func cleanID(id string) string {
	id = strings.TrimSpace(id)
	if id == "" || id == "." || id == "./" {
		return "."
	}
	return strings.TrimSuffix(strings.TrimPrefix(id, "./"), "/")
}

// components are the strongly connected components of two or more nodes
// (Tarjan, iterative: a long chain of modules must not grow the stack).
func components(nodes []Node, edges []Edge) [][]string {
	succ := map[string][]string{}
	for _, e := range edges {
		succ[e.From] = append(succ[e.From], e.To)
	}
	ids := make([]string, 0, len(nodes))
	for _, n := range nodes {
		ids = append(ids, n.ID)
	}
	sort.Strings(ids)
	for _, s := range succ {
		sort.Strings(s)
	}
	index, low := map[string]int{}, map[string]int{}
	onStack := map[string]bool{}
	var stack []string
	var out [][]string
	next := 0
	type frame struct {
		id string
		i  int
	}
	for _, root := range ids {
		if _, ok := index[root]; ok {
			continue
		}
		call := []frame{{id: root}}
		index[root], low[root] = next, next
		next++
		stack = append(stack, root)
		onStack[root] = true
		for len(call) > 0 {
			f := &call[len(call)-1]
			if f.i < len(succ[f.id]) {
				w := succ[f.id][f.i]
				f.i++
				if _, ok := index[w]; !ok {
					index[w], low[w] = next, next
					next++
					stack = append(stack, w)
					onStack[w] = true
					call = append(call, frame{id: w})
				} else if onStack[w] && index[w] < low[f.id] {
					low[f.id] = index[w]
				}
				continue
			}
			v := f.id
			call = call[:len(call)-1]
			if len(call) > 0 && low[v] < low[call[len(call)-1].id] {
				low[call[len(call)-1].id] = low[v]
			}
			if low[v] == index[v] {
				var comp []string
				for {
					w := stack[len(stack)-1]
					stack = stack[:len(stack)-1]
					onStack[w] = false
					comp = append(comp, w)
					if w == v {
						break
					}
				}
				if len(comp) > 1 {
					sort.Strings(comp)
					out = append(out, comp)
				}
			}
		}
	}
	return out
}
