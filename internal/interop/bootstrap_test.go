package interop_test

import (
	"bytes"
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

// shopRepo makes the throwaway repository: npm workspaces with two
// packages (apps/api depends on libs/pricing), a Python worker, and a few
// hundred commits, among them a dependency swap and a breaking refactor.
func shopRepo(t *testing.T, commits int) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"package.json":                 `{"name":"shop","private":true,"description":"A tea shop","workspaces":["apps/*","libs/*"],"scripts":{"build":"tsc -b","test":"vitest"},"devDependencies":{"typescript":"^5.4.0","vitest":"^1.0.0"}}` + "\n",
		"apps/api/package.json":        `{"name":"@shop/api","version":"1.0.0","description":"HTTP API of the shop","main":"src/index.ts","dependencies":{"@shop/pricing":"*","express":"^4.19.0","moment":"^2.29.0"}}` + "\n",
		"apps/api/src/index.ts":        "import express from \"express\";\nimport { price } from \"@shop/pricing\";\nconst app = express();\napp.get(\"/price\", (req, res) => res.json(price(10)));\napp.listen(3000);\n",
		"apps/api/src/quote.ts":        "import { price } from \"@shop/pricing\";\nexport function quote(n: number) { return price(n); }\n",
		"apps/api/src/util.ts":         "export function helper() { return 1; }\n",
		"libs/pricing/package.json":    `{"name":"@shop/pricing","version":"1.0.0","description":"Prices, taxes and discounts","main":"src/index.ts"}` + "\n",
		"libs/pricing/src/index.ts":    "export function price(n: number) { return n * 1.2; }\nexport const VAT = 0.2;\n",
		"libs/pricing/src/discount.ts": "export function discount(n: number) { return n * 0.9; }\n",
		"libs/pricing/src/tax.ts":      "export function tax(n: number) { return n * 0.2; }\n",
		"worker/__init__.py":           "\"\"\"Background worker that sends order emails.\"\"\"\n",
		"worker/main.py":               "from worker import mailer\n\n\ndef main():\n    mailer.send()\n",
		"worker/mailer.py":             "def send():\n    pass\n",
		"worker/requirements.txt":      "celery==5.3.0\n",
		"README.md":                    "# Shop\n\nA small tea shop: an API, pricing, and a worker.\n",
		"docs/adr/0001-use-express.md": "# 1. Use Express for the API\n\nDate: 2024-03-01\n\n## Status\n\nAccepted\n\n## Context\n\nWe need an HTTP server.\n\n## Decision\n\nThe API uses Express.\n\n## Consequences\n\nMiddleware is Express-style.\n",
	}
	for rel, body := range files {
		p := filepath.Join(dir, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	git("init", "-q", "-b", "main")
	git("config", "user.name", "Ada")
	git("config", "user.email", "ada@example.com")
	git("config", "commit.gpgsign", "false")
	git("add", ".")
	git("commit", "-q", "-m", "Initial shop")
	parent := strings.TrimSpace(git("rev-parse", "HEAD"))

	// The rest through fast-import: hundreds of commits in a second.
	var in bytes.Buffer
	when := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	tax := files["libs/pricing/src/tax.ts"]
	for i := 1; i <= commits; i++ {
		when = when.Add(3 * time.Hour)
		path, content, msg := "libs/pricing/src/tax.ts", "", fmt.Sprintf("Tweak tax rounding %d", i)
		switch i {
		case commits / 3:
			path, content = "apps/api/package.json", strings.Replace(files["apps/api/package.json"], `"moment":"^2.29.0"`, `"date-fns":"^3.0.0"`, 1)
			msg = "Replace moment with date-fns because moment is deprecated"
		case commits / 2:
			path, content = "apps/api/src/index.ts", files["apps/api/src/index.ts"]+"// routers\n"
			msg = "refactor!: switch the API to express routers instead of one app\n\nOne app file grew too large; routers keep each resource apart."
		case 2 * commits / 3:
			path, content = "worker/mailer.py", "def send():\n    # never send twice\n    pass\n"
			msg = "Make the mailer idempotent so that a retried job never sends twice"
		default:
			tax += fmt.Sprintf("// %d\n", i)
			content = tax
		}
		fmt.Fprintf(&in, "commit refs/heads/main\nauthor Ada <ada@example.com> %d +0000\ncommitter Ada <ada@example.com> %d +0000\ndata %d\n%s\n", when.Unix(), when.Unix(), len(msg), msg)
		if i == 1 {
			fmt.Fprintf(&in, "from %s\n", parent)
		}
		fmt.Fprintf(&in, "M 100644 inline %s\ndata %d\n%s\n", path, len(content), content)
	}
	cmd := exec.Command("git", "fast-import", "--quiet")
	cmd.Dir = dir
	cmd.Stdin = &in
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("fast-import: %v\n%s", err, out)
	}
	git("reset", "-q", "--hard", "main")
	return dir
}

