package hooks

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kontext-dev/kontext/internal/git"

	"github.com/kontext-dev/kontext/internal/gittest"
)

func newRepo(t *testing.T) (string, *git.Repo) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "repo")
	os.MkdirAll(dir, 0o755)
	gittest.Git(t, dir, "init", "-q", "-b", "main")
	gittest.Git(t, dir, "commit", "-q", "--allow-empty", "-m", "init")
	return dir, open(t, dir)
}

func open(t *testing.T, dir string) *git.Repo {
	t.Helper()
	repo, err := git.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { repo.Close() })
	return repo
}

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func write(t *testing.T, p, text string, mode os.FileMode) {
	t.Helper()
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(text), mode); err != nil {
		t.Fatal(err)
	}
}

func actions(r Report) map[string]Action {
	m := map[string]Action{}
	for _, h := range r.Hooks {
		m[h.Hook] = h.Action
	}
	return m
}

// snapshot is every file of a directory with its content and mode.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		info, _ := d.Info()
		rel, _ := filepath.Rel(dir, p)
		out[rel] = info.Mode().String() + "\n" + read(t, p)
		return nil
	})
	return out
}

// testBin is the kontext the tests' installations record (the hooks are
// read here, never run).
const testBin = "/opt/kontext/bin/kontext"

// previousBlock is the block kontext installed before the hooks named the
// binary that installed them: it found kontext on PATH.
func previousBlock(hook string) string {
	return StartMarker + " the team's knowledge checks (kontext hooks uninstall removes this block)\n" +
		"if [ \"${KONTEXT_SKIP:-0}\" = 0 ] && command -v kontext >/dev/null 2>&1; then\n" +
		"\t# GOGC=off: this kontext lives for milliseconds; collecting its garbage would cost more than it frees.\n" +
		"\tGOGC=off GOMEMLIMIT=512MiB kontext hooks run " + hook + " \"$@\" || { [ $? -ne 1 ] || exit 1; }\n" +
		"fi\n" +
		EndMarker + "\n"
}

