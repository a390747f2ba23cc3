package bootstrap

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"

	"github.com/kontext-dev/kontext/internal/atomicfile"
	"github.com/kontext-dev/kontext/internal/fsroot"
	"github.com/kontext-dev/kontext/internal/knowledge/config"
	"github.com/kontext-dev/kontext/internal/knowledge/store"
	"github.com/kontext-dev/kontext/internal/secrets"
	"github.com/kontext-dev/kontext/internal/textclip"
)

// The markers of the generated facts in overview and module docs: render
// rewrites what lies between them and nothing else.
const (
	factsStart = "<!-- kontext:facts:start (written by kontext render; edits between these markers are replaced) -->"
	factsEnd   = "<!-- kontext:facts:end -->"
)

// Placeholders mark the sections an agent writes through ctx_init_submit.
const (
	purposePlaceholder  = "<!-- kontext: the purpose task (ctx_init) writes this section -->"
	overviewPlaceholder = "<!-- kontext: the mod: task of this module (ctx_init) writes this section -->"
)

// ModulesDir is where module docs live, under the store's architecture
// directory.
const ModulesDir = "modules"

// Render writes the store's initial files from a scan and a history:
// kontext.toml, .gitattributes, the index README, the architecture overview
// and a doc for each of the top modules. An existing file keeps everything
// outside its facts markers. It returns the files it created or changed.
func Render(root *fsroot.Root, st *store.Store, cfg *config.Config, scan *Scan, hist *History) ([]string, error) {
	scan, err := redactScan(scan, cfg)
	if err != nil {
		return nil, err
	}
	toml := "# kontext: this repository's shared configuration (committed, reviewed like code).\n" +
		"# Personal settings belong in ~/.config/kontext/config.toml or .git/kontext/config.toml.\n\n" +
		"[project]\nname = " + quote(scan.Project) + "\n\n[store]\ndir = " + quote(st.Dir()) + "\n"
	if len(scan.ADRDirs) > 0 {
		// The team's existing ADRs stay where they are: they become the
		// decisions home.
		toml += "\n" + scan.ADRDirs[0].ConfigTOML()
	}
	written, err := st.Scaffold(toml)
	if err != nil {
		return written, err
	}
	archDir := architectureDir(cfg, st)
	change := func(rel string, text string) error {
		changed, err := writeFacts(root, st.TempDir, rel, text)
		if changed {
			written = append(written, rel)
		}
		return err
	}
	if err := change(path.Join(archDir, "overview.md"), overviewDoc(scan, hist, st.Dir())); err != nil {
		return written, err
	}
	for _, m := range TopModules(scan, cfg.Init.MaxModuleDocs) {
		if err := change(ModuleDocPath(archDir, m.ID), moduleDoc(scan, m)); err != nil {
			return written, err
		}
	}
	if written, err = writeIndex(st, written); err != nil {
		return written, err
	}
	sort.Strings(written)
	return dedupe(written), nil
}

// redactScan returns a copy of scan whose prose (the descriptions taken
// from READMEs and manifests) has its secrets replaced by
// [redacted:<rule>]: render writes it into shared files.
func redactScan(scan *Scan, cfg *config.Config) (*Scan, error) {
	scanner, err := secrets.New(cfg.Secrets.Allow, cfg.Secrets.Redact)
	if err != nil {
		return nil, err
	}
	r := secrets.NewRedactor(scanner, false)
	out := *scan
	out.Project, out.Description = r.Text(scan.Project), r.Text(scan.Description)
	out.Modules = append([]Module(nil), scan.Modules...)
	for i := range out.Modules {
		out.Modules[i].Description = r.Text(out.Modules[i].Description)
	}
	return &out, nil
}

// writeIndex re-renders the store's README from its entries.
func writeIndex(st *store.Store, written []string) ([]string, error) {
	entries, err := st.Load()
	if err != nil {
		return written, err
	}
	changed, err := st.WriteIndex(entries)
	if changed {
		written = append(written, st.Dir()+"/README.md")
	}
	return written, err
}

func architectureDir(cfg *config.Config, st *store.Store) string {
	if k, ok := cfg.Kind("architecture"); ok && k.Path != "" {
		return k.Path
	}
	return st.Dir() + "/architecture"
}

