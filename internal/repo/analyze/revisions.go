package analyze

import (
	"context"
	"encoding/json"
	"path"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/kontext-dev/kontext/internal/git"
	"github.com/kontext-dev/kontext/internal/jsonc"
	"github.com/kontext-dev/kontext/internal/lazyregexp"
	"github.com/kontext-dev/kontext/internal/repo/model"
	"github.com/kontext-dev/kontext/internal/secrets"
)

// Bounds of the revision views.
const (
	maxDiffFiles        = 2000
	DefaultSnapshotSize = 500
	maxSecretNames      = 100
)

// Diff is what changed between two revisions.
type Diff struct {
	Base       string          `json:"base"` // "" when Revision is a root commit
	Revision   string          `json:"revision"`
	Files      []ChangedFile   `json:"files"`
	Modules    []ChangedModule `json:"modules"`
	HasChanges bool            `json:"hasChanges"`
	// SecretFiles are the changed paths left out of Files and Modules
	// (secrets.IsSecretFile), at most maxSecretNames of them.
	SecretFiles []string `json:"secretFilesLeftOut,omitempty"`
	Truncated   bool     `json:"truncated,omitempty"`
	// SecretsCut says SecretFiles names only the first of them.
	SecretsCut bool `json:"-"`
}

// ChangedFile is one changed path.
type ChangedFile = model.ChangedFile

// ChangedModule sums a module's changed files.
type ChangedModule = model.ChangedModule

var statusNames = map[byte]string{'A': "added", 'M': "modified", 'D': "deleted", 'R': "renamed", 'C': "copied", 'T': "type-changed"}

// RevisionDiff lists the files changed between base and rev (rev's first
// parent when base is empty; HEAD when rev is empty), each placed in the
// module of g it belongs to, without checking anything out. g may be nil.
func RevisionDiff(ctx context.Context, repo *git.Repo, g *model.Graph, base, rev string) (*Diff, error) {
	if rev == "" {
		rev = "HEAD"
	}
	revSHA, err := repo.ResolveCommit(ctx, rev)
	if err != nil {
		return nil, err
	}
	baseSHA := ""
	if base != "" {
		if baseSHA, err = repo.ResolveCommit(ctx, base); err != nil {
			return nil, err
		}
	} else if parent, err := repo.ResolveCommit(ctx, revSHA+"^"); err == nil {
		baseSHA = parent
	}
	changes, err := repo.DiffTree(ctx, baseSHA, revSHA)
	if err != nil {
		return nil, err
	}
	var ix *index
	if g != nil {
		ix = newIndex(g)
	}
	d := &Diff{Base: baseSHA, Revision: revSHA, Files: []ChangedFile{}, Modules: []ChangedModule{}, HasChanges: len(changes) > 0}
	mods := map[string]*ChangedModule{}
	sort.Slice(changes, func(i, j int) bool { return changes[i].Path < changes[j].Path })
	for _, c := range changes {
		if secrets.IsSecretFile(c.Path) || c.From != "" && secrets.IsSecretFile(c.From) {
			d.SecretFiles = appendSecret(d.SecretFiles, c.Path, &d.SecretsCut)
			continue
		}
		cf := ChangedFile{Path: c.Path, From: c.From, Status: statusNames[c.Status]}
		if cf.Status == "" {
			cf.Status = "modified"
		}
		if ix != nil {
			cf.Module = ix.moduleOf(c.Path)
			if cf.Module == "" && c.From != "" {
				cf.Module = ix.moduleOf(c.From)
			}
		}
		if cf.Module != "" {
			m := mods[cf.Module]
			if m == nil {
				m = &ChangedModule{Module: cf.Module}
				mods[cf.Module] = m
			}
			m.Files++
			switch c.Status {
			case 'A', 'C':
				m.Added++
			case 'D':
				m.Deleted++
			case 'R':
				m.Renamed++
			default:
				m.Modified++
			}
		}
		if len(d.Files) == maxDiffFiles {
			d.Truncated = true
			continue
		}
		d.Files = append(d.Files, cf)
	}
	for _, k := range sortedKeys(mods) {
		d.Modules = append(d.Modules, *mods[k])
	}
	return d, nil
}

