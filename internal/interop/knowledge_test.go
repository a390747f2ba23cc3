package interop_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kontext-dev/kontext/internal/gittest"
)

// gitRepo makes a throwaway repository with one committed source file.
func gitRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	run := func(args ...string) { t.Helper(); gittest.Run(t, dir, gittest.Ada(), args...) }
	run("init", "-q", "-b", "main")
	run("config", "user.name", "Ada")
	run("config", "user.email", "ada@example.com")
	run("config", "commit.gpgsign", "false")
	os.MkdirAll(filepath.Join(dir, "src", "orders"), 0o755)
	os.WriteFile(filepath.Join(dir, "src", "orders", "total.go"), []byte("package orders\n\n// orderTotal sums an order's lines.\nfunc orderTotal(lines []int) int {\n\tsum := 0\n\tfor _, l := range lines {\n\t\tsum += l\n\t}\n\treturn sum\n}\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "README.md"), []byte("# Shop\n\nA shop that sells tea.\n"), 0o644)
	run("add", ".")
	run("commit", "-q", "-m", "Initial shop")
	return dir
}

func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	return gittest.Git(t, dir, args...)
}

// TestKnowledgeEndToEnd drives a real `kontext mcp` process with the
// official Go SDK through the knowledge workflow in a throwaway repository:
// refusals before a store exists, a private capture, capture → inbox →
// prepare_commit → git commit → the entry found by search, read, why and
// log; supersession; secret redaction. Every message the server writes is
// validated against the official schema.
func TestKnowledgeEndToEnd(t *testing.T) {
	for _, era := range []struct{ name, ask string }{{"legacy", "2025-11-25"}, {"modern", "2026-07-28"}} {
		t.Run(era.name, func(t *testing.T) { knowledgeEndToEnd(t, era.ask) })
	}
}