func TestInstallIdempotentAndUninstall(t *testing.T) {
	ctx := context.Background()
	dir, repo := newRepo(t)
	hooksDir := filepath.Join(dir, ".git", "hooks")
	before := snapshot(t, hooksDir)

	r, err := Install(ctx, repo, testBin)
	if err != nil {
		t.Fatal(err)
	}
	if r.Location.Dir != hooksDir || r.Location.Via != "default" || r.Location.Show != ".git/hooks" {
		t.Fatalf("location = %+v", r.Location)
	}
	for _, name := range Names {
		if a := actions(r)[name]; a != Created {
			t.Errorf("%s: %s, want %s", name, a, Created)
		}
		text := read(t, filepath.Join(hooksDir, name))
		if text != "#!/bin/sh\n"+Block(name, testBin) {
			t.Errorf("%s:\n%s", name, text)
		}
		if info, _ := os.Stat(filepath.Join(hooksDir, name)); info.Mode()&0o111 == 0 {
			t.Errorf("%s is not executable", name)
		}
	}
	installed := snapshot(t, hooksDir)

	r, err = Install(ctx, repo, testBin)
	if err != nil {
		t.Fatal(err)
	}
	if r.Changed() {
		t.Errorf("a second install changed something:\n%s", r)
	}
	if got := snapshot(t, hooksDir); !equalMaps(got, installed) {
		t.Error("a second install changed the files")
	}
	st, err := Inspect(ctx, repo)
	if err != nil {
		t.Fatal(err)
	}
	if m := st.Missing(); len(m) != 0 {
		t.Errorf("missing after install: %v", m)
	}

	if _, err := Uninstall(ctx, repo); err != nil {
		t.Fatal(err)
	}
	if got := snapshot(t, hooksDir); !equalMaps(got, before) {
		t.Errorf("uninstall did not restore the directory: %v", keys(got))
	}
	r, err = Uninstall(ctx, repo)
	if err != nil || r.Changed() {
		t.Errorf("a second uninstall: %v\n%s", err, r)
	}
	st, _ = Inspect(ctx, repo)
	if len(st.Missing()) != len(Names) {
		t.Errorf("after uninstall: %+v", st)
	}
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestExistingShellHookKeepsItsCode(t *testing.T) {
	ctx := context.Background()
	dir, repo := newRepo(t)
	p := filepath.Join(dir, ".git", "hooks", "pre-commit")
	original := "#!/bin/bash\nset -e\nnpm test\n"
	write(t, p, original, 0o755)

	r, err := Install(ctx, repo, testBin)
	if err != nil {
		t.Fatal(err)
	}
	if a := actions(r)["pre-commit"]; a != Added {
		t.Fatalf("pre-commit: %s", a)
	}
	want := "#!/bin/bash\n" + Block("pre-commit", testBin) + "set -e\nnpm test\n"
	if got := read(t, p); got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
	// An older block is replaced, and nothing else; so is one that
	// calls another kontext.
	for _, old := range []string{
		"#!/bin/bash\n" + previousBlock("pre-commit") + "set -e\nnpm test\n",
		"#!/bin/bash\n" + Block("pre-commit", "/elsewhere/kontext") + "set -e\nnpm test\n",
	} {
		write(t, p, old, 0o755)
		r, _ = Install(ctx, repo, testBin)
		if a := actions(r)["pre-commit"]; a != Updated {
			t.Fatalf("pre-commit: %s", a)
		}
		if got := read(t, p); got != want {
			t.Fatalf("upgrade got:\n%s", got)
		}
	}
	Uninstall(ctx, repo)
	if got := read(t, p); got != original {
		t.Fatalf("after uninstall:\n%s", got)
	}
}

func TestNonShellHookIsChained(t *testing.T) {
	ctx := context.Background()
	dir, repo := newRepo(t)
	hooksDir := filepath.Join(dir, ".git", "hooks")
	py := "#!/usr/bin/env python3\nprint('hello')\n"
	write(t, filepath.Join(hooksDir, "pre-commit"), py, 0o750)
	elf := "\x7fELF\x02\x01\x01\x00binary"
	write(t, filepath.Join(hooksDir, "post-commit"), elf, 0o755)

	r, err := Install(ctx, repo, testBin)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{"pre-commit", "post-commit"} {
		if a := actions(r)[h]; a != Chained {
			t.Errorf("%s: %s", h, a)
		}
		got := read(t, filepath.Join(hooksDir, h))
		if want := "#!/bin/sh\n" + Block(h, testBin) + chainLines(h); got != want {
			t.Errorf("%s:\n%s", h, got)
		}
	}
	if got := read(t, filepath.Join(hooksDir, "pre-commit"+ChainedSuffix)); got != py {
		t.Errorf("chained hook: %q", got)
	}
	if r, _ := Install(ctx, repo, testBin); r.Changed() {
		t.Errorf("second install:\n%s", r)
	}
	st, _ := Inspect(ctx, repo)
	if !st.Hooks[0].Chained {
		t.Errorf("status does not say pre-commit is chained: %+v", st.Hooks[0])
	}

	r, err = Uninstall(ctx, repo)
	if err != nil {
		t.Fatal(err)
	}
	if a := actions(r)["pre-commit"]; a != Restored {
		t.Errorf("uninstall pre-commit: %s", a)
	}
	if got := read(t, filepath.Join(hooksDir, "pre-commit")); got != py {
		t.Errorf("restored: %q", got)
	}
	if info, _ := os.Stat(filepath.Join(hooksDir, "pre-commit")); info.Mode().Perm() != 0o750 {
		t.Errorf("restored mode %v", info.Mode())
	}
	if got := read(t, filepath.Join(hooksDir, "post-commit")); got != elf {
		t.Errorf("restored binary: %q", got)
	}
	if _, err := os.Stat(filepath.Join(hooksDir, "pre-commit"+ChainedSuffix)); !os.IsNotExist(err) {
		t.Errorf("the chained copy is still there: %v", err)
	}
}

func TestHooksPathAndHusky(t *testing.T) {
	ctx := context.Background()
	t.Run("core.hooksPath relative to the work tree", func(t *testing.T) {
		dir, repo := newRepo(t)
		gittest.Git(t, dir, "config", "core.hooksPath", ".githooks")
		r, err := Install(ctx, repo, testBin)
		if err != nil {
			t.Fatal(err)
		}
		if want := filepath.Join(dir, ".githooks"); r.Location.Dir != want || r.Location.Via != "core.hooksPath" || r.Location.Shared {
			t.Fatalf("location %+v, want %s", r.Location, want)
		}
		if _, err := os.Stat(filepath.Join(dir, ".githooks", "pre-commit")); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(dir, ".git", "hooks", "pre-commit")); err == nil {
			t.Error("installed in .git/hooks too")
		}
	})
	t.Run("husky 9", func(t *testing.T) {
		dir, repo := newRepo(t)
		write(t, filepath.Join(dir, ".husky", "_", "h"), "#!/usr/bin/env sh\n", 0o755)
		write(t, filepath.Join(dir, ".husky", "_", "pre-commit"), "#!/usr/bin/env sh\n. \"$(dirname \"$0\")/h\"\n", 0o755)
		write(t, filepath.Join(dir, ".husky", "pre-commit"), "npx lint-staged\n", 0o644)
		gittest.Git(t, dir, "config", "core.hooksPath", ".husky/_")
		r, err := Install(ctx, repo, testBin)
		if err != nil {
			t.Fatal(err)
		}
		if r.Location.Dir != filepath.Join(dir, ".husky") || r.Location.Via != "husky" {
			t.Fatalf("location %+v", r.Location)
		}
		if got := read(t, filepath.Join(dir, ".husky", "pre-commit")); got != Block("pre-commit", testBin)+"npx lint-staged\n" {
			t.Errorf("husky hook:\n%s", got)
		}
		if got := read(t, filepath.Join(dir, ".husky", "_", "pre-commit")); strings.Contains(got, StartMarker) {
			t.Error("the generated husky script was edited")
		}
		// husky runs its files with sh, executable or not.
		if st, _ := Inspect(ctx, repo); len(st.Missing()) != 0 {
			t.Errorf("missing: %v", st.Missing())
		}
	})
	t.Run("husky 4 to 8", func(t *testing.T) {
		dir, repo := newRepo(t)
		write(t, filepath.Join(dir, ".husky", "_", "husky.sh"), "#!/usr/bin/env sh\n", 0o644)
		write(t, filepath.Join(dir, ".husky", "pre-commit"), "#!/usr/bin/env sh\n. \"$(dirname -- \"$0\")/_/husky.sh\"\n\nnpm test\n", 0o755)
		gittest.Git(t, dir, "config", "core.hooksPath", ".husky")
		r, err := Install(ctx, repo, testBin)
		if err != nil {
			t.Fatal(err)
		}
		if r.Location.Dir != filepath.Join(dir, ".husky") || r.Location.Via != "husky" {
			t.Fatalf("location %+v", r.Location)
		}
		want := "#!/usr/bin/env sh\n" + Block("pre-commit", testBin) + ". \"$(dirname -- \"$0\")/_/husky.sh\"\n\nnpm test\n"
		if got := read(t, filepath.Join(dir, ".husky", "pre-commit")); got != want {
			t.Errorf("husky hook:\n%s", got)
		}
	})
	t.Run("a linked worktree installs in the common directory", func(t *testing.T) {
		dir, _ := newRepo(t)
		wt := filepath.Join(filepath.Dir(dir), "wt")
		gittest.Git(t, dir, "worktree", "add", "-q", wt)
		r, err := Install(ctx, open(t, wt), testBin)
		if err != nil {
			t.Fatal(err)
		}
		if want := filepath.Join(dir, ".git", "hooks"); !samePath(r.Location.Dir, want) {
			t.Fatalf("location %s, want %s", r.Location.Dir, want)
		}
	})
	t.Run("a hooks path outside the repository is shared", func(t *testing.T) {
		dir, repo := newRepo(t)
		shared := filepath.Join(t.TempDir(), "global-hooks")
		gittest.Git(t, dir, "config", "core.hooksPath", shared)
		loc, err := Locate(ctx, repo)
		if err != nil {
			t.Fatal(err)
		}
		if !loc.Shared || !strings.Contains(loc.String(), "shared") {
			t.Errorf("location %+v: %s", loc, loc)
		}
	})
}

