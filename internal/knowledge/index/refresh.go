package index

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"
)

// Changes says what a refresh did.
type Changes struct {
	// Checked is false when the refresh was skipped because the last
	// check was less than MinInterval ago.
	Checked bool
	// Sources lists the sources whose fingerprint had changed.
	Sources []string
	// Units added, updated and removed (a unit is an entry, a Markdown
	// file or a commit), and the documents written for them.
	Added, Updated, Removed, Docs int
}

// Refresh brings the index up to date with its sources, unless the last
// check in this process was less than MinInterval ago. Search calls it.
func (ix *Index) Refresh(ctx context.Context) (Changes, error) {
	return ix.refresh(ctx, false)
}

// RefreshNow is Refresh without the rate limit.
func (ix *Index) RefreshNow(ctx context.Context) (Changes, error) {
	return ix.refresh(ctx, true)
}

// Rebuild empties the index and builds it again from the sources.
func (ix *Index) Rebuild(ctx context.Context) (Changes, error) {
	ix.refreshMu.Lock()
	err := ix.clear(ctx)
	ix.refreshMu.Unlock()
	if err != nil {
		if !ix.recoverFrom(ctx, err) {
			return Changes{}, err
		}
	}
	return ix.refresh(ctx, true)
}

func (ix *Index) clear(ctx context.Context) error {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	tx, err := ix.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, stmt := range []string{`DELETE FROM fts`, `DELETE FROM docs`, `DELETE FROM units`, `DELETE FROM sources`} {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return err
		}
	}
	return tx.Commit()
}

func (ix *Index) refresh(ctx context.Context, force bool) (Changes, error) {
	ix.refreshMu.Lock()
	defer ix.refreshMu.Unlock()
	now := time.Now()
	if !force && !ix.dirty.Load() && ix.opts.MinInterval > 0 && !ix.lastCheck.IsZero() && now.Sub(ix.lastCheck) < ix.opts.MinInterval {
		return Changes{}, nil
	}
	ix.dirty.Store(false)
	ch, err := ix.refreshOnce(ctx)
	if err != nil && ix.recoverFrom(ctx, err) {
		ix.dirty.Store(false)
		ch, err = ix.refreshOnce(ctx)
	}
	if err == nil {
		// A failed check is not a check: the next query tries again.
		ix.lastCheck = now
	}
	return ch, err
}

// pending is one source's part of a refresh.
type pending struct {
	src    Source
	fp     string
	stored map[string]unitVersion // what the index has, under the write lock
	// Filled by the producing goroutine, read once it is done.
	items    map[string]string // key → version listed
	complete bool              // every changed item was delivered
	err      error
}

// unitBatch is one loaded unit on its way to the writer.
type unitBatch struct {
	p       *pending
	key     string
	version string
	rows    []docRow
}

// docRow is a Doc ready for the tables.
type docRow struct {
	uri, kind, source, status, date string
	title, expanded, body           string
	paths, ftsPaths, tags           string // paths only feeds ftsPaths
	boost                           float64
}

// Walker is a Source that lists and loads everything in one pass. The
// index walks it when it has nothing of the source yet (a first build),
// instead of listing and then loading every item it listed.
type Walker interface {
	Source
	// Walk calls emit for every item, as Load would if asked for all
	// that List returns.
	Walk(ctx context.Context, emit func(Item, []Doc) error) error
}

