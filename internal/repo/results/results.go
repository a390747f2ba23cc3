// Package results holds what the repo toolset's tools return. The tools'
// output schemas are reflected from these types, so they are the contract:
// compact and full answers have the same shape and the same size bound
// (compact drops evidence, full keeps it; both cut lists to fit, saying so
// in Truncated, with counts and how to ask for the rest).
//
// A list tagged `shape:"core"` is what its answer is for: when an answer
// must be cut, the other lists give way first. A list tagged
// `shape:"head"` keeps at least its first item (a module's top role).
package results

import (
	"github.com/kontext-dev/kontext/internal/repo/model"
)

// Truncation says that a list (or a long text) of an answer was cut: a
// tool's bound or the size bound of every answer. Field is the list's path
// in the answer ("modules", or "modules[].usedBy" for the usedBy lists of
// every module, counted together); Kept and Total count its items (a
// text's characters) after and before the cut; Total is 0 where the cut
// was made before anything could count the rest (a bound of the analysis
// itself). Narrow says how to ask for what was left out.
type Truncation struct {
	Field  string `json:"field"`
	Kept   int    `json:"kept"`
	Total  int    `json:"total,omitempty"`
	Narrow string `json:"narrow,omitempty"`
}

// ChangeImpact is what a change to a target would likely affect: the
// analysis' answer (analyze.Impact), with Truncated naming the lists a
// bound cut, as every result does.
type ChangeImpact struct {
	SchemaVersion int    `json:"schemaVersion"`
	Target        string `json:"target"`
	Kind          string `json:"kind"` // file, directory or module
	// Modules are the modules the target is part of.
	Modules     []string `json:"modules"`
	TargetFiles int      `json:"targetFiles"`
	// DirectDependents are modules that import the target; Transitive
	// ones depend on those, at any distance.
	DirectDependents     []string           `json:"directDependents"`
	TransitiveDependents []string           `json:"transitiveDependents"`
	Files                []model.ImpactFile `json:"files"` // dependent files, nearest first
	Tests                []model.ImpactFile `json:"tests"` // tests likely to exercise the change
	Decisions            []model.ImpactRef  `json:"decisions"`
	Conventions          []model.ImpactRef  `json:"conventions"`
	Truncated            []Truncation       `json:"truncated,omitempty"`
}

// RevisionDiff is what changed between two revisions (analyze.RevisionDiff).
type RevisionDiff struct {
	SchemaVersion int                   `json:"schemaVersion"`
	Base          string                `json:"base"` // "" when Revision is a root commit
	Revision      string                `json:"revision"`
	Files         []model.ChangedFile   `json:"files"`
	Modules       []model.ChangedModule `json:"modules"`
	HasChanges    bool                  `json:"hasChanges"`
	// SecretFilesLeftOut are changed secret files (.env, keys, credentials),
	// never listed in Files or counted in Modules.
	SecretFilesLeftOut []string     `json:"secretFilesLeftOut,omitempty"`
	Truncated          []Truncation `json:"truncated,omitempty"`
}

// RevisionSnapshot is the tree of one revision, read without a checkout
// (analyze.RevisionSnapshot).
type RevisionSnapshot struct {
	SchemaVersion int                    `json:"schemaVersion"`
	Revision      string                 `json:"revision"` // as asked
	SHA           string                 `json:"sha"`
	Author        string                 `json:"author,omitempty"`
	Date          string                 `json:"date,omitempty"`
	Subject       string                 `json:"subject,omitempty"`
	FileCount     int                    `json:"fileCount"` // the tree's files but the secret ones
	Files         []string               `json:"files"`
	Languages     []model.LanguageCount  `json:"languages,omitempty"`
	Modules       []model.SnapshotModule `json:"modules"`
	// SecretFilesLeftOut are the tree's secret files (.env, keys,
	// credentials), never listed in Files nor counted anywhere else.
	SecretFilesLeftOut []string     `json:"secretFilesLeftOut,omitempty"`
	Truncated          []Truncation `json:"truncated,omitempty"`
}

