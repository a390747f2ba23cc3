package inventory

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	kcli "github.com/kontext-dev/kontext/internal/cli"
	"github.com/kontext-dev/kontext/internal/clients"
	"github.com/kontext-dev/kontext/internal/fsroot"
	"github.com/kontext-dev/kontext/internal/git"
	"github.com/kontext-dev/kontext/internal/knowledge/bootstrap"
	"github.com/kontext-dev/kontext/internal/knowledge/config"
	"github.com/kontext-dev/kontext/internal/knowledge/local"
	"github.com/kontext-dev/kontext/internal/repo"
)

// bootstrapCommands are the steps of the knowledge bootstrap, each a
// command: init runs scan → history → render → hooks.
func bootstrapCommands() []*cli.Command {
	rootFlag := newRootFlag()
	return []*cli.Command{
		{
			Name:     "init",
			Category: kcli.CategorySetup,
			Usage:    "set up the team's knowledge store: scan, history, render, then install the git hooks",
			Flags:    []cli.Flag{rootFlag, &cli.BoolFlag{Name: "no-hooks", Usage: "do not install the git hooks"}},
			Action: pipelineAction(func(ctx context.Context, c *cli.Context, p *bootstrap.Pipeline) error {
				branch, err := p.StoreElsewhere(ctx)
				if err != nil {
					return err
				}
				if branch != "" {
					return cli.Exit(fmt.Sprintf("the team's knowledge lives on branch %s (it has %s/): check it out or merge it instead of starting a second store", branch, p.Store.Dir()), 1)
				}
				written, err := p.Bootstrap(ctx)
				if err != nil {
					return err
				}
				printWritten(c.App.Writer, written)
				if !c.Bool("no-hooks") {
					if err := installHooks(ctx, p.Git, c.App.Writer); err != nil {
						return err
					}
				}
				fmt.Fprintf(c.App.Writer, "Next: ask your agent to run ctx_init (the prompt kontext-init) to deepen it; review and commit %s/.\n", p.Store.Dir())
				fmt.Fprintln(c.App.Writer, clients.ConnectHint(p.Git.Dir, os.Getenv))
				return nil
			}),
		},
		{
			Name:     "scan",
			Category: kcli.CategorySetup,
			Usage:    "scan the repository for the bootstrap (languages, manifests, modules, ADRs, agent rules)",
			Flags:    []cli.Flag{rootFlag},
			Action: pipelineAction(func(ctx context.Context, c *cli.Context, p *bootstrap.Pipeline) error {
				s, err := p.Scan(ctx)
				if err != nil {
					return err
				}
				w := c.App.Writer
				fmt.Fprintf(w, "%s: %d files, stack: %s\n", s.Project, s.Files, strings.Join(s.Stack, ", "))
				for _, m := range bootstrap.TopModules(s, p.Config.Init.MaxModuleDocs) {
					kind := "inferred"
					if m.Declared {
						kind = "declared"
					}
					fmt.Fprintf(w, "  %-32s %-9s %5d files  %s\n", m.ID, kind, m.Files, oneLine(m.Description, 60))
				}
				return nil
			}),
		},
		{
			Name:     "history",
			Category: kcli.CategorySetup,
			Usage:    "score the history for decisions and cluster them per module",
			Flags:    []cli.Flag{rootFlag},
			Action: pipelineAction(func(ctx context.Context, c *cli.Context, p *bootstrap.Pipeline) error {
				s, err := p.Scan(ctx)
				if err != nil {
					return err
				}
				h, err := p.History(ctx, s)
				if err != nil {
					return err
				}
				fmt.Fprintf(c.App.Writer, "%d commits (%d by bots or dependency bumps, not scored); %d decision clusters\n", h.Commits, h.Automated, len(h.Clusters))
				for _, cl := range h.Clusters {
					fmt.Fprintf(c.App.Writer, "  dec:%-30s %2d commits  score %.0f\n", cl.Area, len(cl.Commits), cl.Score)
				}
				return nil
			}),
		},
		{
			Name:     "render",
			Category: kcli.CategorySetup,
			Usage:    "write the store's generated files (facts between the kontext:facts markers only)",
			Flags:    []cli.Flag{rootFlag},
			Action: pipelineAction(func(ctx context.Context, c *cli.Context, p *bootstrap.Pipeline) error {
				written, err := p.Bootstrap(ctx)
				if err != nil {
					return err
				}
				printWritten(c.App.Writer, written)
				return nil
			}),
		},
	}
}

// openPipeline opens the bootstrap of the repository the flags name, with
// progress on a terminal. The caller closes p.Git.
func openPipeline(ctx context.Context, c *cli.Context, engine *repo.Engine) (p *bootstrap.Pipeline, err error) {
	choice, err := kcli.WorkTree(c)
	if err != nil {
		return nil, err
	}
	gitRepo, err := git.Open(ctx, choice.Dir)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			gitRepo.Close()
		}
	}()
	root, err := fsroot.Open(gitRepo.Dir)
	if err != nil {
		return nil, err
	}
	cfg, err := config.Load(ctx, gitRepo, config.Options{})
	if err != nil {
		return nil, err
	}
	state, err := local.Open(ctx, gitRepo, cfg)
	if err != nil {
		return nil, err
	}
	p = bootstrap.NewPipeline(root, state, engine)
	if f, ok := c.App.ErrWriter.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		p.Progress = func(step string, n, of int, detail string, took time.Duration) {
			fmt.Fprintf(f, "[%d/%d] %s: %s (%s)\n", n, of, step, detail, took.Round(time.Millisecond))
		}
	}
	return p, nil
}

// pipelineAction runs a bootstrap command with a one-shot engine.
func pipelineAction(run func(ctx context.Context, c *cli.Context, p *bootstrap.Pipeline) error) cli.ActionFunc {
	return func(c *cli.Context) error {
		return withCommandEngine(c, func(ctx context.Context, e *repo.Engine) error {
			p, err := openPipeline(ctx, c, e)
			if err != nil {
				return err
			}
			// The git cat-file process BranchWithStore (init) reads
			// objects through ends with the command.
			defer p.Git.Close()
			return run(ctx, c, p)
		})
	}
}

func printWritten(w io.Writer, written []string) {
	if len(written) == 0 {
		fmt.Fprintln(w, "Nothing to write: the store is up to date.")
		return
	}
	fmt.Fprintf(w, "Wrote %d file(s):\n", len(written))
	for _, f := range written {
		fmt.Fprintln(w, "  "+f)
	}
}

// oneLine puts s on one line, cut to max characters (not bytes: a cut
// never splits a UTF-8 sequence) and "…".
func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) > max {
		s = string([]rune(s)[:max]) + "…"
	}
	return s
}
