package tools

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	spec "github.com/kontext-dev/kontext/gen/toolsets/knowledge"
	"github.com/kontext-dev/kontext/internal/gittest"
	"github.com/kontext-dev/kontext/internal/knowledge"
	"github.com/kontext-dev/kontext/internal/knowledge/store"
	"github.com/kontext-dev/kontext/internal/mcp"
	"github.com/kontext-dev/kontext/internal/shell"
)

func submitText(t *testing.T, h *Handlers, in *spec.CtxInitSubmitInput) string {
	t.Helper()
	res, err := h.CtxInitSubmit(context.Background(), in)
	if err != nil || res.IsError {
		t.Fatalf("ctx_init_submit %s: %v %v", in.TaskID, err, res)
	}
	return resultText(t, res)
}

// loadStore reads the store of the repository h serves.
func loadStore(t *testing.T, h *Handlers) []*store.Entry {
	t.Helper()
	o, err := h.svc.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	entries, err := o.Store.Load()
	if err != nil {
		t.Fatal(err)
	}
	return entries
}

func byTask(entries []*store.Entry, task string) []*store.Entry {
	var out []*store.Entry
	for _, e := range entries {
		if e.Get("init_task") == task {
			out = append(out, e)
		}
	}
	return out
}

// The learnings of a purpose and a mod: task are written (they were
// silently dropped): a module's learning without paths is about the
// module. A resubmission says what it rewrote, and what it left as it
// was — never "Wrote .".
func TestInitSubmitWritesEveryLearning(t *testing.T) {
	_, h := newShop(t)
	overview := "The shop sells tea.\n\nIt has a store, orders and billing."
	text := submitText(t, h, &spec.CtxInitSubmitInput{TaskID: "purpose", Overview: &overview,
		Learnings: []spec.CtxInitSubmitInputLearningsElem{{Title: "Prices are in cents", Body: "Every amount is an integer number of cents."}}})
	if !strings.Contains(text, "Wrote .ai/learnings/prices-are-in-cents.md") || !strings.Contains(text, "Rewrote in place (same files and ids): .ai/architecture/overview.md") {
		t.Errorf("purpose:\n%s", text)
	}
	summary := "Billing turns orders into invoices."
	mod := &spec.CtxInitSubmitInput{TaskID: "mod:internal/billing", Summary: &summary, Overview: &overview,
		Learnings: []spec.CtxInitSubmitInputLearningsElem{{Title: "Invoices are immutable", Body: "Correct one with a credit note, never an edit."}}}
	text = submitText(t, h, mod)
	if !strings.Contains(text, "Wrote .ai/learnings/invoices-are-immutable.md") {
		t.Errorf("mod:\n%s", text)
	}
	entries := loadStore(t, h)
	if got := byTask(entries, "purpose"); len(got) != 1 || got[0].Kind != "learning" || got[0].Title != "Prices are in cents" {
		t.Errorf("the purpose task's learning: %v", got)
	}
	got := byTask(entries, "mod:internal/billing")
	if len(got) != 1 || got[0].Title != "Invoices are immutable" || strings.Join(got[0].Paths, ",") != "internal/billing/**" {
		t.Fatalf("the module task's learning: %+v", got)
	}

	// The same submission again changes nothing, and says so.
	text = submitText(t, h, mod)
	if strings.Contains(text, "Wrote") || !strings.Contains(text, "Unchanged (they already hold this submission): .ai/architecture/modules/internal-billing.md, .ai/learnings/invoices-are-immutable.md") || !strings.Contains(text, "Nothing changed.") {
		t.Errorf("the same submission again:\n%s", text)
	}
	// Another learning in its place: rewritten in place, same file.
	mod.Learnings[0].Body = "Correct one with a credit note; an edit breaks the audit trail."
	text = submitText(t, h, mod)
	if !strings.Contains(text, "Rewrote in place (same files and ids): .ai/learnings/invoices-are-immutable.md") {
		t.Errorf("a changed learning:\n%s", text)
	}
	// Without its learning, the task's earlier one goes.
	mod.Learnings = nil
	text = submitText(t, h, mod)
	if !strings.Contains(text, "Removed this task's earlier entries that the submission no longer has: .ai/learnings/invoices-are-immutable.md") {
		t.Errorf("the learning left out:\n%s", text)
	}
	if got := byTask(loadStore(t, h), "mod:internal/billing"); len(got) != 0 {
		t.Errorf("the removed learning is still there: %v", got)
	}
}

