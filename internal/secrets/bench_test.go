package secrets

import (
	"io/fs"
	"path/filepath"
	"runtime"
	"testing"
)

// BenchmarkIsSecretFile runs the path rules over the Go tree's file
// names: the repo scan asks once per listed file.
func BenchmarkIsSecretFile(b *testing.B) {
	root := filepath.Join(runtime.GOROOT(), "src")
	var paths []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(root, p)
			paths = append(paths, filepath.ToSlash(rel))
		}
		return nil
	})
	if len(paths) == 0 {
		b.Skip("no GOROOT/src")
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		IsSecretFile(paths[i%len(paths)])
	}
}
