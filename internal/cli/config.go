package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/kontext-dev/kontext/internal/clients"
	"github.com/kontext-dev/kontext/internal/git"
)

// argList collects --command-arg values as given. A StringSliceFlag would
// split "a,b" into two arguments, and a path may hold a comma.
type argList struct {
	values []string
	set    bool
}

func (a *argList) Set(v string) error {
	a.values = append(a.values, v)
	a.set = true
	return nil
}

func (a *argList) String() string { return strings.Join(a.values, " ") }

// writeTarget is --write: alone it writes the client's documented file,
// with a value (--write=FILE, or --write FILE, see resolveWritePath) the
// file named. It is a boolean flag to the flag parser, so that a bare
// --write does not swallow the argument after it.
type writeTarget struct {
	set  bool
	path string
}

func (w *writeTarget) Set(v string) error {
	switch v {
	case "true":
		w.set, w.path = true, ""
	case "false":
		w.set, w.path = false, ""
	default:
		w.set, w.path = true, v
	}
	return nil
}

func (w *writeTarget) String() string   { return w.path }
func (w *writeTarget) IsBoolFlag() bool { return true }

func configCommand(cm *completion) *cli.Command {
	commandArgs := &argList{}
	write := &writeTarget{}
	cmd := &cli.Command{
		Name:      "config",
		Category:  CategorySetup,
		Usage:     "connect an MCP client: print, write or add the entry that starts kontext",
		ArgsUsage: "<client>",
		Description: "Prints the value of the client's servers field holding only the kontext entry, in the format\n" +
			"that client's documentation gives. Nothing is written without --write.\n\n" +
			"   kontext config --list                       the clients, their files and one-liners\n" +
			"   kontext config cursor                       the entry for .cursor/mcp.json\n" +
			"   kontext config cursor --write               merge it into .cursor/mcp.json\n" +
			"   kontext config claude-desktop --write --absolute\n" +
			"   kontext config codex --command-line         codex mcp add kontext -- kontext mcp --root …\n" +
			"   kontext config vscode --link                vscode:mcp/install?…\n" +
			"   kontext config --write settings.json cline  merge into a file you name\n\n" +
			"The entry names the repository it serves (--root): in Cursor's and VS Code's project files\n" +
			"${workspaceFolder}, in other project files nothing (those clients start the server in the\n" +
			"project), in user files the absolute top level of the repository this runs in.",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "list", Usage: "list the supported clients, their files and one-liners"},
			&cli.BoolFlag{Name: "all", Usage: "print every client's entry, each after a header naming the client and its file"},
			&cli.StringFlag{Name: "scope", Usage: "the `SCOPE` of the client's file: project (the one in the repository) or user (the one in your home); the client's usual one by default (kontext config --list marks it)"},
			&cli.StringFlag{Name: "root", TakesFile: true, Usage: "the repository the server serves, passed as --root `DIR`; --root '' passes none"},
			&cli.BoolFlag{Name: "absolute", Usage: "run this kontext binary by its absolute path (desktop applications do not see your shell's PATH)"},
			&cli.StringFlag{Name: "name", Value: clients.ServerName, Usage: "the server's `NAME` in the client"},
			&cli.StringFlag{Name: "command", Value: clients.DefaultCommand, Usage: "the command the client runs"},
			&cli.GenericFlag{Name: "command-arg", Value: commandArgs, Usage: "an argument of the command; repeat it for more, in order (default mcp; any given replace it)"},
			&cli.GenericFlag{Name: "write", Value: write, TakesFile: true, Usage: "merge the entry into the client's file for --scope, keeping everything else in it; with a `FILE`, into that file instead (also --write FILE <client>)"},
			&cli.BoolFlag{Name: "file", Usage: "print a whole configuration file holding only the entry, to save as it is"},
			&cli.BoolFlag{Name: "command-line", Usage: "print the client's own command that adds the entry (claude, codex, gemini, code)"},
			&cli.BoolFlag{Name: "link", Usage: "print the client's install link (Cursor, VS Code)"},
		},
		Action: func(c *cli.Context) error { return runConfig(c, commandArgs, write) },
	}
	cm.args[cmd] = []argCompletion{{values: func() []string {
		var out []string
		for _, id := range clients.IDs() {
			cl, _ := clients.Lookup(id)
			out = append(out, id+"\t"+cl.Title)
		}
		return out
	}}}
	cm.flagValues(cmd, "scope", fixed(string(clients.Project), string(clients.User)))
	return cmd
}

