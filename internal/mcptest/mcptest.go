// Package mcptest implements the test-only toolset specified under
// testdata/schema: tools that exercise the MCP runtime (validation,
// structured output, progress, cancellation, timeouts, list changes,
// subscriptions, the root guard). It is served by the test server in
// cmd/kontext-testkit and by in-process tests, never by cmd/kontext.
package mcptest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/kontext-dev/kontext/internal/cli"
	"github.com/kontext-dev/kontext/internal/fsroot"
	"github.com/kontext-dev/kontext/internal/mcp"
	"github.com/kontext-dev/kontext/internal/mcptest/result"
	"github.com/kontext-dev/kontext/internal/mcptest/spec"
	"github.com/kontext-dev/kontext/internal/mcptest/spec/flags"
)

// Kit is the testkit toolset's state.
type Kit struct {
	root *fsroot.Root

	mu     sync.Mutex
	server *mcp.Server
	notes  int
	bonus  bool
}

var _ spec.Handlers = (*Kit)(nil)

// New returns a kit that writes notes under root.
func New(root *fsroot.Root) *Kit { return &Kit{root: root} }

// Toolset returns the toolset served by the kit.
func (k *Kit) Toolset() *mcp.Toolset { return spec.Toolset(k) }

// Attach gives the kit the server it announces changes on.
func (k *Kit) Attach(s *mcp.Server) {
	k.mu.Lock()
	k.server = s
	k.mu.Unlock()
}

func (k *Kit) srv() *mcp.Server {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.server
}

func (k *Kit) Echo(_ context.Context, in *spec.EchoInput) (*mcp.ToolResult, error) {
	text := in.Text
	if in.Upper {
		text = strings.ToUpper(text)
	}
	return mcp.TextResult(strings.Repeat(text, in.Repeat)), nil
}

func (k *Kit) Add(_ context.Context, in *spec.AddInput) (*result.Sum, error) {
	return &result.Sum{Sum: in.A + in.B}, nil
}

func (k *Kit) Sleep(ctx context.Context, in *spec.SleepInput) (*mcp.ToolResult, error) {
	step := time.Duration(in.Ms) * time.Millisecond / time.Duration(in.Steps)
	for i := 1; i <= in.Steps; i++ {
		timer := time.NewTimer(step)
		select {
		case <-ctx.Done():
			timer.Stop()
			return nil, ctx.Err()
		case <-timer.C:
		}
		mcp.Progress(ctx, float64(i), float64(in.Steps), fmt.Sprintf("step %d of %d", i, in.Steps))
	}
	mcp.Log(ctx, "info", "testkit", fmt.Sprintf("slept %d ms", in.Ms))
	return mcp.TextResult(fmt.Sprintf("slept %d ms", in.Ms)), nil
}

func (k *Kit) Fail(_ context.Context, in *spec.FailInput) (*mcp.ToolResult, error) {
	return nil, errors.New(in.Message)
}

func (k *Kit) Choose(_ context.Context, in *spec.ChooseInput) (*mcp.ToolResult, error) {
	b, err := json.Marshal(in)
	if err != nil {
		return nil, err
	}
	return mcp.TextResult(string(b)), nil
}

func (k *Kit) WriteNote(_ context.Context, in *spec.WriteNoteInput) (*mcp.ToolResult, error) {
	rel := path.Join(in.Dir, in.Name+".txt")
	abs, err := k.root.Path(rel)
	if err != nil {
		return nil, err
	}
	_, statErr := os.Stat(abs)
	if err := k.root.WriteFile(rel, []byte(in.Text)); err != nil {
		return nil, err
	}
	k.mu.Lock()
	k.notes++
	k.mu.Unlock()
	if s := k.srv(); s != nil {
		if errors.Is(statErr, os.ErrNotExist) {
			s.ResourcesChanged()
		}
		s.ResourceUpdated("testkit://note/" + in.Name)
		s.ResourceUpdated("testkit://status")
	}
	return mcp.TextResult("wrote " + rel), nil
}

func (k *Kit) ReadFile(_ context.Context, in *spec.ReadFileInput) (*mcp.ToolResult, error) {
	b, err := k.root.ReadFile(in.Path)
	if err != nil {
		return nil, err
	}
	return mcp.TextResult(string(b)), nil
}

func (k *Kit) ToggleBonus(_ context.Context, _ *spec.ToggleBonusInput) (*mcp.ToolResult, error) {
	s := k.srv()
	if s == nil {
		return nil, errors.New("the kit is not attached to a server")
	}
	k.mu.Lock()
	k.bonus = !k.bonus
	on := k.bonus
	k.mu.Unlock()
	if !on {
		s.RemoveTool("bonus")
		return mcp.TextResult("bonus removed"), nil
	}
	err := s.AddTool(&mcp.Tool{
		Name:        "bonus",
		Title:       "Bonus",
		Description: "A tool added at run time.",
		Toolset:     spec.Name,
		Annotations: mcp.Annotations{ReadOnly: mcp.Bool(true), OpenWorld: mcp.Bool(false)},
		InputSchema: json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`),
		Call: func(context.Context, json.RawMessage) (*mcp.ToolResult, error) {
			return mcp.TextResult("bonus!"), nil
		},
	})
	if err != nil {
		return nil, err
	}
	return mcp.TextResult("bonus added"), nil
}

func (k *Kit) PromptGreet(_ context.Context, args *spec.GreetArgs) (*mcp.PromptResult, error) {
	greeting := "Hi " + args.Who + "!"
	if args.Style == "formal" {
		greeting = "Good day, " + args.Who + "."
	}
	return &mcp.PromptResult{Description: "A greeting", Messages: []mcp.PromptMessage{{Role: "user", Text: greeting}}}, nil
}

func (k *Kit) ReadStatus(context.Context) (*mcp.ResourceContents, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	return &mcp.ResourceContents{Text: fmt.Sprintf("notes written: %d", k.notes)}, nil
}

func (k *Kit) ReadNote(_ context.Context, vars *spec.NoteVars) (*mcp.ResourceContents, error) {
	b, err := k.root.ReadFile(path.Join("notes", vars.Name+".txt"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &mcp.ResourceContents{Text: string(b)}, nil
}

func (k *Kit) ListNote(context.Context) ([]*mcp.Resource, error) {
	entries, err := os.ReadDir(filepath.Join(k.root.Dir(), "notes"))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []*mcp.Resource
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".txt")
		if !ok || e.IsDir() {
			continue
		}
		out = append(out, &mcp.Resource{URI: "testkit://note/" + name, Name: "note " + name, Title: name})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].URI < out[j].URI })
	return out, nil
}

// Factory makes the testkit toolset available to the command line.
func Factory() cli.ToolsetFactory {
	return cli.ToolsetFactory{
		Name:        spec.Name,
		Description: spec.Description,
		Describe:    func() *mcp.Toolset { return spec.Toolset(nil) },
		Open: func(root *fsroot.Root) (*mcp.Toolset, func(*mcp.Server), error) {
			k := New(root)
			return k.Toolset(), k.Attach, nil
		},
		Flags: flags.Flags,
	}
}