// ModuleDocPath is where a module's doc lives.
func ModuleDocPath(archDir, module string) string {
	return path.Join(archDir, ModulesDir, ModuleSlug(module)+".md")
}

// ModuleSlug names a module's doc: its directory with dashes.
func ModuleSlug(module string) string {
	if module == "." {
		return "root"
	}
	return store.Slugify(strings.ReplaceAll(module, "/", "-"), 80)
}

// writeFacts writes doc, or, when the file exists, only its facts block
// (taken from doc), with its temporary file in tmpDir. It reports whether
// the file changed.
func writeFacts(root *fsroot.Root, tmpDir, rel, doc string) (bool, error) {
	abs, err := root.Path(rel)
	if err != nil {
		return false, err
	}
	cur, err := fsroot.Read(nil, abs, 0)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(path.Dir(abs), 0o755); err != nil {
			return false, err
		}
		return true, atomicfile.WriteIn(tmpDir, abs, []byte(doc), 0o644)
	}
	if err != nil {
		return false, err
	}
	next, ok := replaceFacts(string(cur), doc)
	if !ok || next == string(cur) {
		return false, nil // no markers: someone removed them on purpose
	}
	return true, atomicfile.WriteIn(tmpDir, abs, []byte(next), 0o644)
}

// replaceFacts puts the facts block of doc in place of cur's.
func replaceFacts(cur, doc string) (string, bool) {
	block := func(s string) (int, int, bool) {
		i := strings.Index(s, "<!-- kontext:facts:start")
		j := strings.Index(s, factsEnd)
		if i < 0 || j < i {
			return 0, 0, false
		}
		return i, j + len(factsEnd), true
	}
	ci, cj, ok := block(cur)
	if !ok {
		return cur, false
	}
	di, dj, ok := block(doc)
	if !ok {
		return cur, false
	}
	return cur[:ci] + doc[di:dj] + cur[cj:], true
}

// TopModules are the modules that get a doc, most important first in the
// repo engine's one ranking of modules (analyze.RankModules): the modules
// most depended upon, then those depending on most, then the biggest. The
// root is covered by the overview.
func TopModules(scan *Scan, max int) []Module {
	var list []Module
	for _, m := range scan.Modules {
		if m.ID != "." && m.Files > 0 {
			list = append(list, m)
		}
	}
	sort.SliceStable(list, func(i, j int) bool {
		if list[i].Rank != list[j].Rank {
			return list[i].Rank < list[j].Rank
		}
		return list[i].ID < list[j].ID
	})
	if max > 0 && len(list) > max {
		list = list[:max]
	}
	return list
}

// overviewModules is how many modules the overview's table lists; the
// rest are counted. The overview stays short enough to read whole, and
// within store.max_body_lines with a purpose written into it.
const overviewModules = 20

// commandsPerCategory bounds each line of "How to work".
const commandsPerCategory = 6

func overviewDoc(scan *Scan, hist *History, storeDir string) string {
	var b strings.Builder
	title := scan.Project + " — architecture overview"
	fmt.Fprintf(&b, "---\nid: overview\nkind: architecture\ntitle: %s\n", store.YAMLScalar(title))
	if scan.Description != "" {
		fmt.Fprintf(&b, "summary: %s\n", store.YAMLScalar(oneLine(scan.Description, 200)))
	}
	fmt.Fprintf(&b, "---\n\n# %s\n\n## Purpose\n\n%s\n\n", title, purposePlaceholder)
	b.WriteString(overviewFacts(scan, hist))
	return b.String()
}

