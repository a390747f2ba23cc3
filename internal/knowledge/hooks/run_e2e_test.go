package hooks_test

// End-to-end tests: real repositories, real `git commit` runs that execute
// the installed hooks, and the kontext binary (built once in TestMain) on
// PATH, as a developer's machine has it.

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kontext-dev/kontext/internal/gittest"
)

var binDir string // holds the kontext binary

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "kontext-hookrun-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		goTool = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	build := exec.Command(goTool, "build", "-o", filepath.Join(dir, "kontext"), "github.com/kontext-dev/kontext/cmd/kontext")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building kontext: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	binDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// sandbox is a repository and the environment its commands run in.
type sandbox struct {
	t    *testing.T
	dir  string
	home string
	path string // PATH, with the kontext binary first
	env  []string
}

// pathWithoutKontext is PATH without any directory that holds a kontext.
func pathWithoutKontext() string {
	var keep []string
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		if _, err := os.Stat(filepath.Join(d, "kontext")); err == nil {
			continue
		}
		keep = append(keep, d)
	}
	return strings.Join(keep, string(os.PathListSeparator))
}

func newSandbox(t *testing.T) *sandbox {
	t.Helper()
	base := t.TempDir()
	s := &sandbox{t: t, dir: filepath.Join(base, "shop"), home: filepath.Join(base, "home")}
	os.MkdirAll(s.dir, 0o755)
	os.MkdirAll(s.home, 0o755)
	s.path = binDir + string(os.PathListSeparator) + pathWithoutKontext()
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "GIT_") || strings.HasPrefix(k, "KONTEXT_") || k == "PATH" || k == "AGENT_CONTEXT_ROOT" || k == "EDITOR" || k == "VISUAL" {
			continue
		}
		s.env = append(s.env, kv)
	}
	s.env = append(append(append(s.env, gittest.Env()...), gittest.Ada()...),
		"KONTEXT_CONFIG_DIR="+filepath.Join(s.home, "kontext"),
		"GIT_EDITOR=true",
	)
	s.mustGit("init", "-q", "-b", "main")
	s.mustGit("config", "commit.gpgsign", "false")
	return s
}

type result struct {
	stdout, stderr string
	code           int
}

func (r result) String() string {
	return fmt.Sprintf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
}

func (s *sandbox) run(dir string, extraEnv []string, name string, args ...string) result {
	s.t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	env := append(append([]string{}, s.env...), "PATH="+s.path)
	cmd.Env = append(env, extraEnv...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		s.t.Fatalf("%s %v: %v", name, args, err)
	}
	return result{out.String(), errb.String(), code}
}

func (s *sandbox) git(args ...string) result { s.t.Helper(); return s.run(s.dir, nil, "git", args...) }

func (s *sandbox) mustGit(args ...string) string {
	s.t.Helper()
	r := s.git(args...)
	if r.code != 0 {
		s.t.Fatalf("git %v: %s", args, r)
	}
	return r.stdout
}

func (s *sandbox) kontext(args ...string) result {
	s.t.Helper()
	return s.run(s.dir, nil, filepath.Join(binDir, "kontext"), args...)
}

func (s *sandbox) mustKontext(args ...string) string {
	s.t.Helper()
	r := s.kontext(args...)
	if r.code != 0 {
		s.t.Fatalf("kontext %v: %s", args, r)
	}
	return r.stdout
}

func (s *sandbox) write(rel, text string) {
	s.t.Helper()
	p := filepath.Join(s.dir, filepath.FromSlash(rel))
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		s.t.Fatal(err)
	}
}

func (s *sandbox) read(rel string) string {
	s.t.Helper()
	b, err := os.ReadFile(filepath.Join(s.dir, filepath.FromSlash(rel)))
	if err != nil {
		s.t.Fatal(err)
	}
	return string(b)
}

const useREST = `---
id: 2026-01-05-use-rest-for-the-public-api
kind: decision
title: Use REST for the public API
status: accepted
date: 2026-01-05
paths: [src/api/**]
---

## Decision

The public API is REST over JSON.
`

// awsKey has the shape of an AWS access key id (the scanner skips AWS's
// documented EXAMPLE keys); it was made up for these tests. Split so that
// secret scanners of this repository do not flag the test itself.
const awsKey = "AKIA" + "2E3MYQ7VX5HNP4RT"

// withStore makes the repository of a small shop with a knowledge store,
// committed before any hook exists.
func withStore(t *testing.T) *sandbox {
	s := newSandbox(t)
	s.write("README.md", "# shop\n\nA shop.\n")
	s.write("src/api/server.go", "package api\n")
	s.write("src/web/app.js", "console.log('shop')\n")
	s.write(".ai/kontext.toml", "[store]\ndir = \".ai\"\n")
	s.write(".ai/.gitattributes", "README.md merge=union\n")
	s.write(".ai/decisions/2026-01-05-use-rest-for-the-public-api.md", useREST)
	s.mustGit("add", ".")
	s.mustGit("commit", "-q", "-m", "shop with a knowledge store")
	return s
}

