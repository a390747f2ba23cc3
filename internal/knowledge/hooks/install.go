// Package hooks is kontext's git hooks: installing them (install.go) and
// what they do when git runs them (run.go).
//
// Installing puts a marked block in the hook scripts that git runs
// (pre-commit, prepare-commit-msg, post-commit, post-merge, post-rewrite),
// in the directory git takes them from. What the hooks do is Go (`kontext
// hooks run <hook>`, Run); the block only calls it, so upgrading kontext
// upgrades the hooks' logic without a reinstall.
//
// The team's own hooks are never overwritten: a shell hook gets the block
// inserted after its shebang, and a hook in another language (or a binary)
// is kept as <hook>.kontext-chained and run by a new shell hook after the
// block.
package hooks

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/kontext-dev/kontext/internal/atomicfile"
	"github.com/kontext-dev/kontext/internal/fsroot"
	"github.com/kontext-dev/kontext/internal/git"
)

// Names are the hooks kontext installs, in the order git runs them.
var Names = []string{"pre-commit", "prepare-commit-msg", "post-commit", "post-merge", "post-rewrite"}

// The markers around kontext's part of a hook script. Everything between
// them is kontext's and is replaced on upgrade; everything else is the
// team's.
const (
	StartMarker = "# >>> kontext >>>"
	EndMarker   = "# <<< kontext <<<"
)

// ChainedSuffix names a hook kontext chains instead of editing.
const ChainedSuffix = ".kontext-chained"

// Block is kontext's part of a hook script: it calls bin, the kontext that
// installed it (by absolute path: a hook runs with whatever PATH git was
// started with, an IDE's or a GUI client's), and kontext on PATH when bin
// is gone or was not given. KONTEXT_SKIP (any value but 0) bypasses it; a
// machine without kontext runs the rest of the hook as if the block were
// not there; and only exit status 1 (a blocking problem) stops the hook:
// kontext failing in any other way, or an older kontext without `hooks
// run`, never blocks a commit. The `||` forms keep hooks run under `sh -e`
// (husky) from stopping on a status. The garbage collector is off for the
// hook's process (bounded by GOMEMLIMIT): most of a hook's time is the
// binary's start, whose package initialisation allocates some 16 MB, and
// collecting it cost about 10 ms of a 50 ms hook when measured.
func Block(hook, bin string) string {
	return StartMarker + " the team's knowledge checks (kontext hooks uninstall removes this block)\n" +
		"if [ \"${KONTEXT_SKIP:-0}\" = 0 ]; then\n" +
		"\t# The kontext that installed these hooks, else the one on PATH.\n" +
		binLinePrefix + shellQuote(bin) + "\n" +
		"\t[ -x \"$kontext_bin\" ] || kontext_bin=$(command -v kontext 2>/dev/null) || kontext_bin=\n" +
		"\tif [ -n \"$kontext_bin\" ]; then\n" +
		"\t\t# GOGC=off: this kontext lives for milliseconds; collecting its garbage would cost more than it frees.\n" +
		"\t\tGOGC=off GOMEMLIMIT=512MiB \"$kontext_bin\" hooks run " + hook + " \"$@\" || { [ $? -ne 1 ] || exit 1; }\n" +
		"\tfi\n" +
		"\tunset kontext_bin\n" +
		"fi\n" +
		EndMarker + "\n"
}

// binLinePrefix starts the block's line that records the binary.
const binLinePrefix = "\tkontext_bin="

// shellQuote quotes s for sh, in single quotes.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// recordedBinary reads the binary a block calls ("" when it names none:
// a block that relies on PATH, or an older block).
func recordedBinary(block string) string {
	for _, line := range strings.Split(block, "\n") {
		if rest, ok := strings.CutPrefix(line, binLinePrefix); ok {
			if len(rest) >= 2 && rest[0] == '\'' && rest[len(rest)-1] == '\'' {
				return strings.ReplaceAll(rest[1:len(rest)-1], `'\''`, "'")
			}
		}
	}
	return ""
}

// Binary is the kontext an installation records in the hooks: the path
// this process was started by, made absolute (a symlink such as
// /usr/local/bin/kontext stays one, so an upgrade through it keeps the
// hooks working), or "" — the hooks then use PATH — when that is a
// temporary build (go run), gone once it ends.
func Binary() string { return binaryFor(os.Args[0]) }

