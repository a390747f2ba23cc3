// Package bootstrap sets up and deepens a repository's team knowledge: the
// original kontext's init pipeline (scan → history → render, then tasks an
// agent works through with ctx_init and ctx_init_submit). Every step is
// deterministic: run twice on the same repository, it writes the same bytes.
package bootstrap

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/kontext-dev/kontext/internal/fsroot"
	"github.com/kontext-dev/kontext/internal/knowledge/store"
	"github.com/kontext-dev/kontext/internal/lazyregexp"
	"github.com/kontext-dev/kontext/internal/linguist"
	"github.com/kontext-dev/kontext/internal/repo"
	"github.com/kontext-dev/kontext/internal/repo/analyze"
	"github.com/kontext-dev/kontext/internal/repo/model"
	"github.com/kontext-dev/kontext/internal/secrets"
)

// ScanVersion changes when Scan's shape does; an older cached scan is redone.
const ScanVersion = 1

// Scan is what the repository is made of, as the bootstrap needs it.
type Scan struct {
	Version     int                  `json:"version"`
	Head        string               `json:"head"`
	Project     string               `json:"project"`
	Description string               `json:"description,omitempty"`
	Languages   []model.LanguageStat `json:"languages"`
	Manifests   []ManifestRef        `json:"manifests"`
	Tooling     []string             `json:"tooling"` // workspace tooling: npm workspaces, pnpm, Cargo workspace, Go workspace, Nx, …
	Stack       []string             `json:"stack"`   // frameworks and infrastructure: React, FastAPI, Docker, Jest, …
	Modules     []Module             `json:"modules"`
	ADRDirs     []store.ADRDir       `json:"adrDirs,omitempty"`
	AgentFiles  []string             `json:"agentFiles,omitempty"`
	EnvVars     []EnvVar             `json:"envVars,omitempty"`
	Commands    []Command            `json:"commands,omitempty"`
	Files       int                  `json:"files"`
}

// ManifestRef names a manifest.
type ManifestRef struct {
	Path      string `json:"path"`
	Ecosystem string `json:"ecosystem"`
	Name      string `json:"name,omitempty"`
}

// Module is a module of the repository with what its doc says about it.
type Module struct {
	ID          string   `json:"id"` // its directory ("." for the root)
	Name        string   `json:"name"`
	Declared    bool     `json:"declared"` // it has a manifest or is a workspace package
	Basis       string   `json:"basis"`
	Language    string   `json:"language,omitempty"`
	Manifest    string   `json:"manifest,omitempty"`
	Files       int      `json:"files"`
	Lines       int      `json:"lines"`
	Description string   `json:"description,omitempty"`
	Role        string   `json:"role,omitempty"`
	EntryPoints []string `json:"entryPoints,omitempty"`
	DependsOn   []Edge   `json:"dependsOn,omitempty"`
	UsedBy      []string `json:"usedBy,omitempty"`
	External    []string `json:"external,omitempty"`
	Symbols     []string `json:"symbols,omitempty"`
	Areas       []Area   `json:"areas,omitempty"`
	KeyFiles    []string `json:"keyFiles,omitempty"` // what to read first
	HasDocs     bool     `json:"hasDocs,omitempty"`
	// Rank is the module's place in the engine's ranking of importance
	// (analyze.RankModulesStructurally: a committed file never
	// reorders with an unrelated commit), 0 first.
	Rank int `json:"rank"`
	// Fingerprint changes when the module's shape does (files added or
	// removed, exported symbols, dependencies), not on every edit; a doc
	// deepened at another fingerprint gets a refresh task.
	Fingerprint string `json:"fingerprint"`
}

// Edge is a dependency on another module, and why.
type Edge struct {
	To   string `json:"to"`
	Kind string `json:"kind"`
	Via  string `json:"via,omitempty"` // file:line of the import or manifest entry
}

