package fsroot

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tree makes a root with directories, files and symlinks of every kind the
// guard must tell apart.
func tree(t *testing.T) (*Root, string) {
	t.Helper()
	outside := t.TempDir()
	dir := filepath.Join(t.TempDir(), "repo")
	for _, d := range []string{"a/b/c", "docs"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"a/b/c/file.go", "docs/readme.md"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"rel":       "a/b",                      // a directory inside
		"chain":     "rel/c",                    // a link through a link
		"up":        "a/b/../../docs",           // ".." inside the target
		"absin":     filepath.Join(dir, "docs"), // absolute, inside
		"absout":    outside,                    // absolute, outside
		"relout":    "../../",                   // relative, outside
		"a/b/back":  "../..",                    // back to the root
		"dangling":  "missing/deeper",           // to nothing
		"loop1":     "loop2",
		"loop2":     "loop1",
		"docs/self": ".",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r, outside
}

func TestPathResolvesLikeEvalSymlinks(t *testing.T) {
	r, _ := tree(t)
	root := r.Dir()
	for _, p := range []string{
		"a", "a/b/c/file.go", "rel", "rel/c/file.go", "chain", "chain/file.go", "up", "up/readme.md",
		"absin/readme.md", "a/b/back", "a/b/back/docs/readme.md", "docs/self/self/readme.md", ".",
	} {
		want, err := filepath.EvalSymlinks(filepath.Join(root, p))
		if err != nil {
			t.Fatalf("EvalSymlinks(%s): %v", p, err)
		}
		got, err := r.Path(p)
		if err != nil {
			t.Errorf("Path(%q): %v", p, err)
			continue
		}
		if got != want {
			t.Errorf("Path(%q) = %s, want %s (EvalSymlinks)", p, got, want)
		}
	}
}

func TestPathKeepsAMissingTailAsWritten(t *testing.T) {
	r, _ := tree(t)
	root := r.Dir()
	for p, want := range map[string]string{
		"new.txt":               "new.txt",
		"a/b/new/deeper/x.go":   "a/b/new/deeper/x.go",
		"rel/new.go":            "a/b/new.go",
		"chain/missing/x":       "a/b/c/missing/x",
		"dangling":              "missing/deeper",
		"dangling/below":        "missing/deeper/below",
		"a/b/back/docs/new.md":  "docs/new.md",
		"./a//b/./c/../new.txt": "a/b/new.txt",
	} {
		got, err := r.Path(p)
		if err != nil {
			t.Errorf("Path(%q): %v", p, err)
			continue
		}
		if got != filepath.Join(root, want) {
			t.Errorf("Path(%q) = %s, want %s", p, got, filepath.Join(root, want))
		}
	}
}

func TestPathRefusesEveryWayOut(t *testing.T) {
	r, outside := tree(t)
	for _, p := range []string{
		"../x", "a/../../x", "absout", "absout/anything", "relout", "relout/etc/passwd", outside,
		"/etc/passwd", "a/\x00b",
	} {
		_, err := r.Path(p)
		var oe *OutsideError
		if !errors.As(err, &oe) {
			t.Errorf("Path(%q) = %v, want an OutsideError", p, err)
		}
	}
	if _, err := r.Path("loop1/x"); err == nil || !strings.Contains(err.Error(), "symbolic links") {
		t.Errorf("Path through a symlink loop: %v, want a too-many-links error", err)
	}
	if _, err := r.Path("a/b/c/file.go/below"); err == nil {
		t.Error("Path below a file resolved")
	}
}

// countLstat counts the guard's lstat calls during f.
func countLstat(t *testing.T, f func()) int {
	t.Helper()
	n := 0
	orig := lstat
	lstat = func(name string) (os.FileInfo, error) { n++; return orig(name) }
	defer func() { lstat = orig }()
	f()
	return n
}

// A path of 32,000 components used to take 21 s: every component was
// resolved again from the top (quadratic). The guard's work is now one
// lstat per component up to the first missing one, and a few allocations.
func TestPathIsLinearInTheComponents(t *testing.T) {
	r, _ := tree(t)
	long := strings.Repeat("a/", 32000) + "x"
	var err error
	calls := countLstat(t, func() { _, err = r.Path(long) })
	if err != nil {
		t.Fatal(err)
	}
	// "a" exists, "a/a" does not: two lstats.
	if calls > 2 {
		t.Errorf("Path of 32,000 components made %d lstat calls, want 2", calls)
	}
	deep := strings.Repeat("a/b/back/", 200) + "docs/readme.md"
	calls = countLstat(t, func() { _, err = r.Path(deep) })
	if err != nil {
		t.Fatal(err)
	}
	if want := 3*200 + 2; calls != want {
		t.Errorf("Path through 200 symlinks made %d lstat calls, want %d", calls, want)
	}
	// The quadratic guard allocated a copy of the path per component.
	allocs := testing.AllocsPerRun(3, func() { _, _ = r.Path(long) })
	if allocs > 20 {
		t.Errorf("Path of 32,000 components made %.0f allocations, want a handful", allocs)
	}
}

func BenchmarkPathLong(b *testing.B) {
	dir := b.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "a"), 0o755); err != nil {
		b.Fatal(err)
	}
	r, err := Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	long := strings.Repeat("a/", 32000) + "x"
	for b.Loop() {
		if _, err := r.Path(long); err != nil {
			b.Fatal(err)
		}
	}
}
