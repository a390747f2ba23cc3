package git_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/kontext-dev/kontext/internal/git"
)

// A raw log names each file's blobs before and after, and follows a rename
// when asked to; the blobs read back by id in one batch.
func TestLogRawRenamesAndBlobs(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t)
	write(t, dir, "doc/adr/0001-use-go.md", "# 1. Use Go\n\nWe write the services in Go, with the standard library first.\n")
	write(t, dir, "go.mod", "module example.com/x\n\ngo 1.22\n")
	gitRun(t, dir, "add", ".")
	gitRun(t, dir, "commit", "-q", "-m", "Start")
	gitRun(t, dir, "mv", "doc", "docs")
	write(t, dir, "go.mod", "module example.com/x\n\ngo 1.23\n")
	gitRun(t, dir, "commit", "-q", "-am", "Rename doc to docs")

	r, err := git.Open(ctx, filepath.Join(dir))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cs, err := r.Log(ctx, git.LogOptions{Raw: true, Renames: true})
	if err != nil || len(cs) != 2 {
		t.Fatalf("log: %v %v", cs, err)
	}
	var renamed, mod *git.FileChange
	for i, f := range cs[0].Files {
		switch f.Path {
		case "docs/adr/0001-use-go.md":
			renamed = &cs[0].Files[i]
		case "go.mod":
			mod = &cs[0].Files[i]
		}
	}
	if renamed == nil || renamed.Status != 'R' || renamed.From != "doc/adr/0001-use-go.md" || len(cs[0].Files) != 2 {
		t.Fatalf("the rename: %+v", cs[0].Files)
	}
	if mod == nil || mod.Status != 'M' || len(mod.OldBlob) != 40 || len(mod.NewBlob) != 40 || mod.OldBlob == mod.NewBlob {
		t.Fatalf("the modification: %+v", mod)
	}
	if add := cs[1].Files; len(add) != 2 || add[0].Status != 'A' || add[0].OldBlob != "0000000000000000000000000000000000000000" {
		t.Fatalf("the root commit's additions: %+v", add)
	}
	blobs, err := r.Blobs(ctx, []string{mod.OldBlob, mod.NewBlob, mod.OldBlob, "0000000000000000000000000000000000000000", "not a sha"})
	if err != nil || len(blobs) != 2 || string(blobs[mod.OldBlob]) != "module example.com/x\n\ngo 1.22\n" || string(blobs[mod.NewBlob]) != "module example.com/x\n\ngo 1.23\n" {
		t.Fatalf("blobs: %q %v", blobs, err)
	}

	// Without Renames the same commit is a deletion and an addition, as
	// before; without Raw there are no blob ids.
	cs, err = r.Log(ctx, git.LogOptions{Files: true, MaxCount: 1})
	if err != nil || len(cs) != 1 || len(cs[0].Files) != 3 || cs[0].Files[0].OldBlob != "" {
		t.Fatalf("name-status log: %+v %v", cs, err)
	}
	cs, err = r.Log(ctx, git.LogOptions{Files: true, Renames: true, MaxCount: 1})
	if err != nil || len(cs) != 1 || len(cs[0].Files) != 2 || cs[0].Files[0].Status != 'R' || cs[0].Files[0].From != "doc/adr/0001-use-go.md" {
		t.Fatalf("name-status log with renames: %+v %v", cs, err)
	}
}
