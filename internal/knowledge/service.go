// Package knowledge is the knowledge toolset: the team's curated
// decisions, conventions, learnings and incidents in .ai/, captured through
// a local inbox and promoted into git with the commit (seeds/004). The
// store, configuration, secrets, local state and search index live in its
// subpackages; this package holds the Service over them (what one
// repository's knowledge opens to) and the `kontext status` and `check`
// reports. The tools, prompts and resources are answered in tools.
package knowledge

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/kontext-dev/kontext/internal/fsroot"
	"github.com/kontext-dev/kontext/internal/git"
	"github.com/kontext-dev/kontext/internal/knowledge/adapters"
	"github.com/kontext-dev/kontext/internal/knowledge/config"
	"github.com/kontext-dev/kontext/internal/knowledge/index"
	"github.com/kontext-dev/kontext/internal/knowledge/local"
	"github.com/kontext-dev/kontext/internal/knowledge/store"
	"github.com/kontext-dev/kontext/internal/repo"
	"github.com/kontext-dev/kontext/internal/secrets"
)

// Service is the team knowledge of one repository. It opens lazily, so the
// server starts anywhere, and reopens when a configuration file changes.
type Service struct {
	dir string // the server's root
	// Getenv reads the environment the configuration consults (tests
	// replace os.Getenv).
	Getenv func(string) string

	// Engine is the repository engine the bootstrap scans with; set it to
	// share one engine with the repo toolset (one is made when nil).
	Engine   *repo.Engine
	engineMu sync.Mutex

	mu   sync.Mutex
	repo *Opened

	// ranking is the engine's order of the modules, for the brief;
	// RankWait bounds the wait for it (0: moduleRankWait, negative: no
	// bound, for tests that need the ranked answer).
	ranking  moduleRanking
	RankWait time.Duration

	// adapters run for the whole process, shared by its sessions; the
	// stamp is of the configuration and trust file they were set up from.
	adaptersMu    sync.Mutex
	adapters      *adapters.Manager
	adaptersStamp string
	adaptersErr   error
}

// Opened is the repository state a configuration was loaded for.
type Opened struct {
	Git     *git.Repo
	Root    *fsroot.Root // the work tree's top level
	Config  *config.Config
	stamp   string // the configuration files' sizes and times
	Store   *store.Store
	State   *local.State
	Secrets *secrets.Scanner

	// search is opened on first use; requests run in parallel, so under
	// searchMu (two first searches would open the index twice and leave
	// one open).
	searchMu sync.Mutex
	search   *index.Index
	// searchNote says, once, that the index is not under .git/kontext;
	// searchTemp that its directory goes when it closes.
	searchNote string
	searchTemp bool

	cacheMu sync.Mutex
	cache   entryCache

	// watch sees changes to the store's directories.
	watch    *changeWatch
	filesMu  sync.Mutex
	files    []index.Item
	filesGen uint64

	// extras keep the stale decisions and the hooks' location between calls.
	extras extras
}

// NewService returns the knowledge of the repository that contains dir.
func NewService(dir string) *Service {
	return &Service{dir: dir, Getenv: os.Getenv}
}

// RepoEngine is Engine, made on first use when none was set.
func (s *Service) RepoEngine() *repo.Engine {
	s.engineMu.Lock()
	defer s.engineMu.Unlock()
	if s.Engine == nil {
		s.Engine = repo.NewEngine(repo.Options{})
	}
	return s.Engine
}

// errNotRepository tells the agent what to do outside a git repository.
var errNotRepository = errors.New("kontext works inside a git repository: start the server in one (kontext mcp --root <repository>)")

