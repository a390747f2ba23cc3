package scan

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/kontext-dev/kontext/internal/git"
)

// listing is what the file listing found: the paths (relative to the root,
// with slashes, sorted) and, inside a git work tree, the repository.
type listing struct {
	paths []string
	repo  *git.Repo // nil outside a git work tree
	// prefix is the root relative to the work tree's top level ("" when
	// the root is the top level), with a trailing slash.
	prefix string
}

// alwaysSkipped are directories never listed by the walk: version control
// internals, and node_modules, which is installed output (and so huge) even
// in a tree without a .gitignore that says so.
var alwaysSkipped = map[string]bool{".git": true, ".hg": true, ".svn": true, "node_modules": true}

// openListing finds the files under root: git's view inside a work tree
// (tracked plus untracked-not-ignored), a .gitignore-honouring walk
// otherwise.
func openListing(ctx context.Context, root string, list bool) (*listing, error) {
	repo, err := git.Open(ctx, root)
	if err != nil {
		// Not a work tree, or no usable git: the walk sees the same files
		// git would, by the same .gitignore rules.
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if !list {
			return &listing{}, nil
		}
		paths, err := walk(ctx, root, "")
		if err != nil {
			return nil, err
		}
		return &listing{paths: paths}, nil
	}
	l := &listing{repo: repo}
	top, err := filepath.EvalSymlinks(repo.Dir)
	if err != nil {
		top = repo.Dir
	}
	if rel, err := filepath.Rel(top, root); err == nil && rel != "." {
		l.prefix = filepath.ToSlash(rel) + "/"
	}
	if !list {
		return l, nil
	}
	all, err := repo.Files(ctx)
	if err != nil {
		repo.Close()
		return nil, err
	}
	l.paths = l.underRoot(all)
	return l, nil
}

// underRoot keeps the work tree paths under the root, relative to it.
func (l *listing) underRoot(all []string) []string {
	out := make([]string, 0, len(all))
	for _, p := range all {
		if l.prefix != "" {
			if !strings.HasPrefix(p, l.prefix) {
				continue
			}
			p = p[len(l.prefix):]
		}
		if skippedByDefault(p) {
			continue
		}
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// skippedByDefault reports paths inside a directory the listing never
// enters (a committed node_modules is installed output, not the project).
func skippedByDefault(p string) bool {
	for {
		i := strings.IndexByte(p, '/')
		if i < 0 {
			return false
		}
		if alwaysSkipped[p[:i]] {
			return true
		}
		p = p[i+1:]
	}
}

// present reports which of the given root-relative paths are listed now:
// existing, and tracked or untracked-not-ignored. It asks git only about
// those paths, so an incremental update does not re-list the tree.
func (l *listing) present(ctx context.Context, root string, paths []string) (map[string]bool, error) {
	out := make(map[string]bool, len(paths))
	if l.repo != nil {
		specs := make([]string, 0, len(paths))
		for _, p := range paths {
			specs = append(specs, ":(literal)"+l.prefix+p)
		}
		files, err := l.repo.FilesMatching(ctx, specs)
		if err != nil {
			return nil, err
		}
		for _, p := range l.underRoot(files) {
			out[p] = true
		}
		// ls-files --cached lists a deleted-but-still-tracked file: it is
		// gone from the tree, so it is gone from the graph.
		for p := range out {
			if _, err := os.Lstat(filepath.Join(root, filepath.FromSlash(p))); err != nil {
				delete(out, p)
			}
		}
		return out, nil
	}
	ig := newIgnorer(root)
	for _, p := range paths {
		if skippedByDefault(p) {
			continue
		}
		info, err := os.Lstat(filepath.Join(root, filepath.FromSlash(p)))
		if err != nil || info.IsDir() {
			continue
		}
		if ig.ignoredPath(p) {
			continue
		}
		out[p] = true
	}
	return out, nil
}

func (l *listing) close() {
	if l.repo != nil {
		l.repo.Close()
	}
}

// walk lists the files under root/sub honouring .gitignore files, without
// following symlinks (a symlink is listed, never entered).
func walk(ctx context.Context, root, sub string) ([]string, error) {
	ig := newIgnorer(root)
	var out []string
	var visit func(rel string) error
	visit = func(rel string) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		ig.enter(rel)
		entries, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(rel)))
		if err != nil {
			if errors.Is(err, fs.ErrPermission) || errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		for _, e := range entries {
			name := e.Name()
			p := name
			if rel != "" {
				p = rel + "/" + name
			}
			if e.IsDir() {
				if alwaysSkipped[name] || ig.ignored(p, true) {
					continue
				}
				if err := visit(p); err != nil {
					return err
				}
				continue
			}
			if ig.ignored(p, false) {
				continue
			}
			out = append(out, p)
		}
		return nil
	}
	if sub != "" {
		// Load the .gitignore files on the way down to sub.
		d := ""
		for _, part := range strings.Split(sub, "/") {
			ig.enter(d)
			if d == "" {
				d = part
			} else {
				d += "/" + part
			}
		}
	}
	if err := visit(sub); err != nil {
		return nil, err
	}
	sort.Strings(out)
	return out, nil
}

// dirOf returns the directory of a slash path, "" for the root.
func dirOf(p string) string {
	// Listed paths are clean, so the directory is what precedes the last
	// slash (path.Dir would clean it again, in the hottest loop).
	i := strings.LastIndexByte(p, '/')
	if i < 0 {
		return ""
	}
	return p[:i]
}
