package repo

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"sync"
	"time"

	"github.com/kontext-dev/kontext/internal/fsroot"
	"github.com/kontext-dev/kontext/internal/git"
	"github.com/kontext-dev/kontext/internal/repo/analyze"
	"github.com/kontext-dev/kontext/internal/repo/model"
	"github.com/kontext-dev/kontext/internal/repo/scan"
	"github.com/kontext-dev/kontext/internal/secrets"
)

// historyMaxAge is how old a history may get before an update re-reads it
// although HEAD did not move: its recent-change window is measured from
// when it was read.
const historyMaxAge = 24 * time.Hour

// first analyses the root for the first time in this process: from the
// persistent cache when it holds an analysis of the root, else from
// scratch. It also starts the change detector, before any file is read.
func (rs *rootState) first(ctx context.Context, p *progress) (*state, detector, error) {
	e := rs.e
	began := time.Now()
	repo, err := git.Open(ctx, rs.root)
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		if !errors.Is(err, git.ErrNotRepository) {
			e.log.Warn("repo engine: git is unusable here; analysing without history", "root", rs.root, "err", err)
		}
		repo = nil
	}
	files, err := os.OpenRoot(rs.root)
	if err != nil {
		if repo != nil {
			repo.Close()
		}
		return nil, nil, err
	}
	common := ""
	if repo != nil {
		common = repo.CommonDir
	}
	dir := cacheLocation(e.opts, rs.root, common)
	rs.mu.Lock()
	// A previous first analysis that failed left these behind.
	if rs.repo != nil {
		rs.repo.Close()
	}
	if rs.files != nil {
		rs.files.Close()
	}
	rs.repo, rs.files = repo, files
	if rs.save == nil {
		rs.save = &saver{dir: dir, key: e.cacheKey, root: rs.root, onError: func(err error) {
			e.log.Warn("repo engine: cannot write the analysis cache", "root", rs.root, "dir", dir, "err", err)
		}}
	}
	rs.mu.Unlock()

	if dir != "" {
		cached, saved, err := loadCache(dir, e.cacheKey, rs.root)
		switch {
		case err == nil:
			st, det, err := rs.fromCache(ctx, cached, p)
			if err == nil {
				st.snap.Took = time.Since(began)
				e.log.Debug("repo engine: warm start from the persistent cache", "root", rs.root, "saved", saved, "took", st.snap.Took)
			}
			return st, det, err
		case !errors.Is(err, errNoCache):
			e.log.Warn("repo engine: ignoring an unreadable analysis cache", "root", rs.root, "err", err)
		}
	}
	return rs.cold(ctx, p)
}

// fromCache brings a cached analysis up to date: every file's fingerprint
// is checked, the tree re-listed and HEAD compared, and only what differs
// is re-analysed.
func (rs *rootState) fromCache(ctx context.Context, cached *state, p *progress) (*state, detector, error) {
	paths := make([]string, len(cached.facts.Files))
	for i := range cached.facts.Files {
		paths[i] = cached.facts.Files[i].Path
	}
	// Watch first: a change made while the cache is checked is then seen.
	det, err := rs.newDetector(ctx, paths)
	if err != nil {
		return nil, nil, err
	}
	p.report(pctListing, "checking the cached analysis")
	st, err := rs.update(ctx, cached, changes{all: true, relist: true, head: true}, p)
	if err != nil {
		det.close()
		return nil, nil, err
	}
	rs.e.stats.cacheLoads.Add(1)
	return st, det, nil
}

