package repo

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/kontext-dev/kontext/internal/fsroot"
	"github.com/kontext-dev/kontext/internal/git"
	"github.com/kontext-dev/kontext/internal/repo/scan"
)

// sweeper detects changes without a watcher: it compares every listed
// file, every directory that could gain one and git's HEAD, refs and index
// with the fingerprints taken when they were last analysed. It costs a
// stat per file, so it runs at most once per interval (see
// Options.SweepInterval): a change is seen by the first call after the
// next sweep.
type sweeper struct {
	e    *Engine
	root string
	repo *git.Repo

	pendingChanges // its mu guards the fields below too
	st             *state
	dirList        []string // the directories that can gain a listed file
	dirs           map[string]fingerprint
	meta           map[string]fingerprint // git's files; "" for one that does not exist
	last           time.Time
	cost           time.Duration
}

func newSweeper(e *Engine, root string, repo *git.Repo) *sweeper {
	return &sweeper{e: e, root: root, repo: repo}
}

func (s *sweeper) interval() time.Duration {
	switch iv := s.e.opts.SweepInterval; {
	case iv < 0:
		return 0
	case iv > 0:
		return iv
	}
	return max(100*time.Millisecond, 10*s.cost)
}

func (s *sweeper) sync(ctx context.Context) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.st == nil || !s.last.IsZero() && time.Since(s.last) < s.interval() {
		return
	}
	began := time.Now()
	for _, p := range statAll(s.root, s.st) {
		s.ch.add(p)
	}
	for d, fp := range s.dirs {
		info, err := os.Lstat(s.abs(d))
		if err != nil || !fp.same(fingerprintOf(info, began)) {
			if d == "" {
				d = "."
			}
			s.ch.add(d)
		}
	}
	for p, fp := range s.meta {
		now, mt := metaFingerprint(p, began)
		if now != fp || fp.Racy {
			s.ch.head = true
			if filepath.Base(p) == "index" || filepath.Base(p) == "exclude" {
				s.ch.relist = true
			}
			// The update these flags call for reads git after this sweep,
			// so this fingerprint is the one to compare with from now on.
			// Kept, a change that moves nothing (HEAD rewritten as it was,
			// packed-refs repacked) makes no new analysis to retake it, and
			// would be reported, and git asked, at every sweep after.
			s.meta[p] = racyAfter(now, mt, began)
		}
	}
	s.last = time.Now()
	s.cost = s.last.Sub(began)
	s.e.stats.sweeps.Add(1)
}

// track takes the fingerprints of the directories and git files of a new
// analysis. A directory changed after the analysis began may have gained
// a file the analysis did not list, so it stays racy (checked again).
func (s *sweeper) track(st *state) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.st = st
	// The analysis took every file's fingerprint: it counts as a sweep.
	s.last = time.Now()
	// The directories are listed again when the files' set changed; their
	// fingerprints are taken again after every analysis (the one that
	// consumed a directory's change must not see it again).
	if s.dirList == nil || st.setChanged || st.rulesChanged {
		paths := make([]string, len(st.facts.Files))
		for i := range st.facts.Files {
			paths[i] = st.facts.Files[i].Path
		}
		dirs, err := scan.WatchDirs(context.Background(), s.root, paths)
		if err != nil {
			dirs = st.dirs()
		}
		s.dirList = dirs
	}
	s.dirs = make(map[string]fingerprint, len(s.dirList))
	for _, d := range s.dirList {
		if info, err := os.Lstat(s.abs(d)); err == nil {
			s.dirs[d] = racyAfter(fingerprintOf(info, time.Now()), info.ModTime(), st.began)
		}
	}
	s.meta = map[string]fingerprint{}
	if s.repo != nil {
		metas := []string{filepath.Join(s.repo.GitDir, "HEAD"), filepath.Join(s.repo.GitDir, "index"),
			filepath.Join(s.repo.CommonDir, "packed-refs"), filepath.Join(s.repo.CommonDir, "info", "exclude")}
		if head, err := fsroot.Read(nil, filepath.Join(s.repo.GitDir, "HEAD"), 64<<10); err == nil {
			if ref, ok := strings.CutPrefix(strings.TrimSpace(string(head)), "ref: "); ok {
				metas = append(metas, filepath.Join(s.repo.CommonDir, filepath.FromSlash(ref)))
			}
		}
		for _, p := range metas {
			fp, mt := metaFingerprint(p, time.Now())
			s.meta[p] = racyAfter(fp, mt, st.began)
		}
	}
}

// racyAfter marks a fingerprint racy when its file changed after t.
func racyAfter(fp fingerprint, mtime, t time.Time) fingerprint {
	if !mtime.IsZero() && !mtime.Before(t.Add(-racyWindow)) {
		fp.Racy = true
	}
	return fp
}

func metaFingerprint(p string, now time.Time) (fingerprint, time.Time) {
	info, err := os.Lstat(p)
	if err != nil {
		return fingerprint{}, time.Time{}
	}
	fp := fingerprintOf(info, now)
	fp.Racy = false
	return fp, info.ModTime()
}

func (s *sweeper) abs(d string) string { return filepath.Join(s.root, filepath.FromSlash(d)) }

func (s *sweeper) failed() error { return nil }

func (s *sweeper) mode() string {
	switch iv := s.e.opts.SweepInterval; {
	case iv < 0:
		return "stat sweep on every call"
	case iv > 0:
		return fmt.Sprintf("stat sweep at most every %v", iv)
	}
	return "stat sweep at most every 100ms or ten times its cost"
}

func (s *sweeper) close() {}

var _ detector = (*sweeper)(nil)
