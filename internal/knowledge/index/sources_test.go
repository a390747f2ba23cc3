package index

import (
	"strings"
	"testing"

	"github.com/kontext-dev/kontext/internal/git"
)

func TestSplitMarkdown(t *testing.T) {
	src := "\ufeff---\ntitle: From front matter\n---\nIntro text.\n\n## Usage\n\nrun it\n\n```sh\n## not a section\n```\n\n### Sub heading\n\nmore\n\n## Usage\n\nagain\n\n## Usage-1 ##\n\nthird\n\n## [Linked](http://x) `code` & <b>bold</b>!\n\nx\n\n## 🎉\n\nparty\n\n## Empty\n"
	docs := splitMarkdown("docs/a.md", []byte(src), "local")
	var got []string
	for _, d := range docs {
		got = append(got, d.URI+" | "+d.Title+" | "+strings.ReplaceAll(d.Body, "\n", "/"))
	}
	want := []string{
		"file:docs/a.md | From front matter | Intro text.",
		"file:docs/a.md#usage | From front matter › Usage | run it//```sh/## not a section/```//Sub heading//more",
		"file:docs/a.md#usage-1 | From front matter › Usage | again",
		"file:docs/a.md#usage-1-1 | From front matter › Usage-1 | third",
		"file:docs/a.md#linked-code--bold | From front matter › Linked `code` & bold! | x",
		"file:docs/a.md#section | From front matter › 🎉 | party",
		// ## Empty has nothing in it: not a document.
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	docs = splitMarkdown("README.md", []byte("Shop\n====\n\nA shop.\n"), "local")
	if len(docs) != 1 || docs[0].Title != "Shop" || docs[0].Body != "A shop." || docs[0].URI != "file:README.md" {
		t.Errorf("setext: %+v", docs)
	}
	docs = splitMarkdown("x/NOTES.md", []byte("# Notes\n"), "local")
	if len(docs) != 1 || docs[0].Title != "Notes" {
		t.Errorf("a title alone is still a document: %+v", docs)
	}
	docs = splitMarkdown("x/y.md", []byte("## Only\n\ntext"), "local")
	if len(docs) != 1 || docs[0].Title != "x/y.md › Only" {
		t.Errorf("no preamble, path as title: %+v", docs)
	}
}

func TestCommitBody(t *testing.T) {
	in := "Because the old one was slow.\n\nDecision: 2026-01-02-parser\nCo-authored-by: A <a@x>\nsigned-off-by: B <b@x>"
	if got := commitBody(in); got != "Because the old one was slow.\n\nDecision: 2026-01-02-parser" {
		t.Errorf("%q", got)
	}
}

func TestDocsGlobs(t *testing.T) {
	s, err := NewDocsSource(&git.Repo{Dir: t.TempDir()}, DocsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]bool{
		"README.md":                        true,
		"GUIDE.md":                         true,
		"a/GUIDE.md":                       false,
		"a/b/README.md":                    true,
		"pkg/AGENTS.md":                    true,
		"docs/x/y/z.md":                    true,
		"docs/x.txt":                       false,
		"adr/0001-x.md":                    true,
		"CHANGELOG.md":                     false,
		"web/node_modules/pkg/README.md":   false,
		"internal/x/testdata/README.md":    false,
		".github/ISSUE_TEMPLATE/README.md": false,
		".ai/README.md":                    false,
		".ai/decisions/x.md":               false,
		".env.md":                          false, // .env* is never read (originals.md §1.10)
	} {
		if got := s.matches(p); got != want {
			t.Errorf("%s: %v, want %v", p, got, want)
		}
	}

	s, err = NewDocsSource(&git.Repo{Dir: t.TempDir()}, DocsOptions{
		Include:     []string{"*.txt", "/top/", "notes/**"},
		Exclude:     []string{},
		ExcludeDirs: []string{},
		IsSecret:    func(p string) bool { return strings.Contains(p, "secret") },
	})
	if err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]bool{
		"a/b/c.txt":         true,
		"top/x/y.md":        true,
		"sub/top/y.md":      false,
		"notes/a.md":        true,
		"notes/secret.md":   false,
		"README.md":         false,
		".ai/decisions.txt": true,
	} {
		if got := s.matches(p); got != want {
			t.Errorf("custom %s: %v, want %v", p, got, want)
		}
	}
	if _, err := NewDocsSource(&git.Repo{}, DocsOptions{Include: []string{"docs/[.md"}}); err == nil {
		t.Error("a malformed glob is accepted")
	}
	// Without IsSecret, the source never reads what secrets.IsSecretFile names.
	plain, err := NewDocsSource(&git.Repo{}, DocsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{".env", ".env.local", "certs/server.pem", "id_ed25519", "x/credentials.json"} {
		if !plain.isSecret(p) {
			t.Errorf("%s is a secret file", p)
		}
	}
	for _, p := range []string{".env.example", "docs/env.md", "README.md"} {
		if plain.isSecret(p) {
			t.Errorf("%s is not a secret file", p)
		}
	}
}

// Sections without content are not documents: empty ones, a generator's
// stubs (terraform-docs' "No modules."), and HTML comments (the
// bootstrap's placeholders, terraform-docs' markers) are not content.
func TestSplitMarkdownSkipsEmptySections(t *testing.T) {
	tfdocs := "# network\n\nThe VPC and its subnets.\n\n<!-- BEGIN_TF_DOCS -->\n## Requirements\n\nNo requirements.\n\n## Providers\n\n| Name | Version |\n|------|---------|\n| aws | ~> 5.0 |\n\n## Modules\n\nNo modules.\n\n## Resources\n\nNo resources.\n\n## Inputs\n\nNo inputs.\n\n## Outputs\n\nNone\n<!-- END_TF_DOCS -->\n"
	var got []string
	for _, d := range splitMarkdown("infra/network/README.md", []byte(tfdocs), "local") {
		got = append(got, d.URI+" | "+strings.ReplaceAll(d.Body, "\n", "/"))
	}
	want := []string{
		"file:infra/network/README.md | The VPC and its subnets.",
		"file:infra/network/README.md#providers | | Name | Version |/|------|---------|/| aws | ~> 5.0 |",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("terraform-docs README:\ngot\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	doc := "# internal/cli\n\n## Overview\n\n<!-- kontext: the mod: task of this module (ctx_init) writes this section -->\n\n## Notes\n\nKeep <!-- an aside\nover lines --> it short.\n\n```html\n<!-- a comment in code is code -->\n```\n"
	got = nil
	for _, d := range splitMarkdown("docs/cli.md", []byte(doc), "local") {
		got = append(got, d.URI+" | "+strings.ReplaceAll(d.Body, "\n", "/"))
	}
	want = []string{"file:docs/cli.md#notes | Keep / it short.//```html/<!-- a comment in code is code -->/```"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("placeholders:\ngot\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// A file left with nothing is one document: its title.
	docs := splitMarkdown("modules/empty/README.md", []byte("# empty\n\n## Inputs\n\nNo inputs.\n"), "local")
	if len(docs) != 1 || docs[0].URI != "file:modules/empty/README.md" || docs[0].Title != "empty" || docs[0].Body != "" {
		t.Errorf("a file of stubs: %+v", docs)
	}
	for text, stub := range map[string]bool{
		"": true, "No modules.": true, "No data sources.": true, "None": true, "N/A": true, "TBD": true,
		"No.": false, "No breaking changes were made in this release, see below.": false, "Nothing else matters here.": false,
		"No modules.\nBut one is coming.": false,
	} {
		if got := isStub(text); got != stub {
			t.Errorf("isStub(%q) = %v, want %v", text, got, stub)
		}
	}
}

// The documentation folders of the common layouts are found, and only
// folders with pages in them.
func TestDocFolders(t *testing.T) {
	files := []string{
		"README.md", "go.mod",
		"www/hugo.toml", "www/content/_index.md", "www/content/guide/install.md", "www/content/guide/usage.md",
		"site/index.md", "site/about.md",
		"website/docusaurus.config.js", "website/blog/2024-01-01-hello.md", "website/blog/2024-02-01-again.mdx",
		"book/book.toml", "book/src/SUMMARY.md", "book/src/chapter_1.md",
		"packages/ui/docs/button.mdx", "packages/ui/docs/input.mdx",
		"guide/.vitepress/config.mts", "guide/index.md", "guide/getting-started.md",
		"docs/one.md", // one page: not a docs site
		"internal/site/site.go",
		"web/node_modules/pkg/docs/a.md", "web/node_modules/pkg/docs/b.md",
		".github/docs/a.md", ".github/docs/b.md",
		"internal/x/testdata/docs/a.md", "internal/x/testdata/docs/b.md",
	}
	got := DocFolders(files)
	want := []string{"book/src", "guide", "packages/ui/docs", "site", "website", "www"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("DocFolders = %q, want %q", got, want)
	}
}