// configRun is one `kontext config` invocation's choices.
type configRun struct {
	c     *cli.Context
	base  clients.Spec
	scope clients.Scope // "" when not asked for
	// root: explicit says --root was given, root is then its resolved value.
	explicit bool
	root     string
	repoTop  string
	repoErr  error
	repoDone bool
}

func runConfig(c *cli.Context, commandArgs *argList, write *writeTarget) error {
	names := c.Args().Slice()
	list, all := c.Bool("list"), c.Bool("all")
	writePath, names, err := resolveWritePath(write, names)
	if err != nil {
		return err
	}
	var modes []string
	if write.set {
		modes = append(modes, "--write")
	}
	for _, m := range []string{"file", "command-line", "link"} {
		if c.Bool(m) {
			modes = append(modes, "--"+m)
		}
	}
	known := strings.Join(clients.IDs(), ", ")
	switch {
	case list && (all || len(modes) > 0 || len(names) > 0):
		return cli.Exit("--list takes no client and no other mode", 2)
	case list:
		return clients.WriteList(c.App.Writer, displayEnv())
	case all && write.set:
		return cli.Exit("--write merges one client's entry: name the client instead of --all", 2)
	case all && len(modes) > 0:
		return cli.Exit(modes[0]+" is for one client: name it instead of --all", 2)
	case all && len(names) > 0:
		return cli.Exit("--all prints every client: name no client with it", 2)
	case len(modes) > 1:
		return cli.Exit(fmt.Sprintf("%s and %s do different things: choose one", modes[0], modes[1]), 2)
	case len(names) > 1 && strings.HasPrefix(names[1], "-"):
		return cli.Exit(fmt.Sprintf("flags go before the client: kontext config [flags] %s", names[0]), 2)
	case len(names) > 1:
		return UnexpectedArgs(c, names[1:])
	case len(names) == 0 && !all:
		return Missing(c, fmt.Sprintf("<client> (one of %s; kontext config --list describes them)", known))
	}

	run, err := newConfigRun(c, commandArgs)
	if err != nil {
		return err
	}
	if all {
		run.warnIfNotOnPath()
		return clients.WriteAll(c.App.Writer, displayEnv(), func(cl clients.Client) (clients.Spec, error) {
			return run.spec(cl, cl.DefaultScope)
		})
	}
	client, ok := clients.Lookup(names[0])
	if !ok {
		if write.set && looksLikePath(names[0]) {
			return cli.Exit(fmt.Sprintf("--write %s: name the client too: kontext config --write %s <client> (one of %s)", names[0], names[0], known), 2)
		}
		return cli.Exit(fmt.Sprintf("unknown client %q%s (known: %s)", names[0], didYouMean(names[0], clients.IDs(), quoted), known), 2)
	}
	run.warnIfNotOnPath()
	switch {
	case write.set:
		return run.write(client, writePath)
	case c.Bool("file"):
		return run.print(client, client.File)
	case c.Bool("command-line"):
		return run.commandLine(client)
	case c.Bool("link"):
		return run.link(client)
	}
	if client.Paste != "" {
		fmt.Fprintf(c.App.ErrWriter, "kontext: paste this into %s's %s\n", client.Title, client.Paste)
	}
	return run.print(client, client.Render)
}

// resolveWritePath takes --write's file from the arguments: `--write FILE
// client` reads, to the flag parser, as a bare --write and two arguments,
// one of which is a client.
func resolveWritePath(write *writeTarget, names []string) (string, []string, error) {
	if !write.set || write.path != "" || len(names) != 2 {
		return write.path, names, nil
	}
	_, first := clients.Lookup(names[0])
	_, second := clients.Lookup(names[1])
	switch {
	case second && !first:
		return names[0], names[1:], nil
	case first && !second:
		return names[1], names[:1], nil
	}
	return "", names, nil
}

