// Package git is the one place kontext talks to git. It runs the git command
// line (the user's git, with its configuration and hooks semantics), and
// reads objects through one long-lived `git cat-file --batch` process
// instead of one process per object.
package git

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/kontext-dev/kontext/internal/fsroot"
)

// ErrNotRepository is returned by Open outside a git work tree.
var ErrNotRepository = errors.New("not inside a git work tree")

// Repo is a git work tree.
type Repo struct {
	// Dir is the top level of the work tree.
	Dir string
	// GitDir is this work tree's git directory (.git, or
	// .git/worktrees/<name> for a linked worktree).
	GitDir string
	// CommonDir is the git directory shared by all worktrees: where
	// kontext keeps its local state (<CommonDir>/kontext).
	CommonDir string

	catMu sync.Mutex
	cat   *catFile
}

// Open finds the work tree that contains dir.
func Open(ctx context.Context, dir string) (*Repo, error) {
	out, err := run(ctx, dir, nil, "rev-parse", "--show-toplevel", "--absolute-git-dir", "--git-common-dir")
	if err != nil {
		if strings.Contains(err.Error(), "not a git repository") {
			return nil, fmt.Errorf("%s: %w", dir, ErrNotRepository)
		}
		return nil, err
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) != 3 || lines[0] == "" {
		return nil, fmt.Errorf("%s: %w (is it a bare repository?)", dir, ErrNotRepository)
	}
	common := lines[2]
	if !filepath.IsAbs(common) {
		common = filepath.Join(dir, common)
	}
	common, _ = filepath.Abs(common)
	return &Repo{Dir: lines[0], GitDir: lines[1], CommonDir: filepath.Clean(common)}, nil
}

// Error is a failed git command, with what it printed on stderr.
type Error struct {
	Args   []string
	Stderr string
	Err    error
}

func (e *Error) Error() string {
	msg := strings.TrimSpace(e.Stderr)
	if msg == "" {
		msg = e.Err.Error()
	}
	return "git " + strings.Join(e.Args, " ") + ": " + msg
}

func (e *Error) Unwrap() error { return e.Err }

// environment makes git's output stable and never interactive.
func environment(extra []string) []string {
	env := append(os.Environ(),
		"LC_ALL=C",
		"GIT_TERMINAL_PROMPT=0",
		"GIT_OPTIONAL_LOCKS=0", // reading must not contend with the user's git
		"GIT_PAGER=cat",
	)
	return append(env, extra...)
}

func run(ctx context.Context, dir string, stdin io.Reader, args ...string) ([]byte, error) {
	return runEnv(ctx, dir, nil, stdin, args...)
}

func runEnv(ctx context.Context, dir string, env []string, stdin io.Reader, args ...string) ([]byte, error) {
	cmd := command(ctx, dir, env, args...)
	cmd.Stdin = stdin
	stdout := &cappedBuffer{limit: outputLimit}
	stderr := &stderrBuffer{}
	cmd.Stdout = stdout
	cmd.Stderr = stderr
	finish, err := start(ctx, cmd)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &Error{Args: args, Err: err}
	}
	err = cmd.Wait()
	finish()
	if stdout.over {
		return nil, &OutputTooLargeError{Args: args, Limit: int64(outputLimit)}
	}
	if err != nil {
		if ctx.Err() != nil {
			// The request ended: not git's answer (callers read an exit
			// status with an empty stderr as one).
			return nil, ctx.Err()
		}
		return stdout.buf, &Error{Args: args, Stderr: stderr.String(), Err: err}
	}
	return stdout.buf, nil
}

// Run runs git in the work tree and returns its stdout.
func (r *Repo) Run(ctx context.Context, args ...string) ([]byte, error) {
	return run(ctx, r.Dir, nil, args...)
}

// RunInput runs git with stdin.
func (r *Repo) RunInput(ctx context.Context, stdin []byte, args ...string) ([]byte, error) {
	return run(ctx, r.Dir, bytes.NewReader(stdin), args...)
}

// RunEnv runs git with extra environment variables.
func (r *Repo) RunEnv(ctx context.Context, env []string, args ...string) ([]byte, error) {
	return runEnv(ctx, r.Dir, env, nil, args...)
}

