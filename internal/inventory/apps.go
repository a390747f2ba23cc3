package inventory

import (
	"fmt"
	"io"
	"log/slog"

	"github.com/urfave/cli/v2"

	spec "github.com/kontext-dev/kontext/gen/toolsets/apps"
	"github.com/kontext-dev/kontext/gen/toolsets/apps/flags"
	"github.com/kontext-dev/kontext/internal/apps"
	"github.com/kontext-dev/kontext/internal/apps/tools"
	kcli "github.com/kontext-dev/kontext/internal/cli"
	"github.com/kontext-dev/kontext/internal/fsroot"
	"github.com/kontext-dev/kontext/internal/mcp"
)

// Apps is the apps toolset (seeds/002): the App Context broker. It is
// opt-in — it reaches other processes of the user — and needs no
// repository.
func Apps() kcli.ToolsetFactory {
	var opts apps.Options
	return kcli.ToolsetFactory{
		Name:        spec.Name,
		Description: spec.Description,
		Describe:    func() *mcp.Toolset { return spec.Toolset(nil) },
		Flags:       flags.Flags,
		OptIn:       true,
		NoRoot:      true,
		ServeFlags: []cli.Flag{
			&cli.IntFlag{Name: "apps-name-budget", Value: apps.DefaultNameBudget, Usage: fmt.Sprintf("longest name of an application's typed tool (%d…%d)", apps.MinNameBudget, apps.MaxNameBudget)},
		},
		Configure: func(c *cli.Context) error {
			budget := c.Int("apps-name-budget")
			if budget < apps.MinNameBudget || budget > apps.MaxNameBudget {
				return cli.Exit(fmt.Sprintf("--apps-name-budget %d: use %d…%d characters", budget, apps.MinNameBudget, apps.MaxNameBudget), 2)
			}
			var audit io.Writer = c.App.ErrWriter
			opts = apps.Options{NameBudget: budget, ReadOnly: c.Bool("read-only"), Audit: audit, Logger: slog.Default()}
			return nil
		},
		Open: func(*fsroot.Root) (*mcp.Toolset, func(*mcp.Server), error) {
			b, err := apps.New(opts)
			if err != nil {
				return nil, nil, err
			}
			ts := tools.Toolset(b)
			ts.OnSubscription = b.OnSubscription
			return ts, func(srv *mcp.Server) {
				if err := b.Attach(srv); err != nil {
					slog.Default().Error("apps: the broker did not start", "error", err)
				}
			}, nil
		},
		Category: kcli.CategoryServing,
		Commands: []*cli.Command{appsCommand()},
	}
}
