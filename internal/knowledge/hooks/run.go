// What kontext's git hooks do (`kontext hooks run <hook>`, called by the
// block Install writes):
//
//   - pre-commit checks the staged knowledge (validation and the secret
//     scan; errors block the commit), re-renders the store's index README
//     and stages it, and reminds about inbox candidates that touch the
//     staged files;
//   - prepare-commit-msg adds a Decision:/Convention:/Learning:/Incident:
//     trailer for each entry the commit introduces;
//   - post-commit, post-merge and post-rewrite forget promoted inbox
//     records whose entries HEAD now holds, and start the delivery of the
//     sync event to the adapters that subscribe to it (sync.go).
//
// A hook runs on every commit, so the common case (no knowledge staged)
// costs a few git processes and no scan of the repository; and a hook
// never fails because kontext itself failed: only problems in the staged
// knowledge block a commit.

package hooks

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/kontext-dev/kontext/internal/atomicfile"
	"github.com/kontext-dev/kontext/internal/fsroot"
	"github.com/kontext-dev/kontext/internal/git"
	"github.com/kontext-dev/kontext/internal/glob"
	"github.com/kontext-dev/kontext/internal/knowledge/check"
	"github.com/kontext-dev/kontext/internal/knowledge/config"
	"github.com/kontext-dev/kontext/internal/knowledge/local"
	"github.com/kontext-dev/kontext/internal/knowledge/store"
	"github.com/kontext-dev/kontext/internal/secrets"
)

// Blocked is the exit status of a hook that stops the commit. Every other
// outcome is 0: the hook block passes any other status through as success.
const Blocked = 1

// Options are the process's surroundings (tests replace them).
type Options struct {
	Stdout, Stderr io.Writer
	// Getenv reads KONTEXT_SKIP and the configuration's environment.
	Getenv func(string) string
	// StartSync, when set, starts delivering the sync event for the
	// entries rev changed relative to base ("": rev's first parent),
	// writing what happened to the log file, and must not wait for it
	// (kontext starts `kontext hooks sync`).
	StartSync func(base, rev, log string) error
}

// Skipped reports whether KONTEXT_SKIP asks to bypass the hooks (any value
// but "" and "0").
func Skipped(getenv func(string) string) bool {
	v := getenv("KONTEXT_SKIP")
	return v != "" && v != "0"
}

// Run runs one hook in the repository that contains dir (git runs hooks at
// the top of the work tree) and returns the hook's exit status.
func Run(ctx context.Context, dir, hook string, args []string, opts Options) int {
	if opts.Getenv == nil {
		opts.Getenv = os.Getenv
	}
	if opts.Stdout == nil {
		opts.Stdout = io.Discard
	}
	if opts.Stderr == nil {
		opts.Stderr = io.Discard
	}
	if Skipped(opts.Getenv) {
		return 0
	}
	repo, err := git.Open(ctx, dir)
	if err != nil {
		return 0 // not in a work tree (a bare repository's hook): nothing to check
	}
	defer repo.Close()
	r := &runner{repo: repo, opts: opts}
	switch hook {
	case "pre-commit":
		return r.preCommit(ctx)
	case "prepare-commit-msg":
		if len(args) == 0 {
			r.warn("prepare-commit-msg without the message file: no trailers added")
			return 0
		}
		r.prepareCommitMsg(ctx, args)
		return 0
	case "post-commit", "post-merge", "post-rewrite":
		if hook == "post-commit" {
			r.syncPartialReadme(ctx)
		}
		r.cleanPromoted(ctx)
		r.startSync(ctx, hook, args)
		return 0
	}
	r.warn("unknown hook %q (kontext runs pre-commit, prepare-commit-msg, post-commit, post-merge, post-rewrite)", hook)
	return 0
}

type runner struct {
	repo *git.Repo
	opts Options
	cfg  *config.Config
	st   *store.Store
}

func (r *runner) warn(format string, args ...any) {
	fmt.Fprintf(r.opts.Stderr, "kontext: "+format+"\n", args...)
}

