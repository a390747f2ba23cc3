package analyze

import (
	"context"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"math"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/kontext-dev/kontext/internal/git"
	"github.com/kontext-dev/kontext/internal/gittest"
	"github.com/kontext-dev/kontext/internal/repo/model"
)

// fixture is a real git repository in a temp dir, with dated commits.
type fixture struct {
	t   *testing.T
	dir string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{t: t, dir: t.TempDir()}
	f.git("init", "-q", "-b", "main")
	return f
}

func (f *fixture) git(args ...string) string {
	f.t.Helper()
	return f.gitEnv(nil, args...)
}

func (f *fixture) gitEnv(env []string, args ...string) string {
	f.t.Helper()
	return strings.TrimSpace(gittest.Run(f.t, f.dir, append(gittest.Ada(), env...), args...))
}

func (f *fixture) write(files map[string]string) {
	f.t.Helper()
	gittest.WriteFiles(f.t, f.dir, files)
}

// commit stages everything and commits as author at date.
func (f *fixture) commit(msg, author string, date time.Time) string {
	f.t.Helper()
	f.git("add", "-A")
	email := strings.ToLower(strings.Fields(author)[0]) + "@example.com"
	f.gitEnv(append(gittest.At(date.UTC().Format(time.RFC3339)), "GIT_AUTHOR_NAME="+author, "GIT_AUTHOR_EMAIL="+email),
		"commit", "-q", "--allow-empty", "-m", msg)
	return f.git("rev-parse", "HEAD")
}

func (f *fixture) repo() *git.Repo {
	f.t.Helper()
	r, err := git.Open(context.Background(), f.dir)
	if err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() { r.Close() })
	return r
}

func (f *fixture) source() Source {
	return func(p string) ([]byte, error) {
		return os.ReadFile(filepath.Join(f.dir, filepath.FromSlash(p)))
	}
}

func mapSource(files map[string]string) Source {
	return func(p string) ([]byte, error) {
		if s, ok := files[p]; ok {
			return []byte(s), nil
		}
		return nil, os.ErrNotExist
	}
}

// --- a stand-in for internal/repo/scan, just enough for the fixtures ---

var (
	reTestFile   = regexp.MustCompile(`(\.(test|spec)\.[cm]?[jt]sx?$)|(_test\.go$)|(^|/)test_[^/]*\.py$|(^|/)__tests__/`)
	reTSImport   = regexp.MustCompile(`(?m)^\s*(?:import|export)\b[^;'"]*?\bfrom\s*['"]([^'"]+)['"]|^\s*import\s*['"]([^'"]+)['"]`)
	reTSExport   = regexp.MustCompile(`(?m)^\s*export\s+(?:default\s+)?(?:abstract\s+)?(class|function|const|interface|type|enum)\s+([A-Za-z_$][\w$]*)`)
	reCodeExts   = map[string]bool{".ts": true, ".tsx": true, ".js": true, ".go": true, ".py": true, ".rs": true, ".java": true}
	reConfigExts = map[string]bool{".json": true, ".yaml": true, ".yml": true, ".toml": true, ".mod": true, ".sum": true, ".lock": true}
)

