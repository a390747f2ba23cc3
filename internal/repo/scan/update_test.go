package scan

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/kontext-dev/kontext/internal/repo/model"
)

// TestUpdateEqualsScan edits fixture repositories at random — source
// edits that add and drop imports, new files, deletions, manifest and
// tsconfig changes, a .gitignore change — and checks after each step that
// Update from the previous graph equals a full Scan.
func TestUpdateEqualsScan(t *testing.T) {
	fixtures := map[string]map[string]string{"ts": layeredTS, "go": goModule, "pnpm": pnpmMonorepo, "python": pythonPackage, "cargo": cargoWorkspace}
	names := []string{"cargo", "go", "pnpm", "python", "ts", "ts-without-git"}
	fixtures["ts-without-git"] = layeredTS
	steps := 12
	if testing.Short() {
		steps = 4
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			seed := uint64(len(name)) * 7919
			rng := rand.New(rand.NewPCG(seed, 1))
			var dir string
			if name == "ts-without-git" {
				// The .gitignore-honouring walk and its incremental check.
				dir = t.TempDir()
				writeFiles(t, dir, fixtures[name])
				writeFiles(t, dir, map[string]string{".gitignore": "dist/\n*.log\n", "dist/out.js": "x", "debug.log": "x"})
			} else {
				dir = newGitRepo(t, fixtures[name])
			}
			ctx := context.Background()
			prev, err := Scan(ctx, dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			for step := 0; step < steps; step++ {
				changed := randomEdit(t, rng, dir, prev, step)
				got, err := Update(ctx, prev, changed, Options{})
				if err != nil {
					t.Fatal(err)
				}
				want, err := Scan(ctx, dir, Options{})
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Fatalf("step %d (seed %d, changed %v): Update differs from Scan (-scan +update):\n%s", step, seed, changed, diff)
				}
				prev = got
			}
		})
	}
}

// randomEdit changes the work tree and returns the paths it touched.
func randomEdit(t *testing.T, rng *rand.Rand, dir string, g *model.Graph, step int) []string {
	t.Helper()
	var sources, manifests []string
	for _, f := range g.Files {
		switch {
		case isConfigFile(f.Path):
			manifests = append(manifests, f.Path)
		case f.Kind == model.FileSource || f.Kind == model.FileTest:
			sources = append(sources, f.Path)
		}
	}
	sort.Strings(sources)
	pick := func(s []string) string { return s[rng.IntN(len(s))] }
	write := func(p, body string) {
		full := filepath.Join(dir, filepath.FromSlash(p))
		os.MkdirAll(filepath.Dir(full), 0o755)
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	appendTo := func(p, text string) {
		full := filepath.Join(dir, filepath.FromSlash(p))
		old, _ := os.ReadFile(full)
		write(p, string(old)+text)
	}
	lineFor := func(p string, other string) string {
		switch filepath.Ext(p) {
		case ".go":
			return "\nvar _ = 1\n"
		case ".py":
			return fmt.Sprintf("\nimport %s\nfrom . import util\n", filepath.Base(filepath.Dir(other)))
		case ".rs":
			return "\nuse crate::model::Item;\npub fn added() {}\n"
		default:
			return fmt.Sprintf("\nimport * as m%d from './%s';\nexport const added%d = 1;\n", step, filepath.Base(other), step)
		}
	}
	switch op := rng.IntN(6); {
	case op == 0 && len(sources) > 0: // edit a source file
		p := pick(sources)
		appendTo(p, lineFor(p, pick(sources)))
		return []string{p}
	case op == 1 && len(sources) > 0: // add a file next to another
		p := pick(sources)
		n := filepath.Join(filepath.Dir(p), fmt.Sprintf("added%d%s", step, filepath.Ext(p)))
		body := lineFor(p, p)
		if filepath.Ext(p) == ".go" {
			body = "package " + filepath.Base(filepath.Dir(p)) + "\n\nimport \"strings\"\n\nvar Added = strings.ToUpper\n"
			for _, f := range g.Files {
				if f.Path == p {
					body = "package " + f.Package + "\n\nimport \"strings\"\n\nvar Added = strings.ToUpper\n"
				}
			}
		}
		write(filepath.ToSlash(n), body)
		return []string{filepath.ToSlash(n)}
	case op == 2 && len(sources) > 2: // delete a file
		p := pick(sources)
		os.Remove(filepath.Join(dir, filepath.FromSlash(p)))
		return []string{p}
	case op == 3 && len(manifests) > 0: // touch a manifest or config
		p := pick(manifests)
		switch filepath.Base(p) {
		case "package.json":
			write(p, `{"name": "renamed-`+fmt.Sprint(step)+`", "dependencies": {"left-pad": "1.3.0", "@mono/core": "workspace:*"}}`)
		case "tsconfig.json", "tsconfig.base.json":
			write(p, `{"compilerOptions": {"baseUrl": "src", "paths": {"@d/*": ["domain/*"]}}}`)
		case "go.mod":
			appendTo(p, "\nrequire github.com/pkg/errors v0.9.1\n")
		case "Cargo.toml":
			appendTo(p, "\n")
		case "pyproject.toml":
			appendTo(p, "\n[tool.poetry]\nname = \"x\"\n")
		default:
			appendTo(p, "\n")
		}
		return []string{p}
	case op == 4: // ignore a file through .gitignore
		if len(sources) == 0 {
			return nil
		}
		p := pick(sources)
		appendTo(".gitignore", "\n/"+filepath.Base(p)+"\n"+filepath.Base(filepath.Dir(p))+"/added*\n")
		return []string{".gitignore"}
	default: // a new directory with a module's worth of files
		d := fmt.Sprintf("src/extra%d", step)
		var out []string
		for i := 0; i < 3; i++ {
			p := fmt.Sprintf("%s/f%d.ts", d, i)
			write(p, fmt.Sprintf("import { x } from './f%d';\nexport const y%d = x;\n", (i+1)%3, i))
			out = append(out, p)
		}
		return out
	}
}

// TestUpdateFromPersistedGraph: a graph that went through JSON (a cache
// on disk, a restarted server) is enough for Update — every per-file fact
// it needs is in the model.
func TestUpdateFromPersistedGraph(t *testing.T) {
	dir := newGitRepo(t, goModule)
	ctx := context.Background()
	g, err := Scan(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(g)
	if err != nil {
		t.Fatal(err)
	}
	var prev model.Graph
	if err := json.Unmarshal(data, &prev); err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, map[string]string{"internal/money/money.go": "package money\n\nimport \"strconv\"\n\ntype Amount int64\n\nfunc (a Amount) String() string { return strconv.Itoa(int(a)) }\n"})
	got, err := Update(ctx, &prev, []string{"internal/money/money.go"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want, err := Scan(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("Update from a persisted graph differs from Scan (-scan +update):\n%s", diff)
	}
	wantImport(t, got, "internal/money/money.go", "strconv", model.ImportBuiltin, "strconv")
}
