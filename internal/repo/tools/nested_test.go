package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kontext-dev/kontext/internal/repo/results"
)

// A .git file in a subdirectory ("gitdir: /elsewhere/.git") turned a
// nested root into a reader of another repository: its history, its
// objects, its cache directory. Such a root is refused; a nested
// repository of its own inside the root, and a worktree of the server's
// own repository, are still analysed.
func TestNestedRootCannotRedirectToAnotherRepository(t *testing.T) {
	elsewhere := newGitFixture(t, t.TempDir())
	elsewhere.write(map[string]string{"secret/plan.go": "package secret\n"})
	elsewhere.commit("Acquire Initech on 2027-03-01", "Mallory", 1)

	server := newGitFixture(t, mkdir(t, filepath.Join(t.TempDir(), "server")))
	server.write(map[string]string{"src/app.ts": "export const app = 1\n", "nested/lib.go": "package lib\n"})
	server.commit("Start the app", "Ada", 2)

	// A subdirectory whose .git names the other repository, absolutely, or
	// relatively out of the root.
	server.write(map[string]string{
		"evil/abs/.git":    "gitdir: " + filepath.Join(elsewhere.dir, ".git") + "\n",
		"evil/abs/x.go":    "package x\n",
		"evil/rel/.git":    "gitdir: " + relTo(t, filepath.Join(server.dir, "evil/rel"), filepath.Join(elsewhere.dir, ".git")) + "\n",
		"evil/common/.git": "gitdir: gd\n",
	})
	// A git directory inside the root whose commondir leads out of it.
	gd := filepath.Join(server.dir, "evil/common/gd")
	for _, d := range []string{"objects", "refs"} {
		if err := os.MkdirAll(filepath.Join(gd, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	server.write(map[string]string{"evil/common/gd/HEAD": "ref: refs/heads/main\n", "evil/common/gd/commondir": filepath.Join(elsewhere.dir, ".git") + "\n"})
	// A .git that is a symlink to the other repository's.
	if err := os.MkdirAll(filepath.Join(server.dir, "evil/link"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(elsewhere.dir, ".git"), filepath.Join(server.dir, "evil/link/.git")); err != nil {
		t.Fatal(err)
	}

	s := serveRepo(t, server.dir)
	for _, root := range []string{"evil/abs", "evil/rel", "evil/common", "evil/link", "evil/abs/.", "./evil/link/"} {
		for _, tool := range []string{"get_repository_context", "get_module_history", "get_revision_snapshot"} {
			args := map[string]any{"root": root}
			switch tool {
			case "get_module_history":
				args["target"] = "secret"
			case "get_revision_snapshot":
				args["revision"] = "HEAD"
			}
			msg := s.fails(tool, args)
			if !strings.Contains(msg, "outside the server's root") {
				t.Errorf("%s with root %q: %s", tool, root, msg)
			}
			if strings.Contains(msg, "Initech") || strings.Contains(msg, "plan.go") {
				t.Errorf("%s with root %q told of the other repository: %s", tool, root, msg)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(elsewhere.dir, ".git", "kontext")); err == nil {
		t.Error("the engine wrote its cache into the other repository")
	}

	// A repository of its own inside the root is analysed.
	inner := newGitFixture(t, mkdir(t, filepath.Join(server.dir, "nested")))
	inner.commit("Nested library", "Ada", 1)
	var sub results.RepositoryContext
	s.ok("get_repository_context", map[string]any{"root": "nested"}, &sub)
	if !strings.HasSuffix(sub.Root, "nested") || sub.Git == nil || sub.Git.Commits != 1 {
		t.Errorf("nested repository: root %s, git %+v", sub.Root, sub.Git)
	}
	// A plain directory of the server's repository too.
	s.ok("get_repository_context", map[string]any{"root": "src"}, &sub)
}

// A worktree of the server's own repository is the same repository, even
// when its git directory lies outside the server's root (the server runs
// in a linked worktree; another worktree is checked out inside it).
func TestNestedWorktreeOfTheSameRepositoryIsAnalysed(t *testing.T) {
	main := newGitFixture(t, mkdir(t, filepath.Join(t.TempDir(), "main")))
	main.write(map[string]string{"src/app.ts": "export const app = 1\n"})
	main.commit("Start the app", "Ada", 2)
	served := filepath.Join(t.TempDir(), "served")
	main.git(nil, "worktree", "add", "-q", "-b", "served", served)
	main.git(nil, "worktree", "add", "-q", "-b", "inner", filepath.Join(served, "inner"))
	s := serveRepo(t, served)
	var sub results.RepositoryContext
	s.ok("get_repository_context", map[string]any{"root": "inner"}, &sub)
	if sub.Git == nil || sub.Git.Commits != 1 {
		t.Errorf("worktree of the same repository: git %+v", sub.Git)
	}
}

func relTo(t *testing.T, from, to string) string {
	t.Helper()
	rel, err := filepath.Rel(from, to)
	if err != nil {
		t.Fatal(err)
	}
	return rel
}

func mkdir(t *testing.T, dir string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}
