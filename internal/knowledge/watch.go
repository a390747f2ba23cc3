package knowledge

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/fsnotify/fsnotify"

	"github.com/kontext-dev/kontext/internal/fswatch"
)

// changeWatch says whether anything under a few directory trees may have
// changed since a caller last looked, so that the check before every
// search and brief does not stat a thousand files. When the watcher cannot
// be set up or loses events, it says so and callers look at the files.
type changeWatch struct {
	w      *fswatch.Watcher // shared with the repo engine's watcher of the tree
	gen    atomic.Uint64
	broken atomic.Bool
	mu     sync.Mutex
	dirs   map[string]bool
}

// newChangeWatch watches the trees under roots (created later ones too: a
// missing root is watched from its nearest existing parent), sharing the
// watcher of the work tree at tree with the repo engine.
func newChangeWatch(tree string, roots []string) *changeWatch {
	c := &changeWatch{dirs: map[string]bool{}}
	w, err := fswatch.Open(tree)
	if err != nil {
		c.broken.Store(true)
		return c
	}
	c.w = w
	for _, r := range roots {
		c.addTree(r)
	}
	go c.loop()
	return c
}

func (c *changeWatch) addTree(root string) {
	dir := root
	for {
		if info, err := os.Stat(dir); err == nil && info.IsDir() {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return
		}
		dir = parent
	}
	if dir != root {
		c.add(dir) // to see root appear
		return
	}
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			c.add(p)
		}
		return nil
	})
}

func (c *changeWatch) add(dir string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.dirs[dir] {
		return
	}
	if err := c.w.Add(dir); err != nil {
		c.broken.Store(true) // e.g. out of inotify watches: fall back to looking
		return
	}
	c.dirs[dir] = true
}

func (c *changeWatch) loop() {
	for {
		select {
		case ev, ok := <-c.w.Events:
			if !ok {
				return
			}
			c.gen.Add(1)
			if ev.Has(fsnotify.Create) {
				if info, err := os.Stat(ev.Name); err == nil && info.IsDir() {
					c.addTree(ev.Name)
				}
			}
		case err, ok := <-c.w.Errors:
			if !ok {
				return
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				c.gen.Add(1)
			} else {
				c.broken.Store(true)
			}
		}
	}
}

// generation returns a number that changes whenever something under the
// watched trees changed; ok is false when the watch cannot tell.
func (c *changeWatch) generation() (gen uint64, ok bool) {
	if c == nil || c.broken.Load() {
		return 0, false
	}
	return c.gen.Load(), true
}

func (c *changeWatch) close() {
	if c != nil && c.w != nil {
		c.w.Close()
	}
}