// miniScan builds the facts half of a graph from a directory the way the
// model's contract describes it: files with kinds, imports resolved to
// files/modules/packages, directory modules, module edges with evidence,
// manifests and external packages.
func miniScan(t *testing.T, dir string) *model.Graph {
	t.Helper()
	r, err := git.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	paths, err := r.Files(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	g := &model.Graph{SchemaVersion: model.SchemaVersion, Root: dir}
	read := func(p string) string {
		b, _ := os.ReadFile(filepath.Join(dir, p))
		return string(b)
	}
	exists := map[string]bool{}
	for _, p := range paths {
		exists[p] = true
	}
	goModule := ""
	if m := regexp.MustCompile(`(?m)^module\s+(\S+)`).FindStringSubmatch(read("go.mod")); m != nil {
		goModule = m[1]
	}

	// Modules: every directory holding code; manifests make a module of their directory.
	mods := map[string]*model.Module{}
	for _, p := range paths {
		ext := path.Ext(p)
		base := path.Base(p)
		if base == "package.json" || base == "go.mod" || base == "Cargo.toml" {
			d := path.Dir(p)
			mods[d] = &model.Module{ID: d, Name: path.Base(d), Basis: model.BasisManifest, Manifest: p}
		}
		if reCodeExts[ext] {
			d := path.Dir(p)
			if mods[d] == nil {
				mods[d] = &model.Module{ID: d, Name: path.Base(d), Basis: model.BasisDirectory}
			}
		}
	}
	if mods["."] != nil && mods["."].Name == "." {
		mods["."].Name = "root"
	}
	moduleOf := func(p string) string {
		for d := path.Dir(p); ; d = path.Dir(d) {
			if mods[d] != nil {
				return d
			}
			if d == "." {
				return ""
			}
		}
	}

	externals := map[string]*model.External{}
	for _, p := range paths {
		ext := path.Ext(p)
		f := model.File{Path: p, Kind: model.FileOther, Module: moduleOf(p)}
		content := read(p)
		f.Size = int64(len(content))
		f.Lines = strings.Count(content, "\n")
		switch {
		case reTestFile.MatchString(p):
			f.Kind = model.FileTest
		case reCodeExts[ext]:
			f.Kind = model.FileSource
		case ext == ".md":
			f.Kind = model.FileDocs
		case reConfigExts[ext]:
			f.Kind = model.FileConfig
		}
		switch ext {
		case ".ts", ".tsx", ".js":
			f.Language = "TypeScript"
			for _, m := range reTSImport.FindAllStringSubmatchIndex(content, -1) {
				var spec string
				if m[2] >= 0 {
					spec = content[m[2]:m[3]]
				} else {
					spec = content[m[4]:m[5]]
				}
				line := strings.Count(content[:m[0]], "\n") + 1
				if strings.HasPrefix(content[m[0]:m[1]], "\n") {
					line++
				}
				imp := model.Import{Spec: spec, Line: line}
				switch {
				case strings.HasPrefix(spec, "."):
					imp.Kind = model.ImportUnresolved
					base := path.Join(path.Dir(p), spec)
					for _, cand := range []string{base, strings.TrimSuffix(base, ".js") + ".ts", base + ".ts", base + ".tsx", base + "/index.ts"} {
						if exists[cand] {
							imp.Kind, imp.Target = model.ImportInternalFile, cand
							break
						}
					}
				case strings.HasPrefix(spec, "node:"):
					imp.Kind, imp.Target = model.ImportBuiltin, spec
				default:
					imp.Kind, imp.Target = model.ImportExternal, spec
				}
				f.Imports = append(f.Imports, imp)
			}
			for _, m := range reTSExport.FindAllStringSubmatchIndex(content, -1) {
				f.Symbols = append(f.Symbols, model.Symbol{Kind: content[m[2]:m[3]], Name: content[m[4]:m[5]], Line: strings.Count(content[:m[2]], "\n") + 1})
			}
		case ".go":
			f.Language = "Go"
			fs := token.NewFileSet()
			af, err := parser.ParseFile(fs, p, content, parser.SkipObjectResolution)
			if err != nil {
				break
			}
			for _, is := range af.Imports {
				spec := strings.Trim(is.Path.Value, `"`)
				imp := model.Import{Spec: spec, Line: fs.Position(is.Pos()).Line}
				switch {
				case goModule != "" && (spec == goModule || strings.HasPrefix(spec, goModule+"/")):
					d := strings.TrimPrefix(strings.TrimPrefix(spec, goModule), "/")
					if d == "" {
						d = "."
					}
					imp.Kind, imp.Target = model.ImportInternalModule, d
				case !strings.Contains(strings.Split(spec, "/")[0], "."):
					imp.Kind, imp.Target = model.ImportBuiltin, spec
				default:
					imp.Kind, imp.Target = model.ImportExternal, spec
				}
				f.Imports = append(f.Imports, imp)
			}
			for _, d := range af.Decls {
				switch d := d.(type) {
				case *ast.FuncDecl:
					if d.Recv == nil && d.Name.IsExported() {
						f.Symbols = append(f.Symbols, model.Symbol{Name: d.Name.Name, Kind: "function", Line: fs.Position(d.Pos()).Line})
					}
				case *ast.GenDecl:
					for _, sp := range d.Specs {
						switch sp := sp.(type) {
						case *ast.TypeSpec:
							if sp.Name.IsExported() {
								f.Symbols = append(f.Symbols, model.Symbol{Name: sp.Name.Name, Kind: "type", Line: fs.Position(sp.Pos()).Line})
							}
						case *ast.ValueSpec:
							for _, n := range sp.Names {
								if n.IsExported() {
									kind := "var"
									if d.Tok == token.CONST {
										kind = "const"
									}
									f.Symbols = append(f.Symbols, model.Symbol{Name: n.Name, Kind: kind, Line: fs.Position(n.Pos()).Line})
								}
							}
						}
					}
				}
			}
		case ".md":
			f.Language = "Markdown"
		}
		for _, imp := range f.Imports {
			if imp.Kind == model.ImportExternal {
				name := imp.Spec
				if parts := strings.Split(name, "/"); strings.HasPrefix(name, "@") && len(parts) > 1 {
					name = parts[0] + "/" + parts[1]
				} else if f.Language == "TypeScript" {
					name = parts[0]
				}
				e := externals[name]
				if e == nil {
					eco := "npm"
					if f.Language == "Go" {
						eco = "go"
					}
					e = &model.External{Name: name, Ecosystem: eco}
					externals[name] = e
				}
				if !hasString(e.UsedBy, f.Module) && f.Module != "" {
					e.UsedBy = append(e.UsedBy, f.Module)
				}
			}
		}
		g.Files = append(g.Files, f)
	}

	// Manifests.
	for _, p := range paths {
		switch path.Base(p) {
		case "package.json":
			var pj struct {
				Name string            `json:"name"`
				Deps map[string]string `json:"dependencies"`
				Dev  map[string]string `json:"devDependencies"`
			}
			_ = json.Unmarshal([]byte(read(p)), &pj)
			mf := model.Manifest{Path: p, Ecosystem: "npm", Name: pj.Name}
			for _, n := range sortedKeys(pj.Deps) {
				mf.Dependencies = append(mf.Dependencies, model.PackageDep{Name: n, Version: pj.Deps[n]})
				if e := externals[n]; e != nil {
					e.Version, e.Manifests = pj.Deps[n], append(e.Manifests, p)
				} else {
					externals[n] = &model.External{Name: n, Ecosystem: "npm", Version: pj.Deps[n], Manifests: []string{p}}
				}
			}
			for _, n := range sortedKeys(pj.Dev) {
				mf.Dependencies = append(mf.Dependencies, model.PackageDep{Name: n, Version: pj.Dev[n], Dev: true})
			}
			g.Manifests = append(g.Manifests, mf)
			if m := mods[path.Dir(p)]; m != nil && pj.Name != "" {
				m.Name = pj.Name
			}
		case "go.mod":
			g.Manifests = append(g.Manifests, model.Manifest{Path: p, Ecosystem: "go", Name: goModule})
		}
	}
	for _, k := range sortedKeys(externals) {
		g.External = append(g.External, *externals[k])
	}

	// Module edges with the import evidence behind them.
	type edge struct {
		n   int
		evs []model.Evidence
	}
	edges := map[[2]string]*edge{}
	for _, f := range g.Files {
		for _, imp := range f.Imports {
			var to string
			switch imp.Kind {
			case model.ImportInternalFile:
				to = moduleOf(imp.Target)
			case model.ImportInternalModule:
				to = imp.Target
			}
			if to == "" || to == f.Module {
				continue
			}
			k := [2]string{f.Module, to}
			if edges[k] == nil {
				edges[k] = &edge{}
			}
			edges[k].n++
			edges[k].evs = append(edges[k].evs, model.Evidence{File: f.Path, Line: imp.Line, Detail: "imports " + imp.Spec})
		}
	}
	var keys [][2]string
	for k := range edges {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i][0]+"|"+keys[i][1] < keys[j][0]+"|"+keys[j][1] })
	for _, k := range keys {
		g.Dependencies = append(g.Dependencies, model.Dependency{From: k[0], To: k[1], Kind: model.ImportInternalModule, Imports: edges[k].n, Evidence: edges[k].evs})
		mods[k[0]].DependsOn = append(mods[k[0]].DependsOn, k[1])
		mods[k[1]].UsedBy = append(mods[k[1]].UsedBy, k[0])
	}
	for _, id := range sortedKeys(mods) {
		m := mods[id]
		for _, f := range g.Files {
			if f.Module == id {
				m.Files++
			}
		}
		g.Modules = append(g.Modules, *m)
	}
	return g
}

