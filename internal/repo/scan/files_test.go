package scan

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kontext-dev/kontext/internal/repo/model"
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

func TestSensitive(t *testing.T) {
	for p, want := range map[string]bool{
		".env": true, ".env.production": true, "deploy/.npmrc": true, "id_rsa.pub": true, "a/.ssh/known_hosts": true,
		"certs/server.crt": true, "tls.KEY": true, "service-account-prod.json": true, "credentials.json": true,
		"secrets.yaml": true, "internal/secrets/secrets.go": false, "credentials.py": false, "src/app.ts": false,
		"environment.ts": false, "keys.go": false,
	} {
		if got := Sensitive(p); got != want {
			t.Errorf("Sensitive(%q) = %v, want %v", p, got, want)
		}
	}
}
