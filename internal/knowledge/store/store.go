package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/kontext-dev/kontext/internal/atomicfile"
	"github.com/kontext-dev/kontext/internal/fsroot"
	"github.com/kontext-dev/kontext/internal/knowledge/config"
)

// Store is the knowledge store of one work tree. Its writes are atomic;
// callers that write (Create, Rewrite, Supersede, WriteIndex) hold the
// clone's lock (local.State.Lock) so that read-modify-write sequences of
// concurrent kontext processes do not interleave.
type Store struct {
	root *fsroot.Root
	cfg  *config.Config
	// Now dates new entries; time.Now when nil.
	Now func() time.Time
	// TempDir holds the temporary files of the store's writes, on the same
	// filesystem, outside the store (local.Open sets .git/kontext/tmp): a
	// write killed half-way leaves nothing in the store for `git add` to
	// pick up. "" writes them beside their targets.
	TempDir string
}

// New returns the store of the work tree at root, laid out as cfg says.
// Every path it touches is resolved through root, so a configured
// directory cannot lead out of the repository.
func New(root *fsroot.Root, cfg *config.Config) *Store {
	if cfg == nil {
		cfg = config.Defaults()
	}
	return &Store{root: root, cfg: cfg}
}

// Root is the work tree's top directory.
func (s *Store) Root() string { return s.root.Dir() }

// ReadFile reads a file of the work tree through its root guard.
func (s *Store) ReadFile(rel string) ([]byte, error) { return s.root.ReadFile(rel) }

// Path resolves a path relative to the work tree through its root guard.
func (s *Store) Path(rel string) (string, error) { return s.root.Path(rel) }

// Config is the configuration the store follows.
func (s *Store) Config() *config.Config { return s.cfg }

// Dir is the store directory relative to the root (".ai").
func (s *Store) Dir() string { return s.cfg.StoreDir() }

func (s *Store) today() string {
	now := time.Now
	if s.Now != nil {
		now = s.Now
	}
	return now().Format("2006-01-02")
}

// Exists reports whether the repository has a store: the store directory,
// or a configured home of decisions (an existing ADR directory).
func (s *Store) Exists() bool {
	if isDir(s.root, s.Dir()) {
		return true
	}
	for _, k := range s.cfg.Kinds() {
		if k.Configured && isDir(s.root, k.Path) {
			return true
		}
	}
	return false
}

// Empty reports whether the store holds no file at all: at most the empty
// kind folders a checkout of a branch without the store leaves behind
// (git removes files, not the folders that hold nothing it tracks).
func (s *Store) Empty() bool {
	dirs := []string{s.Dir()}
	for _, k := range s.cfg.Kinds() {
		if k.Configured {
			dirs = append(dirs, k.Path)
		}
	}
	errFound := errors.New("found")
	for _, d := range dirs {
		abs, err := s.root.Path(d)
		if err != nil {
			continue
		}
		err = filepath.WalkDir(abs, func(_ string, e fs.DirEntry, err error) error {
			if err == nil && !e.IsDir() {
				return errFound
			}
			return nil
		})
		if err == errFound {
			return false
		}
	}
	return true
}

func isDir(root *fsroot.Root, rel string) bool {
	abs, err := root.Path(rel)
	if err != nil {
		return false
	}
	info, err := os.Stat(abs)
	return err == nil && info.IsDir()
}

// KindOf returns the kind whose directory holds rel (the most specific
// directory when they nest).
func (s *Store) KindOf(rel string) (string, bool) {
	best, bestLen := "", -1
	for _, k := range s.cfg.Kinds() {
		if strings.HasPrefix(rel, k.Path+"/") && len(k.Path) > bestLen {
			best, bestLen = k.Name, len(k.Path)
		}
	}
	return best, bestLen >= 0
}

// IsEntryPath reports whether rel is an entry file: Markdown inside a
// kind's directory, and not a README, index, template or draft (`_…`,
// `0000-…`).
//
// The architecture docs are kontext's own, named after the modules,
// whatever those are called: a module named template has template.md,
// which is its doc, not a template.
func (s *Store) IsEntryPath(rel string) bool {
	if !strings.HasSuffix(rel, ".md") {
		return false
	}
	kind, ok := s.KindOf(rel)
	if !ok {
		return false
	}
	if kind == KindArchitecture {
		return !strings.EqualFold(path.Base(rel), "readme.md")
	}
	return isEntryName(path.Base(rel))
}

func isEntryName(name string) bool {
	l := strings.ToLower(name)
	return l != "readme.md" && l != "index.md" && !strings.HasPrefix(l, "template") &&
		!strings.HasPrefix(l, "0000-") && !strings.HasPrefix(l, "_") && !strings.HasPrefix(l, ".")
}