// Area is a part of a large module.
type Area struct {
	Path  string `json:"path"`
	Files int    `json:"files"`
}

// EnvVar is a variable an example environment file names (never its value).
type EnvVar struct {
	Name string `json:"name"`
	File string `json:"file"`
}

// Command is a way to work with the repository: a make target, a task of
// Taskfile.yml, a just recipe, a package.json script, a command the
// contributing guide gives.
type Command struct {
	Tool     string `json:"tool"`     // make, task, just, npm, pnpm, yarn, bun, or the guide's file
	Name     string `json:"name"`     // the target, task, recipe or script
	Run      string `json:"run"`      // how to run it: "make test", "npm run lint"
	Category string `json:"category"` // build, test, lint, format, run, or "" for others
}

// areaThreshold is the size from which a module's parts are listed.
const areaThreshold = 150

// ScanRepository reads the repository through the repo engine: one core,
// two surfaces. storeDirs are the store's directories (its own and the
// configured homes of kinds, such as an ADR directory): what the store
// describes leaves them out, so that committing its own output changes
// none of its facts.
func ScanRepository(ctx context.Context, engine *repo.Engine, root *fsroot.Root, storeDirs []string) (*Scan, error) {
	snap, err := engine.Snapshot(ctx, root.Dir())
	if err != nil {
		return nil, err
	}
	g := snap.Graph
	s := &Scan{Version: ScanVersion, Head: g.Head, Project: ShortName(g.Summary.Name)}
	s.ADRDirs = store.DetectADRDirs(root)
	exclude := slices.Clone(storeDirs)
	for _, d := range s.ADRDirs {
		exclude = append(exclude, d.Path)
	}
	inStore := func(p string) bool {
		for _, d := range exclude {
			if p == d || strings.HasPrefix(p, d+"/") {
				return true
			}
		}
		return false
	}
	s.Files, s.Languages = sourceStats(g, inStore)
	if s.Project == "" || s.Project == "." {
		s.Project = path.Base(root.Dir())
	}
	for _, m := range g.Manifests {
		s.Manifests = append(s.Manifests, ManifestRef{Path: m.Path, Ecosystem: m.Ecosystem, Name: m.Name})
		if path.Dir(m.Path) == "." && m.Description != "" && s.Description == "" {
			s.Description = m.Description
		}
	}
	s.Tooling = tooling(g)
	s.Stack = stack(g)
	s.Modules = modules(g, inStore)
	s.AgentFiles = agentFiles(g)
	s.EnvVars = envVars(root, g)
	s.Commands = commands(root, g)
	if s.Description == "" {
		for _, m := range s.Modules {
			if m.ID == "." {
				s.Description = m.Description
			}
		}
	}
	return s, nil
}

// ShortName is what a project is called: the last element of a module
// path without its major version ("github.com/acme/shipit/v2" → "shipit"),
// a package name without its npm scope ("@acme/shop" → "shop"), a Maven
// artifact without its group.
func ShortName(name string) string {
	n := strings.TrimSpace(name)
	n = goMajorRE.ReplaceAllString(strings.TrimRight(n, "/"), "")
	if i := strings.LastIndexAny(n, "/:"); i >= 0 && i < len(n)-1 {
		n = n[i+1:]
	}
	return strings.TrimPrefix(n, "@")
}

// sourceStats counts the files outside the store and the programming
// languages among them (data and prose formats are not a stack).
func sourceStats(g *model.Graph, inStore func(string) bool) (int, []model.LanguageStat) {
	files := 0
	byLang := map[string]*model.LanguageStat{}
	for _, f := range g.Files {
		if inStore(f.Path) {
			continue
		}
		files++
		if f.Language == "" || linguist.LanguageType(f.Language) != linguist.Programming {
			continue
		}
		st := byLang[f.Language]
		if st == nil {
			st = &model.LanguageStat{Language: f.Language}
			byLang[f.Language] = st
		}
		st.Files++
		st.Lines += f.Lines
	}
	var langs []model.LanguageStat
	for _, st := range byLang {
		langs = append(langs, *st)
	}
	sort.Slice(langs, func(i, j int) bool {
		if langs[i].Files != langs[j].Files {
			return langs[i].Files > langs[j].Files
		}
		return langs[i].Language < langs[j].Language
	})
	return files, langs
}

