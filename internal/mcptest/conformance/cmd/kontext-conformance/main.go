// Command kontext-conformance is kontext's command line with the test-only
// conformance toolset: the server `make conformance` runs the official MCP
// conformance suite against. It is never shipped.
package main

import (
	"os"

	"github.com/kontext-dev/kontext/internal/cli"
	"github.com/kontext-dev/kontext/internal/mcptest/conformance"
)

func main() {
	os.Exit(cli.Main(os.Args, cli.Program{Toolsets: []cli.ToolsetFactory{conformance.Factory()}}, os.Stdout, os.Stderr))
}
