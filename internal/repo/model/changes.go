package model

import "time"

// The answer types of the change tools live here, beside the graph's, so
// that the result types (and the generated toolset contract that names
// them) need no part of the analysis: an embedder that only describes the
// tools links the types, not the engine.

// ImpactRef names a decision or convention whose evidence touches the target.
type ImpactRef struct {
	ID     string `json:"id"`
	Title  string `json:"title"`
	Reason string `json:"reason"`
}

// ChangedFile is one changed path.
type ChangedFile struct {
	Path   string `json:"path"`
	From   string `json:"from,omitempty"` // the old path of a rename or copy
	Status string `json:"status"`         // added, modified, deleted, renamed, copied, type-changed
	Module string `json:"module,omitempty"`
}

// ChangedModule sums a module's changed files.
type ChangedModule struct {
	Module   string `json:"module"`
	Files    int    `json:"files"`
	Added    int    `json:"added,omitempty"`
	Modified int    `json:"modified,omitempty"`
	Deleted  int    `json:"deleted,omitempty"`
	Renamed  int    `json:"renamed,omitempty"`
}

// LanguageCount is how many files of a language family a tree has.
type LanguageCount struct {
	Language string `json:"language"`
	Files    int    `json:"files"`
}

// SnapshotModule is a module as it existed at the revision.
type SnapshotModule struct {
	ID        string `json:"id"`
	Name      string `json:"name,omitempty"`
	Basis     string `json:"basis"`              // manifest, or the basis the current graph gives it
	Manifest  string `json:"manifest,omitempty"` // the manifest at that revision
	Ecosystem string `json:"ecosystem,omitempty"`
	Files     int    `json:"files"`
}

// ImpactFile is an affected file and why.
type ImpactFile struct {
	Path   string `json:"path"`
	Module string `json:"module,omitempty"`
	Depth  int    `json:"depth,omitempty"` // import steps from the target (0: inside it)
	Reason string `json:"reason"`
}

// HistoryEntry is one commit in a module's or file's history.
type HistoryEntry struct {
	SHA                string    `json:"sha"`
	Date               time.Time `json:"date"`
	Author             string    `json:"author"`
	Subject            string    `json:"subject"`
	Files              []string  `json:"files"` // the target's files it touched (at most 10)
	ArchitectureSignal bool      `json:"architectureSignal,omitempty"`
}
