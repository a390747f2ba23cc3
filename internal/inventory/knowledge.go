package inventory

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	spec "github.com/kontext-dev/kontext/gen/toolsets/knowledge"
	"github.com/kontext-dev/kontext/gen/toolsets/knowledge/flags"
	kcli "github.com/kontext-dev/kontext/internal/cli"
	"github.com/kontext-dev/kontext/internal/fsroot"
	"github.com/kontext-dev/kontext/internal/git"
	"github.com/kontext-dev/kontext/internal/knowledge"
	"github.com/kontext-dev/kontext/internal/knowledge/hooks"
	knowledgetools "github.com/kontext-dev/kontext/internal/knowledge/tools"
	"github.com/kontext-dev/kontext/internal/mcp"
)

// Knowledge is the knowledge toolset (seeds/004).
func Knowledge() kcli.ToolsetFactory {
	return kcli.ToolsetFactory{
		Name:        spec.Name,
		Description: spec.Description,
		Describe:    func() *mcp.Toolset { return spec.Toolset(nil) },
		Open: func(root *fsroot.Root) (*mcp.Toolset, func(*mcp.Server), error) {
			svc := knowledge.NewService(root.Dir())
			svc.Engine = sharedEngine()
			h := knowledgetools.New(svc)
			ts := h.Toolset()
			ts.OnServe = h.Serve
			ts.Close = func() error {
				h.Close()
				return svc.Close()
			}
			return ts, h.Attach, nil
		},
		Flags:         flags.Flags,
		Category:      kcli.CategoryKnowledge,
		NeedsWorkTree: true,
		Verbs: []kcli.Verb{
			{Name: "brief", Tool: "ctx_brief", Usage: "the team's context for this repository"},
			{Name: "search", Tool: "ctx_search", Args: []string{"query"}, Words: true, Usage: "search decisions, conventions, learnings, incidents, docs and commits"},
			{Name: "read", Tool: "ctx_read", Args: []string{"uri"}, Paths: true, Usage: "read kx:<id>, file:<path>[#section], git:<sha>, inbox:<id> or a path"},
			{Name: "why", Tool: "ctx_why", Args: []string{"target"}, Paths: true, Usage: "why a path, a line, a commit or a symbol is the way it is"},
			{Name: "log", Tool: "ctx_log", Usage: "the timeline of one kind of entry", Values: map[string][]string{"kind": entryKinds}},
			{Name: "capture", Tool: "ctx_capture", Args: []string{"kind", "title"}, Usage: "capture a decision, convention, learning or incident", Values: map[string][]string{"kind": entryKinds}},
			{Name: "inbox", Tool: "ctx_inbox", Usage: "list, show, promote or drop captured candidates"},
			{Name: "prepare-commit", Tool: "ctx_prepare_commit", Usage: "promote and drop candidates, stage the knowledge, report on the change"},
		},
		Commands: append([]*cli.Command{settingsCommand(), checkCommand(), statusCommand(), hooksCommand(), adaptersCommand(), trustCommand()}, bootstrapCommands()...),
		Args: map[string][]kcli.Arg{
			"hooks run": {{Values: func() []string { return hooks.Names }}},
		},
	}
}

// entryKinds are what kontext capture and log complete a kind to: the
// four kinds of entry (the store takes aliases too).
var entryKinds = []string{"decision", "convention", "learning", "incident"}

// settingsCommand prints the effective knowledge configuration and the file
// each value comes from. Named so that it cannot be taken for the client
// presets of `kontext config <client>`.
func settingsCommand() *cli.Command {
	return &cli.Command{
		Name:     "settings",
		Category: kcli.CategoryKnowledge,
		Usage:    "print the effective knowledge configuration and where each value comes from",
		Flags:    []cli.Flag{newRootFlag()},
		Action: func(c *cli.Context) error {
			if _, err := kcli.WorkTree(c); err != nil {
				return err
			}
			text, err := knowledge.Settings(c.Context, c.String("root"))
			if err != nil {
				return err
			}
			fmt.Fprint(c.App.Writer, text)
			return nil
		},
	}
}

