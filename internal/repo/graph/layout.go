package graph

import (
	"cmp"
	"slices"
	"sort"
)

// The layout is a Sugiyama drawing kept small: longest-path levels
// (assignLevels), a dummy vertex wherever an edge spans more than one
// level so that it bends around the nodes in between, and barycentric
// ordering within each level to reduce crossings. It is deterministic:
// every tie is broken by a stable order.

// vertex is a node, or a dummy on an edge that spans levels.
type vertex struct {
	id    string // the node's id; a dummy's edge and level
	dummy bool
	node  int // the index in Graph.Nodes (-1 for a dummy)
	level int
	pos   int     // the index within its level
	key   float64 // the barycentre it is sorted by
	up    []*vertex
	down  []*vertex
	// Drawing: the centre and the size.
	x, y, w, h float64
}

// route is an edge through its vertices, from the dependent (top) to the
// dependency.
type route struct {
	edge int // the index in Graph.Edges
	path []*vertex
}

type layered struct {
	layers [][]*vertex // by level, 0 (the foundations) first
	routes []route     // the edges that are not in a cycle
	byID   map[string]*vertex
}

// orderingSweeps bounds the barycentric passes (one down, one up each).
const orderingSweeps = 12

func (g *Graph) layout() *layered {
	l := &layered{byID: map[string]*vertex{}}
	top := 0
	for _, n := range g.Nodes {
		top = max(top, n.Level)
	}
	if len(g.Nodes) > 0 {
		l.layers = make([][]*vertex, top+1)
	}
	for i, n := range g.Nodes { // sorted by id: the initial order
		v := &vertex{id: n.ID, node: i, level: n.Level}
		l.byID[n.ID] = v
		l.layers[n.Level] = append(l.layers[n.Level], v)
	}
	for i, e := range g.Edges {
		if e.Cycle {
			continue
		}
		from, to := l.byID[e.From], l.byID[e.To]
		r := route{edge: i, path: []*vertex{from}}
		prev := from
		for lv := from.level - 1; lv > to.level; lv-- {
			d := &vertex{id: e.From + " -> " + e.To, dummy: true, node: -1, level: lv}
			l.layers[lv] = append(l.layers[lv], d)
			link(prev, d)
			r.path = append(r.path, d)
			prev = d
		}
		link(prev, to)
		r.path = append(r.path, to)
		l.routes = append(l.routes, r)
	}
	l.number()
	l.order()
	return l
}

func link(upper, lower *vertex) {
	upper.down = append(upper.down, lower)
	lower.up = append(lower.up, upper)
}

func (l *layered) number() {
	for _, layer := range l.layers {
		for i, v := range layer {
			v.pos = i
		}
	}
}

// order sweeps down and up, placing each vertex at the mean position of
// its neighbours in the level just swept, and keeps the order with the
// fewest crossings seen.
func (l *layered) order() {
	best := l.snapshot()
	fewest := l.crossings()
	for i := 0; i < orderingSweeps && fewest > 0; i++ {
		for lv := len(l.layers) - 2; lv >= 0; lv-- {
			l.sortLevel(lv, func(v *vertex) []*vertex { return v.up })
		}
		for lv := 1; lv < len(l.layers); lv++ {
			l.sortLevel(lv, func(v *vertex) []*vertex { return v.down })
		}
		if c := l.crossings(); c < fewest {
			fewest, best = c, l.snapshot()
		}
	}
	l.layers = best
	l.number()
}

func (l *layered) snapshot() [][]*vertex {
	out := make([][]*vertex, len(l.layers))
	for i, layer := range l.layers {
		out[i] = append([]*vertex(nil), layer...)
	}
	return out
}

// sortLevel orders a level by the barycentres of each vertex's neighbours;
// a vertex without any keeps its place, and ties keep their order (the
// current position breaks them, so the order is total and deterministic).
func (l *layered) sortLevel(lv int, neighbours func(*vertex) []*vertex) {
	layer := l.layers[lv]
	for _, v := range layer {
		ns := neighbours(v)
		if len(ns) == 0 {
			v.key = float64(v.pos)
			continue
		}
		sum := 0
		for _, n := range ns {
			sum += n.pos
		}
		v.key = float64(sum) / float64(len(ns))
	}
	slices.SortFunc(layer, func(a, b *vertex) int {
		if c := cmp.Compare(a.key, b.key); c != 0 {
			return c
		}
		return cmp.Compare(a.pos, b.pos)
	})
	for i, v := range layer {
		v.pos = i
	}
}

// crossings counts the pairs of segments between adjacent levels that
// cross: the inversions of their lower ends once sorted by their upper
// ends, counted with a Fenwick tree (a big graph has thousands).
func (l *layered) crossings() int {
	total := 0
	for lv := 1; lv < len(l.layers); lv++ {
		var segs [][2]int
		for _, v := range l.layers[lv] {
			for _, d := range v.down {
				segs = append(segs, [2]int{v.pos, d.pos})
			}
		}
		sort.Slice(segs, func(i, j int) bool {
			if segs[i][0] != segs[j][0] {
				return segs[i][0] < segs[j][0]
			}
			return segs[i][1] < segs[j][1]
		})
		tree := make([]int, len(l.layers[lv-1])+1)
		for i, s := range segs {
			// Segments seen so far with a lower end right of this one's
			// and a smaller upper end cross it.
			atMost := 0
			for k := s[1] + 1; k > 0; k -= k & -k {
				atMost += tree[k]
			}
			total += i - atMost
			for k := s[1] + 1; k < len(tree); k += k & -k {
				tree[k]++
			}
		}
	}
	return total
}
