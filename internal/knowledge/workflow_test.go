package knowledge

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	spec "github.com/kontext-dev/kontext/gen/toolsets/knowledge"
	"github.com/kontext-dev/kontext/internal/knowledge/store"
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
	o, err := h.svc.open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	entries, err := o.store.Load()
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