// Load reads every entry, ordered by path. Files that cannot be read are
// reported in the error; the entries that could be read are returned
// anyway.
func (s *Store) Load() ([]*Entry, error) {
	seen := map[string]bool{}
	var out []*Entry
	var errs []error
	for _, k := range s.cfg.Kinds() {
		abs, err := s.root.Path(k.Path)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		_ = filepath.WalkDir(abs, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if !errors.Is(err, fs.ErrNotExist) {
					errs = append(errs, err)
				}
				return nil
			}
			name := d.Name()
			if d.IsDir() {
				if p != abs && (strings.HasPrefix(name, ".") || name == "node_modules") {
					return filepath.SkipDir
				}
				return nil
			}
			if !d.Type().IsRegular() {
				return nil
			}
			rel, err := filepath.Rel(s.root.Dir(), p)
			if err != nil {
				return nil
			}
			rel = filepath.ToSlash(rel)
			if seen[rel] || !s.IsEntryPath(rel) {
				return nil
			}
			seen[rel] = true
			kind, _ := s.KindOf(rel)
			data, err := s.root.ReadFile(rel)
			if err != nil {
				errs = append(errs, err)
				return nil
			}
			out = append(out, Parse(rel, data, kind))
			return nil
		})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, errors.Join(errs...)
}

// Find loads the store and looks an entry up (see the package function
// Find).
func (s *Store) Find(key string) (*Entry, error) {
	entries, err := s.Load()
	if e, ferr := Find(entries, key); ferr == nil {
		return e, nil
	} else if err == nil {
		err = ferr
	} else {
		err = errors.Join(ferr, err)
	}
	return nil, err
}

// UnknownKindError is an entry of a kind the configuration does not have.
type UnknownKindError struct {
	Kind  string
	Known []string
}

func (e *UnknownKindError) Error() string {
	return fmt.Sprintf("unknown kind %q (use one of: %s)", e.Kind, strings.Join(e.Known, ", "))
}

func (s *Store) kind(name string) (config.KindSettings, error) {
	k, ok := s.cfg.Kind(name)
	if !ok {
		var known []string
		for _, k := range s.cfg.Kinds() {
			known = append(known, k.Name)
		}
		return k, &UnknownKindError{Kind: name, Known: known}
	}
	return k, nil
}

// Allocate gives a new entry its id, file and style from its kind's
// configuration (in a directory of existing ADRs, the layout of the newest
// of them: adr-tools, MADR, Nygard): `<date>-<slug>` (numbering "date"), `<NNNN>-<slug>`
// (sequential: one more than the highest number in the directory) or
// `<slug>` (none), with -2, -3… when the name is taken. It fills in the
// date (today) when the entry has none.
func (s *Store) Allocate(e *Entry) error {
	k, err := s.kind(e.Kind)
	if err != nil {
		return err
	}
	if e.Date == "" {
		e.Date = s.today()
	}
	date := s.today()
	if ValidDate(e.Date) {
		date = e.Date[:10]
	}
	slug := Slugify(e.Title, MaxSlug)
	if slug == "" {
		slug = "entry"
	}
	var base string
	switch k.Numbering {
	case "sequential":
		next, width := s.nextNumber(k.Path)
		base = fmt.Sprintf("%0*d-%s", width, next, slug)
	case "date":
		base = date + "-" + slug
	default:
		base = slug
	}
	var guardErr error
	n := FreeSuffix(func(n int) bool {
		abs, err := s.root.Path(k.Path + "/" + Suffixed(base, n) + ".md")
		if err != nil {
			guardErr = err
			return false
		}
		_, err = os.Lstat(abs)
		return !errors.Is(err, fs.ErrNotExist)
	})
	if guardErr != nil {
		return guardErr
	}
	id := Suffixed(base, n)
	e.ID, e.Path, e.Style = id, k.Path+"/"+id+".md", Style(k.Style)
	if k.Configured {
		// A directory of the team's own ADRs: written as they are.
		e.layout = s.layoutOf(k.Path, k.Name)
	}
	return nil
}

// Suffixed is the n-th name of a base: base itself, then base-2, base-3…
func Suffixed(base string, n int) string {
	if n <= 1 {
		return base
	}
	return base + "-" + strconv.Itoa(n)
}

