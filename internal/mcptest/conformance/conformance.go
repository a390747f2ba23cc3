// Package conformance implements the test-only toolset specified under
// testdata/schema/toolsets/conformance: the fixture primitives the official
// MCP conformance suite (@modelcontextprotocol/conformance) calls by name,
// with the texts and payloads its scenarios check. It is served by the test
// server in cmd/kontext-conformance (make conformance), never by
// cmd/kontext.
package conformance

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/kontext-dev/kontext/internal/cli"
	"github.com/kontext-dev/kontext/internal/fsroot"
	"github.com/kontext-dev/kontext/internal/mcp"
	"github.com/kontext-dev/kontext/internal/mcptest/conformance/spec"
	"github.com/kontext-dev/kontext/internal/mcptest/conformance/spec/flags"
)

// The suite's payloads: a 1×1 red PNG and a minimal WAV file.
const (
	imagePNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
	audioWAV = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA="
)

// step is the pause between the notifications of the logging and progress
// tools: the suite checks that a client receives several during one call.
const step = 50 * time.Millisecond

// Kit is the conformance toolset's handlers. Its only state is the server
// test_trigger_tool_change changes the tool list of.
type Kit struct {
	mu      sync.Mutex
	server  *mcp.Server
	dynamic bool // test_dynamic_tool is listed
}

var _ spec.Handlers = (*Kit)(nil)

// Toolset returns the conformance toolset: the specified fixtures and
// json_schema_2020_12_tool, whose raw input schema the spec format cannot
// state (it types parameters; the tool exists to show that $defs, $anchor,
// allOf and if/then/else reach the client untouched).
func (k *Kit) Toolset() *mcp.Toolset {
	ts := spec.Toolset(k)
	ts.Tools = append(ts.Tools, schemaTool())
	return ts
}

// Attach gives the kit the server whose tool list it changes.
func (k *Kit) Attach(s *mcp.Server) {
	k.mu.Lock()
	k.server = s
	k.mu.Unlock()
}

func block(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only maps of strings are marshalled here
	}
	return b
}

func imageBlock() json.RawMessage {
	return block(map[string]string{"type": "image", "data": imagePNG, "mimeType": "image/png"})
}

func resourceBlock(uri, mimeType, text string) json.RawMessage {
	return block(map[string]any{"type": "resource", "resource": map[string]string{"uri": uri, "mimeType": mimeType, "text": text}})
}

// pause waits for d or until the call is cancelled.
func pause(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func (*Kit) TestSimpleText(context.Context, *spec.TestSimpleTextInput) (*mcp.ToolResult, error) {
	return mcp.TextResult("This is a simple text response for testing."), nil
}

func (*Kit) TestImageContent(context.Context, *spec.TestImageContentInput) (*mcp.ToolResult, error) {
	return &mcp.ToolResult{Content: []json.RawMessage{imageBlock()}}, nil
}

func (*Kit) TestAudioContent(context.Context, *spec.TestAudioContentInput) (*mcp.ToolResult, error) {
	audio := block(map[string]string{"type": "audio", "data": audioWAV, "mimeType": "audio/wav"})
	return &mcp.ToolResult{Content: []json.RawMessage{audio}}, nil
}

func (*Kit) TestEmbeddedResource(context.Context, *spec.TestEmbeddedResourceInput) (*mcp.ToolResult, error) {
	res := resourceBlock("test://embedded-resource", "text/plain", "This is an embedded resource content.")
	return &mcp.ToolResult{Content: []json.RawMessage{res}}, nil
}

func (*Kit) TestMultipleContentTypes(context.Context, *spec.TestMultipleContentTypesInput) (*mcp.ToolResult, error) {
	return &mcp.ToolResult{Content: []json.RawMessage{
		mcp.TextBlock("Multiple content types test:"),
		imageBlock(),
		resourceBlock("test://mixed-content-resource", "application/json", `{"test":"data","value":123}`),
	}}, nil
}

func (*Kit) TestToolWithLogging(ctx context.Context, _ *spec.TestToolWithLoggingInput) (*mcp.ToolResult, error) {
	for i, message := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
		if i > 0 {
			if err := pause(ctx, step); err != nil {
				return nil, err
			}
		}
		mcp.Log(ctx, "info", "conformance", message)
	}
	return mcp.TextResult("Tool with logging executed successfully"), nil
}

