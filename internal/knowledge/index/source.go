package index

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
	"sync"
)

// Doc is one searchable document.
type Doc struct {
	URI    string // kx:<id>, file:<path>#<section>, git:<sha>
	Kind   string // decision|convention|learning|incident|architecture|doc|commit
	Source string // where it comes from as the agent sees it: "local", or an adapter's name
	Title  string
	Body   string // the searchable text; snippets come from it
	Status string // an entry's status (accepted, superseded, …)
	Date   string // YYYY-MM-DD
	Paths  []string
	Tags   []string
}

// Item is one unit a source versions: an entry file, a Markdown file
// (which yields one Doc per section), a commit. Version is whatever
// changes when the unit's content does (mtime and size for a file, the
// sha for a commit); the index reloads a unit only when its Version
// differs from the one it indexed.
type Item struct {
	Key     string
	Version string
}

// Source feeds the index. The index calls Fingerprint before every
// (rate-limited) query, List when the fingerprint changed, and Load only
// for the items whose version changed, so a source can make the common
// case — nothing changed — cost a few stats.
type Source interface {
	// Name identifies the source among the index's sources and in the
	// index file ("commits", "docs", "entries"); it is not Doc.Source.
	Name() string
	// Fingerprint cheaply summarises the source's current state: when it
	// equals the fingerprint of the last refresh, nothing changed and
	// List is not called. "" means "cannot tell", and List always runs.
	// It must be computed from the state before List reads it, never
	// after, so that a change racing a refresh is seen by the next one.
	Fingerprint(ctx context.Context) (string, error)
	// List returns every item the source has now.
	List(ctx context.Context) ([]Item, error)
	// Load reads the given items and calls emit once for each with its
	// documents (none for an item that turned out unreadable or empty;
	// such an item is still recorded at its version, so a broken file is
	// not re-read until it changes). An item not emitted at all (it
	// vanished between List and Load) is retried on the next refresh.
	// An error from emit must be returned.
	Load(ctx context.Context, items []Item, emit func(Item, []Doc) error) error
}

// Twins is implemented by a source whose documents can be copies of one
// another under different URIs (a commit cherry-picked onto the branch
// again is one change reached twice). Identities returns, for the URIs it
// knows among uris, what makes documents the same: search keeps one of
// the hits that share an identity.
type Twins interface {
	Identities(ctx context.Context, uris []string) (map[string]string, error)
}

// MemorySource is a Source held in memory: one Doc per item, keyed by
// URI. It serves tests and any caller that already holds its documents.
// It is safe for concurrent use.
type MemorySource struct {
	name string
	mu   sync.Mutex
	docs map[string]Doc
	vers map[string]string
}

// NewMemorySource returns a source named name holding docs.
func NewMemorySource(name string, docs ...Doc) *MemorySource {
	m := &MemorySource{name: name, docs: map[string]Doc{}, vers: map[string]string{}}
	m.Put(docs...)
	return m
}

// Put adds or replaces documents (by URI).
func (m *MemorySource) Put(docs ...Doc) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, d := range docs {
		m.docs[d.URI] = d
		m.vers[d.URI] = docVersion(d)
	}
}

// Delete removes documents by URI.
func (m *MemorySource) Delete(uris ...string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, u := range uris {
		delete(m.docs, u)
		delete(m.vers, u)
	}
}

// Name implements Source.
func (m *MemorySource) Name() string { return m.name }

// Fingerprint implements Source: a hash of every version, so that two
// processes holding the same documents agree.
func (m *MemorySource) Fingerprint(context.Context) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	keys := make([]string, 0, len(m.vers))
	for k := range m.vers {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	h := sha256.New()
	for _, k := range keys {
		fmt.Fprintf(h, "%s\x00%s\x00", k, m.vers[k])
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// List implements Source.
func (m *MemorySource) List(context.Context) ([]Item, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	items := make([]Item, 0, len(m.docs))
	for k, v := range m.vers {
		items = append(items, Item{Key: k, Version: v})
	}
	return items, nil
}

// Load implements Source.
func (m *MemorySource) Load(ctx context.Context, items []Item, emit func(Item, []Doc) error) error {
	for _, it := range items {
		m.mu.Lock()
		d, ok := m.docs[it.Key]
		v := m.vers[it.Key]
		m.mu.Unlock()
		if !ok {
			continue
		}
		if err := emit(Item{Key: it.Key, Version: v}, []Doc{d}); err != nil {
			return err
		}
	}
	return nil
}

// docVersion is a content hash: what a MemorySource has no mtime for.
func docVersion(d Doc) string {
	h := sha256.New()
	for _, s := range []string{d.URI, d.Kind, d.Source, d.Title, d.Body, d.Status, d.Date,
		strings.Join(d.Paths, "\x01"), strings.Join(d.Tags, "\x01")} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
}
