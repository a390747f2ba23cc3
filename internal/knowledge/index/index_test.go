package index

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

// fixture is a repository with commits, Markdown docs and entries.
type fixture struct {
	*testRepo
	entries    *MemorySource
	ix         *Index
	indexDir   string
	pgCommit   string // mentions postgres once
	totCommit  string // uses the identifier orderTotal
	featCommit string // merged with a merge commit
}

func newFixture(t *testing.T, minInterval time.Duration) *fixture {
	t.Helper()
	r := newTestRepo(t)
	f := &fixture{testRepo: r}
	r.commit("Initial layout", "README.md", "# Shop\n\nA small shop.\n\n## Install\n\nRun make.\n")
	f.pgCommit = r.commit("Tune the connection pool\n\nThe pool was too small for postgres under load; raise it to 20.\n\nCo-authored-by: Grace Hopper <grace@example.com>\nSigned-off-by: Ada Lovelace <ada@example.com>\nRefs: SHOP-12",
		"internal/db/pool.go", "package db\n")
	f.totCommit = r.commit("Compute orderTotal in cents", "internal/orders/orderTotal.go", "package orders\n")
	r.commit("Unrelated tweak to the logger", "internal/log/log.go", "package log\n")
	r.write("docs/billing.md", `---
title: Billing guide
---
# Billing

How invoices are produced.

## Order total

The order total includes taxes and shipping, rounded to cents.

## Refunds

Refunds go back to the original card.

`+"```"+`
## not a heading inside a fence
`+"```"+`
`)
	r.write("internal/orders/README.md", "# Orders\n\n## Lifecycle\n\nAn order is placed, paid, shipped.\n")
	r.write("CHANGELOG.md", "# Changelog\n\n## 1.0\n\nzebracorn release\n")               // excluded by default
	r.write("internal/x/testdata/README.md", "# Fixture\n\nzebracorn fixture text\n")     // excluded
	r.write(".ai/decisions/README.md", "# Store index\n\nzebracorn store readme\n")       // the store's, not docs
	r.write("docs/huge.md", "# Huge\n\n"+strings.Repeat("zebracorn ", DefaultMaxBytes/9)) // over max_bytes
	r.commit("Add docs")
	r.git("checkout", "-q", "-b", "feature")
	f.featCommit = r.commit("Teach the walrus to count", "internal/walrus/count.go", "package walrus\n")
	r.git("checkout", "-q", "main")
	r.date++
	r.git("merge", "-q", "--no-ff", "-m", "Merge the walrus branch", "feature")

	f.entries = NewMemorySource("entries",
		Doc{URI: "kx:2026-01-05-use-postgres", Kind: "decision", Title: "Use Postgres for orders", Status: "accepted", Date: "2026-01-05",
			Body: "## Context\nWe need transactions across orders and payments.\n\n## Decision\nStore orders in Postgres, not in the document store.\n",
			Tags: []string{"database"}, Paths: []string{"internal/orders/**"}},
		Doc{URI: "kx:old-use-mongo", Kind: "decision", Title: "Use Mongo for orders", Status: "superseded", Date: "2025-06-01",
			Body: "Orders lived in Mongo until we moved them."},
		Doc{URI: "kx:money-in-cents", Kind: "convention", Title: "Money is integer cents", Status: "accepted", Date: "2026-01-03",
			Body: "Never use floats for money; amounts are int64 cents."},
		Doc{URI: "kx:flaky-ci", Kind: "learning", Title: "CI is flaky on Mondays", Date: "2026-01-04",
			Body: "The runner cache expires on Monday."},
	)
	f.indexDir = filepath.Join(r.repo.CommonDir, "kontext", "worktrees", "main")
	f.ix = openIndex(t, f.indexDir, minInterval, r.localSources(f.entries)...)
	return f
}

