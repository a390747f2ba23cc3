package tools

import (
	"context"
	"path"
	"sort"
	"strings"

	spec "github.com/kontext-dev/kontext/gen/toolsets/repo"
	"github.com/kontext-dev/kontext/internal/repo/model"
	"github.com/kontext-dev/kontext/internal/repo/results"
)

// searchDoc is one searchable thing: a file, module, exported symbol,
// decision, convention or entry point.
type searchDoc struct {
	typ   string
	id    string
	title string
	path  string
	line  int
}

// typeOrder breaks score ties, so equal scores list in a fixed order.
var typeOrder = map[string]int{"module": 0, "file": 1, "symbol": 2, "entry-point": 3, "decision": 4, "convention": 5}

// searchIndex builds, once per snapshot, the BM25 index over everything
// search_context can find. Names weigh more than the paths they sit in.
func (d *derived) searchIndex() (*index, []searchDoc) {
	d.searchOnce.Do(func() {
		ix := newIndex()
		var docs []searchDoc
		add := func(doc searchDoc, ts []string) {
			docs = append(docs, doc)
			ix.add(ts)
		}
		for i := range d.g.Modules {
			m := &d.g.Modules[i]
			ts := append(repeat(terms(m.ID), 2), repeat(terms(m.Name), 2)...)
			ts = append(ts, terms(m.Description)...)
			for _, r := range m.Roles {
				ts = append(ts, terms(r.Role)...)
			}
			add(searchDoc{typ: "module", id: m.ID, title: m.Name, path: m.ID}, ts)
		}
		for i := range d.g.Files {
			f := &d.g.Files[i]
			if f.Vendored {
				continue
			}
			ts := append(repeat(terms(f.Path), 2), terms(strings.TrimSuffix(path.Base(f.Path), path.Ext(f.Path)))...)
			ts = append(ts, terms(f.Doc)...)
			ts = append(ts, terms(f.Language)...)
			for _, s := range f.Symbols {
				ts = append(ts, terms(s.Name)...)
			}
			add(searchDoc{typ: "file", id: f.Path, title: f.Path, path: f.Path}, ts)
			if f.Generated {
				continue // generated declarations would drown the written ones
			}
			pathTerms := terms(path.Dir(f.Path))
			for _, s := range f.Symbols {
				ts := append(repeat(terms(s.Name), 3), terms(s.Kind)...)
				ts = append(ts, pathTerms...)
				add(searchDoc{typ: "symbol", id: f.Path + "#" + s.Name, title: s.Kind + " " + s.Name, path: f.Path, line: s.Line}, ts)
			}
		}
		for _, ep := range d.g.EntryPoints {
			ts := append(repeat(terms(ep.Path), 2), repeat(terms(ep.Type), 2)...)
			ts = append(ts, "entry", "point")
			add(searchDoc{typ: "entry-point", id: ep.Path + "#" + ep.Type, title: ep.Type + " entry point " + ep.Path, path: ep.Path}, ts)
		}
		for _, dec := range d.g.Decisions {
			ts := append(repeat(terms(dec.Title), 2), terms(dec.Excerpt)...)
			ts = append(ts, terms(dec.ID)...)
			ts = append(ts, terms(dec.Kind+" "+dec.Status+" decision")...)
			p, line := sourceLine(dec.Source)
			ts = append(ts, terms(p)...)
			add(searchDoc{typ: "decision", id: dec.ID, title: dec.Title, path: p, line: line}, ts)
		}
		for _, c := range d.g.Conventions {
			ts := append(repeat(terms(c.Statement), 2), terms(c.Category)...)
			ts = append(ts, "convention")
			doc := searchDoc{typ: "convention", id: c.ID, title: c.Statement}
			for _, ev := range c.Evidence {
				if ev.File != "" {
					doc.path, doc.line = ev.File, ev.Line
					break
				}
			}
			add(doc, ts)
		}
		d.search, d.docs = ix, docs
	})
	return d.search, d.docs
}

func (h *Handlers) SearchContext(ctx context.Context, in *spec.SearchContextInput) (*results.SearchResults, error) {
	snap, err := h.analysis(ctx, in.Root)
	if err != nil {
		return nil, err
	}
	d := h.derived.of(snap)
	ix, docs := d.searchIndex()
	want := map[string]bool{}
	for _, t := range in.Types {
		want[string(t)] = true
	}
	var keep func(int) bool
	if len(want) > 0 {
		keep = func(i int) bool { return want[docs[i].typ] }
	}
	hits := ix.search(terms(in.Query), keep)
	sortHits(hits, docs)
	res := &results.SearchResults{SchemaVersion: model.SchemaVersion, Query: in.Query, Results: []results.SearchResult{}}
	limit := orDefault(in.Limit, 10)
	if len(hits) > limit {
		note(&res.Truncated, results.Truncation{Field: "results", Kept: limit, Total: len(hits), Narrow: narrowSearch})
	}
	for i, hit := range hits {
		if i == limit {
			break
		}
		doc := docs[hit.doc]
		res.Results = append(res.Results, results.SearchResult{
			Type: doc.typ, ID: doc.id, Title: doc.title, Path: doc.path, Line: doc.line,
			Score: hit.score, Reason: matchedReason(hit.matched),
		})
	}
	return shape(res, full(in.Detail), narrowSearch), nil
}

// sortHits makes equal scores deterministic across index builds: by type,
// then id.
func sortHits(hits []hit, docs []searchDoc) {
	less := func(a, b hit) bool {
		if a.score != b.score {
			return a.score > b.score
		}
		da, db := docs[a.doc], docs[b.doc]
		if typeOrder[da.typ] != typeOrder[db.typ] {
			return typeOrder[da.typ] < typeOrder[db.typ]
		}
		return da.id < db.id
	}
	sort.SliceStable(hits, func(i, j int) bool { return less(hits[i], hits[j]) })
}
