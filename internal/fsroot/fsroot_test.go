package fsroot

import (
	"os"
	"path/filepath"
	"testing"
)

func TestCloseReleasesTheRoot(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.OS().ReadFile("a.txt"); err != nil {
		t.Fatalf("reading through OS: %v", err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := r.OS().ReadFile("a.txt"); err == nil {
		t.Error("a closed root still reads")
	}
}
