package repo

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/kontext-dev/kontext/internal/fswatch"
	"github.com/kontext-dev/kontext/internal/git"
	"github.com/kontext-dev/kontext/internal/repo/scan"
)

// watcher detects changes with fsnotify (inotify on Linux). inotify
// watches one directory at a time, so it watches every directory of the
// listing (and the untracked ones, where new files appear), adds the
// directories that are created, and watches git's own files to see commits,
// checkouts and index changes.
//
// Events are asynchronous: a file written just before a call may not have
// been delivered yet. sync closes that gap with a barrier: it creates a
// file in a private watched directory and waits for that file's event.
// inotify delivers one instance's events in order, so every event of a
// change completed before the barrier has been handled when the barrier's
// arrives.
//
// The fsnotify watcher is shared (fswatch) with the knowledge store's
// watch of the same tree: one inotify instance per tree and process.
type watcher struct {
	root      string
	w         *fswatch.Watcher
	barrier   string // the private directory of the barrier files
	gitDir    string // "" outside git
	commonDir string
	log       *slog.Logger

	pendingChanges                 // its mu guards the fields below too
	watched        map[string]bool // absolute directories
	// created are the directories made since the last analysis (relative):
	// the next track stops watching the ignored ones among them.
	created []string
	// ignored are directories no longer watched because they are ignored
	// (absolute): events still queued for them are dropped.
	ignored map[string]bool
	waiters map[uint64]chan struct{}
	err     error
	seq     atomic.Uint64
	done    chan struct{}
}

// newWatcher starts watching git's files; watch adds the tree's directories.
func newWatcher(root string, repo *git.Repo, log *slog.Logger) (*watcher, error) {
	fw, err := fswatch.Open(root)
	if err != nil {
		return nil, err
	}
	barrier, err := barrierDir()
	if err != nil {
		fw.Close()
		return nil, err
	}
	w := &watcher{root: root, w: fw, barrier: barrier, log: log, watched: map[string]bool{}, ignored: map[string]bool{},
		waiters: map[uint64]chan struct{}{}, done: make(chan struct{})}
	fail := func(err error) (*watcher, error) {
		fw.Close()
		os.RemoveAll(barrier)
		return nil, err
	}
	if err := fw.Add(barrier); err != nil {
		return fail(err)
	}
	if repo != nil {
		w.gitDir, w.commonDir = repo.GitDir, repo.CommonDir
		// HEAD and index live in the worktree's git directory; refs and
		// packed-refs in the common one (the same directory outside linked
		// worktrees).
		metaDirs := []string{w.gitDir, w.commonDir, filepath.Join(w.commonDir, "info")}
		heads := filepath.Join(w.commonDir, "refs", "heads")
		filepath.WalkDir(heads, func(p string, d os.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				metaDirs = append(metaDirs, p)
			}
			return nil
		})
		for _, d := range metaDirs {
			if err := w.add(d); err != nil && !errors.Is(err, os.ErrNotExist) {
				return fail(err)
			}
		}
	}
	go w.loop()
	return w, nil
}

// barrierDir makes the private directory of the barrier files on a memory
// filesystem when there is one (a file created and removed there costs
// microseconds; on a disk's /tmp it can cost hundreds), else in the
// temporary directory. Its name carries the process id, so that the
// directories of processes that died without closing their engine are
// removed by the next one.
func barrierDir() (string, error) {
	pattern := "kontext-watch-" + strconv.Itoa(os.Getpid()) + "-"
	for _, parent := range []string{os.Getenv("XDG_RUNTIME_DIR"), "/dev/shm", os.TempDir()} {
		if parent == "" {
			continue
		}
		removeStaleBarriers(parent)
		if d, err := os.MkdirTemp(parent, pattern); err == nil {
			return d, nil
		}
	}
	return "", errors.New("no directory for the watcher's barrier files")
}

func removeStaleBarriers(parent string) {
	entries, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), "kontext-watch-")
		if !ok || !e.IsDir() {
			continue
		}
		pidText, _, _ := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if err != nil || pid <= 0 {
			continue
		}
		if !processAlive(pid) {
			os.RemoveAll(filepath.Join(parent, e.Name()))
		}
	}
}

// maxWatchesForTest, when set, is where the watcher runs out of watches
// (tests cannot lower the system's inotify limits).
var maxWatchesForTest int

func (w *watcher) add(abs string) error {
	w.mu.Lock()
	seen, n := w.watched[abs], len(w.watched)
	w.mu.Unlock()
	if seen {
		return nil
	}
	if maxWatchesForTest > 0 && n >= maxWatchesForTest {
		return syscall.ENOSPC
	}
	if err := w.w.Add(abs); err != nil {
		return err
	}
	w.mu.Lock()
	w.watched[abs] = true
	w.mu.Unlock()
	return nil
}