// Open returns the repository state, reloading it when its configuration
// changed since it was loaded.
func (s *Service) Open(ctx context.Context) (*Opened, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.repo != nil && s.repo.stamp == configStamp(s.repo.Config) {
		return s.repo, nil
	}
	repo, err := git.Open(ctx, s.dir)
	if errors.Is(err, git.ErrNotRepository) {
		return nil, errNotRepository
	}
	if err != nil {
		return nil, err
	}
	kept := false
	defer func() {
		if !kept {
			repo.Close() // its cat-file process, if a step started one
		}
	}()
	root, err := fsroot.Open(repo.Dir)
	if err != nil {
		return nil, err
	}
	cfg, err := config.Load(ctx, repo, config.Options{Getenv: s.Getenv})
	if err != nil {
		return nil, fmt.Errorf("the kontext configuration is invalid: %w", err)
	}
	state, err := local.Open(ctx, repo, cfg)
	if err != nil {
		return nil, err
	}
	scan, err := secrets.New(cfg.Secrets.Allow, cfg.Secrets.Redact)
	if err != nil {
		return nil, fmt.Errorf("secrets configuration: %w", err)
	}
	if s.repo != nil {
		s.repo.close()
	}
	o := &Opened{Git: repo, Root: root, Config: cfg, stamp: configStamp(cfg), Store: state.Store, State: state, Secrets: scan}
	var dirs []string
	for _, d := range o.StoreDirs() {
		dirs = append(dirs, filepath.Join(root.Dir(), filepath.FromSlash(d)))
	}
	o.watch = newChangeWatch(root.Dir(), dirs)
	s.repo, kept = o, true
	return s.repo, nil
}

// configStamp summarises the configuration files, so a change to any of
// them (or one appearing) is noticed on the next call.
func configStamp(cfg *config.Config) string {
	var b strings.Builder
	for _, l := range cfg.Layers {
		if info, err := os.Stat(l.Path); err == nil {
			fmt.Fprintf(&b, "%s:%d:%d;", l.Path, info.Size(), info.ModTime().UnixNano())
		} else {
			fmt.Fprintf(&b, "%s:-;", l.Path)
		}
	}
	return b.String()
}

// SearchIndex opens the search index of this worktree on first use.
func (o *Opened) SearchIndex(ctx context.Context) (*index.Index, error) {
	o.searchMu.Lock()
	defer o.searchMu.Unlock()
	if o.search != nil {
		return o.search, nil
	}
	docs, err := index.NewDocsSource(o.Git, index.DocsOptions{
		Include:     o.Config.Sources.Include,
		Exclude:     o.Config.Sources.Exclude,
		ExcludeDirs: o.StoreDirs(),
		DetectDocs:  o.Config.Sources.DetectDocs,
		MaxBytes:    o.Config.Sources.MaxBytes,
		IsSecret:    secrets.IsSecretFile,
	})
	if err != nil {
		return nil, err
	}
	sources := []index.Source{&entrySource{o: o}, &privateSource{o: o}, docs}
	if o.Config.Index.Commits {
		sources = append(sources, index.NewCommitsSource(o.Git, index.CommitsOptions{Max: o.Config.Index.MaxCommits}))
	}
	dir := filepath.Join(o.State.Dir, "worktrees", o.State.Worktree, "index")
	ix, err := index.Open(ctx, index.Options{Dir: dir, Sources: sources, MinInterval: -1})
	var nw *index.NotWritableError
	if errors.As(err, &nw) {
		// The index is a cache: without write access to .git/kontext it
		// lives under the user's cache directory, else in a temporary one.
		for _, alt := range fallbackIndexDirs(o.Root.Dir()) {
			dir, temporary, ok := alt()
			if !ok {
				continue
			}
			if ix, err = index.Open(ctx, index.Options{Dir: dir, Sources: sources, MinInterval: -1}); err != nil {
				if temporary {
					os.RemoveAll(dir)
				}
				continue
			}
			o.searchTemp = temporary
			o.searchNote = fmt.Sprintf("%s is not writable (%v), so the search index lives in %s", o.State.Dir, nw.Err, dir)
			if temporary {
				o.searchNote += " for as long as this process runs"
			}
			slog.Warn("knowledge: " + o.searchNote)
			break
		}
	}
	if err != nil {
		return nil, err
	}
	o.search = ix
	return ix, nil
}

// fallbackIndexDirs are where the index goes when .git/kontext cannot
// hold it: <user cache>/kontext/index/<worktree>, then a new temporary
// directory (made only when asked for, and removed with the index).
func fallbackIndexDirs(worktree string) []func() (dir string, temporary, ok bool) {
	return []func() (string, bool, bool){
		func() (string, bool, bool) {
			cache, err := os.UserCacheDir()
			return filepath.Join(cache, "kontext", "index", local.WorktreeKey(worktree)), false, err == nil
		},
		func() (string, bool, bool) {
			tmp, err := os.MkdirTemp("", "kontext-index-")
			return tmp, true, err == nil
		},
	}
}