func TestRankingAndFilters(t *testing.T) {
	t.Parallel()
	f := newFixture(t, -1)
	ctx := context.Background()

	t.Run("decision beats a commit mentioning it once", func(t *testing.T) {
		hits := search(t, f.ix, Query{Text: "postgres"})
		if len(hits) < 2 || hits[0].URI != "kx:2026-01-05-use-postgres" {
			t.Fatalf("hits %v", uris(hits))
		}
		if r := rank(hits, "git:"+f.pgCommit); r < 1 {
			t.Fatalf("the commit should be found below the decision: %v", uris(hits))
		}
		h := hits[0]
		if h.Kind != "decision" || h.Status != "accepted" || h.Date != "2026-01-05" || h.Source != "local" || h.Title != "Use Postgres for orders" {
			t.Errorf("hit fields: %+v", h)
		}
		if !strings.Contains(strings.ToLower(h.Snippet), "postgres") || strings.Contains(h.Snippet, "#") || h.Body != "" {
			t.Errorf("snippet %q body %q", h.Snippet, h.Body)
		}
		if len(h.Tags) != 1 || len(h.Paths) != 1 {
			t.Errorf("tags %v paths %v", h.Tags, h.Paths)
		}
	})

	t.Run("identifier finds the words", func(t *testing.T) {
		hits := search(t, f.ix, Query{Text: "orderTotal"})
		if !has(hits, "file:docs/billing.md#order-total") {
			t.Fatalf("orderTotal should find the doc saying 'order total': %v", uris(hits))
		}
		if !has(hits, "git:"+f.totCommit) {
			t.Fatalf("orderTotal should find the commit naming it: %v", uris(hits))
		}
		for _, q := range []string{"order_total", "order-total", "order total", "OrderTotal"} {
			hits := search(t, f.ix, Query{Text: q})
			if !has(hits, "git:"+f.totCommit) || !has(hits, "file:docs/billing.md#order-total") {
				t.Errorf("%q: %v", q, uris(hits))
			}
		}
	})

	t.Run("sections, titles and slugs", func(t *testing.T) {
		hits := search(t, f.ix, Query{Text: "refunds card"})
		if len(hits) == 0 || hits[0].URI != "file:docs/billing.md#refunds" || hits[0].Title != "Billing › Refunds" {
			t.Fatalf("%+v", hits)
		}
		hits = search(t, f.ix, Query{Text: "invoices"})
		if len(hits) == 0 || hits[0].URI != "file:docs/billing.md" || hits[0].Title != "Billing" {
			t.Fatalf("preamble: %+v", hits)
		}
		hits = search(t, f.ix, Query{Text: "lifecycle shipped"})
		if len(hits) == 0 || hits[0].URI != "file:internal/orders/README.md#lifecycle" {
			t.Fatalf("nested README: %+v", hits)
		}
		if hits := search(t, f.ix, Query{Text: "heading inside fence"}); has(hits, "file:docs/billing.md#not-a-heading-inside-a-fence") {
			t.Fatalf("a fenced line became a section: %v", uris(hits))
		}
	})

	t.Run("excluded, oversized and store files are not docs", func(t *testing.T) {
		if hits := search(t, f.ix, Query{Text: "zebracorn"}); len(hits) != 0 {
			t.Fatalf("%v", uris(hits))
		}
	})

	t.Run("commit text", func(t *testing.T) {
		if hits := search(t, f.ix, Query{Text: "Grace Hopper"}); len(hits) != 0 {
			t.Fatalf("co-author lines are not indexed: %v", uris(hits))
		}
		hits := search(t, f.ix, Query{Text: "SHOP-12"})
		if len(hits) != 1 || hits[0].URI != "git:"+f.pgCommit {
			t.Fatalf("other trailers are: %v", uris(hits))
		}
		hits = search(t, f.ix, Query{Text: "pool.go"})
		if len(hits) == 0 || hits[0].URI != "git:"+f.pgCommit {
			t.Fatalf("file names are searchable: %v", uris(hits))
		}
		if strings.Contains(hits[0].Snippet, "pool.go") || hits[0].Paths[0] != "internal/db/pool.go" {
			t.Fatalf("but not in the snippet: %+v", hits[0])
		}
		if hits[0].Date != "2026-02-03" {
			t.Errorf("author date %q", hits[0].Date)
		}
	})

	t.Run("merge commits are not indexed", func(t *testing.T) {
		hits := search(t, f.ix, Query{Text: "walrus"})
		if len(hits) != 1 || hits[0].URI != "git:"+f.featCommit {
			t.Fatalf("%v", uris(hits))
		}
	})

	t.Run("kinds and sources", func(t *testing.T) {
		hits := search(t, f.ix, Query{Text: "orders", Kinds: []string{"commit"}})
		for _, h := range hits {
			if h.Kind != "commit" {
				t.Fatalf("%+v", h)
			}
		}
		hits = search(t, f.ix, Query{Text: "orders", Kinds: []string{"decision", "DOC"}})
		if len(hits) == 0 {
			t.Fatal("no hits")
		}
		for _, h := range hits {
			if h.Kind != "decision" && h.Kind != "doc" {
				t.Fatalf("%+v", h)
			}
		}
		if hits := search(t, f.ix, Query{Text: "orders", Sources: []string{"slack"}}); len(hits) != 0 {
			t.Fatalf("%v", uris(hits))
		}
		if hits := search(t, f.ix, Query{Text: "orders", Sources: []string{"local"}}); len(hits) == 0 {
			t.Fatal("local")
		}
	})

	t.Run("superseded ranks below its replacement", func(t *testing.T) {
		hits := search(t, f.ix, Query{Text: "orders database"})
		if rank(hits, "kx:old-use-mongo") < rank(hits, "kx:2026-01-05-use-postgres") {
			t.Fatalf("%v", uris(hits))
		}
	})

	t.Run("limits", func(t *testing.T) {
		if hits := search(t, f.ix, Query{Text: "orders", Limit: 2}); len(hits) != 2 {
			t.Fatalf("%d", len(hits))
		}
		if hits := search(t, f.ix, Query{Text: "the of and"}); len(hits) == 0 {
			t.Fatal("a query of stopwords only still searches")
		}
		if hits := search(t, f.ix, Query{Text: "  -- ** ()  "}); hits != nil {
			t.Fatalf("%v", hits)
		}
	})

	t.Run("agent syntax is text", func(t *testing.T) {
		for _, q := range []string{`"postgres`, `postgres AND`, `NEAR(postgres orders)`, `title:postgres`, `postgres*`, `(`, `"`, `^orders`, `orders OR`, `NOT`} {
			if _, err := f.ix.Search(ctx, Query{Text: q}); err != nil {
				t.Errorf("%q: %v", q, err)
			}
		}
		hits := search(t, f.ix, Query{Text: `title:"postgres`})
		if len(hits) == 0 || hits[0].URI != "kx:2026-01-05-use-postgres" {
			t.Fatalf("%v", uris(hits))
		}
	})

	t.Run("deterministic order", func(t *testing.T) {
		docs := make([]Doc, 0, 3)
		for _, id := range []string{"b", "a", "c"} {
			docs = append(docs, Doc{URI: "kx:same-" + id, Kind: "learning", Title: "Quokka", Body: "quokka", Date: "2026-01-01"})
		}
		docs[2].Date = "2026-03-01"
		f.entries.Put(docs...)
		hits := search(t, f.ix, Query{Text: "quokka"})
		want := []string{"kx:same-c", "kx:same-a", "kx:same-b"}
		if strings.Join(uris(hits), " ") != strings.Join(want, " ") {
			t.Fatalf("%v, want %v", uris(hits), want)
		}
	})
}

