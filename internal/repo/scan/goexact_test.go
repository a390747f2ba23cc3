package scan

import (
	"bytes"
	"context"
	"encoding/json"
	"go/build"
	"io"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// goListPackage is the part of `go list -json` the comparison uses.
type goListPackage struct {
	Dir          string
	ImportPath   string
	Imports      []string
	TestImports  []string
	XTestImports []string
}

func goList(t *testing.T, dir string) []goListPackage {
	t.Helper()
	// -pgo=off: with a default.pgo (cmd/compile has one) go list names
	// profile-built variants "pkg [cmd/compile]"; the imports are the same.
	cmd := exec.Command("go", "list", "-e", "-pgo=off", "-json=Dir,ImportPath,Imports,TestImports,XTestImports", "./...")
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list in %s: %v\n%s", dir, err, stderr.String())
	}
	var pkgs []goListPackage
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p goListPackage
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// compareWithGoList scans root and checks that every package go list
// reports has exactly the imports GoPackages computes from the graph.
func compareWithGoList(t *testing.T, root string) {
	want := goList(t, root)
	g, err := Scan(context.Background(), root, Options{})
	if err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(root)
	mine := map[string]GoPackage{}
	for _, p := range GoPackages(g, &build.Default) {
		mine[filepath.Join(real, filepath.FromSlash(p.Dir))] = p
	}
	diffs := 0
	for _, w := range want {
		dir, _ := filepath.EvalSymlinks(w.Dir)
		got, ok := mine[dir]
		if !ok {
			t.Errorf("%s: go list reports it, the scan has no such package", w.ImportPath)
			diffs++
			continue
		}
		if got.ImportPath != w.ImportPath {
			t.Errorf("%s: import path %q", w.ImportPath, got.ImportPath)
			diffs++
		}
		for _, c := range []struct {
			field     string
			got, want []string
		}{{"Imports", got.Imports, w.Imports}, {"TestImports", got.TestImports, w.TestImports}, {"XTestImports", got.XTestImports, w.XTestImports}} {
			if !slices.Equal(c.got, c.want) && !(len(c.got) == 0 && len(c.want) == 0) {
				t.Errorf("%s %s:\n scan:    %s\n go list: %s", w.ImportPath, c.field, strings.Join(c.got, " "), strings.Join(c.want, " "))
				diffs++
			}
		}
	}
	// And the other way: every package of the root's module (not
	// vendored, not in a nested module) is one go list knows.
	listed := map[string]bool{}
	for _, w := range want {
		dir, _ := filepath.EvalSymlinks(w.Dir)
		listed[dir] = true
	}
	var goMods []*manifestInfo
	for _, m := range g.Manifests {
		if filepath.Base(m.Path) == "go.mod" {
			goMods = append(goMods, &manifestInfo{m: m, dir: dirOf(m.Path)})
		}
	}
	for dir, p := range mine {
		// "./..." never matches GOROOT's builtin, a package for godoc only.
		if m := owningGoMod(goMods, p.Dir); m == nil || m.dir != "" || isVendorDir(p.Dir) || strings.HasPrefix(p.Dir, "vendor") || p.ImportPath == "builtin" {
			continue
		}
		if !listed[dir] {
			t.Errorf("%s: the scan has this package, go list does not", p.ImportPath)
			diffs++
		}
	}
	t.Logf("%s: compared %d packages with go list, %d differences", root, len(want), diffs)
}

func TestGoImportsEqualGoListStd(t *testing.T) {
	if testing.Short() {
		t.Skip("scans GOROOT/src")
	}
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Skip("no go command")
	}
	compareWithGoList(t, filepath.Join(strings.TrimSpace(string(out)), "src"))
}

// TestGoImportsEqualGoListCmd covers GOROOT's other module, whose
// vendored imports go list spells cmd/vendor/….
func TestGoImportsEqualGoListCmd(t *testing.T) {
	if testing.Short() {
		t.Skip("scans GOROOT/src/cmd")
	}
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Skip("no go command")
	}
	compareWithGoList(t, filepath.Join(strings.TrimSpace(string(out)), "src", "cmd"))
}

func TestGoImportsEqualGoListProject(t *testing.T) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil || strings.TrimSpace(string(out)) == "" {
		t.Skip("not in a module")
	}
	compareWithGoList(t, filepath.Dir(strings.TrimSpace(string(out))))
}