// watch adds the tree's directories (relative to the root). Running out
// of watches is an error: the engine then sweeps instead.
func (w *watcher) watch(dirs []string) error {
	for _, d := range dirs {
		err := w.add(filepath.Join(w.root, filepath.FromSlash(d)))
		switch {
		case err == nil:
		case errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
			// Gone since the listing: the next analysis hears of it.
			w.mu.Lock()
			w.ch.add(d)
			w.mu.Unlock()
		case errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EMFILE):
			return fmt.Errorf("cannot watch %d directories (inotify limits: fs.inotify.max_user_watches, max_user_instances): %w", len(dirs), err)
		default:
			return fmt.Errorf("watching %s: %w", d, err)
		}
	}
	return nil
}

func (w *watcher) loop() {
	defer close(w.done)
	for {
		select {
		case ev, ok := <-w.w.Events:
			if !ok {
				return
			}
			w.handle(ev)
		case err, ok := <-w.w.Errors:
			if !ok {
				return
			}
			w.mu.Lock()
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				// Events were lost: check everything at the next call.
				w.ch.all, w.ch.relist, w.ch.head = true, true, true
			} else if w.err == nil {
				w.err = err
			}
			w.mu.Unlock()
		}
	}
}

func (w *watcher) handle(ev fsnotify.Event) {
	name := ev.Name
	if dir, base := filepath.Split(name); filepath.Clean(dir) == w.barrier {
		if ev.Has(fsnotify.Create) && strings.HasPrefix(base, "b") {
			if n, err := strconv.ParseUint(base[1:], 10, 64); err == nil {
				w.mu.Lock()
				if c := w.waiters[n]; c != nil {
					close(c)
					delete(w.waiters, n)
				}
				w.mu.Unlock()
			}
		}
		return
	}
	if w.gitDir != "" && (within(w.gitDir, name) || within(w.commonDir, name)) {
		w.handleGit(ev)
		return
	}
	rel, ok := relative(w.root, name)
	if !ok || rel == "" || skippedDir(rel) || w.inIgnored(name) {
		return
	}
	if ev.Has(fsnotify.Create) {
		if info, err := os.Lstat(name); err == nil && info.IsDir() {
			// Watch the new directory and whatever was made inside it
			// before the watch existed (mkdir -p, an unpacked archive);
			// the update re-lists the tree, which finds their files.
			w.watchNew(name)
		}
	}
	w.mu.Lock()
	w.ch.add(rel)
	if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
		delete(w.watched, name) // inotify dropped the watch with the directory
	}
	w.mu.Unlock()
}

func (w *watcher) watchNew(dir string) {
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		if p != dir && skippedName(d.Name()) {
			return filepath.SkipDir
		}
		if rel, ok := relative(w.root, p); ok && rel != "" {
			w.mu.Lock()
			w.created = append(w.created, rel)
			w.mu.Unlock()
		}
		if err := w.add(p); err != nil {
			if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EMFILE) {
				w.mu.Lock()
				if w.err == nil {
					w.err = fmt.Errorf("out of inotify watches: %w", err)
				}
				w.mu.Unlock()
				return filepath.SkipAll
			}
		}
		return nil
	})
}

// handleGit classifies an event in git's directories: HEAD and refs move
// with commits and checkouts; the index changes what the listing holds;
// info/exclude is an ignore file.
func (w *watcher) handleGit(ev fsnotify.Event) {
	name := ev.Name
	var ch changes
	watchDir := false
	switch {
	case name == filepath.Join(w.gitDir, "HEAD"), name == filepath.Join(w.commonDir, "packed-refs"):
		ch.head = true
	case name == filepath.Join(w.gitDir, "index"):
		ch.relist, ch.head = true, true
	case name == filepath.Join(w.commonDir, "info", "exclude"):
		ch.relist = true
	case name == filepath.Join(w.commonDir, "info"):
		ch.relist, watchDir = true, ev.Has(fsnotify.Create)
	case within(filepath.Join(w.commonDir, "refs"), name):
		// A branch moved or appeared; a new directory is a branch
		// namespace (feature/…) to watch.
		ch.head, watchDir = true, ev.Has(fsnotify.Create)
	default:
		return
	}
	if watchDir {
		if info, err := os.Lstat(name); err == nil && info.IsDir() {
			w.watchNew(name)
		}
	}
	w.mu.Lock()
	w.ch.merge(ch)
	w.mu.Unlock()
}

