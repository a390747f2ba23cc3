// Package check finds the problems in the team's knowledge that `kontext
// check` reports and the pre-commit hook blocks on (originals §1.4): in the
// work tree, or as the index holds it (what the next commit records).
// Errors: a missing title, an unknown kind, a duplicate id, a
// high-confidence secret. Warnings: a decision without status or date, an
// unusual status, a malformed date, a long body, supersedes pointing
// nowhere, paths matching no tracked file, a medium-confidence secret.
package check

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/kontext-dev/kontext/internal/fsroot"
	"github.com/kontext-dev/kontext/internal/git"
	"github.com/kontext-dev/kontext/internal/knowledge/config"
	"github.com/kontext-dev/kontext/internal/knowledge/store"
	"github.com/kontext-dev/kontext/internal/secrets"
)

// Target is the knowledge of one work tree.
type Target struct {
	Repo   *git.Repo
	Store  *store.Store
	Config *config.Config
	// Scanner finds secrets (nil: the built-in rules).
	Scanner *secrets.Scanner
	// RecordCache, when set, is the file that keeps the index view's
	// entries by blob between runs (the pre-commit hook's), so that an
	// unchanged entry is not read and parsed again.
	RecordCache string
}

// Result is what a check found.
type Result struct {
	// Problems are ordered by file and line.
	Problems []store.Problem
	// Files is how many files were checked.
	Files int
}

// Errors counts the problems that block a commit.
func (r *Result) Errors() int { return r.count(store.Error) }

// Warnings counts the others.
func (r *Result) Warnings() int { return r.count(store.Warning) }

func (r *Result) count(l store.Level) int {
	n := 0
	for _, p := range r.Problems {
		if p.Level == l {
			n++
		}
	}
	return n
}

// Line renders a problem the way compilers do, so editors can jump to it:
// `path:line: error|warning: message`.
func Line(p store.Problem) string {
	return fmt.Sprintf("%s:%d: %s: %s", p.Path, p.Line, p.Level, p.Message)
}

