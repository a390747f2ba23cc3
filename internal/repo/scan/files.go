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
// With a trailing slash, p is that directory itself.
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
		if ig.ignoredPath(p, false) {
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
	return walkTree(ctx, root, sub, nil)
}

// walkTree is walk that also collects, when dirs is not nil, every
// directory it enters (sub included, "" for the root).
func walkTree(ctx context.Context, root, sub string, dirs *[]string) ([]string, error) {
	ig := newIgnorer(root)
	var out []string
	var visit func(rel string) error
	visit = func(rel string) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		ig.enter(rel)
		if dirs != nil {
			*dirs = append(*dirs, rel)
		}
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

// WatchDirs lists the directories under root in which a change can change
// what a scan lists: the directories of the listed files and their
// ancestors, and those that hold no listed file yet but where one may
// appear — untracked directories (empty ones included) and directories
// holding only ignored files. listed is the current listing (a graph's
// paths). The result is relative to root, with slashes, sorted, "" for
// root itself; ignored directories (build output, node_modules) are not
// in it, which is what keeps a watcher on them quiet.
func WatchDirs(ctx context.Context, root string, listed []string) ([]string, error) {
	set := map[string]bool{"": true}
	addWithParents := func(d string) {
		for ; !set[d]; d = dirOf(d) {
			set[d] = true
		}
	}
	for _, p := range listed {
		addWithParents(dirOf(p))
	}
	l, err := openListing(ctx, root, false)
	if err != nil {
		return nil, err
	}
	defer l.close()
	if l.repo == nil {
		var dirs []string
		if _, err := walkTree(ctx, root, "", &dirs); err != nil {
			return nil, err
		}
		for _, d := range dirs {
			addWithParents(d)
		}
		return sortedSet(set), nil
	}
	out, err := l.repo.Run(ctx, "ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory")
	if err != nil {
		return nil, err
	}
	var ignoredFiles, ignoredDirs []string
	for _, e := range strings.Split(string(out), "\x00") {
		if d, ok := strings.CutSuffix(e, "/"); ok {
			ignoredDirs = append(ignoredDirs, d)
		} else if e != "" {
			ignoredFiles = append(ignoredFiles, e)
		}
	}
	for _, p := range l.underRoot(ignoredFiles) {
		addWithParents(dirOf(p))
	}
	untracked, err := l.repo.UntrackedDirs(ctx)
	if err != nil {
		return nil, err
	}
	untracked = l.underRootDirs(untracked)
	// Below an untracked directory, ignored ones (dist/, .venv/) are not
	// watched either. git lists them whole ("dist/") among directories
	// that merely hold ignored content, which check-ignore tells apart.
	ignored := map[string]bool{}
	if len(untracked) > 0 {
		var cands []string
		for _, d := range l.underRootDirs(ignoredDirs) {
			if d != "" {
				cands = append(cands, d)
			}
		}
		dirs, err := l.checkIgnored(ctx, cands)
		if err != nil {
			return nil, err
		}
		for _, d := range dirs {
			ignored[d] = true
		}
	}
	for _, d := range untracked {
		addWithParents(d)
		// git names the outermost untracked directory only: the ones below
		// it are where files will appear too.
		var below []string
		if err := walkDirsBelow(ctx, root, d, ignored, &below); err != nil {
			return nil, err
		}
		for _, b := range below {
			set[b] = true
		}
	}
	return sortedSet(set), nil
}

// underRootDirs is underRoot for directories: "" stands for the root.
func (l *listing) underRootDirs(all []string) []string {
	var out []string
	for _, d := range all {
		if l.prefix != "" {
			if d+"/" == l.prefix {
				out = append(out, "")
				continue
			}
			if !strings.HasPrefix(d, l.prefix) {
				continue
			}
			d = d[len(l.prefix):]
		}
		if skippedByDefault(d + "/") {
			continue
		}
		out = append(out, d)
	}
	return out
}

// walkDirsBelow collects the directories below root/rel, never entering a
// symlink, a directory the listing always skips, or one of ignored.
func walkDirsBelow(ctx context.Context, root, rel string, ignored map[string]bool, out *[]string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	entries, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		return nil // gone or unreadable: nothing to watch there
	}
	for _, e := range entries {
		if !e.IsDir() || alwaysSkipped[e.Name()] {
			continue
		}
		p := e.Name()
		if rel != "" {
			p = rel + "/" + p
		}
		if ignored[p] {
			continue
		}
		*out = append(*out, p)
		if err := walkDirsBelow(ctx, root, p, ignored, out); err != nil {
			return err
		}
	}
	return nil
}

func sortedSet(set map[string]bool) []string {
	out := make([]string, 0, len(set))
	for d := range set {
		out = append(out, d)
	}
	sort.Strings(out)
	return out
}

// IgnoredDirs returns which of the given directories (relative to root,
// with slashes) are ignored — by the ignore files, or because the listing
// never enters them. A watcher stops watching those: their content (build
// output, caches) is not the project, and its churn is only noise.
func IgnoredDirs(ctx context.Context, root string, dirs []string) ([]string, error) {
	var out, ask []string
	for _, d := range dirs {
		if d == "" {
			continue
		}
		if skippedByDefault(d + "/") {
			out = append(out, d)
		} else {
			ask = append(ask, d)
		}
	}
	if len(ask) == 0 {
		return out, nil
	}
	l, err := openListing(ctx, root, false)
	if err != nil {
		return nil, err
	}
	defer l.close()
	if l.repo == nil {
		ig := newIgnorer(root)
		for _, d := range ask {
			if ig.ignoredPath(d, true) {
				out = append(out, d)
			}
		}
		return out, nil
	}
	ignored, err := l.checkIgnored(ctx, ask)
	if err != nil {
		return nil, err
	}
	return append(out, ignored...), nil
}

// checkIgnored asks git which of the directories (relative to the root)
// its ignore rules exclude.
func (l *listing) checkIgnored(ctx context.Context, dirs []string) ([]string, error) {
	if len(dirs) == 0 {
		return nil, nil
	}
	var in strings.Builder
	for _, d := range dirs {
		in.WriteString(l.prefix + d + "/\x00")
	}
	res, err := l.repo.RunInput(ctx, []byte(in.String()), "check-ignore", "-z", "--stdin")
	if err != nil {
		// Exit status 1 with nothing on stderr: none is ignored.
		var ge *git.Error
		if errors.As(err, &ge) && strings.TrimSpace(ge.Stderr) == "" {
			return nil, nil
		}
		return nil, err
	}
	var out []string
	for _, e := range strings.Split(string(res), "\x00") {
		if e = strings.TrimSuffix(e, "/"); e != "" && strings.HasPrefix(e, l.prefix) {
			out = append(out, e[len(l.prefix):])
		}
	}
	return out, nil
}
