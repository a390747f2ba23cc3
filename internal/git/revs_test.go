package git_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kontext-dev/kontext/internal/git"
)

func TestRevListHeadFromRefsAndRevs(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t)
	r, err := git.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if head, err := r.HeadFromRefs(ctx); err != nil || head != "" {
		t.Fatalf("unborn: %q %v", head, err)
	}
	if shas, err := r.RevList(ctx, git.LogOptions{}); err != nil || len(shas) != 0 {
		t.Fatalf("rev-list of an empty repo: %v %v", shas, err)
	}

	write(t, dir, "a", "1")
	gitRun(t, dir, "add", ".")
	gitRun(t, dir, "commit", "-qm", "one")
	gitRun(t, dir, "checkout", "-qb", "side")
	write(t, dir, "b", "2")
	gitRun(t, dir, "add", ".")
	gitRun(t, dir, "commit", "-qm", "side")
	gitRun(t, dir, "checkout", "-q", "main")
	write(t, dir, "c", "3")
	gitRun(t, dir, "add", ".")
	gitRun(t, dir, "commit", "-qm", "three")
	gitRun(t, dir, "merge", "-q", "--no-ff", "-m", "merge side", "side")

	check := func(label string) {
		t.Helper()
		want, err := r.Head(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := r.HeadFromRefs(ctx); err != nil || got != want {
			t.Errorf("%s: HeadFromRefs %q %v, Head %q", label, got, err, want)
		}
	}
	check("loose ref")
	gitRun(t, dir, "pack-refs", "--all")
	check("packed ref")
	gitRun(t, dir, "checkout", "-q", "--detach", "HEAD~1")
	check("detached")
	gitRun(t, dir, "checkout", "-q", "main")

	all, err := r.RevList(ctx, git.LogOptions{})
	if err != nil || len(all) != 4 {
		t.Fatalf("rev-list: %v %v", all, err)
	}
	noMerges, err := r.RevList(ctx, git.LogOptions{NoMerges: true, MaxCount: 2})
	if err != nil || len(noMerges) != 2 || noMerges[0] == all[0] {
		t.Fatalf("rev-list --no-merges -n2: %v %v", noMerges, err)
	}

	// Revs: exactly these commits, in this order.
	cs, err := r.Log(ctx, git.LogOptions{Revs: []string{all[3], all[1]}, Files: true})
	if err != nil || len(cs) != 2 || cs[0].SHA != all[3] || cs[1].SHA != all[1] || len(cs[0].Files) != 1 {
		t.Fatalf("log of given revs: %+v %v", cs, err)
	}
	if _, err := r.Log(ctx, git.LogOptions{Revs: []string{"--all"}}); err == nil {
		t.Error("an option is not a revision")
	}

	wt := filepath.Join(t.TempDir(), "wt")
	gitRun(t, dir, "worktree", "add", "-q", "-b", "wt", wt)
	lr, err := git.Open(ctx, wt)
	if err != nil {
		t.Fatal(err)
	}
	defer lr.Close()
	write(t, wt, "d", "4")
	gitRun(t, wt, "add", ".")
	gitRun(t, wt, "commit", "-qm", "in the worktree")
	want := strings.TrimSpace(gitRun(t, wt, "rev-parse", "HEAD"))
	if got, err := lr.HeadFromRefs(ctx); err != nil || got != want {
		t.Errorf("linked worktree: %q %v, want %q", got, err, want)
	}
}

func TestUntrackedDirs(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t)
	write(t, dir, ".gitignore", "build/\n")
	write(t, dir, "src/a.go", "package a")
	gitRun(t, dir, "add", ".")
	gitRun(t, dir, "commit", "-qm", "one")
	for _, d := range []string{"empty/inner", "src/new", "build/out"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(t, dir, "notes/x.md", "x")
	r, err := git.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got, err := r.UntrackedDirs(ctx)
	if err != nil || strings.Join(got, ",") != "empty,notes,src/new" {
		t.Fatalf("%q %v", got, err)
	}
}