// kontext runs the kontext binary in dir.
func kontextIn(t *testing.T, dir string, env []string, args ...string) (string, string, error) {
	t.Helper()
	cmd := exec.Command(kontextBin, args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), env...), "KONTEXT_ROOT=")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return stdout.String(), stderr.String(), err
}

// TestBootstrapEndToEnd is the bootstrap and commit workflow in a throwaway
// repository: refusals before set-up, kontext init and its files, module
// docs with dependency edges and descriptions, ctx_init → ctx_init_submit
// round trips and their idempotence, the other-branch refusal, the hooks
// adding one trailer through an amend, and check blocking a secret.
func TestBootstrapEndToEnd(t *testing.T) {
	requireSetup(t)
	repo := shopRepo(t, 300)
	userConfig := t.TempDir()
	env := []string{"KONTEXT_CONFIG_DIR=" + userConfig, "PATH=" + filepath.Dir(kontextBin) + string(os.PathListSeparator) + os.Getenv("PATH")}
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()

	connect := func(root string) (*mcp.ClientSession, func(name string, args map[string]any) (string, bool)) {
		t.Helper()
		cmd := exec.Command(kontextBin, "mcp", "--toolsets", "knowledge", "--root", root)
		cmd.Env = append(os.Environ(), env...)
		stderr := &syncBuffer{}
		cmd.Stderr = stderr
		logOnFailure(t, "kontext", stderr)
		client := mcp.NewClient(&mcp.Implementation{Name: "bootstrap-e2e", Version: "1"}, nil)
		cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs, func(name string, args map[string]any) (string, bool) {
			t.Helper()
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			return textContent(t, res), res.IsError
		}
	}
	_, call := connect(repo)
	mustOK := func(name string, args map[string]any) string {
		t.Helper()
		text, isErr := call(name, args)
		if isErr {
			t.Fatalf("%s failed: %s", name, text)
		}
		return text
	}

	// Refusals before set-up.
	if text, isErr := call("ctx_capture", map[string]any{"kind": "decision", "title": "Use Postgres", "body": "x"}); !isErr || !strings.Contains(text, "no knowledge store") {
		t.Errorf("team capture before set-up: %v %s", isErr, text)
	}
	if text := mustOK("ctx_init", nil); !strings.Contains(text, "no knowledge store") || !strings.Contains(text, "bootstrap: true") {
		t.Errorf("ctx_init without bootstrap should explain how to start:\n%s", text)
	}
	if _, err := os.Stat(filepath.Join(repo, ".ai")); err == nil {
		t.Fatal("ctx_init without bootstrap wrote .ai/")
	}
	mustOK("ctx_capture", map[string]any{"kind": "learning", "title": "Staging is slow on Mondays", "body": "Backups run then.", "visibility": "private"})

	// kontext init: scan → history → render → hooks.
	out, errOut, err := kontextIn(t, repo, env, "init")
	if err != nil {
		t.Fatalf("kontext init: %v\n%s%s", err, out, errOut)
	}
	for _, f := range []string{".ai/kontext.toml", ".ai/architecture/overview.md", ".ai/architecture/modules/apps-api.md", ".ai/architecture/modules/libs-pricing.md", ".ai/architecture/modules/worker.md", ".ai/README.md", ".ai/.gitattributes"} {
		if !strings.Contains(out, f) {
			t.Errorf("kontext init did not report %s:\n%s", f, out)
		}
		if _, err := os.Stat(filepath.Join(repo, f)); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	if !strings.Contains(out, "pre-commit") || !strings.Contains(out, "prepare-commit-msg") {
		t.Errorf("kontext init did not install the hooks:\n%s", out)
	}
	again, _, err := kontextIn(t, repo, env, "init")
	if err != nil || !strings.Contains(again, "up to date") {
		t.Errorf("a second kontext init should change nothing: %v\n%s", err, again)
	}
	api := read(t, repo, ".ai/architecture/modules/apps-api.md")
	for _, want := range []string{"Depends on: `libs/pricing` (workspace)", "HTTP API of the shop", "<!-- kontext:facts:start"} {
		if !strings.Contains(api, want) {
			t.Errorf("apps-api.md lacks %q:\n%s", want, api)
		}
	}
	if worker := read(t, repo, ".ai/architecture/modules/worker.md"); !strings.Contains(worker, "Background worker that sends order emails.") {
		t.Errorf("worker.md lacks the docstring description:\n%s", worker)
	}
	// The history's facts are the ones a commit does not change (issue 10,
	// point 7): its first commit's date, not a count of commits.
	if overview := read(t, repo, ".ai/architecture/overview.md"); !strings.Contains(overview, "npm workspaces") || !strings.Contains(overview, "- Since ") || strings.Contains(overview, "301 commits") {
		t.Errorf("overview facts:\n%s", overview)
	}

	progress := regexp.MustCompile(`Bootstrap: (\d+) of (\d+) architecture docs deepened`)
	if m := progress.FindStringSubmatch(mustOK("ctx_brief", nil)); m == nil || m[1] != "0" {
		t.Errorf("the brief should say no doc is deepened yet: %v", m)
	}

	// ctx_init → ctx_init_submit: purpose first, then modules and history.
	tasks := mustOK("ctx_init", map[string]any{"count": 5})
	if !strings.Contains(tasks, "## Task 1: purpose") {
		t.Fatalf("the purpose task comes first:\n%s", tasks)
	}
	decID := regexp.MustCompile(`Task \d+: (dec:\S+)`).FindStringSubmatch(tasks)
	if decID == nil {
		t.Fatalf("no decision task among:\n%s", tasks)
	}
	purpose := map[string]any{"task_id": "purpose", "summary": "An online tea shop", "overview": "The shop sells tea.\n\n- apps/api serves prices.\n- libs/pricing computes them.\n- worker sends emails."}
	mustOK("ctx_init_submit", purpose)
	first := read(t, repo, ".ai/architecture/overview.md")
	mustOK("ctx_init_submit", purpose)
	if read(t, repo, ".ai/architecture/overview.md") != first {
		t.Error("resubmitting the same purpose changed the overview")
	}
	if !strings.Contains(first, "The shop sells tea.") || !strings.Contains(first, "<!-- kontext:facts:start") {
		t.Errorf("overview after submit:\n%s", first)
	}
	mustOK("ctx_init_submit", map[string]any{"task_id": "mod:apps/api", "summary": "The shop's HTTP API", "overview": "Express app serving prices from libs/pricing."})
	if doc := read(t, repo, ".ai/architecture/modules/apps-api.md"); !strings.Contains(doc, "deepened_fingerprint:") || !strings.Contains(doc, "Express app serving prices") {
		t.Errorf("module doc after submit:\n%s", doc)
	}
	if m := progress.FindStringSubmatch(mustOK("ctx_brief", nil)); m == nil || m[1] != "2" {
		t.Errorf("the brief should count the purpose and one module as deepened: %v", m)
	}
	decision := func(title string) map[string]any {
		return map[string]any{"task_id": decID[1], "decisions": []map[string]any{{"title": title, "decision": "Dates are handled with date-fns.", "paths": "apps/api/**", "commits": "HEAD"}}}
	}
	mustOK("ctx_init_submit", decision("Use date-fns, not moment"))
	mustOK("ctx_init_submit", decision("Handle dates with date-fns"))
	// The repository's ADR directory is the decisions home: the entry is a
	// classic ADR numbered after 0001, and resubmitting rewrites it in
	// place (its file, id and number stay; the title is the new one).
	const decADR = "docs/adr/0002-use-date-fns-not-moment.md"
	decisions, _ := filepath.Glob(filepath.Join(repo, "docs", "adr", "*.md"))
	if len(decisions) != 2 || !strings.HasSuffix(filepath.ToSlash(decisions[1]), decADR) {
		t.Errorf("resubmitting a dec: task must replace its own entry: %v", decisions)
	} else if adr := read(t, repo, decADR); !strings.Contains(adr, "<!-- kontext:init_task "+decID[1]+" -->") || !strings.Contains(adr, "Handle dates with date-fns") || strings.Contains(adr, "\n---") {
		t.Errorf("the ADR keeps its task in the ADR's own style:\n%s", adr)
	}
	if next := mustOK("ctx_init", map[string]any{"count": 5}); strings.Contains(next, "Task 1: purpose") || strings.Contains(next, decID[1]+" ") {
		t.Errorf("done tasks come back:\n%s", next)
	}

	// Commit the knowledge through the hooks: the store and the ADR the
	// dec: task wrote (ctx_prepare_commit would stage it with the next
	// change otherwise).
	gitIn(t, repo, env, "add", ".ai", "docs/adr")
	gitIn(t, repo, env, "commit", "-q", "-m", "Set up kontext")

	// A promoted decision gets exactly one trailer, also through an amend.
	captured := mustOK("ctx_capture", map[string]any{"kind": "decision", "title": "Prices are computed in cents", "body": "## Decision\nAll prices are integers in cents.", "paths": "libs/pricing/**"})
	id := regexp.MustCompile(`inbox:(\S+)`).FindStringSubmatch(captured)[1]
	mustOK("ctx_prepare_commit", map[string]any{"promote": []string{id}})
	gitIn(t, repo, env, "commit", "-q", "-m", "Compute prices in cents")
	trailers := func() int {
		return strings.Count(gitIn(t, repo, env, "log", "-1", "--format=%B"), "Decision: ")
	}
	if n := trailers(); n != 1 {
		t.Errorf("%d Decision trailers after the commit, want 1:\n%s", n, gitIn(t, repo, env, "log", "-1", "--format=%B"))
	}
	gitIn(t, repo, env, "commit", "-q", "--amend", "--no-edit")
	if n := trailers(); n != 1 {
		t.Errorf("%d Decision trailers after an amend, want 1", n)
	}
	gitIn(t, repo, env, "commit", "-q", "--amend", "-m", "Compute all prices in cents")
	if n := trailers(); n != 1 {
		t.Errorf("%d Decision trailers after an amend with a new message, want 1", n)
	}

	// A deepened module whose shape changes (a new file with an export)
	// comes back as a refresh: task; resubmitting it settles it again.
	os.WriteFile(filepath.Join(repo, "apps", "api", "src", "orders.ts"), []byte("export function orders() { return []; }\n"), 0o644)
	gitIn(t, repo, env, "add", "apps/api/src/orders.ts")
	gitIn(t, repo, env, "commit", "-q", "-m", "List orders")
	if next := mustOK("ctx_init", map[string]any{"count": 5}); !strings.Contains(next, "refresh:apps/api") {
		t.Errorf("a changed module should yield a refresh: task:\n%s", next)
	}
	// List arguments take arrays as well as comma-separated strings.
	mustOK("ctx_init_submit", map[string]any{"task_id": "refresh:apps/api", "summary": "The shop's HTTP API", "overview": "Express app serving prices and orders."})
	if next := mustOK("ctx_init", map[string]any{"count": 5}); strings.Contains(next, "refresh:apps/api") {
		t.Errorf("a submitted refresh comes back:\n%s", next)
	}
	arrays := map[string]any{"task_id": decID[1], "decisions": []map[string]any{{"title": "Handle dates with date-fns", "decision": "Dates are handled with date-fns.", "paths": []string{"apps/api/**", "libs/pricing/**"}, "commits": []string{"HEAD"}}}}
	mustOK("ctx_init_submit", arrays)
	if adrs, _ := filepath.Glob(filepath.Join(repo, "docs", "adr", "*.md")); len(adrs) != 3 {
		t.Errorf("a resubmission must not add an ADR: %v", adrs)
	}
	if adr := read(t, repo, decADR); !strings.Contains(adr, "libs/pricing/**") {
		t.Errorf("paths given as an array:\n%s", adr)
	}

	// check, and the pre-commit hook, block a secret in staged knowledge.
	secret := "---\nid: leaked\nkind: learning\ntitle: The staging key\n---\n\nThe key is " + "AKIA" + "QYLPMN5HHHFPZAM2" + ".\n"
	os.WriteFile(filepath.Join(repo, ".ai", "learnings", "leaked.md"), []byte(secret), 0o644)
	gitIn(t, repo, env, "add", ".ai/learnings/leaked.md")
	if out, _, err := kontextIn(t, repo, env, "check", "--staged"); err == nil || !strings.Contains(out+"", "error") {
		t.Errorf("kontext check --staged must fail on a secret: %v\n%s", err, out)
	}
	cmd := exec.Command("git", "commit", "-q", "-m", "Add a learning")
	cmd.Dir = repo
	cmd.Env = append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err == nil {
		t.Errorf("the pre-commit hook let a secret through:\n%s", out)
	}
	gitIn(t, repo, env, "reset", "-q", "HEAD", ".ai/learnings/leaked.md")
	os.Remove(filepath.Join(repo, ".ai", "learnings", "leaked.md"))

	// Another branch without .ai/: never bootstrapped there.
	firstCommit := strings.TrimSpace(gitIn(t, repo, env, "rev-list", "--max-parents=0", "HEAD"))
	wt := filepath.Join(t.TempDir(), "feature")
	gitIn(t, repo, env, "worktree", "add", "-q", "-b", "feature", wt, firstCommit)
	_, callWT := connect(wt)
	text, isErr := callWT("ctx_init", map[string]any{"bootstrap": true})
	if isErr || !strings.Contains(text, "branch main") {
		t.Errorf("ctx_init on a branch without the store must name main and refuse: %v\n%s", isErr, text)
	}
	if _, err := os.Stat(filepath.Join(wt, ".ai")); err == nil {
		t.Error("ctx_init bootstrapped a second store on another branch")
	}
}

func read(t *testing.T, dir, rel string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func gitIn(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}