func TestSnippetAndTitleBounds(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	r.commit("init")
	long := strings.Repeat("filler words about nothing in particular ", 40) + "the needle is here " + strings.Repeat("more filler after it ", 40)
	entries := NewMemorySource("entries", Doc{URI: "kx:long", Kind: "learning", Title: strings.Repeat("Very long title ", 20), Body: long})
	ix := openIndex(t, t.TempDir(), -1, r.localSources(entries)...)
	hits := search(t, ix, Query{Text: "needle"})
	if len(hits) != 1 {
		t.Fatalf("%v", uris(hits))
	}
	h := hits[0]
	if n := utf8.RuneCountInString(h.Snippet); n > MaxSnippet || !strings.Contains(h.Snippet, "needle") {
		t.Fatalf("snippet (%d) %q", n, h.Snippet)
	}
	if n := utf8.RuneCountInString(h.Title); n > MaxTitle || !strings.HasSuffix(h.Title, "…") {
		t.Fatalf("title (%d) %q", n, h.Title)
	}
}

func TestIncrementalRefresh(t *testing.T) {
	t.Parallel()
	f := newFixture(t, -1)
	ctx := context.Background()
	search(t, f.ix, Query{Text: "anything"}) // builds

	// The docs source learns what to stat from its first listing, so the
	// refresh after it lists once more; from then on, when nothing
	// changed, the check is all a refresh does.
	ch, err := f.ix.Refresh(ctx)
	if err != nil || ch.Added+ch.Updated+ch.Removed != 0 {
		t.Fatalf("second refresh: %+v %v", ch, err)
	}
	ch, err = f.ix.Refresh(ctx)
	if err != nil || !ch.Checked || len(ch.Sources) != 0 {
		t.Fatalf("idle refresh: %+v %v", ch, err)
	}

	t.Run("edited doc", func(t *testing.T) {
		f.write("docs/billing.md", "# Billing\n\n## Order total\n\nThe grand sum now includes a platypus surcharge.\n")
		hits := search(t, f.ix, Query{Text: "platypus"})
		if len(hits) != 1 || hits[0].URI != "file:docs/billing.md#order-total" {
			t.Fatalf("new words: %v", uris(hits))
		}
		if hits := search(t, f.ix, Query{Text: "refunds"}); has(hits, "file:docs/billing.md#refunds") {
			t.Fatalf("old section still found: %v", uris(hits))
		}
		if hits := search(t, f.ix, Query{Text: "shipping taxes"}); has(hits, "file:docs/billing.md#order-total") {
			t.Fatalf("old words still found: %v", uris(hits))
		}
	})

	t.Run("new untracked doc", func(t *testing.T) {
		f.write("docs/guides/deploy.md", "# Deploy\n\nShip with the wombat pipeline.\n")
		hits := search(t, f.ix, Query{Text: "wombat"})
		if len(hits) != 1 || hits[0].URI != "file:docs/guides/deploy.md" {
			t.Fatalf("%v", uris(hits))
		}
	})

	t.Run("doc written into a directory made earlier", func(t *testing.T) {
		if err := os.MkdirAll(filepath.Join(f.dir, "docs", "later", "deeper"), 0o755); err != nil {
			t.Fatal(err)
		}
		search(t, f.ix, Query{Text: "anything"}) // sees the new, empty directory
		f.write("docs/later/deeper/notes.md", "# Notes\n\nThe quetzal migration.\n")
		if hits := search(t, f.ix, Query{Text: "quetzal"}); len(hits) != 1 {
			t.Fatalf("%v", uris(hits))
		}
	})

	t.Run("deleted doc", func(t *testing.T) {
		f.remove("docs/guides/deploy.md")
		if hits := search(t, f.ix, Query{Text: "wombat"}); len(hits) != 0 {
			t.Fatalf("%v", uris(hits))
		}
	})

	t.Run("amended commit", func(t *testing.T) {
		old := f.commit("Adopt the narwhal cache", "cache.go", "package cache\n")
		if hits := search(t, f.ix, Query{Text: "narwhal"}); len(hits) != 1 || hits[0].URI != "git:"+old {
			t.Fatalf("%v", uris(hits))
		}
		f.git("commit", "-q", "--amend", "-m", "Adopt the okapi cache")
		if hits := search(t, f.ix, Query{Text: "narwhal"}); len(hits) != 0 {
			t.Fatalf("the amended commit is still found: %v", uris(hits))
		}
		hits := search(t, f.ix, Query{Text: "okapi"})
		if len(hits) != 1 || hits[0].URI == "git:"+old {
			t.Fatalf("%v", uris(hits))
		}
	})

	t.Run("entries", func(t *testing.T) {
		f.entries.Put(Doc{URI: "kx:new", Kind: "incident", Title: "Checkout outage", Body: "The axolotl job filled the disk."})
		if hits := search(t, f.ix, Query{Text: "axolotl"}); len(hits) != 1 || hits[0].Kind != "incident" {
			t.Fatalf("%+v", hits)
		}
		f.entries.Delete("kx:new")
		if hits := search(t, f.ix, Query{Text: "axolotl"}); len(hits) != 0 {
			t.Fatalf("%v", uris(hits))
		}
	})

	t.Run("a second process sees the first one's refresh", func(t *testing.T) {
		other := openIndex(t, f.indexDir, -1, f.localSources(f.entries)...)
		ch, err := other.Refresh(ctx)
		if err != nil {
			t.Fatal(err)
		}
		// Its docs source lists once (it cannot know the file list
		// without asking git), and finds nothing to write.
		if ch.Added+ch.Updated+ch.Removed != 0 || len(ch.Sources) != 1 || ch.Sources[0] != "docs" {
			t.Fatalf("%+v", ch)
		}
		if hits := search(t, other, Query{Text: "okapi"}); len(hits) != 1 {
			t.Fatalf("%v", uris(hits))
		}
	})

	t.Run("a source that is gone is dropped", func(t *testing.T) {
		src := f.localSources(f.entries)
		ix := openIndex(t, f.indexDir, -1, src[0], src[1]) // no entries
		if hits := search(t, ix, Query{Text: "postgres"}); has(hits, "kx:2026-01-05-use-postgres") {
			t.Fatalf("%v", uris(hits))
		}
	})
}

