package inventory

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	kcli "github.com/kontext-dev/kontext/internal/cli"
	"github.com/kontext-dev/kontext/internal/repo"
	"github.com/kontext-dev/kontext/internal/repo/graph"
)

// defaultGraphDepth is how far --module reaches without --depth: the
// modules it uses and those that use it.
const defaultGraphDepth = 1

// graphCommand is kontext graph: the module graph of the repo engine drawn
// as Mermaid, DOT, SVG or JSON.
func graphCommand(rootFlag cli.Flag) *cli.Command {
	return &cli.Command{
		Name:     "graph",
		Category: kcli.CategoryRepository,
		Usage:    "draw the module graph: production dependencies in layers, cycles marked (Mermaid, DOT, SVG or JSON)",
		Description: "Draws the modules of the repository and the production dependencies between them, dependents above\n" +
			"what they use, with the edges of dependency cycles marked. --module centres the graph on one module and\n" +
			"its neighbours within --depth steps; --decisions lists the decisions that govern each module (the\n" +
			"decision records whose paths cover its files). The SVG is laid out by kontext itself: no Graphviz needed.\n\n" +
			"   kontext graph > modules.mmd\n" +
			"   kontext graph --format svg --module internal/api --depth 2 > api.svg",
		Flags: []cli.Flag{rootFlag,
			&cli.StringFlag{Name: "format", Value: graph.Formats[0], Usage: "the output: " + strings.Join(graph.Formats, ", ")},
			&cli.StringFlag{Name: "module", Usage: "the `MODULE` to centre on: its id, as kontext analyze lists it, or one of its files"},
			&cli.IntFlag{Name: "depth", Value: defaultGraphDepth, Usage: "with --module, the dependency steps around it to include"},
			&cli.BoolFlag{Name: "decisions", Usage: "list the decisions that govern each module"},
		},
		Action: func(c *cli.Context) error {
			if err := kcli.CheckArgs(c, 0); err != nil {
				return err
			}
			format := c.String("format")
			if !slices.Contains(graph.Formats, format) {
				return kcli.UnknownValue(c, "format", format, graph.Formats)
			}
			if c.Int("depth") < 0 {
				return cli.Exit("--depth must be 0 or more", 2)
			}
			if c.IsSet("depth") && !c.IsSet("module") {
				return cli.Exit("--depth needs --module (the module to centre on)", 2)
			}
			return withSnapshot(c, func(snap *repo.Snapshot, root string) error {
				g := graph.FromModel(snap.Graph, c.Bool("decisions"))
				if c.IsSet("module") {
					id, _ := graph.ModuleOf(snap.Graph, impactTarget(root, c.String("module")))
					around, err := g.Around(id, c.Int("depth"))
					if errors.Is(err, graph.ErrUnknownModule) {
						msg := fmt.Sprintf("%s is no module of %s", c.String("module"), root)
						if like := g.Similar(c.String("module"), 5); len(like) > 0 {
							msg += " (did you mean " + strings.Join(like, ", ") + "?)"
						}
						return cli.Exit(msg+"; kontext analyze lists the modules", 1)
					}
					g = around
				}
				return graph.Render(c.App.Writer, g, format)
			})
		},
	}
}