func (*Kit) TestToolWithProgress(ctx context.Context, _ *spec.TestToolWithProgressInput) (*mcp.ToolResult, error) {
	for i, done := range []float64{0, 50, 100} {
		if i > 0 {
			if err := pause(ctx, step); err != nil {
				return nil, err
			}
		}
		mcp.Progress(ctx, done, 100, fmt.Sprintf("Completed step %g of 100", done))
	}
	return mcp.TextResult("Tool with progress executed successfully"), nil
}

func (*Kit) TestErrorHandling(context.Context, *spec.TestErrorHandlingInput) (*mcp.ToolResult, error) {
	// The suite reads the message from the first block as is, so it is
	// returned as the tool's error result rather than as a Go error (which
	// the runtime would prefix with "Error: ").
	return mcp.ErrorResult("This tool intentionally returns an error for testing"), nil
}

// TestReconnection closes the SSE response carrying its answer before
// answering (mcp.CloseStream, "SSE polling" of 2025-11-25), so that the
// client must reconnect with Last-Event-ID to read it, as the suite's
// server-sse-polling scenario checks.
func (*Kit) TestReconnection(ctx context.Context, _ *spec.TestReconnectionInput) (*mcp.ToolResult, error) {
	mcp.CloseStream(ctx)
	if err := pause(ctx, 2*step); err != nil {
		return nil, err
	}
	return mcp.TextResult("Reconnection test completed successfully. If you received this, the client properly reconnected after stream closure."), nil
}

// The fixtures that ask the client return Ask's errors unchanged: in
// 2026-07-28 the first run's error is what makes the runtime answer
// input_required, and a client without the capability gets the runtime's
// refusal.

func (*Kit) TestSampling(ctx context.Context, in *spec.TestSamplingInput) (*mcp.ToolResult, error) {
	raw, err := mcp.CreateMessage(ctx, "sampling", map[string]any{
		"messages":  []any{map[string]any{"role": "user", "content": map[string]string{"type": "text", "text": in.Prompt}}},
		"maxTokens": 100,
	})
	if err != nil {
		return nil, err
	}
	var answer struct {
		Content struct{ Text string }
	}
	if err := json.Unmarshal(raw, &answer); err != nil {
		return nil, fmt.Errorf("the client's sampling result: %w", err)
	}
	return mcp.TextResult("LLM response: " + answer.Content.Text), nil
}

// elicited reports the user's answer as the suite's fixtures word it.
func elicited(prefix string, res *mcp.ElicitResult) (*mcp.ToolResult, error) {
	content, err := json.Marshal(res.Content)
	if err != nil {
		return nil, err
	}
	if res.Content == nil {
		content = []byte("{}")
	}
	return mcp.TextResult(fmt.Sprintf("%s: action=%s, content=%s", prefix, res.Action, content)), nil
}

func (*Kit) TestElicitation(ctx context.Context, in *spec.TestElicitationInput) (*mcp.ToolResult, error) {
	res, err := mcp.Elicit(ctx, "elicitation", map[string]any{
		"message": in.Message,
		"requestedSchema": map[string]any{
			"type": "object",
			"properties": map[string]any{
				"username": map[string]string{"type": "string", "description": "User's response"},
				"email":    map[string]string{"type": "string", "description": "User's email address"},
			},
			"required": []string{"username", "email"},
		},
	})
	if err != nil {
		return nil, err
	}
	return elicited("User response", res)
}

