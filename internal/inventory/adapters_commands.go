package inventory

import (
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	kcli "github.com/kontext-dev/kontext/internal/cli"
	"github.com/kontext-dev/kontext/internal/knowledge"
)

// adaptersCommand lists the configured adapters and tests one.
func adaptersCommand() *cli.Command {
	return &cli.Command{
		Name:     "adapters",
		Category: kcli.CategoryKnowledge,
		Usage:    "list the adapters (other MCP servers, HTTP APIs and programs as knowledge sources) or test one",
		Subcommands: []*cli.Command{
			{
				Name:  "list",
				Usage: "each adapter's driver, ops and state: configured, disabled, inactive, waiting for trust, running or failing with its last error",
				Flags: []cli.Flag{newRootFlag()},
				Action: func(c *cli.Context) error {
					if _, err := kcli.WorkTree(c); err != nil {
						return err
					}
					err := knowledge.AdaptersList(c.Context, c.String("root"), c.App.Writer)
					if errors.Is(err, knowledge.ErrAdapterInvalid) {
						return cli.Exit("", 1)
					}
					return err
				},
			},
			{
				Name:      "test",
				Usage:     "start an adapter and run one search against it (exit status 1 when it fails)",
				ArgsUsage: "<name>",
				Flags: []cli.Flag{
					newRootFlag(),
					&cli.StringFlag{Name: "query", Usage: "what to search for", Value: "kontext"},
					&cli.IntFlag{Name: "limit", Usage: "the most hits shown", Value: 5},
				},
				Action: func(c *cli.Context) error {
					if err := kcli.CheckArgs(c, 1); err != nil {
						return err
					}
					if c.NArg() == 0 {
						return kcli.Missing(c, "<name>")
					}
					if _, err := kcli.WorkTree(c); err != nil {
						return err
					}
					err := knowledge.AdaptersTest(c.Context, c.String("root"), c.Args().First(), c.String("query"), c.Int("limit"), c.App.Writer)
					if errors.Is(err, knowledge.ErrAdapterTest) {
						return cli.Exit("", 1)
					}
					return err
				},
			},
		},
	}
}

// trustCommand trusts the adapters the repository's shared configuration
// declares, pinned to their definitions.
func trustCommand() *cli.Command {
	return &cli.Command{
		Name:     "trust",
		Category: kcli.CategorySetup,
		Usage:    "let the adapters declared in the repository's configuration run (pinned to their definitions; a change needs trust again)",
		Flags: []cli.Flag{
			newRootFlag(),
			&cli.BoolFlag{Name: "list", Usage: "show the repository's adapters and whether each is trusted"},
			&cli.BoolFlag{Name: "revoke", Usage: "withdraw the trust in this repository's adapters"},
		},
		Action: func(c *cli.Context) error {
			if c.Bool("list") && c.Bool("revoke") {
				return cli.Exit(fmt.Sprintf("--list and --revoke exclude each other; usage: %s", kcli.UsageLine(c.Command)), 2)
			}
			if _, err := kcli.WorkTree(c); err != nil {
				return err
			}
			mode := knowledge.TrustPin
			switch {
			case c.Bool("list"):
				mode = knowledge.TrustList
			case c.Bool("revoke"):
				mode = knowledge.TrustRevoke
			}
			return knowledge.Trust(c.Context, c.String("root"), mode, c.App.Writer)
		},
	}
}
