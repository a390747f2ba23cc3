package analyze

import (
	"fmt"
	"sort"

	"github.com/kontext-dev/kontext/internal/repo/model"
)

const (
	maxEdgeEvidence  = 3  // import evidence kept per module edge
	maxCycleEvidence = 12 // per cycle
)

// moduleEdge is a module → module dependency and the imports behind it.
type moduleEdge struct {
	from, to string
	imports  int
	evidence []model.Evidence
}

// moduleEdges are the module → module dependencies with the imports
// behind them, so a cycle or violation can always name the import that
// makes it. Test code does not count: a Go external test package, or a
// test importing a helper that imports the code under test, is no
// dependency of the code. The scan's production module edges are used
// only for a graph without file-level imports.
func moduleEdges(ix *index) map[string]map[string]*moduleEdge {
	edges := map[string]map[string]*moduleEdge{}
	get := func(from, to string) *moduleEdge {
		if edges[from] == nil {
			edges[from] = map[string]*moduleEdge{}
		}
		e := edges[from][to]
		if e == nil {
			e = &moduleEdge{from: from, to: to}
			edges[from][to] = e
		}
		return e
	}
	fileLevel := false
	for i := range ix.g.Files {
		f := &ix.g.Files[i]
		if len(f.Imports) > 0 {
			fileLevel = true
		}
		from := ix.moduleOf(f.Path)
		if from == "" || f.Kind == model.FileTest || f.DevOnly || !built(f) {
			continue
		}
		for _, imp := range f.Imports {
			if imp.Test {
				continue // test-only code of the file (a Rust #[cfg(test)] module)
			}
			to := importTargetModule(ix, imp)
			if to == "" || to == from {
				continue
			}
			e := get(from, to)
			e.imports++
			if len(e.evidence) < maxEdgeEvidence && !hasEvidenceAt(e.evidence, f.Path, imp.Line) {
				e.evidence = append(e.evidence, model.Evidence{File: f.Path, Line: imp.Line, Detail: fmt.Sprintf("imports %q (%s)", imp.Spec, to)})
			}
		}
	}
	if fileLevel {
		return edges
	}
	for _, d := range ix.g.Dependencies {
		if d.From == d.To || d.From == "" || d.To == "" || d.Scope == model.ScopeTest {
			continue
		}
		e := get(d.From, d.To)
		e.imports += d.Imports
		for _, ev := range d.Evidence {
			if len(e.evidence) < maxEdgeEvidence {
				e.evidence = append(e.evidence, ev)
			}
		}
	}
	for i := range ix.g.Modules {
		m := &ix.g.Modules[i]
		for _, to := range m.DependsOn {
			if to != m.ID && to != "" {
				get(m.ID, to)
			}
		}
	}
	return edges
}

// importTargetModule is the module an internal import lands in.
func importTargetModule(ix *index, imp model.Import) string {
	if imp.Target == "" {
		return ""
	}
	switch imp.Kind {
	case model.ImportInternalFile:
		return ix.moduleOf(imp.Target)
	case model.ImportInternalModule, model.ImportWorkspacePackage:
		if _, ok := ix.modules[imp.Target]; ok {
			return imp.Target
		}
		if id, ok := ix.byName[imp.Target]; ok { // a workspace package named by its package name
			return id
		}
		return ix.moduleOf(imp.Target)
	}
	return ""
}

func hasEvidenceAt(evs []model.Evidence, file string, line int) bool {
	for _, e := range evs {
		if e.File == file && e.Line == line {
			return true
		}
	}
	return false
}

// Cycles finds the strongly connected components of the module graph
// (Tarjan). Each component of two or more modules is one cycle: its
// modules listed along a shortest cycle from the smallest id, then the
// rest, with the import evidence of the edges inside it.
func Cycles(g *model.Graph) {
	ix := newIndex(g)
	cycles(g, ix, moduleEdges(ix))
}

func cycles(g *model.Graph, ix *index, edges map[string]map[string]*moduleEdge) {
	nodes := map[string]bool{}
	for i := range g.Modules {
		nodes[g.Modules[i].ID] = true
	}
	for from, tos := range edges {
		nodes[from] = true
		for to := range tos {
			nodes[to] = true
		}
	}
	succ := func(n string) []string { return sortedKeys(edges[n]) }
	g.Cycles = []model.Cycle{}
	for _, comp := range tarjan(sortedKeys(nodes), succ) {
		if len(comp) < 2 {
			continue
		}
		in := map[string]bool{}
		for _, n := range comp {
			in[n] = true
		}
		cyc := shortestCycle(comp[0], in, succ)
		order := append([]string(nil), cyc...)
		seen := map[string]bool{}
		for _, n := range order {
			seen[n] = true
		}
		for _, n := range comp {
			if !seen[n] {
				order = append(order, n)
			}
		}
		var evs []model.Evidence
		addEdge := func(a, b string) {
			e := edges[a][b]
			if e == nil {
				return
			}
			if len(e.evidence) == 0 && len(evs) < maxCycleEvidence {
				evs = append(evs, model.Evidence{File: a, Detail: fmt.Sprintf("%s depends on %s", a, b)})
			}
			for _, ev := range e.evidence {
				if len(evs) < maxCycleEvidence {
					evs = append(evs, ev)
				}
				break // one import per edge first, so every edge is shown
			}
		}
		// The cycle's own edges first, then the other edges inside the component.
		cycEdges := map[[2]string]bool{}
		for i, a := range cyc {
			b := cyc[(i+1)%len(cyc)]
			cycEdges[[2]string{a, b}] = true
			addEdge(a, b)
		}
		for _, a := range comp {
			for _, b := range succ(a) {
				if in[b] && !cycEdges[[2]string{a, b}] {
					addEdge(a, b)
				}
			}
		}
		g.Cycles = append(g.Cycles, model.Cycle{Modules: order, Evidence: evs})
	}
	sort.Slice(g.Cycles, func(i, j int) bool { return g.Cycles[i].Modules[0] < g.Cycles[j].Modules[0] })
}

