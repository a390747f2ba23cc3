package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestWriteReplaces(t *testing.T) {
	p := filepath.Join(t.TempDir(), "sub", "f.md")
	if err := Write(p, []byte("one"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Write(p, []byte("two"), 0o600); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	if string(b) != "two" {
		t.Fatalf("got %q", b)
	}
	info, _ := os.Stat(p)
	if info.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", info.Mode())
	}
	ents, _ := os.ReadDir(filepath.Dir(p))
	if len(ents) != 1 {
		t.Errorf("temporary files left: %v", ents)
	}
}

func TestCreateIsExclusive(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "x.md")
	var wins atomic.Int32
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := Create(p, []byte{byte('a' + i)}, 0o644)
			switch {
			case err == nil:
				wins.Add(1)
			case !errors.Is(err, fs.ErrExist):
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if wins.Load() != 1 {
		t.Fatalf("%d writers won", wins.Load())
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("temporary files left: %v", ents)
	}
}

func TestRemoveStaleTemps(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, TempPrefix+"a-1")
	os.WriteFile(old, nil, 0o644)
	os.Chtimes(old, time.Now().Add(-time.Hour), time.Now().Add(-time.Hour))
	os.WriteFile(filepath.Join(dir, TempPrefix+"b-1"), nil, 0o644)
	os.WriteFile(filepath.Join(dir, "keep.md"), nil, 0o644)
	if n := RemoveStaleTemps(dir, time.Minute); n != 1 {
		t.Fatalf("removed %d", n)
	}
	if !IsTemp(old) || IsTemp("keep.md") {
		t.Fatal("IsTemp")
	}
}
