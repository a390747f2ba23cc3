// Package inventory lists the toolsets the kontext binary ships. Each one
// lands here when it is complete: a tool that is advertised works fully.
package inventory

import (
	"github.com/urfave/cli/v2"

	kcli "github.com/kontext-dev/kontext/internal/cli"
)

// Shipped returns the toolsets `kontext mcp` serves, in the order they are
// listed.
func Shipped() []kcli.ToolsetFactory {
	return []kcli.ToolsetFactory{Knowledge(), Repo(), Apps()}
}

// newRootFlag is the --root flag of the toolsets' commands: the repository
// is chosen as fsroot.Choose (and kontext mcp) chooses it.
func newRootFlag() *cli.StringFlag { return kcli.RootFlag() }
