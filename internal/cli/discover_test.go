package cli

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"testing"

	"github.com/kontext-dev/kontext/internal/fsroot"
	"github.com/kontext-dev/kontext/internal/mcp"
)

// Serving another root releases what the previous root's toolsets hold.
func TestDiscoveryClosesThePreviousRootsToolsets(t *testing.T) {
	closed := map[string]int{}
	factory := ToolsetFactory{
		Name: "t",
		Open: func(root *fsroot.Root) (*mcp.Toolset, func(*mcp.Server), error) {
			dir := root.Dir()
			return &mcp.Toolset{Name: "t", Tools: []*mcp.Tool{{Name: "noop", InputSchema: json.RawMessage(`{"type":"object"}`),
				Call: func(context.Context, json.RawMessage) (*mcp.ToolResult, error) { return mcp.TextResult("ok"), nil }}},
				Close: func() error { closed[dir]++; return nil }}, nil, nil
		},
	}
	described, _, _ := factory.Open(mustRoot(t, t.TempDir()))
	clear(closed)
	srv, err := mcp.NewServer(mcp.Implementation{Name: "k", Version: "1"}, mcp.Options{}, described)
	if err != nil {
		t.Fatal(err)
	}
	d := &discoverer{p: Program{Toolsets: []ToolsetFactory{factory}}, log: slog.New(slog.NewTextHandler(io.Discard, nil)), srv: srv}
	first, second := t.TempDir(), t.TempDir()
	for _, dir := range []string{first, second, first} {
		if err := d.serve(dir); err != nil {
			t.Fatal(err)
		}
	}
	if closed[first] != 1 || closed[second] != 1 {
		t.Errorf("closed %v: want each root's toolsets closed once, when the next root was served (the one served now stays open)", closed)
	}
}

func mustRoot(t *testing.T, dir string) *fsroot.Root {
	t.Helper()
	r, err := fsroot.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
