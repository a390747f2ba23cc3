package knowledge

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/kontext-dev/kontext/internal/knowledge/index"
	"github.com/kontext-dev/kontext/internal/knowledge/local"
	"github.com/kontext-dev/kontext/internal/knowledge/store"
)

// entrySource feeds the store's entries to the search index as kx:<id>.
type entrySource struct{ o *Opened }

func (s *entrySource) Name() string { return "entries" }

func (s *entrySource) files() []index.Item { return s.o.entryFiles() }

// entryFiles lists the entry files with their versions (size and time),
// which is all a "did anything change" check needs. While the watch sees no
// change, the last list stands.
func (o *Opened) entryFiles() []index.Item {
	gen, watching := o.watch.generation()
	o.filesMu.Lock()
	if watching && o.files != nil && o.filesGen == gen {
		items := o.files
		o.filesMu.Unlock()
		return items
	}
	o.filesMu.Unlock()
	items := o.walkEntryFiles()
	o.filesMu.Lock()
	o.files, o.filesGen = items, gen
	o.filesMu.Unlock()
	return items
}

func (o *Opened) walkEntryFiles() []index.Item {
	var items []index.Item
	for _, dir := range o.StoreDirs() {
		abs, err := o.Root.Path(dir)
		if err != nil {
			continue
		}
		_ = filepath.WalkDir(abs, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if d.IsDir() {
				if p != abs && strings.HasPrefix(d.Name(), ".") {
					return filepath.SkipDir
				}
				return nil
			}
			rel, err := filepath.Rel(o.Root.Dir(), p)
			if err != nil {
				return nil
			}
			rel = filepath.ToSlash(rel)
			if !o.Store.IsEntryPath(rel) {
				return nil
			}
			info, err := d.Info()
			if err != nil {
				return nil
			}
			items = append(items, index.Item{Key: rel, Version: index.FileVersion(info)})
			return nil
		})
	}
	sort.Slice(items, func(i, j int) bool { return items[i].Key < items[j].Key })
	return items
}

func (s *entrySource) Fingerprint(context.Context) (string, error) {
	return fingerprint(s.files()), nil
}

func (s *entrySource) List(context.Context) ([]index.Item, error) { return s.files(), nil }

func (s *entrySource) Load(ctx context.Context, items []index.Item, emit func(index.Item, []index.Doc) error) error {
	for _, it := range items {
		if err := ctx.Err(); err != nil {
			return err
		}
		data, err := s.o.Root.ReadFile(it.Key)
		if err != nil {
			continue // gone since List: retried on the next refresh
		}
		kind, _ := s.o.Store.KindOf(it.Key)
		if err := emit(it, []index.Doc{entryDoc(store.Parse(it.Key, data, kind), "kx:")}); err != nil {
			return err
		}
	}
	return nil
}

// entryDoc is an entry as the index sees it: its HTML comments (the
// bootstrap's placeholders for unwritten sections, the facts' markers)
// are not text to find or to quote.
func entryDoc(e *store.Entry, scheme string) index.Doc {
	body := index.StripComments(e.Body)
	if e.Summary != "" {
		body = e.Summary + "\n\n" + body
	}
	return index.Doc{
		URI:    scheme + e.ID,
		Kind:   e.Kind,
		Source: "local",
		Title:  e.Title,
		Body:   body,
		Status: e.Status,
		Date:   e.Date,
		Paths:  e.Paths,
		Tags:   e.Tags,
	}
}

// privateSource feeds private inbox captures (they never reach the team's
// store) to the index as inbox:<id>, so this clone can still find them.
type privateSource struct{ o *Opened }

func (s *privateSource) Name() string { return "private" }

func (s *privateSource) files() []index.Item {
	entries, err := os.ReadDir(s.o.State.InboxDir())
	if err != nil {
		return nil
	}
	var items []index.Item
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".md") {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		items = append(items, index.Item{Key: e.Name(), Version: index.FileVersion(info)})
	}
	return items
}

func (s *privateSource) Fingerprint(context.Context) (string, error) {
	return fingerprint(s.files()), nil
}

func (s *privateSource) List(context.Context) ([]index.Item, error) { return s.files(), nil }

func (s *privateSource) Load(ctx context.Context, items []index.Item, emit func(index.Item, []index.Doc) error) error {
	// One read of the inbox for all the items (a lookup per item read the
	// whole inbox, and asked git for the worktrees, each time).
	cands, err := s.o.State.List(ctx)
	if err != nil {
		return err
	}
	byFile := make(map[string]*local.Candidate, len(cands))
	for _, c := range cands {
		byFile[path.Base(c.Path)] = c
	}
	for _, it := range items {
		c, ok := byFile[it.Key]
		if !ok {
			continue // dropped or promoted since it was listed
		}
		var docs []index.Doc
		if c.Visibility == local.Private {
			d := entryDoc(c.Entry, "inbox:")
			d.Status = "private"
			docs = append(docs, d)
		}
		if err := emit(it, docs); err != nil {
			return err
		}
	}
	return nil
}

func fingerprint(items []index.Item) string {
	h := sha256.New()
	for _, it := range items {
		h.Write([]byte(it.Key + "\x00" + it.Version + "\n"))
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
}
