// Package store reads and writes the team's knowledge store: the `.ai/`
// directory of decisions, conventions, learnings, incidents and
// architecture notes (and an existing ADR directory used as the home of
// decisions), in the on-disk format of the original kontext, so that a team
// can switch tools without migrating. Files are rewritten faithfully: what
// did not change is written back byte for byte.
package store

import (
	"slices"
	"strings"
)

// The built-in kinds.
const (
	KindDecision     = "decision"
	KindConvention   = "convention"
	KindLearning     = "learning"
	KindIncident     = "incident"
	KindArchitecture = "architecture"
)

// Decision statuses.
const (
	StatusProposed   = "proposed"
	StatusAccepted   = "accepted"
	StatusSuperseded = "superseded"
	StatusDeprecated = "deprecated"
	StatusRejected   = "rejected"
)

// Statuses lists the statuses a decision may have.
var Statuses = []string{StatusProposed, StatusAccepted, StatusSuperseded, StatusDeprecated, StatusRejected}

// Style is how an entry file carries its metadata.
type Style string

const (
	// StyleFrontMatter is flat YAML front matter between --- lines.
	StyleFrontMatter Style = "frontmatter"
	// StyleFields is the classic ADR: a `# Title` heading followed by
	// `**Status:** accepted` lines.
	StyleFields Style = "fields"
)

// Field is a front-matter key kontext does not interpret, kept with its
// value and position.
type Field struct {
	Key string
	// Value is a string for a scalar, a []string for a list of scalars, and
	// whatever YAML decodes to otherwise.
	Value any
}

// Entry is one knowledge entry.
type Entry struct {
	ID     string
	Kind   string
	Title  string
	Status string // normalised: proposed, accepted, … (or as written when unusual)
	// StatusNote is the status as written when it says more than the
	// status word: "Partly superseded by 0015", "Accepted (2021-03-01)".
	StatusNote   string
	Date         string
	Summary      string // as written; see SummaryText for the derived one
	Tags         []string
	Paths        []string // globs of the code the entry governs
	Supersedes   []string
	SupersededBy []string
	Commits      []string
	Author       string
	Visibility   string // inbox candidates: team or private
	Origin       string // agent, cli, thread
	// Extra holds the other front-matter keys in file order; they are
	// written back unchanged.
	Extra []Field
	Body  string

	// Path is the file, relative to the repository root with slashes (for
	// inbox candidates, relative to the inbox's parent: inbox/<id>.md).
	Path  string
	Style Style

	src *source // the file as read; nil for a new entry

	// rec is set on an entry rebuilt from a Record: what SummaryText and
	// Number need of a body and a title that were not kept.
	rec *Record

	// layout is how the ADRs of a new entry's directory are written
	// (Allocate reads it); nil writes the entry the original's way.
	layout *adrLayout
}

// IsActive reports whether the entry still applies: not superseded,
// deprecated or rejected.
func (e *Entry) IsActive() bool {
	switch e.Status {
	case StatusSuperseded, StatusDeprecated, StatusRejected:
		return false
	}
	return true
}

// Get returns an extra key's value as text ("" when absent; lists are
// joined with ", ").
func (e *Entry) Get(key string) string {
	for _, f := range e.Extra {
		if f.Key == key {
			return valueString(f.Value)
		}
	}
	return ""
}

// Set sets an extra key, in place when present, else at the end. A nil
// value removes the key.
func (e *Entry) Set(key string, value any) {
	for i, f := range e.Extra {
		if f.Key == key {
			if value == nil {
				e.Extra = slices.Delete(e.Extra, i, i+1)
			} else {
				e.Extra[i].Value = value
			}
			return
		}
	}
	if value != nil {
		e.Extra = append(e.Extra, Field{Key: key, Value: value})
	}
}

// ShortID is the ADR number of a sequentially numbered entry ("0007" for
// 0007-orders-live-in-postgresql), otherwise the whole id.
func (e *Entry) ShortID() string {
	if d := seqDigits(e.ID); d != "" {
		return d
	}
	return e.ID
}

// Number is the entry's ADR number: from a sequential id, else from a
// numbered title heading ("# ADR-7: …", "# 7. …"). ok is false when the
// entry has none.
func (e *Entry) Number() (int, bool) {
	if d := seqDigits(e.ID); d != "" {
		return atoi(d), true
	}
	if e.src != nil && e.src.number != "" {
		return atoi(e.src.number), true
	}
	if e.rec != nil && e.rec.Number != "" {
		return atoi(e.rec.Number), true
	}
	return 0, false
}

// seqDigits returns the 3 to 5 leading digits of a sequential id followed by
// a dash, and "" for anything else (a dated id included).
func seqDigits(id string) string {
	n := 0
	for n < len(id) && id[n] >= '0' && id[n] <= '9' {
		n++
	}
	if n < 3 || n > 5 || (n < len(id) && id[n] != '-') || isDate(id) {
		return ""
	}
	return id[:n]
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' || n > 1e8 {
			break
		}
		n = n*10 + int(c-'0')
	}
	return n
}