func TestRateLimit(t *testing.T) {
	t.Parallel()
	f := newFixture(t, time.Hour)
	ctx := context.Background()
	search(t, f.ix, Query{Text: "anything"})
	f.write("docs/new.md", "# New\n\nThe capybara doc.\n")
	if hits := search(t, f.ix, Query{Text: "capybara"}); len(hits) != 0 {
		t.Fatalf("refreshed within the interval: %v", uris(hits))
	}
	if ch, err := f.ix.Refresh(ctx); err != nil || ch.Checked {
		t.Fatalf("%+v %v", ch, err)
	}
	if ch, err := f.ix.RefreshNow(ctx); err != nil || ch.Added != 1 {
		t.Fatalf("%+v %v", ch, err)
	}
	if hits := search(t, f.ix, Query{Text: "capybara"}); len(hits) != 1 {
		t.Fatalf("%v", uris(hits))
	}
}

func TestRebuild(t *testing.T) {
	t.Parallel()
	f := newFixture(t, -1)
	ctx := context.Background()
	first, err := f.ix.RefreshNow(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ch, err := f.ix.Rebuild(ctx)
	if err != nil || ch.Added != first.Added || ch.Docs != first.Docs {
		t.Fatalf("rebuild %+v, first %+v, %v", ch, first, err)
	}
	st, err := f.ix.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// 6 commits (the merge left out), 4 entries, and the sections of
	// README.md (2), docs/billing.md (3), internal/orders/README.md (1).
	if st.Docs["commit"] != 6 || st.Docs["decision"] != 2 || st.Docs["doc"] != 6 || st.Units["entries"] != 4 || st.Bytes == 0 {
		t.Fatalf("%+v", st)
	}
}

func TestCorruptIndexIsRebuilt(t *testing.T) {
	t.Parallel()
	f := newFixture(t, -1)
	search(t, f.ix, Query{Text: "postgres"})
	path := f.ix.Path()
	f.ix.Close()

	t.Run("garbage file", func(t *testing.T) {
		removeDBFiles(path)
		if err := os.WriteFile(path, []byte(strings.Repeat("this is not a database ", 500)), 0o644); err != nil {
			t.Fatal(err)
		}
		ix := openIndex(t, f.indexDir, -1, f.localSources(f.entries)...)
		if hits := search(t, ix, Query{Text: "postgres"}); len(hits) == 0 || hits[0].URI != "kx:2026-01-05-use-postgres" {
			t.Fatalf("%v", uris(hits))
		}
		ix.Close()
	})

	t.Run("damaged pages", func(t *testing.T) {
		// A valid header over damaged tables: SQLite opens the file and
		// reports the damage only when a query reads it.
		ix := openIndex(t, f.indexDir, -1, f.localSources(f.entries)...)
		search(t, ix, Query{Text: "postgres"})
		if _, err := ix.db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
			t.Fatal(err)
		}
		ix.Close()
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for i := 4096; i < len(data); i++ {
			data[i] = byte(i * 7)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		ix = openIndex(t, f.indexDir, -1, f.localSources(f.entries)...)
		if hits := search(t, ix, Query{Text: "postgres"}); len(hits) == 0 || hits[0].URI != "kx:2026-01-05-use-postgres" {
			t.Fatalf("%v", uris(hits))
		}
		ix.Close()
	})

	t.Run("damaged full-text index found by a query", func(t *testing.T) {
		ix := openIndex(t, f.indexDir, time.Hour, f.localSources(f.entries)...)
		search(t, ix, Query{Text: "postgres"})
		if _, err := ix.db.Exec(`UPDATE fts_data SET block = randomblob(length(block)) WHERE id > 10`); err != nil {
			t.Fatal(err)
		}
		if _, err := ix.search(context.Background(), matchExpr("postgres"), Query{}, 10); !isCorrupt(err) {
			t.Fatalf("the damage is not seen: %v", err)
		}
		// Within the refresh interval, so only the recovery rebuilds.
		if hits := search(t, ix, Query{Text: "postgres"}); len(hits) == 0 || hits[0].URI != "kx:2026-01-05-use-postgres" {
			t.Fatalf("%v", uris(hits))
		}
	})
}

func TestOldSchemaIsRebuilt(t *testing.T) {
	t.Parallel()
	f := newFixture(t, -1)
	search(t, f.ix, Query{Text: "postgres"})
	if _, err := f.ix.db.Exec(`UPDATE meta SET value = '0' WHERE key = 'schema'`); err != nil {
		t.Fatal(err)
	}
	f.ix.Close()
	old := filepath.Join(f.indexDir, "index-v0.db")
	os.WriteFile(old, []byte("an older version's index"), 0o644)
	os.WriteFile(old+"-wal", nil, 0o644)

	ix := openIndex(t, f.indexDir, -1, f.localSources(f.entries)...)
	var n int
	if err := ix.db.QueryRow(`SELECT count(*) FROM docs`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("the old schema's rows survived: %d %v", n, err)
	}
	if hits := search(t, ix, Query{Text: "postgres"}); len(hits) == 0 {
		t.Fatal("not rebuilt")
	}
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Fatalf("another version's file is kept: %v", err)
	}
	if _, err := os.Stat(old + "-wal"); !os.IsNotExist(err) {
		t.Fatalf("another version's file is kept: %v", err)
	}
}

