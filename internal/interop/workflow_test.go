package interop_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// goShopRepo makes a Go repository of four packages (store used by the
// three others, billing by one), a Hugo site under www/, a terraform
// module whose README is terraform-docs' stubs, and a history in which a
// fix is cherry-picked from a release branch.
func goShopRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	write := func(rel, body string) {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git := func(args ...string) string { t.Helper(); return gitOut(t, dir, args...) }
	git("init", "-q", "-b", "main")
	git("config", "user.name", "Ada")
	git("config", "user.email", "ada@example.com")
	git("config", "commit.gpgsign", "false")
	write("go.mod", "module example.com/shop\n\ngo 1.22\n")
	write("README.md", "# shop\n\n<!-- badges -->\nA shop that sells tea.\n")
	pkgs := map[string][]string{
		"internal/store":   nil,
		"internal/orders":  {"internal/store"},
		"internal/billing": {"internal/store", "internal/orders"},
		"cmd/shop":         {"internal/store", "internal/orders", "internal/billing"},
	}
	for pkg, deps := range pkgs {
		name := filepath.Base(pkg)
		if pkg == "cmd/shop" {
			name = "main"
		}
		var imports strings.Builder
		for _, d := range deps {
			fmt.Fprintf(&imports, "import _ %q\n", "example.com/shop/"+d)
		}
		for i := 0; i < 3; i++ {
			head := ""
			if i == 0 {
				head = fmt.Sprintf("// Package %s is the shop's %s.\n", name, filepath.Base(pkg))
			}
			write(fmt.Sprintf("%s/f%d.go", pkg, i), fmt.Sprintf("%spackage %s\n\n%s\n// F%d does its part.\nfunc F%d() int { return %d }\n", head, name, imports.String(), i, i, i))
		}
	}
	write("www/hugo.toml", "title = \"shop\"\n")
	write("www/content/guide/brewing.md", "# Brewing\n\nSteep the oolong for three minutes.\n")
	write("www/content/guide/storing.md", "# Storing\n\nKeep the oolong away from light.\n")
	write("infra/network/README.md", "# network\n\nThe VPC of the shop.\n\n<!-- BEGIN_TF_DOCS -->\n## Modules\n\nNo modules.\n\n## Inputs\n\nNo inputs.\n<!-- END_TF_DOCS -->\n")
	git("add", ".")
	git("commit", "-q", "-m", "Initial shop")
	git("checkout", "-q", "-b", "release")
	write("internal/orders/retry.go", "package orders\n\n// Retries back off.\n")
	git("add", ".")
	git("commit", "-q", "-m", "Fix the albatross retry loop")
	fix := strings.TrimSpace(git("rev-parse", "HEAD"))
	git("checkout", "-q", "main")
	write("internal/billing/f0.go", "// Package billing is the shop's billing.\npackage billing\n\nimport _ \"example.com/shop/internal/store\"\nimport _ \"example.com/shop/internal/orders\"\n\n// F0 does its part.\nfunc F0() int { return 10 }\n")
	git("commit", "-q", "-am", "Billing rounds to cents")
	git("cherry-pick", "-x", fix)
	return dir
}

// TestKnowledgeWorkflowEndToEnd drives issue 10's workflow points through
// the official Go SDK against a real kontext process: the bootstrap's
// tasks writing every learning (and saying what a resubmission rewrote),
// a brief that keeps every section with 20 decisions and 20 learnings and
// ranks the modules, no placeholder anywhere, supersedes resolved to full
// ids, prepare_commit staging what promote wrote, freshness counted from
// the last commit, search without cherry-picked copies or empty sections
// and with the docs site found. Every message is validated against the
// official schema.
func TestKnowledgeWorkflowEndToEnd(t *testing.T) {
	for _, era := range []struct{ name, ask string }{{"legacy", "2025-11-25"}, {"modern", "2026-07-28"}} {
		t.Run(era.name, func(t *testing.T) { knowledgeWorkflow(t, era.ask) })
	}
}