// cold analyses the root from scratch.
func (rs *rootState) cold(ctx context.Context, p *progress) (*state, detector, error) {
	e := rs.e
	began := time.Now()
	aopts := e.opts.Analyze

	// History needs nothing from the scan, and git log is another process:
	// it runs beside the scan.
	var hist *analyze.History
	var histErr error
	histDone := make(chan struct{})
	if rs.repo != nil {
		go func() {
			defer close(histDone)
			hist, histErr = analyze.ReadHistory(ctx, rs.repo, aopts)
		}()
	} else {
		close(histDone)
	}

	fps := newFingerprints()
	var det detector
	var detErr error
	sopts := e.opts.Scan
	sopts.Hooks = &scan.Hooks{
		Progress: scanProgress(p),
		Listed:   func(paths []string) { det, detErr = rs.newDetector(ctx, paths) },
		Stat:     fps.record,
	}
	fail := func(err error) (*state, detector, error) {
		<-histDone
		if det != nil {
			det.close()
		}
		return nil, nil, err
	}
	facts, err := scan.Scan(ctx, rs.root, sopts)
	if err == nil {
		err = detErr
	}
	if err != nil {
		return fail(err)
	}
	e.stats.fullScans.Add(1)
	e.stats.filesParsed.Add(int64(len(facts.Files)))

	aopts.Progress = observeProgress(p)
	obs, err := analyze.Observe(ctx, facts, rs.source(), aopts)
	if err != nil {
		return fail(err)
	}
	if rs.repo != nil {
		p.report(pctHistory, "reading git history")
	}
	<-histDone
	if histErr != nil {
		return fail(histErr)
	}
	g := analysable(facts)
	rs.content.reset()
	if err := rs.heuristics(ctx, g, obs, hist, p); err != nil {
		return fail(err)
	}
	st := &state{facts: facts, obs: obs, hist: hist, histRead: began, fps: fps.aligned(facts, nil), began: began}
	st.snap = rs.snapshot(g, hist, time.Since(began), false)
	return st, det, nil
}

// update re-analyses what changed since prev. It returns prev itself when
// nothing did.
func (rs *rootState) update(ctx context.Context, prev *state, ch changes, p *progress) (*state, error) {
	e := rs.e
	began := time.Now()

	// Which of the paths the detector named really changed: events also
	// come from metadata-only touches, editors' temporary files and
	// ignored files.
	if ch.all {
		for _, f := range statAll(rs.root, prev) {
			ch.add(f)
		}
	}
	var paths []string
	relisting := ch.relist
	for pth := range ch.paths {
		if rs.changed(prev, pth, began) {
			paths = append(paths, pth)
			if b := path.Base(pth); b == ".gitignore" {
				relisting = true
			}
		}
	}
	rs.content.forget(paths)
	head := prev.facts.Head
	if ch.head && rs.repo != nil {
		h, err := rs.repo.Head(ctx)
		if err != nil {
			return nil, err
		}
		head = h
	}
	histStale := prev.hist != nil && began.Sub(prev.histRead) > historyMaxAge
	if len(paths) == 0 && !ch.relist && head == prev.facts.Head && prev.snap != nil && !histStale {
		return prev, nil
	}
	p.report(10, fmt.Sprintf("updating %d changed paths", len(paths)))

	// The facts: scan.Update re-reads the changed files (prev.facts itself
	// when none of them changes what the graph holds).
	fps := newFingerprints()
	facts := prev.facts
	if len(paths) > 0 || ch.relist || head != prev.facts.Head {
		sopts := e.opts.Scan
		sopts.Hooks = &scan.Hooks{Stat: fps.record}
		arg := paths
		if ch.relist {
			arg = append(arg[:len(arg):len(arg)], ".")
		}
		var err error
		if facts, err = scan.Update(ctx, prev.facts, arg, sopts); err != nil {
			return nil, err
		}
		e.stats.filesParsed.Add(int64(fps.len()))
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	// The observations of the files whose content changed, of the files
	// that are gone, and of those whose imports now resolve differently.
	d := diffFiles(prev.facts, facts, paths)
	obs := prev.obs
	if len(d.reobserve) > 0 {
		obs = prev.obs.Clone()
		if err := obs.Update(ctx, facts, rs.source(), e.opts.Analyze, d.reobserve); err != nil {
			return nil, err
		}
	}

	hist, histRead := prev.hist, prev.histRead
	histChanged := false
	if rs.repo != nil && (hist == nil || hist.Head != facts.Head || histStale) {
		p.report(40, "reading git history")
		var err error
		if hist, err = analyze.ReadHistory(ctx, rs.repo, e.opts.Analyze); err != nil {
			return nil, err
		}
		histChanged, histRead = true, time.Now()
	}

	st := &state{facts: facts, obs: obs, hist: hist, histRead: histRead, fps: fps.aligned(facts, prev), ignored: prev.ignored, began: began,
		added: d.added, setChanged: len(d.added) > 0 || d.removed}
	if relisting {
		st.ignored, st.rulesChanged = nil, true // the ignore rules changed
	}
	copied := false
	for _, pth := range paths {
		if _, listed := st.index(pth); listed {
			continue
		}
		if info, err := os.Lstat(rs.abs(pth)); err == nil && info.Mode().IsRegular() {
			if !copied {
				st.ignored, copied = copyMap(st.ignored), true
			}
			st.ignored[pth] = true
		}
	}

	// The heuristics are whole-graph steps over what is in memory; they
	// are skipped only when no input changed (a file saved as it was, an
	// edit that changed neither the facts nor the observations).
	if prev.snap != nil && facts == prev.facts && !histChanged && !d.observationsChanged(prev.obs, obs) {
		st.snap = prev.snap
		return st, nil
	}
	p.report(60, "roles, cycles, conventions, decisions")
	g := analysable(facts)
	if err := rs.heuristics(ctx, g, obs, hist, nil); err != nil {
		return nil, err
	}
	st.snap = rs.snapshot(g, hist, time.Since(began), true)
	e.stats.updates.Add(1)
	return st, nil
}

// heuristics runs the analyze steps that work from memory on g.
func (rs *rootState) heuristics(ctx context.Context, g *model.Graph, obs *analyze.Observations, hist *analyze.History, p *progress) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	p.report(pctRoles, "entry points, roles, cycles, conventions, decisions")
	read := rs.source()
	analyze.Heuristics(g, obs, func(p string) ([]byte, error) { return rs.content.get(p, read) }, hist)
	return ctx.Err()
}

