package check_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kontext-dev/kontext/internal/apps/check"
	"github.com/kontext-dev/kontext/internal/mcp"
)

// The programs the tests run as real processes, built once.
var (
	buildOnce sync.Once
	bins      struct{ notes, fixture, kontext string }
	buildErr  error
	binDir    string
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

func build(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs applications")
	}
	buildOnce.Do(func() {
		binDir, buildErr = os.MkdirTemp("", "appscheck-bin-")
		if buildErr != nil {
			return
		}
		bins.notes = filepath.Join(binDir, "notes")
		bins.fixture = filepath.Join(binDir, "fixture")
		bins.kontext = filepath.Join(binDir, "kontext")
		var wg sync.WaitGroup
		errs := make([]error, 3)
		for i, b := range []struct{ out, pkg string }{
			{bins.notes, "github.com/kontext-dev/kontext/examples/notes"},
			{bins.fixture, "github.com/kontext-dev/kontext/internal/apps/check/internal/fixture"},
			{bins.kontext, "github.com/kontext-dev/kontext/cmd/kontext"},
		} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if out, err := exec.Command("go", "build", "-o", b.out, b.pkg).CombinedOutput(); err != nil {
					errs[i] = fmt.Errorf("go build %s: %v\n%s", b.pkg, err, out)
				}
			}()
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil && buildErr == nil {
				buildErr = err
			}
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
}

// runtimeDir is a private runtime directory for one test.
func runtimeDir(t *testing.T) string {
	t.Helper()
	rt := t.TempDir()
	if err := os.Chmod(rt, 0o700); err != nil {
		t.Fatal(err)
	}
	return rt
}

var (
	notesReady   = regexp.MustCompile(`^notes: instance \S+, manifest (\S+)$`)
	fixtureReady = regexp.MustCompile(`^ready (\S+)$`)
)

// start runs an application with its manifest under rt and returns the
// manifest's path once it is written; the process is stopped at cleanup.
func start(t *testing.T, rt, bin string, args ...string) string {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "APPCONTEXT_RUNTIME_DIR="+rt)
	cmd.Dir = t.TempDir()
	var announce io.ReadCloser
	var err error
	ready := fixtureReady
	var logs strings.Builder
	var logsMu sync.Mutex
	if bin == bins.notes {
		ready = notesReady
		announce, err = cmd.StderrPipe()
	} else {
		announce, err = cmd.StdoutPipe()
		cmd.Stderr = &lockedWriter{w: &logs, mu: &logsMu}
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		if t.Failed() {
			logsMu.Lock()
			t.Logf("%s %v stderr:\n%s", filepath.Base(bin), args, logs.String())
			logsMu.Unlock()
		}
	})
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(announce)
		for sc.Scan() {
			if m := ready.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
			logsMu.Lock()
			logs.WriteString(sc.Text() + "\n")
			logsMu.Unlock()
		}
		close(found)
	}()
	select {
	case path, ok := <-found:
		if !ok {
			t.Fatalf("%s %v exited before its manifest was written", filepath.Base(bin), args)
		}
		return path
	case <-time.After(30 * time.Second):
		t.Fatalf("%s %v: no manifest after 30 s", filepath.Base(bin), args)
	}
	return ""
}

