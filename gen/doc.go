// Package gen holds the Go code generated from the specs under schema/:
// gen/protocol (MCP params and results), gen/errcodes (error codes) and
// gen/toolsets/<toolset> (input types, canonical schemas, handler interface
// and registration table of each toolset, generated from
// schema/toolsets/<toolset>/) with its CLI flags apart in
// gen/toolsets/<toolset>/flags, so that serving a toolset does not link the
// command line. Nothing here is edited by hand; `go test ./internal/codegen`
// fails when a file is stale.
package gen

//go:generate go run ../internal/codegen/cmd/generate