// Snapshot is the tree of one revision, read without a checkout.
type Snapshot struct {
	Revision  string   `json:"revision"` // as asked
	SHA       string   `json:"sha"`
	Author    string   `json:"author,omitempty"`
	Date      string   `json:"date,omitempty"`
	Subject   string   `json:"subject,omitempty"`
	FileCount int      `json:"fileCount"` // the files of the tree but the secret ones
	Files     []string `json:"files"`
	// SecretFiles are the tree's secret files (secrets.IsSecretFile), left
	// out of Files, FileCount, Languages and Modules; at most
	// maxSecretNames of them.
	SecretFiles []string         `json:"secretFilesLeftOut,omitempty"`
	SecretsCut  bool             `json:"-"`
	Languages   []LanguageCount  `json:"languages,omitempty"`
	Modules     []SnapshotModule `json:"modules"`
	Truncated   bool             `json:"truncated,omitempty"`
}

// LanguageCount is how many files of a language family a tree has.
type LanguageCount = model.LanguageCount

// SnapshotModule is a module as it existed at the revision.
type SnapshotModule = model.SnapshotModule

// manifestEcosystems are the manifests a snapshot reads, by base name.
var manifestEcosystems = map[string]string{
	"package.json": "npm", "go.mod": "go", "Cargo.toml": "cargo", "pyproject.toml": "pypi", "setup.cfg": "pypi",
	"pom.xml": "maven", "build.gradle": "gradle", "build.gradle.kts": "gradle", "composer.json": "composer",
	"Gemfile": "bundler", "mix.exs": "mix", "deno.json": "deno", "deno.jsonc": "deno",
}

var familyNames = map[family]string{famJS: "TypeScript/JavaScript", famGo: "Go", famPython: "Python", famRust: "Rust", famJava: "Java/Kotlin"}

// RevisionSnapshot lists the files of rev (at most maxFiles of them;
// DefaultSnapshotSize when 0), the manifests' modules at that revision
// (names read through cat-file), and the current graph's other modules
// that existed then. g may be nil.
func RevisionSnapshot(ctx context.Context, repo *git.Repo, g *model.Graph, rev string, maxFiles int) (*Snapshot, error) {
	if maxFiles <= 0 {
		maxFiles = DefaultSnapshotSize
	}
	if rev == "" {
		rev = "HEAD"
	}
	sha, err := repo.ResolveCommit(ctx, rev)
	if err != nil {
		return nil, err
	}
	s := &Snapshot{Revision: rev, SHA: sha, Files: []string{}, Modules: []SnapshotModule{}}
	if cs, err := repo.Log(ctx, git.LogOptions{Rev: sha, MaxCount: 1}); err == nil && len(cs) == 1 {
		s.Author, s.Subject = cs[0].AuthorName, excerptTitle(cs[0].Subject)
		s.Date = cs[0].AuthorTime.UTC().Format("2006-01-02T15:04:05Z")
	}
	entries, err := repo.ListTree(ctx, sha)
	if err != nil {
		return nil, err
	}
	mods := map[string]*SnapshotModule{}
	langs := map[family]int{}
	var paths []string
	for _, e := range entries {
		if e.Type != "blob" {
			continue // a submodule is another repository
		}
		if secrets.IsSecretFile(e.Path) {
			s.SecretFiles = appendSecret(s.SecretFiles, e.Path, &s.SecretsCut)
			continue
		}
		paths = append(paths, e.Path)
		langs[familyOf(e.Path)]++
		eco, ok := manifestEcosystems[baseName(e.Path)]
		if !ok || reNotDocs.MatchString(e.Path) {
			continue
		}
		dir := path.Dir(e.Path)
		if m, ok := mods[dir]; ok && m.Manifest != "" {
			continue // the first manifest of a directory names it
		}
		m := &SnapshotModule{ID: dir, Basis: string(model.BasisManifest), Manifest: e.Path, Ecosystem: eco}
		if data, ok, err := repo.FileAt(ctx, sha, e.Path); err == nil && ok {
			m.Name = manifestName(baseName(e.Path), data)
		}
		if m.Name == "" {
			m.Name = path.Base(dir)
		}
		mods[dir] = m
	}
	s.FileCount = len(paths)
	for i, p := range paths {
		if i == maxFiles {
			s.Truncated = true
			break
		}
		s.Files = append(s.Files, p)
	}
	for _, fam := range families {
		if n := langs[fam]; n > 0 {
			s.Languages = append(s.Languages, LanguageCount{Language: familyNames[fam], Files: n})
		}
	}
	if g != nil {
		for i := range g.Modules {
			m := &g.Modules[i]
			if _, ok := mods[m.ID]; !ok {
				mods[m.ID] = &SnapshotModule{ID: m.ID, Name: m.Name, Basis: string(m.Basis)}
			}
		}
	}
	// Each file counts in its deepest module; modules with no file at the
	// revision did not exist then.
	for _, p := range paths {
		for d := path.Dir(p); ; d = path.Dir(d) {
			if m, ok := mods[d]; ok {
				m.Files++
				break
			}
			if m, ok := mods[p]; ok { // a single-file module
				m.Files++
				break
			}
			if d == "." || d == "/" {
				break
			}
		}
	}
	for _, k := range sortedKeys(mods) {
		if mods[k].Files > 0 {
			s.Modules = append(s.Modules, *mods[k])
		}
	}
	return s, nil
}

