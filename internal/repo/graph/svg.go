package graph

import (
	"encoding/xml"
	"fmt"
	"math"
	"strings"
)

// The SVG's metrics. Text is monospace so that a label's width is known
// without measuring fonts: 0.6 em per character is the advance of the
// common monospace faces.
const (
	fontSize    = 12.0
	charWidth   = fontSize * 0.6
	lineHeight  = 15.0
	padX        = 10.0
	padY        = 6.0
	gapX        = 24.0
	gapY        = 56.0
	margin      = 20.0
	dummyWidth  = 8.0
	dummyGap    = 4.0 // between two bends of edges: they are lines, not boxes
	placePasses = 6
	cycleOffset = 4.0
)

const (
	colourEdge  = "#6b7280"
	colourCycle = "#c62828"
	colourFill  = "#eef3fb"
	colourLine  = "#4a6fa5"
	colourFocus = "#fff3c4"
)

// SVG draws g with its own layered layout: dependents above their
// dependencies, edges as polylines around the levels between their ends,
// cycle edges red and dashed. Each module is one <g class="node"> with a
// data-module attribute.
func SVG(g *Graph) string {
	l := g.arrange()
	lines := make([][]string, len(g.Nodes))
	for i, n := range g.Nodes {
		ls := []string{n.Label()}
		if n.Role != "" {
			ls = append(ls, "("+n.Role+")")
		}
		lines[i] = append(ls, decisionLines(n)...)
	}
	width, height := place(l, lines)

	var b strings.Builder
	fmt.Fprintf(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
	fmt.Fprintf(&b, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%s\" height=\"%s\" viewBox=\"0 0 %s %s\" font-family=\"monospace\" font-size=\"%s\">\n",
		num(width), num(height), num(width), num(height), num(fontSize))
	b.WriteString("<title>module graph</title>\n")
	b.WriteString("<defs>\n")
	for _, m := range []struct{ id, colour string }{{"arrow", colourEdge}, {"arrow-cycle", colourCycle}} {
		fmt.Fprintf(&b, "<marker id=\"%s\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"%s\"/></marker>\n", m.id, m.colour)
	}
	b.WriteString("</defs>\n")
	fmt.Fprintf(&b, "<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n")
	if len(g.Nodes) == 0 {
		fmt.Fprintf(&b, "<text x=\"%s\" y=\"%s\">no modules</text>\n", num(margin), num(margin+fontSize))
	}
	b.WriteString("<g class=\"edges\" fill=\"none\">\n")
	for _, r := range l.routes {
		e := g.Edges[r.edge]
		var pts []string
		for i, v := range r.path {
			y := v.y
			switch {
			case i == 0:
				y = v.y + v.h/2
			case i == len(r.path)-1:
				y = v.y - v.h/2
			}
			pts = append(pts, num(v.x)+","+num(y))
		}
		fmt.Fprintf(&b, "<polyline class=\"edge\" points=\"%s\" stroke=\"%s\" marker-end=\"url(#arrow)\"><title>%s</title></polyline>\n",
			strings.Join(pts, " "), colourEdge, esc(edgeTitle(e)))
	}
	for _, e := range g.Edges {
		if !e.Cycle {
			continue
		}
		from, to := l.byID[e.From], l.byID[e.To]
		fmt.Fprintf(&b, "<path class=\"edge cycle\" d=\"%s\" stroke=\"%s\" stroke-width=\"2\" stroke-dasharray=\"6 4\" marker-end=\"url(#arrow-cycle)\"><title>%s</title></path>\n",
			cyclePath(from, to), colourCycle, esc(edgeTitle(e)+" (in a cycle)"))
	}
	b.WriteString("</g>\n<g class=\"nodes\">\n")
	for i, n := range g.Nodes {
		v := l.byID[n.ID]
		stroke, strokeWidth, fill := colourLine, "1", colourFill
		if n.InCycle {
			stroke, strokeWidth = colourCycle, "2"
		}
		if n.ID == g.Focus {
			fill = colourFocus
		}
		fmt.Fprintf(&b, "<g class=\"node\" data-module=\"%s\">", esc(n.ID))
		fmt.Fprintf(&b, "<title>%s</title>", esc(nodeTitle(n)))
		fmt.Fprintf(&b, "<rect x=\"%s\" y=\"%s\" width=\"%s\" height=\"%s\" rx=\"4\" fill=\"%s\" stroke=\"%s\" stroke-width=\"%s\"/>",
			num(v.x-v.w/2), num(v.y-v.h/2), num(v.w), num(v.h), fill, stroke, strokeWidth)
		top := v.y - v.h/2 + padY + fontSize - 2
		for k, line := range lines[i] {
			attrs := ""
			if k > 0 {
				attrs = " fill=\"#374151\" font-size=\"11\""
			}
			fmt.Fprintf(&b, "<text x=\"%s\" y=\"%s\" text-anchor=\"middle\"%s>%s</text>", num(v.x), num(top+float64(k)*lineHeight), attrs, esc(line))
		}
		b.WriteString("</g>\n")
	}
	b.WriteString("</g>\n</svg>\n")
	return b.String()
}

// place sizes every vertex and gives it its centre: levels top to bottom,
// highest first; within a level the vertices in order, each pulled
// towards the mean of its neighbours and pushed apart where they would
// overlap. It returns the drawing's size.
func place(l *layered, lines [][]string) (width, height float64) {
	for _, layer := range l.layers {
		for _, v := range layer {
			if v.dummy {
				v.w, v.h = dummyWidth, 0
				continue
			}
			longest := 0
			for _, s := range lines[v.node] {
				longest = max(longest, len([]rune(s)))
			}
			v.w = float64(longest)*charWidth + 2*padX
			v.h = float64(len(lines[v.node]))*lineHeight + 2*padY
		}
	}
	y := margin
	for lv := len(l.layers) - 1; lv >= 0; lv-- {
		tallest := 0.0
		for _, v := range l.layers[lv] {
			tallest = max(tallest, v.h)
		}
		for _, v := range l.layers[lv] {
			v.y = y + tallest/2
		}
		y += tallest + gapY
	}
	for _, layer := range l.layers {
		x := 0.0
		for i, v := range layer {
			if i > 0 {
				x += gap(layer[i-1], v)
			}
			v.x = x + v.w/2
			x += v.w
		}
	}
	for pass := 0; pass < placePasses; pass++ {
		for lv := len(l.layers) - 2; lv >= 0; lv-- {
			align(l.layers[lv], func(v *vertex) []*vertex { return v.up })
		}
		for lv := 1; lv < len(l.layers); lv++ {
			align(l.layers[lv], func(v *vertex) []*vertex { return v.down })
		}
	}
	left, right := 0.0, 0.0
	first := true
	for _, layer := range l.layers {
		for _, v := range layer {
			if first || v.x-v.w/2 < left {
				left = v.x - v.w/2
			}
			if first || v.x+v.w/2 > right {
				right = v.x + v.w/2
			}
			first = false
		}
	}
	for _, layer := range l.layers {
		for _, v := range layer {
			v.x += margin - left
		}
	}
	width = max(right-left+2*margin, 160)
	height = max(y-gapY+margin, 60)
	if len(l.layers) == 0 {
		height = 60
	}
	return width, height
}

// align moves a level's vertices towards the mean x of their neighbours,
// keeping their order and gaps: the ideal places pushed apart rightwards,
// and pushed apart leftwards, averaged. Both keep every gap, so their mean
// does, and neither end of the level is pushed alone.
func align(layer []*vertex, neighbours func(*vertex) []*vertex) {
	if len(layer) == 0 {
		return
	}
	want := make([]float64, len(layer))
	for i, v := range layer {
		want[i] = v.x
		if ns := neighbours(v); len(ns) > 0 {
			sum := 0.0
			for _, n := range ns {
				sum += n.x
			}
			want[i] = sum / float64(len(ns))
		}
	}
	right := append([]float64(nil), want...)
	for i := 1; i < len(layer); i++ {
		right[i] = max(right[i], right[i-1]+separation(layer[i-1], layer[i]))
	}
	left := append([]float64(nil), want...)
	for i := len(layer) - 2; i >= 0; i-- {
		left[i] = min(left[i], left[i+1]-separation(layer[i], layer[i+1]))
	}
	for i, v := range layer {
		v.x = (left[i] + right[i]) / 2
	}
}

// separation is the least distance between the centres of neighbours a
// and b.
func separation(a, b *vertex) float64 { return a.w/2 + gap(a, b) + b.w/2 }

func gap(a, b *vertex) float64 {
	if a.dummy && b.dummy {
		return dummyGap
	}
	return gapX
}

// cyclePath is a cycle edge: straight between levels, shifted a little to
// the right of its direction so that the two edges of a pair (a → b and
// b → a) stay apart; an arc above the level when both ends share it.
func cyclePath(from, to *vertex) string {
	x1, y1, x2, y2 := from.x, from.y+from.h/2, to.x, to.y-to.h/2
	if from.level < to.level {
		y1, y2 = from.y-from.h/2, to.y+to.h/2
	}
	if from.level == to.level {
		top := from.y - from.h/2
		return fmt.Sprintf("M%s,%s Q%s,%s %s,%s", num(x1), num(top), num((x1+x2)/2), num(top-gapY*0.45), num(x2), num(to.y-to.h/2))
	}
	dx, dy := x2-x1, y2-y1
	length := math.Hypot(dx, dy)
	ox, oy := -dy/length*cycleOffset, dx/length*cycleOffset
	return fmt.Sprintf("M%s,%s L%s,%s", num(x1+ox), num(y1+oy), num(x2+ox), num(y2+oy))
}

func edgeTitle(e Edge) string {
	s := e.From + " → " + e.To
	if e.Imports > 0 {
		s += fmt.Sprintf(" (%d imports)", e.Imports)
		if e.Imports == 1 {
			s = strings.TrimSuffix(s, "s)") + ")"
		}
	}
	return s
}

func nodeTitle(n Node) string {
	s := fmt.Sprintf("%s: %d files", n.ID, n.Files)
	if n.Files == 1 {
		s = n.ID + ": 1 file"
	}
	if n.Role != "" {
		s += ", " + n.Role
	}
	for _, d := range n.Decisions {
		s += "\n" + d.ID + ": " + d.Title
	}
	return s
}

// num prints a coordinate with at most one decimal, the same on every
// platform.
func num(f float64) string {
	s := fmt.Sprintf("%.1f", f)
	s = strings.TrimSuffix(s, ".0")
	if s == "-0" {
		s = "0"
	}
	return s
}

func esc(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}
