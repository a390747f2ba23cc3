package graph

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/kontext-dev/kontext/internal/lazyregexp"
)

// Formats are the formats Render writes, the default first.
var Formats = []string{"mermaid", "dot", "svg", "json"}

// Render writes g in format (one of Formats).
func Render(w io.Writer, g *Graph, format string) error {
	switch format {
	case "mermaid":
		return writeAll(w, Mermaid(g))
	case "dot":
		return writeAll(w, DOT(g))
	case "svg":
		return writeAll(w, SVG(g))
	case "json":
		g.arrange()
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(g)
	}
	return fmt.Errorf("unknown format %q (one of %s)", format, strings.Join(Formats, ", "))
}

func writeAll(w io.Writer, s string) error {
	bw := bufio.NewWriter(w)
	if _, err := bw.WriteString(s); err != nil {
		return err
	}
	return bw.Flush()
}

// maxDecisionLines bounds the decisions a drawn node lists; the rest are
// counted.
const maxDecisionLines = 3

// decisionLines are the lines a node's decisions add to its label.
func decisionLines(n Node) []string {
	var out []string
	for i, d := range n.Decisions {
		if i == maxDecisionLines {
			out = append(out, fmt.Sprintf("+%d more decisions", len(n.Decisions)-i))
			break
		}
		out = append(out, "§ "+d.ID)
	}
	return out
}

// Mermaid is g as a Mermaid flowchart, dependents above their
// dependencies: cycle edges dashed and red, modules in a cycle outlined
// red. Node ids are derived from module ids, so a module keeps its id
// when others come and go.
func Mermaid(g *Graph) string {
	var b strings.Builder
	b.WriteString("flowchart TD\n")
	if g.Omitted > 0 {
		fmt.Fprintf(&b, "  %%%% the %d most important modules shown, %d more left out\n", len(g.Nodes), g.Omitted)
	}
	ids := mermaidIDs(g.Nodes)
	if len(g.Nodes) == 0 {
		b.WriteString("  empty[\"no modules\"]\n")
	}
	for _, n := range g.Nodes {
		label := mermaidText(n.Label())
		for _, l := range decisionLines(n) {
			label += "<br/>" + mermaidText(l)
		}
		fmt.Fprintf(&b, "  %s[\"%s\"]\n", ids[n.ID], label)
	}
	var cycleLinks []string
	for i, e := range g.Edges {
		arrow := "-->"
		if e.Cycle {
			arrow = "-.->"
			cycleLinks = append(cycleLinks, fmt.Sprint(i))
		}
		fmt.Fprintf(&b, "  %s %s %s\n", ids[e.From], arrow, ids[e.To])
	}
	var inCycle []string
	for _, n := range g.Nodes {
		if n.InCycle {
			inCycle = append(inCycle, ids[n.ID])
		}
	}
	if g.Focus != "" {
		b.WriteString("  classDef focus fill:#fff3c4,stroke:#b8860b,stroke-width:2px\n")
		fmt.Fprintf(&b, "  class %s focus\n", ids[g.Focus])
	}
	if len(inCycle) > 0 {
		b.WriteString("  classDef cycle stroke:#c62828,stroke-width:2px\n")
		fmt.Fprintf(&b, "  class %s cycle\n", strings.Join(inCycle, ","))
	}
	if len(cycleLinks) > 0 {
		fmt.Fprintf(&b, "  linkStyle %s stroke:#c62828,stroke-width:2px\n", strings.Join(cycleLinks, ","))
	}
	return b.String()
}

var mermaidUnsafe = lazyregexp.New(`[^A-Za-z0-9_]+`)

// mermaidIDs gives each module a Mermaid node id: "m_" and its id with
// every other character run turned into "_"; where two modules would
// share one, the later (by id) gets a hash of its module id appended.
func mermaidIDs(nodes []Node) map[string]string {
	out := make(map[string]string, len(nodes))
	taken := map[string]bool{}
	for _, n := range nodes { // sorted by id
		id := "m_" + strings.Trim(mermaidUnsafe.ReplaceAllString(n.ID, "_"), "_")
		if n.ID == "." {
			id = "m_root"
		}
		if taken[id] {
			sum := sha256.Sum256([]byte(n.ID))
			id += "_" + hex.EncodeToString(sum[:4])
		}
		taken[id] = true
		out[n.ID] = id
	}
	return out
}

// mermaidText escapes a label for a quoted Mermaid string: quotes and the
// characters Mermaid or its HTML labels read become entity codes.
var mermaidText = strings.NewReplacer(
	`#`, "#35;", `"`, "#quot;", `<`, "#lt;", `>`, "#gt;", `&`, "#amp;", "`", "#96;",
	"\n", " ", "\r", " ",
).Replace

// DOT is g in Graphviz's language: one node per module, labelled with its
// id (and role and decisions), the cycle edges red and dashed.
func DOT(g *Graph) string {
	var b strings.Builder
	b.WriteString("digraph modules {\n  rankdir=TB;\n  node [shape=box, style=\"rounded,filled\", fillcolor=\"#eef3fb\", color=\"#4a6fa5\", fontname=\"Helvetica\"];\n  edge [color=\"#6b7280\"];\n")
	for _, n := range g.Nodes {
		lines := []string{n.Label()}
		if n.Role != "" {
			lines = append(lines, "("+n.Role+")")
		}
		lines = append(lines, decisionLines(n)...)
		var esc []string
		for _, l := range lines {
			esc = append(esc, dotText(l))
		}
		attrs := fmt.Sprintf("label=\"%s\"", strings.Join(esc, `\n`))
		if n.InCycle {
			attrs += ", color=\"#c62828\", penwidth=2"
		}
		if n.ID == g.Focus {
			attrs += ", fillcolor=\"#fff3c4\""
		}
		fmt.Fprintf(&b, "  \"%s\" [%s];\n", dotText(n.ID), attrs)
	}
	for _, e := range g.Edges {
		attrs := ""
		if e.Cycle {
			attrs = " [color=\"#c62828\", style=dashed, penwidth=2]"
		}
		fmt.Fprintf(&b, "  \"%s\" -> \"%s\"%s;\n", dotText(e.From), dotText(e.To), attrs)
	}
	b.WriteString("}\n")
	return b.String()
}

// dotText escapes a DOT quoted string.
var dotText = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\r", "").Replace