func decision(title, body string) string {
	return "---\nkind: decision\ntitle: " + title + "\nstatus: accepted\ndate: 2026-02-01\npaths: [src/api/**]\n---\n\n## Decision\n\n" + body + "\n"
}

var problemLine = regexp.MustCompile(`(?m)^(\S+):(\d+): (error|warning): (.+)$`)

func TestPreCommitBlocksSecretsAndRendersTheIndex(t *testing.T) {
	s := withStore(t)
	s.mustKontext("hooks", "install")

	s.write(".ai/decisions/2026-02-01-use-grpc-inside.md", decision("Use gRPC inside", "Services talk gRPC; the key is "+awsKey+"."))
	s.mustGit("add", ".")
	r := s.git("commit", "-m", "gRPC inside")
	if r.code == 0 {
		t.Fatalf("a staged secret did not block the commit: %s", r)
	}
	m := problemLine.FindStringSubmatch(r.stderr)
	if m == nil || m[1] != ".ai/decisions/2026-02-01-use-grpc-inside.md" || m[3] != "error" || !strings.Contains(m[4], "high-confidence secret (aws-access-key)") {
		t.Fatalf("no problem line for the secret: %s", r)
	}
	if strings.Contains(r.stderr, awsKey) {
		t.Errorf("the hook printed the secret itself:\n%s", r.stderr)
	}
	if !strings.Contains(r.stderr, "kontext: commit blocked: 1 error") {
		t.Errorf("no summary line: %s", r)
	}
	if head := s.mustGit("rev-list", "--count", "HEAD"); strings.TrimSpace(head) != "1" {
		t.Fatalf("a commit happened: %s", head)
	}

	s.write(".ai/decisions/2026-02-01-use-grpc-inside.md", decision("Use gRPC inside", "Services talk gRPC."))
	s.mustGit("add", ".")
	r = s.git("commit", "-m", "gRPC inside")
	if r.code != 0 {
		t.Fatalf("a clean commit failed: %s", r)
	}
	// The index README was re-rendered with the new entry and committed
	// with it: nothing is left to stage.
	readme := s.mustGit("show", "HEAD:.ai/README.md")
	for _, want := range []string{"[Use gRPC inside](decisions/2026-02-01-use-grpc-inside.md)", "[Use REST for the public API]", "<!-- kontext:index:end -->"} {
		if !strings.Contains(readme, want) {
			t.Errorf("committed README lacks %q:\n%s", want, readme)
		}
	}
	if st := s.mustGit("status", "--porcelain"); st != "" {
		t.Errorf("work tree not clean after the commit:\n%s", st)
	}
	if files := s.mustGit("show", "--name-only", "--format=", "HEAD"); !strings.Contains(files, ".ai/README.md") {
		t.Errorf("README not in the commit: %s", files)
	}

	// A commit of code alone leaves the README alone.
	s.write("src/web/app.js", "console.log('shop 2')\n")
	s.mustGit("commit", "-qam", "web")
	if files := s.mustGit("show", "--name-only", "--format=", "HEAD"); strings.TrimSpace(files) != "src/web/app.js" {
		t.Errorf("code commit carries %q", files)
	}
}

func TestReadmeWithUnstagedEditsStaysUnstaged(t *testing.T) {
	s := withStore(t)
	s.mustKontext("hooks", "install")
	s.write(".ai/decisions/2026-02-01-a.md", decision("First", "One."))
	s.mustGit("add", ".")
	s.mustGit("commit", "-q", "-m", "first")
	// The team's own text above the generated part, not staged.
	s.write(".ai/README.md", "Local note.\n\n"+s.read(".ai/README.md"))
	s.write(".ai/decisions/2026-02-02-b.md", decision("Second", "Two."))
	s.mustGit("add", ".ai/decisions")
	s.mustGit("commit", "-q", "-m", "second")
	committed := s.mustGit("show", "HEAD:.ai/README.md")
	if !strings.Contains(committed, "[Second]") || strings.Contains(committed, "Local note.") {
		t.Errorf("committed README:\n%s", committed)
	}
	work := s.read(".ai/README.md")
	if !strings.Contains(work, "Local note.") || !strings.Contains(work, "[Second]") {
		t.Errorf("work tree README:\n%s", work)
	}
	if st := s.mustGit("status", "--porcelain"); strings.TrimSpace(st) != "M .ai/README.md" {
		t.Errorf("status: %q", st)
	}
}

