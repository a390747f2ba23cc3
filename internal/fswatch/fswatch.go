// Package fswatch shares one fsnotify watcher (one inotify instance) per
// directory tree among the parts of a process that watch that tree: the
// repo engine's change detection and the knowledge store's. Each part
// opens its own Watcher on the tree, adds and removes its own directories,
// and hears the events of those directories, in the order the kernel
// delivered them, as if it had the instance alone; an error (a lost event
// queue) reaches every part. Sharing halves the instances kontext takes of
// the user's inotify limit (fs.inotify.max_user_instances, often 128) and
// the watches of the directories both parts watch.
package fswatch

import (
	"path/filepath"
	"sync"

	"github.com/fsnotify/fsnotify"
)

// queue is how many events the shared watcher and each part buffer
// before the kernel's own queue fills (and overflows: every part is then
// told with fsnotify.ErrEventOverflow).
const queue = 4096

// Watcher is one part's view of the shared watcher of a tree. Events and
// Errors are closed by Close.
type Watcher struct {
	Events chan fsnotify.Event
	Errors chan error

	hub  *hub
	done chan struct{}
	// sending is held (read) while the hub sends to this part, so that
	// Close closes the channels only when no send is under way.
	sending sync.RWMutex
	closed  bool
}

// hub is the fsnotify watcher of one tree and the parts that share it.
type hub struct {
	key string
	fw  *fsnotify.Watcher

	mu    sync.Mutex
	parts map[*Watcher]map[string]bool // the directories each part added
	refs  map[string]int               // how many parts added each directory
}

var (
	hubsMu sync.Mutex
	hubs   = map[string]*hub{}
)

// Open returns a new part of the shared watcher of the tree at root (the
// key under which the parts meet: the same path string), starting the
// watcher when it is the first.
func Open(root string) (*Watcher, error) {
	key := filepath.Clean(root)
	hubsMu.Lock()
	defer hubsMu.Unlock()
	h := hubs[key]
	if h == nil {
		fw, err := fsnotify.NewBufferedWatcher(queue)
		if err != nil {
			return nil, err
		}
		h = &hub{key: key, fw: fw, parts: map[*Watcher]map[string]bool{}, refs: map[string]int{}}
		hubs[key] = h
		go h.loop()
	}
	w := &Watcher{Events: make(chan fsnotify.Event, queue), Errors: make(chan error, 16), hub: h, done: make(chan struct{})}
	h.mu.Lock()
	h.parts[w] = map[string]bool{}
	h.mu.Unlock()
	return w, nil
}

// Add watches the directory dir for this part.
func (w *Watcher) Add(dir string) error {
	h := w.hub
	h.mu.Lock()
	defer h.mu.Unlock()
	dirs := h.parts[w]
	if dirs == nil || dirs[dir] {
		return nil
	}
	if h.refs[dir] == 0 {
		if err := h.fw.Add(dir); err != nil {
			return err
		}
	}
	h.refs[dir]++
	dirs[dir] = true
	return nil
}

// Remove stops watching dir for this part; the watch itself goes with
// the last part that added it.
func (w *Watcher) Remove(dir string) error {
	h := w.hub
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.removeLocked(w, dir)
}

func (h *hub) removeLocked(w *Watcher, dir string) error {
	dirs := h.parts[w]
	if !dirs[dir] {
		return nil
	}
	delete(dirs, dir)
	if h.refs[dir]--; h.refs[dir] > 0 {
		return nil
	}
	delete(h.refs, dir)
	return h.fw.Remove(dir)
}

// WatchCount is how many directories the shared watcher of this part's
// tree watches, for all its parts.
func (w *Watcher) WatchCount() int {
	w.hub.mu.Lock()
	defer w.hub.mu.Unlock()
	return len(w.hub.refs)
}

// Parts is how many parts share this part's watcher.
func (w *Watcher) Parts() int {
	w.hub.mu.Lock()
	defer w.hub.mu.Unlock()
	return len(w.hub.parts)
}

// Shared is how many parts share the watcher of the tree at root (0: none
// is open), for tests of the parts that should share it.
func Shared(root string) int {
	hubsMu.Lock()
	h := hubs[filepath.Clean(root)]
	hubsMu.Unlock()
	if h == nil {
		return 0
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.parts)
}

// Close removes this part's directories and closes its channels; the
// last part's Close stops the shared watcher.
func (w *Watcher) Close() error {
	h := w.hub
	hubsMu.Lock()
	h.mu.Lock()
	if _, ok := h.parts[w]; !ok {
		h.mu.Unlock()
		hubsMu.Unlock()
		return nil
	}
	for dir := range h.parts[w] {
		h.removeLocked(w, dir)
	}
	delete(h.parts, w)
	last := len(h.parts) == 0
	if last {
		delete(hubs, h.key)
	}
	h.mu.Unlock()
	hubsMu.Unlock()

	close(w.done)
	w.sending.Lock()
	w.closed = true
	close(w.Events)
	close(w.Errors)
	w.sending.Unlock()
	if last {
		return h.fw.Close()
	}
	return nil
}

func (h *hub) loop() {
	for {
		select {
		case ev, ok := <-h.fw.Events:
			if !ok {
				return
			}
			h.dispatch(ev)
		case err, ok := <-h.fw.Errors:
			if !ok {
				return
			}
			for _, w := range h.recipients(nil) {
				w.sendError(err)
			}
		}
	}
}

// dispatch gives ev to the parts that watch the directory it happened in
// (or the directory it names). A watched directory removed or renamed
// loses its watch (inotify drops it with the directory), so it is
// forgotten, and adding it again watches the new one.
func (h *hub) dispatch(ev fsnotify.Event) {
	recipients := h.recipients(&ev)
	if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
		h.mu.Lock()
		if h.refs[ev.Name] > 0 {
			delete(h.refs, ev.Name)
			for _, dirs := range h.parts {
				delete(dirs, ev.Name)
			}
		}
		h.mu.Unlock()
	}
	for _, w := range recipients {
		w.sendEvent(ev)
	}
}

// recipients are the parts an event concerns; every part for an error
// (ev nil).
func (h *hub) recipients(ev *fsnotify.Event) []*Watcher {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []*Watcher
	for w, dirs := range h.parts {
		if ev == nil || dirs[filepath.Dir(ev.Name)] || dirs[ev.Name] {
			out = append(out, w)
		}
	}
	return out
}

// sendEvent and sendError give w an event or an error unless w is closed
// or closes meanwhile.
func (w *Watcher) sendEvent(ev fsnotify.Event) {
	w.sending.RLock()
	defer w.sending.RUnlock()
	if !w.closed {
		select {
		case w.Events <- ev:
		case <-w.done:
		}
	}
}

func (w *Watcher) sendError(err error) {
	w.sending.RLock()
	defer w.sending.RUnlock()
	if !w.closed {
		select {
		case w.Errors <- err:
		case <-w.done:
		}
	}
}
