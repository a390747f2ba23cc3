package repo

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/kontext-dev/kontext/internal/atomicfile"
	"github.com/kontext-dev/kontext/internal/fsroot"
	"github.com/kontext-dev/kontext/internal/repo/analyze"
	"github.com/kontext-dev/kontext/internal/repo/model"
)

// The persistent cache is what makes a restarted server warm: the scan's
// facts, the per-file observations, the history and every file's
// fingerprint, in one gob file written atomically after an analysis
// completes. It lives under <git common dir>/kontext/repo/<hash of root>/
// (never committed, shared by the worktrees, one per analysed root).
// Outside a git work tree there is none unless Options.CacheDir says where.
//
// Its first value is a header: a version and a key that covers the options
// shaping the results and the kontext binary itself, so an upgraded or
// differently configured kontext starts cold rather than trusting another
// one's analysis.
const (
	cacheVersion = 1
	cacheFile    = "analysis.gob"
)

type cacheHeader struct {
	Version int
	Key     string
	Root    string
	Saved   time.Time
	Files   int
}

type cachePayload struct {
	Facts    *model.Graph
	History  *analyze.History
	HistRead time.Time
	Obs      []cachedObservation
	Fps      []fingerprint
}

type cachedObservation struct {
	Path string
	Obs  *analyze.FileObservation
}

// cacheEmpty carries the payload's empty-slice record (see emptySlices).
type cacheEmpty struct {
	Bits []uint64
	N    int
}

// cacheLocation is the directory of root's cache, "" for none. commonDir
// is git's common directory, "" outside a work tree.
func cacheLocation(opts Options, root, commonDir string) string {
	if opts.NoCache {
		return ""
	}
	sum := sha256.Sum256([]byte(root))
	id := hex.EncodeToString(sum[:8])
	switch {
	case opts.CacheDir != "":
		return filepath.Join(opts.CacheDir, id)
	case commonDir != "":
		return filepath.Join(commonDir, "kontext", "repo", id)
	}
	return ""
}

