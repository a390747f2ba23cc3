// Package scan computes the facts of the repository knowledge graph: the
// files and their languages, manifests and workspaces, modules, the import
// graph between files and modules, and the third-party packages in use.
// Heuristics (roles, entry points, conventions, decisions) are
// internal/repo/analyze's, on top of this package's output.
//
// A scan reads each file at most once, in parallel, and never opens a
// sensitive file, a file over Options.MaxFileSize, or a symlink. Update
// re-reads only changed files and recomputes the rest from the facts
// already in the graph, so its result equals a full scan's.
package scan

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"sort"
	"strings"

	"github.com/kontext-dev/kontext/internal/fsroot"
	"github.com/kontext-dev/kontext/internal/repo/model"
	"github.com/kontext-dev/kontext/internal/secrets"
)

// Options bound and shape a scan. The zero value means the defaults.
type Options struct {
	// MaxFileSize is the largest file parsed (1 MiB); larger files are
	// listed with their size only.
	MaxFileSize int64
	// ModuleDepth is how deep below a source root a directory becomes a
	// module (2).
	ModuleDepth int
	// SourceRoots are the directory names whose subdirectories become
	// modules (src, lib, app, apps, packages, services).
	SourceRoots []string
	// MinModuleFiles is how many code files a directory under a source
	// root needs to be a module (3).
	MinModuleFiles int
	// Workers is the parallelism of parsing (GOMAXPROCS).
	Workers int
	// Hooks, when set, follow the scan (progress, listing, file metadata).
	Hooks *Hooks
}

// DefaultOptions are the original's defaults.
func DefaultOptions() Options {
	return Options{
		MaxFileSize:    1 << 20,
		ModuleDepth:    2,
		SourceRoots:    []string{"src", "lib", "app", "apps", "packages", "services"},
		MinModuleFiles: 3,
		Workers:        runtime.GOMAXPROCS(0),
	}
}

func (o Options) withDefaults() Options {
	d := DefaultOptions()
	if o.MaxFileSize <= 0 {
		o.MaxFileSize = d.MaxFileSize
	}
	if o.ModuleDepth <= 0 {
		o.ModuleDepth = d.ModuleDepth
	}
	if o.SourceRoots == nil {
		o.SourceRoots = d.SourceRoots
	}
	if o.MinModuleFiles <= 0 {
		o.MinModuleFiles = d.MinModuleFiles
	}
	if o.Workers <= 0 {
		o.Workers = d.Workers
	}
	return o
}

// Scan analyses the repository at root.
func Scan(ctx context.Context, root string, opts Options) (*model.Graph, error) {
	opts = opts.withDefaults()
	fr, err := fsroot.Open(root)
	if err != nil {
		return nil, err
	}
	defer fr.Close()
	dir, osr := fr.Dir(), fr.OS()
	opts.Hooks.progress(PhaseListing, 0, 0)
	l, err := openListing(ctx, dir, true)
	if err != nil {
		return nil, err
	}
	defer l.close()
	head := ""
	if l.repo != nil {
		head, _ = l.repo.Head(ctx)
	}
	opts.Hooks.listed(l.paths)
	r := &reader{root: osr, maxSize: opts.MaxFileSize, hooks: opts.Hooks}
	ps, err := r.parseAll(ctx, l.paths, opts.Workers)
	if err != nil {
		return nil, err
	}
	files := make([]model.File, 0, len(ps))
	configs := map[string][]byte{}
	for i := range ps {
		if ps[i].missing {
			continue
		}
		files = append(files, ps[i].file)
		if ps[i].config != nil {
			configs[ps[i].file.Path] = ps[i].config
		}
	}
	return assemble(ctx, dir, head, files, configs, opts)
}