// load reads the configuration and the store. A broken configuration is
// reported and skips the hook (it is not the commit's fault).
func (r *runner) load(ctx context.Context) bool {
	cfg, err := config.Load(ctx, r.repo, config.Options{Getenv: r.opts.Getenv, SkipIdentity: true})
	if err != nil {
		r.warn("the configuration is invalid, so the knowledge checks did not run: %v", err)
		return false
	}
	root, err := fsroot.Open(r.repo.Dir)
	if err != nil {
		r.warn("%v", err)
		return false
	}
	r.cfg, r.st = cfg, store.New(root, cfg)
	r.st.TempDir = filepath.Join(r.repo.CommonDir, "kontext", "tmp") // as local.State.TempDir
	return true
}

func (r *runner) target() (*check.Target, error) {
	scan, err := secrets.New(r.cfg.Secrets.Allow, r.cfg.Secrets.Redact)
	if err != nil {
		return nil, err
	}
	return &check.Target{Repo: r.repo, Store: r.st, Config: r.cfg, Scanner: scan,
		RecordCache: filepath.Join(r.repo.CommonDir, "kontext", "records.gob")}, nil
}

// preCommit checks the staged knowledge, and re-renders the index README
// when entries change. Only errors in the staged knowledge return Blocked.
func (r *runner) preCommit(ctx context.Context) int {
	// A marker left by an aborted partial commit is not this commit's.
	os.Remove(filepath.Join(r.repo.GitDir, readmeMarker))
	if !r.load(ctx) {
		return 0
	}
	if !r.st.Exists() {
		return 0
	}
	t, err := r.target()
	if err != nil {
		r.warn("%v (the knowledge checks did not run)", err)
		return 0
	}
	changes, err := check.StagedChanges(ctx, r.repo)
	if err != nil {
		r.warn("cannot list the staged changes, so the knowledge checks did not run: %v", err)
		return 0
	}
	storeChanged, entriesChanged := false, false
	for _, c := range changes {
		if t.InStore(c.Path) {
			storeChanged = true
			if r.st.IsEntryPath(c.Path) {
				entriesChanged = true
			}
		}
	}
	var view *check.IndexView
	if entriesChanged && (r.cfg.Hooks.Validate || r.cfg.Store.IndexFile) {
		if view, err = t.Index(ctx); err != nil {
			r.warn("cannot read the staged store, so the knowledge checks did not run: %v", err)
			return 0
		}
	}
	if storeChanged || r.cfg.Secrets.Scan == "staged" {
		res, err := t.Staged(ctx, changes, view, check.StagedOptions{NoValidate: !r.cfg.Hooks.Validate})
		if err != nil {
			r.warn("the knowledge checks failed: %v", err)
			return 0
		}
		for _, p := range res.Problems {
			fmt.Fprintln(r.opts.Stderr, check.Line(p))
		}
		if n := res.Errors(); n > 0 {
			r.warn("commit blocked: %s in the staged knowledge (fix and stage again; KONTEXT_SKIP=1 or --no-verify bypasses the check)", plural(n, "error", "errors"))
			return Blocked
		}
	}
	if entriesChanged && r.cfg.Store.IndexFile && view != nil {
		if err := r.renderIndex(ctx, t, view); err != nil {
			r.warn("the index %s was not re-rendered: %v", t.IndexREADME(), err)
		}
	}
	if r.cfg.Hooks.RemindInbox {
		r.remind(ctx, changes)
	}
	return 0
}

