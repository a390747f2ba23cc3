package index

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/kontext-dev/kontext/internal/fsroot"
	"github.com/kontext-dev/kontext/internal/git"
	"github.com/kontext-dev/kontext/internal/secrets"
)

// The defaults of sources.include, sources.exclude and sources.max_bytes.
var (
	DefaultInclude = []string{"/*.md", "**/README.md", "**/AGENTS.md", "**/CLAUDE.md", "docs/**/*.md", "doc/**/*.md", "adr/**/*.md"}
	DefaultExclude = []string{"**/node_modules/**", "**/CHANGELOG.md", "**/vendor/**", "**/fixtures/**", "**/testdata/**", "**/.github/ISSUE_TEMPLATE/**"}
)

// DefaultMaxBytes is sources.max_bytes: larger files are not indexed.
const DefaultMaxBytes = 300000

// DocsOptions configure the documentation source.
type DocsOptions struct {
	// Include and Exclude are sources.include and sources.exclude: globs
	// over slash-separated paths from the top of the work tree, with **.
	// A leading "/" anchors a pattern at the top; a pattern without any
	// "/" matches at any depth. nil means the defaults; an empty non-nil
	// Include indexes no documentation.
	Include, Exclude []string
	// ExcludeDirs are directories never indexed as documentation: the
	// knowledge store's own directory, whose entries another source
	// indexes. nil means .ai, the store's default (store.dir).
	ExcludeDirs []string
	// DetectDocs is sources.detect_docs: the Markdown pages of the
	// documentation folders found in the tree (DocFolders) are indexed
	// too, unless Exclude says otherwise.
	DetectDocs bool
	// MaxBytes is sources.max_bytes; 0 means DefaultMaxBytes.
	MaxBytes int64
	// IsSecret reports a file that must never be read; nil means
	// secrets.IsSecretFile.
	IsSecret func(path string) bool
	// Source is Doc.Source; "" means "local".
	Source string
}

// DocsSource indexes the work tree's Markdown documentation (tracked
// files and untracked ones git does not ignore), one document per "##"
// section: file:<path>#<slug>, and file:<path> for what comes before the
// first section.
type DocsSource struct {
	root     string
	repo     *git.Repo
	include  []string
	exclude  []string
	maxBytes int64
	isSecret func(string) bool
	src      string
	detect   bool
	config   string // what in the options decides the item list

	mu sync.Mutex
	// Known after a List: the documentation files, and every directory
	// of the work tree (a file appearing anywhere changes its directory's
	// modification time, which is how Fingerprint notices new files
	// without asking git), and the documentation folders found.
	files    []string
	dirs     []string
	detected []string
}

// NewDocsSource returns the documentation source of repo. It fails on a
// malformed glob.
func NewDocsSource(repo *git.Repo, opts DocsOptions) (*DocsSource, error) {
	if opts.Include == nil {
		opts.Include = DefaultInclude
	}
	if opts.Exclude == nil {
		opts.Exclude = DefaultExclude
	}
	if opts.ExcludeDirs == nil {
		opts.ExcludeDirs = []string{".ai"}
	}
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	if opts.IsSecret == nil {
		opts.IsSecret = secrets.IsSecretFile
	}
	if opts.Source == "" {
		opts.Source = "local"
	}
	s := &DocsSource{root: repo.Dir, repo: repo, maxBytes: opts.MaxBytes, isSecret: opts.IsSecret, src: opts.Source, detect: opts.DetectDocs}
	var err error
	if s.include, err = normalizeGlobs(opts.Include); err != nil {
		return nil, err
	}
	if s.exclude, err = normalizeGlobs(opts.Exclude); err != nil {
		return nil, err
	}
	for _, d := range opts.ExcludeDirs {
		d = strings.Trim(filepath.ToSlash(d), "/")
		if d != "" && d != "." {
			s.exclude = append(s.exclude, d+"/**")
		}
	}
	s.config = fmt.Sprintf("%q %q %d %v", s.include, s.exclude, s.maxBytes, s.detect)
	return s, nil
}

// normalizeGlobs turns sources.include-style patterns into doublestar
// patterns relative to the top of the work tree.
func normalizeGlobs(patterns []string) ([]string, error) {
	out := make([]string, 0, len(patterns))
	for _, p := range patterns {
		p = strings.TrimSpace(filepath.ToSlash(p))
		if p == "" {
			continue
		}
		switch {
		case strings.HasPrefix(p, "/"):
			p = strings.TrimLeft(p, "/")
		case !strings.Contains(strings.TrimSuffix(p, "/"), "/"):
			p = "**/" + p
		}
		if strings.HasSuffix(p, "/") {
			p += "**"
		}
		if !doublestar.ValidatePattern(p) {
			return nil, fmt.Errorf("sources: bad glob %q", p)
		}
		out = append(out, p)
	}
	return out, nil
}

// Name implements Source.
func (s *DocsSource) Name() string { return "docs" }

