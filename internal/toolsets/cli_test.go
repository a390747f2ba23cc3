package toolsets_test

import (
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/kontext-dev/kontext/internal/cli"
	"github.com/kontext-dev/kontext/internal/toolsets"
)

// TestMain runs the shipped command line as "kontext" in a process of its
// own, as a shell would.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"kontext": func() { os.Exit(cli.Main(os.Args, toolsets.Program(), os.Stdout, os.Stderr)) },
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
	})
}
