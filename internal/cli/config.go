package cli

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/kontext-dev/kontext/internal/clients"
)

// argList collects --command-arg values as given. A StringSliceFlag would
// split "a,b" into two arguments, and a path may hold a comma.
type argList struct {
	values []string
	set    bool
}

func (a *argList) Set(v string) error {
	a.values = append(a.values, v)
	a.set = true
	return nil
}

func (a *argList) String() string { return strings.Join(a.values, " ") }

func configCommand() *cli.Command {
	commandArgs := &argList{}
	return &cli.Command{
		Name:      "config",
		Usage:     "print the mcpServers entry that starts kontext, for an MCP client",
		ArgsUsage: "<client>",
		Description: "Prints the value of the client's mcpServers field, holding only the kontext entry,\n" +
			"in the format that client's documentation gives. Nothing is written without --write.\n\n" +
			"   kontext config --list\n" +
			"   kontext config cursor\n" +
			"   kontext config --command node --command-arg /x/bin.js --command-arg mcp cline\n" +
			"   kontext config --write .mcp.json claude-code",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "list", Usage: "list the supported clients and their config files"},
			&cli.BoolFlag{Name: "all", Usage: "print every client's entry, each after a header naming the client and its file"},
			&cli.StringFlag{Name: "command", Value: clients.DefaultCommand, Usage: "the command the client runs"},
			&cli.GenericFlag{Name: "command-arg", Value: commandArgs, Usage: "an argument of the command; repeat it for more, in order (default: mcp; any given replace it)"},
			&cli.StringFlag{Name: "write", TakesFile: true, Usage: "merge the kontext entry into this config `FILE` of the client, keeping everything else in it"},
		},
		Action: func(c *cli.Context) error { return runConfig(c, commandArgs) },
	}
}

func runConfig(c *cli.Context, commandArgs *argList) error {
	list, all, write := c.Bool("list"), c.Bool("all"), c.IsSet("write")
	names := c.Args().Slice()
	known := strings.Join(clients.IDs(), ", ")
	switch {
	case list && (all || write || len(names) > 0):
		return cli.Exit("--list takes no client and no --all or --write", 2)
	case list:
		return clients.WriteList(c.App.Writer)
	case all && write:
		return cli.Exit("--write merges one client's entry: name the client instead of --all", 2)
	case all && len(names) > 0:
		return cli.Exit("--all prints every client: name no client with it", 2)
	case len(names) > 1 && strings.HasPrefix(names[1], "-"):
		return cli.Exit(fmt.Sprintf("flags go before the client: kontext config [flags] %s", names[0]), 2)
	case len(names) > 1:
		return cli.Exit(fmt.Sprintf("one client at a time, not %d (%s)", len(names), strings.Join(names, ", ")), 2)
	case len(names) == 0 && !all:
		return cli.Exit(fmt.Sprintf("name a client: kontext config <client>, one of %s (kontext config --list describes them)", known), 2)
	}

	command := c.String("command")
	if command == "" {
		return cli.Exit("--command must not be empty", 2)
	}
	args := clients.DefaultArgs()
	if commandArgs.set {
		args = commandArgs.values
	}
	if all {
		return clients.WriteAll(c.App.Writer, command, args)
	}

	client, ok := clients.Lookup(names[0])
	if !ok {
		return cli.Exit(fmt.Sprintf("unknown client %q (known: %s)", names[0], known), 2)
	}
	if write {
		return writeConfig(c, client, command, args)
	}
	out, err := client.Render(command, args)
	if err != nil {
		return cli.Exit(err.Error(), 1)
	}
	_, err = c.App.Writer.Write(out)
	return err
}

func writeConfig(c *cli.Context, client clients.Client, command string, args []string) error {
	path := c.String("write")
	if path == "" {
		return cli.Exit("--write needs the path of the client's config file", 2)
	}
	changed, err := client.WriteFile(path, command, args)
	if err != nil {
		return cli.Exit(err.Error(), 1)
	}
	if changed {
		fmt.Fprintf(c.App.Writer, "set %s in %s\n", client.Entry, path)
	} else {
		fmt.Fprintf(c.App.Writer, "%s already has this %s; left it as it was\n", path, client.Entry)
	}
	return nil
}
