// Package model is the repository knowledge graph: what the repo engine
// computes (internal/repo/scan for the facts, internal/repo/analyze for the
// heuristics) and what the repo toolset returns.
//
// Facts (files, manifests, imports, git history) carry no confidence.
// Heuristics (roles, entry point types, conventions, inferred decisions)
// always carry a Confidence below 1 and the Evidence that produced it.
// The JSON of these types is the tools' structured output; their output
// schemas are reflected from them, so a change here is a change of contract.
package model

import "time"

// SchemaVersion is the version of this model's JSON shape.
const SchemaVersion = 1

// Evidence is where a heuristic looked: a file and line, or a commit.
type Evidence struct {
	File   string `json:"file,omitempty"`
	Line   int    `json:"line,omitempty"`
	Commit string `json:"commit,omitempty"`
	Detail string `json:"detail"`
}

// Graph is the whole analysis of one repository root.
type Graph struct {
	SchemaVersion int          `json:"schemaVersion"`
	Root          string       `json:"root"`
	Head          string       `json:"head,omitempty"` // the commit analysed ("" without commits)
	Summary       Summary      `json:"summary"`
	Files         []File       `json:"files,omitempty"`
	Manifests     []Manifest   `json:"manifests,omitempty"`
	Workspaces    []Workspace  `json:"workspaces,omitempty"`
	Modules       []Module     `json:"modules"`
	Dependencies  []Dependency `json:"dependencies"` // module → module edges
	External      []External   `json:"external"`     // third-party packages
	EntryPoints   []EntryPoint `json:"entryPoints"`
	Cycles        []Cycle      `json:"cycles"`
	Violations    []Violation  `json:"layeringViolations"`
	Conventions   []Convention `json:"conventions"`
	Decisions     []Decision   `json:"decisions"`
	Git           *GitSummary  `json:"git,omitempty"`
	// Vendored are the vendored and third-party trees (vendor/,
	// third_party/, …): their code is in no module and no edge; an import
	// into one is a use of the external package vendored there.
	Vendored []string `json:"vendored,omitempty"`
	// Truncated lists the collections a bound cut, by name.
	Truncated []string `json:"truncated,omitempty"`
}

// Summary is the repository at a glance.
type Summary struct {
	Name            string         `json:"name"`
	Files           int            `json:"files"`
	SourceFiles     int            `json:"sourceFiles"`
	Lines           int            `json:"lines"`
	Languages       []LanguageStat `json:"languages"`
	PackageManagers []string       `json:"packageManagers,omitempty"`
	Frameworks      []Detected     `json:"frameworks,omitempty"` // heuristic
}

// LanguageStat counts one language's files and lines.
type LanguageStat struct {
	Language string `json:"language"`
	Files    int    `json:"files"`
	Lines    int    `json:"lines"`
}

// Detected is a heuristic value with its confidence and evidence.
type Detected struct {
	Value      string     `json:"value"`
	Confidence float64    `json:"confidence"`
	Evidence   []Evidence `json:"evidence,omitempty"`
}

// FileKind classifies a file.
type FileKind string

const (
	FileSource FileKind = "source"
	FileTest   FileKind = "test"
	FileConfig FileKind = "config"
	FileDocs   FileKind = "docs"
	FileAsset  FileKind = "asset"
	FileOther  FileKind = "other"
)

// File is one file of the repository (tracked, or untracked and not ignored).
type File struct {
	Path      string   `json:"path"` // relative to the root, with slashes
	Language  string   `json:"language,omitempty"`
	Kind      FileKind `json:"kind"`
	Generated bool     `json:"generated,omitempty"`
	Vendored  bool     `json:"vendored,omitempty"`
	Size      int64    `json:"size"`
	Lines     int      `json:"lines"`
	Module    string   `json:"module,omitempty"` // the id of the module that owns it
	// DevOnly marks code that only tests, examples and benchmarks build,
	// though the file is not a test itself (a Rust example, benchmark or
	// module under #[cfg(test)]): its imports make test edges. Like
	// Module, it is derived from the other files.
	DevOnly bool     `json:"devOnly,omitempty"`
	Imports []Import `json:"imports,omitempty"`
	Symbols []Symbol `json:"symbols,omitempty"` // exported symbols
	// Package is the package the file declares, in languages that say it
	// in the file: Go's package clause ("main" marks a command), Java's and
	// Kotlin's package declaration.
	Package string `json:"package,omitempty"`
	// Constraint is a Go file's build constraint as a //go:build
	// expression (legacy // +build lines converted), so which files a
	// platform builds can be computed from the graph alone.
	Constraint string `json:"constraint,omitempty"`
	// Doc is the file's own description, first paragraph: a Go package
	// comment, a Python module docstring, Rust //! inner docs.
	Doc string `json:"doc,omitempty"`
	// Submodules are a Rust file's out-of-line `mod name;` declarations:
	// the module tree the compiler follows from a crate root to its files.
	Submodules []Submodule `json:"submodules,omitempty"`
}

