package scan

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kontext-dev/kontext/internal/repo/model"
	"github.com/kontext-dev/kontext/internal/secrets"
)

func paths(g *model.Graph) []string {
	var out []string
	for _, f := range g.Files {
		out = append(out, f.Path)
	}
	return out
}

// TestFilesWithoutGit: outside a work tree the walk honours nested
// .gitignore files (negation, directory patterns, anchoring), lists
// symlinks without following them, never opens sensitive files, and lists
// oversized and binary files without parsing them.
func TestFilesWithoutGit(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	writeFiles(t, outside, map[string]string{"secret.ts": "import leak from 'outside';\n"})
	writeFiles(t, dir, map[string]string{
		".gitignore":          "*.log\n!keep.log\n/build/\ntmp/\n",
		"keep.log":            "kept\n",
		"drop.log":            "dropped\n",
		"build/out.js":        "x\n",
		"src/build/inner.ts":  "export const a = 1;\n", // /build/ is anchored to the root
		"src/tmp/x.ts":        "x\n",
		"src/.gitignore":      "generated/\n",
		"src/generated/g.ts":  "x\n",
		"src/app.ts":          "import a from './build/inner';\n",
		".env.ts":             "import leak from 'leak';\n",
		".env":                "TOKEN=1\n",
		"config/secrets.yaml": "token: 1\n",
		"src/secrets.py":      "import os\n",
		".ssh/config":         "Host x\n",
		"big.ts":              "import huge from 'huge';\n" + strings.Repeat("// filler\n", 120000),
		"logo.png":            "\x89PNG\r\n\x1a\n\x00\x00",
		"node_modules/x/i.js": "x\n",
	})
	if err := os.Symlink(filepath.Join(outside, "secret.ts"), filepath.Join(dir, "src", "link.ts")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "linkdir")); err != nil {
		t.Fatal(err)
	}
	g, err := Scan(context.Background(), dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{".env", ".env.ts", ".gitignore", ".ssh/config", "big.ts", "config/secrets.yaml", "keep.log", "linkdir", "logo.png",
		"src/.gitignore", "src/app.ts", "src/build/inner.ts", "src/link.ts", "src/secrets.py"}
	if got := paths(g); !slices.Equal(got, want) {
		t.Fatalf("files\n got %q\nwant %q", got, want)
	}
	for _, p := range []string{".env", ".env.ts", "config/secrets.yaml", ".ssh/config"} {
		if f := file(t, g, p); f.Lines != 0 || len(f.Imports) != 0 {
			t.Errorf("%s was read: %+v", p, f)
		}
	}
	if f := file(t, g, "src/secrets.py"); len(f.Imports) != 1 {
		t.Errorf("a source file named secrets is code: %+v", f)
	}
	for _, p := range []string{"src/link.ts", "linkdir"} {
		if f := file(t, g, p); f.Size != 0 || len(f.Imports) != 0 || f.Lines != 0 {
			t.Errorf("symlink %s was followed: %+v", p, f)
		}
	}
	if f := file(t, g, "big.ts"); f.Size <= 1<<20 || f.Lines != 0 || len(f.Imports) != 0 {
		t.Errorf("oversized file parsed: size %d lines %d", f.Size, f.Lines)
	}
	if f := file(t, g, "logo.png"); f.Kind != model.FileAsset || f.Lines != 0 {
		t.Errorf("logo.png %+v", f)
	}
	wantImport(t, g, "src/app.ts", "./build/inner", model.ImportInternalFile, "src/build/inner.ts")
}

// TestSensitive: the scan never reads what the program's one list of
// secret files names.
func TestSensitive(t *testing.T) {
	for p, want := range map[string]bool{
		".env": true, ".env.production": true, "deploy/.npmrc": true, "id_rsa.pub": true, "a/.ssh/known_hosts": true,
		"certs/server.crt": true, "tls.KEY": true, "service-account-prod.json": true, "credentials.json": true,
		"secrets.yaml": true, "internal/secrets/secrets.go": false, "credentials.py": false, "src/app.ts": false,
		"environment.ts": false, "keys.go": false,
	} {
		if got := secrets.IsSecretFile(p); got != want {
			t.Errorf("Sensitive(%q) = %v, want %v", p, got, want)
		}
	}
}

// TestIgnoredDirs: the directories a watcher drops are those the ignore
// files exclude (at any level, nested .gitignore files included, and
// everything below them) and those the listing never enters — the same
// answer from git and from the walk's own rules.
func TestIgnoredDirs(t *testing.T) {
	files := map[string]string{
		".gitignore":     "build/\n*.tmp\n",
		"src/.gitignore": "gen/\n",
		"src/a.ts":       "x\n",
		"ok/a.ts":        "x\n",
	}
	ask := []string{"", "build", "build/sub", "src", "src/gen", "src/gen/deep", "src/a.ts.d", "ok", "x.tmp",
		"node_modules", "pkg/node_modules", "pkg/node_modules/m", "pkg"}
	want := []string{"build", "build/sub", "node_modules", "pkg/node_modules", "pkg/node_modules/m", "src/gen", "src/gen/deep", "x.tmp"}
	plain := t.TempDir()
	writeFiles(t, plain, files)
	for name, dir := range map[string]string{"without git": plain, "git": newGitRepo(t, files)} {
		got, err := IgnoredDirs(context.Background(), dir, ask)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%s: IgnoredDirs\n got %q\nwant %q", name, got, want)
		}
	}
}

// TestWatchDirs: the directories to watch are those of the listed files,
// untracked ones (empty, or below an untracked one) and those holding only
// ignored files — never an ignored directory, even below an untracked one.
func TestWatchDirs(t *testing.T) {
	tracked := map[string]string{".gitignore": "dist/\n*.log\n", "src/a.go": "package a\n"}
	untracked := map[string]string{
		"newproj/x.ts": "x", "newproj/dist/deep/o.js": "x", "newproj/a/dist/o.js": "x", "newproj/b/c/x.log": "x",
		"newproj/node_modules/m/i.js": "x", "logs/a.log": "x", "src/dist/b.js": "x",
	}
	want := []string{"", "empty", "logs", "newproj", "newproj/a", "newproj/b", "newproj/b/c", "src"}
	plain := t.TempDir()
	writeFiles(t, plain, tracked)
	for name, dir := range map[string]string{"without git": plain, "git": newGitRepo(t, tracked)} {
		writeFiles(t, dir, untracked)
		if err := os.Mkdir(filepath.Join(dir, "empty"), 0o755); err != nil {
			t.Fatal(err)
		}
		got, err := WatchDirs(context.Background(), dir, []string{".gitignore", "src/a.go"})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: WatchDirs\n got %q\nwant %q", name, got, want)
		}
	}
}
