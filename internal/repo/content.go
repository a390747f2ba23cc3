package repo

import (
	"path"
	"sync"
)

// contentCache keeps the files the heuristics read on every analysis —
// manifests, markdown, tsconfig and the like, not the source files
// Observe reads once — so an update does not read hundreds of them again
// (a monorepo has a package.json per package). An entry is dropped when
// its file is named by a change; files no change names are as they were
// read.
type contentCache struct {
	mu    sync.Mutex
	files map[string][]byte
	size  int
}

// The cache's bounds: what is read beyond them is read again next time.
const (
	contentCacheMax  = 64 << 20
	contentCacheFile = 1 << 20
)

func (c *contentCache) get(p string, read func(string) ([]byte, error)) ([]byte, error) {
	c.mu.Lock()
	data, ok := c.files[p]
	c.mu.Unlock()
	if ok {
		return data, nil
	}
	data, err := read(p)
	if err != nil || len(data) > contentCacheFile {
		return data, err
	}
	c.mu.Lock()
	if c.files == nil {
		c.files = map[string][]byte{}
	}
	if _, ok := c.files[p]; !ok && c.size+len(data) <= contentCacheMax {
		c.files[p] = data
		c.size += len(data)
	}
	c.mu.Unlock()
	return data, nil
}

// forget drops the named paths (files, or directories and all below).
func (c *contentCache) forget(paths []string) {
	if len(paths) == 0 {
		return
	}
	named := make(map[string]bool, len(paths))
	for _, p := range paths {
		named[p] = true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for f, data := range c.files {
		// A directory's change (a rename, a deletion) names no file inside
		// it: a file goes when it or a directory above it is named.
		for p := f; p != "." && p != "/"; p = path.Dir(p) {
			if named[p] {
				c.size -= len(data)
				delete(c.files, f)
				break
			}
		}
	}
}

func (c *contentCache) reset() {
	c.mu.Lock()
	c.files, c.size = nil, 0
	c.mu.Unlock()
}
