package inventory_test

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"testing"

	ucli "github.com/urfave/cli/v2"

	"github.com/kontext-dev/kontext/internal/cli"
	"github.com/kontext-dev/kontext/internal/inventory"
)

// command is one command of the shipped command line and its path.
type command struct {
	path string // "hooks install"
	cmd  *ucli.Command
}

// commands lists every command of the shipped command line, groups and
// their subcommands alike, hidden ones left out.
func commands(t *testing.T) []command {
	t.Helper()
	app := cli.NewApp(inventory.Program(), io.Discard, io.Discard)
	var out []command
	var walk func(prefix string, cmds []*ucli.Command)
	walk = func(prefix string, cmds []*ucli.Command) {
		for _, c := range cmds {
			if c.Hidden {
				continue
			}
			path := strings.TrimSpace(prefix + " " + c.Name)
			out = append(out, command{path, c})
			walk(path, c.Subcommands)
		}
	}
	walk("", app.Commands)
	if len(out) < 30 {
		t.Fatalf("only %d commands", len(out))
	}
	return out
}

func run(args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	code = cli.Main(append([]string{"kontext"}, args...), inventory.Program(), &o, &e)
	return code, o.String(), e.String()
}

// Every command refuses arguments it does not take in the same words and
// with the same exit status, before it does anything: one more argument
// than its usage names (none for most).
func TestEveryCommandRefusesExtraArguments(t *testing.T) {
	t.Chdir(t.TempDir()) // not a repository: nothing may get as far as needing one
	checked := 0
	for _, c := range commands(t) {
		if len(c.cmd.Subcommands) > 0 || c.cmd.SkipFlagParsing || strings.Contains(c.cmd.ArgsUsage, "…") {
			continue // groups; kontext hooks run (git's arguments); kontext search (words)
		}
		takes := strings.Count(c.cmd.ArgsUsage, "<")
		args := strings.Fields(c.path)
		for i := 0; i <= takes; i++ {
			args = append(args, fmt.Sprintf("x%d", i+1))
		}
		code, stdout, stderr := run(args...)
		want := regexp.MustCompile(fmt.Sprintf(`^kontext: unexpected argument "x%d"; usage: kontext %s( \[options\])?( \[?<[^\n]+)?\n$`, takes+1, regexp.QuoteMeta(c.path)))
		if code != 2 || stdout != "" || !want.MatchString(stderr) {
			t.Errorf("kontext %s: exit %d, stdout %q, stderr %q; want exit 2 and %s", strings.Join(args, " "), code, stdout, stderr, want)
		}
		checked++
	}
	t.Logf("%d commands refuse an extra argument alike", checked)
}

// Every command the help lists is in one of the four categories, so the
// help never shows one on its own.
func TestEveryCommandHasACategory(t *testing.T) {
	categories := []string{cli.CategoryServing, cli.CategoryKnowledge, cli.CategoryRepository, cli.CategorySetup}
	app := cli.NewApp(inventory.Program(), io.Discard, io.Discard)
	for _, c := range app.Commands {
		if !c.Hidden && !slices.Contains(categories, c.Category) {
			t.Errorf("kontext %s has category %q, want one of %v", c.Name, c.Category, categories)
		}
	}
	code, stdout, _ := run("--help")
	for _, c := range app.Commands {
		if !c.Hidden && !regexp.MustCompile(`(?m)^   `+regexp.QuoteMeta(c.Name)+` `).MatchString(stdout) {
			t.Errorf("kontext --help does not list %s", c.Name)
		}
	}
	if code != 0 {
		t.Errorf("kontext --help: exit %d", code)
	}
}

// No help line contradicts itself or spells a long flag with one dash:
// every command's --help, checked line by line.
func TestHelpLinesAreConsistent(t *testing.T) {
	defaults := regexp.MustCompile(`\(default`)
	zero := regexp.MustCompile(`\(default: (false|0|""|\[\])\)`)
	oneDash := regexp.MustCompile(`(^|[ ,\[])-[a-z][a-z-]+`)
	for _, c := range append([]command{{path: ""}}, commands(t)...) {
		args := append(strings.Fields(c.path), "--help")
		code, stdout, stderr := run(args...)
		if code != 0 || stderr != "" {
			t.Errorf("kontext %s: exit %d, stderr %q", strings.Join(args, " "), code, stderr)
			continue
		}
		inOptions := false
		for _, line := range strings.Split(stdout, "\n") {
			if strings.HasSuffix(line, "OPTIONS:") {
				inOptions = true
				continue
			}
			if !inOptions || !strings.HasPrefix(line, "   -") {
				continue
			}
			if n := len(defaults.FindAllString(line, -1)); n > 1 {
				t.Errorf("kontext %s: %d defaults in %q", strings.Join(args, " "), n, line)
			}
			if zero.MatchString(line) {
				t.Errorf("kontext %s: a zero default in %q", strings.Join(args, " "), line)
			}
			flags, _, _ := strings.Cut(strings.TrimSpace(line), "  ")
			if oneDash.MatchString(" " + flags) {
				t.Errorf("kontext %s: a long flag with one dash in %q", strings.Join(args, " "), line)
			}
		}
	}
}