// appendSecret adds a left-out path to a bounded list, saying so when the
// list is full.
func appendSecret(list []string, p string, cut *bool) []string {
	if len(list) == maxSecretNames {
		*cut = true
		return list
	}
	return append(list, p)
}

var (
	reGoModule  = lazyregexp.New(`(?m)^module\s+"?([^\s"]+)"?`)
	rePomArtID  = lazyregexp.New(`<artifactId>\s*([^<\s]+)\s*</artifactId>`)
	reGradleSet = lazyregexp.New(`rootProject\.name\s*=\s*['"]([^'"]+)['"]`)
)

// manifestName reads a package's name from its manifest, "" when it
// cannot; it never fails on a malformed manifest.
func manifestName(base string, data []byte) string {
	switch base {
	case "package.json", "composer.json", "deno.json":
		var v struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(data, &v) == nil {
			return v.Name
		}
	case "deno.jsonc":
		var v struct {
			Name string `json:"name"`
		}
		if jsonc.Unmarshal(data, &v) == nil {
			return v.Name
		}
	case "go.mod":
		if m := reGoModule.FindSubmatch(data); m != nil {
			return string(m[1])
		}
	case "Cargo.toml", "pyproject.toml":
		var v struct {
			Package struct{ Name string } `toml:"package"`
			Project struct{ Name string } `toml:"project"`
			Tool    struct {
				Poetry struct{ Name string } `toml:"poetry"`
			} `toml:"tool"`
		}
		if _, err := toml.Decode(string(data), &v); err == nil {
			for _, n := range []string{v.Package.Name, v.Project.Name, v.Tool.Poetry.Name} {
				if n != "" {
					return n
				}
			}
		}
	case "pom.xml":
		// The project's own artifactId follows the parent block's.
		s := string(data)
		if i := strings.Index(s, "</parent>"); i >= 0 {
			s = s[i:]
		}
		if m := rePomArtID.FindStringSubmatch(s); m != nil {
			return m[1]
		}
	case "build.gradle", "build.gradle.kts":
		if m := reGradleSet.FindSubmatch(data); m != nil {
			return string(m[1])
		}
	}
	return ""
}