// isDate reports whether s starts with a valid YYYY-MM-DD date.
func isDate(s string) bool {
	if len(s) < 10 || s[4] != '-' || s[7] != '-' {
		return false
	}
	for _, i := range []int{0, 1, 2, 3, 5, 6, 8, 9} {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	y, m, d := atoi(s[:4]), atoi(s[5:7]), atoi(s[8:10])
	if m < 1 || m > 12 || d < 1 {
		return false
	}
	days := []int{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}[m-1]
	if m == 2 && (y%4 == 0 && y%100 != 0 || y%400 == 0) {
		days = 29
	}
	return d <= days
}

// ValidDate reports whether a date is YYYY-MM-DD, optionally followed by a
// time ("2026-09-28T10:00:00Z").
func ValidDate(s string) bool {
	return isDate(s) && (len(s) == 10 || s[10] == 'T' || s[10] == ' ')
}

// Section returns the text of the body section with the given heading
// ("Decision" for `## Decision`), without the heading, trimmed; "" when
// there is none.
func (e *Entry) Section(name string) string { return Section(e.Body, name) }

// summarySections are the body sections a summary comes from, in order;
// the decision ones give their first sentences, the others their first
// paragraph.
var summarySections = []struct {
	heading  string
	decision bool
}{
	{"Decision", true}, {"Decision Outcome", true}, {"Decisions", true}, {"Outcome", true}, {"Resolution", true},
	{"Summary", false}, {"Overview", false}, {"Purpose", false},
}

// summarySentences bounds a summary made of a decision's first sentences.
const summarySentences = 120

// SummaryText is the entry's one-line summary: the summary field, else the
// first sentence of its Decision section (MADR's Decision Outcome, …;
// the sentences after it too while they are short), else the first
// paragraph of its Summary, Overview or Purpose section, else of its body
// without the Status section; at most max characters (0: no limit).
func (e *Entry) SummaryText(max int) string {
	if e.rec != nil {
		return truncate(e.rec.Summary, max)
	}
	if s := oneLine(e.Summary); s != "" {
		return truncate(s, max)
	}
	for _, sec := range summarySections {
		p := firstParagraph(Section(e.Body, sec.heading))
		if p == "" || pending(p) {
			continue
		}
		if sec.decision {
			p = firstSentences(p, summarySentences)
		}
		return truncate(p, max)
	}
	p := firstParagraph(withoutSection(e.Body, "Status"))
	if pending(p) {
		return ""
	}
	return truncate(p, max)
}

// pending reports whether a paragraph is a placeholder for text to come.
func pending(p string) bool {
	return strings.HasPrefix(p, "_Pending") || strings.HasPrefix(p, "Pending:")
}

// statusPhrases are the many-word statuses teams write, by their start.
var statusPhrases = []struct{ prefix, status string }{
	{"in progress", StatusProposed}, {"in-progress", StatusProposed}, {"in review", StatusProposed},
	{"under review", StatusProposed}, {"under discussion", StatusProposed}, {"under consideration", StatusProposed},
	{"not accepted", StatusRejected}, {"not approved", StatusRejected},
	{"partly superseded", StatusSuperseded}, {"partially superseded", StatusSuperseded}, {"in part superseded", StatusSuperseded},
}

// NormalizeStatus maps the words teams use to the five statuses
// ("Approved" → accepted, "Draft" or "In progress" → proposed, "Partly
// superseded" → superseded); other words are returned lower-cased, for
// validation to flag.
func NormalizeStatus(raw string) string {
	s := strings.TrimLeft(strings.TrimSpace(raw), "*_`")
	lower := strings.ToLower(s)
	for _, p := range statusPhrases {
		if strings.HasPrefix(lower, p.prefix) {
			return p.status
		}
	}
	end := 0
	for i, r := range s {
		if !(r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 127 && isLetter(r)) {
			break
		}
		end = i + len(string(r))
	}
	word := strings.ToLower(s[:end])
	switch word {
	case "approved", "done", "adopted", "active", "implemented", "agreed", "decided", "current", "accept":
		return StatusAccepted
	case "draft", "proposal", "open", "pending", "rfc", "suggested", "discussion", "discussing", "review", "reviewing", "planned", "considering":
		return StatusProposed
	case "replaced", "obsolete", "obsoleted", "superceded", "superseeded":
		return StatusSuperseded
	case "declined", "abandoned", "withdrawn", "refused":
		return StatusRejected
	case "retired", "deprecate":
		return StatusDeprecated
	}
	return word
}

func isLetter(r rune) bool { return strings.ToUpper(string(r)) != strings.ToLower(string(r)) }

// clone copies the fields that Marshal compares, so that a later change to
// the entry can be told apart from what was read.
func (e *Entry) clone() *Entry {
	c := *e
	c.Tags = slices.Clone(e.Tags)
	c.Paths = slices.Clone(e.Paths)
	c.Supersedes = slices.Clone(e.Supersedes)
	c.SupersededBy = slices.Clone(e.SupersededBy)
	c.Commits = slices.Clone(e.Commits)
	c.Extra = make([]Field, len(e.Extra))
	for i, f := range e.Extra {
		c.Extra[i] = Field{Key: f.Key, Value: cloneValue(f.Value)}
	}
	c.src = nil
	return &c
}

func cloneValue(v any) any {
	switch x := v.(type) {
	case []string:
		return slices.Clone(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = cloneValue(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = cloneValue(e)
		}
		return out
	}
	return v
}

// Clone returns a copy of the entry that is written as a new file (no link
// to the file it was read from).
func (e *Entry) Clone() *Entry { return e.clone() }