// Counts renders "1 error, 2 warnings" ("no problems" for none).
func (r *Result) Counts() string {
	e, w := r.Errors(), r.Warnings()
	if e+w == 0 {
		return "no problems"
	}
	return plural(e, "error", "errors") + ", " + plural(w, "warning", "warnings")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// Dirs are the directories that hold knowledge: the store and any kind
// configured elsewhere (an ADR directory).
func (t *Target) Dirs() []string {
	dirs := []string{t.Store.Dir()}
	for _, k := range t.Config.Kinds() {
		if k.Configured {
			dirs = append(dirs, k.Path)
		}
	}
	return dirs
}

// InStore reports whether a path lies in one of Dirs.
func (t *Target) InStore(rel string) bool {
	for _, d := range t.Dirs() {
		if strings.HasPrefix(rel, d+"/") {
			return true
		}
	}
	return false
}

// IndexREADME is the store's generated index; its content derives from the
// entries, so it is never scanned on its own.
func (t *Target) IndexREADME() string { return t.Store.Dir() + "/README.md" }

func (t *Target) options(all []*store.Entry, tracked []string) store.CheckOptions {
	return store.CheckOptions{
		All:          all,
		KnownKind:    func(k string) bool { _, ok := t.Config.Kind(k); return ok },
		MaxBodyLines: t.Config.Store.MaxBodyLines,
		Tracked:      tracked,
		Scanner:      t.Scanner,
		NoSecrets:    t.Config.Secrets.Scan == "off",
	}
}

// WorkTree checks every entry in the work tree (and scans the store's
// other files for secrets).
func (t *Target) WorkTree(ctx context.Context) (*Result, error) {
	entries, loadErr := t.Store.Load()
	tracked, err := t.Repo.TrackedFiles(ctx)
	if err != nil {
		return nil, err
	}
	if tracked == nil {
		tracked = []string{} // nil would skip the paths check
	}
	res := &Result{Files: len(entries), Problems: store.Validate(entries, t.options(nil, tracked))}
	if loadErr != nil {
		for _, e := range splitErrors(loadErr) {
			res.Problems = append(res.Problems, store.Problem{Level: store.Error, Path: t.Store.Dir(), Line: 1, Message: "cannot be read: " + e.Error()})
		}
	}
	res.Problems = append(res.Problems, t.configProblems()...)
	for _, rel := range t.secretStoreFiles() {
		res.Problems = append(res.Problems, store.Problem{Level: store.Warning, Path: rel, Line: 1, Message: secretInStore})
	}
	if t.Config.Secrets.Scan != "off" {
		for _, rel := range t.otherStoreFiles() {
			data, err := fsroot.Read(nil, filepath.Join(t.Repo.Dir, filepath.FromSlash(rel)), 0)
			if err != nil || !isText(data) {
				continue
			}
			res.Files++
			res.Problems = append(res.Problems, t.secretProblems(rel, string(data))...)
		}
	}
	sortProblems(res.Problems)
	return res, nil
}

// secretInStore is the problem of a secret file in the store's
// directories, which git add .ai would commit for the whole team.
const secretInStore = "a secret file in the knowledge store (kontext never reads it): move it out of the store, and out of the repository (git rm --cached) if it is tracked"

// configProblems are the repository configuration's settings that were
// not applied because they would switch secret protection off for
// everyone.
func (t *Target) configProblems() []store.Problem {
	var out []store.Problem
	for _, r := range t.Config.Refusals {
		rel, err := filepath.Rel(t.Repo.Dir, r.Source.File)
		if err != nil {
			rel = r.Source.File
		}
		out = append(out, store.Problem{Level: store.Warning, Path: filepath.ToSlash(rel), Line: max(r.Source.Line, 1),
			Message: fmt.Sprintf("%s = %s is not applied: %s", r.Key, r.Value, r.Reason)})
	}
	return out
}

// secretStoreFiles are the secret files (by name) in the store's
// directories.
func (t *Target) secretStoreFiles() []string {
	var out []string
	t.walkStore(func(rel string) {
		if secrets.IsSecretFile(rel) {
			out = append(out, rel)
		}
	})
	return out
}

// otherStoreFiles are the files in the store's directories that are not
// entries (kontext.toml, templates), without the generated index and the
// secret files.
func (t *Target) otherStoreFiles() []string {
	var out []string
	t.walkStore(func(rel string) {
		if !t.Store.IsEntryPath(rel) && rel != t.IndexREADME() && !secrets.IsSecretFile(rel) {
			out = append(out, rel)
		}
	})
	return out
}

// walkStore calls f with every regular file of the store's directories,
// in order, hidden directories left out.
func (t *Target) walkStore(f func(rel string)) {
	var out []string
	for _, d := range t.Dirs() {
		abs := filepath.Join(t.Repo.Dir, filepath.FromSlash(d))
		_ = filepath.WalkDir(abs, func(p string, de fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if de.IsDir() {
				if p != abs && strings.HasPrefix(de.Name(), ".") {
					return filepath.SkipDir
				}
				return nil
			}
			rel, err := filepath.Rel(t.Repo.Dir, p)
			if err != nil || !de.Type().IsRegular() {
				return nil
			}
			out = append(out, filepath.ToSlash(rel))
			return nil
		})
	}
	sort.Strings(out)
	for _, rel := range out {
		f(rel)
	}
}

func splitErrors(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// secretProblems scans one file's text the way Validate scans entries.
func (t *Target) secretProblems(rel, text string) []store.Problem {
	var fs []secrets.Finding
	if t.Scanner != nil {
		fs = t.Scanner.Scan(text)
	} else {
		fs = secrets.Scan(text)
	}
	var out []store.Problem
	for _, f := range fs {
		level, word := store.Warning, "possible"
		if f.Severity == secrets.High {
			level, word = store.Error, "high-confidence"
		}
		out = append(out, store.Problem{Level: level, Path: rel, Line: f.Line,
			Message: fmt.Sprintf("%s secret (%s) at column %d: %s; remove it, or mark the line with %s if it is not one", word, f.Rule, f.Col, f.Excerpt, secrets.AllowMarker)})
	}
	return out
}

func sortProblems(ps []store.Problem) {
	sort.SliceStable(ps, func(i, j int) bool {
		if ps[i].Path != ps[j].Path {
			return ps[i].Path < ps[j].Path
		}
		return ps[i].Line < ps[j].Line
	})
}

// isText rejects binaries: a NUL byte near the start.
func isText(data []byte) bool {
	head := data
	if len(head) > 8000 {
		head = head[:8000]
	}
	return bytes.IndexByte(head, 0) < 0
}

// Change is one staged change.
type Change struct {
	Status byte // A, M, D, T
	Path   string
}

// StagedChanges lists what the index changes relative to HEAD (every
// file, in one `git diff --cached`; renames as a deletion and an
// addition). In a repository without commits, everything staged is new.
func StagedChanges(ctx context.Context, repo *git.Repo) ([]Change, error) {
	out, err := repo.Run(ctx, "diff", "--cached", "--name-status", "-z", "--no-renames", "--ignore-submodules")
	if err != nil {
		return nil, err
	}
	var changes []Change
	parts := strings.Split(string(out), "\x00")
	for i := 0; i+1 < len(parts); i += 2 {
		if parts[i] == "" {
			break
		}
		changes = append(changes, Change{Status: parts[i][0], Path: parts[i+1]})
	}
	return changes, nil
}

// StagedOptions adjust Staged for the hooks' configuration.
type StagedOptions struct {
	// NoValidate keeps only the secret scan (hooks.validate = false).
	NoValidate bool
}

// Staged checks the knowledge files the index changes, as the index holds
// them, against every entry of the index (duplicate ids, supersedes).
// With secrets.scan = "staged" every other staged text file is scanned for
// secrets too. changes are StagedChanges; view is Index (nil: loaded when
// needed).
func (t *Target) Staged(ctx context.Context, changes []Change, view *IndexView, opts StagedOptions) (*Result, error) {
	scan := t.Config.Secrets.Scan
	res := &Result{}
	// Staged content: through the view when there is one (the work tree's
	// copy when it is the index's, without starting git), else the index.
	staged := func(rel string) ([]byte, bool, error) {
		if view != nil && view.Has(rel) {
			return view.Read(ctx, rel)
		}
		return t.Repo.FileAt(ctx, "", rel)
	}
	var entries []*store.Entry
	var others []string
	for _, c := range changes {
		if c.Status == 'D' {
			continue
		}
		switch {
		case t.Store.IsEntryPath(c.Path):
			data, ok, err := staged(c.Path)
			if err != nil || !ok {
				continue
			}
			kind, _ := t.Store.KindOf(c.Path)
			entries = append(entries, store.Parse(c.Path, data, kind))
		case t.InStore(c.Path) && secrets.IsSecretFile(c.Path):
			// Whatever the scan setting: the team's store is no place for
			// a key, and the commit would share it.
			res.Problems = append(res.Problems, store.Problem{Level: store.Error, Path: c.Path, Line: 1,
				Message: "a secret file is staged in the knowledge store (kontext never reads it): unstage it (git rm --cached " + c.Path + ") and move it out of the store"})
		case t.InStore(c.Path) && c.Path != t.IndexREADME():
			if scan != "off" {
				others = append(others, c.Path)
			}
		case scan == "staged":
			others = append(others, c.Path)
		}
	}
	res.Files = len(entries)
	res.Problems = append(res.Problems, t.configProblems()...)
	if len(entries) > 0 {
		if opts.NoValidate {
			if scan != "off" {
				for _, e := range entries {
					res.Problems = append(res.Problems, t.secretProblems(e.Path, e.Text())...)
				}
			}
		} else {
			if view == nil {
				v, err := t.Index(ctx)
				if err != nil {
					return nil, err
				}
				view = v
			}
			tracked := append([]string{}, view.Tracked...) // nil would skip the paths check
			res.Problems = append(res.Problems, store.Validate(entries, t.options(mergeView(view.Entries, entries), tracked))...)
		}
	}
	for _, rel := range others {
		if secrets.IsSecretFile(rel) {
			if !t.InStore(rel) {
				res.Problems = append(res.Problems, store.Problem{Level: store.Warning, Path: rel, Line: 1, Message: "a secret file is staged (kontext does not read it): make sure it belongs in the repository"})
			}
			continue
		}
		data, ok, err := staged(rel)
		if err != nil || !ok || !isText(data) || int64(len(data)) > maxScanBytes(t.Config) {
			continue
		}
		res.Files++
		res.Problems = append(res.Problems, t.secretProblems(rel, string(data))...)
	}
	sortProblems(res.Problems)
	return res, nil
}

// maxScanBytes bounds the files the staged scan reads, as the search index
// bounds what it reads.
func maxScanBytes(cfg *config.Config) int64 {
	if cfg.Sources.MaxBytes > 0 {
		return cfg.Sources.MaxBytes
	}
	return 300000
}

// mergeView is every entry of the index with the staged versions of the
// checked ones (the same, read once more; kept by path so nothing counts
// twice).
func mergeView(all, staged []*store.Entry) []*store.Entry {
	byPath := map[string]bool{}
	for _, e := range staged {
		byPath[e.Path] = true
	}
	out := append([]*store.Entry(nil), staged...)
	for _, e := range all {
		if !byPath[e.Path] {
			out = append(out, e)
		}
	}
	return out
}

// IndexView is the store as the index holds it: what the next commit
// records, whatever the work tree has since.
type IndexView struct {
	// Entries are the store's entries as the index holds them; those that
	// came from the record cache carry what the index README and the id
	// checks need (store.FromRecord), not bodies.
	Entries []*store.Entry
	// Tracked is every path of the index.
	Tracked []string
	// Parsed counts the entries read and parsed for this view (the others
	// came from the record cache).
	Parsed int
	files  map[string]indexFile
	repo   *git.Repo
}

type indexFile struct {
	sha      string
	modified bool // the work tree's copy differs from the index
}

// Index reads the store as the index holds it: files the work tree still
// has unchanged are read from disk (cheap), the others from the index.
// The entries are read and parsed in parallel: a thousand of them are most
// of a pre-commit hook's work when knowledge is staged.
func (t *Target) Index(ctx context.Context) (*IndexView, error) {
	dirs := t.Dirs()
	specs := make([]string, len(dirs))
	for i, d := range dirs {
		specs[i] = ":(literal)" + d
	}
	// Every path of the index, in one listing: the store's files, and the
	// tracked files the paths check needs.
	// The two listings are independent: run together, a hook waits for one
	// git process instead of two.
	var mod []byte
	var modErr error
	listed := make(chan struct{})
	go func() {
		defer close(listed)
		mod, modErr = t.Repo.Run(ctx, append([]string{"diff-files", "-z", "--name-only", "--"}, specs...)...)
	}()
	out, err := t.Repo.Run(ctx, "ls-files", "-z", "--stage")
	<-listed
	if err != nil {
		return nil, err
	}
	if modErr != nil {
		return nil, modErr
	}
	modified := map[string]bool{}
	for _, p := range strings.Split(string(mod), "\x00") {
		if p != "" {
			modified[p] = true
		}
	}
	v := &IndexView{files: map[string]indexFile{}, repo: t.Repo}
	var paths []string
	for _, rec := range strings.Split(string(out), "\x00") {
		meta, rel, ok := strings.Cut(rec, "\t")
		if !ok {
			continue
		}
		f := strings.Fields(meta) // mode sha stage
		if len(f) != 3 || f[2] != "0" {
			continue // unmerged: the commit cannot happen yet
		}
		v.Tracked = append(v.Tracked, rel)
		if !t.InStore(rel) {
			continue
		}
		v.files[rel] = indexFile{sha: f[1], modified: modified[rel]}
		if t.Store.IsEntryPath(rel) {
			paths = append(paths, rel)
		}
	}
	sort.Strings(paths)
	v.Entries = make([]*store.Entry, len(paths))
	errs := make([]error, len(paths))
	cache := loadRecords(t.RecordCache)
	keys := make([]string, len(paths))
	var misses []int
	for i, p := range paths {
		kind, _ := t.Store.KindOf(p)
		keys[i] = recordKey(kind, p, v.files[p].sha)
		if r, ok := cache.get(keys[i]); ok {
			v.Entries[i] = store.FromRecord(r)
		} else {
			misses = append(misses, i)
		}
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				data, ok, err := v.Read(ctx, paths[i])
				if err != nil || !ok {
					errs[i] = err
					continue
				}
				kind, _ := t.Store.KindOf(paths[i])
				e := store.Parse(paths[i], data, kind)
				v.Entries[i] = e
				cache.put(keys[i], e.Record())
			}
		}()
	}
	for _, i := range misses {
		next <- i
	}
	v.Parsed = len(misses)
	close(next)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	cache.save()
	v.Entries = slices.DeleteFunc(v.Entries, func(e *store.Entry) bool { return e == nil })
	return v, nil
}

// Has reports whether the index holds a file of the store.
func (v *IndexView) Has(rel string) bool { _, ok := v.files[rel]; return ok }

// Modified reports whether the work tree's copy of an indexed file differs
// from the index's.
func (v *IndexView) Modified(rel string) bool { return v.files[rel].modified }

// Read returns a store file as the index holds it.
func (v *IndexView) Read(ctx context.Context, rel string) ([]byte, bool, error) {
	f, ok := v.files[rel]
	if !ok {
		return nil, false, nil
	}
	if !f.modified {
		data, err := fsroot.Read(nil, filepath.Join(v.repo.Dir, filepath.FromSlash(rel)), 0)
		if err == nil {
			return data, true, nil
		}
	}
	kind, data, ok, err := v.repo.Object(ctx, f.sha)
	if err != nil || !ok || kind != "blob" {
		return nil, false, err
	}
	return data, true, nil
}