func knowledgeEndToEnd(t *testing.T, ask string) {
	requireSetup(t)
	repo := gitRepo(t)
	traces := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	// The knowledge toolset alone: the eight tools, three prompts and its
	// resources are what this test counts.
	cmd := exec.Command(kontextBin, "mcp", "--toolsets", "knowledge", "--root", repo)
	cmd.Env = append(os.Environ(), "KONTEXT_TRACE="+traceFile(traces, "kontext"), "KONTEXT_CONFIG_DIR="+t.TempDir())
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	logOnFailure(t, "kontext", stderr)
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, &mcp.ClientSessionOptions{ProtocolVersion: ask})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	call := func(name string, args map[string]any) (string, bool) {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return textContent(t, res), res.IsError
	}
	mustOK := func(name string, args map[string]any) string {
		t.Helper()
		text, isErr := call(name, args)
		if isErr {
			t.Fatalf("%s failed: %s", name, text)
		}
		return text
	}

	// The ten tools, with the seed's annotations.
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	readOnly := map[string]bool{"ctx_brief": true, "ctx_search": true, "ctx_read": true, "ctx_why": true, "ctx_log": true}
	if len(tools.Tools) != 10 {
		t.Fatalf("%d tools, want the ten knowledge tools", len(tools.Tools))
	}
	for _, tool := range tools.Tools {
		a := tool.Annotations
		if a == nil || a.ReadOnlyHint != readOnly[tool.Name] || a.OpenWorldHint == nil || *a.OpenWorldHint {
			t.Errorf("%s: annotations %+v", tool.Name, a)
		}
		if !readOnly[tool.Name] && (a.DestructiveHint == nil || *a.DestructiveHint) {
			t.Errorf("%s writes and must say destructiveHint: false", tool.Name)
		}
	}

	// Before a store exists: only private captures.
	if text, isErr := call("ctx_capture", map[string]any{"kind": "decision", "title": "Use Postgres", "body": "x"}); !isErr || !strings.Contains(text, "no knowledge store") {
		t.Fatalf("a team capture without a store: isError=%v %q", isErr, text)
	}
	private := mustOK("ctx_capture", map[string]any{"kind": "learning", "title": "The test DB is slow on Mondays", "body": "Backups run then.", "visibility": "private"})
	if !strings.Contains(private, "inbox:") || !strings.Contains(private, "private") {
		t.Fatalf("private capture: %s", private)
	}
	privateID := regexp.MustCompile(`inbox:(\S+)`).FindStringSubmatch(private)[1]
	if text, isErr := call("ctx_inbox", map[string]any{"action": "promote", "ids": []string{privateID}}); !isErr {
		t.Fatalf("promoting without a store: %s", text)
	}

	// The store exists (as the bootstrap would make it).
	os.MkdirAll(filepath.Join(repo, ".ai", "decisions"), 0o755)

	// A capture with a secret in it: redacted.
	const fakeKey = "AKIA" + "QYLPMN5HHHFPZAM2"
	captured := mustOK("ctx_capture", map[string]any{
		"kind":  "adr",
		"title": "Store orders in Postgres",
		"body":  "## Context\nRedis lost orders twice.\n\n## Decision\nOrders live in Postgres, never in Redis. The old key was " + fakeKey + ".\n\n## Consequences\nMigrations run on deploy.",
		"paths": "src/orders/**",
		"tags":  []string{"db"},
	})
	if !strings.Contains(captured, "Redacted") {
		t.Errorf("the secret was not reported redacted: %s", captured)
	}
	id := regexp.MustCompile(`inbox:(\S+)`).FindStringSubmatch(captured)[1]
	shown := mustOK("ctx_inbox", map[string]any{"action": "show", "ids": id})
	if strings.Contains(shown, fakeKey) || !strings.Contains(shown, "[redacted:") {
		t.Errorf("the inbox keeps the secret: %s", shown)
	}

	// prepare_commit promotes and stages exactly the knowledge it wrote.
	os.WriteFile(filepath.Join(repo, "src", "orders", "total.go"), []byte("package orders\n\n// orderTotal sums an order's lines, in cents.\nfunc orderTotal(lines []int) int {\n\tsum := 0\n\tfor _, l := range lines {\n\t\tsum += l\n\t}\n\treturn sum\n}\n"), 0o644)
	report := mustOK("ctx_prepare_commit", map[string]any{"promote": []string{id}})
	for _, want := range []string{"Promoted inbox:" + id, "Staged", "## Checks", "Decision: "} {
		if !strings.Contains(report, want) {
			t.Errorf("prepare_commit report lacks %q:\n%s", want, report)
		}
	}
	staged := gitOut(t, repo, "diff", "--cached", "--name-only")
	if !strings.Contains(staged, ".ai/decisions/") || strings.Contains(staged, "total.go") {
		t.Fatalf("staged: %s (want the entry, not the user's change)", staged)
	}
	entryID := regexp.MustCompile(`kx:(\S+) \(`).FindStringSubmatch(report)[1]
	gitOut(t, repo, "add", "src")
	gitOut(t, repo, "commit", "-q", "-m", "Move orders to Postgres because Redis lost data\n\nDecision: "+entryID)
	head := strings.TrimSpace(gitOut(t, repo, "rev-parse", "--short=7", "HEAD"))

	// Search: the seed's line format.
	hits := mustOK("ctx_search", map[string]any{"query": "postgres orders", "kinds": "decision"})
	line := regexp.MustCompile(`(?m)^1\. Store orders in Postgres — .+ \[decision · accepted · \d{4}-\d\d-\d\d\] <kx:` + regexp.QuoteMeta(entryID) + `>$`)
	if !line.MatchString(hits) {
		t.Errorf("search hit:\n%s", hits)
	}
	// Identifier expansion: "order total" finds the commit that touched orderTotal's file,
	// and orderTotal finds the words "order total" (via the path and message).
	if got := mustOK("ctx_search", map[string]any{"query": "orderTotal"}); !strings.Contains(got, "git:") {
		t.Errorf("orderTotal found nothing of the history: %s", got)
	}
	// Read, by a unique prefix.
	read := mustOK("ctx_read", map[string]any{"uri": "kx:" + entryID[:len(entryID)-3], "level": 2})
	if !strings.Contains(read, "## Decision") || !strings.Contains(read, "never in Redis") {
		t.Errorf("read: %s", read)
	}
	// Why a line: the decision covering it and the commit that explains it.
	why := mustOK("ctx_why", map[string]any{"target": "src/orders/total.go:3"})
	for _, want := range []string{"kx:" + entryID, "git:" + head, "kontext trailer"} {
		if !strings.Contains(why, want) {
			t.Errorf("why lacks %q:\n%s", want, why)
		}
	}
	// The log, with the introducing commit.
	log := mustOK("ctx_log", nil)
	if !strings.Contains(log, entryID) || !strings.Contains(log, "introduced in "+head) {
		t.Errorf("log:\n%s", log)
	}

	// Supersession, written straight into the store.
	next := mustOK("ctx_capture", map[string]any{"kind": "decision", "title": "Store orders in CockroachDB", "body": "## Decision\nOrders move to CockroachDB for multi-region writes.", "supersedes": []string{entryID}, "promote": true, "paths": []string{"src/orders/**"}})
	if !strings.Contains(next, "Marked kx:"+entryID+" superseded") {
		t.Fatalf("supersede: %s", next)
	}
	active := mustOK("ctx_log", nil)
	if regexp.MustCompile(`(?m)^\S+  ` + regexp.QuoteMeta(entryID) + `  `).MatchString(active) {
		t.Errorf("the superseded entry is still listed as active:\n%s", active)
	}
	all := mustOK("ctx_log", map[string]any{"all": true})
	if !strings.Contains(all, "superseded by") {
		t.Errorf("ctx_log all does not show the supersession:\n%s", all)
	}

	// The brief, the resources and the prompts.
	brief := mustOK("ctx_brief", map[string]any{"focus": "src/orders"})
	if !strings.Contains(brief, "— team context") || !strings.Contains(brief, "CockroachDB") || strings.Contains(brief, "Store orders in Postgres —") {
		t.Errorf("brief:\n%s", brief)
	}
	res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "kontext://brief"})
	if err != nil || len(res.Contents) != 1 || !strings.Contains(res.Contents[0].Text, "team context") {
		t.Errorf("kontext://brief: %v %+v", err, res)
	}
	list, err := cs.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range list.Resources {
		if r.URI == "kontext://entry/"+entryID {
			found = true
		}
	}
	if !found {
		t.Errorf("resources/list lacks kontext://entry/%s", entryID)
	}
	entry, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "kontext://entry/" + entryID})
	if err != nil || !strings.Contains(entry.Contents[0].Text, "status: superseded") {
		t.Errorf("the entry resource: %v %+v", err, entry)
	}
	prompts, err := cs.ListPrompts(ctx, nil)
	if err != nil || len(prompts.Prompts) != 3 {
		t.Fatalf("prompts: %v %+v", err, prompts)
	}
	p, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "kontext-commit"})
	if err != nil || !strings.Contains(p.Messages[0].Content.(*mcp.TextContent).Text, "ctx_prepare_commit") {
		t.Errorf("kontext-commit: %v", err)
	}
	cs.Close()
	validateWire(t, readTraces(t, tracesIn(t, traces)))
}