func (rs *rootState) snapshot(g *model.Graph, hist *analyze.History, took time.Duration, incremental bool) *Snapshot {
	return &Snapshot{Root: rs.root, Graph: g, History: hist, Git: rs.repo, At: time.Now(), Took: took, Incremental: incremental}
}

// source reads files for the heuristics, whose excerpts (decisions,
// conventions) tools show: never a secret file by its name or by its
// content, never through a symlink out of the root, never anything but a
// regular file of at most fsroot.MaxFileBytes.
func (rs *rootState) source() analyze.Source {
	files := rs.files
	return func(p string) ([]byte, error) {
		if secrets.IsSecretFile(p) {
			return nil, fs.ErrPermission
		}
		data, err := fsroot.Read(files, filepath.FromSlash(p), fsroot.MaxFileBytes)
		if err == nil && secrets.SecretContent(p, data) != "" {
			return nil, fs.ErrPermission
		}
		return data, err
	}
}

func (rs *rootState) abs(p string) string { return filepath.Join(rs.root, filepath.FromSlash(p)) }

// changed reports whether a path a detector named may change the analysis.
func (rs *rootState) changed(prev *state, p string, now time.Time) bool {
	info, err := os.Lstat(rs.abs(p))
	if i, listed := prev.index(p); listed {
		return err != nil || info.IsDir() || !prev.fps[i].same(fingerprintOf(info, now))
	}
	if err != nil {
		// Gone: it matters only if it was a directory of listed files
		// (not an editor's temporary file).
		return prev.hasUnder(p)
	}
	if info.IsDir() {
		return true // a new directory: the listing may grow
	}
	return !prev.ignored[p]
}

// fileDiff is how two graphs' files differ, for the observations.
type fileDiff struct {
	reobserve []string
	// content are the re-read paths still listed: their observations may
	// differ although the facts do not.
	content []string
	// added are the paths listed now and not before; removed says some
	// path is gone.
	added   []string
	removed bool
}