func (*Kit) TestElicitationSep1034Defaults(ctx context.Context, _ *spec.TestElicitationSep1034DefaultsInput) (*mcp.ToolResult, error) {
	res, err := mcp.Elicit(ctx, "elicitation", map[string]any{
		"message": "Please review and update the form fields with defaults",
		"requestedSchema": map[string]any{
			"type": "object",
			"properties": map[string]any{
				"name":     map[string]any{"type": "string", "description": "User name", "default": "John Doe"},
				"age":      map[string]any{"type": "integer", "description": "User age", "default": 30},
				"score":    map[string]any{"type": "number", "description": "User score", "default": 95.5},
				"status":   map[string]any{"type": "string", "description": "User status", "enum": []string{"active", "inactive", "pending"}, "default": "active"},
				"verified": map[string]any{"type": "boolean", "description": "Verification status", "default": true},
			},
			"required": []string{},
		},
	})
	if err != nil {
		return nil, err
	}
	return elicited("Elicitation completed", res)
}

func (*Kit) TestElicitationSep1330Enums(ctx context.Context, _ *spec.TestElicitationSep1330EnumsInput) (*mcp.ToolResult, error) {
	titled := func(title ...string) []any {
		var out []any
		for i, t := range title {
			out = append(out, map[string]string{"const": fmt.Sprintf("value%d", i+1), "title": t})
		}
		return out
	}
	res, err := mcp.Elicit(ctx, "elicitation", map[string]any{
		"message": "Please select options from the enum fields",
		"requestedSchema": map[string]any{
			"type": "object",
			"properties": map[string]any{
				"untitledSingle": map[string]any{"type": "string", "description": "Select one option", "enum": []string{"option1", "option2", "option3"}},
				"titledSingle":   map[string]any{"type": "string", "description": "Select one option with titles", "oneOf": titled("First Option", "Second Option", "Third Option")},
				"legacyEnum": map[string]any{"type": "string", "description": "Select one option (legacy)",
					"enum": []string{"opt1", "opt2", "opt3"}, "enumNames": []string{"Option One", "Option Two", "Option Three"}},
				"untitledMulti": map[string]any{"type": "array", "description": "Select multiple options", "minItems": 1, "maxItems": 3,
					"items": map[string]any{"type": "string", "enum": []string{"option1", "option2", "option3"}}},
				"titledMulti": map[string]any{"type": "array", "description": "Select multiple options with titles", "minItems": 1, "maxItems": 3,
					"items": map[string]any{"anyOf": titled("First Choice", "Second Choice", "Third Choice")}},
			},
			"required": []string{},
		},
	})
	if err != nil {
		return nil, err
	}
	return elicited("Elicitation completed", res)
}

func (*Kit) PromptTestSimplePrompt(context.Context, *spec.TestSimplePromptArgs) (*mcp.PromptResult, error) {
	return &mcp.PromptResult{Messages: []mcp.PromptMessage{{Role: "user", Text: "This is a simple prompt for testing."}}}, nil
}

func (*Kit) PromptTestPromptWithArguments(_ context.Context, args *spec.TestPromptWithArgumentsArgs) (*mcp.PromptResult, error) {
	text := fmt.Sprintf("Prompt with arguments: arg1='%s', arg2='%s'", args.Arg1, args.Arg2)
	return &mcp.PromptResult{Messages: []mcp.PromptMessage{{Role: "user", Text: text}}}, nil
}

func (*Kit) PromptTestPromptWithEmbeddedResource(_ context.Context, args *spec.TestPromptWithEmbeddedResourceArgs) (*mcp.PromptResult, error) {
	return &mcp.PromptResult{Messages: []mcp.PromptMessage{
		{Role: "user", Content: resourceBlock(args.ResourceUri, "text/plain", "Embedded resource content for testing.")},
		{Role: "user", Text: "Please process the embedded resource above."},
	}}, nil
}

func (*Kit) PromptTestPromptWithImage(context.Context, *spec.TestPromptWithImageArgs) (*mcp.PromptResult, error) {
	return &mcp.PromptResult{Messages: []mcp.PromptMessage{
		{Role: "user", Content: imageBlock()},
		{Role: "user", Text: "Please analyze the image above."},
	}}, nil
}