// Two goroutines query while a third refreshes, through one index and
// through a second handle on the same file (another process, as far as
// SQLite is concerned): every answer is a complete state, never half a
// refresh, and nothing fails.
func TestConcurrentQueriesDuringRefresh(t *testing.T) {
	t.Parallel()
	r := newTestRepo(t)
	r.commit("init")
	ctx := context.Background()
	entries := NewMemorySource("entries", generation(0)...)
	dir := t.TempDir()
	writer := openIndex(t, dir, -1, entries)
	reader := openIndex(t, dir, time.Hour, NewMemorySource("entries")) // never refreshes: it would drop the entries
	if _, err := writer.RefreshNow(ctx); err != nil {
		t.Fatal(err)
	}

	var wg sync.WaitGroup
	stop := make(chan struct{})
	errs := make(chan error, 100)
	for _, ix := range []*Index{writer, reader} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				hits, err := ix.Search(ctx, Query{Text: "pelican", NoRefresh: ix == reader, Limit: 50})
				if err == nil {
					err = oneGeneration(hits)
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	for g := 1; g <= 30; g++ {
		entries.Put(generation(g)...)
		if _, err := writer.RefreshNow(ctx); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// generation is ten entries that a refresh replaces all at once: a query
// that saw half a refresh would find two generations.
func generation(g int) []Doc {
	docs := make([]Doc, 10)
	for i := range docs {
		docs[i] = Doc{URI: "kx:e" + string(rune('a'+i)), Kind: "learning", Title: "Pelican rule", Body: "pelican generation g" + twoDigits(g)}
	}
	return docs
}

func oneGeneration(hits []Hit) error {
	if len(hits) != 10 {
		return fmt.Errorf("saw %d hits", len(hits))
	}
	for _, h := range hits {
		if h.Snippet != hits[0].Snippet {
			return fmt.Errorf("half a refresh: %q and %q", hits[0].Snippet, h.Snippet)
		}
	}
	return nil
}

// A real second process (this test binary again) refreshes the index
// generation after generation while this one queries it: SQLite's file
// locks, not anything in this process, keep every answer whole.
func TestAnotherProcessRefreshes(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts a process")
	}
	ctx := context.Background()
	dir := t.TempDir()
	first := openIndex(t, dir, -1, NewMemorySource("entries", generation(0)...))
	if _, err := first.RefreshNow(ctx); err != nil {
		t.Fatal(err)
	}
	reader := openIndex(t, dir, time.Hour, NewMemorySource("entries"))
	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), childEnv+"="+dir)
	out := &strings.Builder{}
	child.Stdout, child.Stderr = out, out
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- child.Wait() }()
	seen := map[string]bool{}
	for {
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("child: %v\n%s", err, out)
			}
			hits := search(t, reader, Query{Text: "pelican", NoRefresh: true})
			if len(hits) == 0 || !strings.Contains(hits[0].Snippet, "g"+twoDigits(childGenerations)) {
				t.Fatalf("the last generation is not seen: %+v", hits)
			}
			if len(seen) < 2 {
				t.Logf("only saw %d generations while the child ran", len(seen))
			}
			return
		default:
		}
		hits, err := reader.Search(ctx, Query{Text: "pelican", NoRefresh: true, Limit: 50})
		if err == nil {
			err = oneGeneration(hits)
		}
		if err != nil {
			t.Fatal(err)
		}
		seen[hits[0].Snippet] = true
	}
}

