package tools

import (
	"context"
	"slices"
	"testing"

	"github.com/kontext-dev/kontext/internal/fsroot"
	"github.com/kontext-dev/kontext/internal/mcp"
	"github.com/kontext-dev/kontext/internal/repo"
)

// TestCompleteModules completes the repo prompts' target on a real
// repository, through the completer the spec registers for it: module
// paths by prefix, the modules most others depend on first.
func TestCompleteModules(t *testing.T) {
	dir := t.TempDir()
	f := newGitFixture(t, dir)
	f.write(map[string]string{
		"go.mod":                    "module example.com/shop\n\ngo 1.22\n",
		"cmd/shop/main.go":          "package main\n\nimport (\n\t\"example.com/shop/internal/server\"\n\t\"example.com/shop/internal/store\"\n)\n\nfunc main() { server.Run(store.Open()) }\n",
		"internal/server/server.go": "package server\n\nimport \"example.com/shop/internal/store\"\n\nfunc Run(s *store.Store) {}\n",
		"internal/store/store.go":   "package store\n\ntype Store struct{}\n\nfunc Open() *Store { return &Store{} }\n",
		"internal/strutil/trim.go":  "package strutil\n\nfunc Trim(s string) string { return s }\n",
	})
	f.commit("A shop", "Ada Lovelace", 1)
	root, err := fsroot.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	engine := repo.NewEngine(repo.Options{})
	t.Cleanup(func() { engine.Close() })
	h := New(root, engine)

	var complete mcp.Completer
	for _, p := range h.Toolset().Prompts {
		for _, a := range p.Arguments {
			if a.Name == "target" {
				if a.Complete == nil {
					t.Fatalf("%s's target has no completer; the spec names modules", p.Name)
				}
				complete = a.Complete
			}
		}
	}
	if complete == nil {
		t.Fatal("no prompt takes a target")
	}
	for _, tc := range []struct {
		value string
		want  []string
	}{
		{"internal/st", []string{"internal/store", "internal/strutil"}},
		{"internal/s", []string{"internal/store", "internal/server", "internal/strutil"}},
		{"./INTERNAL/SE", []string{"internal/server"}},
		{"cmd", []string{"cmd/shop"}},
		// A module's name (a Go import path) finds it too.
		{"example.com/shop/internal/st", []string{"internal/store", "internal/strutil"}},
		{"vendor", nil},
	} {
		got, err := complete(context.Background(), mcp.CompletionRequest{Argument: "target", Value: tc.value})
		if err != nil {
			t.Fatalf("%q: %v", tc.value, err)
		}
		if !slices.Equal(got.Values, tc.want) {
			t.Errorf("%q completes to %q, want %q", tc.value, got.Values, tc.want)
		}
	}
}