// Head returns the commit HEAD names, or "" in a repository without commits.
func (r *Repo) Head(ctx context.Context) (string, error) {
	out, err := r.Run(ctx, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err() // not an unborn branch: the request ended
		}
		var ge *Error
		if errors.As(err, &ge) && strings.TrimSpace(ge.Stderr) == "" {
			return "", nil // unborn branch
		}
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// Branch returns the current branch name, or "" when HEAD is detached.
func (r *Repo) Branch(ctx context.Context) string {
	out, err := r.Run(ctx, "symbolic-ref", "--quiet", "--short", "HEAD")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// ResolveCommit returns the full sha of a revision (sha prefix, ref, HEAD~2…).
func (r *Repo) ResolveCommit(ctx context.Context, rev string) (string, error) {
	if strings.HasPrefix(rev, "-") {
		return "", fmt.Errorf("not a revision: %q", rev)
	}
	out, err := r.Run(ctx, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	if err != nil {
		return "", fmt.Errorf("unknown revision %q", rev)
	}
	return strings.TrimSpace(string(out)), nil
}

// Files lists the tracked files and the untracked files that are not
// ignored, relative to the top level, with slashes.
func (r *Repo) Files(ctx context.Context) ([]string, error) {
	out, err := r.Run(ctx, "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--deduplicate")
	if err != nil {
		return nil, err
	}
	files := splitZ(out)
	sort.Strings(files)
	return files, nil
}

// FilesMatching is Files restricted to pathspecs (relative to the top
// level; ":(literal)" magic keeps a name with glob characters literal): an
// incremental re-scan asks about the changed paths only.
func (r *Repo) FilesMatching(ctx context.Context, pathspecs []string) ([]string, error) {
	if len(pathspecs) == 0 {
		return nil, nil
	}
	args := append([]string{"ls-files", "-z", "--cached", "--others", "--exclude-standard", "--deduplicate", "--"}, pathspecs...)
	out, err := r.Run(ctx, args...)
	if err != nil {
		return nil, err
	}
	files := splitZ(out)
	sort.Strings(files)
	return files, nil
}

// TrackedFiles lists the files in the index.
func (r *Repo) TrackedFiles(ctx context.Context) ([]string, error) {
	out, err := r.Run(ctx, "ls-files", "-z", "--cached")
	if err != nil {
		return nil, err
	}
	return splitZ(out), nil
}

func splitZ(b []byte) []string {
	var out []string
	for _, f := range bytes.Split(b, []byte{0}) {
		if len(f) > 0 {
			out = append(out, string(f))
		}
	}
	return out
}

// Config returns a git config value, or "".
func (r *Repo) Config(ctx context.Context, key string) string {
	out, err := r.Run(ctx, "config", "--get", key)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// Add stages paths (relative to the top level).
func (r *Repo) Add(ctx context.Context, paths ...string) error {
	if len(paths) == 0 {
		return nil
	}
	_, err := r.Run(ctx, append([]string{"add", "--"}, paths...)...)
	return err
}

// RemoteURL returns the URL of the `origin` remote, else of the first
// remote, or "" when the repository has none.
func (r *Repo) RemoteURL(ctx context.Context) string {
	if u := r.Config(ctx, "remote.origin.url"); u != "" {
		return u
	}
	out, err := r.Run(ctx, "remote")
	if err != nil {
		return ""
	}
	for _, name := range strings.Fields(string(out)) {
		if u := r.Config(ctx, "remote."+name+".url"); u != "" {
			return u
		}
	}
	return ""
}

// Worktree is one work tree of a repository, as `git worktree list` reports it.
type Worktree struct {
	Path   string
	Head   string
	Branch string // short name; "" when detached
	Bare   bool
}

// Worktrees lists the repository's work trees, the main one first.
func (r *Repo) Worktrees(ctx context.Context) ([]Worktree, error) {
	out, err := r.Run(ctx, "worktree", "list", "--porcelain", "-z")
	if err != nil {
		return nil, err
	}
	var list []Worktree
	var cur *Worktree
	for _, field := range strings.Split(string(out), "\x00") {
		key, value, _ := strings.Cut(field, " ")
		switch key {
		case "worktree":
			list = append(list, Worktree{Path: value})
			cur = &list[len(list)-1]
		case "HEAD":
			if cur != nil {
				cur.Head = value
			}
		case "branch":
			if cur != nil {
				cur.Branch = strings.TrimPrefix(value, "refs/heads/")
			}
		case "bare":
			if cur != nil {
				cur.Bare = true
			}
		}
	}
	return list, nil
}

// Blobs reads many blobs by id through one `git cat-file --batch` of its
// own, every id written up front: no round trip per object, as a history
// that compares hundreds of manifest versions needs. Ids that name no blob
// are left out of the map; a repeated id is read once.
func (r *Repo) Blobs(ctx context.Context, ids []string) (map[string][]byte, error) {
	out := map[string][]byte{}
	var want []string
	seen := map[string]bool{}
	for _, id := range ids {
		if !isSHA(id) || strings.Trim(id, "0") == "" || seen[id] {
			continue
		}
		seen[id] = true
		want = append(want, id)
	}
	if len(want) == 0 {
		return out, nil
	}
	cmd := command(ctx, r.Dir, nil, "cat-file", "--batch")
	cmd.Stdin = strings.NewReader(strings.Join(want, "\n") + "\n")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	finish, err := start(ctx, cmd)
	if err != nil {
		return nil, err
	}
	defer finish()
	rd := bufio.NewReaderSize(stdout, 256<<10)
	var readErr error
	for range want {
		header, err := rd.ReadString('\n')
		if err != nil {
			readErr = fmt.Errorf("git cat-file: %w", err)
			break
		}
		fields := strings.Fields(header)
		if len(fields) == 2 && fields[1] == "missing" {
			continue
		}
		if len(fields) != 3 {
			readErr = fmt.Errorf("git cat-file: unexpected header %q", header)
			break
		}
		size, err := strconv.Atoi(fields[2])
		if err != nil {
			readErr = fmt.Errorf("git cat-file: bad size in %q", header)
			break
		}
		if int64(size) > MaxObjectBytes {
			readErr = &fsroot.TooLargeError{Path: fields[0], Size: int64(size), Limit: MaxObjectBytes}
			break
		}
		data := make([]byte, size+1) // the content and its trailing newline
		if _, err := io.ReadFull(rd, data); err != nil {
			readErr = fmt.Errorf("git cat-file: %w", err)
			break
		}
		if fields[1] == "blob" {
			out[fields[0]] = data[:size]
		}
	}
	if readErr != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, readErr
	}
	if err := cmd.Wait(); err != nil {
		return nil, &Error{Args: []string{"cat-file", "--batch"}, Stderr: stderr.String(), Err: err}
	}
	return out, nil
}