const (
	childEnv         = "KONTEXT_INDEX_TEST_CHILD"
	childGenerations = 40
)

// runChild is the other process of TestAnotherProcessRefreshes.
func runChild(dir string) error {
	ctx := context.Background()
	entries := NewMemorySource("entries")
	ix, err := Open(ctx, Options{Dir: dir, Sources: []Source{entries}})
	if err != nil {
		return err
	}
	defer ix.Close()
	for g := 1; g <= childGenerations; g++ {
		entries.Put(generation(g)...)
		if _, err := ix.RefreshNow(ctx); err != nil {
			return err
		}
	}
	return nil
}

// Two processes refresh the same index at once after the same changes:
// one does the work, the other waits for SQLite's lock and finds it done.
func TestTwoWritersRefreshTogether(t *testing.T) {
	t.Parallel()
	f := newFixture(t, -1)
	ctx := context.Background()
	if _, err := f.ix.RefreshNow(ctx); err != nil {
		t.Fatal(err)
	}
	other := openIndex(t, f.indexDir, -1, f.localSources(f.entries)...)
	if _, err := other.RefreshNow(ctx); err != nil {
		t.Fatal(err)
	}
	for round := 0; round < 5; round++ {
		f.write("docs/race.md", "# Race\n\nround "+twoDigits(round)+" of the ibex\n")
		f.commit("Ibex round " + twoDigits(round))
		var wg sync.WaitGroup
		changes := make([]Changes, 2)
		errs := make([]error, 2)
		for i, ix := range []*Index{f.ix, other} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				changes[i], errs[i] = ix.RefreshNow(ctx)
			}()
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				t.Fatal(err)
			}
		}
		if a, b := changes[0].Added+changes[0].Updated, changes[1].Added+changes[1].Updated; a+b != 2 {
			t.Errorf("round %d: the changes were written %d+%d times, want once: %+v", round, a, b, changes)
		}
		for _, ix := range []*Index{f.ix, other} {
			hits := search(t, ix, Query{Text: "ibex", Kinds: []string{"doc"}})
			if len(hits) != 1 || !strings.Contains(hits[0].Snippet, "round "+twoDigits(round)) {
				t.Fatalf("round %d: %+v", round, hits)
			}
		}
	}
}

