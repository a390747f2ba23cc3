// Package mcpserver embeds kontext's MCP server in another Go program: the
// dual-era runtime (legacy initialize and 2026-07-28 per-request _meta), the
// in-memory transport, the supported protocol versions, the error codes, and
// the definitions of the tools kontext ships.
//
// A tool is an input JSON Schema (the exact bytes advertised and validated)
// and a Call function; arguments that fail the schema never reach Call, and
// are answered with -32602 or, when the tool's InvalidArguments says so, with
// a tool result with isError naming each parameter.
package mcpserver

import (
	"io"

	"github.com/kontext-dev/kontext/gen/errcodes"
	"github.com/kontext-dev/kontext/gen/toolsets/apps"
	"github.com/kontext-dev/kontext/gen/toolsets/knowledge"
	"github.com/kontext-dev/kontext/gen/toolsets/repo"
	"github.com/kontext-dev/kontext/internal/mcp"
)

// The runtime's types.
type (
	Server           = mcp.Server
	Options          = mcp.Options
	Filter           = mcp.Filter
	Implementation   = mcp.Implementation
	Toolset          = mcp.Toolset
	Tool             = mcp.Tool
	Annotations      = mcp.Annotations
	ToolResult       = mcp.ToolResult
	Prompt           = mcp.Prompt
	PromptArgument   = mcp.PromptArgument
	PromptResult     = mcp.PromptResult
	PromptMessage    = mcp.PromptMessage
	Resource         = mcp.Resource
	ResourceTemplate = mcp.ResourceTemplate
	ResourceContents = mcp.ResourceContents
	Error            = mcp.Error
	ErrorCode        = errcodes.Info
	InvalidArguments = mcp.InvalidArguments
	// OutputFilter sees every answer before it is sent (Options.OutputFilter).
	OutputFilter = mcp.OutputFilter
)

// How a tool answers arguments that fail its input schema
// (Tool.InvalidArguments); an unknown tool is -32602 either way.
const (
	InvalidArgumentsProtocolError = mcp.InvalidArgumentsProtocolError
	InvalidArgumentsToolResult    = mcp.InvalidArgumentsToolResult
)

// New returns a server serving the toolsets (through opts.Filter). Serve it
// with Server.Serve on any io.ReadWriteCloser, or Server.ServeStdio.
func New(info Implementation, opts Options, toolsets ...*Toolset) (*Server, error) {
	return mcp.NewServer(info, opts, toolsets...)
}

// NewInMemoryTransport returns the two ends of an in-memory connection.
func NewInMemoryTransport() (serverEnd, clientEnd io.ReadWriteCloser) {
	return mcp.NewInMemoryTransport()
}

// Protocol revisions.
const (
	LatestLegacyVersion = mcp.LatestLegacyVersion
	ModernVersion       = mcp.ModernVersion
)

// SupportedVersions lists every protocol revision served, newest first.
func SupportedVersions() []string { return mcp.SupportedVersions() }

// ErrorCodes lists every JSON-RPC error code kontext uses or documents.
func ErrorCodes() []ErrorCode { return append([]ErrorCode(nil), errcodes.All...) }

// The JSON-RPC error codes.
const (
	ParseError                 = errcodes.ParseError
	InvalidRequest             = errcodes.InvalidRequest
	MethodNotFound             = errcodes.MethodNotFound
	InvalidParams              = errcodes.InvalidParams
	InternalError              = errcodes.InternalError
	UnsupportedProtocolVersion = errcodes.UnsupportedProtocolVersion
)

// TextResult returns a successful tool result with one text block.
func TextResult(text string) *ToolResult { return mcp.TextResult(text) }

// Bool returns a pointer to b, for annotations.
func Bool(b bool) *bool { return mcp.Bool(b) }

// ToolDefinitions returns the tools kontext ships, as they are advertised
// (names, titles, descriptions, annotations, input schemas). They come from
// the generated toolset packages, described without handlers, so this
// package links the runtime and the specs only: no engine, no CLI.
func ToolDefinitions() []*Tool {
	var out []*Tool
	for _, ts := range []*Toolset{knowledge.Toolset(nil), repo.Toolset(nil), apps.Toolset(nil)} {
		out = append(out, ts.Tools...)
	}
	return out
}
