package store

// Record is what the index README and the checks of ids need of an entry
// (not its body): small enough to cache by the entry's blob, so that the
// pre-commit hook of a store with a thousand entries reads and parses only
// the ones that changed.
type Record struct {
	Path, ID, Kind, Title, Status, Date string
	// Summary is SummaryText(0): the whole one-line summary, which
	// SummaryText(max) of the rebuilt entry truncates as the original would.
	Summary string
	// Number is the ADR number a title gave ("# 7. …"), when the id has none.
	Number string
}

// Record returns the entry's record.
func (e *Entry) Record() Record {
	r := Record{Path: e.Path, ID: e.ID, Kind: e.Kind, Title: e.Title, Status: e.Status, Date: e.Date, Summary: e.SummaryText(0)}
	if e.src != nil {
		r.Number = e.src.number
	}
	return r
}

// FromRecord rebuilds an entry from its record. It has no body, no extra
// keys and no source: it serves the index README, duplicate ids and
// supersedes lookups, and is never written back.
func FromRecord(r Record) *Entry {
	rec := r
	return &Entry{Path: r.Path, ID: r.ID, Kind: r.Kind, Title: r.Title, Status: r.Status, Date: r.Date, rec: &rec}
}