func (ix *Index) refreshOnce(ctx context.Context) (Changes, error) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if ix.closed {
		return Changes{}, errors.New("index: closed")
	}
	db := ix.db
	ch := Changes{Checked: true}

	stored, err := storedFingerprints(ctx, db)
	if err != nil {
		return ch, err
	}
	fps := map[string]string{}
	for _, s := range ix.opts.Sources {
		fp, err := s.Fingerprint(ctx)
		if err != nil {
			ix.logf("index: %s: %v", s.Name(), err)
			fp = ""
		}
		fps[s.Name()] = fp
	}
	if !needsWork(ix.opts.Sources, fps, stored) {
		return ch, nil
	}

	// The write lock is taken before anything is listed: a second process
	// refreshing at the same time waits here, and then finds the work
	// done instead of doing it again. Readers are not blocked (WAL).
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return ch, err
	}
	defer tx.Rollback()
	if stored, err = storedFingerprints(ctx, tx); err != nil {
		return ch, err
	}
	var work []*pending
	configured := map[string]bool{}
	for _, s := range ix.opts.Sources {
		configured[s.Name()] = true
		if fp := fps[s.Name()]; fp == "" || stored[s.Name()] != fp {
			work = append(work, &pending{src: s, fp: fp})
			ch.Sources = append(ch.Sources, s.Name())
		}
	}
	var gone []string
	for name := range stored {
		if !configured[name] {
			gone = append(gone, name)
		}
	}
	sort.Strings(gone)
	w, err := newWriter(ctx, tx)
	if err != nil {
		return ch, err
	}
	defer w.close()
	for _, p := range work {
		if p.stored, err = storedVersions(ctx, tx, p.src.Name()); err != nil {
			return ch, err
		}
	}

	// Sources list and load in their own goroutines (git runs in its
	// processes, files are read and texts expanded there) while this one
	// writes what they deliver.
	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	batches := make(chan unitBatch, 64)
	var wg sync.WaitGroup
	for _, p := range work {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.err = produce(pctx, p, batches)
		}()
	}
	go func() {
		wg.Wait()
		close(batches)
	}()
	var werr error
	for b := range batches {
		if werr != nil {
			continue // drain, so that the producers end
		}
		if werr = w.applyUnit(ctx, b, &ch); werr != nil {
			cancel()
		}
	}
	if werr != nil {
		return ch, werr
	}
	if err := ctx.Err(); err != nil {
		return ch, err
	}

	var errs []error
	for _, p := range work {
		if err := w.finish(ctx, p, &ch); err != nil {
			return ch, err
		}
		if p.err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", p.src.Name(), p.err))
		}
	}
	for _, name := range gone {
		n, err := w.dropSource(ctx, name)
		if err != nil {
			return ch, err
		}
		ch.Removed += n
	}
	if err := tx.Commit(); err != nil {
		return ch, err
	}
	if ch.Docs+ch.Removed > 0 {
		ix.checkpoint(db)
	}
	for _, e := range errs {
		ix.logf("index: %v", e)
	}
	return ch, errors.Join(errs...)
}

// needsWork reports whether some source's fingerprint differs from the
// stored one, or the index holds a source no longer configured.
func needsWork(sources []Source, fps, stored map[string]string) bool {
	names := map[string]bool{}
	for _, s := range sources {
		names[s.Name()] = true
		if fp := fps[s.Name()]; fp == "" || stored[s.Name()] != fp {
			return true
		}
	}
	for name := range stored {
		if !names[name] {
			return true
		}
	}
	return false
}

func storedFingerprints(ctx context.Context, q querier) (map[string]string, error) {
	rows, err := q.QueryContext(ctx, `SELECT name, fingerprint FROM sources`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var name, fp string
		if err := rows.Scan(&name, &fp); err != nil {
			return nil, err
		}
		out[name] = fp
	}
	return out, rows.Err()
}

type querier interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}

func storedVersions(ctx context.Context, q querier, source string) (map[string]unitVersion, error) {
	rows, err := q.QueryContext(ctx, `SELECT id, key, version FROM units WHERE source = ?`, source)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]unitVersion{}
	for rows.Next() {
		var uv unitVersion
		var key string
		if err := rows.Scan(&uv.id, &key, &uv.version); err != nil {
			return nil, err
		}
		out[key] = uv
	}
	return out, rows.Err()
}

type unitVersion struct {
	id      int64
	version string
}