// Submodule is an out-of-line module declaration (Rust's `mod name;`).
type Submodule struct {
	Name string `json:"name"`
	// Path is a #[path] attribute's file, as written (relative to the
	// declaring file's directory).
	Path string `json:"path,omitempty"`
	Line int    `json:"line"`
	// Test marks a declaration under #[cfg(test)].
	Test bool `json:"test,omitempty"`
}

// ImportKind says what an import resolved to.
type ImportKind string

const (
	ImportInternalFile     ImportKind = "internal-file"
	ImportInternalModule   ImportKind = "internal-module"
	ImportWorkspacePackage ImportKind = "workspace-package"
	ImportExternal         ImportKind = "external-package"
	ImportBuiltin          ImportKind = "builtin" // the language's standard library
	ImportUnresolved       ImportKind = "unresolved"
)

// Import is one import statement of a file.
type Import struct {
	Spec   string     `json:"spec"` // as written: "./util", "github.com/x/y", "os"
	Line   int        `json:"line"`
	Kind   ImportKind `json:"kind"`
	Target string     `json:"target,omitempty"` // a file path, a module id or a package name
	// Test marks an import in test-only code of a file that is not a test
	// (a Rust #[cfg(test)] module): it makes a test dependency.
	Test bool `json:"test,omitempty"`
}

// Symbol is an exported declaration.
type Symbol struct {
	Name string `json:"name"`
	Kind string `json:"kind"` // function, type, class, const, var, interface, …
	Line int    `json:"line"`
}

// Manifest is a package manifest (go.mod, package.json, Cargo.toml, …).
type Manifest struct {
	Path         string       `json:"path"`
	Ecosystem    string       `json:"ecosystem"` // go, npm, cargo, pypi, maven, gradle, composer, bundler, mix, nuget, deno
	Name         string       `json:"name,omitempty"`
	Version      string       `json:"version,omitempty"`
	Description  string       `json:"description,omitempty"`
	Dependencies []PackageDep `json:"dependencies,omitempty"`
	// Internal lists the workspace packages this manifest depends on.
	Internal []string `json:"internal,omitempty"`
	Scripts  []string `json:"scripts,omitempty"`
	Bins     []string `json:"bins,omitempty"`
	// Problems say what of the manifest could not be read (a syntax
	// error, a dynamic include not evaluated): what it lists may then be
	// partial.
	Problems []string `json:"problems,omitempty"`
}

// PackageDep is a dependency a manifest declares.
type PackageDep struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
	Dev     bool   `json:"dev,omitempty"`
	// Path is set for a local (path or workspace) dependency.
	Path string `json:"path,omitempty"`
}

// Workspace is a monorepo declaration: npm/pnpm/yarn workspaces, go.work,
// Cargo workspace, ….
type Workspace struct {
	Tool     string   `json:"tool"` // npm, pnpm, yarn, go, cargo, …
	Manifest string   `json:"manifest"`
	Members  []string `json:"members"` // the member directories
}

// ModuleBasis says why a directory is a module.
type ModuleBasis string

const (
	BasisWorkspacePackage ModuleBasis = "workspace-package"
	BasisManifest         ModuleBasis = "manifest"
	BasisIndexFile        ModuleBasis = "index-file"
	BasisDirectory        ModuleBasis = "directory"
	BasisSingleFile       ModuleBasis = "single-file"
)

// Module is a unit of the repository: a workspace package, a manifest
// directory, or a directory that groups code.
type Module struct {
	ID          string      `json:"id"` // its directory relative to the root ("." for the root)
	Name        string      `json:"name"`
	Basis       ModuleBasis `json:"basis"`
	Language    string      `json:"language,omitempty"`
	Manifest    string      `json:"manifest,omitempty"`
	Description string      `json:"description,omitempty"`
	Files       int         `json:"files"`
	Lines       int         `json:"lines"`
	Roles       []Role      `json:"roles"`
	EntryPoints []string    `json:"entryPoints,omitempty"`
	// DependsOn and UsedBy are the production edges (Dependency.Scope
	// "production"); TestedBy are the modules that import this one only
	// from their tests.
	DependsOn []string   `json:"dependsOn"`
	UsedBy    []string   `json:"usedBy"`
	TestedBy  []string   `json:"testedBy,omitempty"`
	External  []string   `json:"external,omitempty"`
	Git       *ModuleGit `json:"git,omitempty"`
}

