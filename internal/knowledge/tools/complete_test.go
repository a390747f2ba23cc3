package tools

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	spec "github.com/kontext-dev/kontext/gen/toolsets/knowledge"
	"github.com/kontext-dev/kontext/internal/gittest"
	"github.com/kontext-dev/kontext/internal/knowledge"
	"github.com/kontext-dev/kontext/internal/mcp"
)

// TestCompleteEntries completes kontext://entry/{id} on a real store,
// through the completer the spec registers for the template's id: by
// prefix, the entry typed in full first, then active entries newest first,
// superseded ones last.
func TestCompleteEntries(t *testing.T) {
	dir := t.TempDir()
	gittest.Git(t, dir, "init", "-q", "-b", "main")
	gittest.WriteFile(t, dir, "src/api.go", "package src\n")
	gittest.WriteFile(t, dir, ".ai/kontext.toml", "[brief]\nbudget_tokens = 1400\n")
	decision := func(id, status, date string) {
		gittest.WriteFile(t, dir, ".ai/decisions/"+id+".md", "---\nkind: decision\ntitle: "+id+"\nstatus: "+status+"\ndate: "+date+"\n---\n\nBody.\n")
	}
	decision("2026-01-05-use-floats", "superseded", "2026-01-05")
	decision("2026-01-06-use-decimals", "accepted", "2026-01-06")
	decision("2026-01-04-use-cents", "accepted", "2026-01-04")
	decision("2026-01-05-use-floats-in-reports", "accepted", "2026-01-09")
	gittest.WriteFile(t, dir, ".ai/learnings/retries.md", "---\nkind: learning\ntitle: Retries need jitter\n---\n\nOtherwise they arrive together.\n")
	gittest.Git(t, dir, "add", ".")
	gittest.Git(t, dir, "commit", "-q", "-m", "a store")
	svc := knowledge.NewService(dir)
	svc.Getenv = func(k string) string {
		if k == "KONTEXT_CONFIG_DIR" {
			return filepath.Join(dir, ".no-user-config")
		}
		return ""
	}
	t.Cleanup(func() { svc.Close() })

	templates := New(svc).Toolset().Templates
	if len(templates) != 1 || templates[0].Complete["id"] == nil {
		t.Fatalf("the spec's entries completer is not registered for kontext://entry/{id}: %+v", templates)
	}
	complete := templates[0].Complete["id"]
	for _, tc := range []struct {
		value string
		want  []string
	}{
		{"2026", []string{"2026-01-05-use-floats-in-reports", "2026-01-06-use-decimals", "2026-01-04-use-cents", "2026-01-05-use-floats"}},
		// Typed in full, the superseded entry leads its newer namesake.
		{"2026-01-05-use-floats", []string{"2026-01-05-use-floats", "2026-01-05-use-floats-in-reports"}},
		{"KX:2026-01-0", []string{"2026-01-05-use-floats-in-reports", "2026-01-06-use-decimals", "2026-01-04-use-cents", "2026-01-05-use-floats"}},
		{"ret", []string{"retries"}},
		{"nothing-like-it", nil},
	} {
		got, err := complete(context.Background(), mcp.CompletionRequest{Argument: "id", Value: tc.value})
		if err != nil {
			t.Fatalf("%q: %v", tc.value, err)
		}
		if !slices.Equal(got.Values, tc.want) {
			t.Errorf("%q completes to %q, want %q", tc.value, got.Values, tc.want)
		}
	}
}

// TestCompleteTaskCounts completes kontext-init's tasks, through the
// completer its spec names, with exactly the counts the prompt accepts.
func TestCompleteTaskCounts(t *testing.T) {
	h := New(knowledge.NewService(t.TempDir()))
	var complete mcp.Completer
	for _, p := range h.Toolset().Prompts {
		if p.Name == "kontext-init" && len(p.Arguments) == 1 && p.Arguments[0].Name == "tasks" {
			complete = p.Arguments[0].Complete
		}
	}
	if complete == nil {
		t.Fatal("kontext-init's tasks has no completer; the spec names task_counts")
	}
	ctx := context.Background()
	for value, want := range map[string][]string{"": {"1", "2", "3", "4", "5"}, "3": {"3"}, "6": {}, "x": {}} {
		got, err := complete(ctx, mcp.CompletionRequest{Argument: "tasks", Value: value})
		if err != nil || !slices.Equal(got.Values, want) {
			t.Errorf("%q completes to %q (%v), want %q", value, got.Values, err, want)
		}
		for _, v := range got.Values {
			if _, err := h.PromptKontextInit(ctx, &spec.KontextInitArgs{Tasks: v}); err != nil {
				t.Errorf("kontext-init refuses the suggested %q: %v", v, err)
			}
		}
	}
	if _, err := h.PromptKontextInit(ctx, &spec.KontextInitArgs{Tasks: "6"}); err == nil {
		t.Error("kontext-init accepts 6 tasks, which the completer does not suggest")
	}
}