func TestBrokenBlockIsReportedNotGuessed(t *testing.T) {
	ctx := context.Background()
	dir, repo := newRepo(t)
	p := filepath.Join(dir, ".git", "hooks", "pre-commit")
	text := "#!/bin/sh\n" + StartMarker + "\nkontext hooks run pre-commit\nmake lint\n"
	write(t, p, text, 0o755)
	r, err := Install(ctx, repo, testBin)
	if err == nil {
		t.Fatalf("no error:\n%s", r)
	}
	if got := read(t, p); got != text {
		t.Errorf("a hook with a broken block was changed:\n%s", got)
	}
	if a := actions(r)["post-commit"]; a != Created {
		t.Errorf("the other hooks were not installed: %s", a)
	}
}

func TestIsShell(t *testing.T) {
	for text, want := range map[string]bool{
		"#!/bin/sh\n":                         true,
		"#!/usr/bin/env bash\n":               true,
		"#!/usr/bin/env -S bash -e\n":         true,
		"#!/bin/zsh -f\n":                     true,
		"npx lint-staged\n":                   true,
		"#!/usr/bin/env python3\n":            false,
		"#!/usr/bin/env node\n":               false,
		"#!/usr/bin/perl -w\n":                false,
		"\x7fELF\x02\x01\x01\x00\x00\x00\x00": false,
		"#!\n":                                false,
	} {
		if got := isShell([]byte(text)); got != want {
			t.Errorf("isShell(%q) = %v", text, got)
		}
	}
}