// Role is a heuristic role of a module.
type Role struct {
	Role       string     `json:"role"` // workspace-package, application, domain, service, adapter, repository, controller, api-routes, infrastructure, eventing, worker, cli, ui, shared, configuration, test-support
	Confidence float64    `json:"confidence"`
	Evidence   []Evidence `json:"evidence,omitempty"`
}

// Dependency scopes: an edge that production code makes is production;
// one made only by tests (test files, test-only code, examples and
// benchmarks built with dev-dependencies, test or dev manifest
// declarations) is test.
const (
	ScopeProduction = "production"
	ScopeTest       = "test"
)

// Dependency is an edge between two modules.
type Dependency struct {
	From  string     `json:"from"`
	To    string     `json:"to"`
	Kind  ImportKind `json:"kind"`  // internal-module or workspace-package
	Scope string     `json:"scope"` // ScopeProduction or ScopeTest
	// Imports counts the imports behind the edge in its scope.
	Imports  int        `json:"imports"`
	Evidence []Evidence `json:"evidence,omitempty"`
}

// External is a third-party package the repository uses.
type External struct {
	Name      string   `json:"name"`
	Ecosystem string   `json:"ecosystem"`
	Version   string   `json:"version,omitempty"`
	Dev       bool     `json:"dev,omitempty"`
	Manifests []string `json:"manifests,omitempty"`
	UsedBy    []string `json:"usedBy,omitempty"` // module ids
}

// EntryPoint is where execution or use of a module starts.
type EntryPoint struct {
	Path       string     `json:"path"`
	Module     string     `json:"module"`
	Type       string     `json:"type"` // application, cli, library, package-main, package-bin, package-export, http-routes, worker, test
	Confidence float64    `json:"confidence"`
	Evidence   []Evidence `json:"evidence,omitempty"`
}

// Cycle is a dependency cycle between modules.
type Cycle struct {
	Modules  []string   `json:"modules"`
	Evidence []Evidence `json:"evidence,omitempty"`
}

// Violation is a dependency that goes against the layering roles imply.
type Violation struct {
	From       string     `json:"from"`
	To         string     `json:"to"`
	Rule       string     `json:"rule"` // domain-infrastructure, domain-adapter, application-ui, application-controller, infrastructure-ui
	Confidence float64    `json:"confidence"`
	Evidence   []Evidence `json:"evidence,omitempty"`
}

// Convention is a counted observation about how the code is written.
type Convention struct {
	ID         string     `json:"id"` // "<category>:<hash8>"
	Category   string     `json:"category"`
	Statement  string     `json:"statement"`
	Confidence float64    `json:"confidence"`
	Samples    int        `json:"samples"`
	Evidence   []Evidence `json:"evidence,omitempty"`
	Origin     string     `json:"origin"` // observed | config
}

// Decision is an architectural decision, explicit or inferred.
type Decision struct {
	ID         string     `json:"id"`
	Title      string     `json:"title"`
	Status     string     `json:"status"` // accepted, proposed, deprecated, superseded, rejected, unknown
	Source     string     `json:"source"` // the file or commit it comes from
	Origin     string     `json:"origin"` // explicit | inferred
	Kind       string     `json:"kind"`   // adr, documented-section, git-signal, config-signal, dependency-signal, knowledge-store
	Date       string     `json:"date,omitempty"`
	Confidence float64    `json:"confidence"`
	Evidence   []Evidence `json:"evidence,omitempty"`
	Excerpt    string     `json:"excerpt,omitempty"`
	// Paths are the globs a decision says it governs (the knowledge
	// store's `paths`); change impact uses them.
	Paths []string `json:"paths,omitempty"`
}

// ModuleGit is what history says about a module.
type ModuleGit struct {
	Changes         int           `json:"changes"`       // commits touching it in the window
	RecentChanges   int           `json:"recentChanges"` // in the recent window
	LastChanged     time.Time     `json:"lastChanged,omitzero"`
	ChangeFrequency string        `json:"changeFrequency"` // none, low, medium, high
	Contributors    int           `json:"contributors"`
	TopContributors []Contributor `json:"topContributors,omitempty"`
}

// Contributor is an author and their commit count.
type Contributor struct {
	Name    string `json:"name"`
	Commits int    `json:"commits"`
}

// GitSummary is the repository's history at a glance.
type GitSummary struct {
	Commits    int `json:"commits"` // in the window
	WindowDays int `json:"windowDays"`
	// WindowEnd is where the window of WindowDays ends: HEAD's commit
	// date, so an idle repository still shows the activity that made it.
	WindowEnd    time.Time `json:"windowEnd,omitzero"`
	FirstCommit  time.Time `json:"firstCommit,omitzero"`
	LastCommit   time.Time `json:"lastCommit,omitzero"`
	Contributors int       `json:"contributors"`
}