// tooling names the workspace tooling the repository uses.
func tooling(g *model.Graph) []string {
	seen := map[string]bool{}
	add := func(s string) {
		if !seen[s] {
			seen[s] = true
		}
	}
	for _, w := range g.Workspaces {
		switch w.Tool {
		case "npm", "yarn", "pnpm", "bun":
			add(w.Tool + " workspaces")
		case "cargo":
			add("Cargo workspace")
		case "go":
			add("Go workspace")
		case "deno":
			add("Deno workspace")
		default:
			add(w.Tool + " workspace")
		}
	}
	markers := map[string]string{"nx.json": "Nx", "turbo.json": "Turborepo", "lerna.json": "Lerna", ".moon/workspace.yml": "moon", "uv.lock": "uv", "bun.lockb": "Bun", "bun.lock": "Bun", "rush.json": "Rush"}
	for _, f := range g.Files {
		if t, ok := markers[f.Path]; ok {
			add(t)
		}
	}
	return sortedKeys(seen)
}

// stackMarkers are files that say which tools a repository uses.
var stackMarkers = map[string]string{
	"Dockerfile": "Docker", "docker-compose.yml": "Docker Compose", "compose.yaml": "Docker Compose",
	"main.tf": "Terraform", "Chart.yaml": "Helm", "playwright.config.ts": "Playwright",
	"jest.config.js": "Jest", "jest.config.ts": "Jest", "vitest.config.ts": "Vitest",
	"pytest.ini": "pytest", "tsconfig.json": "TypeScript", "Makefile": "make",
}

// stackPackages are dependencies that name a framework or a tool.
var stackPackages = map[string]string{
	"react": "React", "next": "Next.js", "vue": "Vue", "svelte": "Svelte", "@angular/core": "Angular",
	"express": "Express", "fastify": "Fastify", "@nestjs/core": "NestJS", "koa": "Koa",
	"jest": "Jest", "vitest": "Vitest", "@playwright/test": "Playwright", "cypress": "Cypress",
	"prisma": "Prisma", "typeorm": "TypeORM", "mongoose": "Mongoose", "graphql": "GraphQL",
	"fastapi": "FastAPI", "django": "Django", "flask": "Flask", "sqlalchemy": "SQLAlchemy", "pytest": "pytest", "celery": "Celery",
	"axum": "Axum", "actix-web": "Actix Web", "tokio": "Tokio", "serde": "Serde", "diesel": "Diesel",
	"github.com/gin-gonic/gin": "Gin", "github.com/labstack/echo/v4": "Echo", "github.com/spf13/cobra": "Cobra", "github.com/urfave/cli/v2": "urfave/cli",
	"gorm.io/gorm": "GORM", "google.golang.org/grpc": "gRPC",
	"spring-boot-starter-web": "Spring Boot", "org.springframework.boot": "Spring Boot",
}

func stack(g *model.Graph) []string {
	seen := map[string]bool{}
	for _, l := range g.Summary.Languages {
		if l.Files >= 3 && linguist.LanguageType(l.Language) == linguist.Programming {
			seen[l.Language] = true
		}
	}
	for _, f := range g.Files {
		if t, ok := stackMarkers[path.Base(f.Path)]; ok {
			seen[t] = true
		}
		if strings.HasSuffix(f.Path, ".tf") {
			seen["Terraform"] = true
		}
	}
	for _, e := range g.External {
		if t, ok := stackPackages[e.Name]; ok {
			seen[t] = true
		}
	}
	for _, d := range g.Summary.Frameworks {
		seen[d.Value] = true
	}
	return sortedKeys(seen)
}