// cacheKey identifies what produced an analysis: the options that shape
// it and the executable (size and time: a rebuilt kontext may compute
// differently).
func cacheKey(opts Options) string {
	h := sha256.New()
	s, a := opts.Scan, opts.Analyze
	fmt.Fprintf(h, "v%d model%d scan %d %d %q %d analyze %d %d %d %d\n", cacheVersion, model.SchemaVersion,
		s.MaxFileSize, s.ModuleDepth, s.SourceRoots, s.MinModuleFiles, a.WindowDays, a.MaxCommits, a.RecentDays, a.MaxFileBytes)
	if exe, err := os.Executable(); err == nil {
		if info, err := os.Stat(exe); err == nil {
			fmt.Fprintf(h, "%s %d %d\n", exe, info.Size(), info.ModTime().UnixNano())
		}
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
}

// saveCache writes st for root under dir, atomically.
func saveCache(dir, key, root string, st *state) error {
	obs := st.obs.All()
	p := cachePayload{Facts: st.facts, History: st.hist, HistRead: st.histRead, Fps: st.fps, Obs: make([]cachedObservation, 0, len(obs))}
	for path, o := range obs {
		p.Obs = append(p.Obs, cachedObservation{path, o})
	}
	sort.Slice(p.Obs, func(i, j int) bool { return p.Obs[i].Path < p.Obs[j].Path })
	empty := emptySlices(&p)
	var buf bytes.Buffer
	enc := gob.NewEncoder(&buf)
	hdr := cacheHeader{Version: cacheVersion, Key: key, Root: root, Saved: time.Now(), Files: len(st.facts.Files)}
	for _, v := range []any{hdr, cacheEmpty{empty.bits, empty.n}, &p} {
		if err := enc.Encode(v); err != nil {
			return err
		}
	}
	return atomicfile.Write(filepath.Join(dir, cacheFile), buf.Bytes(), 0o644)
}

// maxCacheBytes bounds the cache read back: the analysis of a
// Kubernetes-sized tree is a few tens of MiB, so anything near this is not
// a cache kontext wrote.
const maxCacheBytes = 1 << 30

// errNoCache says there is no usable cache (none yet, another version,
// another configuration, another root): the analysis starts cold.
var errNoCache = errors.New("no usable cache")

// loadCache reads root's cache; the state it returns has no snapshot yet.
func loadCache(dir, key, root string) (*state, time.Time, error) {
	f, info, err := fsroot.OpenRegular(nil, filepath.Join(dir, cacheFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, time.Time{}, errNoCache
	}
	if err != nil {
		return nil, time.Time{}, err
	}
	defer f.Close()
	if info.Size() > maxCacheBytes {
		return nil, time.Time{}, fmt.Errorf("%w: %w", errNoCache, &fsroot.TooLargeError{Path: f.Name(), Size: info.Size(), Limit: maxCacheBytes})
	}
	dec := gob.NewDecoder(bufio.NewReaderSize(io.LimitReader(f, maxCacheBytes), 1<<20))
	var hdr cacheHeader
	if err := dec.Decode(&hdr); err != nil {
		return nil, time.Time{}, fmt.Errorf("%w: %v", errNoCache, err)
	}
	if hdr.Version != cacheVersion || hdr.Key != key || hdr.Root != root {
		return nil, time.Time{}, errNoCache
	}
	var empty cacheEmpty
	var p cachePayload
	if err := dec.Decode(&empty); err != nil {
		return nil, time.Time{}, fmt.Errorf("%w: %v", errNoCache, err)
	}
	if err := dec.Decode(&p); err != nil {
		return nil, time.Time{}, fmt.Errorf("%w: %v", errNoCache, err)
	}
	if p.Facts == nil || len(p.Fps) != len(p.Facts.Files) {
		return nil, time.Time{}, fmt.Errorf("%w: inconsistent", errNoCache)
	}
	restoreEmpty(&p, emptyBits{bits: empty.Bits})
	obs := make(map[string]*analyze.FileObservation, len(p.Obs))
	for _, o := range p.Obs {
		obs[o.Path] = o.Obs
	}
	return &state{facts: p.Facts, hist: p.History, histRead: p.HistRead, obs: analyze.ObservationsOf(obs), fps: p.Fps}, hdr.Saved, nil
}

// saver writes a root's newest analysis off the request path: at once
// after a cold analysis, and after a quiet second following updates, so a
// burst of edits is one write.
type saver struct {
	dir, key, root string
	onError        func(error)

	mu      sync.Mutex
	latest  *state
	saved   *state
	timer   *time.Timer
	closed  bool
	writing sync.WaitGroup
	writeMu sync.Mutex // one write at a time: two writers of one file only waste work
}

const saveDelay = time.Second

func (s *saver) schedule(st *state, now bool) {
	if s == nil || s.dir == "" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	s.latest = st
	if s.timer != nil && s.timer.Stop() {
		s.writing.Done() // the stopped timer's write will not run
	}
	delay := saveDelay
	if now {
		delay = 0
	}
	s.writing.Add(1)
	s.timer = time.AfterFunc(delay, func() {
		defer s.writing.Done()
		s.flush()
	})
}

// flush writes the latest state unless it is written already.
func (s *saver) flush() {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	s.mu.Lock()
	st := s.latest
	s.mu.Unlock()
	if st == nil || st == s.saved {
		return
	}
	if err := saveCache(s.dir, s.key, s.root, st); err != nil {
		if s.onError != nil {
			s.onError(err)
		}
		return
	}
	s.saved = st
}

// close writes what is pending and stops.
func (s *saver) close() {
	if s == nil {
		return
	}
	s.mu.Lock()
	if s.timer != nil && s.timer.Stop() {
		s.writing.Done()
	}
	s.closed = true
	s.mu.Unlock()
	s.writing.Wait()
	s.flush()
}