// TakeSearchNote returns, once, what the first search should say about
// where its index lives ("" when it lives where it should).
func (o *Opened) TakeSearchNote() string {
	o.searchMu.Lock()
	defer o.searchMu.Unlock()
	note := o.searchNote
	o.searchNote = ""
	return note
}

// StoreDirs are the directories that hold entries (the store and any kind
// configured elsewhere, such as docs/adr).
func (o *Opened) StoreDirs() []string {
	dirs := []string{o.Store.Dir()}
	for _, k := range o.Config.Kinds() {
		if k.Path != "" {
			dirs = append(dirs, k.Path)
		}
	}
	return dirs
}

// Entries loads the store (an empty list without one). Parsed entries are
// kept while the store's files keep their sizes and times, so a brief does
// not parse a thousand files again. Callers share the entries and must not
// change them.
func (o *Opened) Entries() ([]*store.Entry, error) {
	if !o.Store.Exists() {
		return nil, nil
	}
	stamp := fingerprint(o.entryFiles())
	o.cacheMu.Lock()
	defer o.cacheMu.Unlock()
	if o.cache.stamp == stamp && o.cache.stamp != "" {
		return o.cache.entries, o.cache.err
	}
	entries, err := o.Store.Load()
	o.cache = entryCache{stamp: stamp, entries: entries, err: err}
	return entries, err
}

// StoreErrors counts the error-level problems of the store's entries (as
// kontext check reports them), once per state of the store, in the
// background: the secret scan of every entry takes too long to run on each
// brief. ok is false until the count for these entries is ready.
func (o *Opened) StoreErrors(entries []*store.Entry) (n int, ok bool) {
	o.cacheMu.Lock()
	defer o.cacheMu.Unlock()
	if !sameEntries(o.cache.entries, entries) {
		return 0, false
	}
	if o.cache.checked {
		return o.cache.errors, true
	}
	if !o.cache.checking {
		o.cache.checking = true
		go func() {
			n := 0
			for _, p := range store.Validate(entries, store.CheckOptions{MaxBodyLines: o.Config.Store.MaxBodyLines, Scanner: o.Secrets, NoSecrets: o.Config.Secrets.Scan == "off"}) {
				if p.Level == store.Error {
					n++
				}
			}
			o.cacheMu.Lock()
			if sameEntries(o.cache.entries, entries) {
				o.cache.checked, o.cache.errors = true, n
			}
			o.cacheMu.Unlock()
		}()
	}
	return 0, false
}

func sameEntries(a, b []*store.Entry) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// entryCache holds the parsed store for one state of its files.
type entryCache struct {
	stamp    string
	entries  []*store.Entry
	err      error
	checked  bool
	checking bool
	errors   int
}

// Close releases the index and the watch, and stops the adapters.
func (s *Service) Close() error {
	s.closeAdapters()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.repo != nil {
		return s.repo.close()
	}
	return nil
}

// close releases the watch, the index and the repository's cat-file
// process (a request still using them reopens the latter on demand).
func (o *Opened) close() error {
	o.watch.close()
	defer o.Git.Close()
	o.searchMu.Lock()
	defer o.searchMu.Unlock()
	if o.search != nil {
		err := o.search.Close()
		if o.searchTemp {
			os.RemoveAll(filepath.Dir(o.search.Path()))
		}
		return err
	}
	return nil
}

// Settings renders the effective configuration of the repository at dir
// (or the root the environment names) with the layer and file of each value.
func Settings(ctx context.Context, dir string) (string, error) {
	choice, err := fsroot.Choose(dir, os.Getenv)
	if err != nil {
		return "", err
	}
	repo, err := git.Open(ctx, choice.Dir)
	if errors.Is(err, git.ErrNotRepository) {
		return "", errNotRepository
	}
	if err != nil {
		return "", err
	}
	defer repo.Close()
	cfg, err := config.Load(ctx, repo, config.Options{})
	if err != nil {
		return "", err
	}
	return cfg.Explain(), nil
}