// checkConfidences walks any value and fails on a Confidence outside (0, 1).
func checkConfidences(t *testing.T, v any) {
	t.Helper()
	n := 0
	var walk func(where string, v reflect.Value)
	walk = func(where string, v reflect.Value) {
		switch v.Kind() {
		case reflect.Pointer, reflect.Interface:
			if !v.IsNil() {
				walk(where, v.Elem())
			}
		case reflect.Struct:
			for i := 0; i < v.NumField(); i++ {
				fld := v.Type().Field(i)
				if !fld.IsExported() {
					continue
				}
				if fld.Name == "Confidence" && fld.Type.Kind() == reflect.Float64 {
					n++
					c := v.Field(i).Float()
					if !(c > 0 && c < 1) || math.IsNaN(c) {
						t.Errorf("%s.Confidence = %v, want in (0, 1)", where, c)
					}
				}
				walk(where+"."+fld.Name, v.Field(i))
			}
		case reflect.Slice, reflect.Array:
			for i := 0; i < v.Len(); i++ {
				walk(fmt.Sprintf("%s[%d]", where, i), v.Index(i))
			}
		case reflect.Map:
			for _, k := range v.MapKeys() {
				walk(fmt.Sprintf("%s[%v]", where, k), v.MapIndex(k))
			}
		}
	}
	walk("graph", reflect.ValueOf(v))
	if n == 0 {
		t.Errorf("no Confidence field was checked")
	}
}

func findModule(g *model.Graph, id string) *model.Module {
	for i := range g.Modules {
		if g.Modules[i].ID == id {
			return &g.Modules[i]
		}
	}
	return nil
}

func findDecision(g *model.Graph, id string) *model.Decision {
	for i := range g.Decisions {
		if g.Decisions[i].ID == id {
			return &g.Decisions[i]
		}
	}
	return nil
}

func findConvention(g *model.Graph, statement string) *model.Convention {
	for i := range g.Conventions {
		if g.Conventions[i].Statement == statement {
			return &g.Conventions[i]
		}
	}
	return nil
}

func findEntry(g *model.Graph, p, typ string) *model.EntryPoint {
	for i := range g.EntryPoints {
		if g.EntryPoints[i].Path == p && g.EntryPoints[i].Type == typ {
			return &g.EntryPoints[i]
		}
	}
	return nil
}

func dumpJSON(v any) string {
	b, _ := json.MarshalIndent(v, "", "  ")
	return string(b)
}
