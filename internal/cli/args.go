package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/kontext-dev/kontext/internal/fsroot"
	"github.com/kontext-dev/kontext/internal/git"
)

// UsageLine is how a command is called, as its help's USAGE says:
// "kontext impact [options] <path>".
func UsageLine(cmd *cli.Command) string {
	if cmd.UsageText != "" {
		return cmd.UsageText
	}
	return usageLine(cmd.HelpName, cmd)
}

func usageLine(path string, cmd *cli.Command) string {
	line := path
	if len(cmd.Subcommands) > 0 {
		line += " <command>"
	}
	if len(visibleFlags(cmd)) > 0 {
		line += " [options]"
	}
	if cmd.ArgsUsage != "" {
		line += " " + cmd.ArgsUsage
	}
	return line
}

func visibleFlags(cmd *cli.Command) []cli.Flag {
	var out []cli.Flag
	for _, f := range cmd.Flags {
		if v, ok := f.(cli.VisibleFlag); ok && !v.IsVisible() {
			continue
		}
		out = append(out, f)
	}
	return out
}

// CheckArgs refuses positional arguments past the first max, in the one
// wording every command uses, with exit status 2.
func CheckArgs(c *cli.Context, max int) error {
	if c.NArg() <= max {
		return nil
	}
	return UnexpectedArgs(c, c.Args().Slice()[max:])
}

// UnexpectedArgs is the error for arguments a command does not take.
func UnexpectedArgs(c *cli.Context, extra []string) error {
	q := make([]string, len(extra))
	for i, a := range extra {
		q[i] = fmt.Sprintf("%q", a)
	}
	noun := "argument"
	if len(extra) > 1 {
		noun = "arguments"
	}
	return cli.Exit(fmt.Sprintf("unexpected %s %s; usage: %s", noun, strings.Join(q, ", "), UsageLine(c.Command)), 2)
}

// Missing is the error for a command called without what it needs
// (<path>, --body), with exit status 2.
func Missing(c *cli.Context, what ...string) error {
	return cli.Exit(fmt.Sprintf("missing %s; usage: %s", joinAnd(what), UsageLine(c.Command)), 2)
}

func joinAnd(items []string) string {
	if len(items) <= 1 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// Root is the directory a command works on (--root, else KONTEXT_ROOT,
// else AGENT_CONTEXT_ROOT, else the working directory), checked to be a
// directory. Its error names where the directory came from, in CLI terms.
func Root(c *cli.Context) (fsroot.Choice, error) {
	choice, err := fsroot.Choose(c.String("root"), os.Getenv)
	if err != nil {
		return choice, err
	}
	info, err := os.Stat(choice.Dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return choice, cli.Exit(fmt.Sprintf("%s: no such directory", rootLabel(choice)), 1)
	case err != nil:
		return choice, cli.Exit(fmt.Sprintf("%s: %v", rootLabel(choice), errors.Unwrap(err)), 1)
	case !info.IsDir():
		return choice, cli.Exit(fmt.Sprintf("%s: not a directory", rootLabel(choice)), 1)
	}
	return choice, nil
}

// rootLabel names a chosen root as the user gave it: "--root x",
// "KONTEXT_ROOT=x", or the directory itself.
func rootLabel(choice fsroot.Choice) string {
	switch choice.Source {
	case "--root":
		return "--root " + choice.Dir
	case "working directory":
		return choice.Dir
	}
	return choice.Source + "=" + choice.Dir
}

// WorkTree checks that the command's root (see Root) is inside a git work
// tree and returns the chosen root. Outside one, every command that needs
// one says the same line, with exit status 1.
func WorkTree(c *cli.Context) (fsroot.Choice, error) {
	choice, err := Root(c)
	if err != nil {
		return choice, err
	}
	repo, err := git.Open(context.Background(), choice.Dir)
	if errors.Is(err, git.ErrNotRepository) {
		return choice, NotInWorkTree(choice)
	}
	if err != nil {
		return choice, err
	}
	repo.Close()
	return choice, nil
}

// NotInWorkTree is the one error for a command run outside a git work tree.
func NotInWorkTree(choice fsroot.Choice) error {
	where := choice.Dir
	if choice.Source != "working directory" {
		where = rootLabel(choice)
	}
	return cli.Exit(fmt.Sprintf("%s is not in a git work tree: run kontext in a repository, or name one with --root DIR", where), 1)
}

// UnknownValue is the error for an argument that names none of the values
// a command knows (kontext hooks run nope): the closest ones when one is
// close, else all of them, with exit status 2.
func UnknownValue(c *cli.Context, noun, typed string, known []string) error {
	if hint := didYouMean(typed, known, quoted); hint != "" {
		return cli.Exit(fmt.Sprintf("unknown %s %q%s", noun, typed, hint), 2)
	}
	return cli.Exit(fmt.Sprintf("unknown %s %q (one of %s); usage: %s", noun, typed, strings.Join(known, ", "), UsageLine(c.Command)), 2)
}
