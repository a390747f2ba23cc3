package repo

import (
	"context"
	"sync"
)

// changes is what a detector saw since the last analysis: the paths that
// may have changed (relative to the root, with slashes; files or
// directories, existing or not), and the flags that say more than any path
// can.
type changes struct {
	paths map[string]bool
	// relist: the listing itself may have changed (git's index, an exclude
	// file, lost events): the next update re-lists the tree.
	relist bool
	// head: HEAD or a branch may have moved.
	head bool
	// all: any file may have changed without an event (events were lost,
	// or the analysis came from the persistent cache): every file is
	// checked against its fingerprint.
	all bool
}

func (c *changes) add(p string) {
	if c.paths == nil {
		c.paths = map[string]bool{}
	}
	c.paths[p] = true
}

func (c *changes) merge(o changes) {
	for p := range o.paths {
		c.add(p)
	}
	c.relist = c.relist || o.relist
	c.head = c.head || o.head
	c.all = c.all || o.all
}

func (c *changes) empty() bool {
	return len(c.paths) == 0 && !c.relist && !c.head && !c.all
}

// detector notices changes under a root between analyses.
type detector interface {
	// sync makes every change completed before the call visible to take.
	sync(ctx context.Context)
	// pending reports whether take would return anything.
	pending() bool
	// take returns the changes seen so far and forgets them.
	take() changes
	// restore gives back changes an analysis took and did not complete.
	restore(changes)
	// track is told of each new analysis: the directories to watch and the
	// fingerprints to compare with.
	track(st *state)
	// failed is non-nil once the detector cannot be trusted any more (the
	// engine then replaces it).
	failed() error
	mode() string
	close()
}

// pendingChanges are the changes a detector saw that no analysis took
// yet: the pending, take and restore of a detector. A detector embeds it
// and guards the rest of its state with the same mu.
type pendingChanges struct {
	mu sync.Mutex
	ch changes
}

func (p *pendingChanges) pending() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return !p.ch.empty()
}

func (p *pendingChanges) take() changes {
	p.mu.Lock()
	defer p.mu.Unlock()
	ch := p.ch
	p.ch = changes{}
	return ch
}

func (p *pendingChanges) restore(ch changes) {
	p.mu.Lock()
	p.ch.merge(ch)
	p.mu.Unlock()
}