// overviewFacts are the overview's generated facts. They change only when
// the repository does in what they say: nothing counts commits, dates
// the last one or depends on the store's own files, so committing the
// store, or any change that leaves these facts alone, rewrites nothing.
func overviewFacts(scan *Scan, hist *History) string {
	var b strings.Builder
	b.WriteString(factsStart + "\n## Facts\n\n")
	if len(scan.Stack) > 0 {
		fmt.Fprintf(&b, "- Stack: %s\n", strings.Join(scan.Stack, ", "))
	}
	var langs []string
	for i, l := range scan.Languages {
		if i == 8 {
			break
		}
		langs = append(langs, fmt.Sprintf("%s %s", l.Language, plural(l.Files, "file", "files")))
	}
	if len(langs) > 0 {
		fmt.Fprintf(&b, "- Languages: %s\n", strings.Join(langs, ", "))
	}
	if len(scan.Tooling) > 0 {
		fmt.Fprintf(&b, "- Workspace tooling: %s\n", strings.Join(scan.Tooling, ", "))
	}
	fmt.Fprintf(&b, "- Files: %d\n", scan.Files)
	if len(scan.AgentFiles) > 0 {
		fmt.Fprintf(&b, "- Rules for agents: %s\n", codeList(scan.AgentFiles, 8))
	}
	if len(scan.ADRDirs) > 0 {
		fmt.Fprintf(&b, "- ADRs: %s (the home of decisions)\n", scan.ADRDirs[0].Path)
	}
	if len(scan.EnvVars) > 0 {
		var names []string
		seen := map[string]bool{}
		for _, e := range scan.EnvVars {
			if !seen[e.Name] {
				seen[e.Name] = true
				names = append(names, e.Name)
			}
		}
		fmt.Fprintf(&b, "- Environment: %s\n", strings.Join(limit(names, 20), ", "))
	}
	if mods := TopModules(scan, 0); len(mods) > 0 {
		b.WriteString("\n### Modules\n\n| Module | Kind | Files | Description |\n|---|---|---|---|\n")
		for i, m := range mods {
			if i == overviewModules {
				fmt.Fprintf(&b, "\n%s more (kontext scan lists every module).\n", plural(len(mods)-i, "module", "modules"))
				break
			}
			kind := "inferred"
			if m.Declared {
				kind = "declared"
			}
			if m.Role != "" {
				kind += ", " + m.Role
			}
			fmt.Fprintf(&b, "| %s | %s | %d | %s |\n", cell(m.ID), kind, m.Files, cell(oneLine(m.Description, 120)))
		}
	}
	if m := moduleMap(scan); m != "" {
		b.WriteString("\n### Module map\n\n" + m)
	}
	if work := howToWork(scan, hist); work != "" {
		b.WriteString("\n### How to work\n\n" + work)
	}
	if hist != nil && hist.Commits > 0 {
		var lines []string
		if hist.Founded != "" {
			lines = append(lines, "- Since "+hist.Founded+" (the first commit)")
		}
		if len(hist.Bots) > 0 {
			lines = append(lines, "- Automated commits: "+strings.Join(hist.Bots, ", ")+" (with the dependency bumps, not read as decisions)")
		}
		if len(lines) > 0 {
			b.WriteString("\n### History\n\n" + strings.Join(lines, "\n") + "\n")
		}
	}
	b.WriteString(factsEnd + "\n")
	return b.String()
}

// howToWork lists the commands to build, test, lint, format and run the
// repository, then the other targets and scripts, and how commits are
// written.
func howToWork(scan *Scan, hist *History) string {
	byCat := map[string][]string{}
	other := map[string][]string{}
	var tools []string
	seen := map[string]bool{}
	for _, c := range scan.Commands {
		if seen[c.Run] {
			continue
		}
		seen[c.Run] = true
		if c.Category != "" {
			byCat[c.Category] = append(byCat[c.Category], "`"+c.Run+"`")
			continue
		}
		if strings.Contains(c.Tool, ".") {
			continue // a guide's commands come in only when they have a category
		}
		if other[c.Tool] == nil {
			tools = append(tools, c.Tool)
		}
		other[c.Tool] = append(other[c.Tool], "`"+c.Name+"`")
	}
	var b strings.Builder
	for _, cat := range categoryOrder {
		if list := byCat[cat]; len(list) > 0 {
			fmt.Fprintf(&b, "- %s: %s\n", strings.ToUpper(cat[:1])+cat[1:], strings.Join(limit(list, commandsPerCategory), ", "))
		}
	}
	for _, t := range tools {
		fmt.Fprintf(&b, "- Other %s: %s\n", toolNoun(t), strings.Join(limit(other[t], 2*commandsPerCategory), ", "))
	}
	for _, c := range scan.Commands {
		if strings.Contains(c.Tool, ".") {
			fmt.Fprintf(&b, "- Contributing guide: %s\n", c.Tool)
			break
		}
	}
	if hist != nil && hist.ConventionalCommits() {
		b.WriteString("- Commit messages: Conventional Commits (`type(scope): subject`)\n")
	}
	return b.String()
}