// ModuleSummary is a module in a list: what it is and how it sits in the
// graph, without its files.
type ModuleSummary struct {
	ID          string           `json:"id"`
	Name        string           `json:"name"`
	Basis       string           `json:"basis"`
	Language    string           `json:"language,omitempty"`
	Description string           `json:"description,omitempty"`
	Files       int              `json:"files"`
	Roles       []model.Role     `json:"roles" shape:"head"`
	EntryPoints []string         `json:"entryPoints,omitempty"`
	DependsOn   []string         `json:"dependsOn"`
	UsedBy      []string         `json:"usedBy"`
	Git         *model.ModuleGit `json:"git,omitempty"`
	// Relevance and Reason are set when the list is ranked for a task.
	Relevance float64 `json:"relevance,omitempty"`
	Reason    string  `json:"reason,omitempty"`
}

// RepositoryContext is the repository at a glance.
type RepositoryContext struct {
	SchemaVersion int                `json:"schemaVersion"`
	Root          string             `json:"root"`
	Head          string             `json:"head,omitempty"`
	Summary       model.Summary      `json:"summary"`
	Workspaces    []model.Workspace  `json:"workspaces,omitempty"`
	Modules       []ModuleSummary    `json:"modules" shape:"core"`
	EntryPoints   []model.EntryPoint `json:"entryPoints"`
	// External are the most used external dependencies, within a fifth
	// of the answer; ExternalCounts counts them all.
	External       []model.External   `json:"externalDependencies"`
	ExternalCounts ExternalCounts     `json:"externalCounts"`
	Conventions    []model.Convention `json:"conventions"`
	Decisions      []model.Decision   `json:"decisions"`
	Cycles         []model.Cycle      `json:"cycles"`
	Violations     []model.Violation  `json:"layeringViolations"`
	Git            *model.GitSummary  `json:"git,omitempty"`
	Truncated      []Truncation       `json:"truncated,omitempty"`
}

// ExternalCounts counts a repository's external dependencies, listed or
// not: all, the development ones, and by ecosystem (most first).
type ExternalCounts struct {
	Total       int              `json:"total"`
	Development int              `json:"development"`
	Ecosystems  []EcosystemCount `json:"ecosystems"`
}

// EcosystemCount is how many external dependencies come from one
// ecosystem (go, npm, cargo, pypi, maven, …).
type EcosystemCount struct {
	Ecosystem string `json:"ecosystem"`
	Count     int    `json:"count"`
}

// TaskContext is what an agent needs to start a task.
type TaskContext struct {
	SchemaVersion int                  `json:"schemaVersion"`
	Task          string               `json:"task"`
	Target        string               `json:"target,omitempty"`
	Modules       []ModuleSummary      `json:"modules" shape:"core"`
	Files         []RankedFile         `json:"files" shape:"core"`
	EntryPoints   []model.EntryPoint   `json:"entryPoints"`
	Conventions   []model.Convention   `json:"conventions"`
	Decisions     []model.Decision     `json:"decisions"`
	RecentChanges []model.HistoryEntry `json:"recentChanges"`
	Truncated     []Truncation         `json:"truncated,omitempty"`
}

// RankedFile is a file worth reading for a task, and why.
type RankedFile struct {
	Path   string  `json:"path"`
	Module string  `json:"module,omitempty"`
	Score  float64 `json:"score"`
	Reason string  `json:"reason"`
}

// ModuleExplanation is one module in depth.
type ModuleExplanation struct {
	SchemaVersion int                  `json:"schemaVersion"`
	Module        model.Module         `json:"module"`
	Files         []FileSummary        `json:"files"`
	Symbols       []FileSymbol         `json:"symbols"`
	Dependencies  []model.Dependency   `json:"dependencies"`
	Dependents    []model.Dependency   `json:"dependents"`
	External      []model.External     `json:"externalDependencies"`
	EntryPoints   []model.EntryPoint   `json:"entryPoints"`
	Conventions   []model.Convention   `json:"conventions"`
	Decisions     []model.Decision     `json:"decisions"`
	History       []model.HistoryEntry `json:"history"`
	Truncated     []Truncation         `json:"truncated,omitempty"`
}

