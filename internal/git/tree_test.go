package git_test

import (
	"context"
	"testing"

	"github.com/kontext-dev/kontext/internal/git"
)

func TestListTreeAndDiffTree(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t)
	write(t, dir, "a.txt", "alpha alpha alpha alpha alpha\n")
	write(t, dir, "pkg/b.go", "package pkg\n")
	gitRun(t, dir, "add", "-A")
	gitRun(t, dir, "commit", "-q", "-m", "one")
	write(t, dir, "docs/.keep", "")
	gitRun(t, dir, "mv", "a.txt", "docs/a.txt")
	write(t, dir, "pkg/b.go", "package pkg\n\nvar X = 1\n")
	write(t, dir, "c.txt", "new\n")
	gitRun(t, dir, "add", "-A")
	gitRun(t, dir, "commit", "-q", "-m", "two")

	r, err := git.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()

	entries, err := r.ListTree(ctx, "HEAD~1")
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 || entries[0].Path != "a.txt" || entries[0].Type != "blob" || entries[0].Size != 30 || entries[1].Path != "pkg/b.go" || len(entries[0].SHA) < 40 {
		t.Errorf("ls-tree = %+v", entries)
	}

	changes, err := r.DiffTree(ctx, "HEAD~1", "HEAD")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]git.FileChange{}
	for _, c := range changes {
		got[c.Path] = c
	}
	if c := got["docs/a.txt"]; c.Status != 'R' || c.From != "a.txt" {
		t.Errorf("rename = %+v (all %+v)", c, changes)
	}
	if got["pkg/b.go"].Status != 'M' || got["c.txt"].Status != 'A' || len(changes) != 4 {
		t.Errorf("diff-tree = %+v", changes)
	}

	root, err := r.DiffTree(ctx, "", "HEAD~1")
	if err != nil || len(root) != 2 || root[0].Status != 'A' {
		t.Errorf("root commit against the empty tree = %+v %v", root, err)
	}
	if _, err := r.DiffTree(ctx, "--output=/tmp/x", "HEAD"); err == nil {
		t.Errorf("an option as a revision is refused")
	}
	if _, err := r.ListTree(ctx, "-r"); err == nil {
		t.Errorf("an option as a revision is refused")
	}
}