func toolNoun(tool string) string {
	switch tool {
	case "make":
		return "make targets"
	case "task":
		return "tasks (task)"
	case "just":
		return "recipes (just)"
	}
	return tool + " scripts"
}

func moduleDoc(scan *Scan, m Module) string {
	var b strings.Builder
	fmt.Fprintf(&b, "---\nid: %s\nkind: architecture\ntitle: %s\n", ModuleSlug(m.ID), store.YAMLScalar(m.Name))
	if m.Description != "" {
		fmt.Fprintf(&b, "summary: %s\n", store.YAMLScalar(oneLine(m.Description, 200)))
	}
	fmt.Fprintf(&b, "paths:\n  - %s\nmodule: %s\n---\n\n# %s\n\n## Overview\n\n%s\n\n", store.YAMLListItem(m.ID+"/**"), store.YAMLScalar(m.ID), m.Name, overviewPlaceholder)
	b.WriteString(moduleFacts(scan, m))
	return b.String()
}

func moduleFacts(scan *Scan, m Module) string {
	var b strings.Builder
	b.WriteString(factsStart + "\n## Facts\n\n")
	fmt.Fprintf(&b, "- Path: `%s`\n", m.ID)
	kind := "inferred from its files"
	if m.Declared {
		kind = "declared"
		if m.Manifest != "" {
			kind += " in `" + m.Manifest + "`"
		}
	}
	fmt.Fprintf(&b, "- Kind: %s\n", kind)
	lang := m.Language
	if lang == "" {
		lang = "mixed"
	}
	// Files, not lines: a doc's facts change when the module's shape does,
	// not with every edit.
	fmt.Fprintf(&b, "- Size: %s (%s)\n", plural(m.Files, "file", "files"), lang)
	if m.Role != "" {
		fmt.Fprintf(&b, "- Role (heuristic): %s\n", m.Role)
	}
	if m.Description != "" {
		fmt.Fprintf(&b, "- Description: %s\n", oneLine(m.Description, 300))
	}
	if len(m.EntryPoints) > 0 {
		fmt.Fprintf(&b, "- Entry points: %s\n", codeList(m.EntryPoints, 8))
	}
	if len(m.DependsOn) > 0 {
		var deps []string
		for _, e := range m.DependsOn {
			d := "`" + e.To + "`"
			if e.Kind == "workspace-package" {
				d += " (workspace)"
			}
			deps = append(deps, d)
		}
		fmt.Fprintf(&b, "- Depends on: %s\n", strings.Join(deps, ", "))
	}
	if len(m.UsedBy) > 0 {
		fmt.Fprintf(&b, "- Used by: %s\n", codeList(m.UsedBy, 12))
	}
	if len(m.External) > 0 {
		fmt.Fprintf(&b, "- External: %s\n", codeList(m.External, 15))
	}
	if len(m.Symbols) > 0 {
		fmt.Fprintf(&b, "- Exports: %s\n", codeList(m.Symbols, 20))
	}
	if len(m.Areas) > 0 {
		var areas []string
		for _, a := range m.Areas {
			areas = append(areas, fmt.Sprintf("`%s` (%d)", a.Path, a.Files))
		}
		fmt.Fprintf(&b, "- Areas: %s\n", strings.Join(areas, ", "))
	}
	b.WriteString(factsEnd + "\n")
	return b.String()
}

func codeList(items []string, max int) string {
	var out []string
	for i, it := range items {
		if i == max {
			out = append(out, fmt.Sprintf("… (+%d)", len(items)-max))
			break
		}
		out = append(out, "`"+it+"`")
	}
	return strings.Join(out, ", ")
}

func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }

func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > max {
		s = textclip.Prefix(s, max) + "…"
	}
	return s
}

func quote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
