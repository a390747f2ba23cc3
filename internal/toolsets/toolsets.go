// Package toolsets lists the toolsets the kontext binary ships. Each one
// lands here when it is complete: a tool that is advertised works fully.
package toolsets

import "github.com/kontext-dev/kontext/internal/cli"

// Shipped returns the toolsets `kontext mcp` serves, in the order they are
// listed.
func Shipped() []cli.ToolsetFactory {
	return []cli.ToolsetFactory{Knowledge(), Repo()}
}
