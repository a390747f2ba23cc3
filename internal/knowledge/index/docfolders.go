package index

import (
	"path"
	"sort"
	"strings"
)

// docDirNames name the directories projects keep documentation in, at any
// depth (a monorepo's packages/ui/docs too).
var docDirNames = map[string]bool{
	"docs": true, "doc": true, "documentation": true, "site": true, "website": true, "www": true,
	"wiki": true, "guide": true, "guides": true, "handbook": true, "manual": true,
}

// siteSources are the files that mark a static-site generator's project,
// with the directories (relative to the file's) that hold its pages.
var siteSources = map[string][]string{
	"hugo.toml": {"content"}, "hugo.yaml": {"content"}, "hugo.json": {"content"}, // Hugo
	"config.toml":          {"content"}, // Hugo before 0.110 (only where a content/ has pages)
	"book.toml":            {"src"},     // mdBook
	"docusaurus.config.js": {"docs", "blog"}, "docusaurus.config.ts": {"docs", "blog"}, "docusaurus.config.mjs": {"docs", "blog"},
	"astro.config.mjs": {"src/content/docs"}, "astro.config.ts": {"src/content/docs"}, // Starlight
	"mkdocs.yml": {"docs"}, "mkdocs.yaml": {"docs"},
}

// minDocFolderPages is how many Markdown pages make a folder
// documentation: one stray README is not a docs site.
const minDocFolderPages = 2

// isMarkdownPage reports whether a path is a Markdown page (.md, .mdx,
// .markdown), the formats docs sites write.
func isMarkdownPage(p string) bool {
	switch strings.ToLower(path.Ext(p)) {
	case ".md", ".mdx", ".markdown":
		return true
	}
	return false
}

// DocFolders finds the documentation folders among a work tree's files
// (slash-separated, from the top): directories with a documentation name
// (docs/, site/, www/, website/, …), the page directories of static-site
// generators (Hugo's content/, mdBook's src/, VitePress's project, …),
// each holding at least two Markdown pages. A folder inside another one
// found is not listed again. Dependencies and test data (node_modules,
// vendor, testdata, fixtures) and hidden directories are never searched.
func DocFolders(files []string) []string {
	pages := map[string]int{} // directory → Markdown pages at any depth below it
	candidates := map[string]bool{}
	for _, f := range files {
		dir := path.Dir(f)
		if skippedDir(dir) {
			continue
		}
		base := path.Base(f)
		if dirs, ok := siteSources[base]; ok {
			for _, d := range dirs {
				candidates[path.Join(dir, d)] = true
			}
		}
		if strings.HasPrefix(base, "config.") && path.Base(dir) == ".vitepress" {
			candidates[path.Dir(dir)] = true
		}
		if !isMarkdownPage(f) {
			continue
		}
		for d := dir; d != "."; d = path.Dir(d) {
			pages[d]++
			if docDirNames[strings.ToLower(path.Base(d))] {
				candidates[d] = true
			}
		}
	}
	var found []string
	for d := range candidates {
		if d != "." && pages[d] >= minDocFolderPages && !skippedDir(d) {
			found = append(found, d)
		}
	}
	sort.Strings(found)
	out := found[:0]
	for _, d := range found {
		if len(out) > 0 && strings.HasPrefix(d, out[len(out)-1]+"/") {
			continue
		}
		out = append(out, d)
	}
	return out
}

func skippedDir(dir string) bool {
	for _, seg := range strings.Split(dir, "/") {
		switch seg {
		case "node_modules", "vendor", "testdata", "fixtures", "third_party":
			return true
		}
		if strings.HasPrefix(seg, ".") && seg != "." && seg != ".vitepress" {
			return true
		}
	}
	return false
}
