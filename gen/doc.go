// Package gen holds the Go code generated from the specs under schema/:
// gen/protocol (MCP params and results), gen/errcodes (error codes) and
// gen/toolsets/<toolset> (input types, canonical schemas, handler interface,
// registration table and CLI flags of each toolset). Nothing here is edited
// by hand; `go test ./internal/codegen` fails when a file is stale.
package gen

//go:generate go run ../internal/codegen/cmd/generate