// TestConcurrentCaptures runs kontext processes capturing at once in two
// worktrees of one repository, then promotes from both: nothing is lost,
// nothing is duplicated, no file is corrupt.
func TestConcurrentCaptures(t *testing.T) {
	requireSetup(t)
	repo := gitRepo(t)
	os.MkdirAll(filepath.Join(repo, ".ai", "decisions"), 0o755)
	os.WriteFile(filepath.Join(repo, ".ai", "decisions", ".keep"), nil, 0o644)
	gitOut(t, repo, "add", "-f", ".ai")
	gitOut(t, repo, "commit", "-q", "-m", "Set up the store")
	wt := filepath.Join(t.TempDir(), "wt")
	gitOut(t, repo, "worktree", "add", "-q", wt)
	env := append(os.Environ(), "KONTEXT_CONFIG_DIR="+t.TempDir())

	const perWorktree = 6
	var wg sync.WaitGroup
	errs := make(chan string, 2*perWorktree)
	for _, dir := range []string{repo, wt} {
		for i := 0; i < perWorktree; i++ {
			wg.Add(1)
			go func(dir string, i int) {
				defer wg.Done()
				cmd := exec.Command(kontextBin, "capture", "--root", dir, "--kind", "learning", "--title", fmt.Sprintf("Lesson %d from %s", i, filepath.Base(dir)), "--body", "Something worth keeping.")
				cmd.Env = env
				if out, err := cmd.CombinedOutput(); err != nil {
					errs <- fmt.Sprintf("%v: %s", err, out)
				}
			}(dir, i)
		}
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	inbox := func() string {
		cmd := exec.Command(kontextBin, "inbox", "--root", repo)
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("inbox: %v\n%s", err, out)
		}
		return string(out)
	}
	ids := regexp.MustCompile(`inbox:(\S+)`).FindAllStringSubmatch(inbox(), -1)
	if len(ids) != 2*perWorktree {
		t.Fatalf("%d candidates in the inbox, want %d", len(ids), 2*perWorktree)
	}
	// Promote them all from both worktrees at once: each exactly once.
	var all []string
	for _, m := range ids {
		all = append(all, m[1])
	}
	for _, dir := range []string{repo, wt} {
		wg.Add(1)
		go func(dir string) {
			defer wg.Done()
			cmd := exec.Command(kontextBin, "inbox", "--root", dir, "--action", "promote", "--ids", strings.Join(all, ","))
			cmd.Env = env
			cmd.CombinedOutput() // one of the two finds some already promoted
		}(dir)
	}
	wg.Wait()
	var written int
	for _, dir := range []string{repo, wt} {
		entries, _ := filepath.Glob(filepath.Join(dir, ".ai", "learnings", "*.md"))
		for _, e := range entries {
			data, err := os.ReadFile(e)
			if err != nil || !strings.HasPrefix(string(data), "---\n") || !strings.Contains(string(data), "Something worth keeping.") {
				t.Errorf("%s is not a whole entry: %q", e, data)
			}
		}
		written += len(entries)
	}
	if written != 2*perWorktree {
		t.Errorf("%d entries written across the worktrees, want %d (each candidate exactly once)", written, 2*perWorktree)
	}
	if left := regexp.MustCompile(`inbox:`).FindAllString(inbox(), -1); len(left) != 0 {
		t.Errorf("%d candidates left in the inbox after promoting all", len(left))
	}
}