func TestNotExecutableHookIsReported(t *testing.T) {
	ctx := context.Background()
	dir, repo := newRepo(t)
	write(t, filepath.Join(dir, ".git", "hooks", "pre-commit"), "#!/bin/sh\necho off\n", 0o644)
	r, err := Install(ctx, repo, testBin)
	if err != nil {
		t.Fatal(err)
	}
	if h := r.Hooks[0]; h.Action != Added || !strings.Contains(h.Note, "not executable") {
		t.Errorf("%+v", h)
	}
	st, _ := Inspect(ctx, repo)
	if m := st.Missing(); len(m) != 1 || m[0] != "pre-commit" {
		t.Errorf("missing = %v", m)
	}
	if s := st.String(); !strings.Contains(s, "git does not run it") {
		t.Errorf("status:\n%s", s)
	}
}

func TestLinkedHookIsChainedNotEdited(t *testing.T) {
	ctx := context.Background()
	dir, repo := newRepo(t)
	script := "#!/bin/sh\nmake lint\n"
	write(t, filepath.Join(dir, "scripts", "pre-commit"), script, 0o755)
	link := filepath.Join(dir, ".git", "hooks", "pre-commit")
	if err := os.Symlink("../../scripts/pre-commit", link); err != nil {
		t.Skip("no symlinks here:", err)
	}
	r, err := Install(ctx, repo, testBin)
	if err != nil {
		t.Fatal(err)
	}
	if a := actions(r)["pre-commit"]; a != Chained {
		t.Fatalf("pre-commit: %s", a)
	}
	if got := read(t, filepath.Join(dir, "scripts", "pre-commit")); got != script {
		t.Errorf("the team's script was edited:\n%s", got)
	}
	if target, err := os.Readlink(link + ChainedSuffix); err != nil || target != "../../scripts/pre-commit" {
		t.Errorf("chained link: %q %v", target, err)
	}
	if r, _ := Install(ctx, repo, testBin); r.Changed() {
		t.Errorf("second install:\n%s", r)
	}
	Uninstall(ctx, repo)
	if target, err := os.Readlink(link); err != nil || target != "../../scripts/pre-commit" {
		t.Errorf("the link was not restored: %q %v", target, err)
	}

	// A linked script that already carries the block (the team committed
	// it) is updated where it lives, and the link stays.
	write(t, filepath.Join(dir, "scripts", "pre-commit"), "#!/bin/sh\n"+StartMarker+"\nold\n"+EndMarker+"\nmake lint\n", 0o755)
	if _, err := Install(ctx, repo, testBin); err != nil {
		t.Fatal(err)
	}
	if !isLink(link) {
		t.Fatal("the link was replaced")
	}
	if got := read(t, filepath.Join(dir, "scripts", "pre-commit")); got != "#!/bin/sh\n"+Block("pre-commit", testBin)+"make lint\n" {
		t.Errorf("linked script:\n%s", got)
	}
	Uninstall(ctx, repo)
	if !isLink(link) || read(t, link) != "#!/bin/sh\nmake lint\n" {
		t.Errorf("after uninstall: link %v, %q", isLink(link), read(t, link))
	}
}