// What a submission carries is written or refused, never dropped; a task
// ctx_init does not know is an error, skipped or not.
func TestInitSubmitRefusesWhatItCannotWrite(t *testing.T) {
	dir, h := newShop(t)
	ctx := context.Background()
	text, yes := "some text", true
	reason := "nothing to say"
	for _, c := range []struct {
		in   spec.CtxInitSubmitInput
		want string
	}{
		{spec.CtxInitSubmitInput{TaskID: "dec:orders", Overview: &text, Learnings: []spec.CtxInitSubmitInputLearningsElem{{Title: "t", Body: "b"}}}, "summary and overview belong to the purpose and mod: tasks"},
		{spec.CtxInitSubmitInput{TaskID: "mod:internal/billing", Skip: &yes, Summary: &text}, "skip: true would drop what this submission carries"},
		{spec.CtxInitSubmitInput{TaskID: "mod:internal/billing", Summary: &text, Reason: &reason}, "reason says why a task is skipped"},
		{spec.CtxInitSubmitInput{TaskID: "mod:internal/nowhere", Skip: &yes, Reason: &reason}, `no task mod:internal/nowhere: no module "internal/nowhere"`},
		{spec.CtxInitSubmitInput{TaskID: "refresh:internal/nowhere", Skip: &yes}, `no task refresh:internal/nowhere`},
		{spec.CtxInitSubmitInput{TaskID: "dec:no-such-cluster", Skip: &yes}, "no task dec:no-such-cluster"},
	} {
		res, err := h.CtxInitSubmit(ctx, &c.in)
		if err == nil {
			t.Errorf("%s accepted: %s", c.in.TaskID, resultText(t, res))
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.in.TaskID, err, c.want)
		}
	}
	if data := readText(t, dir, filepath.Join(".ai", "architecture", "modules", "internal-billing.md")); strings.Contains(data, "some text") {
		t.Errorf("a refused submission wrote:\n%s", data)
	}
	// A known task is skipped.
	if got := submitText(t, h, &spec.CtxInitSubmitInput{TaskID: "mod:internal/tools", Skip: &yes, Reason: &reason}); !strings.Contains(got, "Skipped mod:internal/tools.") {
		t.Errorf("skip: %s", got)
	}
}

// openStore opens a repository with a store: one committed decision, the
// team's configuration, and a source file.
func openStore(t *testing.T) (string, *Handlers) {
	t.Helper()
	dir := t.TempDir()
	gittest.Git(t, dir, "init", "-q", "-b", "main")
	gittest.WriteFile(t, dir, "src/api.go", "package src\n")
	gittest.WriteFile(t, dir, ".ai/kontext.toml", "[brief]\nbudget_tokens = 1400\n")
	gittest.WriteFile(t, dir, ".ai/decisions/2026-01-05-use-floats.md", "---\nkind: decision\ntitle: Use floats for money\nstatus: accepted\ndate: 2026-01-05\npaths: [src/**]\n---\n\nFloats.\n")
	gittest.WriteFile(t, dir, ".ai/decisions/2026-01-06-use-floats-in-reports.md", "---\nkind: decision\ntitle: Use floats in reports\nstatus: accepted\ndate: 2026-01-06\n---\n\nFloats there too.\n")
	gittest.WriteFile(t, dir, ".ai/learnings/retries.md", "---\nkind: learning\ntitle: Retries need jitter\n---\n\nOtherwise they arrive together.\n")
	gittest.Git(t, dir, "add", ".")
	gittest.Git(t, dir, "commit", "-q", "-m", "shop with a store")
	svc := knowledge.NewService(dir)
	svc.Getenv = func(k string) string {
		if k == "KONTEXT_CONFIG_DIR" {
			return filepath.Join(dir, ".no-user-config")
		}
		return ""
	}
	t.Cleanup(func() { svc.Close() })
	return dir, New(svc)
}

