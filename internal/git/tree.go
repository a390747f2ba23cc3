package git

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// TreeEntry is one entry of a recursive tree listing.
type TreeEntry struct {
	Mode string // 100644, 100755, 120000 (symlink), 160000 (submodule)
	Type string // blob or commit (a submodule)
	SHA  string
	Size int64 // -1 for a submodule
	Path string
}

// ListTree lists every file of a revision's tree, recursively, without a
// checkout.
func (r *Repo) ListTree(ctx context.Context, rev string) ([]TreeEntry, error) {
	if rev == "" || strings.HasPrefix(rev, "-") {
		return nil, fmt.Errorf("not a revision: %q", rev)
	}
	out, err := r.Run(ctx, "ls-tree", "-r", "-z", "--full-tree", "-l", "--end-of-options", rev)
	if err != nil {
		return nil, err
	}
	var entries []TreeEntry
	for _, rec := range splitZ(out) {
		// "<mode> SP <type> SP <object> SP+ <size> TAB <path>"
		meta, path, ok := strings.Cut(rec, "\t")
		if !ok {
			continue
		}
		f := strings.Fields(meta)
		if len(f) != 4 {
			continue
		}
		size, err := strconv.ParseInt(f[3], 10, 64)
		if err != nil {
			size = -1
		}
		entries = append(entries, TreeEntry{Mode: f[0], Type: f[1], SHA: f[2], Size: size, Path: path})
	}
	return entries, nil
}

// DiffTree lists the files that differ between two commits, with renames
// and copies detected, without a checkout. An empty base compares rev with
// its first parent, or with the empty tree when rev is a root commit.
func (r *Repo) DiffTree(ctx context.Context, base, rev string) ([]FileChange, error) {
	for _, v := range []string{base, rev} {
		if strings.HasPrefix(v, "-") {
			return nil, fmt.Errorf("not a revision: %q", v)
		}
	}
	args := []string{"diff-tree", "-r", "-z", "-M", "-C", "--name-status", "--no-ext-diff", "--no-commit-id"}
	if base == "" {
		// --root makes a root commit diff against the empty tree instead of
		// printing nothing.
		args = append(args, "--root", "--end-of-options", rev)
	} else {
		args = append(args, "--end-of-options", base, rev)
	}
	out, err := r.Run(ctx, args...)
	if err != nil {
		return nil, err
	}
	return parseNameStatusZ(out), nil
}

// parseNameStatusZ reads `--name-status -z` output: a status field
// (R and C carry a similarity score and two paths) followed by its paths.
func parseNameStatusZ(out []byte) []FileChange {
	parts := splitZ(out)
	var changes []FileChange
	for i := 0; i < len(parts); {
		status := strings.TrimSpace(parts[i])
		i++
		if status == "" {
			continue
		}
		switch status[0] {
		case 'R', 'C':
			if i+1 >= len(parts) {
				return changes
			}
			changes = append(changes, FileChange{Status: status[0], From: parts[i], Path: parts[i+1]})
			i += 2
		default:
			if i >= len(parts) {
				return changes
			}
			changes = append(changes, FileChange{Status: status[0], Path: parts[i]})
			i++
		}
	}
	return changes
}