func looksLikePath(s string) bool {
	return strings.ContainsAny(s, `./\`)
}

func newConfigRun(c *cli.Context, commandArgs *argList) (*configRun, error) {
	run := &configRun{c: c}
	name := c.String("name")
	if err := clients.CheckName(name); err != nil {
		return nil, cli.Exit(err.Error(), 2)
	}
	command := c.String("command")
	switch {
	case c.Bool("absolute") && c.IsSet("command"):
		return nil, cli.Exit("--absolute runs this kontext binary; --command names another command: give one of them", 2)
	case c.Bool("absolute"):
		exe, err := os.Executable()
		if err == nil {
			exe, err = filepath.EvalSymlinks(exe)
		}
		if err != nil {
			return nil, cli.Exit("--absolute: cannot tell where this kontext binary is: "+err.Error(), 1)
		}
		command = exe
		if isTemporaryBuild(exe) {
			fmt.Fprintf(c.App.ErrWriter, "kontext: warning: %s is a temporary build (go run) that will be gone; install kontext (go install ./cmd/kontext) and run this again\n", exe)
		}
	case command == "":
		return nil, cli.Exit("--command must not be empty", 2)
	}
	args := clients.DefaultArgs()
	if commandArgs.set {
		args = commandArgs.values
	}
	run.base = clients.Spec{Name: name, Command: command, Args: args}
	if c.IsSet("scope") {
		switch s := clients.Scope(c.String("scope")); s {
		case clients.Project, clients.User:
			run.scope = s
		default:
			return nil, cli.Exit(fmt.Sprintf("--scope %q: use project or user", c.String("scope")), 2)
		}
	}
	if c.IsSet("root") {
		run.explicit = true
		root, err := explicitRoot(c.String("root"))
		if err != nil {
			return nil, cli.Exit(err.Error(), 2)
		}
		run.root = root
	}
	return run, nil
}

// explicitRoot is --root DIR made absolute and checked; a client variable
// such as ${workspaceFolder} passes as it is, and an empty DIR passes none.
func explicitRoot(dir string) (string, error) {
	if dir == "" || strings.Contains(dir, "${") {
		return dir, nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("--root %s: %v", dir, err)
	}
	info, err := os.Stat(abs)
	if err != nil || !info.IsDir() {
		return "", fmt.Errorf("--root %s: not a directory", dir)
	}
	return abs, nil
}

// repo is the top level of the git work tree the entry is for: that of
// --root when it names a directory, else that of the working directory.
func (r *configRun) repo() (string, error) {
	if r.repoDone {
		return r.repoTop, r.repoErr
	}
	r.repoDone = true
	dir := r.root
	if !r.explicit || dir == "" || strings.Contains(dir, "${") {
		wd, err := os.Getwd()
		if err != nil {
			r.repoErr = err
			return "", err
		}
		dir = wd
	}
	repo, err := git.Open(context.Background(), dir)
	if err != nil {
		if errors.Is(err, git.ErrNotRepository) {
			r.repoErr = fmt.Errorf("%s is not in a git work tree", dir)
		} else {
			r.repoErr = err
		}
		return "", r.repoErr
	}
	defer repo.Close()
	r.repoTop = repo.Dir
	return r.repoTop, nil
}

// spec is the entry for cl in scope, with the scope's default root unless
// --root was given.
func (r *configRun) spec(cl clients.Client, scope clients.Scope) (clients.Spec, error) {
	s := r.base
	s.Scope = scope
	if r.explicit {
		s.Root = r.root
		return s, nil
	}
	switch cl.RootPolicy(scope) {
	case clients.RootVariable:
		s.Root = cl.WorkspaceVar
	case clients.RootRepository:
		top, err := r.repo()
		if err != nil {
			return s, cli.Exit(fmt.Sprintf("%s's %s configuration is global, so the entry names the repository it serves, but %v: run this in the repository, or pass --root DIR", cl.Title, scope, err), 1)
		}
		s.Root = top
	}
	return s, nil
}

func (r *configRun) scopeFor(cl clients.Client) clients.Scope {
	if r.scope != "" {
		return r.scope
	}
	return cl.DefaultScope
}

func (r *configRun) print(cl clients.Client, render func(clients.Spec) ([]byte, error)) error {
	scope := r.scopeFor(cl)
	if !cl.HasScope(scope) {
		return cli.Exit(cl.ScopeError(scope).Error(), 2)
	}
	s, err := r.spec(cl, scope)
	if err != nil {
		return err
	}
	out, err := render(s)
	if err != nil {
		return cli.Exit(err.Error(), 1)
	}
	_, err = r.c.App.Writer.Write(out)
	return err
}

func (r *configRun) commandLine(cl clients.Client) error {
	if !cl.HasCommandLine() {
		return cli.Exit(fmt.Sprintf("%s has no command that adds a server; kontext config %s --write writes its file", cl.Title, cl.ID), 2)
	}
	s, err := r.spec(cl, cl.CommandScope(r.scope))
	if err != nil {
		return err
	}
	argv, err := cl.CommandLine(s)
	if err != nil {
		return cli.Exit(err.Error(), 2)
	}
	_, err = fmt.Fprintln(r.c.App.Writer, clients.ShellJoin(argv))
	return err
}

func (r *configRun) link(cl clients.Client) error {
	if !cl.HasLink() {
		return cli.Exit(fmt.Sprintf("%s has no install link; kontext config %s --write writes its file", cl.Title, cl.ID), 2)
	}
	if r.scope == clients.Project {
		return cli.Exit("an install link adds the server to the user's configuration; --scope project does not apply (kontext config "+cl.ID+" --write writes the project file)", 2)
	}
	s, err := r.spec(cl, clients.User)
	if err != nil {
		return err
	}
	link, err := cl.Link(s)
	if err != nil {
		return cli.Exit(err.Error(), 1)
	}
	_, err = fmt.Fprintln(r.c.App.Writer, link)
	return err
}

func (r *configRun) write(cl clients.Client, path string) error {
	if !cl.Writable() {
		_, err := cl.Merge(nil, r.base)
		return cli.Exit(err.Error(), 2)
	}
	scope := r.scopeFor(cl)
	if !cl.HasScope(scope) {
		return cli.Exit(cl.ScopeError(scope).Error(), 2)
	}
	s, err := r.spec(cl, scope)
	if err != nil {
		return err
	}
	if path == "" {
		repo := ""
		if scope == clients.Project {
			if repo, err = r.repo(); err != nil {
				return cli.Exit(fmt.Sprintf("%s's project file goes at the top of the repository, but %v: run this in the repository, or name the file: --write=FILE", cl.Title, err), 1)
			}
		}
		env, err := clients.CurrentEnv()
		if err != nil && scope == clients.User {
			return cli.Exit(err.Error(), 1)
		}
		if path, err = cl.PathFor(s, repo, env); err != nil {
			return cli.Exit(err.Error(), 1)
		}
	}
	changed, err := cl.WriteFile(path, s)
	if err != nil {
		return cli.Exit(err.Error(), 1)
	}
	label := cl.EntryLabel(s)
	if changed {
		fmt.Fprintf(r.c.App.Writer, "set %s in %s\n", label, path)
	} else {
		fmt.Fprintf(r.c.App.Writer, "%s already has this %s; left it as it was\n", path, label)
	}
	return nil
}

// warnIfNotOnPath says, once, when the client would not find the command:
// an entry that cannot start is the commonest way connecting fails.
func (r *configRun) warnIfNotOnPath() {
	if r.base.Command != clients.DefaultCommand {
		return
	}
	if _, err := exec.LookPath(r.base.Command); err != nil {
		fmt.Fprintf(r.c.App.ErrWriter, "kontext: warning: %s is not on your PATH, so a client cannot start it: install it (go install ./cmd/kontext from the repository), or pass --absolute\n", r.base.Command)
	}
}

// isTemporaryBuild recognises the binaries go run and go test build in a
// go-build directory that is removed when they exit.
func isTemporaryBuild(exe string) bool {
	for _, dir := range strings.FieldsFunc(exe, func(r rune) bool { return r == '/' || r == '\\' }) {
		if digits, ok := strings.CutPrefix(dir, "go-build"); ok && digits != "" && strings.Trim(digits, "0123456789") == "" {
			return true
		}
	}
	return false
}

// displayEnv is the environment the list and headers show files in; a
// missing home directory shows as ~.
func displayEnv() clients.Env {
	env, err := clients.CurrentEnv()
	if err != nil {
		return clients.Env{OS: runtime.GOOS, Home: "~"}
	}
	return env
}
