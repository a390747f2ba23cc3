package check

import (
	"bytes"
	"encoding/gob"
	"sync"

	"github.com/kontext-dev/kontext/internal/atomicfile"
	"github.com/kontext-dev/kontext/internal/fsroot"
	"github.com/kontext-dev/kontext/internal/knowledge/store"
)

// recordsVersion changes when store.Record or the key does: an older file
// is ignored.
const recordsVersion = 1

// recordCache keeps the records of the store's entries by kind, path and
// blob: a blob's content never changes, so the pre-commit hook reads and
// parses only the entries whose blobs it has not seen before, not the
// whole store on every commit.
type recordCache struct {
	path string

	mu      sync.Mutex
	records map[string]store.Record
	live    map[string]bool
	added   bool
}

type recordsFile struct {
	Version int
	Records map[string]store.Record
}

func recordKey(kind, path, sha string) string { return kind + "\x00" + path + "\x00" + sha }

// loadRecords reads the cache at path ("" for none: every entry is parsed).
func loadRecords(path string) *recordCache {
	c := &recordCache{path: path, records: map[string]store.Record{}, live: map[string]bool{}}
	if path == "" {
		return c
	}
	data, err := fsroot.Read(nil, path, 0)
	if err != nil {
		return c
	}
	var f recordsFile
	if gob.NewDecoder(bytes.NewReader(data)).Decode(&f) == nil && f.Version == recordsVersion && f.Records != nil {
		c.records = f.Records
	}
	return c
}

func (c *recordCache) get(key string) (store.Record, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.live[key] = true
	r, ok := c.records[key]
	return r, ok
}

func (c *recordCache) put(key string, r store.Record) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.records[key], c.live[key], c.added = r, true, true
}

// save writes the records of the entries this view saw, when it learnt a
// new one or some are gone. A cache that cannot be written costs only
// speed.
func (c *recordCache) save() {
	if c.path == "" || (!c.added && len(c.live) == len(c.records)) {
		return
	}
	keep := make(map[string]store.Record, len(c.live))
	for k := range c.live {
		if r, ok := c.records[k]; ok {
			keep[k] = r
		}
	}
	var buf bytes.Buffer
	if gob.NewEncoder(&buf).Encode(recordsFile{Version: recordsVersion, Records: keep}) != nil {
		return
	}
	_ = atomicfile.Write(c.path, buf.Bytes(), 0o644)
}
