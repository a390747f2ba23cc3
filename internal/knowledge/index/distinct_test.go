package index

import (
	"strings"
	"testing"
)

// A commit cherry-picked onto the branch (identical subject and patch, a
// "(cherry picked from …)" line added) is one result; a commit with the
// same subject that says and changes something else is not a copy.
func TestDistinctDropsCherryPicks(t *testing.T) {
	r := newTestRepo(t)
	r.commit("Initial", "README.md", "# shop\n")
	r.git("checkout", "-q", "-b", "release")
	fix := r.commit("Fix the albatross retry loop", "retry.go", "package shop\n\n// retries back off\n")
	r.git("checkout", "-q", "main")
	r.commit("Start the pelican feature", "pelican.go", "package shop\n")
	r.date++
	r.git("cherry-pick", "-x", fix)
	pick := strings.TrimSpace(r.git("rev-parse", "HEAD"))
	other := r.commit("Fix the albatross retry loop\n\nThe second loop, in the importer, had the same bug.", "other.go", "package shop\n\n// another fix, same words\n")
	r.git("merge", "-q", "--no-ff", "-m", "Merge release", "release")

	ix := openIndex(t, t.TempDir(), -1, r.localSources(NewMemorySource("entries"))...)
	all := search(t, ix, Query{Text: "albatross retry"})
	if !has(all, "git:"+fix) || !has(all, "git:"+pick) || !has(all, "git:"+other) {
		t.Fatalf("without Distinct every commit is a hit: %v", uris(all))
	}
	got := search(t, ix, Query{Text: "albatross retry", Distinct: true})
	if len(got) != 2 || !has(got, "git:"+other) || has(got, "git:"+fix) == has(got, "git:"+pick) {
		t.Errorf("distinct: %v, want the cherry-pick or its original once, and %s", uris(got), other)
	}
}

// Hits that say the same (their first 90 letters and digits of title and
// snippet) are one, and so is an adapter's copy of a local entry; the
// limit counts what is kept.
func TestDistinctDropsCopies(t *testing.T) {
	entries := NewMemorySource("entries",
		Doc{URI: "kx:2026-01-02-use-postgres", Kind: "decision", Source: "local", Title: "Use Postgres", Body: "Orders live in Postgres, never in Redis.", Date: "2026-01-02"},
		Doc{URI: "file:docs/db.md#storage", Kind: "doc", Source: "local", Title: "Use Postgres!", Body: "Orders live in Postgres — never in Redis.", Date: "2026-01-01"},
		Doc{URI: "kx:2026-01-03-cache-in-redis", Kind: "decision", Source: "local", Title: "Cache in Redis", Body: "Sessions live in Redis; orders never do, they live in Postgres.", Date: "2026-01-03"},
	)
	adapter := NewMemorySource("wiki",
		Doc{URI: "wiki://team/decisions/2026-01-03-cache-in-redis", Kind: "decision", Source: "wiki", Title: "Cache in Redis (wiki)", Body: "Copied from the repository: Redis for sessions; orders live in Postgres.", Date: "2026-01-03"},
		Doc{URI: "wiki://team/pages/billing", Kind: "doc", Source: "wiki", Title: "Billing", Body: "Invoices live in Postgres too.", Date: "2026-01-04"},
	)
	ix := openIndex(t, t.TempDir(), -1, entries, adapter)
	all := search(t, ix, Query{Text: "postgres"})
	if len(all) != 5 {
		t.Fatalf("without Distinct: %v", uris(all))
	}
	got := search(t, ix, Query{Text: "postgres", Distinct: true})
	want := map[string]bool{"kx:2026-01-03-cache-in-redis": true, "wiki://team/pages/billing": true}
	kept := 0
	for _, h := range got {
		if h.URI == "kx:2026-01-02-use-postgres" || h.URI == "file:docs/db.md#storage" {
			kept++
		} else if !want[h.URI] {
			t.Errorf("kept a copy: %s", h.URI)
		}
	}
	if kept != 1 || len(got) != 3 {
		t.Errorf("distinct: %v, want one of the two Postgres texts, the entry and the billing page", uris(got))
	}
	if got := search(t, ix, Query{Text: "postgres", Distinct: true, Limit: 2}); len(got) != 2 {
		t.Errorf("limit 2: %v", uris(got))
	}
}

// The documentation folders the tree has are indexed without
// configuration, and sources.exclude still leaves them out.
func TestDocsSourceDetectsDocFolders(t *testing.T) {
	r := newTestRepo(t)
	r.commit("site",
		"www/hugo.toml", "title = \"shop\"\n",
		"www/content/guide/install.md", "# Install\n\nRun the flamingo installer.\n",
		"www/content/guide/usage.mdx", "# Usage\n\nFeed the flamingo twice a day.\n",
		"site/index.md", "# Site\n\nThe flamingo site.\n",
		"site/about.md", "# About\n\nAbout the flamingo.\n",
		"notes/one.md", "# Notes\n\nA flamingo note outside any docs folder.\n",
	)
	open := func(opts DocsOptions) []Hit {
		docs, err := NewDocsSource(r.repo, opts)
		if err != nil {
			t.Fatal(err)
		}
		return search(t, openIndex(t, t.TempDir(), -1, docs), Query{Text: "flamingo", Limit: 50})
	}
	got := open(DocsOptions{DetectDocs: true})
	for _, want := range []string{"file:www/content/guide/install.md", "file:www/content/guide/usage.mdx", "file:site/index.md", "file:site/about.md"} {
		if !has(got, want) {
			t.Errorf("detected folders: %s not indexed: %v", want, uris(got))
		}
	}
	if has(got, "file:notes/one.md") {
		t.Errorf("a page outside the docs folders is indexed: %v", uris(got))
	}
	if got := open(DocsOptions{}); len(got) != 0 {
		t.Errorf("without detection the default globs index none of them: %v", uris(got))
	}
	got = open(DocsOptions{DetectDocs: true, Exclude: []string{"www/**"}})
	if has(got, "file:www/content/guide/install.md") || !has(got, "file:site/index.md") {
		t.Errorf("sources.exclude www/**: %v", uris(got))
	}
}
