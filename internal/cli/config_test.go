package cli

import (
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets the scripts run the real command line as "kontext",
// in a process of its own, exactly as a shell would.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"kontext": func() { os.Exit(Main(os.Args, Program{}, os.Stdout, os.Stderr)) },
	})
}

func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{Dir: "testdata/script"})
}