// flakySource fails when told to, like a source whose git or disk broke.
type flakySource struct {
	*MemorySource
	fail bool
}

func (s *flakySource) List(ctx context.Context) ([]Item, error) {
	if s.fail {
		return nil, fmt.Errorf("the disk is on fire")
	}
	return s.MemorySource.List(ctx)
}

func TestFailingSource(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	good := NewMemorySource("good", Doc{URI: "kx:good", Kind: "learning", Title: "Heron", Body: "heron"})
	bad := &flakySource{MemorySource: NewMemorySource("bad", Doc{URI: "kx:bad", Kind: "learning", Title: "Heron too", Body: "heron"}), fail: true}
	ix := openIndex(t, t.TempDir(), -1, good, bad)

	// Only the failing source has nothing: the other one is searched,
	// and the failure is reported by Refresh, not by every query.
	if _, err := ix.RefreshNow(ctx); err == nil || !strings.Contains(err.Error(), "disk is on fire") {
		t.Fatalf("refresh: %v", err)
	}
	if hits := search(t, ix, Query{Text: "heron"}); len(hits) != 1 || hits[0].URI != "kx:good" {
		t.Fatalf("%v", uris(hits))
	}
	bad.fail = false
	if hits := search(t, ix, Query{Text: "heron"}); len(hits) != 2 {
		t.Fatalf("the source is retried: %v", uris(hits))
	}
	// What a source had survives its failure.
	bad.fail = true
	bad.Put(Doc{URI: "kx:bad2", Kind: "learning", Title: "Heron three", Body: "heron"})
	if hits := search(t, ix, Query{Text: "heron"}); len(hits) != 2 {
		t.Fatalf("%v", uris(hits))
	}

	// With nothing indexed at all, the failure is the answer.
	empty := openIndex(t, t.TempDir(), -1, &flakySource{MemorySource: NewMemorySource("bad"), fail: true})
	if _, err := empty.Search(ctx, Query{Text: "heron"}); err == nil {
		t.Fatal("a search of an index that could never be built succeeds")
	}
}