func gitOutput(t *testing.T, dir string, args ...string) string {
	t.Helper()
	return gittest.Git(t, dir, args...)
}

// ok returns the text of a tool call that must succeed:
// ok(t)(h.CtxInbox(ctx, in)).
func ok(t *testing.T) func(*mcp.ToolResult, error) string {
	return func(res *mcp.ToolResult, err error) string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		if res.IsError {
			t.Fatalf("tool error: %s", resultText(t, res))
		}
		return resultText(t, res)
	}
}

// ctx_prepare_commit without ids stages what is already written into the
// working tree — an entry captured with promote, one promoted from the
// inbox, a hand edit — and the index README; never the code, nor an edit
// of the team's configuration.
func TestPrepareCommitStagesPendingKnowledge(t *testing.T) {
	dir, h := openStore(t)
	ctx := context.Background()
	yes := true
	direct := ok(t)(h.CtxCapture(ctx, &spec.CtxCaptureInput{Kind: "decision", Title: "Use integer cents", Body: "Money is integer cents.", Promote: yes}))
	if !strings.Contains(direct, "ctx_prepare_commit stages it with the change") {
		t.Fatalf("capture with promote:\n%s", direct)
	}
	ok(t)(h.CtxCapture(ctx, &spec.CtxCaptureInput{Kind: "learning", Title: "Reports round late", Body: "Round at the end."}))
	list := ok(t)(h.CtxInbox(ctx, &spec.CtxInboxInput{}))
	id := regexp.MustCompile(`inbox:(\S+)`).FindStringSubmatch(list)[1]
	ok(t)(h.CtxInbox(ctx, &spec.CtxInboxInput{Action: spec.CtxInboxInputActionPromote, Ids: []string{id}}))
	gittest.WriteFile(t, dir, ".ai/learnings/retries.md", "---\nkind: learning\ntitle: Retries need jitter\n---\n\nOtherwise they arrive together, and the server falls over.\n")
	gittest.WriteFile(t, dir, ".ai/kontext.toml", "[brief]\nbudget_tokens = 2000\n")
	gittest.WriteFile(t, dir, "src/api.go", "package src\n\nvar cents = 100\n")

	text := ok(t)(h.CtxPrepareCommit(ctx, &spec.CtxPrepareCommitInput{}))
	staged := strings.Fields(gitOutput(t, dir, "diff", "--cached", "--name-only"))
	want := []string{".ai/README.md", ".ai/decisions/" + time.Now().Format("2006-01-02") + "-use-integer-cents.md", ".ai/learnings/reports-round-late.md", ".ai/learnings/retries.md"}
	if strings.Join(staged, " ") != strings.Join(want, " ") {
		t.Errorf("staged %q, want %q\n%s", staged, want, text)
	}
	if !strings.Contains(text, "Staged ") {
		t.Errorf("the reply does not say what it staged:\n%s", text)
	}
	// Nothing left to stage: a second call stages nothing more.
	text = ok(t)(h.CtxPrepareCommit(ctx, &spec.CtxPrepareCommitInput{}))
	if strings.Contains(text, "Staged ") {
		t.Errorf("a second call staged again:\n%s", text)
	}
	// A deleted entry is staged as deleted.
	gittest.Git(t, dir, "commit", "-q", "-m", "knowledge")
	if err := os.Remove(filepath.Join(dir, ".ai", "learnings", "retries.md")); err != nil {
		t.Fatal(err)
	}
	ok(t)(h.CtxPrepareCommit(ctx, &spec.CtxPrepareCommitInput{}))
	if got := gitOutput(t, dir, "diff", "--cached", "--name-status"); !strings.Contains(got, "D\t.ai/learnings/retries.md") {
		t.Errorf("the deletion is not staged: %q", got)
	}
}