func binaryFor(p string) string {
	if !strings.ContainsRune(p, filepath.Separator) {
		if found, err := exec.LookPath(p); err == nil {
			p = found
		} else {
			p, _ = os.Executable()
		}
	}
	abs, err := filepath.Abs(p)
	if err != nil || !isExecutable(abs) {
		if abs, err = os.Executable(); err != nil {
			return ""
		}
	}
	if tmp := os.TempDir(); within(abs, tmp) && strings.Contains(abs, string(filepath.Separator)+"go-build") {
		return ""
	}
	return abs
}

func isExecutable(p string) bool {
	info, err := os.Stat(p)
	return err == nil && !info.IsDir() && info.Mode()&0o111 != 0
}

// chainLines end a hook that kontext wrote in front of a chained one.
func chainLines(hook string) string {
	return "# The team's own " + hook + " hook, kept by kontext as " + hook + ChainedSuffix + ", runs here.\n" +
		"exec \"$(dirname \"$0\")/" + hook + ChainedSuffix + "\" \"$@\"\n"
}

const newShebang = "#!/bin/sh\n"

// Location is the directory git runs hooks from, and what chose it.
type Location struct {
	// Dir is where kontext installs (absolute).
	Dir string
	// Show is Dir as people read it: relative to the work tree's top when
	// inside it.
	Show string
	// Via says why: "default" (<git common dir>/hooks), "core.hooksPath",
	// or "husky" (husky's .husky/ directory, whose generated .husky/_/
	// scripts run the files kontext edits).
	Via string
	// Shared is true when Dir lies outside the repository's work tree
	// and git directory: the hooks there serve other repositories too.
	Shared bool
}

func (l Location) String() string {
	show := l.Show
	if show == "" {
		show = l.Dir
	}
	switch l.Via {
	case "core.hooksPath":
		s := show + " (core.hooksPath)"
		if l.Shared {
			s += "; shared with the other repositories that use it"
		}
		return s
	case "husky":
		return show + " (husky)"
	}
	return show
}

// Locate finds the hooks directory of the repository: git's own answer
// (`git rev-parse --git-path hooks`, which honours core.hooksPath relative
// to the work tree and puts a linked worktree's hooks in the common
// directory), with husky's generated directory replaced by the one its
// scripts run.
func Locate(ctx context.Context, repo *git.Repo) (Location, error) {
	out, err := repo.Run(ctx, "rev-parse", "--git-path", "hooks")
	if err != nil {
		return Location{}, err
	}
	dir := strings.TrimSpace(string(out))
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(repo.Dir, dir)
	}
	dir = filepath.Clean(dir)
	loc := Location{Dir: dir, Via: "default"}
	if !samePath(dir, filepath.Join(repo.CommonDir, "hooks")) {
		loc.Via = "core.hooksPath"
		loc.Shared = !within(dir, repo.Dir) && !within(dir, repo.CommonDir)
	}
	parent := filepath.Dir(dir)
	switch {
	case filepath.Base(dir) == "_" && (filepath.Base(parent) == ".husky" || exists(filepath.Join(dir, "h"))):
		// husky 9: .husky/_/<hook> are regenerated on every install and run
		// .husky/<hook> with `sh -e`.
		loc.Dir, loc.Via = parent, "husky"
	case filepath.Base(dir) == ".husky":
		loc.Via = "husky" // husky 4 to 8: the scripts in .husky/ are the hooks
	}
	loc.Show = loc.Dir
	if rel, err := filepath.Rel(repo.Dir, loc.Dir); err == nil && within(loc.Dir, repo.Dir) {
		loc.Show = filepath.ToSlash(rel)
	}
	return loc, nil
}

func samePath(a, b string) bool {
	if a == b {
		return true
	}
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	return err1 == nil && err2 == nil && ra == rb
}

func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// Action is what Install or Uninstall did to one hook.
type Action string

// The actions.
const (
	Created   Action = "installed (new hook)"
	Added     Action = "added to the existing hook"
	Chained   Action = "installed; the existing hook runs after it as " // + name
	Updated   Action = "updated"
	Unchanged Action = "up to date"
	Removed   Action = "removed"
	Restored  Action = "removed; the chained hook is back in place"
	Deleted   Action = "removed (the hook only held kontext's block)"
	Absent    Action = "not installed"
)

// HookResult is one hook's outcome.
type HookResult struct {
	Hook   string
	Path   string
	Action Action
	// Note adds what the user should know (a hook git will not run).
	Note string
	Err  error
}

