package cli

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/kontext-dev/kontext/internal/gittest"
)

// TestMain lets the scripts run the real command line as "kontext",
// in a process of its own, exactly as a shell would.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"kontext": func() { os.Exit(Main(os.Args, Program{}, os.Stdout, os.Stderr)) },
	})
}

var updateScripts = flag.Bool("update", false, "rewrite the scripts' cmp files with what the commands printed")

func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:           "testdata/script",
		UpdateScripts: *updateScripts,
		Setup: func(env *testscript.Env) error {
			// A home of the script's own, for the clients' user files.
			home := filepath.Join(env.WorkDir, "home")
			env.Setenv("HOME", home)
			env.Setenv("XDG_CONFIG_HOME", "")
			env.Setenv("CODEX_HOME", "")
			gittest.Setenv(env.Setenv)
			return os.MkdirAll(home, 0o755)
		},
	})
}

// A client cannot start a command it cannot find: kontext config says so
// when kontext is not on PATH, and not when it is.
func TestConfigWarnsWhenKontextIsNotOnPath(t *testing.T) {
	empty := t.TempDir()
	t.Setenv("PATH", empty)
	var stdout, stderr bytes.Buffer
	if code := Main([]string{"kontext", "config", "cursor"}, Program{}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "kontext: warning: kontext is not on your PATH, so a client cannot start it") {
		t.Errorf("no warning on stderr: %q", stderr.String())
	}
	if !strings.Contains(stdout.String(), `"command": "kontext"`) {
		t.Errorf("the entry was not printed: %s", stdout.String())
	}

	exe := filepath.Join(empty, "kontext")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	stderr.Reset()
	Main([]string{"kontext", "config", "cursor"}, Program{}, &stdout, &stderr)
	if stderr.Len() > 0 {
		t.Errorf("a warning although kontext is on PATH: %q", stderr.String())
	}
}

func TestIsTemporaryBuild(t *testing.T) {
	for exe, want := range map[string]bool{
		"/tmp/go-build3817/b001/exe/kontext":      true,
		`C:\Temp\go-build12\b001\exe\kontext.exe`: true,
		"/home/ada/go/bin/kontext":                false,
		"/usr/local/bin/go-builder-kontext":       false,
	} {
		if got := isTemporaryBuild(exe); got != want {
			t.Errorf("isTemporaryBuild(%s) = %v", exe, got)
		}
	}
}