// sync waits until every change completed before the call has been seen.
func (w *watcher) sync(ctx context.Context) {
	n := w.seq.Add(1)
	c := make(chan struct{})
	w.mu.Lock()
	if w.err != nil {
		w.mu.Unlock()
		return
	}
	w.waiters[n] = c
	w.mu.Unlock()
	name := filepath.Join(w.barrier, "b"+strconv.FormatUint(n, 10))
	f, err := os.OpenFile(name, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err == nil {
		f.Close()
		t := time.NewTimer(5 * time.Second)
		select {
		case <-c:
		case <-ctx.Done():
		case <-t.C:
			err = errors.New("a barrier event did not arrive")
		}
		t.Stop()
		os.Remove(name)
	}
	w.mu.Lock()
	delete(w.waiters, n)
	if err != nil && w.err == nil {
		w.err = err
	}
	w.mu.Unlock()
}

// track follows a new analysis: it watches the directories of newly
// listed files not watched yet (created while unwatched, or no longer
// ignored),
// and stops watching the directories created since the last one that are
// ignored (build output, caches), whose churn would only be noise. When
// the ignore rules changed, every directory is judged again.
func (w *watcher) track(st *state) {
	w.mu.Lock()
	created := w.created
	w.created = nil
	if st.rulesChanged {
		w.ignored = map[string]bool{}
	}
	var missing []string
	seen := map[string]bool{}
	for _, p := range st.added {
		for d := path.Dir(p); !seen[d]; d = path.Dir(d) {
			seen[d] = true
			if d == "." {
				d = ""
			}
			if !w.watched[filepath.Join(w.root, filepath.FromSlash(d))] {
				missing = append(missing, d)
			}
			if d == "" {
				break
			}
		}
	}
	w.mu.Unlock()
	if err := w.watch(missing); err != nil {
		w.setErr(err)
		return
	}
	var candidates []string
	for _, d := range created {
		if !st.hasUnder(d) {
			candidates = append(candidates, d)
		}
	}
	if len(candidates) == 0 {
		return
	}
	ignored, err := scan.IgnoredDirs(context.Background(), w.root, candidates)
	if err != nil {
		return // they stay watched: noisy, not wrong
	}
	for _, d := range ignored {
		if st.hasUnder(d) {
			continue // git lists tracked files inside ignored directories
		}
		abs := filepath.Join(w.root, filepath.FromSlash(d))
		w.mu.Lock()
		w.ignored[abs] = true
		var drop []string
		for p := range w.watched {
			if within(abs, p) {
				drop = append(drop, p)
				delete(w.watched, p)
			}
		}
		w.mu.Unlock()
		for _, p := range drop {
			w.w.Remove(p)
		}
	}
}

// inIgnored reports whether an event's path is in a directory dropped as
// ignored.
func (w *watcher) inIgnored(name string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.ignored) == 0 {
		return false
	}
	for p := name; ; {
		if w.ignored[p] {
			return true
		}
		parent := filepath.Dir(p)
		if parent == p || len(parent) < len(w.root) {
			return false
		}
		p = parent
	}
}

func (w *watcher) setErr(err error) {
	w.mu.Lock()
	if w.err == nil {
		w.err = err
	}
	w.mu.Unlock()
}

func (w *watcher) failed() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

func (w *watcher) mode() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return fmt.Sprintf("fsnotify, %d directories", len(w.watched))
}

func (w *watcher) close() {
	w.w.Close()
	<-w.done
	os.RemoveAll(w.barrier)
}

// within reports whether p is dir or below it.
func within(dir, p string) bool {
	return p == dir || strings.HasPrefix(p, dir+string(filepath.Separator))
}

// relative is p relative to root, with slashes.
func relative(root, p string) (string, bool) {
	if p == root {
		return "", true
	}
	if !strings.HasPrefix(p, root+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(p[len(root)+1:]), true
}

// skippedDir reports a path inside (or naming) a directory the listing
// never enters.
func skippedDir(rel string) bool {
	for _, part := range strings.Split(rel, "/") {
		if skippedName(part) {
			return true
		}
	}
	return false
}

func skippedName(name string) bool {
	switch name {
	case ".git", ".hg", ".svn", "node_modules":
		return true
	}
	return false
}

var _ detector = (*watcher)(nil)

// newDetector starts the change detection of the root, given the listing
// it starts from: a watcher on every directory that matters, or, when
// watching is off or impossible, a sweep. The log line says which.
func (rs *rootState) newDetector(ctx context.Context, listed []string) (detector, error) {
	e := rs.e
	if e.opts.Detect == DetectSweep {
		sw := newSweeper(e, rs.root, rs.repo)
		e.log.Debug("repo engine: detecting changes", "root", rs.root, "mode", sw.mode())
		return sw, nil
	}
	w, err := newWatcher(rs.root, rs.repo, e.log)
	if err == nil {
		var dirs []string
		if dirs, err = scan.WatchDirs(ctx, rs.root, listed); err == nil {
			err = w.watch(dirs)
		} else if ctx.Err() != nil {
			w.close()
			return nil, ctx.Err()
		}
		if err != nil {
			w.close()
		}
	}
	if err != nil {
		sw := newSweeper(e, rs.root, rs.repo)
		e.log.Warn("repo engine: cannot watch the tree; sweeping file metadata instead", "root", rs.root, "err", err, "mode", sw.mode())
		return sw, nil
	}
	e.log.Debug("repo engine: detecting changes", "root", rs.root, "mode", w.mode())
	return w, nil
}
