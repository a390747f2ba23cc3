package mcptest_test

import (
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/kontext-dev/kontext/internal/cli"
	"github.com/kontext-dev/kontext/internal/mcptest"
)

// TestMain runs the real command line, with the test kit toolset, as
// "kontext" in a process of its own.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"kontext": func() {
			os.Exit(cli.Main(os.Args, cli.Program{Toolsets: []cli.ToolsetFactory{mcptest.Factory()}}, os.Stdout, os.Stderr))
		},
	})
}

// TestScripts drives `kontext mcp`, `tools` and `call` as a shell would.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{Dir: "testdata/script"})
}