// FreeSuffix returns an n >= 1 for which taken(n) is false: 1 when it is
// free, else one found by doubling and then halving, so that the 260th
// entry of one title costs a dozen probes instead of 260. When the taken
// numbers have no gaps, it is the smallest free one.
func FreeSuffix(taken func(n int) bool) int {
	if !taken(1) {
		return 1
	}
	lo, hi := 1, 2 // lo is taken
	for taken(hi) {
		if hi >= 1<<30 {
			return hi + 1
		}
		lo, hi = hi, hi*2
	}
	for hi-lo > 1 {
		if mid := lo + (hi-lo)/2; taken(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi
}

// nextNumber is one more than the highest ADR number in dir, and the width
// the directory's numbers have (4 by default).
func (s *Store) nextNumber(dir string) (int, int) {
	max, width := 0, 4
	abs, err := s.root.Path(dir)
	if err != nil {
		return 1, width
	}
	ents, _ := os.ReadDir(abs)
	for _, e := range ents {
		if d := seqDigits(strings.TrimSuffix(e.Name(), ".md")); d != "" {
			width = len(d)
			if n := atoi(d); n > max {
				max = n
			}
		}
	}
	return max + 1, width
}

// WriteNew writes an allocated entry to its file, which must not exist yet
// (an error satisfying errors.Is(err, fs.ErrExist) otherwise).
func (s *Store) WriteNew(e *Entry) error {
	if e.Path == "" {
		return fmt.Errorf("entry %q has no file: allocate it first", e.Title)
	}
	abs, err := s.root.Path(e.Path)
	if err != nil {
		return err
	}
	data := Marshal(e)
	if err := atomicfile.CreateIn(s.TempDir, abs, data, 0o644); err != nil {
		return err
	}
	*e = *Parse(e.Path, data, e.Kind)
	return nil
}

// Rewrite replaces an entry's file with its current content; only what
// changed since it was read differs.
func (s *Store) Rewrite(e *Entry) error {
	abs, err := s.root.Path(e.Path)
	if err != nil {
		return err
	}
	perm := fs.FileMode(0o644)
	if info, err := os.Stat(abs); err == nil {
		perm = info.Mode().Perm()
	}
	data := Marshal(e)
	if e.src != nil && string(data) == e.src.text {
		return nil
	}
	if err := atomicfile.WriteIn(s.TempDir, abs, data, perm); err != nil {
		return err
	}
	*e = *Parse(e.Path, data, e.Kind)
	return nil
}

// Result is what Create wrote.
type Result struct {
	// Path is the new entry's file.
	Path string
	// Superseded are the entries it marked superseded.
	Superseded []*Entry
	// Missing are the supersedes references that matched no entry (or
	// several).
	Missing []string
	// Written lists every file written, relative to the root.
	Written []string
}

// Create writes a new entry (allocating its id and file) and marks the
// entries it supersedes. Callers serialise writers with the local state's
// lock; the file itself is created exclusively, so two writers never
// overwrite each other even without it.
func (s *Store) Create(e *Entry) (*Result, error) {
	for attempt := 0; ; attempt++ {
		if err := s.Allocate(e); err != nil {
			return nil, err
		}
		err := s.WriteNew(e)
		if err == nil {
			break
		}
		if !errors.Is(err, fs.ErrExist) || attempt > 50 {
			return nil, err
		}
	}
	res := &Result{Path: e.Path, Written: []string{e.Path}}
	sup, missing, err := s.Supersede(e)
	res.Superseded, res.Missing = sup, missing
	for _, o := range sup {
		res.Written = append(res.Written, o.Path)
	}
	return res, err
}

// Supersede marks every entry that e.Supersedes names as superseded by e:
// `status: superseded` and `superseded_by: [<e's id>]` (the status line,
// for a fields-style ADR), everything else in those files unchanged.
func (s *Store) Supersede(e *Entry) (done []*Entry, missing []string, err error) {
	if len(e.Supersedes) == 0 {
		return nil, nil, nil
	}
	all, _ := s.Load()
	// The new entry itself is no candidate (its id may share a prefix).
	entries := all[:0]
	for _, o := range all {
		if o.Path != e.Path {
			entries = append(entries, o)
		}
	}
	for _, key := range e.Supersedes {
		old, ferr := Find(entries, key)
		if ferr != nil || old.ID == e.ID {
			missing = append(missing, key)
			continue
		}
		MarkSuperseded(old, e.ID)
		if werr := s.Rewrite(old); werr != nil {
			return done, missing, werr
		}
		done = append(done, old)
	}
	return done, missing, nil
}

// MarkSuperseded sets an entry's status to superseded and links the entry
// that replaces it.
func MarkSuperseded(old *Entry, by string) {
	old.Status = StatusSuperseded
	if !slices.Contains(old.SupersededBy, by) {
		old.SupersededBy = append(old.SupersededBy, by)
	}
}