func TestBypassAndMissingKontext(t *testing.T) {
	s := withStore(t)
	// The hooks call the kontext that installed them, wherever PATH
	// points (an IDE's git has a PATH of its own): a copy here, so that
	// the test can take it away.
	installer := filepath.Join(s.home, "kbin", "kontext")
	os.MkdirAll(filepath.Dir(installer), 0o755)
	data, err := os.ReadFile(filepath.Join(binDir, "kontext"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(installer, data, 0o755); err != nil {
		t.Fatal(err)
	}
	if r := s.run(s.dir, nil, installer, "hooks", "install"); r.code != 0 {
		t.Fatalf("hooks install: %s", r)
	}
	if hook := s.read(".git/hooks/pre-commit"); !strings.Contains(hook, "kontext_bin='"+installer+"'") {
		t.Fatalf("the hook does not name its kontext:\n%s", hook)
	}
	s.path = pathWithoutKontext()
	s.write(".ai/learnings/keys.md", "---\nkind: learning\ntitle: Keys\n---\n\nThe key is "+awsKey+".\n")
	s.mustGit("add", ".")
	if r := s.git("commit", "-m", "blocked"); r.code == 0 {
		t.Fatalf("not blocked with no kontext on PATH: the hook did not call its own: %s", r)
	}
	r := s.run(s.dir, []string{"KONTEXT_SKIP=1"}, "git", "commit", "-m", "skipped")
	if r.code != 0 {
		t.Fatalf("KONTEXT_SKIP=1 did not bypass: %s", r)
	}
	if got := s.mustKontext("hooks", "status"); !strings.Contains(got, "pre-commit          installed (calls "+installer+")") {
		t.Errorf("hooks status:\n%s", got)
	}

	// The kontext that installed them is gone, and none is on PATH: the
	// hooks do nothing, and both statuses say so.
	os.Remove(installer)
	for _, args := range [][]string{{"hooks", "status"}, {"status"}} {
		got := s.mustKontext(args...)
		if strings.Contains(got, "installed (") || !strings.Contains(got, "the kontext they call, "+installer+", is missing, and no kontext is on PATH") && !strings.Contains(got, "the kontext it calls, "+installer+", is missing, and no kontext is on PATH") {
			t.Errorf("kontext %s with the binary gone:\n%s", strings.Join(args, " "), got)
		}
	}
	if brief := s.mustKontext("brief"); !strings.Contains(brief, "- Hooks: installed, but they do nothing: the kontext they call, "+installer+", is missing, and no kontext is on PATH") {
		t.Errorf("brief with the binary gone:\n%s", brief)
	}
	s.write(".ai/learnings/keys.md", "---\nkind: learning\ntitle: Keys\n---\n\nAnother key: "+"AKIA"+"J7W2KQ4ZP9XRM3TB"+".\n")
	s.mustGit("add", ".")
	r = s.git("commit", "-m", "no kontext here")
	if r.code != 0 {
		t.Fatalf("a machine without kontext could not commit: %s", r)
	}
	if r.stderr != "" {
		t.Errorf("the hooks said something without kontext: %q", r.stderr)
	}

	// With it gone, kontext on PATH runs instead; one that fails in
	// another way (an older version without `hooks run` exits 2) never
	// blocks; only status 1 does.
	fake := filepath.Join(s.home, "fakebin")
	os.MkdirAll(fake, 0o755)
	s.path = fake + string(os.PathListSeparator) + pathWithoutKontext()
	for status, blocks := range map[int]bool{2: false, 1: true} {
		os.WriteFile(filepath.Join(fake, "kontext"), []byte(fmt.Sprintf("#!/bin/sh\nexit %d\n", status)), 0o755)
		s.write("src/web/app.js", fmt.Sprintf("console.log(%d)\n", status))
		s.mustGit("add", "src")
		r = s.git("commit", "-m", "fake kontext")
		if blocked := r.code != 0; blocked != blocks {
			t.Errorf("kontext exiting %d: blocked = %v: %s", status, blocked, r)
		}
	}
}

// promote captures a decision and promotes it the way an agent does, and
// returns its id in the store.
func promote(t *testing.T, s *sandbox, title string) string {
	t.Helper()
	out := s.mustKontext("capture", "--kind", "decision", "--title", title, "--body", "We decided: "+title+".", "--paths", "src/api/**")
	m := regexp.MustCompile(`inbox:(\S+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("capture: %s", out)
	}
	out = s.mustKontext("prepare-commit", "--promote", m[1])
	p := regexp.MustCompile(`→ kx:(\S+)`).FindStringSubmatch(out)
	if p == nil {
		t.Fatalf("prepare-commit: %s", out)
	}
	return p[1]
}

func trailers(s *sandbox, rev, key string) []string {
	s.t.Helper()
	out := s.mustGit("log", "-1", "--format=%(trailers:key="+key+",valueonly)", rev)
	var vals []string
	for _, l := range strings.Split(out, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			vals = append(vals, l)
		}
	}
	return vals
}

func TestTrailersThroughAmend(t *testing.T) {
	s := withStore(t)
	s.mustKontext("hooks", "install")
	id := promote(t, s, "Use gRPC between services")
	s.write("src/api/server.go", "package api\n\n// gRPC\n")
	s.mustGit("add", "src/api/server.go")

	check := func(what string) {
		t.Helper()
		if got := trailers(s, "HEAD", "Decision"); len(got) != 1 || got[0] != id {
			t.Fatalf("%s: Decision trailers %q, want exactly [%s]\n%s", what, got, id, s.mustGit("log", "-1", "--format=%B"))
		}
	}
	s.mustGit("commit", "-q", "-m", "api: gRPC between services")
	check("commit")
	// The promotion record went with the commit (post-commit).
	promoted, _ := filepath.Glob(filepath.Join(s.dir, ".git", "kontext", "inbox", ".promoted", "*.md"))
	if len(promoted) != 0 {
		t.Errorf("promotion records left after the commit: %v", promoted)
	}

	s.mustGit("commit", "-q", "--amend", "--no-edit")
	check("amend --no-edit")

	s.mustGit("commit", "-q", "--amend", "-m", "api: talk gRPC between services")
	check("amend -m")
	if subj := strings.TrimSpace(s.mustGit("log", "-1", "--format=%s")); subj != "api: talk gRPC between services" {
		t.Errorf("subject %q", subj)
	}

	// An amend that opens the editor, where the message is changed.
	editor := filepath.Join(s.home, "editor.sh")
	os.WriteFile(editor, []byte("#!/bin/sh\nsed -i.bak 's/^api: talk/api: speak/' \"$1\"\n"), 0o755)
	r := s.run(s.dir, []string{"GIT_EDITOR=" + editor}, "git", "commit", "-q", "--amend")
	if r.code != 0 {
		t.Fatal(r)
	}
	check("amend in the editor")
	if subj := strings.TrimSpace(s.mustGit("log", "-1", "--format=%s")); subj != "api: speak gRPC between services" {
		t.Errorf("subject %q", subj)
	}

	// The next commit introduces nothing: no trailer.
	s.write("src/web/app.js", "console.log(2)\n")
	s.mustGit("commit", "-qam", "web")
	if got := trailers(s, "HEAD", "Decision"); len(got) != 0 {
		t.Errorf("a code commit got trailers %q", got)
	}
}

func TestTrailersOnAnEmptyMessageLeaveTheSubjectLineFree(t *testing.T) {
	s := withStore(t)
	s.mustKontext("hooks", "install")
	id := promote(t, s, "Cache prices for a minute")
	editor := filepath.Join(s.home, "editor.sh")
	// Writes the subject on the first line, as a person would.
	os.WriteFile(editor, []byte("#!/bin/sh\nsed -i.bak '1s/^$/prices: cache for a minute/' \"$1\"\n"), 0o755)
	r := s.run(s.dir, []string{"GIT_EDITOR=" + editor}, "git", "commit", "-q")
	if r.code != 0 {
		t.Fatal(r)
	}
	if got := trailers(s, "HEAD", "Decision"); len(got) != 1 || got[0] != id {
		t.Fatalf("trailers %q", got)
	}
	if subj := strings.TrimSpace(s.mustGit("log", "-1", "--format=%s")); subj != "prices: cache for a minute" {
		t.Errorf("subject %q:\n%s", subj, s.mustGit("log", "-1", "--format=%B"))
	}
}

func TestSquashMergeGetsTrailersAndMergeDoesNot(t *testing.T) {
	s := withStore(t)
	s.mustKontext("hooks", "install")
	s.mustGit("checkout", "-q", "-b", "feature")
	s.write(".ai/conventions/errors-wrap-with-context.md", "---\nkind: convention\ntitle: Errors wrap with context\n---\n\nWrap errors with %w and say what failed.\n")
	s.mustGit("add", ".")
	s.mustGit("commit", "-q", "-m", "convention")
	if got := trailers(s, "HEAD", "Convention"); len(got) != 1 || got[0] != "errors-wrap-with-context" {
		t.Fatalf("feature commit trailers %q", got)
	}
	s.mustGit("checkout", "-q", "main")
	s.mustGit("merge", "-q", "--squash", "feature")
	s.mustGit("commit", "-q", "--no-edit")
	if got := trailers(s, "HEAD", "Convention"); len(got) != 1 || got[0] != "errors-wrap-with-context" {
		t.Fatalf("squash commit trailers %q:\n%s", got, s.mustGit("log", "-1", "--format=%B"))
	}

	s.mustGit("checkout", "-q", "-b", "other", "HEAD~1")
	s.write(".ai/learnings/retries-need-jitter.md", "---\nkind: learning\ntitle: Retries need jitter\n---\n\nWithout jitter the retries arrive together.\n")
	s.mustGit("add", ".")
	s.mustGit("commit", "-q", "-m", "learning")
	s.mustGit("checkout", "-q", "main")
	s.mustGit("merge", "-q", "--no-ff", "--no-edit", "other")
	if got := trailers(s, "HEAD", "Learning"); len(got) != 0 {
		t.Errorf("the merge commit got trailers %q", got)
	}
	if got := trailers(s, "HEAD^2", "Learning"); len(got) != 1 {
		t.Errorf("the merged commit has trailers %q", got)
	}
}

func TestValidationConfigAndWarnings(t *testing.T) {
	s := withStore(t)
	s.mustKontext("hooks", "install")
	// A decision without a status: a warning, printed, not blocking.
	s.write(".ai/decisions/2026-02-03-no-status.md", "---\nkind: decision\ntitle: No status\ndate: 2026-02-03\n---\n\nText.\n")
	s.mustGit("add", ".")
	r := s.git("commit", "-m", "warning only")
	if r.code != 0 {
		t.Fatalf("a warning blocked the commit: %s", r)
	}
	if !strings.Contains(r.stderr, ".ai/decisions/2026-02-03-no-status.md:1: warning: decision has no status") {
		t.Errorf("warning not printed: %s", r)
	}

	// A duplicate id is an error...
	s.write(".ai/decisions/2026-02-04-copy.md", strings.Replace(useREST, "title: Use REST for the public API", "title: A copy", 1))
	s.mustGit("add", ".")
	r = s.git("commit", "-m", "duplicate")
	if r.code == 0 || !strings.Contains(r.stderr, `error: duplicate id "2026-01-05-use-rest-for-the-public-api"`) {
		t.Fatalf("duplicate id not blocked: %s", r)
	}
	// ...that hooks.validate = false lets through (the secret scan stays).
	s.write(".git/kontext/config.toml", "[hooks]\nvalidate = false\n")
	if r = s.git("commit", "-m", "duplicate"); r.code != 0 {
		t.Fatalf("hooks.validate = false still blocked: %s", r)
	}
	s.write(".ai/learnings/token.md", "---\nkind: learning\ntitle: Token\n---\n\n"+awsKey+"\n")
	s.mustGit("add", ".")
	if r = s.git("commit", "-m", "secret"); r.code == 0 {
		t.Fatalf("hooks.validate = false skipped the secret scan: %s", r)
	}
}

func TestHooksRunUnderHuskyAndHooksPath(t *testing.T) {
	t.Run("husky 9", func(t *testing.T) {
		s := withStore(t)
		// husky 9's generated scripts, as `husky` writes them.
		s.write(".husky/_/h", `#!/usr/bin/env sh
n=$(basename "$0")
s=$(dirname "$(dirname "$0")")/$n
[ ! -f "$s" ] && exit 0
sh -e "$s" "$@"
c=$?
[ $c != 0 ] && echo "husky - $n script failed (code $c)"
exit $c
`)
		for _, h := range []string{"pre-commit", "prepare-commit-msg", "post-commit"} {
			s.write(".husky/_/"+h, "#!/usr/bin/env sh\n. \"$(dirname \"$0\")/h\"\n")
			os.Chmod(filepath.Join(s.dir, ".husky", "_", h), 0o755)
		}
		s.write(".husky/pre-commit", "echo ran > .husky-ran\nfalse_is_fine=1\n")
		s.mustGit("config", "core.hooksPath", ".husky/_")
		out := s.mustKontext("hooks", "install")
		if !strings.Contains(out, "hooks directory: .husky (husky)") {
			t.Fatalf("install: %s", out)
		}
		s.write(".ai/learnings/keys.md", "---\nkind: learning\ntitle: Keys\n---\n\n"+awsKey+"\n")
		s.mustGit("add", ".ai")
		if r := s.git("commit", "-m", "blocked"); r.code == 0 || !strings.Contains(r.stderr, "high-confidence secret") {
			t.Fatalf("husky: not blocked: %s", r)
		}
		s.write(".ai/learnings/keys.md", "---\nkind: learning\ntitle: Keys\n---\n\nKeys live in the vault.\n")
		s.mustGit("add", ".ai")
		if r := s.git("commit", "-m", "ok"); r.code != 0 {
			t.Fatalf("husky: %s", r)
		}
		if _, err := os.Stat(filepath.Join(s.dir, ".husky-ran")); err != nil {
			t.Error("the team's husky hook did not run")
		}
		if got := trailers(s, "HEAD", "Learning"); len(got) != 1 {
			t.Errorf("husky: trailers %q", got)
		}
	})
	t.Run("core.hooksPath with an existing shell hook", func(t *testing.T) {
		s := withStore(t)
		s.write(".githooks/pre-commit", "#!/bin/sh\necho ran >> \"$(git rev-parse --show-toplevel)/.hook-ran\"\n")
		os.Chmod(filepath.Join(s.dir, ".githooks", "pre-commit"), 0o755)
		s.mustGit("config", "core.hooksPath", ".githooks")
		s.mustKontext("hooks", "install")
		if s.mustKontext("hooks", "install") != s.mustKontext("hooks", "install") {
			t.Error("install output differs between runs")
		}
		s.write(".ai/learnings/keys.md", "---\nkind: learning\ntitle: Keys\n---\n\n"+awsKey+"\n")
		s.mustGit("add", ".ai")
		if r := s.git("commit", "-m", "blocked"); r.code == 0 {
			t.Fatalf("hooksPath: not blocked: %s", r)
		}
		s.mustGit("rm", "-q", "--cached", ".ai/learnings/keys.md")
		s.write("src/web/app.js", "console.log(3)\n")
		s.mustGit("add", "src")
		if r := s.git("commit", "-m", "ok"); r.code != 0 {
			t.Fatal(r)
		}
		if got := s.read(".hook-ran"); got != "ran\n" {
			t.Errorf("the team's hook ran %q", got)
		}
	})
	t.Run("a chained Python hook", func(t *testing.T) {
		py, err := exec.Command("python3", "-c", "import sys; print(sys.executable)").Output()
		if err != nil {
			t.Skip("python3 is not available")
		}
		s := withStore(t)
		hook := filepath.Join(s.dir, ".git", "hooks", "pre-commit")
		script := "#!" + strings.TrimSpace(string(py)) + "\nimport subprocess\ntop = subprocess.check_output(['git', 'rev-parse', '--show-toplevel']).decode().strip()\nopen(top + '/.python-ran', 'a').write('ran\\n')\n"
		os.WriteFile(hook, []byte(script), 0o755)
		out := s.mustKontext("hooks", "install")
		if !strings.Contains(out, "pre-commit.kontext-chained") {
			t.Fatalf("install: %s", out)
		}
		s.write(".ai/learnings/keys.md", "---\nkind: learning\ntitle: Keys\n---\n\n"+awsKey+"\n")
		s.mustGit("add", ".ai")
		if r := s.git("commit", "-m", "blocked"); r.code == 0 {
			t.Fatalf("chained: not blocked: %s", r)
		}
		s.mustGit("rm", "-q", "--cached", ".ai/learnings/keys.md")
		s.write("src/web/app.js", "console.log(4)\n")
		s.mustGit("add", "src")
		if r := s.git("commit", "-m", "ok"); r.code != 0 {
			t.Fatal(r)
		}
		if got := s.read(".python-ran"); got != "ran\n" {
			t.Errorf("the Python hook ran %q", got)
		}
		s.mustKontext("hooks", "uninstall")
		if got, _ := os.ReadFile(hook); string(got) != script {
			t.Errorf("uninstall did not restore the Python hook:\n%s", got)
		}
	})
	t.Run("a linked worktree", func(t *testing.T) {
		s := withStore(t)
		s.mustKontext("hooks", "install")
		wt := filepath.Join(filepath.Dir(s.dir), "shop-wt")
		s.mustGit("worktree", "add", "-q", "-b", "wt", wt)
		os.WriteFile(filepath.Join(wt, ".ai", "learnings.md"), nil, 0o644)
		os.MkdirAll(filepath.Join(wt, ".ai", "learnings"), 0o755)
		os.WriteFile(filepath.Join(wt, ".ai", "learnings", "keys.md"), []byte("---\nkind: learning\ntitle: Keys\n---\n\n"+awsKey+"\n"), 0o644)
		s.run(wt, nil, "git", "add", ".ai")
		if r := s.run(wt, nil, "git", "commit", "-m", "blocked"); r.code == 0 || !strings.Contains(r.stderr, "high-confidence secret") {
			t.Fatalf("worktree: not blocked: %s", r)
		}
	})
}

func TestCheckCommand(t *testing.T) {
	s := withStore(t)
	r := s.kontext("check")
	if r.code != 0 || r.stdout != "kontext check: 3 files in .ai: no problems\n" {
		t.Fatalf("clean store: %s", r)
	}
	r = s.kontext("check", "--staged")
	if r.code != 0 || r.stdout != "kontext check --staged: no knowledge is staged\n" {
		t.Fatalf("nothing staged: %s", r)
	}

	// Warnings only: exit 0.
	s.write(".ai/decisions/2026-02-03-no-status.md", "---\nkind: decision\ntitle: No status\ndate: 2026-02-03\npaths: [src/nowhere/**]\n---\n\nText.\n")
	r = s.kontext("check")
	want := ".ai/decisions/2026-02-03-no-status.md:1: warning: decision has no status (proposed|accepted|superseded|deprecated|rejected)\n" +
		".ai/decisions/2026-02-03-no-status.md:5: warning: path pattern \"src/nowhere/**\" matches no tracked file\n" +
		"kontext check: 4 files in .ai: 0 errors, 2 warnings\n"
	if r.code != 0 || r.stdout != want {
		t.Fatalf("warnings: %s\nwant:\n%s", r, want)
	}

	// An error (a secret, an entry without a title): exit 1, one line each.
	s.write(".ai/learnings/keys.md", "---\nkind: learning\n---\n\nThe key is "+awsKey+".\n")
	r = s.kontext("check")
	if r.code != 1 {
		t.Fatalf("errors: %s", r)
	}
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if last := lines[len(lines)-1]; last != "kontext check: 5 files in .ai: 2 errors, 2 warnings" {
		t.Errorf("summary %q", last)
	}
	for _, l := range lines[:len(lines)-1] {
		if !problemLine.MatchString(l) {
			t.Errorf("not a problem line: %q", l)
		}
	}
	if !strings.Contains(r.stdout, ".ai/learnings/keys.md:5: error: high-confidence secret (aws-access-key) at column 12") ||
		!strings.Contains(r.stdout, ".ai/learnings/keys.md:1: error: missing title") {
		t.Errorf("errors:\n%s", r.stdout)
	}

	// --staged sees only what is staged.
	s.mustGit("add", ".ai/decisions")
	r = s.kontext("check", "--staged")
	if r.code != 0 || !strings.HasSuffix(r.stdout, "kontext check --staged: 1 file staged: 0 errors, 2 warnings\n") {
		t.Fatalf("staged warnings: %s", r)
	}
	s.mustGit("add", ".ai/learnings")
	if r = s.kontext("check", "--staged"); r.code != 1 {
		t.Fatalf("staged errors: %s", r)
	}
	// The staged content counts, not the work tree's.
	s.write(".ai/learnings/keys.md", "---\nkind: learning\ntitle: Keys\n---\n\nKeys live in the vault.\n")
	if r = s.kontext("check", "--staged"); r.code != 1 {
		t.Fatalf("staged errors after a work tree fix: %s", r)
	}
	if r = s.kontext("check"); r.code != 0 {
		t.Fatalf("work tree after the fix: %s", r)
	}
}

func TestStatusAndBrief(t *testing.T) {
	s := withStore(t)
	s.write(".ai/kontext.toml", "[store]\ndir = \".ai\"\n\n[freshness]\nthreshold_commits = 2\n")
	s.mustGit("commit", "-qam", "threshold 2")

	status := s.mustKontext("status")
	for _, want := range []string{
		"Store      .ai/ — 1 entry: 1 decision\n",
		"Inbox      empty\n",
		"Stale      none (no decision's paths saw more than 2 commits since it was last committed)\n",
		"Problems   none (kontext check)\n",
		"Hooks      not installed in .git/hooks (kontext hooks install)",
	} {
		if !strings.Contains(status, want) {
			t.Errorf("status lacks %q:\n%s", want, status)
		}
	}
	if brief := s.mustKontext("brief"); !strings.Contains(brief, "\n- Hooks: not installed (kontext hooks install)") {
		t.Errorf("brief without the hooks line:\n%s", brief)
	}

	s.mustKontext("hooks", "install")
	for i := 1; i <= 2; i++ {
		s.write("src/api/server.go", fmt.Sprintf("package api\n\n// change %d\n", i))
		s.mustGit("commit", "-qam", fmt.Sprintf("api change %d", i))
	}
	// Two commits are not more than two.
	if status = s.mustKontext("status"); !strings.Contains(status, "Stale      none") {
		t.Errorf("stale after two commits:\n%s", status)
	}
	s.write("src/web/app.js", "console.log('not the api')\n")
	s.mustGit("commit", "-qam", "web change")
	s.write("src/api/server.go", "package api\n\n// change 3\n")
	s.mustGit("commit", "-qam", "api change 3")

	status = s.mustKontext("status")
	// Counted from the commit that last changed the decision, not its date.
	ct, _ := strconv.ParseInt(strings.TrimSpace(s.mustGit("log", "-1", "--format=%ct", "--", ".ai/decisions/2026-01-05-use-rest-for-the-public-api.md")), 10, 64)
	since := time.Unix(ct, 0).UTC().Format("2006-01-02")
	for _, want := range []string{
		"Stale      1 decision whose paths saw more than 2 commits since it was last committed — check they still hold:\n",
		"             kx:2026-01-05-use-rest-for-the-public-api — 3 commits to its paths since " + since + "\n",
		"Hooks      installed in .git/hooks (pre-commit, prepare-commit-msg, post-commit, post-merge, post-rewrite)",
	} {
		if !strings.Contains(status, want) {
			t.Errorf("status lacks %q:\n%s", want, status)
		}
	}
	brief := s.mustKontext("brief")
	if !strings.Contains(brief, "\n- Stale: kx:2026-01-05-use-rest-for-the-public-api (3 commits to its paths since "+since+") — check it still holds") {
		t.Errorf("brief without the stale line:\n%s", brief)
	}
	if strings.Contains(brief, "- Hooks:") {
		t.Errorf("brief says hooks are missing:\n%s", brief)
	}

	// The inbox and problems.
	s.mustKontext("capture", "--kind", "learning", "--title", "Retries need jitter", "--body", "They arrive together otherwise.")
	s.mustKontext("capture", "--kind", "learning", "--title", "My editor setup", "--body", "Mine.", "--visibility", "private")
	s.write(".ai/learnings/keys.md", "---\nkind: learning\ntitle: Keys\n---\n\n"+awsKey+"\n")
	status = s.mustKontext("status")
	for _, want := range []string{
		"Inbox      1 team candidate from this worktree, 1 private capture (kontext inbox; promote with the commit: kontext prepare-commit --promote <id>)\n",
		"Store      .ai/ — 2 entries: 1 decision, 1 learning\n",
		"Problems   1 error, 0 warnings (kontext check lists them); errors block commits\n",
	} {
		if !strings.Contains(status, want) {
			t.Errorf("status lacks %q:\n%s", want, status)
		}
	}
	t.Logf("kontext status:\n%s", status)
}

func TestIndexReadmeWithCommitAllAndPartialCommits(t *testing.T) {
	s := withStore(t)
	s.mustKontext("hooks", "install")
	retitle := func(title string) {
		s.write(".ai/decisions/2026-01-05-use-rest-for-the-public-api.md", strings.Replace(useREST, "title: Use REST for the public API", "title: "+title, 1))
	}
	// git commit -a: the hook stages into git's temporary copy of the index.
	retitle("REST for the public API")
	s.mustGit("commit", "-qam", "retitle")
	if readme := s.mustGit("show", "HEAD:.ai/README.md"); !strings.Contains(readme, "[REST for the public API]") {
		t.Errorf("commit -a: README:\n%s", readme)
	}
	if st := s.mustGit("status", "--porcelain"); st != "" {
		t.Errorf("commit -a left:\n%s", st)
	}
	// git commit <paths>: git commits a temporary index; post-commit gives
	// the real one the committed README.
	retitle("JSON over REST for the public API")
	s.mustGit("commit", "-q", "-m", "retitle again", "--", ".ai/decisions/2026-01-05-use-rest-for-the-public-api.md")
	if readme := s.mustGit("show", "HEAD:.ai/README.md"); !strings.Contains(readme, "[JSON over REST for the public API]") {
		t.Errorf("partial commit: README:\n%s", readme)
	}
	if st := s.mustGit("status", "--porcelain"); st != "" {
		t.Errorf("partial commit left:\n%s", st)
	}
}

func TestInboxReminderAndTrailersOff(t *testing.T) {
	s := withStore(t)
	s.mustKontext("hooks", "install")
	s.mustKontext("capture", "--kind", "learning", "--title", "The API retries twice", "--body", "Clients retry twice.", "--paths", "src/api/**")
	s.mustKontext("capture", "--kind", "learning", "--title", "The web app caches", "--body", "It caches.", "--paths", "src/web/**")
	s.write("src/api/server.go", "package api\n\n// retries\n")
	s.mustGit("add", "src")
	r := s.git("commit", "-m", "api retries")
	if r.code != 0 {
		t.Fatal(r)
	}
	if !strings.Contains(r.stderr, "kontext: 1 candidate in the inbox touches the staged files") ||
		!regexp.MustCompile(`(?m)^  inbox:\S+ — learning The API retries twice$`).MatchString(r.stderr) ||
		strings.Contains(r.stderr, "The web app caches") {
		t.Errorf("reminder:\n%s", r.stderr)
	}
	s.write(".git/kontext/config.toml", "[hooks]\nremind_inbox = false\ntrailers = false\n")
	s.write("src/api/server.go", "package api\n\n// retries twice\n")
	s.mustGit("add", "src")
	if r = s.git("commit", "-m", "api retries twice"); r.code != 0 || r.stderr != "" {
		t.Errorf("remind_inbox = false: %s", r)
	}
	id := promote(t, s, "Retry twice at most")
	s.mustGit("commit", "-q", "-m", "decision without a trailer")
	if got := trailers(s, "HEAD", "Decision"); len(got) != 0 {
		t.Errorf("hooks.trailers = false: trailers %q (promoted %s)", got, id)
	}
}
