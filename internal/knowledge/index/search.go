package index

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

const (
	// DefaultLimit and MaxLimit are ctx_search's limit default and cap.
	DefaultLimit = 10
	MaxLimit     = 50
	// MaxTitle and MaxSnippet are the longest title and snippet a hit
	// carries, in characters.
	MaxTitle   = 140
	MaxSnippet = 240
	// snippetTokens is what FTS5 cuts around the best match: about
	// MaxSnippet characters of prose, clipped exactly afterwards.
	snippetTokens = 36
)

// Query is a search.
type Query struct {
	// Text is the agent's free text. Nothing in it is syntax.
	Text string
	// Kinds keeps only these kinds (decision, convention, learning,
	// incident, architecture, doc, commit); empty keeps all.
	Kinds []string
	// Sources keeps only documents from these sources ("local", adapter
	// names); empty keeps all.
	Sources []string
	// Limit is the most hits returned: DefaultLimit when 0, at most MaxLimit.
	Limit int
	// NoRefresh searches the index as it is, without checking the sources.
	NoRefresh bool
	// Distinct drops the hits that repeat one ranked above them: the same
	// text (the first 90 letters and digits of title and snippet), an
	// adapter's copy of a local entry, the same change reached twice (a
	// cherry-picked commit). The original's retrieval does the same.
	Distinct bool
}

// Hit is one result: the document's fields (Body left empty: the snippet
// is what to show), its score and a snippet.
type Hit struct {
	Doc
	// Score is the document's BM25 score times its kind's boost; higher
	// is better. It ranks hits of one query and means nothing across
	// queries.
	Score float64
	// Snippet is the part of the body that best matches the query, on
	// one line, at most MaxSnippet characters.
	Snippet string
}

// Search refreshes the index if anything may have changed (see Refresh)
// and returns the best hits for q: by score, then newest, then by URI,
// so that equal scores always come in the same order.
func (ix *Index) Search(ctx context.Context, q Query) ([]Hit, error) {
	if !q.NoRefresh {
		if err := ix.refreshForSearch(ctx, false); err != nil {
			return nil, err
		}
	}
	expr := matchExpr(q.Text)
	if expr == "" {
		return nil, nil
	}
	limit := q.Limit
	if limit <= 0 {
		limit = DefaultLimit
	}
	if limit > MaxLimit {
		limit = MaxLimit
	}
	hits, err := ix.search(ctx, expr, q, limit)
	if err != nil && ix.recoverFrom(ctx, err) {
		// The file was corrupt and is now empty: fill it, whatever
		// NoRefresh says, and ask again.
		if err := ix.refreshForSearch(ctx, true); err != nil {
			return nil, err
		}
		hits, err = ix.search(ctx, expr, q, limit)
	}
	if err != nil && isSyntaxError(err) {
		// matchExpr quotes every term, so this is a bug, not the agent's
		// fault; the agent gets no hits rather than an FTS5 message.
		ix.logf("index: query %q as %q: %v", q.Text, expr, err)
		return nil, nil
	}
	return hits, err
}

// refreshForSearch refreshes, and lets a failure through only when the
// index has nothing to answer with: an index that could not be refreshed
// (a source failed; the failure is logged) still answers, and the next
// query tries again.
func (ix *Index) refreshForSearch(ctx context.Context, force bool) error {
	_, err := ix.refresh(ctx, force)
	if err != nil && (ctx.Err() != nil || !ix.hasContent(ctx)) {
		return err
	}
	return nil
}

func isSyntaxError(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "syntax error") || strings.Contains(msg, "unterminated string") || strings.Contains(msg, "no such column")
}

