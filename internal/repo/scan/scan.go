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
	"runtime"
	"sort"
	"strings"

	"github.com/kontext-dev/kontext/internal/fsroot"
	"github.com/kontext-dev/kontext/internal/repo/model"
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
	dir := fr.Dir()
	osr, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer osr.Close()
	l, err := openListing(ctx, dir, true)
	if err != nil {
		return nil, err
	}
	defer l.close()
	head := ""
	if l.repo != nil {
		head, _ = l.repo.Head(ctx)
	}
	r := &reader{root: osr, maxSize: opts.MaxFileSize}
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
// re-list the tree (still parsing only new and changed files).
func Update(ctx context.Context, prev *model.Graph, changed []string, opts Options) (*model.Graph, error) {
	opts = opts.withDefaults()
	if prev == nil {
		return nil, fmt.Errorf("scan.Update: no previous graph")
	}
	fr, err := fsroot.Open(prev.Root)
	if err != nil {
		return nil, err
	}
	dir := fr.Dir()
	osr, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer osr.Close()

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
		if p == "." || p == ".." || strings.HasPrefix(p, "../") {
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
	} else {
		present, err := l.present(ctx, dir, rel)
		if err != nil {
			return nil, err
		}
		listed = nil
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

	r := &reader{root: osr, maxSize: opts.MaxFileSize}
	ps, err := r.parseAll(ctx, toParse, opts.Workers)
	if err != nil {
		return nil, err
	}
	fresh := make(map[string]parsed, len(ps))
	for _, p := range ps {
		fresh[p.file.Path] = p
	}
	order := make([]string, 0, len(listed))
	for p := range listed {
		order = append(order, p)
	}
	sort.Strings(order)
	files := make([]model.File, 0, len(listed))
	configs := map[string][]byte{}
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
		if isConfigFile(p) && !Sensitive(p) && prev.Files[prevByPath[p]].Size <= opts.MaxFileSize {
			if info, err := osr.Lstat(p); err == nil && info.Mode().IsRegular() {
				if data, err := osr.ReadFile(p); err == nil && !isBinary(data) {
					configs[p] = data
				}
			}
		}
	}
	return assemble(ctx, dir, head, files, configs, opts)
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
