package scan

import (
	"context"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kontext-dev/kontext/internal/repo/model"
)

func goroot(b *testing.B) string {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Skip("no go command")
	}
	return filepath.Join(strings.TrimSpace(string(out)), "src")
}

// BenchmarkScanGOROOT is the cold scan of the Go standard library's
// source tree (about 11,500 files; not a git work tree, so the walk and
// .gitignore rules list it).
func BenchmarkScanGOROOT(b *testing.B) {
	root := goroot(b)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		g, err := Scan(ctx, root, Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(len(g.Files)), "files")
	}
}

// BenchmarkUpdateOneFile is the re-analysis after one file of GOROOT/src
// changed: the file is re-read and parsed, everything else is recomputed
// from the previous graph. GOROOT is read-only here, and Update returns the
// previous graph itself when a re-read file shows the facts it already
// holds; so the graph's facts of the file are made stale before each
// update instead, which makes the work that of an edit.
func BenchmarkUpdateOneFile(b *testing.B) {
	root := goroot(b)
	ctx := context.Background()
	prev, err := Scan(ctx, root, Options{})
	if err != nil {
		b.Fatal(err)
	}
	changed := []string{"net/http/server.go"}
	i := slices.IndexFunc(prev.Files, func(f model.File) bool { return f.Path == changed[0] })
	if i < 0 {
		b.Fatalf("%s is not in the graph", changed[0])
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		prev.Files[i].Lines = -1
		next, err := Update(ctx, prev, changed, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if next == prev {
			b.Fatal("Update found nothing changed")
		}
		prev = next
	}
}
