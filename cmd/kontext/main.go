// Command kontext is the repository context server for coding agents: run
// `kontext mcp` in a repository and point an MCP client at it.
package main

import (
	"os"

	"github.com/kontext-dev/kontext/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args, shippedToolsets(), os.Stdout, os.Stderr))
}

// shippedToolsets are the toolsets the kontext binary serves.
func shippedToolsets() []cli.ToolsetFactory {
	return nil
}
