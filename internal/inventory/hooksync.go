package inventory

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"

	"github.com/urfave/cli/v2"

	kcli "github.com/kontext-dev/kontext/internal/cli"
	"github.com/kontext-dev/kontext/internal/knowledge"
)

// syncLogLimit bounds the background deliveries' log: past it, the log
// starts over.
const syncLogLimit = 256 << 10

// hooksSyncCommand delivers the sync event: what the post-commit,
// post-merge and post-rewrite hooks start in the background (with --log),
// and what a person runs to deliver a commit's knowledge again.
func hooksSyncCommand() *cli.Command {
	return &cli.Command{
		Name:      "sync",
		Usage:     "deliver the knowledge a commit changed to the adapters that subscribe to the sync event (the post-commit, post-merge and post-rewrite hooks start it in the background)",
		ArgsUsage: "[<commit>]",
		Flags: []cli.Flag{
			newRootFlag(),
			&cli.StringFlag{Name: "base", Usage: "compare with this commit instead of the commit's first parent", Value: ""},
			&cli.StringFlag{Name: "log", Usage: "append what happened to this file instead of printing it (the hooks' background run)", Value: ""},
			&cli.BoolFlag{Name: "once", Usage: "leave out the versions of entries that a sync delivered already (the hooks' runs: a commit and its amend, a rebase and its picks)"},
		},
		Action: func(c *cli.Context) error {
			if err := kcli.CheckArgs(c, 1); err != nil {
				return err
			}
			rev := c.Args().First()
			if rev == "" {
				rev = "HEAD"
			}
			choice, err := kcli.WorkTree(c)
			if err != nil {
				return err
			}
			out := c.App.Writer
			if path := c.String("log"); path != "" {
				f, err := openSyncLog(path)
				if err != nil {
					return err
				}
				defer f.Close()
				out = f
			}
			svc := knowledge.NewService(choice.Dir)
			defer svc.Close()
			done, err := svc.DeliverSync(c.Context, c.String("base"), rev, c.Bool("once"))
			if err != nil {
				if c.String("log") == "" {
					return cli.Exit(fmt.Sprintf("sync %s: %v", rev, err), 1)
				}
				fmt.Fprintf(out, "sync %s: %v\n", rev, err)
				return cli.Exit("", 1)
			}
			return reportSync(out, rev, done)
		},
	}
}

func reportSync(w io.Writer, rev string, done []knowledge.SyncDelivery) error {
	failed := 0
	n := 0
	for _, d := range done {
		if d.Again {
			fmt.Fprintf(w, "sync %s: %s delivered already\n", rev, d.Entry.ID)
			continue
		}
		for _, dl := range d.Deliveries {
			n++
			if dl.Err != nil {
				failed++
				fmt.Fprintf(w, "sync %s: %s → %s.%s failed: %s\n", rev, d.Entry.ID, dl.Adapter, dl.Op, knowledge.OneParagraph(dl.Err.Error(), 300))
				continue
			}
			fmt.Fprintf(w, "sync %s: %s → %s.%s\n", rev, d.Entry.ID, dl.Adapter, dl.Op)
		}
	}
	if n == 0 && !slices.ContainsFunc(done, func(d knowledge.SyncDelivery) bool { return d.Again }) {
		fmt.Fprintf(w, "sync %s: no adapter subscribes to the knowledge it changed (%d entries)\n", rev, len(done))
	}
	if failed > 0 {
		return cli.Exit("", 1)
	}
	return nil
}

func openSyncLog(path string) (*os.File, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	flags := os.O_CREATE | os.O_WRONLY | os.O_APPEND
	if fi, err := os.Stat(path); err == nil && fi.Size() > syncLogLimit {
		flags |= os.O_TRUNC
	}
	return os.OpenFile(path, flags, 0o600)
}

// startSync is the hooks' Options.StartSync: it starts `kontext hooks
// sync` for the range in a process of its own, which outlives the hook,
// and does not wait for it.
func startSync(dir string) func(base, rev, logPath string) error {
	return func(base, rev, logPath string) error {
		exe, err := os.Executable()
		if err != nil {
			return err
		}
		args := []string{"hooks", "sync", "--once", "--root", dir, "--log", logPath}
		if base != "" {
			args = append(args, "--base", base)
		}
		cmd := exec.Command(exe, append(args, rev)...)
		cmd.Dir = dir
		// The hook's GOGC=off suits its milliseconds, not a delivery
		// that may run for seconds.
		cmd.Env = append(os.Environ(), "GOGC=100")
		detach(cmd)
		if err := cmd.Start(); err != nil {
			return err
		}
		return errors.Join(cmd.Process.Release())
	}
}
