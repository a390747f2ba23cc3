package hooks_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kontext-dev/kontext/internal/knowledge/hooks"
)

// syncConfig is a user configuration (which needs no trust) with a command
// adapter that mirrors each synced entry as a line of file, and one that
// starts, then hangs past its deadline.
func syncConfig(s *sandbox, mirror, slowStarted string) {
	s.t.Helper()
	cfg := `[adapters.mirror]
driver = "command"

[adapters.mirror.ops.store]
command = ["sh", "-c", 'printf "%s %s %s\n" "$1" "$2" "$3" >> "$0"; echo stored', ` + quoteTOML(mirror) + `, "{{id}}", "{{kind}}", "{{visibility}}"]

[[adapters.mirror.on]]
event = "sync"
op = "store"

[adapters.slow]
driver = "command"
timeout_ms = 1500

[adapters.slow.ops.store]
command = ["sh", "-c", 'touch "$0"; sleep 30', ` + quoteTOML(slowStarted) + `]

[[adapters.slow.on]]
event = "sync"
op = "store"
kinds = ["decision"]
`
	dir := filepath.Join(s.home, "kontext")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		s.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte(cfg), 0o600); err != nil {
		s.t.Fatal(err)
	}
}

func quoteTOML(s string) string {
	return `"` + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), `"`, `\"`) + `"`
}

// waitForLines waits until file holds n lines and returns them.
func waitForLines(t *testing.T, file string, n int) []string {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		b, _ := os.ReadFile(file)
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		if len(b) == 0 {
			lines = nil
		}
		if len(lines) >= n {
			return lines
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s holds %d lines, want %d:\n%s", file, len(lines), n, b)
		}
	}
}

// The sync event through real git commands and the installed hooks: a
// commit, an amend and a merge that change the knowledge at HEAD deliver
// each changed entry, as committed, to the adapters that subscribe, in a
// process of its own (the commit does not wait for the adapter that
// hangs, whose failure the log names); each version reaches an adapter
// once (an amend runs post-commit and post-rewrite; a rebase replays what
// was delivered); kontext hooks sync delivers a commit again.
func TestSyncEventAfterCommitAmendAndMerge(t *testing.T) {
	s := withStore(t)
	mirror := filepath.Join(s.home, "mirror.txt")
	slowStarted := filepath.Join(s.home, "slow-started")
	syncConfig(s, mirror, slowStarted)
	s.mustKontext("hooks", "install")

	s.write(".ai/decisions/2026-02-01-cache-prices.md", decision("Cache prices", "Prices are cached for a minute."))
	s.mustGit("add", ".")
	s.mustGit("commit", "-q", "-m", "decide: cache prices")
	lines := waitForLines(t, mirror, 1)
	if lines[0] != "2026-02-01-cache-prices decision team" {
		t.Errorf("the commit synced %q", lines)
	}
	// The slow adapter started, and the commit came back before its
	// deadline cut it: its failure is in the log.
	waitForFile(t, slowStarted)
	log := filepath.Join(s.dir, ".git", "kontext", "sync.log")
	waitForText(t, log, "2026-02-01-cache-prices → slow.store failed: ")
	if b, _ := os.ReadFile(log); !strings.Contains(string(b), "2026-02-01-cache-prices → mirror.store\n") {
		t.Errorf("sync.log:\n%s", b)
	}

	// A commit without knowledge syncs nothing; the amend that changes
	// the decision syncs it again.
	s.write("src/web/app.js", "console.log(2)\n")
	s.mustGit("commit", "-qam", "web")
	s.write(".ai/decisions/2026-02-01-cache-prices.md", decision("Cache prices", "Prices are cached for two minutes."))
	s.mustGit("add", ".")
	s.mustGit("commit", "-q", "--amend", "--no-edit")
	lines = waitForLines(t, mirror, 2)
	if lines[1] != "2026-02-01-cache-prices decision team" {
		t.Errorf("the amend synced %q", lines)
	}

	// A merge brings a learning from a branch made where the hooks did
	// not run (a teammate's, fetched); the branch's own commit, had it
	// run them, would have delivered that version already.
	s.mustGit("checkout", "-q", "-b", "other", "HEAD~1")
	s.write(".ai/learnings/retries-need-jitter.md", "---\nkind: learning\ntitle: Retries need jitter\n---\n\nWithout jitter the retries arrive together.\n")
	s.mustGit("add", ".")
	if r := s.run(s.dir, []string{"KONTEXT_SKIP=1"}, "git", "commit", "-q", "-m", "learning"); r.code != 0 {
		t.Fatal(r)
	}
	s.mustGit("checkout", "-q", "main")
	s.mustGit("merge", "-q", "--no-ff", "--no-edit", "other")
	lines = waitForLines(t, mirror, 3)
	if lines[2] != "retries-need-jitter learning team" {
		t.Errorf("the merge synced %q", lines)
	}
	// A topic branch's learning is delivered by its commit; rebasing the
	// branch replays that version, which is not delivered again.
	s.mustGit("checkout", "-q", "-b", "topic", "HEAD~1")
	s.write(".ai/learnings/topic-note.md", "---\nkind: learning\ntitle: Topic note\n---\n\nNoted on the topic branch.\n")
	s.mustGit("add", ".")
	s.mustGit("commit", "-q", "-m", "topic note")
	lines = waitForLines(t, mirror, 4)
	if lines[3] != "topic-note learning team" {
		t.Errorf("the topic commit synced %q", lines)
	}
	s.mustGit("checkout", "-q", "main")
	s.write("src/web/app.js", "console.log(4)\n")
	s.mustGit("commit", "-qam", "web again")
	s.mustGit("checkout", "-q", "topic")
	s.mustGit("rebase", "-q", "main")
	waitForText(t, log, "topic-note delivered already")
	if lines := waitForLines(t, mirror, 4); len(lines) != 4 {
		t.Errorf("the rebase delivered again: %q", lines)
	}

	// By hand: the commit's entries again, said on stdout.
	s.mustGit("checkout", "-q", "main")
	r := s.kontext("hooks", "sync", "HEAD~1^2")
	if !strings.Contains(r.stdout, "sync HEAD~1^2: retries-need-jitter → mirror.store") || r.code != 0 {
		t.Errorf("kontext hooks sync HEAD~1^2: %s", r)
	}
	if r := s.kontext("hooks", "sync", "no-such-commit"); r.code != 1 || !strings.Contains(r.stdout+r.stderr, `"no-such-commit" is not a commit of this repository`) {
		t.Errorf("kontext hooks sync no-such-commit: %s", r)
	}
	if lines := waitForLines(t, mirror, 5); len(lines) != 5 || lines[4] != "retries-need-jitter learning team" {
		t.Errorf("mirror after the manual sync: %q", lines)
	}
}

