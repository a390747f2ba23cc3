package scan

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
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
// from the previous graph. (GOROOT is read-only here, so the file's content
// is unchanged; the work done is the same as after an edit.)
func BenchmarkUpdateOneFile(b *testing.B) {
	root := goroot(b)
	ctx := context.Background()
	prev, err := Scan(ctx, root, Options{})
	if err != nil {
		b.Fatal(err)
	}
	changed := []string{"net/http/server.go"}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := Update(ctx, prev, changed, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