// Report is the outcome of Install or Uninstall.
type Report struct {
	Location Location
	Hooks    []HookResult
}

// Changed reports whether any hook file changed.
func (r Report) Changed() bool {
	for _, h := range r.Hooks {
		if h.Err == nil && h.Action != Unchanged && h.Action != Absent {
			return true
		}
	}
	return false
}

// Err joins the hooks' errors.
func (r Report) Err() error {
	var errs []error
	for _, h := range r.Hooks {
		if h.Err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", h.Hook, h.Err))
		}
	}
	return errors.Join(errs...)
}

// String renders the report, one line per hook.
func (r Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "hooks directory: %s\n", r.Location)
	for _, h := range r.Hooks {
		what := string(h.Action)
		if h.Action == Chained {
			what += filepath.Base(h.Path) + ChainedSuffix
		}
		if h.Err != nil {
			what = "failed: " + h.Err.Error()
		}
		if h.Note != "" {
			what += " (" + h.Note + ")"
		}
		fmt.Fprintf(&b, "  %-19s %s\n", h.Hook, what)
	}
	return b.String()
}

// Install puts kontext's block into every hook, calling bin (see Block;
// Binary is the running kontext). It is idempotent: a second run changes
// nothing, and an older block (or one calling another binary) is
// replaced, nothing else.
func Install(ctx context.Context, repo *git.Repo, bin string) (Report, error) {
	loc, err := Locate(ctx, repo)
	if err != nil {
		return Report{}, err
	}
	r := Report{Location: loc}
	if err := os.MkdirAll(loc.Dir, 0o755); err != nil {
		return r, err
	}
	for _, name := range Names {
		res := installOne(loc, name, bin)
		r.Hooks = append(r.Hooks, res)
	}
	return r, r.Err()
}

func installOne(loc Location, hook, bin string) HookResult {
	path := filepath.Join(loc.Dir, hook)
	res := HookResult{Hook: hook, Path: path}
	data, mode, err := readHook(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		res.Action = Created
		res.Err = writeHook(path, []byte(newShebang+Block(hook, bin)), 0o755)
		return res
	case err != nil:
		res.Err = err
		return res
	}
	text := string(data)
	if strings.TrimSpace(text) == "" {
		res.Action = Created
		res.Err = writeHook(path, []byte(newShebang+Block(hook, bin)), mode|0o755)
		return res
	}
	if start, end, ok, ferr := findBlock(text); ferr != nil {
		res.Err = fmt.Errorf("%s: %w", path, ferr)
		return res
	} else if ok {
		if text[start:end] == Block(hook, bin) {
			res.Action = Unchanged
		} else {
			res.Action = Updated
			res.Err = writeHook(path, []byte(text[:start]+Block(hook, bin)+text[end:]), mode)
		}
		res.Note = runNote(loc, mode)
		return res
	}
	// A link (to a script the team keeps in the repository, say) is
	// chained too: editing through it would change the team's file.
	if !isShell(data) || isLink(path) {
		chained := path + ChainedSuffix
		if _, err := os.Lstat(chained); err == nil {
			res.Err = fmt.Errorf("kontext would keep %s as %s, which already exists: move one of them away and install again", path, filepath.Base(chained))
			return res
		}
		if err := os.Rename(path, chained); err != nil {
			res.Err = err
			return res
		}
		res.Action = Chained
		if err := writeHook(path, []byte(newShebang+Block(hook, bin)+chainLines(hook)), 0o755); err != nil {
			os.Rename(chained, path)
			res.Err = err
		}
		return res
	}
	res.Action = Added
	res.Err = writeHook(path, []byte(insertBlock(text, Block(hook, bin))), mode)
	res.Note = runNote(loc, mode)
	return res
}

// runNote warns about a hook git will not run: hooks in .git/hooks or
// core.hooksPath must be executable (husky 9 runs its files with sh).
func runNote(loc Location, mode fs.FileMode) string {
	if mode&0o111 != 0 || loc.Via == "husky" {
		return ""
	}
	return "not executable, so git does not run it: chmod +x it to enable it"
}

// insertBlock puts the block right after the shebang (or at the top of a
// script without one, as husky 9 writes them).
func insertBlock(text, block string) string {
	if strings.HasPrefix(text, "#!") {
		nl := strings.IndexByte(text, '\n')
		if nl < 0 {
			return text + "\n" + block
		}
		return text[:nl+1] + block + text[nl+1:]
	}
	return block + text
}