// modules turns the engine's modules into the bootstrap's, with the facts
// their docs show. Tests are not what a module offers or needs: their
// functions are no exports and their imports (testify, say) no
// dependencies; the store's files are not counted.
func modules(g *model.Graph, inStore func(string) bool) []Module {
	filesOf := map[string][]*model.File{}
	for i := range g.Files {
		f := &g.Files[i]
		if f.Module != "" && !inStore(f.Path) {
			filesOf[f.Module] = append(filesOf[f.Module], f)
		}
	}
	edges := map[string][]Edge{}
	for _, d := range g.Dependencies {
		if d.Scope == model.ScopeTest {
			continue // a module doc's "depends on" is what its code needs, not its tests
		}
		via := ""
		if len(d.Evidence) > 0 {
			via = d.Evidence[0].File
			if d.Evidence[0].Line > 0 {
				via += ":" + strconv.Itoa(d.Evidence[0].Line)
			}
		}
		edges[d.From] = append(edges[d.From], Edge{To: d.To, Kind: string(d.Kind), Via: via})
	}
	declared := map[string][]string{} // manifest → the runtime dependencies it declares
	for _, mf := range g.Manifests {
		if mf.Ecosystem == "go" {
			continue // go.mod lists every package's needs, tests' included; imports tell them apart
		}
		for _, d := range mf.Dependencies {
			if !d.Dev && d.Path == "" {
				declared[mf.Path] = append(declared[mf.Path], d.Name)
			}
		}
	}
	rank := map[string]int{}
	for i, m := range analyze.RankModulesStructurally(g) {
		rank[m.ID] = i
	}
	var out []Module
	for _, m := range g.Modules {
		files := filesOf[m.ID]
		sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
		bm := Module{
			ID: m.ID, Name: m.Name, Basis: string(m.Basis), Language: m.Language, Manifest: m.Manifest,
			Files: len(files), Description: m.Description, EntryPoints: m.EntryPoints,
			UsedBy: m.UsedBy, Rank: rank[m.ID],
			Declared: m.Basis == model.BasisManifest || m.Basis == model.BasisWorkspacePackage,
		}
		if bm.Name == "" {
			bm.Name = m.ID
		}
		if top, ok := analyze.TopRole(&m); ok {
			bm.Role = top.Role
		}
		bm.DependsOn = edges[m.ID]
		var symbols []string
		external := map[string]bool{}
		for _, d := range declared[m.Manifest] {
			external[d] = true
		}
		areaFiles := map[string]int{}
		for _, f := range files {
			bm.Lines += f.Lines
			if f.Kind == model.FileDocs {
				bm.HasDocs = true
			}
			if f.Kind != model.FileTest {
				for _, sym := range f.Symbols {
					if !isTestFunction(f, sym.Name) {
						symbols = append(symbols, sym.Name)
					}
				}
				for _, imp := range f.Imports {
					if imp.Kind == model.ImportExternal && imp.Target != "" {
						external[imp.Target] = true
					}
				}
			}
			if len(files) >= areaThreshold {
				if a := areaOf(m.ID, f.Path); a != "" {
					areaFiles[a]++
				}
			}
		}
		sort.Strings(symbols)
		bm.Symbols = dedupe(symbols)
		if len(bm.Symbols) > 40 {
			bm.Symbols = bm.Symbols[:40]
		}
		bm.External = sortedKeys(external)
		for _, a := range sortedKeys(areaFiles) {
			bm.Areas = append(bm.Areas, Area{Path: a, Files: areaFiles[a]})
		}
		bm.KeyFiles = keyFiles(m, files)
		bm.Fingerprint = fingerprint(bm, files)
		out = append(out, bm)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

var goTestFuncRE = lazyregexp.New(`^(Test|Benchmark|Fuzz|Example)([A-Z_0-9]|$)`)

// isTestFunction reports whether a symbol is a test of Go's testing
// package (TestX, BenchmarkX, FuzzX, ExampleX), wherever it is declared.
func isTestFunction(f *model.File, name string) bool {
	return f.Language == "Go" && goTestFuncRE.MatchString(name)
}

// areaOf is the part of a large module a file belongs to: the directory one
// level down, or under src/ or src/lib/.
func areaOf(module, file string) string {
	rel := file
	if module != "." {
		rel = strings.TrimPrefix(file, module+"/")
	}
	parts := strings.Split(rel, "/")
	for len(parts) > 2 && (parts[0] == "src" || parts[0] == "lib") {
		if parts[0] == "src" && parts[1] == "lib" && len(parts) > 3 {
			parts = parts[2:]
			continue
		}
		parts = parts[1:]
		break
	}
	if len(parts) < 2 {
		return ""
	}
	prefix := strings.TrimSuffix(rel, strings.Join(parts, "/"))
	area := prefix + parts[0]
	if module != "." {
		area = module + "/" + area
	}
	return area
}

// keyFiles are what an agent should read first about a module: its
// manifest, README and entry points, then its largest source files.
func keyFiles(m model.Module, files []*model.File) []string {
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		if p != "" && !seen[p] && len(out) < 12 {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, f := range files {
		if strings.EqualFold(path.Base(f.Path), "README.md") && path.Dir(f.Path) == m.ID {
			add(f.Path)
		}
	}
	add(m.Manifest)
	for _, e := range m.EntryPoints {
		add(e)
	}
	var sources []*model.File
	for _, f := range files {
		if f.Kind == model.FileSource && !f.Generated && !f.Vendored {
			sources = append(sources, f)
		}
	}
	sort.SliceStable(sources, func(i, j int) bool { return sources[i].Lines > sources[j].Lines })
	for _, f := range sources {
		add(f.Path)
	}
	return out
}

// fingerprint is the module's shape: its file list, exported symbols and
// dependencies.
func fingerprint(m Module, files []*model.File) string {
	h := sha256.New()
	for _, f := range files {
		h.Write([]byte(f.Path + "\n"))
	}
	for _, s := range m.Symbols {
		h.Write([]byte("s:" + s + "\n"))
	}
	for _, e := range m.DependsOn {
		h.Write([]byte("d:" + e.To + "\n"))
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// agentRuleNames are the files that tell agents how to work here.
var agentRuleNames = map[string]bool{"AGENTS.md": true, "CLAUDE.md": true, ".cursorrules": true, ".windsurfrules": true, "GEMINI.md": true, "copilot-instructions.md": true}

func agentFiles(g *model.Graph) []string {
	var out []string
	for _, f := range g.Files {
		if agentRuleNames[path.Base(f.Path)] || strings.HasPrefix(f.Path, ".cursor/rules/") {
			out = append(out, f.Path)
		}
	}
	sort.Strings(out)
	return out
}

var envNameRE = lazyregexp.New(`^\s*(?:export\s+)?([A-Z][A-Z0-9_]*)\s*=`)

// envVars reads the NAMES of the variables example environment files
// declare (.env.example, .env.sample, …); values are never read out, and
// real .env files are never opened.
func envVars(root *fsroot.Root, g *model.Graph) []EnvVar {
	var out []EnvVar
	for _, f := range g.Files {
		base := path.Base(f.Path)
		if !strings.HasPrefix(base, ".env.") || secrets.IsSecretFile(f.Path) {
			continue
		}
		data, err := root.ReadFile(f.Path)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		for sc.Scan() {
			if m := envNameRE.FindStringSubmatch(sc.Text()); m != nil {
				out = append(out, EnvVar{Name: m[1], File: f.Path})
			}
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}

func dedupe(sorted []string) []string {
	var out []string
	for i, s := range sorted {
		if i == 0 || s != sorted[i-1] {
			out = append(out, s)
		}
	}
	return out
}