// renderIndex re-renders the store's README from the entries the commit
// records and stages it. When the work tree's README has edits of its own
// that are not staged, only the index gets the new rendering (and the work
// tree its own), so those edits stay unstaged.
func (r *runner) renderIndex(ctx context.Context, t *check.Target, view *check.IndexView) error {
	rel := t.IndexREADME()
	abs := filepath.Join(r.repo.Dir, filepath.FromSlash(rel))
	staged, inIndex, err := view.Read(ctx, rel)
	if err != nil {
		return err
	}
	work, werr := fsroot.Read(nil, abs, 0)
	inWork := werr == nil
	base := staged
	if !inIndex && inWork {
		base = work
	}
	next := store.UpdateIndex(base, view.Entries, r.st.Dir())
	if inIndex && bytes.Equal(next, staged) {
		return nil
	}
	// The clone's lock, as every writer of the store takes it (local.Open
	// would ask git for the branch, which the lock does not need).
	state := &local.State{Repo: r.repo, Dir: filepath.Join(r.repo.CommonDir, "kontext"), Config: r.cfg, Store: r.st}
	lockCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	unlock, err := state.Lock(lockCtx)
	if err != nil {
		return fmt.Errorf("another kontext process holds the lock: %w", err)
	}
	defer unlock()
	if !inIndex || !view.Modified(rel) || !inWork {
		if err := atomicfile.WriteIn(state.TempDir(), abs, next, 0o644); err != nil {
			return err
		}
		if err := r.repo.Add(ctx, rel); err != nil {
			return err
		}
	} else {
		out, err := r.repo.RunInput(ctx, next, "hash-object", "-w", "--stdin")
		if err != nil {
			return err
		}
		sha := strings.TrimSpace(string(out))
		if _, err := r.repo.Run(ctx, "update-index", "--cacheinfo", "100644,"+sha+","+rel); err != nil {
			return err
		}
		if w := store.UpdateIndex(work, view.Entries, r.st.Dir()); !bytes.Equal(w, work) {
			if err := atomicfile.WriteIn(state.TempDir(), abs, w, 0o644); err != nil {
				return err
			}
		}
	}
	if partialCommit(r.opts.Getenv) {
		// git commit <paths> commits a temporary index: the real one
		// still holds the old README, which post-commit puts right.
		sum := sha256.Sum256(next)
		_ = os.WriteFile(filepath.Join(r.repo.GitDir, readmeMarker), []byte(hex.EncodeToString(sum[:])+" "+rel+"\n"), 0o644)
	}
	r.warn("re-rendered %s from the staged entries and staged it", rel)
	return nil
}

// readmeMarker, in the worktree's git directory, names the README a
// pre-commit hook staged into a partial commit's temporary index.
const readmeMarker = "kontext-partial-readme"

// partialCommit reports whether the hook runs for `git commit <paths>`,
// whose index is a temporary next-index-<pid>.lock.
func partialCommit(getenv func(string) string) bool {
	return strings.HasPrefix(filepath.Base(getenv("GIT_INDEX_FILE")), "next-index")
}

// syncPartialReadme gives the index the README that a partial commit
// recorded, so the commit does not leave a staged "revert" of it behind;
// only when HEAD holds the very README the pre-commit hook staged (an
// aborted commit's marker changes nothing).
func (r *runner) syncPartialReadme(ctx context.Context) {
	marker := filepath.Join(r.repo.GitDir, readmeMarker)
	data, err := fsroot.Read(nil, marker, 0)
	if err != nil {
		return
	}
	os.Remove(marker)
	sum, rel, ok := strings.Cut(strings.TrimSpace(string(data)), " ")
	if !ok || rel == "" || strings.HasPrefix(rel, "-") {
		return
	}
	committed, ok, err := r.repo.FileAt(ctx, "HEAD", rel)
	if err != nil || !ok {
		return
	}
	if got := sha256.Sum256(committed); hex.EncodeToString(got[:]) != sum {
		return
	}
	_, _ = r.repo.Run(ctx, "reset", "-q", "HEAD", "--", rel)
}

