package inventory_test

import (
	"errors"
	"os"
	"os/exec"
	"strconv"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/kontext-dev/kontext/internal/cli"
	"github.com/kontext-dev/kontext/internal/inventory"
)

// TestMain runs the shipped command line as "kontext" in a process of its
// own, as a shell would.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"kontext": func() { os.Exit(cli.Main(os.Args, inventory.Program(), os.Stdout, os.Stderr)) },
	})
}

// TestScripts drives the knowledge verbs on real git repositories.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			env.Setenv("KONTEXT_CONFIG_DIR", env.WorkDir+"/.userconfig")
			env.Setenv("GIT_AUTHOR_NAME", "Ada")
			env.Setenv("GIT_AUTHOR_EMAIL", "ada@example.com")
			env.Setenv("GIT_COMMITTER_NAME", "Ada")
			env.Setenv("GIT_COMMITTER_EMAIL", "ada@example.com")
			env.Setenv("HOME", env.WorkDir)
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){"exits": exits},
	})
}

// exits N program args… runs the program like exec and fails unless it
// exits with status N; stdout and stderr are kept for the next checks.
func exits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits STATUS program [args...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exits: %v", err)
	}
	got := 0
	if err := ts.Exec(args[1], args[2:]...); err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			ts.Fatalf("exits: %v", err)
		}
		got = exit.ExitCode()
	}
	if got != want {
		ts.Fatalf("exit status %d, want %d", got, want)
	}
}