// hasContent reports whether the index holds anything to search.
func (ix *Index) hasContent(ctx context.Context) bool {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	var n int
	err := ix.db.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM units)`).Scan(&n)
	return err == nil && n > 0
}

func (ix *Index) search(ctx context.Context, expr string, q Query, limit int) ([]Hit, error) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if ix.closed {
		return nil, errors.New("index: closed")
	}
	// One read transaction: the ranking and the snippets come from the
	// same state of the index even if a refresh commits in between.
	tx, err := ix.db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()

	var where strings.Builder
	args := []any{expr}
	filter := func(col string, values []string) {
		var vs []string
		for _, v := range values {
			if v = strings.ToLower(strings.TrimSpace(v)); v != "" {
				vs = append(vs, v)
			}
		}
		if len(vs) == 0 {
			return
		}
		where.WriteString(" AND lower(d." + col + ") IN (")
		for i, v := range vs {
			if i > 0 {
				where.WriteString(", ")
			}
			where.WriteString("?")
			args = append(args, v)
		}
		where.WriteString(")")
	}
	filter("kind", q.Kinds)
	filter("source", q.Sources)
	// More than asked for: copies of one document are dropped below.
	fetch := limit + 8
	if q.Distinct {
		fetch = 2*limit + 8
	}
	args = append(args, fetch)
	rows, err := tx.QueryContext(ctx, `SELECT d.id, -bm25(fts, `+bm25Weights+`) * d.boost AS score, d.uri
		FROM fts JOIN docs d ON d.id = fts.rowid
		WHERE fts MATCH ?`+where.String()+`
		ORDER BY score DESC, d.date DESC, d.uri
		LIMIT ?`, args...)
	if err != nil {
		return nil, err
	}
	type ranked struct {
		id    int64
		score float64
	}
	var top []ranked
	seen := map[string]bool{}
	for rows.Next() {
		var r ranked
		var uri string
		if err := rows.Scan(&r.id, &r.score, &uri); err != nil {
			rows.Close()
			return nil, err
		}
		if seen[uri] {
			continue
		}
		seen[uri] = true
		top = append(top, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(top) == 0 {
		return nil, nil
	}

	// Snippets only for the hits shown (and the copies passed over):
	// snippet() in the ranking query would be computed for every match
	// before the sort.
	st, err := tx.PrepareContext(ctx, `SELECT fts.title, snippet(fts, `+strconv.Itoa(colBody)+`, '', '', '…', `+strconv.Itoa(snippetTokens)+`),
		d.uri, d.kind, d.source, d.status, d.date, fts.paths, d.tags
		FROM fts JOIN docs d ON d.id = fts.rowid
		WHERE fts MATCH ? AND fts.rowid = ?`)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	d := ix.newDeduper()
	hits := make([]Hit, 0, limit)
	for _, r := range top {
		if len(hits) == limit {
			break
		}
		var h Hit
		var snippet, paths, tags string
		err := st.QueryRowContext(ctx, expr, r.id).Scan(&h.Title, &snippet, &h.URI, &h.Kind, &h.Source, &h.Status, &h.Date, &paths, &tags)
		if err != nil {
			return nil, err
		}
		h.Score = r.score
		h.Title = clip(oneLine(h.Title), MaxTitle)
		h.Snippet = clip(oneLine(stripHeadingMarks(snippet)), MaxSnippet)
		paths, _, _ = strings.Cut(paths, pathsSep)
		h.Paths = splitLines(paths)
		h.Tags = splitLines(tags)
		if q.Distinct && d.copyOf(ctx, h) {
			continue
		}
		hits = append(hits, h)
	}
	return hits, nil
}

// dedupeChars is how much of a hit's title and snippet decides that two
// hits say the same thing: their first 90 letters and digits, as the
// original's retrieval compares them.
const dedupeChars = 90

// deduper drops the hits that repeat one already kept: the same text (by
// normalised title and snippet), an adapter's copy of a local entry (its
// URI ends in the entry's id), or the same change reached twice (a
// cherry-pick: a source that implements Twins says so).
type deduper struct {
	ix    *Index
	texts map[string]bool
	local map[string]bool   // ids of the local entries kept
	kept  map[string][]Hit  // by kind and normalised title: hits a twin may repeat
	ids   map[string]string // URI → identity, from the Twins sources
}

func (ix *Index) newDeduper() *deduper {
	return &deduper{ix: ix, texts: map[string]bool{}, local: map[string]bool{}, kept: map[string][]Hit{}, ids: map[string]string{}}
}

func (d *deduper) copyOf(ctx context.Context, h Hit) bool {
	key := normalized(h.Title + " " + h.Snippet)
	if key != "" && d.texts[key] {
		return true
	}
	if h.Source != "local" {
		uri := h.URI
		if i := strings.LastIndexAny(uri, "/:"); i >= 0 {
			uri = uri[i+1:]
		}
		if d.local[uri] {
			return true
		}
	}
	twinKey := h.Kind + "\x00" + normalized(h.Title)
	for _, k := range d.kept[twinKey] {
		if d.twins(ctx, k.URI, h.URI) {
			return true
		}
	}
	if key != "" {
		d.texts[key] = true
	}
	if id, ok := strings.CutPrefix(h.URI, "kx:"); ok && h.Source == "local" {
		d.local[id] = true
	}
	d.kept[twinKey] = append(d.kept[twinKey], h)
	return false
}

// twins asks the sources that know whether a and b are one document.
func (d *deduper) twins(ctx context.Context, a, b string) bool {
	var ask []string
	for _, u := range []string{a, b} {
		if _, ok := d.ids[u]; !ok {
			ask = append(ask, u)
		}
	}
	if len(ask) > 0 {
		for _, s := range d.ix.opts.Sources {
			t, ok := s.(Twins)
			if !ok {
				continue
			}
			got, err := t.Identities(ctx, ask)
			if err != nil {
				d.ix.logf("index: %s: telling copies apart: %v", s.Name(), err)
				continue
			}
			for u, id := range got {
				d.ids[u] = id
			}
		}
		for _, u := range ask {
			if _, ok := d.ids[u]; !ok {
				d.ids[u] = "" // none knows it: never asked again
			}
		}
	}
	return d.ids[a] != "" && d.ids[a] == d.ids[b]
}

// normalized is the first dedupeChars letters and digits of s, lower case.
func normalized(s string) string {
	var b strings.Builder
	n := 0
	for _, r := range s {
		if n == dedupeChars {
			break
		}
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(unicode.ToLower(r))
			n++
		}
	}
	return b.String()
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// stripHeadingMarks drops the #s of Markdown headings (an entry's
// "## Decision"), which in a one-line snippet are noise.
func stripHeadingMarks(s string) string {
	if !strings.Contains(s, "#") {
		return s
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		t := strings.TrimLeft(l, " ")
		if h := strings.TrimLeft(t, "#"); len(h) < len(t) && len(t)-len(h) <= 6 && (h == "" || h[0] == ' ' || h[0] == '\t') {
			lines[i] = strings.TrimSpace(h)
		}
	}
	return strings.Join(lines, "\n")
}

// oneLine collapses runs of white space (newlines included) to one space.
func oneLine(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) {
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// clip shortens s to at most n characters, at a word boundary when one
// is near, ending with "…".
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)[:n-1]
	cut := len(r)
	for i := len(r) - 1; i > len(r)*3/4; i-- {
		if r[i] == ' ' {
			cut = i
			break
		}
	}
	return strings.TrimRight(string(r[:cut]), " …") + "…"
}

// Stats describe the index.
type Stats struct {
	// Docs counts the documents by kind; Units the items by source.
	Docs  map[string]int
	Units map[string]int
	// Bytes is the size of the index's files on disk.
	Bytes int64
}

// Stats reports what the index holds, as it is (no refresh).
func (ix *Index) Stats(ctx context.Context) (Stats, error) {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	st := Stats{Docs: map[string]int{}, Units: map[string]int{}}
	for _, q := range []struct {
		sql string
		m   map[string]int
	}{
		{`SELECT kind, count(*) FROM docs GROUP BY kind`, st.Docs},
		{`SELECT source, count(*) FROM units GROUP BY source`, st.Units},
	} {
		rows, err := ix.db.QueryContext(ctx, q.sql)
		if err != nil {
			return st, err
		}
		for rows.Next() {
			var k string
			var n int
			if err := rows.Scan(&k, &n); err != nil {
				rows.Close()
				return st, err
			}
			q.m[k] = n
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return st, err
		}
	}
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if fi, err := os.Stat(ix.path + suffix); err == nil {
			st.Bytes += fi.Size()
		}
	}
	return st, nil
}