// FileSummary is a file without its imports.
type FileSummary struct {
	Path      string `json:"path"`
	Language  string `json:"language,omitempty"`
	Kind      string `json:"kind"`
	Lines     int    `json:"lines"`
	Generated bool   `json:"generated,omitempty"`
}

// FileSymbol is an exported symbol and the file declaring it.
type FileSymbol struct {
	File string `json:"file"`
	Name string `json:"name"`
	Kind string `json:"kind"`
	Line int    `json:"line"`
}

// Dependencies is what a module (or every module) depends on.
type Dependencies struct {
	SchemaVersion int                `json:"schemaVersion"`
	Module        string             `json:"module,omitempty"`
	Internal      []model.Dependency `json:"internal"`
	External      []model.External   `json:"external"`
	Truncated     []Truncation       `json:"truncated,omitempty"`
}

// Dependents is what depends on a module.
type Dependents struct {
	SchemaVersion int    `json:"schemaVersion"`
	Module        string `json:"module"`
	// Direct are the production edges into the module; Transitive the
	// modules that depend on it through production edges at any distance.
	Direct     []model.Dependency `json:"direct"`
	Transitive []string           `json:"transitive"`
	// TestedBy are the edges of modules that import it only from their
	// tests: the tests to run, not dependents a change travels through.
	TestedBy  []model.Dependency `json:"testedBy"`
	Truncated []Truncation       `json:"truncated,omitempty"`
}

// SearchResults are ranked matches.
type SearchResults struct {
	SchemaVersion int            `json:"schemaVersion"`
	Query         string         `json:"query"`
	Results       []SearchResult `json:"results"`
	Truncated     []Truncation   `json:"truncated,omitempty"`
}

// SearchResult is one match and why it matched.
type SearchResult struct {
	Type   string  `json:"type"` // file, module, symbol, decision, convention, entry-point
	ID     string  `json:"id"`
	Title  string  `json:"title"`
	Path   string  `json:"path,omitempty"`
	Line   int     `json:"line,omitempty"`
	Score  float64 `json:"score"`
	Reason string  `json:"reason"`
}

// ModuleHistory is the commits that changed a target.
type ModuleHistory struct {
	SchemaVersion int                  `json:"schemaVersion"`
	Target        string               `json:"target"`
	Module        string               `json:"module,omitempty"`
	Signals       *model.ModuleGit     `json:"signals,omitempty"`
	Commits       []model.HistoryEntry `json:"commits"`
	// SecretFilesLeftOut are secret files the commits touched, never
	// listed in their files.
	SecretFilesLeftOut []string     `json:"secretFilesLeftOut,omitempty"`
	Truncated          []Truncation `json:"truncated,omitempty"`
}

// Architecture is the module graph with roles, cycles and violations.
type Architecture struct {
	SchemaVersion int                `json:"schemaVersion"`
	Module        string             `json:"module,omitempty"`
	Modules       []ArchModule       `json:"modules" shape:"core"`
	Edges         []model.Dependency `json:"edges"`
	Cycles        []model.Cycle      `json:"cycles"`
	Violations    []model.Violation  `json:"layeringViolations"`
	// Map is the module graph as a Mermaid flowchart, with detail full
	// only: the most important modules (or the module's neighbourhood),
	// production edges, cycles marked.
	Map       string       `json:"map,omitempty"`
	Truncated []Truncation `json:"truncated,omitempty"`
}

// ArchModule is a module as the architecture sees it.
type ArchModule struct {
	ID    string       `json:"id"`
	Name  string       `json:"name"`
	Layer string       `json:"layer,omitempty"` // the top role
	Roles []model.Role `json:"roles" shape:"head"`
	Files int          `json:"files"`
}

// Conventions lists conventions.
type Conventions struct {
	SchemaVersion int                `json:"schemaVersion"`
	Category      string             `json:"category,omitempty"`
	Conventions   []model.Convention `json:"conventions"`
	Truncated     []Truncation       `json:"truncated,omitempty"`
}

// Decisions lists decisions, explicit first.
type Decisions struct {
	SchemaVersion int              `json:"schemaVersion"`
	Origin        string           `json:"origin,omitempty"`
	Decisions     []model.Decision `json:"decisions"`
	Truncated     []Truncation     `json:"truncated,omitempty"`
}