// diffFiles compares prev's and next's files (both sorted by path).
// changed are the paths whose content was re-read.
func diffFiles(prev, next *model.Graph, changed []string) fileDiff {
	var d fileDiff
	seen := map[string]bool{}
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			d.reobserve = append(d.reobserve, p)
		}
	}
	for _, p := range changed {
		add(p)
		if _, ok := fileIndex(func(k int) string { return next.Files[k].Path }, len(next.Files), p); ok {
			d.content = append(d.content, p)
		}
	}
	if prev == next {
		return d
	}
	a, b := prev.Files, next.Files
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || i < len(a) && a[i].Path < b[j].Path:
			add(a[i].Path) // gone
			d.removed = true
			i++
		case i == len(a) || b[j].Path < a[i].Path:
			add(b[j].Path) // new
			d.added = append(d.added, b[j].Path)
			j++
		default:
			if !sameResolution(&a[i], &b[j]) {
				add(b[j].Path)
			}
			i++
			j++
		}
	}
	return d
}

// sameResolution reports whether a file's imports resolve as before; with
// its content, that is all an observation depends on.
func sameResolution(a, b *model.File) bool {
	if len(a.Imports) != len(b.Imports) {
		return false
	}
	for k := range a.Imports {
		if a.Imports[k].Kind != b.Imports[k].Kind || a.Imports[k].Spec != b.Imports[k].Spec || a.Imports[k].Line != b.Imports[k].Line {
			return false
		}
	}
	return true
}

// observationsChanged reports whether the re-read files show anything new
// to the heuristics. A listed file without an observation is not source
// code (markdown, configuration): the heuristics read those directly, so
// its change always counts.
func (d fileDiff) observationsChanged(before, after *analyze.Observations) bool {
	for _, p := range d.content {
		a, b := before.File(p), after.File(p)
		if a == nil || b == nil || !reflect.DeepEqual(a, b) {
			return true
		}
	}
	for _, p := range d.reobserve {
		if !reflect.DeepEqual(before.File(p), after.File(p)) {
			return true
		}
	}
	return false
}

// fingerprints collects the fingerprints a scan's Stat hook reports.
type fingerprints struct {
	mu sync.Mutex
	m  map[string]fingerprint
}

func newFingerprints() *fingerprints { return &fingerprints{m: map[string]fingerprint{}} }

func (f *fingerprints) record(p string, info fs.FileInfo) {
	fp := fingerprintOf(info, time.Now())
	f.mu.Lock()
	f.m[p] = fp
	f.mu.Unlock()
}

func (f *fingerprints) len() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.m)
}

// aligned returns the fingerprints of g's files, index for index: the
// recorded ones, else prev's. A file with neither is marked racy, so it
// is re-read rather than trusted.
func (f *fingerprints) aligned(g *model.Graph, prev *state) []fingerprint {
	out := make([]fingerprint, len(g.Files))
	f.mu.Lock()
	defer f.mu.Unlock()
	// Both file lists are sorted: one walk pairs them.
	var old []model.File
	if prev != nil {
		old = prev.facts.Files
	}
	j := 0
	for i := range g.Files {
		p := g.Files[i].Path
		if fp, ok := f.m[p]; ok {
			out[i] = fp
			continue
		}
		for j < len(old) && old[j].Path < p {
			j++
		}
		if j < len(old) && old[j].Path == p {
			out[i] = prev.fps[j]
			continue
		}
		out[i] = fingerprint{Racy: true}
	}
	return out
}

// statAll returns the listed files whose metadata no longer matches their
// fingerprint (or that are gone).
func statAll(root string, st *state) []string {
	var out []string
	for i := range st.facts.Files {
		p := st.facts.Files[i].Path
		info, err := os.Lstat(filepath.Join(root, filepath.FromSlash(p)))
		if err != nil || !st.fps[i].same(fingerprintOf(info, time.Now())) {
			out = append(out, p)
		}
	}
	return out
}

func copyMap(m map[string]bool) map[string]bool {
	out := make(map[string]bool, len(m)+1)
	for k, v := range m {
		out[k] = v
	}
	return out
}
