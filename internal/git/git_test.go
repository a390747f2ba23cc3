package git_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kontext-dev/kontext/internal/git"

	"github.com/kontext-dev/kontext/internal/gittest"
)

// newRepo makes a real repository in a temp dir.
func newRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	gitRun(t, dir, "init", "-q", "-b", "main")
	gitRun(t, dir, "config", "user.name", "Ada Lovelace")
	gitRun(t, dir, "config", "user.email", "ada@example.com")
	gitRun(t, dir, "config", "commit.gpgsign", "false")
	return dir
}

func gitRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	return gittest.Run(t, dir, append(gittest.Identity("Ada Lovelace", "ada@example.com"), gittest.At("2026-01-02T03:04:05Z")...), args...)
}

func write(t *testing.T, dir, rel, body string) {
	t.Helper()
	p := filepath.Join(dir, rel)
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestOpenHeadFilesLogBlameObjects(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t)
	r, err := git.Open(ctx, filepath.Join(dir))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if head, err := r.Head(ctx); err != nil || head != "" {
		t.Fatalf("unborn HEAD: %q %v", head, err)
	}
	if cs, err := r.Log(ctx, git.LogOptions{}); err != nil || len(cs) != 0 {
		t.Fatalf("log of an empty repo: %v %v", cs, err)
	}

	write(t, dir, "a.txt", "one\ntwo\n")
	write(t, dir, "dir/b.go", "package b\n")
	write(t, dir, ".gitignore", "ignored.txt\n")
	gitRun(t, dir, "add", ".")
	gitRun(t, dir, "commit", "-q", "-m", "Replace the parser\n\nBecause the old one was slow.\n\nDecision: 2026-01-02-parser")
	write(t, dir, "a.txt", "one\nTWO\nthree\n")
	write(t, dir, "ignored.txt", "x")
	write(t, dir, "new.txt", "untracked")
	gitRun(t, dir, "rm", "-q", "dir/b.go")
	gitRun(t, dir, "commit", "-q", "-am", "Second")

	head, err := r.Head(ctx)
	if err != nil || len(head) != 40 {
		t.Fatalf("head %q %v", head, err)
	}
	if b := r.Branch(ctx); b != "main" {
		t.Errorf("branch %q", b)
	}
	files, err := r.Files(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(files, ","); got != ".gitignore,a.txt,new.txt" {
		t.Errorf("files = %s", got)
	}

	commits, err := r.Log(ctx, git.LogOptions{Files: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(commits) != 2 {
		t.Fatalf("%d commits", len(commits))
	}
	second, first := commits[0], commits[1]
	if second.Subject != "Second" || first.Subject != "Replace the parser" {
		t.Errorf("subjects %q %q", second.Subject, first.Subject)
	}
	if first.Body != "Because the old one was slow.\n\nDecision: 2026-01-02-parser" {
		t.Errorf("body %q", first.Body)
	}
	if first.AuthorName != "Ada Lovelace" || first.AuthorTime.Format("2006-01-02") != "2026-01-02" {
		t.Errorf("author %q %v", first.AuthorName, first.AuthorTime)
	}
	var changes []string
	for _, f := range second.Files {
		changes = append(changes, string(f.Status)+" "+f.Path)
	}
	if got := strings.Join(changes, ","); got != "M a.txt,D dir/b.go" {
		t.Errorf("second commit files = %s", got)
	}
	if len(second.Parents) != 1 || second.Parents[0] != first.SHA {
		t.Errorf("parents %v", second.Parents)
	}

	onlyA, err := r.Log(ctx, git.LogOptions{Paths: []string{".gitignore"}})
	if err != nil || len(onlyA) != 1 || onlyA[0].SHA != first.SHA {
		t.Errorf("log -- .gitignore: %v %v", onlyA, err)
	}

	blame, err := r.Blame(ctx, "", "a.txt", 1, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(blame) != 3 || blame[0].SHA != first.SHA || blame[1].SHA != second.SHA || blame[1].Text != "TWO" || blame[0].Summary != "Replace the parser" {
		t.Errorf("blame %+v", blame)
	}

	data, ok, err := r.FileAt(ctx, first.SHA, "a.txt")
	if err != nil || !ok || string(data) != "one\ntwo\n" {
		t.Errorf("a.txt at first: %q %v %v", data, ok, err)
	}
	if _, ok, err := r.FileAt(ctx, "HEAD", "dir/b.go"); ok || err != nil {
		t.Errorf("a deleted file is missing at HEAD: %v %v", ok, err)
	}
	if _, ok, err := r.FileAt(ctx, "HEAD", "no such file.txt"); ok || err != nil {
		t.Errorf("a missing path with spaces is missing, not an error: %v %v", ok, err)
	}
	// Many reads go through one batch process.
	for i := 0; i < 200; i++ {
		if _, ok, err := r.FileAt(ctx, "HEAD", "a.txt"); !ok || err != nil {
			t.Fatalf("read %d: %v %v", i, ok, err)
		}
	}
	if sha, err := r.ResolveCommit(ctx, head[:8]); err != nil || sha != head {
		t.Errorf("resolve prefix: %q %v", sha, err)
	}
	if _, err := r.ResolveCommit(ctx, "--output=/tmp/x"); err == nil {
		t.Error("an option is not a revision")
	}
}

func TestWorktreeSharesCommonDir(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t)
	write(t, dir, "a", "a")
	gitRun(t, dir, "add", ".")
	gitRun(t, dir, "commit", "-qm", "a")
	wt := filepath.Join(t.TempDir(), "wt")
	gitRun(t, dir, "worktree", "add", "-q", wt)
	main, err := git.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	linked, err := git.Open(ctx, filepath.Join(wt))
	if err != nil {
		t.Fatal(err)
	}
	if main.CommonDir != linked.CommonDir {
		t.Errorf("common dirs differ: %s vs %s", main.CommonDir, linked.CommonDir)
	}
	if main.GitDir == linked.GitDir {
		t.Error("a linked worktree has its own git dir")
	}
	if _, err := git.Open(ctx, t.TempDir()); err == nil {
		t.Error("outside a repository Open fails")
	}
}

func TestRemoteURLAndWorktrees(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t)
	write(t, dir, "a.txt", "a\n")
	gitRun(t, dir, "add", ".")
	gitRun(t, dir, "commit", "-q", "-m", "first")
	r, err := git.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if u := r.RemoteURL(ctx); u != "" {
		t.Fatalf("no remote yet, got %q", u)
	}
	gitRun(t, dir, "remote", "add", "upstream", "https://example.com/a/b.git")
	if u := r.RemoteURL(ctx); u != "https://example.com/a/b.git" {
		t.Fatalf("first remote: %q", u)
	}
	gitRun(t, dir, "remote", "add", "origin", "git@github.com:Acme/Shop.git")
	if u := r.RemoteURL(ctx); u != "git@github.com:Acme/Shop.git" {
		t.Fatalf("origin: %q", u)
	}
	other := filepath.Join(t.TempDir(), "wt")
	gitRun(t, dir, "worktree", "add", "-q", "-b", "feature", other)
	wts, err := r.Worktrees(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(wts) != 2 || wts[0].Branch != "main" || wts[1].Branch != "feature" || len(wts[1].Head) != 40 {
		t.Fatalf("%+v", wts)
	}
	if real, _ := filepath.EvalSymlinks(other); wts[1].Path != real && wts[1].Path != other {
		t.Fatalf("path %q", wts[1].Path)
	}
}

func TestFilesMatching(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t)
	write(t, dir, ".gitignore", "*.log\n")
	write(t, dir, "a.txt", "a")
	write(t, dir, "dir/b.txt", "b")
	gitRun(t, dir, "add", ".")
	gitRun(t, dir, "commit", "-q", "-m", "one")
	write(t, dir, "new.txt", "untracked")
	write(t, dir, "x.log", "ignored")
	write(t, dir, "we[ird].txt", "literal")
	r, err := git.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got, err := r.FilesMatching(ctx, []string{":(literal)a.txt", ":(literal)new.txt", ":(literal)x.log", ":(literal)gone.txt", ":(literal)we[ird].txt", ":(literal)dir"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, ",") != "a.txt,dir/b.txt,new.txt,we[ird].txt" {
		t.Errorf("FilesMatching = %q", got)
	}
	if got, err := r.FilesMatching(ctx, nil); err != nil || got != nil {
		t.Errorf("no pathspecs: %q %v", got, err)
	}
}
