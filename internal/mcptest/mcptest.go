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
	"slices"
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
	asking bool // serve ask_client
}

var _ spec.Handlers = (*Kit)(nil)

// AskingEnv, set to 1 in the environment of a testkit server, serves
// ask_client too: a tool that asks the client, left out by default so that
// the tests of what the kit lists stay as they are.
const AskingEnv = "KONTEXT_TESTKIT_ASKING"

// New returns a kit that writes notes under root.
func New(root *fsroot.Root) *Kit { return &Kit{root: root, asking: os.Getenv(AskingEnv) == "1"} }

// NewAsking returns a kit that serves ask_client too.
func NewAsking(root *fsroot.Root) *Kit {
	k := New(root)
	k.asking = true
	return k
}

// Toolset returns the toolset served by the kit.
func (k *Kit) Toolset() *mcp.Toolset { return withAsking(spec.Toolset(k), k.asking) }

// withAsking leaves ask_client out of ts unless asking.
func withAsking(ts *mcp.Toolset, asking bool) *mcp.Toolset {
	if !asking {
		ts.Tools = slices.DeleteFunc(ts.Tools, func(t *mcp.Tool) bool { return t.Name == "ask_client" })
	}
	return ts
}

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
		Describe:    func() *mcp.Toolset { return withAsking(spec.Toolset(nil), os.Getenv(AskingEnv) == "1") },
		Open: func(root *fsroot.Root) (*mcp.Toolset, func(*mcp.Server), error) {
			k := New(root)
			return k.Toolset(), k.Attach, nil
		},
		Flags: flags.Flags,
	}
}

// The questions ask_client puts, as the conformance suite words them.
var (
	nameQuestion = map[string]any{
		"message": "What is your name?",
		"requestedSchema": map[string]any{
			"type":       "object",
			"properties": map[string]any{"name": map[string]any{"type": "string"}},
			"required":   []string{"name"},
		},
	}
	colorQuestion = map[string]any{
		"message": "What is your favorite color?",
		"requestedSchema": map[string]any{
			"type":       "object",
			"properties": map[string]any{"color": map[string]any{"type": "string"}},
			"required":   []string{"color"},
		},
	}
	capitalQuestion = map[string]any{
		"messages":  []any{map[string]any{"role": "user", "content": map[string]any{"type": "text", "text": "What is the capital of France?"}}},
		"maxTokens": 100,
	}
)

// AskClient asks the client through the one API a handler has, which
// works in every era; the answers come back one line each.
func (k *Kit) AskClient(ctx context.Context, in *spec.AskClientInput) (*mcp.ToolResult, error) {
	var (
		roots   struct{ Roots []map[string]any }
		name    mcp.ElicitResult
		color   mcp.ElicitResult
		message json.RawMessage
	)
	rootsQ := mcp.Question{Key: "client_roots", Method: "roots/list", Answer: &roots}
	nameQ := mcp.Question{Key: "user_name", Method: "elicitation/create", Params: nameQuestion, Answer: &name}
	sampleQ := mcp.Question{Key: "capital_question", Method: "sampling/createMessage", Params: capitalQuestion, Answer: &message}
	var questions []mcp.Question
	switch in.What {
	case spec.AskClientInputWhatRoots:
		questions = []mcp.Question{rootsQ}
	case spec.AskClientInputWhatElicit:
		questions = []mcp.Question{nameQ}
	case spec.AskClientInputWhatSample:
		questions = []mcp.Question{sampleQ}
	case spec.AskClientInputWhatAll:
		questions = []mcp.Question{nameQ, sampleQ, rootsQ}
	case spec.AskClientInputWhatTwice:
		questions = []mcp.Question{nameQ}
	case spec.AskClientInputWhatPing:
		if err := mcp.PingClient(ctx); err != nil {
			return nil, err
		}
		return mcp.TextResult("the client answered ping"), nil
	}
	if in.SupportedOnly {
		questions = slices.DeleteFunc(questions, func(q mcp.Question) bool { return !mcp.ClientSupports(ctx, q.Method) })
	}
	if err := mcp.Ask(ctx, questions...); err != nil {
		return nil, err
	}
	var lines []string
	for _, q := range questions {
		switch q.Key {
		case "client_roots":
			b, _ := json.Marshal(roots.Roots)
			lines = append(lines, "roots: "+string(b))
		case "user_name":
			b, _ := json.Marshal(name.Content)
			lines = append(lines, "name: "+name.Action+" "+string(b))
		case "capital_question":
			lines = append(lines, "message: "+string(message))
		}
	}
	if in.What == spec.AskClientInputWhatTwice {
		// The second question depends on the first answer: a second round.
		if err := mcp.Ask(ctx, mcp.Question{Key: "favorite_color", Method: "elicitation/create", Params: colorQuestion, Answer: &color}); err != nil {
			return nil, err
		}
		b, _ := json.Marshal(color.Content)
		lines = append(lines, "color: "+color.Action+" "+string(b))
	}
	if len(lines) == 0 {
		lines = append(lines, "nothing asked: the client declared none of the capabilities")
	}
	return mcp.TextResult(strings.Join(lines, "\n")), nil
}
