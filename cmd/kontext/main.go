// Command kontext is the repository context server for coding agents: run
// `kontext mcp` in a repository and point an MCP client at it.
package main

import (
	"os"

	"github.com/kontext-dev/kontext/internal/cli"
	"github.com/kontext-dev/kontext/internal/inventory"
)

func main() {
	os.Exit(cli.Main(os.Args, inventory.Program(), os.Stdout, os.Stderr))
}
