package repo

import (
	"path"
	"slices"
	"strings"
	"time"

	"github.com/kontext-dev/kontext/internal/repo/analyze"
	"github.com/kontext-dev/kontext/internal/repo/model"
)

// state is one complete analysis of a root and everything the next one
// starts from. It is immutable once published: an update builds a new
// state, sharing what did not change.
type state struct {
	// snap is what callers get; nil for a state loaded from the persistent
	// cache, until its heuristics are recomputed.
	snap *Snapshot
	// facts is the scan's graph before the heuristics are added (the
	// heuristics write into a copy), so an update can start from it.
	facts *model.Graph
	obs   *analyze.Observations
	hist  *analyze.History // nil outside a git work tree
	// histRead is when hist was read (its Now is the clock the options
	// gave, not the time of reading).
	histRead time.Time
	// fps are the fingerprints of facts.Files, index for index.
	fps []fingerprint
	// began is when the analysis started: a directory modified after it
	// may hold changes the analysis missed.
	began time.Time
	// added are the paths this state lists that its predecessor did not,
	// and setChanged says the set of paths changed at all: a detector
	// follows the directories only then.
	added      []string
	setChanged bool
	// rulesChanged says the ignore rules (or git's index) changed in the
	// update that made this state, so what is ignored must be judged anew.
	rulesChanged bool
	// ignored are paths a change event named that the listing does not
	// hold (ignored files): events on them are noise until the ignore
	// rules change.
	ignored map[string]bool
}

// fingerprint returns the fingerprint of a listed path.
func (st *state) fingerprint(p string) (fingerprint, bool) {
	i, ok := st.index(p)
	if !ok {
		return fingerprint{}, false
	}
	return st.fps[i], true
}

func (st *state) index(p string) (int, bool) {
	files := st.facts.Files
	return fileIndex(func(i int) string { return files[i].Path }, len(files), p)
}

// hasUnder reports whether the listing holds a file under directory d.
func (st *state) hasUnder(d string) bool {
	i, _ := st.index(d + "/")
	return i < len(st.facts.Files) && strings.HasPrefix(st.facts.Files[i].Path, d+"/")
}

// dirs are the directories of the listed files and their ancestors ("" is
// the root).
func (st *state) dirs() []string {
	set := map[string]bool{"": true}
	for i := range st.facts.Files {
		for d := path.Dir(st.facts.Files[i].Path); d != "." && !set[d]; d = path.Dir(d) {
			set[d] = true
		}
	}
	out := make([]string, 0, len(set))
	for d := range set {
		out = append(out, d)
	}
	slices.Sort(out)
	return out
}

// analysable returns a copy of the facts that the heuristic steps may write
// into: they set graph-level lists and module fields (roles, entry points,
// git figures), never files, so the files are shared.
func analysable(facts *model.Graph) *model.Graph {
	g := *facts
	g.Modules = slices.Clone(facts.Modules)
	return &g
}
