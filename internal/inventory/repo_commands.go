package inventory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	kcli "github.com/kontext-dev/kontext/internal/cli"
	"github.com/kontext-dev/kontext/internal/fsroot"
	"github.com/kontext-dev/kontext/internal/repo"
	"github.com/kontext-dev/kontext/internal/repo/analyze"
	"github.com/kontext-dev/kontext/internal/repo/report"
)

// repoCommands are the repo toolset's commands for a person at a terminal:
// kontext analyze, kontext impact and kontext graph. They use the same engine as the
// tools, with its persistent cache (a second run checks fingerprints
// instead of re-reading the tree) and its progress line on a terminal.
func repoCommands() []*cli.Command {
	rootFlag := newRootFlag()
	jsonFlag := &cli.BoolFlag{Name: "json", Usage: "print JSON instead of text"}
	return []*cli.Command{
		{
			Name:     "analyze",
			Category: kcli.CategoryRepository,
			Usage:    "print the repository summary: languages, modules, entry points, dependencies, conventions, decisions, activity",
			Description: "Analyses the repository (incrementally, from the cache under .git/kontext when an earlier run left one) and prints\n" +
				"it at a glance. --json prints the whole knowledge graph.",
			Flags: []cli.Flag{rootFlag, &cli.BoolFlag{Name: "json", Usage: "print the whole graph as JSON"}},
			Action: func(c *cli.Context) error {
				return withSnapshot(c, func(snap *repo.Snapshot, _ string) error {
					if c.Bool("json") {
						return printJSON(c, snap.Graph)
					}
					return report.Summary(c.App.Writer, snap)
				})
			},
		},
		{
			Name:      "impact",
			Category:  kcli.CategoryRepository,
			Usage:     "print what a change to a file, directory or module would affect",
			ArgsUsage: "<path>",
			Flags: []cli.Flag{rootFlag, jsonFlag,
				&cli.IntFlag{Name: "max-files", Value: analyze.DefaultImpactFiles, Usage: "most affected files (and tests) listed"}},
			Action: func(c *cli.Context) error {
				if err := kcli.CheckArgs(c, 1); err != nil {
					return err
				}
				if c.NArg() == 0 {
					return kcli.Missing(c, "<path> (a file, directory or module)")
				}
				if c.Int("max-files") < 1 {
					return cli.Exit("--max-files must be at least 1", 2)
				}
				return withSnapshot(c, func(snap *repo.Snapshot, root string) error {
					target := impactTarget(root, c.Args().First())
					res, err := analyze.Impact(snap.Graph, target, c.Int("max-files"))
					if errors.Is(err, analyze.ErrUnknownTarget) {
						return cli.Exit(fmt.Sprintf("%s is no file, directory or module of %s", target, root), 1)
					}
					if err != nil {
						return err
					}
					if c.Bool("json") {
						return printJSON(c, res)
					}
					return report.Impact(c.App.Writer, res)
				})
			},
		},
		graphCommand(rootFlag),
	}
}

// withSnapshot analyses the chosen root with a one-shot engine and hands
// the result to use.
func withSnapshot(c *cli.Context, use func(snap *repo.Snapshot, root string) error) error {
	choice, err := kcli.Root(c)
	if err != nil {
		return err
	}
	root, err := fsroot.Open(choice.Dir)
	if err != nil {
		return fmt.Errorf("%s (from %s)", err, choice.Source)
	}
	return withCommandEngine(c, func(ctx context.Context, e *repo.Engine) error {
		snap, err := e.Snapshot(ctx, root.Dir())
		if err != nil {
			if errors.Is(err, context.Canceled) {
				return err
			}
			return fmt.Errorf("analysing %s: %w", root.Dir(), err)
		}
		return use(snap, root.Dir())
	})
}

// impactTarget turns a command-line path into what Impact takes: a path
// relative to the root. A path that exists relative to the working
// directory is taken from there (kontext impact ./order.ts inside src/);
// anything else is passed as written (a module id or a package name).
func impactTarget(root, arg string) string {
	candidate := arg
	if !filepath.IsAbs(candidate) {
		if wd, err := os.Getwd(); err == nil {
			if _, err := os.Lstat(filepath.Join(wd, arg)); err == nil {
				candidate = filepath.Join(wd, arg)
			}
		}
	}
	if filepath.IsAbs(candidate) {
		if real, err := filepath.EvalSymlinks(candidate); err == nil {
			candidate = real
		}
		if rel, err := filepath.Rel(root, candidate); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return filepath.ToSlash(rel)
		}
	}
	return filepath.ToSlash(arg)
}

func printJSON(c *cli.Context, v any) error {
	enc := json.NewEncoder(c.App.Writer)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
