// Command kontext-testkit is kontext's command line with the test-only
// testkit toolset: the server the interop tests and benchmarks drive until
// (and beside) the real toolsets. It is never shipped.
package main

import (
	"os"

	"github.com/kontext-dev/kontext/internal/cli"
	"github.com/kontext-dev/kontext/internal/mcptest"
)

func main() {
	os.Exit(cli.Main(os.Args, cli.Program{Toolsets: []cli.ToolsetFactory{mcptest.Factory()}}, os.Stdout, os.Stderr))
}
