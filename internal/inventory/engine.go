package inventory

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/urfave/cli/v2"

	"github.com/kontext-dev/kontext/internal/repo"
)

// sharedEngine is the one repository engine of a kontext mcp process: the
// repo toolset and the knowledge bootstrap analyse with it, so a
// repository is analysed (and watched) once however many tools ask.
var sharedEngine = sync.OnceValue(func() *repo.Engine { return repo.NewEngine(repo.Options{}) })

// withCommandEngine runs a command that analyses the repository once, with
// an engine of its own: no watcher (one call would only pay for its set-up),
// warnings only on stderr, and closed before the process ends so that the
// persistent cache is written for the next command. Ctrl-C cancels the
// work, which leaves the cache as it was, and exits 130.
func withCommandEngine(c *cli.Context, run func(ctx context.Context, e *repo.Engine) error) error {
	ctx, stop := signal.NotifyContext(c.Context, os.Interrupt, syscall.SIGTERM)
	defer stop()
	e := repo.NewEngine(repo.Options{
		Detect: repo.DetectSweep,
		Logger: slog.New(slog.NewTextHandler(c.App.ErrWriter, &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
	err := run(ctx, e)
	e.Close()
	if err != nil && errors.Is(err, context.Canceled) && ctx.Err() != nil {
		return cli.Exit("interrupted", 130)
	}
	return err
}
