package conformance

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/kontext-dev/kontext/internal/mcp"
	"github.com/kontext-dev/kontext/internal/mcptest/conformance/spec"
)

// The fixtures of the 2026-07-28 multi-round-trip scenarios (SEP-2322) and
// of server-stateless's diagnostics (SEP-2575). Each asks through mcp.Ask,
// which in 2026-07-28 answers input_required with the questions and runs
// the handler again with the client's answers; the keys are the ones the
// suite's scenarios look for.

// form is an elicitation of one field.
func form(message, field, fieldType string) map[string]any {
	return map[string]any{
		"message": message,
		"requestedSchema": map[string]any{
			"type":       "object",
			"properties": map[string]any{field: map[string]string{"type": fieldType}},
			"required":   []string{field},
		},
	}
}

// sample asks the client's model one question.
func sample(text string, maxTokens int) map[string]any {
	return map[string]any{
		"messages":  []any{map[string]any{"role": "user", "content": map[string]string{"type": "text", "text": text}}},
		"maxTokens": maxTokens,
	}
}

// sampledText is the text of a sampling/createMessage result.
func sampledText(raw json.RawMessage) string {
	var res struct {
		Content struct{ Text string }
	}
	if json.Unmarshal(raw, &res) != nil {
		return ""
	}
	return res.Content.Text
}

// field is one field of an elicitation's answer, as text.
func field(res mcp.ElicitResult, name string) string {
	if v, ok := res.Content[name]; ok {
		return fmt.Sprint(v)
	}
	return ""
}

func (*Kit) TestInputRequiredResultElicitation(ctx context.Context, _ *spec.TestInputRequiredResultElicitationInput) (*mcp.ToolResult, error) {
	var name mcp.ElicitResult
	if err := mcp.Ask(ctx, mcp.Question{Key: "user_name", Method: "elicitation/create", Params: form("What is your name?", "name", "string"), Answer: &name}); err != nil {
		return nil, err
	}
	return mcp.TextResult("Hello, " + field(name, "name") + "!"), nil
}

func (*Kit) TestInputRequiredResultSampling(ctx context.Context, _ *spec.TestInputRequiredResultSamplingInput) (*mcp.ToolResult, error) {
	raw, err := mcp.CreateMessage(ctx, "capital_question", sample("What is the capital of France?", 100))
	if err != nil {
		return nil, err
	}
	return mcp.TextResult("The model answered: " + sampledText(raw)), nil
}

func (*Kit) TestInputRequiredResultListRoots(ctx context.Context, _ *spec.TestInputRequiredResultListRootsInput) (*mcp.ToolResult, error) {
	var roots struct {
		Roots []struct{ URI, Name string }
	}
	if err := mcp.Ask(ctx, mcp.Question{Key: "client_roots", Method: "roots/list", Params: map[string]any{}, Answer: &roots}); err != nil {
		return nil, err
	}
	uris := make([]string, 0, len(roots.Roots))
	for _, r := range roots.Roots {
		uris = append(uris, r.URI)
	}
	return mcp.TextResult(fmt.Sprintf("The client has %d root(s): %s", len(uris), strings.Join(uris, ", "))), nil
}

func (*Kit) TestInputRequiredResultCapabilities(ctx context.Context, _ *spec.TestInputRequiredResultCapabilitiesInput) (*mcp.ToolResult, error) {
	var name mcp.ElicitResult
	var message json.RawMessage
	questions := []mcp.Question{
		{Key: "user_name", Method: "elicitation/create", Params: form("What is your name?", "name", "string"), Answer: &name},
		{Key: "capital_question", Method: "sampling/createMessage", Params: sample("What is the capital of France?", 100), Answer: &message},
	}
	questions = slices.DeleteFunc(questions, func(q mcp.Question) bool { return !mcp.ClientSupports(ctx, q.Method) })
	if err := mcp.Ask(ctx, questions...); err != nil {
		return nil, err
	}
	var asked []string
	for _, q := range questions {
		asked = append(asked, q.Method)
	}
	return mcp.TextResult("Asked only what the client supports: " + strings.Join(asked, ", ")), nil
}

func (*Kit) TestInputRequiredResultMultiRound(ctx context.Context, _ *spec.TestInputRequiredResultMultiRoundInput) (*mcp.ToolResult, error) {
	var name, color mcp.ElicitResult
	if err := mcp.Ask(ctx, mcp.Question{Key: "step1", Method: "elicitation/create", Params: form("Step 1: What is your name?", "name", "string"), Answer: &name}); err != nil {
		return nil, err
	}
	// The second question follows the first answer: a second round.
	if err := mcp.Ask(ctx, mcp.Question{Key: "step2", Method: "elicitation/create", Params: form("Step 2: What is your favorite color?", "color", "string"), Answer: &color}); err != nil {
		return nil, err
	}
	return mcp.TextResult(fmt.Sprintf("%s likes %s", field(name, "name"), field(color, "color"))), nil
}