type lockedWriter struct {
	w  io.Writer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func runCheck(t *testing.T, rt, path string, era mcp.Era) *check.Report {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return check.Check(ctx, path, check.Options{RuntimeDir: rt, Era: era, Version: "test"})
}

func describe(rep *check.Report) string {
	var b strings.Builder
	for _, r := range rep.Results {
		state := "pass"
		if !r.Pass {
			state = "FAIL"
		}
		fmt.Fprintf(&b, "  %s %s %s\n", state, r.Rule, r.Reason)
	}
	return b.String()
}

var eras = []mcp.Era{mcp.EraAuto, mcp.EraLegacy}

// examples/notes with --touch-hints passes every rule, in both eras.
func TestNotesConforms(t *testing.T) {
	build(t)
	rt := runtimeDir(t)
	path := start(t, rt, bins.notes, "--touch-hints")
	for _, era := range eras {
		rep := runCheck(t, rt, path, era)
		if len(rep.Results) != len(check.Rules()) {
			t.Fatalf("%d results for %d rules", len(rep.Results), len(check.Rules()))
		}
		if rep.Failed() {
			t.Errorf("era %s: examples/notes --touch-hints does not conform:\n%s", era, describe(rep))
		}
	}
}

// Plain examples/notes keeps touch without hints, for the broker's
// defaults: exactly action-destructiveness fails, naming touch.
func TestNotesTouchStatesNoHints(t *testing.T) {
	build(t)
	rt := runtimeDir(t)
	rep := runCheck(t, rt, start(t, rt, bins.notes), mcp.EraAuto)
	for _, r := range rep.Results {
		want := r.Rule != check.ActionDestructiveness
		if r.Pass != want {
			t.Errorf("%s: pass %v, want %v (%s)", r.Rule, r.Pass, want, r.Reason)
		}
		if !r.Pass && !strings.Contains(r.Reason, "touch ") {
			t.Errorf("%s: the reason does not name touch: %s", r.Rule, r.Reason)
		}
	}
}

// needsOf is the transitive closure of a rule's prerequisites.
func needsOf(id string) []string {
	byID := map[string]check.Rule{}
	for _, r := range check.Rules() {
		byID[r.ID] = r
	}
	var out []string
	var walk func(string)
	walk = func(id string) {
		for _, n := range byID[id].Needs {
			if !slices.Contains(out, n) {
				out = append(out, n)
				walk(n)
			}
		}
	}
	walk(id)
	return out
}

// The fixture conforms, and each fixture that breaks one rule fails that
// rule with a reason, skips exactly the rules that need it (saying so),
// and passes every other, in both eras.
func TestFixtures(t *testing.T) {
	build(t)
	breaks := []string{""}
	for _, r := range check.Rules() {
		breaks = append(breaks, r.ID)
	}
	for _, broken := range breaks {
		name := broken
		if name == "" {
			name = "conforming"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			rt := runtimeDir(t)
			args := []string{}
			if broken != "" {
				args = append(args, "--break", broken)
			}
			path := start(t, rt, bins.fixture, args...)
			for _, era := range eras {
				rep := runCheck(t, rt, path, era)
				if len(rep.Results) != len(check.Rules()) {
					t.Fatalf("%d results for %d rules", len(rep.Results), len(check.Rules()))
				}
				for _, r := range rep.Results {
					switch {
					case r.Rule == broken:
						if r.Pass || r.Skipped || r.Reason == "" {
							t.Errorf("era %s: %s is broken but got pass=%v skipped=%v %q", era, r.Rule, r.Pass, r.Skipped, r.Reason)
						}
						t.Logf("era %s: %s fails: %s", era, r.Rule, r.Reason)
					case broken != "" && slices.Contains(needsOf(r.Rule), broken):
						if want := "skipped: " + broken + " failed"; r.Pass || !r.Skipped || r.Reason != want {
							t.Errorf("era %s: %s needs %s: got pass=%v skipped=%v %q, want %q", era, r.Rule, broken, r.Pass, r.Skipped, r.Reason, want)
						}
					case !r.Pass:
						t.Errorf("era %s: %s fails although only %q is broken: %s", era, r.Rule, broken, r.Reason)
					}
				}
				if t.Failed() {
					t.Logf("era %s:\n%s", era, describe(rep))
					return
				}
			}
		})
	}
}

// No reason quotes the launch's token, whatever failed.
func TestReasonsNeverQuoteTheToken(t *testing.T) {
	build(t)
	rt := runtimeDir(t)
	path := start(t, rt, bins.fixture, "--break", check.EndpointHandshake)
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	token := regexp.MustCompile(`"token": "([0-9a-f]{64})"`).FindSubmatch(raw)
	if token == nil {
		t.Fatalf("no token in %s", raw)
	}
	rep := runCheck(t, rt, path, mcp.EraAuto)
	for _, r := range rep.Results {
		if strings.Contains(r.Reason, string(token[1])) {
			t.Errorf("%s quotes the token: %s", r.Rule, r.Reason)
		}
	}
}