// findBlock locates the block: [start, end) spans its lines, the end
// marker's newline included.
func findBlock(text string) (start, end int, ok bool, err error) {
	start = lineIndex(text, StartMarker)
	if start < 0 {
		if lineIndex(text, EndMarker) >= 0 {
			return 0, 0, false, errors.New("kontext's end marker without its start marker: remove the leftover lines and install again")
		}
		return 0, 0, false, nil
	}
	rel := lineIndex(text[start:], EndMarker)
	if rel < 0 {
		return 0, 0, false, errors.New("kontext's block has no end marker: remove the block and install again")
	}
	end = start + rel
	if nl := strings.IndexByte(text[end:], '\n'); nl >= 0 {
		end += nl + 1
	} else {
		end = len(text)
	}
	return start, end, true, nil
}

// lineIndex is the offset of the first line that starts with prefix, or -1.
func lineIndex(text, prefix string) int {
	for off := 0; off < len(text); {
		if strings.HasPrefix(text[off:], prefix) {
			return off
		}
		nl := strings.IndexByte(text[off:], '\n')
		if nl < 0 {
			break
		}
		off += nl + 1
	}
	return -1
}

// isShell reports whether a hook is a script kontext can put a shell block
// into: a POSIX-family shebang, or text without a shebang (run by sh).
func isShell(data []byte) bool {
	if bytes.IndexByte(data, 0) >= 0 {
		return false // a binary
	}
	if !bytes.HasPrefix(data, []byte("#!")) {
		return true
	}
	line, _, _ := bytes.Cut(data[2:], []byte("\n"))
	fields := strings.Fields(string(line))
	if len(fields) == 0 {
		return false
	}
	interp := filepath.Base(fields[0])
	if interp == "env" {
		interp = ""
		for _, f := range fields[1:] {
			if !strings.HasPrefix(f, "-") && !strings.Contains(f, "=") {
				interp = filepath.Base(f)
				break
			}
		}
	}
	switch interp {
	case "sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "busybox":
		return true
	}
	return false
}

func readHook(path string) ([]byte, fs.FileMode, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, 0, err
	}
	if info.IsDir() {
		return nil, 0, fmt.Errorf("%s is a directory", path)
	}
	data, err := fsroot.Read(nil, path, 0)
	return data, info.Mode().Perm(), err
}

// writeHook replaces a hook through a temporary file, so git never runs a
// half-written one. A hook that is a link is written where it points, so
// the link stays.
func writeHook(path string, data []byte, mode fs.FileMode) error {
	if isLink(path) {
		target, err := filepath.EvalSymlinks(path)
		if err != nil {
			return err
		}
		path = target
	}
	return atomicfile.Write(path, data, mode)
}

func isLink(path string) bool {
	info, err := os.Lstat(path)
	return err == nil && info.Mode()&fs.ModeSymlink != 0
}

// Uninstall removes kontext's block from every hook: a hook that held
// nothing else is deleted, and a chained hook is put back in place.
func Uninstall(ctx context.Context, repo *git.Repo) (Report, error) {
	loc, err := Locate(ctx, repo)
	if err != nil {
		return Report{}, err
	}
	r := Report{Location: loc}
	for _, name := range Names {
		r.Hooks = append(r.Hooks, uninstallOne(loc, name))
	}
	return r, r.Err()
}

func uninstallOne(loc Location, hook string) HookResult {
	path := filepath.Join(loc.Dir, hook)
	res := HookResult{Hook: hook, Path: path, Action: Absent}
	data, mode, err := readHook(path)
	if errors.Is(err, fs.ErrNotExist) {
		return res
	}
	if err != nil {
		res.Err = err
		return res
	}
	text := string(data)
	start, end, ok, err := findBlock(text)
	if err != nil {
		res.Err = fmt.Errorf("%s: %w", path, err)
		return res
	}
	if !ok {
		return res
	}
	rest := text[:start] + text[end:]
	chained := path + ChainedSuffix
	switch {
	case rest == newShebang+chainLines(hook) && exists(chained):
		if err := os.Rename(chained, path); err != nil {
			res.Err = err
			return res
		}
		res.Action = Restored
	case (strings.TrimSpace(rest) == "" || rest == newShebang) && !isLink(path):
		res.Action = Deleted
		res.Err = os.Remove(path)
	default:
		res.Action = Removed
		res.Err = writeHook(path, []byte(rest), mode)
	}
	return res
}