// After a branch switch most of the window is new: the commits source
// walks history instead of naming each commit, and the result is the
// same.
func TestCommitsLoadByWalking(t *testing.T) {
	r := newTestRepo(t)
	for i := 0; i < 6; i++ {
		r.commit("Main commit " + twoDigits(i) + " about herons")
	}
	r.git("checkout", "-q", "-b", "other", "HEAD~5")
	for i := 0; i < 6; i++ {
		r.commit("Other commit " + twoDigits(i) + " about herons")
	}
	r.git("checkout", "-q", "main")
	src := NewCommitsSource(r.repo, CommitsOptions{Max: 4})
	ix := openIndex(t, t.TempDir(), -1, src)
	if hits := search(t, ix, Query{Text: "herons", Limit: 50}); len(hits) != 4 || !strings.HasPrefix(hits[0].Title, "Main commit 05") {
		t.Fatalf("%+v", hits)
	}
	defer func(n int) { walkThreshold = n }(walkThreshold)
	walkThreshold = 1
	r.git("checkout", "-q", "other")
	hits := search(t, ix, Query{Text: "herons", Limit: 50})
	if len(hits) != 4 {
		t.Fatalf("%+v", hits)
	}
	for _, h := range hits {
		if !strings.HasPrefix(h.Title, "Other commit") {
			t.Fatalf("%+v", hits)
		}
	}
}