// The hooks name the kontext that installed them; status says which one
// they would run now, and when it is gone: the one on PATH, or none — the
// hooks then do nothing, and status says so instead of "installed".
func TestStatusSaysWhatTheHooksCall(t *testing.T) {
	ctx := context.Background()
	_, repo := newRepo(t)
	bins := t.TempDir()
	bin := filepath.Join(bins, "it's here", "kontext") // quoting survives
	write(t, bin, "#!/bin/sh\nexit 0\n", 0o755)
	onPath := filepath.Join(t.TempDir(), "kontext")
	write(t, onPath, "#!/bin/sh\nexit 0\n", 0o755)
	noKontext := t.TempDir()

	r, err := Install(ctx, repo, bin)
	if err != nil {
		t.Fatal(err)
	}
	// Without git on PATH from here: InspectDir, which runs none.
	t.Setenv("PATH", filepath.Dir(onPath))
	st := InspectDir(r.Location)
	for _, h := range st.Hooks {
		if h.Binary != bin || h.Calls != bin || !h.Current {
			t.Errorf("%s: %+v", h.Hook, h)
		}
	}
	if !strings.Contains(st.String(), "pre-commit          installed (calls "+bin+")") {
		t.Errorf("status:\n%s", st)
	}

	os.Remove(bin)
	st = InspectDir(r.Location)
	if gone, n := st.Gone(); gone != bin || n != len(Names) || len(st.Broken()) != 0 || st.Hooks[0].Calls != onPath {
		t.Errorf("binary gone, one on PATH: gone %q × %d, broken %v, calls %q", gone, n, st.Broken(), st.Hooks[0].Calls)
	}
	if !strings.Contains(st.String(), "the kontext it calls, "+bin+", is missing, so it runs "+onPath+" from PATH") {
		t.Errorf("status:\n%s", st)
	}

	t.Setenv("PATH", noKontext)
	st = InspectDir(r.Location)
	if b := st.Broken(); len(b) != len(Names) || len(st.Missing()) != 0 {
		t.Errorf("no kontext anywhere: broken %v, missing %v", b, st.Missing())
	}
	if s := st.String(); strings.Contains(s, "installed (") || !strings.Contains(s, "does nothing: the kontext it calls, "+bin+", is missing, and no kontext is on PATH") {
		t.Errorf("status:\n%s", s)
	}

	// An older block, which relied on PATH alone.
	write(t, filepath.Join(r.Location.Dir, "pre-commit"), "#!/bin/sh\n"+previousBlock("pre-commit"), 0o755)
	st = InspectDir(r.Location)
	if h := st.Hooks[0]; h.Current || h.Binary != "" || h.Calls != "" {
		t.Errorf("previous block: %+v", h)
	}
}

// Binary is the path the running kontext was started by, absolute: a
// symlink (a package manager's bin/) stays one; a go run build, gone when
// it ends, is none.
func TestBinary(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "Cellar", "kontext", "1.2", "bin", "kontext")
	write(t, real, "#!/bin/sh\n", 0o755)
	link := filepath.Join(dir, "bin", "kontext")
	os.MkdirAll(filepath.Dir(link), 0o755)
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	if got := binaryFor(link); got != link {
		t.Errorf("a symlink: %q, want %q", got, link)
	}
	t.Setenv("PATH", filepath.Dir(link))
	if got := binaryFor("kontext"); got != link {
		t.Errorf("found on PATH: %q, want %q", got, link)
	}
	goRun := filepath.Join(os.TempDir(), "go-build123456", "b001", "exe", "kontext")
	write(t, goRun, "#!/bin/sh\n", 0o755)
	t.Cleanup(func() { os.RemoveAll(filepath.Join(os.TempDir(), "go-build123456")) })
	if got := binaryFor(goRun); got != "" {
		t.Errorf("a go run build: %q, want none", got)
	}
}
