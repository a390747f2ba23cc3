package store

import (
	"os"
	"strings"

	"github.com/kontext-dev/kontext/internal/fsroot"
	"github.com/kontext-dev/kontext/internal/lazyregexp"
)

// ADRDirCandidates are the directories where teams usually keep ADRs.
var ADRDirCandidates = []string{
	"docs/adr", "docs/adrs", "docs/decisions", "docs/architecture/decisions", "docs/architecture/adr",
	"doc/adr", "doc/adrs", "doc/decisions", "doc/architecture/decisions",
	"adr", "adrs", "architecture/decisions", "decisions",
}

// ADRDir is an existing ADR directory and how its files are written.
type ADRDir struct {
	Path      string // relative to the root
	Style     Style
	Numbering string // "sequential", "date" or "none"
	Count     int    // ADR files in it
}

// ConfigTOML is the configuration that makes the directory the home of
// decisions.
func (d ADRDir) ConfigTOML() string {
	return "[store.kinds.decision]\npath = \"" + d.Path + "\"\nstyle = \"" + string(d.Style) + "\"\nnumbering = \"" + d.Numbering + "\"\n"
}

var datedName = lazyregexp.New(`^\d{4}-\d{2}-\d{2}-`)

// DetectADRDirs finds existing ADR directories among ADRDirCandidates and
// reads their style (front matter or fields) and numbering from the
// majority of their files.
func DetectADRDirs(root *fsroot.Root) []ADRDir {
	var out []ADRDir
	for _, c := range ADRDirCandidates {
		abs, err := root.Path(c)
		if err != nil {
			continue
		}
		ents, err := os.ReadDir(abs)
		if err != nil {
			continue
		}
		var fm, seq, dated, count int
		for _, e := range ents {
			name := e.Name()
			if !e.Type().IsRegular() || !strings.HasSuffix(strings.ToLower(name), ".md") || !isEntryName(name) {
				continue
			}
			count++
			stem := strings.TrimSuffix(name, ".md")
			switch {
			case datedName.MatchString(stem):
				dated++
			case seqDigits(stem) != "":
				seq++
			}
			if data, err := root.ReadFile(c + "/" + name); err == nil {
				if _, ok := parseFrontMatter(string(data)); ok {
					fm++
				}
			}
		}
		if count == 0 {
			continue
		}
		d := ADRDir{Path: c, Count: count, Style: StyleFields, Numbering: "none"}
		if fm*2 > count {
			d.Style = StyleFrontMatter
		}
		switch {
		case seq*2 > count:
			d.Numbering = "sequential"
		case dated*2 > count:
			d.Numbering = "date"
		}
		out = append(out, d)
	}
	return out
}
