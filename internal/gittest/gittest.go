// Package gittest makes real git repositories for tests and benchmarks,
// hermetically: git reads no system or global configuration, commits are
// unsigned and made by a fixed identity, so a developer's settings (a
// signing key, a template, hooks, another default branch) never change
// what a test sees.
package gittest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Env is the environment that keeps git away from the machine's
// configuration, to append to os.Environ() or to a sandbox's own.
func Env() []string {
	return []string{"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=" + os.DevNull}
}

// Identity is the environment that makes name <email> the author and the
// committer of a commit; it wins over the user.name Run configures.
func Identity(name, email string) []string {
	return []string{"GIT_AUTHOR_NAME=" + name, "GIT_AUTHOR_EMAIL=" + email,
		"GIT_COMMITTER_NAME=" + name, "GIT_COMMITTER_EMAIL=" + email}
}

// Ada is the identity the fixtures that name an author commit as.
func Ada() []string { return Identity("Ada", "ada@example.com") }

// At is the environment that dates a commit's author and committer at
// date (any form git reads, such as RFC 3339).
func At(date string) []string {
	return []string{"GIT_AUTHOR_DATE=" + date, "GIT_COMMITTER_DATE=" + date}
}

// Setenv sets Env and the Ada identity with set, for environments that are
// built a variable at a time (testscript's Env.Setenv).
func Setenv(set func(key, value string)) {
	for _, kv := range append(Env(), Ada()...) {
		for i := 0; i < len(kv); i++ {
			if kv[i] == '=' {
				set(kv[:i], kv[i+1:])
				break
			}
		}
	}
}

// Command is git with args in dir, hermetic (Env), unsigned and committing
// as T <t@example.com> unless env names another identity; env comes last,
// so it wins.
func Command(dir string, env []string, args ...string) *exec.Cmd {
	cmd := exec.Command("git", append([]string{"-c", "user.name=T", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), Env()...), env...)
	return cmd
}

// Run runs Command and returns its output; a failure fails t.
func Run(t testing.TB, dir string, env []string, args ...string) string {
	t.Helper()
	out, err := Command(dir, env, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// Git is Run with no extra environment.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	return Run(t, dir, nil, args...)
}

// Init makes dir (and its parents) a new repository whose branch is main.
func Init(t testing.TB, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	Git(t, dir, "init", "-q", "-b", "main")
}

// WriteFile writes text to rel (slash-separated) under dir, making its
// directories.
func WriteFile(t testing.TB, dir, rel, text string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// WriteFiles writes each file (by slash-separated path under dir).
func WriteFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for rel, text := range files {
		WriteFile(t, dir, rel, text)
	}
}