// Update returns the graph of prev's repository after the given paths
// changed (were edited, added or deleted; relative to the root or
// absolute). It re-reads only those files, and the configuration files
// that resolution depends on; everything else comes from prev. The result
// equals what Scan would return. A changed .gitignore or directory makes it
// re-list the tree (still parsing only new and changed files); so does ".",
// the root itself, which is how a caller says "the listing may have
// changed" (git's index moved, the watcher lost events).
//
// When nothing the graph depends on changed — the paths are ignored
// files, or files whose re-read facts are the same — Update returns prev
// itself, so a caller can tell "no change" by identity.
func Update(ctx context.Context, prev *model.Graph, changed []string, opts Options) (*model.Graph, error) {
	opts = opts.withDefaults()
	if prev == nil {
		return nil, fmt.Errorf("scan.Update: no previous graph")
	}
	fr, err := fsroot.Open(prev.Root)
	if err != nil {
		return nil, err
	}
	defer fr.Close()
	dir, osr := fr.Dir(), fr.OS()

	prevByPath := make(map[string]int, len(prev.Files))
	for i := range prev.Files {
		prevByPath[prev.Files[i].Path] = i
	}
	rel := make([]string, 0, len(changed))
	relist := len(changed) > 512
	for _, c := range changed {
		p := c
		if filepath.IsAbs(c) {
			r, err := filepath.Rel(dir, c)
			if err != nil {
				continue
			}
			p = r
		}
		p = path.Clean(filepath.ToSlash(p))
		if p == "." {
			relist = true
			continue
		}
		if p == ".." || strings.HasPrefix(p, "../") {
			continue
		}
		rel = append(rel, p)
		if path.Base(p) == ".gitignore" || p == ".git/info/exclude" {
			relist = true
		}
		if info, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(p))); err == nil && info.IsDir() {
			relist = true
		} else if _, known := prevByPath[p]; !known && err != nil {
			relist = true // perhaps a deleted directory
		}
	}

	l, err := openListing(ctx, dir, relist)
	if err != nil {
		return nil, err
	}
	defer l.close()
	head := ""
	if l.repo != nil {
		head, _ = l.repo.Head(ctx)
	}

	var listed map[string]bool
	var toParse []string
	if relist {
		listed = make(map[string]bool, len(l.paths))
		for _, p := range l.paths {
			listed[p] = true
		}
		for _, p := range rel {
			if listed[p] {
				toParse = append(toParse, p)
			}
		}
		for _, p := range l.paths {
			if _, ok := prevByPath[p]; !ok {
				toParse = append(toParse, p)
			}
		}
		// A changed directory (renamed, deleted) names none of its files,
		// and git still lists the tracked ones until the deletion is
		// staged: they are read again, which finds them gone.
		for _, p := range rel {
			if _, known := prevByPath[p]; known {
				continue
			}
			prefix := p + "/"
			for i := sort.Search(len(prev.Files), func(i int) bool { return prev.Files[i].Path >= prefix }); i < len(prev.Files) && strings.HasPrefix(prev.Files[i].Path, prefix); i++ {
				if listed[prev.Files[i].Path] {
					toParse = append(toParse, prev.Files[i].Path)
				}
			}
		}
	} else {
		present, err := l.present(ctx, dir, rel)
		if err != nil {
			return nil, err
		}
		for _, p := range rel {
			if present[p] {
				toParse = append(toParse, p)
			}
		}
		removed := map[string]bool{}
		for _, p := range rel {
			if !present[p] {
				removed[p] = true
			}
		}
		listed = make(map[string]bool, len(prev.Files)+len(toParse))
		for i := range prev.Files {
			if !removed[prev.Files[i].Path] {
				listed[prev.Files[i].Path] = true
			}
		}
		for _, p := range toParse {
			listed[p] = true
		}
	}
	sort.Strings(toParse)
	toParse = dedupeSorted(toParse)
	sameSet := len(listed) == len(prev.Files)
	if sameSet {
		for p := range listed {
			if _, ok := prevByPath[p]; !ok {
				sameSet = false
				break
			}
		}
	}
	if sameSet && head == prev.Head && len(toParse) == 0 {
		return prev, nil
	}

	r := &reader{root: osr, maxSize: opts.MaxFileSize, hooks: opts.Hooks}
	ps, err := r.parseAll(ctx, toParse, opts.Workers)
	if err != nil {
		return nil, err
	}
	fresh := make(map[string]parsed, len(ps))
	for _, p := range ps {
		fresh[p.file.Path] = p
	}
	if head == prev.Head && sameAfterParse(prev, prevByPath, listed, fresh) {
		return prev, nil
	}
	var known map[resolveKey]resolved
	if head == prev.Head && sameContext(prev, prevByPath, listed, fresh) {
		known = lastAssembly.resolutionsOf(prev)
	}
	var order []string
	if relist {
		order = make([]string, 0, len(listed))
		for p := range listed {
			order = append(order, p)
		}
		sort.Strings(order)
	} else {
		// prev's files are in order already: merging in the new ones
		// spares sorting the whole tree.
		order = make([]string, 0, len(listed))
		k := 0
		for i := range prev.Files {
			p := prev.Files[i].Path
			for ; k < len(toParse) && toParse[k] < p; k++ {
				if _, known := prevByPath[toParse[k]]; !known {
					order = append(order, toParse[k])
				}
			}
			if listed[p] {
				order = append(order, p)
			}
		}
		for ; k < len(toParse); k++ {
			if _, known := prevByPath[toParse[k]]; !known {
				order = append(order, toParse[k])
			}
		}
	}
	files := make([]model.File, 0, len(listed))
	configs := map[string][]byte{}
	prevConfigs := lastAssembly.configsOf(prev)
	for _, p := range order {
		if np, ok := fresh[p]; ok {
			if np.missing {
				continue
			}
			files = append(files, np.file)
			if np.config != nil {
				configs[p] = np.config
			}
			continue
		}
		files = append(files, prev.Files[prevByPath[p]])
		if data, ok := prevConfigs[p]; ok {
			// Unchanged: what prev's assembly read (configuration is
			// small, but a monorepo has hundreds of package.json files).
			configs[p] = data
			continue
		}
		if isConfigFile(p) && !secrets.IsSecretFile(p) && prev.Files[prevByPath[p]].Size <= opts.MaxFileSize {
			if info, err := osr.Lstat(p); err == nil && info.Mode().IsRegular() {
				if data, err := fsroot.Read(osr, p, opts.MaxFileSize); err == nil && !isBinary(data) {
					configs[p] = data
				}
			}
		}
	}
	return assembleWith(ctx, dir, head, files, configs, opts, known)
}

