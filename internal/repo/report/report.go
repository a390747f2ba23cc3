// Package report renders the repo engine's analyses for a person at a
// terminal: `kontext analyze` (the repository at a glance) and
// `kontext impact` (what a change would affect). The JSON forms of those
// commands are the graph and the impact result themselves; this is the
// text beside them.
package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
)

// writer collects the first write error, so that the renderers read as a
// list of lines.
type writer struct {
	w   io.Writer
	err error
}

func (w *writer) printf(format string, args ...any) {
	if w.err == nil {
		_, w.err = fmt.Fprintf(w.w, format, args...)
	}
}

// section starts a titled block, with a blank line before it.
func (w *writer) section(title string, args ...any) {
	w.printf("\n"+title+"\n", args...)
}

// table writes aligned columns, indented two spaces.
func (w *writer) table(rows [][]string) {
	if len(rows) == 0 || w.err != nil {
		return
	}
	tw := tabwriter.NewWriter(w.w, 0, 0, 2, ' ', 0)
	for _, r := range rows {
		fmt.Fprintf(tw, "  %s\n", strings.Join(r, "\t"))
	}
	w.err = tw.Flush()
}

// count formats n with thousands separators: 12,345.
func count(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// plural is "1 file", "2 files".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return count(n) + " " + many
}

// conf formats a heuristic confidence.
func conf(c float64) string { return strconv.FormatFloat(c, 'f', 2, 64) }

// more is the line that says a list was cut.
func (w *writer) more(shown, total int, what string) {
	if total > shown {
		w.printf("  … and %s more %s (--json lists everything)\n", count(total-shown), what)
	}
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}