// supersedes is stored as full ids: a unique prefix is resolved at
// capture, an ambiguous or unknown one is refused naming the candidates.
func TestCaptureResolvesSupersedes(t *testing.T) {
	dir, h := openStore(t)
	ctx := context.Background()
	text := ok(t)(h.CtxCapture(ctx, &spec.CtxCaptureInput{Kind: "decision", Title: "Use integer cents", Body: "Cents.", Supersedes: []string{"2026-01-05"}}))
	id := regexp.MustCompile(`inbox:(\S+)`).FindStringSubmatch(text)[1]
	o, _ := h.svc.Open(ctx)
	cand, err := o.State.Show(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(cand.Supersedes, ",") != "2026-01-05-use-floats" {
		t.Errorf("supersedes stored as %q", cand.Supersedes)
	}
	for key, want := range map[string]string{
		"2026-01":           `"2026-01" matches 2 entries: 2026-01-05-use-floats, 2026-01-06-use-floats-in-reports`,
		"floats-everywhere": `no entry "floats-everywhere" (give an id, a unique prefix of one, or an ADR number); the nearest: 2026-01-06-use-floats-in-reports, 2026-01-05-use-floats`,
	} {
		_, err := h.CtxCapture(ctx, &spec.CtxCaptureInput{Kind: "decision", Title: "Another", Body: "x", Supersedes: []string{key}})
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "supersedes") {
			t.Errorf("supersedes %q: %v, want %q", key, err, want)
		}
	}
	// Promoting it marks the one it named, by its full id.
	ok(t)(h.CtxPrepareCommit(ctx, &spec.CtxPrepareCommitInput{Promote: []string{id}}))
	old := readText(t, dir, ".ai/decisions/2026-01-05-use-floats.md")
	if !strings.Contains(old, "status: superseded") || strings.Contains(readText(t, dir, ".ai/decisions/2026-01-06-use-floats-in-reports.md"), "superseded") {
		t.Errorf("superseded the wrong entry:\n%s", old)
	}
}

// From a shell, a capture is a person's (origin: human), and the replies
// of capture, inbox and prepare-commit name commands, never tools.
func TestShellCapturesAreHuman(t *testing.T) {
	dir, h := openStore(t)
	sh := shell.With(context.Background())
	text := ok(t)(h.CtxCapture(sh, &spec.CtxCaptureInput{Kind: "learning", Title: "Reports round late", Body: "Round at the end.", Paths: []string{"src/api.go"}}))
	id := regexp.MustCompile(`inbox:(\S+)`).FindStringSubmatch(text)[1]
	if !strings.Contains(text, "kontext prepare-commit --promote "+id) {
		t.Errorf("capture from a shell:\n%s", text)
	}
	agent := ok(t)(h.CtxCapture(context.Background(), &spec.CtxCaptureInput{Kind: "learning", Title: "Agents round early", Body: "x"}))
	agentID := regexp.MustCompile(`inbox:(\S+)`).FindStringSubmatch(agent)[1]
	if !strings.Contains(agent, `ctx_prepare_commit promote: ["`+agentID+`"]`) {
		t.Errorf("capture from an agent:\n%s", agent)
	}
	o, _ := h.svc.Open(sh)
	for cid, want := range map[string]string{id: "human", agentID: "agent"} {
		c, err := o.State.Show(sh, cid)
		if err != nil || c.Origin != want {
			t.Errorf("%s: origin %q (%v), want %s", cid, c.Origin, err, want)
		}
	}
	gittest.WriteFile(t, dir, "src/api.go", "package src\n\nvar x = 1\n")
	replies := []string{
		ok(t)(h.CtxInbox(sh, &spec.CtxInboxInput{})),
		ok(t)(h.CtxPrepareCommit(sh, &spec.CtxPrepareCommitInput{})),
		ok(t)(h.CtxInbox(sh, &spec.CtxInboxInput{Action: spec.CtxInboxInputActionPromote, Ids: []string{id}})),
	}
	for _, r := range replies {
		if strings.Contains(r, "ctx_") {
			t.Errorf("a tool name in a shell's reply:\n%s", r)
		}
	}
	if !strings.Contains(replies[1], "kontext prepare-commit --promote <id>") {
		t.Errorf("prepare-commit from a shell:\n%s", replies[1])
	}
	if _, err := h.CtxInbox(sh, &spec.CtxInboxInput{Action: spec.CtxInboxInputActionShow, Ids: []string{"no-such"}}); err == nil || strings.Contains(err.Error(), "ctx_") || !strings.Contains(err.Error(), "kontext inbox lists them") {
		t.Errorf("an unknown candidate from a shell: %v", err)
	}
}