// tarjan returns the strongly connected components, each sorted, without
// recursion (a deep module chain must not grow the stack).
func tarjan(nodes []string, succ func(string) []string) [][]string {
	idx := map[string]int{}
	low := map[string]int{}
	onStack := map[string]bool{}
	var stack []string
	var comps [][]string
	next := 0
	type frame struct {
		n    string
		kids []string
		i    int
	}
	for _, root := range nodes {
		if _, done := idx[root]; done {
			continue
		}
		idx[root], low[root] = next, next
		next++
		stack = append(stack, root)
		onStack[root] = true
		call := []frame{{n: root, kids: succ(root)}}
		for len(call) > 0 {
			top := &call[len(call)-1]
			if top.i < len(top.kids) {
				k := top.kids[top.i]
				top.i++
				if _, seen := idx[k]; !seen {
					idx[k], low[k] = next, next
					next++
					stack = append(stack, k)
					onStack[k] = true
					call = append(call, frame{n: k, kids: succ(k)})
				} else if onStack[k] && idx[k] < low[top.n] {
					low[top.n] = idx[k]
				}
				continue
			}
			n := top.n
			call = call[:len(call)-1]
			if len(call) > 0 {
				p := call[len(call)-1].n
				if low[n] < low[p] {
					low[p] = low[n]
				}
			}
			if low[n] == idx[n] {
				var comp []string
				for {
					w := stack[len(stack)-1]
					stack = stack[:len(stack)-1]
					onStack[w] = false
					comp = append(comp, w)
					if w == n {
						break
					}
				}
				sort.Strings(comp)
				comps = append(comps, comp)
			}
		}
	}
	return comps
}

// shortestCycle is a shortest path from start back to itself inside the
// component (breadth-first), as the list of modules on it.
func shortestCycle(start string, in map[string]bool, succ func(string) []string) []string {
	prev := map[string]string{}
	queue := []string{start}
	visited := map[string]bool{}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		for _, k := range succ(n) {
			if !in[k] {
				continue
			}
			if k == start {
				path := []string{n}
				for p := n; p != start; {
					p = prev[p]
					path = append(path, p)
				}
				for i, j := 0, len(path)-1; i < j; i, j = i+1, j-1 {
					path[i], path[j] = path[j], path[i]
				}
				return path
			}
			if !visited[k] {
				visited[k] = true
				prev[k] = n
				queue = append(queue, k)
			}
		}
	}
	return []string{start}
}

// Layering reports module edges that go against the direction the
// modules' top roles imply (domain → infrastructure, …). Run Roles first.
func Layering(g *model.Graph) {
	ix := newIndex(g)
	layering(g, ix, moduleEdges(ix))
}

func layering(g *model.Graph, ix *index, edges map[string]map[string]*moduleEdge) {
	g.Violations = []model.Violation{}
	for _, from := range sortedKeys(edges) {
		fm := ix.modules[from]
		if fm == nil {
			continue
		}
		fromRole, ok := TopRole(fm)
		if !ok {
			continue
		}
		for _, to := range sortedKeys(edges[from]) {
			tm := ix.modules[to]
			if tm == nil {
				continue
			}
			toRole, ok := TopRole(tm)
			if !ok {
				continue
			}
			for _, r := range layeringRules {
				if fromRole.Role != r.From || toRole.Role != r.To {
					continue
				}
				evs := append([]model.Evidence(nil), edges[from][to].evidence...)
				evs = append(evs,
					model.Evidence{File: from, Detail: fmt.Sprintf("%s's top role is %s (%.2f)", from, fromRole.Role, fromRole.Confidence)},
					model.Evidence{File: to, Detail: fmt.Sprintf("%s's top role is %s (%.2f)", to, toRole.Role, toRole.Confidence)})
				g.Violations = append(g.Violations, model.Violation{From: from, To: to, Rule: r.Rule, Confidence: confViolation, Evidence: evs})
			}
		}
	}
}