// State is one hook as Inspect found it.
type State struct {
	Hook string
	Path string
	// Installed: the block is there; Current: it is this version's block.
	Installed, Current bool
	// Runs is false when git would skip the script (not executable).
	Runs bool
	// Chained is true when the team's own hook runs after kontext's.
	Chained bool
	// Binary is the kontext the block names ("" when it relies on PATH);
	// Calls the one it would run now: Binary, else kontext on PATH (as
	// this process sees it), else "" — then the hook does nothing.
	Binary, Calls string
}

// Status is every hook's state.
type Status struct {
	Location Location
	Hooks    []State
}

// Missing lists the hooks without a working block (absent, or in a script
// git does not run).
func (s Status) Missing() []string {
	var out []string
	for _, h := range s.Hooks {
		if !h.Installed || !h.Runs {
			out = append(out, h.Hook)
		}
	}
	return out
}

// Outdated lists the hooks whose block is an older version.
func (s Status) Outdated() []string {
	var out []string
	for _, h := range s.Hooks {
		if h.Installed && !h.Current {
			out = append(out, h.Hook)
		}
	}
	return out
}

// Broken lists the installed hooks that would do nothing: the kontext
// they call is gone and none is on PATH.
func (s Status) Broken() []string {
	var out []string
	for _, h := range s.Hooks {
		if h.Installed && h.Runs && h.Calls == "" {
			out = append(out, h.Hook)
		}
	}
	return out
}

// Gone returns the binary the installed hooks name that no longer exists
// ("" when every one they name is there), and how many hooks name it.
func (s Status) Gone() (bin string, n int) {
	for _, h := range s.Hooks {
		if h.Installed && h.Binary != "" && h.Calls != h.Binary {
			bin = h.Binary
			n++
		}
	}
	return bin, n
}

// Inspect reports which hooks carry kontext's block, without changing
// anything.
func Inspect(ctx context.Context, repo *git.Repo) (Status, error) {
	loc, err := Locate(ctx, repo)
	if err != nil {
		return Status{}, err
	}
	return InspectDir(loc), nil
}

// InspectDir is Inspect for a known location (no git process).
func InspectDir(loc Location) Status {
	st := Status{Location: loc}
	onPath := ""
	looked := false
	for _, name := range Names {
		path := filepath.Join(loc.Dir, name)
		h := State{Hook: name, Path: path}
		if data, mode, err := readHook(path); err == nil {
			text := string(data)
			if start, end, ok, _ := findBlock(text); ok {
				block := text[start:end]
				h.Installed = true
				h.Binary = recordedBinary(block)
				h.Current = block == Block(name, h.Binary)
				h.Runs = mode&0o111 != 0 || loc.Via == "husky"
				h.Chained = strings.Contains(text[end:], name+ChainedSuffix)
				if h.Binary != "" && isExecutable(h.Binary) {
					h.Calls = h.Binary
				} else {
					if !looked {
						onPath, _ = exec.LookPath("kontext")
						if onPath != "" {
							onPath, _ = filepath.Abs(onPath)
						}
						looked = true
					}
					h.Calls = onPath
				}
			}
		}
		st.Hooks = append(st.Hooks, h)
	}
	return st
}

// String renders the status, one line per hook.
func (s Status) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "hooks directory: %s\n", s.Location)
	for _, h := range s.Hooks {
		what := "not installed (kontext hooks install)"
		switch {
		case h.Installed && !h.Runs:
			what = "installed, but git does not run it (not executable: chmod +x " + h.Path + ")"
		case h.Installed && h.Calls == "" && h.Binary != "":
			what = "installed, but does nothing: the kontext it calls, " + h.Binary + ", is missing, and no kontext is on PATH (kontext hooks install)"
		case h.Installed && h.Calls == "":
			what = "installed, but does nothing: no kontext is on PATH (kontext hooks install)"
		case h.Installed && !h.Current:
			what = "installed, an older version (kontext hooks install updates it)"
		case h.Installed && h.Binary != "" && h.Calls != h.Binary:
			what = "installed; the kontext it calls, " + h.Binary + ", is missing, so it runs " + h.Calls + " from PATH (kontext hooks install)"
		case h.Installed:
			what = "installed (calls " + h.Calls + ")"
		}
		if h.Chained {
			what += "; runs the team's " + h.Hook + ChainedSuffix + " after it"
		}
		fmt.Fprintf(&b, "  %-19s %s\n", h.Hook, what)
	}
	return b.String()
}
