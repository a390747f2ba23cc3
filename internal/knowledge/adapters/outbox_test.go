package adapters

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// storeAdapter is a command adapter whose store op appends the entry's id
// to log, and fails (exit 1) while the file gate is missing.
func storeAdapter(t *testing.T, name, gate, log string, extra map[string]any) *Definition {
	t.Helper()
	table := map[string]any{
		"driver": "command",
		"ops": map[string]any{"store": map[string]any{
			"command": []any{"sh", "-c", `test -f "$0" || exit 1; echo "$1" >> "$2"; echo stored`, gate, "{{id}}", log},
			"format":  "text",
		}},
		"on": []any{map[string]any{"event": "capture", "op": "store"}, map[string]any{"event": "sync", "op": "store"}},
	}
	for k, v := range extra {
		table[k] = v
	}
	return def(t, name, table)
}

// A capture delivery that fails waits in the outbox, through the adapter's
// cool-down, and goes through once the adapter works; a later success for
// the same entry clears what waited; sync deliveries are never kept.
func TestOutboxKeepsAndRetriesFailedDeliveries(t *testing.T) {
	dir := t.TempDir()
	gate, log := filepath.Join(dir, "gate"), filepath.Join(dir, "log")
	m, clk := newManager(t, Options{StateDir: filepath.Join(dir, "state")}, storeAdapter(t, "notes", gate, log, nil))
	ctx := context.Background()
	capture := func(id string) []Delivery {
		return m.Deliver(ctx, Event{Name: EventCapture, Fields: map[string]any{"id": id, "kind": "learning"}})
	}
	if out := capture("a"); len(out) != 1 || out[0].Err == nil {
		t.Fatalf("the first delivery: %+v", out)
	}
	if got := m.Kept(); got["notes"] != 1 {
		t.Fatalf("kept %v, want the failed delivery", got)
	}
	if out := m.Deliver(ctx, Event{Name: EventSync, Fields: map[string]any{"id": "s", "kind": "learning"}}); len(out) != 1 || out[0].Err == nil {
		t.Fatalf("the sync delivery: %+v", out)
	}
	if got := m.Kept(); got["notes"] != 1 {
		t.Fatalf("kept %v: a sync delivery was kept", got)
	}

	// Cooling down: the retry waits, and counts no attempt.
	if err := os.WriteFile(gate, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if done, waiting := m.RetryKept(ctx); done != 0 || waiting != 1 {
		t.Fatalf("retry while cooling down: %d delivered, %d waiting", done, waiting)
	}
	clk.Add(DefaultCooldown + 1)
	if done, waiting := m.RetryKept(ctx); done != 1 || waiting != 0 {
		t.Fatalf("retry: %d delivered, %d waiting", done, waiting)
	}
	if b, _ := os.ReadFile(log); string(b) != "a\n" {
		t.Fatalf("log %q", b)
	}
	if got := m.Kept(); len(got) != 0 {
		t.Fatalf("kept %v after the retry", got)
	}

	// A failure, then a success for the same entry: nothing waits.
	_ = os.Remove(gate)
	capture("b")
	clk.Add(DefaultCooldown + 1)
	_ = os.WriteFile(gate, nil, 0o600)
	if out := capture("b"); out[0].Err != nil {
		t.Fatal(out[0].Err)
	}
	if got := m.Kept(); len(got) != 0 {
		t.Fatalf("kept %v after a later success", got)
	}
}

// A delivery that keeps failing is dropped after outboxAttempts tries; one
// whose adapter is gone from the configuration is dropped at once; one for
// an adapter that waits for trust is never kept.
func TestOutboxDropsWhatCannotGoThrough(t *testing.T) {
	dir := t.TempDir()
	gate, log := filepath.Join(dir, "gate"), filepath.Join(dir, "log")
	state := filepath.Join(dir, "state")
	d := storeAdapter(t, "notes", gate, log, nil)
	m, clk := newManager(t, Options{StateDir: state}, d)
	ctx := context.Background()
	m.Deliver(ctx, Event{Name: EventCapture, Fields: map[string]any{"id": "a"}})
	for i := 1; i < outboxAttempts; i++ {
		clk.Add(DefaultCooldown + 1)
		m.RetryKept(ctx)
	}
	if got := m.Kept(); len(got) != 0 {
		t.Fatalf("kept %v after %d attempts", got, outboxAttempts)
	}

	m.Deliver(ctx, Event{Name: EventCapture, Fields: map[string]any{"id": "b"}})
	m.Configure(nil)
	if done, waiting := m.RetryKept(ctx); done != 0 || waiting != 0 || len(m.Kept()) != 0 {
		t.Fatalf("an unconfigured adapter's delivery: %d delivered, %d waiting, kept %v", done, waiting, m.Kept())
	}

	team := storeAdapter(t, "team", gate, log, nil)
	team.Team = true
	m2, _ := newManager(t, Options{StateDir: filepath.Join(dir, "state2")}, team)
	out := m2.Deliver(ctx, Event{Name: EventCapture, Fields: map[string]any{"id": "c"}})
	if len(out) != 1 || out[0].Err == nil || !strings.Contains(out[0].Err.Error(), "trust") {
		t.Fatalf("the untrusted adapter's delivery: %+v", out)
	}
	if got := m2.Kept(); len(got) != 0 {
		t.Fatalf("kept %v for an untrusted adapter", got)
	}
}