// remind lists the team's inbox candidates that touch the staged files:
// knowledge about this change that is about to be left behind.
func (r *runner) remind(ctx context.Context, changes []check.Change) {
	if len(changes) == 0 || !hasCandidates(filepath.Join(r.repo.CommonDir, "kontext", "inbox")) {
		return
	}
	state, err := local.Open(ctx, r.repo, r.cfg)
	if err != nil {
		return
	}
	cands, err := state.List(ctx)
	if err != nil {
		return
	}
	var touching []*local.Candidate
	for _, c := range cands {
		if c.Private() {
			continue
		}
		for _, ch := range changes {
			if glob.MatchAny(c.Paths, ch.Path) {
				touching = append(touching, c)
				break
			}
		}
	}
	if len(touching) == 0 {
		return
	}
	r.warn("%s in the inbox %s the staged files; promote what holds with the commit (kontext prepare-commit --promote <id>, or ctx_prepare_commit):", plural(len(touching), "candidate", "candidates"), map[bool]string{true: "touches", false: "touch"}[len(touching) == 1])
	for _, c := range touching {
		line := fmt.Sprintf("  inbox:%s — %s %s", c.ID, c.Kind, c.Title)
		if !c.Here {
			line += " (captured in another worktree"
			if c.Branch != "" {
				line += ", on " + c.Branch
			}
			line += ")"
		}
		fmt.Fprintln(r.opts.Stderr, line)
	}
}

// hasCandidates says whether an inbox directory holds any candidate file,
// without parsing them: the common case (an empty inbox) costs one
// directory read.
func hasCandidates(dir string) bool {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range ents {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".md") && !strings.HasPrefix(e.Name(), ".") {
			return true
		}
	}
	return false
}

// prepareCommitMsg adds a trailer for each entry the commit introduces:
// the staged entry files that are new relative to HEAD, or to HEAD's
// parent when the commit amends HEAD (so an amended commit keeps its
// trailer, and exactly one). A merge commit gets none (the merged
// commits carry theirs); a squash merge does. The commit that creates the
// store (the bootstrap) gets none either: it introduces the whole store,
// not a decision. `--if-exists addIfDifferent` keeps trailers unique.
func (r *runner) prepareCommitMsg(ctx context.Context, args []string) {
	msgFile, source, object := args[0], "", ""
	if len(args) > 1 {
		source = args[1]
	}
	if len(args) > 2 {
		object = args[2]
	}
	if source == "merge" {
		return
	}
	if !r.load(ctx) || !r.cfg.Hooks.Trailers || !r.st.Exists() {
		return
	}
	head, err := r.repo.Head(ctx)
	if err != nil {
		return
	}
	base := head
	amend := false
	if head != "" {
		switch source {
		case "commit":
			if sha, err := r.repo.ResolveCommit(ctx, object); err == nil && sha == head {
				amend = true
			}
		case "", "message", "template":
			// `git commit --amend -m …` says "message", not that it amends.
			amend = amending()
		}
	}
	if amend {
		base = ""
		if parent, err := r.repo.ResolveCommit(ctx, head+"^"); err == nil {
			base = parent
		}
	}
	if !r.storeIn(ctx, base) {
		return // the commit creates the store
	}
	diff := []string{"diff", "--cached", "--name-only", "-z", "--diff-filter=A", "-M"}
	if base != "" {
		diff = append(diff, base)
	}
	diff = append(diff, "--")
	for _, d := range r.dirs() {
		diff = append(diff, ":(literal)"+d)
	}
	out, err := r.repo.Run(ctx, diff...)
	if err != nil {
		r.warn("no trailers added: %v", err)
		return
	}
	var trailers []string
	seen := map[string]bool{}
	for _, rel := range strings.Split(string(out), "\x00") {
		if rel == "" || !r.st.IsEntryPath(rel) {
			continue
		}
		data, ok, err := r.repo.FileAt(ctx, "", rel)
		if err != nil || !ok {
			continue
		}
		kind, _ := r.st.KindOf(rel)
		e := store.Parse(rel, data, kind)
		key := r.trailerKey(e.Kind)
		if key == "" || strings.ContainsAny(e.ID, "\n\r") {
			continue
		}
		t := key + ": " + e.ID
		if !seen[t] {
			seen[t] = true
			trailers = append(trailers, t)
		}
	}
	if len(trailers) == 0 {
		return
	}
	sort.Strings(trailers)
	if err := addTrailers(ctx, r.repo, msgFile, trailers); err != nil {
		r.warn("no trailers added: %v", err)
	}
}

func (r *runner) dirs() []string {
	return (&check.Target{Repo: r.repo, Store: r.st, Config: r.cfg}).Dirs()
}

