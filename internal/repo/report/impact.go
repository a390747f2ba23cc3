package report

import (
	"fmt"
	"io"

	"github.com/kontext-dev/kontext/internal/repo/analyze"
)

// Impact writes what a change to a target would likely affect: the
// modules that depend on it, the files that import it (nearest first),
// the tests to run, and the decisions and conventions it touches.
func Impact(out io.Writer, res *analyze.ImpactResult) error {
	w := &writer{w: out}
	w.printf("Change impact of %s (%s, %s, in %s)\n", res.Target, res.Kind, plural(res.TargetFiles, "file", "files"), orNone(res.Modules))

	w.section("Dependent modules")
	w.table([][]string{
		{"direct", fmt.Sprintf("%d", len(res.DirectDependents)), orNone(res.DirectDependents)},
		{"transitive", fmt.Sprintf("%d", len(res.TransitiveDependents)), orNone(res.TransitiveDependents)},
	})

	files := func(title string, list []analyze.ImpactFile) {
		w.section("%s (%d)", title, len(list))
		if len(list) == 0 {
			w.printf("  none\n")
			return
		}
		rows := [][]string{{"FILE", "DEPTH", "MODULE", "WHY"}}
		for _, f := range list {
			rows = append(rows, []string{f.Path, fmt.Sprintf("%d", f.Depth), dash(f.Module), f.Reason})
		}
		w.table(rows)
	}
	files("Affected files", res.Files)
	files("Tests to run", res.Tests)

	refs := func(title string, list []analyze.ImpactRef) {
		w.section("%s (%d)", title, len(list))
		if len(list) == 0 {
			w.printf("  none\n")
			return
		}
		var rows [][]string
		for _, r := range list {
			rows = append(rows, []string{r.ID, r.Title, r.Reason})
		}
		w.table(rows)
	}
	refs("Decisions", res.Decisions)
	refs("Conventions", res.Conventions)
	if res.Truncated {
		w.printf("\n(lists were cut at their bound: --max-files raises it, --json shows the same lists)\n")
	}
	return w.err
}