// Detected returns the documentation folders the last List found (none
// before it, or without DetectDocs).
func (s *DocsSource) Detected() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.detected...)
}

func (s *DocsSource) matches(p string) bool { return s.matchesWith(p, nil) }

// matchesWith is matches with the pages of the documentation folders
// detected included.
func (s *DocsSource) matchesWith(p string, detected []string) bool {
	in := false
	for _, g := range s.include {
		if ok, _ := doublestar.Match(g, p); ok {
			in = true
			break
		}
	}
	if !in && isMarkdownPage(p) {
		for _, d := range detected {
			if strings.HasPrefix(p, d+"/") {
				in = true
				break
			}
		}
	}
	if !in {
		return false
	}
	for _, g := range s.exclude {
		if ok, _ := doublestar.Match(g, p); ok {
			return false
		}
	}
	return !s.isSecret(p)
}

// Fingerprint implements Source. Until the first List it cannot tell.
func (s *DocsSource) Fingerprint(ctx context.Context) (string, error) {
	s.mu.Lock()
	files, dirs := s.files, s.dirs
	s.mu.Unlock()
	if dirs == nil {
		return "", nil
	}
	buf := make([]byte, 0, 32*(len(files)+len(dirs))+len(s.config))
	buf = append(buf, s.config...)
	stamp := func(rel string) {
		fi, err := os.Lstat(filepath.Join(s.root, filepath.FromSlash(rel)))
		buf = append(buf, rel...)
		buf = append(buf, 0)
		if err == nil {
			buf = strconv.AppendInt(buf, fi.ModTime().UnixNano(), 36)
			buf = append(buf, '.')
			buf = strconv.AppendInt(buf, fi.Size(), 36)
		}
		buf = append(buf, 0)
	}
	for _, d := range dirs {
		stamp(d)
	}
	for _, f := range files {
		stamp(f)
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	sum := sha256.Sum256(buf)
	return hex.EncodeToString(sum[:16]), nil
}

// List implements Source.
func (s *DocsSource) List(ctx context.Context) ([]Item, error) {
	all, err := s.repo.Files(ctx)
	if err != nil {
		return nil, err
	}
	// Directories holding no file yet (just made, or holding only ignored
	// files) are watched too: a document written there later changes
	// their modification time, not their parent's.
	empty, err := s.repo.UntrackedDirs(ctx)
	if err != nil {
		return nil, err
	}
	dirSet := map[string]bool{".": true}
	addDirs := func(d string) {
		for ; !dirSet[d]; d = path.Dir(d) {
			dirSet[d] = true
		}
	}
	var detected []string
	if s.detect {
		detected = DocFolders(all)
	}
	var files []string
	for _, f := range all {
		addDirs(path.Dir(f))
		if s.matchesWith(f, detected) {
			files = append(files, f)
		}
	}
	for _, d := range empty {
		addDirs(d)
	}
	dirs := make([]string, 0, len(dirSet))
	for d := range dirSet {
		dirs = append(dirs, d)
	}
	sort.Strings(dirs)
	items := make([]Item, 0, len(files))
	for _, f := range files {
		fi, err := os.Lstat(filepath.Join(s.root, filepath.FromSlash(f)))
		if err != nil || !fi.Mode().IsRegular() {
			continue // deleted but still in git's index, a symlink, a submodule
		}
		items = append(items, Item{Key: f, Version: FileVersion(fi)})
	}
	s.mu.Lock()
	s.files, s.dirs, s.detected = files, dirs, detected
	s.mu.Unlock()
	return items, nil
}

// FileVersion is the Item.Version of a file: its modification time and
// size, which change when it is edited, without reading it. Sources of
// files (the store's entries) use it so that all agree on what changed.
func FileVersion(fi fs.FileInfo) string {
	return strconv.FormatInt(fi.ModTime().UnixNano(), 10) + "." + strconv.FormatInt(fi.Size(), 10)
}

// Load implements Source.
func (s *DocsSource) Load(ctx context.Context, items []Item, emit func(Item, []Doc) error) error {
	for _, it := range items {
		if err := ctx.Err(); err != nil {
			return err
		}
		full := filepath.Join(s.root, filepath.FromSlash(it.Key))
		fi, err := os.Lstat(full)
		if err != nil {
			continue // gone since List: the next refresh drops it
		}
		if !fi.Mode().IsRegular() || fi.Size() > s.maxBytes {
			if err := emit(Item{Key: it.Key, Version: FileVersion(fi)}, nil); err != nil {
				return err
			}
			continue
		}
		data, err := fsroot.Read(nil, full, s.maxBytes)
		var docs []Doc
		// A document that is a credential (a key pasted into notes.md) is
		// listed, never indexed: its sections would be search snippets.
		if err == nil && secrets.SecretContent(it.Key, data) == "" {
			docs = splitMarkdown(it.Key, data, s.src)
		}
		if err := emit(Item{Key: it.Key, Version: FileVersion(fi)}, docs); err != nil {
			return err
		}
	}
	return nil
}