func (*Kit) ReadStaticText(context.Context) (*mcp.ResourceContents, error) {
	return &mcp.ResourceContents{Text: "This is the content of the static text resource."}, nil
}

func (*Kit) ReadStaticBinary(context.Context) (*mcp.ResourceContents, error) {
	png, err := base64.StdEncoding.DecodeString(imagePNG)
	if err != nil {
		return nil, err
	}
	return &mcp.ResourceContents{Blob: png}, nil
}

func (*Kit) ReadWatchedResource(context.Context) (*mcp.ResourceContents, error) {
	return &mcp.ResourceContents{Text: "Watched resource content"}, nil
}

func (*Kit) ReadTemplate(_ context.Context, vars *spec.TemplateVars) (*mcp.ResourceContents, error) {
	b, err := json.Marshal(map[string]any{"id": vars.ID, "templateTest": true, "data": "Data for ID: " + vars.ID})
	if err != nil {
		return nil, err
	}
	return &mcp.ResourceContents{Text: string(b)}, nil
}

// words are what CompleteWords suggests from, as the suite's example does.
var words = []string{"park", "paris", "party", "test", "testing", "world"}

// CompleteWords suggests the words that start with what was typed.
func (*Kit) CompleteWords(_ context.Context, req mcp.CompletionRequest) (*mcp.Completion, error) {
	out := &mcp.Completion{Values: []string{}}
	for _, w := range words {
		if strings.HasPrefix(w, req.Value) {
			out.Values = append(out.Values, w)
		}
	}
	return out, nil
}

// ListTemplate lists no instances: every id names a resource, so there is
// no finite list of them.
func (*Kit) ListTemplate(context.Context) ([]*mcp.Resource, error) { return nil, nil }

// schemaInput is json_schema_2020_12_tool's input schema, the one the
// suite's json-schema-2020-12 scenario looks for in tools/list.
const schemaInput = `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",` +
	`"$defs":{"address":{"$anchor":"addressDef","type":"object","properties":{"street":{"type":"string"},"city":{"type":"string"}}}},` +
	`"properties":{"name":{"type":"string"},"address":{"$ref":"#/$defs/address"},"contactMethod":{"type":"string","enum":["phone","email"]},"phone":{"type":"string"},"email":{"type":"string"}},` +
	`"allOf":[{"anyOf":[{"required":["phone"]},{"required":["email"]}]}],` +
	`"if":{"properties":{"contactMethod":{"const":"phone"}},"required":["contactMethod"]},"then":{"required":["phone"]},"else":{"required":["email"]},` +
	`"additionalProperties":false}`

func schemaTool() *mcp.Tool {
	return &mcp.Tool{
		Name:             "json_schema_2020_12_tool",
		Title:            "JSON Schema 2020-12",
		Description:      "Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613, SEP-2106).",
		Toolset:          spec.Name,
		Annotations:      mcp.Annotations{ReadOnly: mcp.Bool(true), OpenWorld: mcp.Bool(false)},
		InputSchema:      json.RawMessage(schemaInput),
		InvalidArguments: mcp.InvalidArgumentsProtocolError,
		Call: func(_ context.Context, args json.RawMessage) (*mcp.ToolResult, error) {
			return mcp.TextResult("JSON Schema 2020-12 tool called with: " + string(args)), nil
		},
	}
}

// Factory makes the conformance toolset available to the command line.
func Factory() cli.ToolsetFactory {
	return cli.ToolsetFactory{
		Name:        spec.Name,
		Description: spec.Description,
		Describe:    (&Kit{}).Toolset,
		Open: func(*fsroot.Root) (*mcp.Toolset, func(*mcp.Server), error) {
			k := &Kit{}
			return k.Toolset(), k.Attach, nil
		},
		Flags: flags.Flags,
	}
}