func dedupeSorted(s []string) []string {
	out := s[:0]
	for i, x := range s {
		if i == 0 || x != s[i-1] {
			out = append(out, x)
		}
	}
	return out
}

// sameAfterParse reports whether the files listed now, less those the
// parse found missing (deleted, yet still in git's index), are prev's,
// each re-read one showing the same facts — and no configuration file
// among them, whose content the graph depends on beyond its facts.
func sameAfterParse(prev *model.Graph, prevByPath map[string]int, listed map[string]bool, fresh map[string]parsed) bool {
	n := 0
	for p := range listed {
		np, parsed := fresh[p]
		if parsed && np.missing {
			continue
		}
		i, known := prevByPath[p]
		if !known {
			return false
		}
		if parsed && (np.config != nil || isConfigFile(p) || !sameFacts(&prev.Files[i], &np.file)) {
			return false
		}
		n++
	}
	return n == len(prev.Files)
}

// sameContext reports whether import resolution works in the same
// context as for prev: the same files, no configuration file re-read, and
// every re-read file the same in what resolvers and module detection read
// of other files (language, kind, package, Java/Kotlin declarations, Rust
// module declarations).
// Then prev's resolutions hold; only new specs need resolving.
func sameContext(prev *model.Graph, prevByPath map[string]int, listed map[string]bool, fresh map[string]parsed) bool {
	n := 0
	for p := range listed {
		np, parsed := fresh[p]
		if parsed && np.missing {
			return false
		}
		i, known := prevByPath[p]
		if !known {
			return false
		}
		if parsed {
			a, b := &prev.Files[i], &np.file
			if np.config != nil || isConfigFile(p) || a.Language != b.Language || a.Kind != b.Kind || a.Package != b.Package ||
				a.Vendored != b.Vendored || a.Generated != b.Generated || jvm(a) && !sameSymbols(a.Symbols, b.Symbols) ||
				!slices.Equal(a.Submodules, b.Submodules) {
				return false
			}
		}
		n++
	}
	return n == len(prev.Files)
}

// jvm: Java and Kotlin resolution reads the classes other files declare.
func jvm(f *model.File) bool { return f.Language == "Java" || f.Language == "Kotlin" }

func sameSymbols(a, b []model.Symbol) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || a[i].Kind != b[i].Kind {
			return false
		}
	}
	return true
}

// sameFacts reports whether a re-read file shows what the graph already
// holds: equal in everything but what assemble derives (its module and
// the resolution of its imports). Reflection keeps the comparison whole
// when the model grows a field.
func sameFacts(old, fresh *model.File) bool {
	a, b := *old, *fresh
	a.Module, b.Module = "", ""
	a.DevOnly, b.DevOnly = false, false
	a.Imports, b.Imports = specsOnly(a.Imports), specsOnly(b.Imports)
	return reflect.DeepEqual(a, b)
}

func specsOnly(imps []model.Import) []model.Import {
	if imps == nil {
		return nil
	}
	out := make([]model.Import, len(imps))
	for i, imp := range imps {
		out[i] = model.Import{Spec: imp.Spec, Line: imp.Line, Test: imp.Test}
	}
	return out
}
