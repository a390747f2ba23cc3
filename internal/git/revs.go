package git

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/kontext-dev/kontext/internal/fsroot"
)

// RevList returns the shas LogOptions select (Rev, MaxCount, NoMerges,
// FirstParent, Since, Paths), newest first, without reading the commits:
// far cheaper than Log when only the set of commits matters.
func (r *Repo) RevList(ctx context.Context, opts LogOptions) ([]string, error) {
	rev := opts.Rev
	if rev == "" || rev == "HEAD" {
		head, err := r.HeadFromRefs(ctx)
		if err != nil {
			return nil, err
		}
		if head == "" {
			return nil, nil // no commits yet
		}
		rev = head
	}
	if strings.HasPrefix(rev, "-") {
		return nil, fmt.Errorf("not a revision: %q", rev)
	}
	args := opts.limitArgs([]string{"rev-list"})
	args = append(args, "--end-of-options", rev, "--")
	args = append(args, opts.Paths...)
	out, err := r.Run(ctx, args...)
	if err != nil {
		return nil, err
	}
	return strings.Fields(string(out)), nil
}

// HeadFromRefs is Head without starting a process: it reads HEAD and the
// ref it names from the git directory (loose ref, then packed-refs). It
// is what a "did anything change?" check can afford before every query.
// Anything it does not understand (reftable, a ref pointing at a ref,
// a malformed file) is answered by Head.
func (r *Repo) HeadFromRefs(ctx context.Context) (string, error) {
	if r.GitDir == "" || r.CommonDir == "" {
		return r.Head(ctx)
	}
	if _, err := os.Stat(filepath.Join(r.CommonDir, "reftable")); err == nil {
		return r.Head(ctx)
	}
	head, err := fsroot.Read(nil, filepath.Join(r.GitDir, "HEAD"), maxRefBytes)
	if err != nil {
		return r.Head(ctx)
	}
	line := strings.TrimSpace(string(head))
	if isSHA(line) {
		return line, nil // detached
	}
	ref, ok := strings.CutPrefix(line, "ref: ")
	if !ok || !strings.HasPrefix(ref, "refs/") || strings.Contains(ref, "..") {
		return r.Head(ctx)
	}
	// Branches live in the common dir; a few per-worktree refs in GitDir.
	for _, dir := range []string{r.CommonDir, r.GitDir} {
		b, err := fsroot.Read(nil, filepath.Join(dir, filepath.FromSlash(ref)), maxRefBytes)
		if err != nil {
			continue
		}
		if s := strings.TrimSpace(string(b)); isSHA(s) {
			return s, nil
		}
		return r.Head(ctx)
	}
	packed, err := fsroot.Read(nil, filepath.Join(r.CommonDir, "packed-refs"), maxPackedRefsBytes)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", nil // unborn branch: no loose ref, no packed refs
		}
		return r.Head(ctx)
	}
	sc := bufio.NewScanner(bytes.NewReader(packed))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		sha, name, ok := strings.Cut(sc.Text(), " ")
		if ok && name == ref && isSHA(sha) {
			return sha, nil
		}
	}
	return "", nil // the branch does not exist yet
}

// Bounds of the reads HeadFromRefs makes: a ref is one line; packed-refs
// of the largest repositories are a few MiB. Anything larger is git's to
// read.
const (
	maxRefBytes        = 64 << 10
	maxPackedRefsBytes = 64 << 20
)

func isSHA(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