// hooksCommand installs, removes and inspects the git hooks, and is what
// the hooks call (kontext hooks run <hook>).
func hooksCommand() *cli.Command {
	rootFlag := newRootFlag()
	withRepo := func(c *cli.Context, f func(context.Context, *git.Repo) error) error {
		choice, err := kcli.WorkTree(c)
		if err != nil {
			return err
		}
		repo, err := git.Open(c.Context, choice.Dir)
		if err != nil {
			return err
		}
		defer repo.Close()
		return f(c.Context, repo)
	}
	return &cli.Command{
		Name:     "hooks",
		Category: kcli.CategorySetup,
		Usage:    "install, remove or inspect the git hooks that check and link the team's knowledge",
		Subcommands: []*cli.Command{
			hooksSyncCommand(),
			{
				Name:  "install",
				Usage: "add kontext's block to pre-commit, prepare-commit-msg, post-commit, post-merge and post-rewrite (existing hooks are kept)",
				Flags: []cli.Flag{rootFlag},
				Action: func(c *cli.Context) error {
					return withRepo(c, func(ctx context.Context, repo *git.Repo) error {
						return installHooks(ctx, repo, c.App.Writer)
					})
				},
			},
			{
				Name:  "uninstall",
				Usage: "remove kontext's block from the hooks (and put chained hooks back)",
				Flags: []cli.Flag{rootFlag},
				Action: func(c *cli.Context) error {
					return withRepo(c, func(ctx context.Context, repo *git.Repo) error {
						r, err := hooks.Uninstall(ctx, repo)
						fmt.Fprint(c.App.Writer, r.String())
						return err
					})
				},
			},
			{
				Name:            "run",
				Usage:           "run one hook's checks (what the installed hooks call): kontext hooks run <hook> [<git's arguments>]",
				ArgsUsage:       "<hook> [args…]",
				SkipFlagParsing: true,
				Action: func(c *cli.Context) error {
					if c.NArg() == 0 {
						return kcli.Missing(c, "<hook> ("+strings.Join(hooks.Names, ", ")+")")
					}
					// Its flags are git's arguments, but not a first --help.
					if first := c.Args().First(); first == "--help" || first == "-h" {
						cli.HelpPrinter(c.App.Writer, cli.CommandHelpTemplate, c.Command)
						return nil
					}
					if !slices.Contains(hooks.Names, c.Args().First()) {
						return kcli.UnknownValue(c, "hook", c.Args().First(), hooks.Names)
					}
					// The hook's repository is the one git runs it in, whatever
					// KONTEXT_ROOT says.
					wd, err := os.Getwd()
					if err != nil {
						return err
					}
					args := c.Args().Slice()
					code := hooks.Run(c.Context, wd, args[0], args[1:], hooks.Options{Stdout: c.App.Writer, Stderr: c.App.ErrWriter, StartSync: startSync(wd)})
					if code != 0 {
						return cli.Exit("", code)
					}
					return nil
				},
			},
			{
				Name:  "status",
				Usage: "say which hooks carry kontext's block",
				Flags: []cli.Flag{rootFlag},
				Action: func(c *cli.Context) error {
					return withRepo(c, func(ctx context.Context, repo *git.Repo) error {
						st, err := hooks.Inspect(ctx, repo)
						if err != nil {
							return err
						}
						fmt.Fprint(c.App.Writer, st.String())
						return nil
					})
				},
			},
		},
	}
}

// installHooks installs the git hooks and prints what it did (kontext
// hooks install, and the last step of kontext init).
func installHooks(ctx context.Context, repo *git.Repo, w io.Writer) error {
	r, err := hooks.Install(ctx, repo, hooks.Binary())
	if len(r.Hooks) > 0 {
		fmt.Fprint(w, r.String())
	}
	return err
}

// checkCommand validates the knowledge store (or what is staged of it) and
// exits 1 when it finds errors.
func checkCommand() *cli.Command {
	return &cli.Command{
		Name:     "check",
		Category: kcli.CategoryKnowledge,
		Usage:    "validate the knowledge store and scan it for secrets (exit status 1 on errors)",
		Flags: []cli.Flag{
			newRootFlag(),
			&cli.BoolFlag{Name: "staged", Usage: "check the staged knowledge, as the pre-commit hook does"},
		},
		Action: func(c *cli.Context) error {
			if _, err := kcli.WorkTree(c); err != nil {
				return err
			}
			errs, err := knowledge.Check(c.Context, c.String("root"), c.Bool("staged"), c.App.Writer)
			if err != nil {
				return err
			}
			if errs > 0 {
				return cli.Exit("", 1)
			}
			return nil
		},
	}
}

// statusCommand prints one screen on the repository's knowledge.
func statusCommand() *cli.Command {
	return &cli.Command{
		Name:     "status",
		Category: kcli.CategoryKnowledge,
		Usage:    "the store, the inbox, stale decisions, problems, the hooks and the bootstrap, on one screen",
		Flags:    []cli.Flag{newRootFlag()},
		Action: func(c *cli.Context) error {
			if _, err := kcli.WorkTree(c); err != nil {
				return err
			}
			text, err := knowledge.Status(c.Context, c.String("root"))
			if err != nil {
				return err
			}
			fmt.Fprintln(c.App.Writer, text)
			return nil
		},
	}
}