func waitForFile(t *testing.T, path string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never appeared", path)
		}
	}
}

func waitForText(t *testing.T, path, text string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		b, _ := os.ReadFile(path)
		if strings.Contains(string(b), text) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never said %q:\n%s", path, text, b)
		}
	}
}

// The hooks start a delivery only when there is one to make: knowledge at
// HEAD changed, and an adapter subscribes to sync; a squash merge, which
// moves no HEAD, starts none.
func TestSyncStartsOnlyWhenThereIsSomethingToDeliver(t *testing.T) {
	s := withStore(t)
	type start struct{ base, rev string }
	var started []start
	run := func(hook string, args ...string) {
		t.Helper()
		getenv := func(k string) string {
			if k == "KONTEXT_CONFIG_DIR" {
				return filepath.Join(s.home, "kontext")
			}
			return ""
		}
		hooks.Run(context.Background(), s.dir, hook, args, hooks.Options{Getenv: getenv, StartSync: func(base, rev, log string) error {
			if !strings.HasSuffix(log, filepath.Join("kontext", "sync.log")) {
				t.Errorf("log %s", log)
			}
			started = append(started, start{base, rev})
			return nil
		}})
	}
	head := func(rev string) string { return strings.TrimSpace(s.mustGit("rev-parse", rev)) }

	// No adapter subscribes yet.
	s.write(".ai/learnings/a.md", "---\nkind: learning\ntitle: A\n---\n\nA.\n")
	s.mustGit("add", ".")
	s.mustGit("commit", "-q", "-m", "a")
	run("post-commit")
	if len(started) != 0 {
		t.Fatalf("started without a subscriber: %v", started)
	}

	syncConfig(s, filepath.Join(s.home, "mirror.txt"), filepath.Join(s.home, "slow"))
	run("post-commit")
	if len(started) != 1 || started[0] != (start{"", head("HEAD")}) {
		t.Fatalf("post-commit started %v", started)
	}
	s.write("src/web/app.js", "console.log(3)\n")
	s.mustGit("commit", "-qam", "code")
	run("post-commit")
	if len(started) != 1 {
		t.Fatalf("a commit without knowledge started %v", started[1:])
	}

	before := head("HEAD")
	s.write(".ai/learnings/a.md", "---\nkind: learning\ntitle: A\n---\n\nA, amended.\n")
	s.mustGit("add", ".")
	s.mustGit("commit", "-q", "--amend", "--no-edit")
	run("post-rewrite", "amend")
	if len(started) != 2 || started[1] != (start{before, head("HEAD")}) {
		t.Fatalf("post-rewrite amend started %v, want base %s", started, before)
	}
	run("post-merge", "1") // a squash merge
	if len(started) != 2 {
		t.Fatalf("a squash merge started %v", started[2:])
	}
}