// storeIn reports whether the commit rev has any of the store's
// directories ("" is the empty tree: none).
func (r *runner) storeIn(ctx context.Context, rev string) bool {
	if rev == "" {
		return false
	}
	for _, d := range r.dirs() {
		if kind, _, ok, err := r.repo.Object(ctx, rev+":"+d); err == nil && ok && kind == "tree" {
			return true
		}
	}
	return false
}

// trailerKey is the configured trailer of a kind (store.kinds.<kind>.trailer),
// else the built-in one.
func (r *runner) trailerKey(kind string) string {
	if k, ok := r.cfg.Kind(kind); ok && k.Trailer != "" {
		return k.Trailer
	}
	if kind == store.KindArchitecture {
		return ""
	}
	return store.Trailer(kind)
}

// addTrailers appends trailers to the message file with git's own trailer
// rules (after the message, before the comments and a scissors line). A
// message still empty (the editor opens next) keeps its first line free
// for the subject, with a blank line before the trailers.
func addTrailers(ctx context.Context, repo *git.Repo, msgFile string, trailers []string) error {
	abs, err := filepath.Abs(msgFile)
	if err != nil {
		return err
	}
	before, err := fsroot.Read(nil, abs, 0)
	if err != nil {
		return err
	}
	args := []string{"interpret-trailers", "--in-place", "--if-exists", "addIfDifferent"}
	for _, t := range trailers {
		args = append(args, "--trailer", t)
	}
	if _, err := repo.Run(ctx, append(args, abs)...); err != nil {
		return err
	}
	if !emptyMessage(before) {
		return nil
	}
	after, err := fsroot.Read(nil, abs, 0)
	if err != nil {
		return err
	}
	if !bytes.HasPrefix(after, []byte("\n\n")) {
		after = append([]byte("\n"), after...)
	}
	return os.WriteFile(abs, after, 0o644)
}

// emptyMessage reports whether a message has nothing but blank and
// comment lines.
func emptyMessage(msg []byte) bool {
	for _, line := range strings.Split(string(msg), "\n") {
		if t := strings.TrimSpace(line); t != "" && !strings.HasPrefix(t, "#") {
			return false
		}
	}
	return true
}

// amending reports whether the git process that runs this hook is a
// `git commit --amend`: with -m or -F git tells prepare-commit-msg only
// "message". It reads the ancestors' command lines in /proc (Linux);
// elsewhere it reports false, and an amend with -m is measured from HEAD.
func amending() bool {
	pid := os.Getppid()
	for i := 0; i < 8 && pid > 1; i++ {
		args := procArgs(pid)
		if len(args) > 0 && strings.TrimSuffix(filepath.Base(args[0]), ".exe") == "git" {
			for _, a := range args[1:] {
				if a == "--" {
					break
				}
				// parse-options accepts unique prefixes: --amen, --am.
				if len(a) >= 4 && strings.HasPrefix("--amend", a) {
					return true
				}
			}
			return false
		}
		pid = procParent(pid)
	}
	return false
}

func procArgs(pid int) []string {
	data, err := fsroot.Read(nil, "/proc/"+strconv.Itoa(pid)+"/cmdline", 0)
	if err != nil {
		return nil
	}
	return strings.Split(strings.TrimRight(string(data), "\x00"), "\x00")
}

func procParent(pid int) int {
	data, err := fsroot.Read(nil, "/proc/"+strconv.Itoa(pid)+"/stat", 0)
	if err != nil {
		return 0
	}
	// pid (comm) state ppid …; comm may hold spaces and parentheses.
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 2 {
		return 0
	}
	ppid, _ := strconv.Atoi(f[1])
	return ppid
}

// cleanPromoted forgets the promoted inbox records whose entries HEAD now
// holds. Silent: it runs after every commit, merge and rewrite.
func (r *runner) cleanPromoted(ctx context.Context) {
	if !hasCandidates(filepath.Join(r.repo.CommonDir, "kontext", "inbox", ".promoted")) {
		return
	}
	state, err := local.Open(ctx, r.repo, nil)
	if err != nil {
		return
	}
	_, _ = state.CleanPromoted(ctx)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