// produce lists a source and delivers what differs from the index.
func produce(ctx context.Context, p *pending, out chan<- unitBatch) error {
	var mu sync.Mutex // a source may load in parallel
	send := func(it Item, docs []Doc) error {
		rows := make([]docRow, 0, len(docs))
		for _, d := range docs {
			if d.URI != "" {
				rows = append(rows, makeRow(d))
			}
		}
		select {
		case out <- unitBatch{p: p, key: it.Key, version: it.Version, rows: rows}:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if wk, ok := p.src.(Walker); ok && len(p.stored) == 0 {
		items := map[string]string{}
		err := wk.Walk(ctx, func(it Item, docs []Doc) error {
			mu.Lock()
			items[it.Key] = it.Version
			mu.Unlock()
			return send(it, docs)
		})
		p.items = items
		p.complete = err == nil
		return err
	}

	list, err := p.src.List(ctx)
	if err != nil {
		return err
	}
	items := make(map[string]string, len(list))
	for _, it := range list {
		items[it.Key] = it.Version
	}
	var load []Item
	for key, version := range items {
		if st, ok := p.stored[key]; !ok || st.version != version {
			load = append(load, Item{Key: key, Version: version})
		}
	}
	sort.Slice(load, func(i, j int) bool { return load[i].Key < load[j].Key })
	delivered := map[string]bool{}
	if len(load) > 0 {
		err = p.src.Load(ctx, load, func(it Item, docs []Doc) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			if _, listed := items[it.Key]; !listed {
				return nil
			}
			mu.Lock()
			delivered[it.Key] = true
			mu.Unlock()
			return send(it, docs)
		})
	}
	p.items = items
	p.complete = err == nil && len(delivered) == len(load)
	return err
}

func makeRow(d Doc) docRow {
	r := docRow{
		uri:      d.URI,
		kind:     strings.ToLower(strings.TrimSpace(d.Kind)),
		source:   d.Source,
		status:   strings.ToLower(strings.TrimSpace(d.Status)),
		date:     d.Date,
		title:    d.Title,
		body:     d.Body,
		paths:    strings.Join(d.Paths, "\n"),
		tags:     strings.Join(d.Tags, "\n"),
		expanded: expand(d.Title, d.Body, strings.Join(d.Tags, " ")),
	}
	if r.source == "" {
		r.source = "local"
	}
	// Tags are words the author chose to describe the entry: they search
	// like the identifiers, just below the title.
	if len(d.Tags) > 0 {
		r.expanded = strings.Join(d.Tags, " ") + "\n" + r.expanded
	}
	// The paths column holds the paths, then after a blank line their
	// expanded identifiers: hits read the paths back from it.
	r.ftsPaths = r.paths
	if e := expand(r.paths); e != "" {
		r.ftsPaths += pathsSep + e
	}
	r.boost = boost(r.kind, r.status)
	return r
}

// boost multiplies a document's BM25 score. Curated knowledge — entries
// a person or an agent wrote down and the team reviewed — answers a
// question better than a commit that uses the same words in passing, and
// documentation sits between. An entry that is no longer in force still
// answers "what did we decide", but after the one that replaced it.
func boost(kind, status string) float64 {
	b := 1.0
	switch kind {
	case "decision", "convention", "learning", "incident", "architecture":
		b = 1.3
	case "doc":
		b = 1.1
	}
	switch status {
	case "superseded", "deprecated", "rejected":
		b *= 0.5
	}
	return b
}

// writer applies refreshes inside one write transaction.
type writer struct {
	tx                                                            *sql.Tx
	insUnit, setVersion, insDoc, insFTS, delFTS, delDocs, delUnit *sql.Stmt
}

func newWriter(ctx context.Context, tx *sql.Tx) (*writer, error) {
	w := &writer{tx: tx}
	for _, s := range []struct {
		dst **sql.Stmt
		sql string
	}{
		{&w.insUnit, `INSERT INTO units(source, key, version) VALUES (?, ?, ?)`},
		{&w.setVersion, `UPDATE units SET version = ? WHERE id = ?`},
		{&w.insDoc, `INSERT INTO docs(unit, uri, kind, source, status, date, tags, boost) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`},
		{&w.insFTS, `INSERT INTO fts(rowid, title, expanded, body, paths) VALUES (?, ?, ?, ?, ?)`},
		{&w.delFTS, `DELETE FROM fts WHERE rowid IN (SELECT id FROM docs WHERE unit = ?)`},
		{&w.delDocs, `DELETE FROM docs WHERE unit = ?`},
		{&w.delUnit, `DELETE FROM units WHERE id = ?`},
	} {
		st, err := tx.PrepareContext(ctx, s.sql)
		if err != nil {
			w.close()
			return nil, err
		}
		*s.dst = st
	}
	return w, nil
}

func (w *writer) close() {
	for _, st := range []*sql.Stmt{w.insUnit, w.setVersion, w.insDoc, w.insFTS, w.delFTS, w.delDocs, w.delUnit} {
		if st != nil {
			st.Close()
		}
	}
}

// applyUnit writes one delivered unit, unless the index has it at that
// version already.
func (w *writer) applyUnit(ctx context.Context, b unitBatch, ch *Changes) error {
	st, exists := b.p.stored[b.key]
	if exists && st.version == b.version {
		return nil
	}
	id := st.id
	if exists {
		if err := w.deleteDocs(ctx, id); err != nil {
			return err
		}
		if _, err := w.setVersion.ExecContext(ctx, b.version, id); err != nil {
			return err
		}
		ch.Updated++
	} else {
		res, err := w.insUnit.ExecContext(ctx, b.p.src.Name(), b.key, b.version)
		if err != nil {
			return err
		}
		if id, err = res.LastInsertId(); err != nil {
			return err
		}
		ch.Added++
	}
	b.p.stored[b.key] = unitVersion{id: id, version: b.version}
	for _, r := range b.rows {
		if err := w.insertDoc(ctx, id, r); err != nil {
			return err
		}
		ch.Docs++
	}
	return nil
}

// finish removes what a source no longer has and records its
// fingerprint. A source that failed keeps what it had (and what it
// delivered before failing), and gets no fingerprint, so that the next
// refresh lists it again; so does one that did not deliver everything.
func (w *writer) finish(ctx context.Context, p *pending, ch *Changes) error {
	if p.err != nil || p.items == nil {
		_, err := w.tx.ExecContext(ctx, `INSERT INTO sources(name, fingerprint) VALUES (?, '')
			ON CONFLICT(name) DO UPDATE SET fingerprint = ''`, p.src.Name())
		return err
	}
	for key, st := range p.stored {
		if _, ok := p.items[key]; ok {
			continue
		}
		if err := w.deleteUnit(ctx, st.id); err != nil {
			return err
		}
		ch.Removed++
	}
	fp := p.fp
	if !p.complete {
		fp = ""
	}
	_, err := w.tx.ExecContext(ctx, `INSERT INTO sources(name, fingerprint) VALUES (?, ?)
		ON CONFLICT(name) DO UPDATE SET fingerprint = excluded.fingerprint`, p.src.Name(), fp)
	return err
}

func (w *writer) insertDoc(ctx context.Context, unit int64, r docRow) error {
	res, err := w.insDoc.ExecContext(ctx, unit, r.uri, r.kind, r.source, r.status, r.date, r.tags, r.boost)
	if err != nil {
		return err
	}
	id, err := res.LastInsertId()
	if err != nil {
		return err
	}
	_, err = w.insFTS.ExecContext(ctx, id, r.title, r.expanded, r.body, r.ftsPaths)
	return err
}

func (w *writer) deleteDocs(ctx context.Context, unit int64) error {
	if _, err := w.delFTS.ExecContext(ctx, unit); err != nil {
		return err
	}
	_, err := w.delDocs.ExecContext(ctx, unit)
	return err
}

func (w *writer) deleteUnit(ctx context.Context, unit int64) error {
	if err := w.deleteDocs(ctx, unit); err != nil {
		return err
	}
	_, err := w.delUnit.ExecContext(ctx, unit)
	return err
}

// dropSource removes a source the index is no longer configured with.
func (w *writer) dropSource(ctx context.Context, name string) (int, error) {
	stored, err := storedVersions(ctx, w.tx, name)
	if err != nil {
		return 0, err
	}
	for _, st := range stored {
		if err := w.deleteUnit(ctx, st.id); err != nil {
			return 0, err
		}
	}
	_, err = w.tx.ExecContext(ctx, `DELETE FROM sources WHERE name = ?`, name)
	return len(stored), err
}