func (*Kit) TestInputRequiredResultMultipleInputs(ctx context.Context, _ *spec.TestInputRequiredResultMultipleInputsInput) (*mcp.ToolResult, error) {
	var name mcp.ElicitResult
	var greeting json.RawMessage
	var roots struct{ Roots []struct{ URI string } }
	err := mcp.Ask(ctx,
		mcp.Question{Key: "user_name", Method: "elicitation/create", Params: form("What is your name?", "name", "string"), Answer: &name},
		mcp.Question{Key: "greeting", Method: "sampling/createMessage", Params: sample("Generate a greeting", 50), Answer: &greeting},
		mcp.Question{Key: "client_roots", Method: "roots/list", Params: map[string]any{}, Answer: &roots},
	)
	if err != nil {
		return nil, err
	}
	return mcp.TextResult(fmt.Sprintf("%s, %s (%d root(s))", sampledText(greeting), field(name, "name"), len(roots.Roots))), nil
}

// TestInputRequiredResultRequestState confirms with "state-ok" that the
// retry came back with a requestState the runtime accepted: the runtime
// checks its seal before the handler runs again, and refuses it otherwise.
func (*Kit) TestInputRequiredResultRequestState(ctx context.Context, _ *spec.TestInputRequiredResultRequestStateInput) (*mcp.ToolResult, error) {
	var confirm mcp.ElicitResult
	if err := mcp.Ask(ctx, mcp.Question{Key: "confirm", Method: "elicitation/create", Params: form("Please confirm", "ok", "boolean"), Answer: &confirm}); err != nil {
		return nil, err
	}
	return mcp.TextResult("state-ok: confirmed " + field(confirm, "ok")), nil
}

func (*Kit) TestInputRequiredResultTamperedState(ctx context.Context, _ *spec.TestInputRequiredResultTamperedStateInput) (*mcp.ToolResult, error) {
	var confirm mcp.ElicitResult
	if err := mcp.Ask(ctx, mcp.Question{Key: "confirm", Method: "elicitation/create", Params: form("Please confirm", "ok", "boolean"), Answer: &confirm}); err != nil {
		return nil, err
	}
	return mcp.TextResult("confirmed " + field(confirm, "ok")), nil
}

func (*Kit) PromptTestInputRequiredResultPrompt(ctx context.Context, _ *spec.TestInputRequiredResultPromptArgs) (*mcp.PromptResult, error) {
	var answer mcp.ElicitResult
	if err := mcp.Ask(ctx, mcp.Question{Key: "user_context", Method: "elicitation/create", Params: form("What context should the prompt use?", "context", "string"), Answer: &answer}); err != nil {
		return nil, err
	}
	return &mcp.PromptResult{Messages: []mcp.PromptMessage{{Role: "user", Text: "Answer in this context: " + field(answer, "context")}}}, nil
}

// TestMissingCapability asks the client's model whatever the client
// declared, so that the runtime's refusal (-32021 in 2026-07-28) shows.
func (*Kit) TestMissingCapability(ctx context.Context, _ *spec.TestMissingCapabilityInput) (*mcp.ToolResult, error) {
	raw, err := mcp.CreateMessage(ctx, "sample", sample("Say hello", 20))
	if err != nil {
		return nil, err
	}
	return mcp.TextResult("The model answered: " + sampledText(raw)), nil
}

func (*Kit) TestStreamingElicitation(ctx context.Context, _ *spec.TestStreamingElicitationInput) (*mcp.ToolResult, error) {
	var answer mcp.ElicitResult
	if err := mcp.Ask(ctx, mcp.Question{Key: "user_input", Method: "elicitation/create", Params: form("What should the tool use?", "input", "string"), Answer: &answer}); err != nil {
		return nil, err
	}
	return mcp.TextResult("The user answered: " + field(answer, "input")), nil
}

func (*Kit) TestLoggingTool(ctx context.Context, _ *spec.TestLoggingToolInput) (*mcp.ToolResult, error) {
	mcp.Log(ctx, "info", "conformance", "test_logging_tool ran")
	return mcp.TextResult("logged one message at info"), nil
}

func (k *Kit) TestTriggerToolChange(context.Context, *spec.TestTriggerToolChangeInput) (*mcp.ToolResult, error) {
	k.mu.Lock()
	s := k.server
	k.dynamic = !k.dynamic
	on := k.dynamic
	k.mu.Unlock()
	if s == nil {
		return nil, errors.New("the kit is not attached to a server")
	}
	if !on {
		s.RemoveTool("test_dynamic_tool")
		return mcp.TextResult("test_dynamic_tool removed"), nil
	}
	err := s.AddTool(&mcp.Tool{
		Name:        "test_dynamic_tool",
		Title:       "Dynamic tool",
		Description: "A tool test_trigger_tool_change added at run time.",
		Toolset:     spec.Name,
		Annotations: mcp.Annotations{ReadOnly: mcp.Bool(true), OpenWorld: mcp.Bool(false)},
		InputSchema: json.RawMessage(`{"type":"object","properties":{},"additionalProperties":false}`),
		Call: func(context.Context, json.RawMessage) (*mcp.ToolResult, error) {
			return mcp.TextResult("This tool was added at run time."), nil
		},
	})
	if err != nil {
		return nil, err
	}
	return mcp.TextResult("test_dynamic_tool added"), nil
}