func knowledgeWorkflow(t *testing.T, ask string) {
	requireSetup(t)
	repo := goShopRepo(t)
	traces := t.TempDir()
	userConfig := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	cmd := exec.Command(kontextBin, "mcp", "--toolsets", "knowledge", "--root", repo)
	cmd.Env = append(os.Environ(), "KONTEXT_TRACE="+traceFile(traces, "kontext"), "KONTEXT_CONFIG_DIR="+userConfig)
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	logOnFailure(t, "kontext", stderr)
	client := mcp.NewClient(&mcp.Implementation{Name: "workflow-e2e", Version: "1"}, nil)
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
	write := func(rel, body string) {
		t.Helper()
		p := filepath.Join(repo, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	noPlaceholder := func(what, text string) {
		t.Helper()
		if strings.Contains(text, "<!--") || strings.Contains(text, "kontext:") {
			t.Errorf("%s shows a placeholder:\n%s", what, text)
		}
	}

	mustOK("ctx_init", map[string]any{"bootstrap": true})

	// 10, 15: every task's learnings are written; a resubmission says
	// what it did; an unknown task cannot be skipped.
	purpose := map[string]any{"task_id": "purpose", "summary": "A tea shop.", "overview": "The shop sells tea.\n\nIt has a store, orders and billing.",
		"learnings": []map[string]any{{"title": "Prices are in cents", "body": "Every amount is an integer number of cents."}}}
	if got := mustOK("ctx_init_submit", purpose); !strings.Contains(got, "Wrote .ai/learnings/prices-are-in-cents.md") {
		t.Errorf("purpose with a learning:\n%s", got)
	}
	if got := mustOK("ctx_init_submit", purpose); strings.Contains(got, "Wrote") || !strings.Contains(got, "Unchanged (they already hold this submission)") {
		t.Errorf("the same purpose again:\n%s", got)
	}
	mod := map[string]any{"task_id": "mod:internal/billing", "summary": "Billing turns orders into invoices.", "overview": "Invoices, credit notes and VAT.",
		"learnings": []map[string]any{{"title": "Invoices are immutable", "body": "Correct one with a credit note, never an edit."}}}
	mustOK("ctx_init_submit", mod)
	if learning := readFile(t, repo, ".ai/learnings/invoices-are-immutable.md"); !strings.Contains(learning, "internal/billing/**") || !strings.Contains(learning, "init_task: mod:internal/billing") {
		t.Errorf("the module's learning:\n%s", learning)
	}
	if text, isErr := call("ctx_init_submit", map[string]any{"task_id": "mod:internal/nowhere", "skip": true, "reason": "x"}); !isErr || !strings.Contains(text, "no task mod:internal/nowhere") {
		t.Errorf("skipping an unknown task: isError=%v %s", isErr, text)
	}
	if text, isErr := call("ctx_init_submit", map[string]any{"task_id": "dec:anything", "overview": "x", "learnings": []map[string]any{{"title": "t", "body": "b"}}}); !isErr || !strings.Contains(text, "summary and overview belong to") {
		t.Errorf("an overview on a dec: task: isError=%v %s", isErr, text)
	}

	// 1–3: 20 decisions and 20 learnings; every section stays, the
	// modules come by the engine's ranking and short path.
	for i := 1; i <= 20; i++ {
		paths := "internal/orders/**"
		if i == 1 {
			paths = "internal/billing/**"
		}
		write(fmt.Sprintf(".ai/decisions/2026-01-%02d-decision-%d.md", i, i), fmt.Sprintf("---\nkind: decision\ntitle: Decision %d on orders\nstatus: accepted\ndate: 2026-01-%02d\npaths: [%s]\n---\n\n## Decision\n\nWe do thing %d, and we keep doing it.\n", i, i, paths, i))
		write(fmt.Sprintf(".ai/learnings/lesson-%d.md", i), fmt.Sprintf("---\nkind: learning\ntitle: Lesson %d on the store\ndate: 2026-02-%02d\npaths: [%s]\n---\n\nThe store needs care %d: retries must back off, or they pile up on each other.\n", i, i, paths, i))
	}
	brief := mustOK("ctx_brief", nil)
	for _, s := range []string{"## Decisions", "## Learnings & pitfalls", "## Modules", "## State", "(+8 more: ctx_log)"} {
		if !strings.Contains(brief, s) {
			t.Errorf("brief lacks %q:\n%s", s, brief)
		}
	}
	noPlaceholder("the brief", brief)
	if !strings.Contains(brief, "\nAbout: The shop sells tea.\n") {
		t.Errorf("About:\n%s", brief)
	}
	modules := brief[strings.Index(brief, "## Modules"):]
	// The two packages the others import lead (the engine's ranking).
	if !(strings.HasPrefix(modules, "## Modules\n- internal/store") || strings.HasPrefix(modules, "## Modules\n- internal/orders")) || !strings.Contains(modules, "- internal/billing — Billing turns orders into invoices.") {
		t.Errorf("modules by rank and short path:\n%s", modules)
	}
	focused := mustOK("ctx_brief", map[string]any{"focus": []string{"billing"}, "budget_tokens": 700})
	for _, want := range []string{"## Modules\n- internal/billing", "## Decisions\n- [2026-01-01-decision] Decision 1 on orders", "## Learnings & pitfalls\n- [invoices"} {
		if !strings.Contains(focused, want) {
			t.Errorf("focus billing lacks %q:\n%s", want, focused)
		}
	}
	for _, s := range []string{"## Conventions", "## Incidents"} {
		if strings.Contains(focused, s) {
			t.Errorf("an empty section %s:\n%s", s, focused)
		}
	}

	// 12: supersedes resolved to the full id; ambiguous refused.
	if text, isErr := call("ctx_capture", map[string]any{"kind": "decision", "title": "Another", "body": "x", "supersedes": []string{"2026-01-1"}}); !isErr || !strings.Contains(text, "matches 10 entries") {
		t.Errorf("an ambiguous supersedes: isError=%v %s", isErr, text)
	}
	captured := mustOK("ctx_capture", map[string]any{"kind": "decision", "title": "Orders keep thing 5 in cents", "body": "## Decision\n\nCents.", "supersedes": []string{"2026-01-05"}, "paths": []string{"internal/orders/**"}})
	id := regexp.MustCompile(`inbox:(\S+)`).FindStringSubmatch(captured)[1]
	if shown := mustOK("ctx_inbox", map[string]any{"action": "promote", "ids": []string{id}}); !strings.Contains(shown, "Not staged yet") {
		t.Errorf("promote:\n%s", shown)
	}
	direct := mustOK("ctx_capture", map[string]any{"kind": "convention", "title": "Money is integer cents", "body": "Everywhere.", "promote": true})
	if !strings.Contains(direct, "ctx_prepare_commit stages it") {
		t.Errorf("capture with promote:\n%s", direct)
	}

	// 11: prepare_commit without ids stages what promote wrote, and the
	// knowledge written by hand and by the tasks, never the code.
	write("internal/orders/f0.go", "// Package orders is the shop's orders.\npackage orders\n\nimport _ \"example.com/shop/internal/store\"\n\n// F0 counts.\nfunc F0() int { return 100 }\n")
	report := mustOK("ctx_prepare_commit", nil)
	staged := gitOut(t, repo, "diff", "--cached", "--name-only")
	for _, want := range []string{".ai/conventions/money-is-integer-cents.md", ".ai/decisions/2026-01-05-decision-5.md", ".ai/learnings/lesson-20.md", ".ai/architecture/modules/internal-billing.md", ".ai/README.md"} {
		if !strings.Contains(staged, want+"\n") {
			t.Errorf("%s not staged:\n%s\n%s", want, staged, report)
		}
	}
	if strings.Contains(staged, "internal/orders/f0.go") {
		t.Errorf("the code was staged:\n%s", staged)
	}
	promotedFile := strings.TrimSpace(gitOut(t, repo, "diff", "--cached", "--name-only", "--diff-filter=A", "--", ".ai/decisions/*orders-keep-thing-5*"))
	if promoted := readFile(t, repo, promotedFile); !strings.Contains(promoted, "supersedes: [2026-01-05-decision-5]") {
		t.Errorf("supersedes not stored as the full id (%s):\n%s", promotedFile, promoted)
	}
	gitOut(t, repo, "add", ".")
	gitOut(t, repo, "commit", "-q", "-m", "Knowledge of the shop")

	// 14: a decision with an old date, committed now, is fresh; its paths
	// changing after the commit make it stale.
	write(".ai/kontext.toml", readFile(t, repo, ".ai/kontext.toml")+"\n[freshness]\nthreshold_commits = 2\n")
	write(".ai/decisions/2019-03-01-orders-are-append-only.md", "---\nkind: decision\ntitle: Orders are append-only\nstatus: accepted\ndate: 2019-03-01\npaths: [internal/orders/**]\n---\n\n## Decision\n\nNever update an order row.\n")
	gitOut(t, repo, "add", ".")
	gitOut(t, repo, "commit", "-q", "-m", "Record the orders decision")
	status, errOut, err := kontextIn(t, repo, []string{"KONTEXT_CONFIG_DIR=" + userConfig}, "status")
	if err != nil || strings.Contains(status, "kx:2019-03-01-orders-are-append-only") {
		t.Errorf("a decision committed now is stale: %v %s\n%s", err, errOut, status)
	}
	for i := 1; i <= 3; i++ {
		write("internal/orders/f1.go", fmt.Sprintf("package orders\n\n// F1 does its part, %d.\nfunc F1() int { return %d }\n", i, i))
		gitOut(t, repo, "commit", "-q", "-am", fmt.Sprintf("Orders change %d", i))
	}
	if status, _, _ = kontextIn(t, repo, []string{"KONTEXT_CONFIG_DIR=" + userConfig}, "status"); !strings.Contains(status, "kx:2019-03-01-orders-are-append-only — 3 commits to its paths since") {
		t.Errorf("three commits after it, threshold 2:\n%s", status)
	}

	// 16: a cherry-pick and its original are one hit; the docs site is
	// found; terraform-docs' stubs and the placeholders are not.
	hits := mustOK("ctx_search", map[string]any{"query": "albatross retry loop", "kinds": []string{"commit"}})
	if n := strings.Count(hits, "Fix the albatross retry loop"); n != 1 {
		t.Errorf("the cherry-picked fix is %d hits:\n%s", n, hits)
	}
	if got := mustOK("ctx_search", map[string]any{"query": "oolong"}); !strings.Contains(got, "<file:www/content/guide/brewing.md>") || !strings.Contains(got, "<file:www/content/guide/storing.md>") {
		t.Errorf("the Hugo site is not searched:\n%s", got)
	}
	if got := mustOK("ctx_search", map[string]any{"query": "modules inputs", "kinds": []string{"doc"}}); strings.Contains(got, "infra/network/README.md#") {
		t.Errorf("terraform-docs' empty sections are indexed:\n%s", got)
	}
	noPlaceholder("search", mustOK("ctx_search", map[string]any{"query": "task writes this section", "limit": 50}))

	cs.Close()
	validateWire(t, readTraces(t, tracesIn(t, traces)))

	// 13, 15 from a shell: the hooks name the kontext that installed them,
	// a capture is a person's, and the replies name commands.
	env := []string{"KONTEXT_CONFIG_DIR=" + userConfig}
	if out, errOut, err := kontextIn(t, repo, env, "hooks", "install"); err != nil {
		t.Fatalf("hooks install: %v\n%s%s", err, out, errOut)
	}
	if out, _, _ := kontextIn(t, repo, env, "hooks", "status"); !strings.Contains(out, "installed (calls "+kontextBin+")") {
		t.Errorf("hooks status:\n%s", out)
	}
	out, errOut, err := kontextIn(t, repo, env, "capture", "--kind", "learning", "--title", "Tea goes stale in a month", "--body", "Order small.")
	if err != nil || !strings.Contains(out, "kontext prepare-commit --promote ") || strings.Contains(out, "ctx_") {
		t.Errorf("kontext capture: %v %s\n%s", err, errOut, out)
	}
	files, _ := filepath.Glob(filepath.Join(repo, ".git", "kontext", "inbox", "*tea-goes-stale*.md"))
	if len(files) != 1 || !strings.Contains(readFile(t, repo, mustRel(t, repo, files[0])), "origin: human") {
		t.Errorf("the shell's capture is not origin: human: %v", files)
	}
}

func readFile(t *testing.T, dir, rel string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func mustRel(t *testing.T, dir, p string) string {
	t.Helper()
	rel, err := filepath.Rel(dir, p)
	if err != nil {
		t.Fatal(err)
	}
	return rel
}
