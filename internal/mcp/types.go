// Package mcp is kontext's Model Context Protocol runtime: the server that
// speaks both protocol eras over newline-delimited JSON-RPC (stdio or in
// memory), and the client that adapters and the apps broker use to talk to
// other MCP servers.
//
// Toolsets fill it with tools, prompts and resources. Generated code
// (gen/toolsets/…) builds a Toolset from a handler interface, so the schema a
// tool advertises is the schema its arguments are validated against.
package mcp

import (
	"context"
	"encoding/json"
	"fmt"
)

// Toolset is a named group of tools, prompts and resources that can be
// enabled as a whole (--toolsets).
type Toolset struct {
	Name        string
	Description string
	// Instructions is what the server tells an agent about this toolset when
	// it is enabled.
	Instructions string
	Tools        []*Tool
	Prompts      []*Prompt
	Resources    []*Resource
	Templates    []*ResourceTemplate
	// OnSubscription, when set, hears as Options.OnSubscription does: a
	// toolset that follows resources elsewhere (the apps broker) follows
	// them only while some client does.
	OnSubscription func(uri string, active bool)
	// OnServe, when set, runs once the server is served to clients for
	// real (Server.Serving: kontext mcp over stdio or HTTP, not the command
	// line's in-process calls) and serves this toolset: what a toolset
	// that adds tools at run time starts from. It must not block.
	OnServe func(*Server)
	// Close, when set, releases what the toolset's handlers hold (a file
	// watcher, an index). Whoever opened the toolset calls it once no
	// server serves it any more; the server never does.
	Close func() error
}

// Annotations are a tool's MCP hints. nil means "not stated"; kontext's own
// tools state readOnlyHint and openWorldHint always.
type Annotations struct {
	ReadOnly    *bool
	Destructive *bool
	Idempotent  *bool
	OpenWorld   *bool
}

// Tool is one tool the server can advertise and call.
type Tool struct {
	Name        string
	Title       string
	Description string
	Toolset     string
	Annotations Annotations
	// Hidden tools are callable but never listed: names kept for clients
	// of an earlier release (the apps broker's acp_* aliases).
	Hidden bool
	// Meta, when set, is advertised as the tool's _meta (a JSON object of
	// reverse-DNS keys): what a proxy says about where the tool comes from.
	Meta json.RawMessage
	// InputSchema is the exact JSON the server advertises and compiles to
	// validate arguments (an object schema).
	InputSchema json.RawMessage
	// OutputSchema, when set, is advertised as outputSchema and the tool
	// returns structured content that conforms to it.
	OutputSchema json.RawMessage
	// InvalidArguments is how arguments that fail InputSchema are answered
	// (the toolset's spec declares it). An unknown tool is always -32602.
	InvalidArguments InvalidArguments
	// Call runs the tool with arguments that have already passed InputSchema.
	// A returned *Error is a protocol error; any other error becomes a result
	// with isError: true. Under InvalidArgumentsToolResult, an invalid-params
	// *Error (an argument the handler refused) is a result with isError too.
	Call func(ctx context.Context, args json.RawMessage) (*ToolResult, error)
}

// ReadOnly reports whether the tool says explicitly that it only reads.
// --read-only keeps exactly these.
func (t *Tool) ReadOnly() bool {
	return t.Annotations.ReadOnly != nil && *t.Annotations.ReadOnly
}

// ToolResult is what a tool returns.
type ToolResult struct {
	// Content holds content blocks (JSON objects such as {"type":"text",…}).
	Content []json.RawMessage
	// Structured, when not nil, is sent as structuredContent.
	Structured any
	IsError    bool

	// mirror is the content block StructuredResult made of Structured
	// (the output filter handles it as the document it is).
	mirror json.RawMessage
}

// TextResult returns a successful result with one text block.
func TextResult(text string) *ToolResult {
	return &ToolResult{Content: []json.RawMessage{TextBlock(text)}}
}

// ErrorResult returns a failed tool result with a readable message.
func ErrorResult(format string, args ...any) *ToolResult {
	return &ToolResult{Content: []json.RawMessage{TextBlock(fmt.Sprintf(format, args...))}, IsError: true}
}

// StructuredResult returns v as structured content, with the same JSON as a
// text block for clients that read text only.
func StructuredResult(v any) (*ToolResult, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	block := TextBlock(string(b))
	return &ToolResult{Content: []json.RawMessage{block}, Structured: json.RawMessage(b), mirror: block}, nil
}

// TextBlock encodes one text content block.
func TextBlock(text string) json.RawMessage {
	quoted, _ := json.Marshal(text) // a string always encodes
	block := make([]byte, 0, len(quoted)+len(`{"type":"text","text":}`))
	block = append(block, `{"type":"text","text":`...)
	block = append(block, quoted...)
	return append(block, '}')
}

// Prompt is one prompt template.
type Prompt struct {
	Name        string
	Title       string
	Description string
	Toolset     string
	Arguments   []PromptArgument
	Get         func(ctx context.Context, args map[string]string) (*PromptResult, error)
}

// PromptArgument describes one argument of a prompt.
type PromptArgument struct {
	Name        string
	Description string
	Required    bool
	// Complete, when set, suggests values for the argument
	// (completion/complete).
	Complete Completer
}

// PromptResult is what prompts/get returns.
type PromptResult struct {
	Description string
	Messages    []PromptMessage
}

// PromptMessage is one message of a prompt; Role is "user" or "assistant".
type PromptMessage struct {
	Role string
	Text string
	// Content, when not nil, is the message's content block (an image, an
	// embedded resource…), sent instead of a text block of Text.
	Content json.RawMessage
}

// Resource is a resource with a fixed URI.
type Resource struct {
	URI         string
	Name        string
	Title       string
	Description string
	MIMEType    string
	Toolset     string
	Read        func(ctx context.Context) (*ResourceContents, error)
}

// ResourceTemplate is a family of resources named by an RFC 6570 template
// of simple {var} expressions.
type ResourceTemplate struct {
	URITemplate string
	Name        string
	Title       string
	Description string
	MIMEType    string
	Toolset     string
	// Read returns the resource the variables name, or (nil, nil) when there
	// is no such resource.
	Read func(ctx context.Context, vars map[string]string) (*ResourceContents, error)
	// List returns the concrete resources of this template that exist now
	// (listed by resources/list); nil lists none.
	List func(ctx context.Context) ([]*Resource, error)
	// Complete suggests values for the variables it names
	// (completion/complete); a variable without one completes to nothing.
	Complete map[string]Completer
}

// ResourceContents is the text of one resource, or its bytes.
type ResourceContents struct {
	URI      string
	MIMEType string
	Text     string
	// Blob, when not nil, makes the resource binary: its bytes are sent
	// base64-encoded and Text is ignored.
	Blob []byte
}
