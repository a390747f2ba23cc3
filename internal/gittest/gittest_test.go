package gittest

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A developer's global configuration (signing on, another identity, another
// default branch) never reaches a fixture's commits.
func TestRepositoriesIgnoreTheMachinesConfiguration(t *testing.T) {
	home := t.TempDir()
	global := "[user]\n\tname = Intruder\n\temail = intruder@example.com\n[commit]\n\tgpgsign = true\n[gpg]\n\tprogram = false\n[init]\n\tdefaultBranch = trunk\n"
	if err := os.WriteFile(filepath.Join(home, ".gitconfig"), []byte(global), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	if !slices.Contains(Env(), "GIT_CONFIG_NOSYSTEM=1") {
		t.Errorf("Env() = %q: the system configuration is read", Env())
	}

	dir := filepath.Join(t.TempDir(), "repo")
	Init(t, dir)
	WriteFiles(t, dir, map[string]string{"a/b.txt": "b\n"})
	Git(t, dir, "add", ".")
	Git(t, dir, "commit", "-q", "-m", "first") // fails if gpgsign reached it
	if got := strings.TrimSpace(Git(t, dir, "log", "-1", "--format=%an <%ae> %cn")); got != "T <t@example.com> T" {
		t.Errorf("default identity: %q", got)
	}
	if got := strings.TrimSpace(Git(t, dir, "branch", "--show-current")); got != "main" {
		t.Errorf("branch %q, want main", got)
	}

	WriteFile(t, dir, "c.txt", "c\n")
	Git(t, dir, "add", ".")
	Run(t, dir, append(Ada(), At("2026-01-02T03:04:05Z")...), "commit", "-q", "-m", "second")
	if got := strings.TrimSpace(Git(t, dir, "log", "-1", "--format=%an <%ae> %cn %aI %cI")); got != "Ada <ada@example.com> Ada 2026-01-02T03:04:05+00:00 2026-01-02T03:04:05+00:00" {
		t.Errorf("Ada at a date: %q", got)
	}

	got := map[string]string{}
	Setenv(func(k, v string) { got[k] = v })
	if got["GIT_CONFIG_NOSYSTEM"] != "1" || got["GIT_CONFIG_GLOBAL"] != os.DevNull || got["GIT_AUTHOR_NAME"] != "Ada" || got["GIT_COMMITTER_EMAIL"] != "ada@example.com" {
		t.Errorf("Setenv set %v", got)
	}
}