// A manifest that is not where brokers look, checked with --manifest's
// path, fails manifest-location and what needs it.
func TestManifestElsewhere(t *testing.T) {
	build(t)
	rt := runtimeDir(t)
	path := start(t, rt, bins.notes, "--touch-hints")
	elsewhere := filepath.Join(runtimeDir(t), filepath.Base(path))
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(elsewhere, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	rep := runCheck(t, rt, elsewhere, mcp.EraAuto)
	if r, _ := rep.Result(check.ManifestLocation); r.Pass || !strings.Contains(r.Reason, "not in the instances folder") {
		t.Errorf("manifest-location: %+v", r)
	}
	if r, _ := rep.Result(check.InstanceEcho); r.Pass || r.Reason != "skipped: manifest-location failed" {
		t.Errorf("instance-echo: %+v", r)
	}
	if r, _ := rep.Result(check.EndpointToken); !r.Pass {
		t.Errorf("endpoint-token needs no particular place: %+v", r)
	}
}

// The rules table is sound: unique ids, every prerequisite an earlier
// rule, every text present.
func TestRulesTable(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range check.Rules() {
		if seen[r.ID] {
			t.Errorf("rule %s twice", r.ID)
		}
		if !regexp.MustCompile(`^[a-z]+(-[a-z]+)+$`).MatchString(r.ID) {
			t.Errorf("rule id %q is not kebab-case", r.ID)
		}
		if r.Title == "" || r.Checks == "" || r.Why == "" {
			t.Errorf("rule %s lacks a title, what it checks or why", r.ID)
		}
		for _, n := range r.Needs {
			if !seen[n] {
				t.Errorf("rule %s needs %s, which does not run before it", r.ID, n)
			}
		}
		seen[r.ID] = true
	}
}

// kontext apps check, the real binary: exit 0 when everything conforms, 1
// on any failure, 2 for a wrong command line; one line per rule.
func TestCommand(t *testing.T) {
	build(t)
	kontext := func(t *testing.T, rt string, args ...string) (int, string, string) {
		t.Helper()
		cmd := exec.Command(bins.kontext, append([]string{"apps", "check"}, args...)...)
		cmd.Env = append(os.Environ(), "APPCONTEXT_RUNTIME_DIR="+rt)
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := 0
		if exit, ok := err.(*exec.ExitError); ok {
			code = exit.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return code, stdout.String(), stderr.String()
	}
	line := regexp.MustCompile(`^(pass|FAIL)  ([a-z-]+) {2,}(.+)$`)
	rules := func(t *testing.T, stdout string) map[string]string {
		t.Helper()
		out := map[string]string{}
		for _, l := range strings.Split(stdout, "\n") {
			if m := line.FindStringSubmatch(l); m != nil {
				out[m[2]] = m[1]
			}
		}
		return out
	}

	conforming := runtimeDir(t)
	path := start(t, conforming, bins.notes, "--touch-hints")
	id := strings.TrimSuffix(filepath.Base(path), ".json")
	for _, args := range [][]string{nil, {"--instance", id}, {"--manifest", path}} {
		code, stdout, stderr := kontext(t, conforming, args...)
		got := rules(t, stdout)
		if code != 0 || stderr != "" || len(got) != len(check.Rules()) || slices.Contains(mapValues(got), "FAIL") {
			t.Errorf("kontext apps check %v: exit %d, stderr %q, stdout:\n%s", args, code, stderr, stdout)
		}
		if !strings.Contains(stdout, "instance "+id) || !strings.Contains(stdout, fmt.Sprintf("%d rules: %d pass, 0 fail", len(check.Rules()), len(check.Rules()))) {
			t.Errorf("kontext apps check %v: no heading or summary:\n%s", args, stdout)
		}
	}

	broken := runtimeDir(t)
	start(t, broken, bins.fixture, "--break", check.EndpointToken)
	start(t, broken, bins.notes, "--touch-hints")
	code, stdout, _ := kontext(t, broken)
	if code != 1 {
		t.Errorf("a non-conforming instance among two: exit %d, want 1:\n%s", code, stdout)
	}
	if !regexp.MustCompile(`(?m)^FAIL  endpoint-token {2,}a request without a token was answered 200 OK, not 401$`).MatchString(stdout) {
		t.Errorf("no FAIL line for endpoint-token:\n%s", stdout)
	}
	if n := strings.Count(stdout, "rules: "); n != 2 {
		t.Errorf("%d instances reported, want 2:\n%s", n, stdout)
	}

	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"--instance", id, "--manifest", path}, 2, "give one"},
		{[]string{"--instance", "../x"}, 2, "no instance id"},
		{[]string{"extra"}, 2, "unexpected argument"},
		{[]string{"--instance", "nosuchinstance"}, 1, "no instance nosuchinstance in "},
	} {
		code, stdout, stderr := kontext(t, conforming, tc.args...)
		if code != tc.code || !strings.Contains(stderr, tc.msg) {
			t.Errorf("kontext apps check %v: exit %d, stderr %q, stdout %q; want exit %d and %q", tc.args, code, stderr, stdout, tc.code, tc.msg)
		}
	}
	if code, _, stderr := kontext(t, runtimeDir(t)); code != 1 || !strings.Contains(stderr, "no App Context instance") {
		t.Errorf("no instance: exit %d, stderr %q", code, stderr)
	}
}

func mapValues(m map[string]string) []string {
	var out []string
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// The profile document's generated sections are what the rules table and
// the manifest schema make of them now.
func TestProfileDocGenerated(t *testing.T) {
	path := filepath.Join("..", "..", "..", filepath.FromSlash(check.ProfileDoc))
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want, err := check.SpliceDoc(doc)
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != string(doc) {
		t.Fatalf("%s is stale: run go generate ./internal/apps/check (or make generate) and commit it", check.ProfileDoc)
	}
	for _, r := range check.Rules() {
		if !strings.Contains(string(doc), "#### "+r.ID+"\n") {
			t.Errorf("%s does not describe rule %s", check.ProfileDoc, r.ID)
		}
	}
}
