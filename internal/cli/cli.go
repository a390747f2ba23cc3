// Package cli is kontext's command line (urfave/cli/v2): `kontext mcp` and
// the verbs around it. cmd/kontext only hands it the toolsets to ship.
package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"github.com/kontext-dev/kontext/internal/fsroot"
	"github.com/kontext-dev/kontext/internal/git"
	"github.com/kontext-dev/kontext/internal/mcp"
)

// Version is the kontext version, set at build time with
// -ldflags "-X github.com/kontext-dev/kontext/internal/cli.Version=…".
var Version = defaultVersion

// ToolsetFactory builds one toolset for a repository root.
type ToolsetFactory struct {
	Name        string
	Description string
	// Describe returns the toolset's definitions without serving it.
	Describe func() *mcp.Toolset
	// Open builds the toolset. attach, when not nil, receives the server
	// once it exists (toolsets that announce changes need it).
	Open func(root *fsroot.Root) (ts *mcp.Toolset, attach func(*mcp.Server), err error)
	// Flags returns the generated CLI flags of one of its tools.
	Flags func(tool string) []cli.Flag
	// Verbs are commands that call one of its tools (kontext search …),
	// with the tool's generated flags, listed under Category in the help.
	Verbs    []Verb
	Category string
	// OptIn toolsets are served only when --toolsets (or --tools) names
	// them: the apps broker reaches other processes, which a user asks for.
	OptIn bool
	// NoRoot says its tools need no repository: kontext mcp serving only
	// such toolsets starts at once, inside a work tree or not.
	NoRoot bool
	// ServeFlags are flags of kontext mcp that configure the toolset;
	// Configure reads them (and the global ones, --read-only) before Open.
	ServeFlags []cli.Flag
	Configure  func(c *cli.Context) error
	// NeedsWorkTree says its tools work only inside a git work tree: its
	// verbs, and kontext call of its tools, say so before calling.
	NeedsWorkTree bool
	// Commands are other commands the toolset brings; each names its
	// Category.
	Commands []*cli.Command
	// Args says what the positional arguments of Commands complete to in
	// a shell, by the command's path under kontext ("hooks run").
	Args map[string][]Arg
	// FlagValues says what flags of Commands complete to, by the
	// command's path and then the flag's name (graph, format).
	FlagValues map[string]map[string][]string
}

// Arg is what one positional argument completes to in a shell: Values,
// or file names.
type Arg struct {
	Values func() []string
	Files  bool
}

// Verb is a command that calls a tool: `kontext <Name> <Args>… --flags`.
type Verb struct {
	Name  string
	Tool  string
	Usage string
	// Args name the parameters the positional arguments fill, in order
	// (kontext capture decision "Use SQLite"); one given as a flag is
	// skipped, so the flags keep working alone.
	Args []string
	// Words makes the last of Args take every remaining argument, joined
	// by spaces (kontext search order total).
	Words bool
	// Paths says the positional arguments complete to file names.
	Paths bool
	// Values are what parameters complete to in a shell where their
	// schema has no enum (the kinds of entry).
	Values map[string][]string
}

// Program is what a kontext binary serves: its toolsets, and the filter
// every answer passes on its way out.
type Program struct {
	Toolsets []ToolsetFactory
	// OutputFilter, when set, returns the filter of a root's server
	// (mcp.Options.OutputFilter): every tool result, resource and prompt
	// of every toolset passes it once, in the runtime.
	OutputFilter func(root *fsroot.Root) mcp.OutputFilter
}

// metaArgs is the App.Metadata key of the arguments Main was given.
const metaArgs = "kontext/args"

// Main runs the command line and returns the process exit status: 0, 1
// when the command failed, 2 when the command line is wrong (an unknown
// command or flag, a missing or extra argument). Errors are one line on
// stderr.
func Main(args []string, p Program, stdout, stderr io.Writer) int {
	app := NewApp(p, stdout, stderr)
	if len(args) > 0 {
		app.Metadata[metaArgs] = args[1:]
	}
	args, err := helpArgs(app, args)
	if err == nil {
		err = app.Run(flagsFirst(app, args))
	}
	if err == nil {
		return 0
	}
	if msg := errorLine(err); msg != "" {
		fmt.Fprintln(stderr, "kontext: "+msg)
	}
	var exit cli.ExitCoder
	if errors.As(err, &exit) {
		// A failed git or client process says its own status too; kontext's
		// is 1 for a failure whatever ran under it.
		if _, ran := exit.(*exec.ExitError); !ran {
			return exit.ExitCode()
		}
	}
	return 1
}

// errorLine is an error as one line in kontext's words: no "Error: " that
// the MCP layer puts before a failed tool's text, and no git command line
// (what git said instead).
func errorLine(err error) string {
	msg := strings.TrimSpace(err.Error())
	var ge *git.Error
	if errors.As(err, &ge) {
		msg = strings.Replace(msg, ge.Error(), "git: "+gitSaid(ge), 1)
	}
	for {
		rest, ok := strings.CutPrefix(msg, "Error: ")
		if !ok {
			break
		}
		msg = rest
	}
	return strings.ReplaceAll(msg, "\n", "; ")
}

// gitSaid is the first line git printed on stderr, without "fatal: ".
func gitSaid(e *git.Error) string {
	line, _, _ := strings.Cut(strings.TrimSpace(e.Stderr), "\n")
	for _, p := range []string{"fatal: ", "error: "} {
		line = strings.TrimPrefix(line, p)
	}
	if line == "" {
		return "it failed (" + e.Err.Error() + ")"
	}
	return line
}

// NewApp returns the kontext command line.
func NewApp(p Program, stdout, stderr io.Writer) *cli.App {
	// The commands read the definitions many times; each is built once.
	p.Toolsets = slices.Clone(p.Toolsets)
	toolsets := p.Toolsets
	for i := range toolsets {
		if toolsets[i].Describe != nil {
			toolsets[i].Describe = sync.OnceValue(toolsets[i].Describe)
		}
	}
	cm := newCompletion()
	app := &cli.App{
		Name:                  "kontext",
		Usage:                 "repository context for coding agents, over MCP",
		UsageText:             "kontext <command> [options]",
		Version:               Version,
		Writer:                stdout,
		ErrWriter:             stderr,
		HideHelpCommand:       true,
		CustomAppHelpTemplate: appHelpTemplate,
		Metadata:              map[string]any{},
		ExitErrHandler:        func(*cli.Context, error) {},
		OnUsageError:          func(c *cli.Context, err error, _ bool) error { return usageError(c, err) },
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return cli.ShowAppHelp(c)
			}
			return unknownCommand(c.App.Commands, c.Args().First(), "")
		},
	}
	commands := []*cli.Command{mcpCommand(p, cm), toolsCommand(p), callCommand(p, cm), configCommand(cm)}
	for _, f := range toolsets {
		for _, v := range f.Verbs {
			commands = append(commands, verbCommand(p, f, v, cm))
		}
		commands = append(commands, f.Commands...)
	}
	commands = append(commands, completionCommand(), versionCommand(), completeCommand(cm))
	// The help lists categories in their order and, within one, the
	// commands in the order they are made.
	sort.SliceStable(commands, func(i, j int) bool {
		return categoryRank(commands[i]) < categoryRank(commands[j])
	})
	app.Commands = commands

	var toolsetNames, toolNames []string
	for _, f := range toolsets {
		toolsetNames = append(toolsetNames, f.Name)
		for _, t := range f.Describe().Tools {
			toolNames = append(toolNames, t.Name)
		}
	}
	cm.global["toolsets"] = fixed(toolsetNames...)
	cm.global["tools"] = fixed(toolNames...)
	cm.args[app.Command("completion")] = []argCompletion{{values: fixed(shellNames()...)}}
	for _, f := range toolsets {
		for path, args := range f.Args {
			cmd := commandAt(app, path)
			if cmd == nil {
				panic("kontext: ToolsetFactory.Args names no command: " + path)
			}
			for _, a := range args {
				cm.args[cmd] = append(cm.args[cmd], argCompletion{values: a.Values, files: a.Files})
			}
		}
		for path, flags := range f.FlagValues {
			cmd := commandAt(app, path)
			if cmd == nil {
				panic("kontext: ToolsetFactory.FlagValues names no command: " + path)
			}
			for name, values := range flags {
				cm.flagValues(cmd, name, fixed(values...))
			}
		}
	}
	for _, cmd := range app.Commands {
		prepare(app, cmd, "kontext "+cmd.Name)
	}
	app.Metadata["kontext/commands"] = commandList(app.Commands)
	return app
}

func categoryRank(c *cli.Command) int {
	if i := slices.Index(categoryOrder, c.Category); i >= 0 {
		return i
	}
	return len(categoryOrder)
}

func shellNames() []string {
	var out []string
	for _, s := range shells {
		out = append(out, s.name)
	}
	return out
}

// commandAt is the command at a path of names under kontext.
func commandAt(app *cli.App, path string) *cli.Command {
	cmds := app.Commands
	var found *cli.Command
	for _, name := range strings.Fields(path) {
		found = findCommand(cmds, name)
		if found == nil {
			return nil
		}
		cmds = found.Subcommands
	}
	return found
}

// prepare gives every command what the whole command line shares: its
// full name and usage line, usage errors in kontext's words, a group's
// answer to an unknown subcommand, and the refusal of arguments a command
// does not take.
func prepare(app *cli.App, cmd *cli.Command, path string) {
	if strings.Count(path, " ") > 1 {
		// urfave names the top-level commands itself ("kontext " + name).
		cmd.HelpName = path
	}
	if cmd.UsageText == "" {
		cmd.UsageText = usageLine(path, cmd)
	}
	cmd.OnUsageError = app.OnUsageError
	// "help" is a command only where commands are named (helpArgs): after
	// kontext search it is what to search for.
	cmd.HideHelpCommand = true
	if len(cmd.Subcommands) > 0 {
		if cmd.Action == nil {
			cmd.Action = func(c *cli.Context) error {
				if c.NArg() == 0 {
					return cli.ShowSubcommandHelp(c)
				}
				return unknownCommand(c.Command.Subcommands, c.Args().First(), path)
			}
		}
		for _, sub := range cmd.Subcommands {
			prepare(app, sub, path+" "+sub.Name)
		}
		return
	}
	if cmd.ArgsUsage == "" && !cmd.SkipFlagParsing && cmd.Action != nil {
		action := cmd.Action
		cmd.Action = func(c *cli.Context) error {
			if err := CheckArgs(c, 0); err != nil {
				return err
			}
			return action(c)
		}
	}
}

// unknownCommand is the error for a command that does not exist: the
// closest names, when one is close, and exit status 2.
func unknownCommand(cmds []*cli.Command, name, parent string) error {
	var names []string
	for _, c := range cmds {
		if !c.Hidden {
			names = append(names, c.Names()...)
		}
	}
	where, list := "", "(kontext --help lists the commands)"
	if parent != "" {
		where, list = " for "+parent, "("+parent+" --help lists them)"
	}
	if hint := didYouMean(name, names, quoted); hint != "" {
		return cli.Exit(fmt.Sprintf("unknown command %q%s%s", name, where, hint), 2)
	}
	return cli.Exit(fmt.Sprintf("unknown command %q%s %s", name, where, list), 2)
}

// helpArgs turns `kontext help a b` (and `kontext a help b`) into
// `kontext a b --help`, and refuses a help topic that is no command the
// way an unknown command is refused.
func helpArgs(app *cli.App, args []string) ([]string, error) {
	cmds := app.Commands
	path := []string{}
	parent := ""
	for i := 1; i < len(args); i++ {
		word := args[i]
		if word != "help" && word != "h" {
			c := findCommand(cmds, word)
			if c == nil || len(c.Subcommands) == 0 {
				return args, nil
			}
			path = append(path, word)
			parent = strings.TrimSpace(parent + " " + word)
			cmds = c.Subcommands
			continue
		}
		for _, topic := range args[i+1:] {
			if strings.HasPrefix(topic, "-") {
				break
			}
			c := findCommand(cmds, topic)
			if c == nil || c.Hidden {
				p := ""
				if parent != "" {
					p = "kontext " + parent
				}
				return nil, unknownCommand(cmds, topic, p)
			}
			path = append(path, topic)
			parent = strings.TrimSpace(parent + " " + topic)
			cmds = c.Subcommands
		}
		return append(append([]string{args[0]}, path...), "--help"), nil
	}
	return args, nil
}

// verbCommand is a tool as a command of its own.
func verbCommand(p Program, f ToolsetFactory, v Verb, cm *completion) *cli.Command {
	schema := toolSchema(f, v.Tool)
	toolFlags := f.Flags(v.Tool)
	// How the command line names each parameter: <query> for one the
	// arguments fill, --limit for the others.
	names := map[string]string{}
	var argsUsage []string
	for i, a := range v.Args {
		names[a] = "<" + a + ">"
		u := "<" + a + ">"
		if v.Words && i == len(v.Args)-1 {
			u += "…"
		}
		if !slices.Contains(schema.Required, a) {
			u = "[" + u + "]"
		}
		argsUsage = append(argsUsage, u)
	}
	for _, fl := range toolFlags {
		name := fl.Names()[0]
		if _, positional := names[name]; positional {
			// The flag still works; the help says the argument does the same.
			setUsage(fl, strings.TrimSuffix(flagUsage(fl), " (required)")+" (required; or give it as "+names[name]+")")
			continue
		}
		names[name] = "--" + displayNames(fl)[0]
	}
	cmd := &cli.Command{
		Name:      v.Name,
		Usage:     v.Usage,
		Category:  f.Category,
		ArgsUsage: strings.Join(argsUsage, " "),
		Flags:     append([]cli.Flag{RootFlag()}, toolFlags...),
		Action: func(c *cli.Context) error {
			args, err := toolArguments(c, toolFlags)
			if err != nil {
				return err
			}
			var free []string
			for _, a := range v.Args {
				if _, given := args[a]; !given {
					free = append(free, a)
				}
			}
			rest := c.Args().Slice()
			for i, a := range free {
				if len(rest) == 0 {
					break
				}
				value := rest[0]
				rest = rest[1:]
				if v.Words && a == v.Args[len(v.Args)-1] && i == len(free)-1 {
					value = strings.Join(append([]string{value}, rest...), " ")
					rest = nil
				}
				args[a], _ = json.Marshal(value)
			}
			if len(rest) > 0 {
				return UnexpectedArgs(c, rest)
			}
			if missing := schema.missing(args, names); len(missing) > 0 {
				return Missing(c, missing...)
			}
			if f.NeedsWorkTree {
				if _, err := WorkTree(c); err != nil {
					return err
				}
			}
			return callTool(c, p, v.Tool, args, names, "")
		},
	}
	registerToolCompletion(cm, cmd, func() inputSchema { return schema }, toolFlags)
	var argc []argCompletion
	for _, a := range v.Args {
		values := append(schema.enum(a), v.Values[a]...)
		ac := argCompletion{files: v.Paths}
		if len(values) > 0 {
			ac.values = fixed(values...)
		}
		argc = append(argc, ac)
		if len(v.Values[a]) > 0 {
			cm.flagValues(cmd, a, fixed(values...))
		}
	}
	cm.args[cmd] = argc
	for name, values := range v.Values {
		if !slices.Contains(v.Args, name) {
			cm.flagValues(cmd, name, fixed(append(schema.enum(name), values...)...))
		}
	}
	return cmd
}

// registerToolCompletion makes the flags of a tool's parameters complete
// to their schema's enum. The schema is read only when a shell asks, not
// every time kontext starts.
func registerToolCompletion(cm *completion, cmd *cli.Command, schema func() inputSchema, toolFlags []cli.Flag) {
	for _, fl := range toolFlags {
		name := fl.Names()[0]
		if cm.flags[cmd][name] == nil {
			cm.flagValues(cmd, name, func() []string { return schema().enum(name) })
		}
	}
}

// jsonObject reads --args: a JSON object, or an error saying what it is
// instead.
func jsonObject(raw string, into *map[string]json.RawMessage) error {
	var v any
	if err := json.Unmarshal([]byte(raw), &v); err != nil {
		return cli.Exit("--args is not JSON: "+err.Error(), 2)
	}
	if _, ok := v.(map[string]any); !ok {
		return cli.Exit(fmt.Sprintf("--args must be a JSON object ({\"param\": value, …}), not %s", jsonKind(v)), 2)
	}
	return json.Unmarshal([]byte(raw), into)
}

func jsonKind(v any) string {
	switch v.(type) {
	case []any:
		return "an array"
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	}
	return "null"
}

// RootFlag is --root, as every command that works on a repository has it
// (Root reads it).
func RootFlag() *cli.StringFlag {
	return &cli.StringFlag{Name: "root", TakesFile: true, Usage: "the repository at `DIR` (default $KONTEXT_ROOT, else $AGENT_CONTEXT_ROOT, else the working directory)"}
}

// serverFlags are the flags that choose what a server serves.
func serverFlags() []cli.Flag {
	return []cli.Flag{
		RootFlag(),
		&cli.StringSliceFlag{Name: "toolsets", Usage: "serve only these toolsets (comma-separated; default all)"},
		&cli.StringSliceFlag{Name: "tools", Usage: "serve these tools too (comma-separated)"},
		&cli.BoolFlag{Name: "read-only", Usage: "serve only tools that state readOnlyHint: true (wins over --toolsets and --tools)"},
	}
}

func splitList(values []string) []string {
	var out []string
	for _, v := range values {
		for _, part := range strings.Split(v, ",") {
			if part = strings.TrimSpace(part); part != "" {
				out = append(out, part)
			}
		}
	}
	return out
}

// built is a server with everything it needs.
type built struct {
	server *mcp.Server
	root   *fsroot.Root
	// close releases the toolsets served (their watchers, indexes and
	// adapters) and waits for what they still deliver in the background.
	close func()
}

// buildServer opens the root and the toolsets and applies the filter. An
// unknown toolset or tool name is an error, not an empty server.
func buildServer(c *cli.Context, p Program, opts mcp.Options, log *slog.Logger) (*built, error) {
	choice, err := Root(c)
	if err != nil {
		return nil, err
	}
	root, err := fsroot.Open(choice.Dir)
	if err != nil {
		return nil, fmt.Errorf("%s (from %s)", err, choice.Source)
	}
	filter := selection{mcp.Filter{Toolsets: splitList(c.StringSlice("toolsets")), Tools: splitList(c.StringSlice("tools")), ReadOnly: c.Bool("read-only")}}
	var names []string
	for _, f := range p.Toolsets {
		names = append(names, f.Name)
	}
	for _, ts := range filter.Toolsets {
		if !slices.Contains(names, ts) {
			return nil, cli.Exit(fmt.Sprintf("unknown toolset %q%s (known: %s)", ts, didYouMean(ts, names, quoted), strings.Join(names, ", ")), 2)
		}
	}
	var sets []*mcp.Toolset
	var attach []func(*mcp.Server)
	known := map[string]bool{}
	for _, f := range p.Toolsets {
		if !filter.Wants(f) {
			continue
		}
		if f.Configure != nil {
			if err := f.Configure(c); err != nil {
				return nil, err
			}
		}
		ts, a, err := f.Open(root)
		if err != nil {
			return nil, fmt.Errorf("toolset %s: %w", f.Name, err)
		}
		for _, t := range ts.Tools {
			known[t.Name] = true
		}
		sets = append(sets, ts)
		if a != nil {
			attach = append(attach, a)
		}
	}
	for _, t := range filter.Tools {
		if !known[t] {
			return nil, unknownTool(t, slices.Sorted(maps.Keys(known)))
		}
	}
	opts.Filter = filter.Filter
	opts.Logger = log
	// The tools of the toolsets left out stay theirs: an adapter's tool
	// must not take a name that another run serves as kontext's own.
	for _, f := range p.Toolsets {
		if !filter.Wants(f) && f.Describe != nil {
			for _, t := range f.Describe().Tools {
				opts.ReservedToolNames = append(opts.ReservedToolNames, t.Name)
			}
		}
	}
	if p.OutputFilter != nil {
		opts.OutputFilter = p.OutputFilter(root)
	}
	srv, err := mcp.NewServer(mcp.Implementation{Name: "kontext", Title: "kontext — repository context for agents", Version: Version}, opts, sets...)
	if err != nil {
		return nil, err
	}
	for _, a := range attach {
		a(srv)
	}
	if opts.RootDiscovery == nil { // else no root is served yet
		log.Info("kontext serving", "root", root.Dir(), "rootFrom", choice.Source, "tools", len(srv.Tools()), "readOnly", filter.ReadOnly)
	}
	return &built{server: srv, root: root, close: func() { closeToolsets(sets) }}, nil
}

// selection is the filter of a kontext mcp command line.
type selection struct{ mcp.Filter }

// Wants says whether a toolset is opened: every one, except an opt-in
// toolset that neither --toolsets nor --tools names.
func (s selection) Wants(f ToolsetFactory) bool {
	if !f.OptIn || slices.Contains(s.Toolsets, f.Name) {
		return true
	}
	for _, t := range f.Describe().Tools {
		if slices.Contains(s.Tools, t.Name) {
			return true
		}
	}
	return false
}

// rootFree says whether every toolset the command line serves needs no
// repository.
func rootFree(c *cli.Context, p Program) bool {
	sel := selection{mcp.Filter{Toolsets: splitList(c.StringSlice("toolsets")), Tools: splitList(c.StringSlice("tools"))}}
	if len(sel.Toolsets) == 0 && len(sel.Tools) == 0 {
		return false
	}
	for _, f := range p.Toolsets {
		served := slices.Contains(sel.Toolsets, f.Name)
		for _, t := range f.Describe().Tools {
			served = served || slices.Contains(sel.Tools, t.Name)
		}
		if served && !f.NoRoot {
			return false
		}
	}
	return true
}

// unknownTool is the error for a tool name that names no tool.
func unknownTool(name string, known []string) error {
	if hint := didYouMean(name, known, quoted); hint != "" {
		return cli.Exit(fmt.Sprintf("unknown tool %q%s", name, hint), 2)
	}
	return cli.Exit(fmt.Sprintf("unknown tool %q (kontext tools lists them)", name), 2)
}

func mcpCommand(p Program, cm *completion) *cli.Command {
	flags := append(serverFlags(),
		&cli.DurationFlag{Name: "request-timeout", Value: 120 * time.Second, Usage: "bound on every request; 0 disables"},
		&cli.StringFlag{Name: "log-level", Value: "info", Usage: "diagnostics on stderr: debug, info, warn, error"},
		&cli.IntFlag{Name: "page-size", Value: 100, Usage: "items per page of a list method", Hidden: true},
	)
	flags = append(flags, httpFlags()...)
	for _, f := range p.Toolsets {
		flags = append(flags, f.ServeFlags...)
	}
	cmd := &cli.Command{
		Name:     "mcp",
		Category: CategoryServing,
		Usage:    "serve MCP over stdio (JSON-RPC on stdout, diagnostics on stderr), or over streamable HTTP with --http",
		Flags:    flags,
		Action: func(c *cli.Context) error {
			log, err := stderrLogger(c.App.ErrWriter, c.String("log-level"))
			if err != nil {
				return err
			}
			// Toolsets that log without being handed a logger (the repo
			// engine) write through the same handler, at the same level.
			slog.SetDefault(log)
			opts := mcp.Options{RequestTimeout: c.Duration("request-timeout"), PageSize: c.Int("page-size")}
			trace, closeTrace, err := traceFromEnv()
			if err != nil {
				return err
			}
			defer closeTrace()
			opts.Trace = trace
			setup, err := readHTTPSetup(c)
			if err != nil {
				return err
			}
			b, err := mcpServer(c, p, opts, log)
			if err != nil {
				return err
			}
			defer b.close()
			if setup != nil {
				ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
				defer stop()
				b.server.Serving()
				return serveHTTP(ctx, setup, b.server, c.App.ErrWriter)
			}
			if term.IsTerminal(int(os.Stdin.Fd())) {
				// Someone ran it by hand and sees nothing happen: say why.
				fmt.Fprintln(c.App.ErrWriter, waitingNotice)
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			b.server.Serving()
			return b.server.ServeStdio(ctx)
		},
	}
	cm.flagValues(cmd, "log-level", fixed("debug", "info", "warn", "error"))
	return cmd
}

// waitingNotice is what kontext mcp says when its stdin is a terminal:
// an MCP client starts it and speaks JSON-RPC on its stdin.
const waitingNotice = "kontext mcp is waiting for an MCP client on stdin; a client starts it itself. " +
	"To connect one: kontext config --list, then e.g. kontext config cursor --write. Ctrl-D or Ctrl-C ends it."

func stderrLogger(w io.Writer, level string) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return nil, cli.Exit(fmt.Sprintf("--log-level %q: use debug, info, warn or error", level), 2)
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: l})), nil
}

// traceFromEnv records every JSON-RPC line in the file KONTEXT_TRACE names
// (for tests that validate the wire, and for debugging a client).
func traceFromEnv() (func(out bool, line []byte), func(), error) {
	path := os.Getenv("KONTEXT_TRACE")
	if path == "" {
		return nil, func() {}, nil
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, nil, fmt.Errorf("KONTEXT_TRACE: %w", err)
	}
	var mu sync.Mutex
	trace := func(out bool, line []byte) {
		rec, _ := json.Marshal(struct {
			Out     bool            `json:"out"`
			Message json.RawMessage `json:"message"`
		}{out, json.RawMessage(line)})
		mu.Lock()
		f.Write(append(rec, '\n'))
		mu.Unlock()
	}
	return trace, func() { f.Close() }, nil
}

// inProcess serves one in-memory connection and returns a client on it, so
// that `tools` and `call` go through the same protocol path as a real client.
func inProcess(ctx context.Context, srv *mcp.Server) (*mcp.Client, func(), error) {
	serverEnd, clientEnd := mcp.NewInMemoryTransport()
	done := make(chan struct{})
	go func() {
		srv.Serve(ctx, serverEnd)
		close(done)
	}()
	client, err := mcp.Connect(ctx, clientEnd, mcp.ClientOptions{Info: mcp.Implementation{Name: "kontext-cli", Version: Version}, Era: mcp.EraLegacy})
	if err != nil {
		clientEnd.Close()
		return nil, nil, err
	}
	return client, func() {
		client.Close()
		clientEnd.Close()
		<-done
	}, nil
}

func toolsCommand(p Program) *cli.Command {
	return &cli.Command{
		Name:     "tools",
		Category: CategoryServing,
		Usage:    "list the tools the server would advertise (with the same flags as mcp)",
		Flags:    append(serverFlags(), &cli.BoolFlag{Name: "json", Usage: "print the tools/list result as JSON"}),
		Action: func(c *cli.Context) error {
			log := slog.New(slog.NewTextHandler(io.Discard, nil))
			b, err := buildServer(c, p, mcp.Options{}, log)
			if err != nil {
				return err
			}
			defer b.close()
			client, stop, err := inProcess(c.Context, b.server)
			if err != nil {
				return err
			}
			defer stop()
			tools, err := client.ListTools(c.Context)
			if err != nil {
				return err
			}
			if c.Bool("json") {
				out, _ := json.MarshalIndent(map[string]any{"tools": tools}, "", "  ")
				fmt.Fprintln(c.App.Writer, string(out))
				return nil
			}
			byName := map[string]*mcp.Tool{}
			for _, t := range b.server.Tools() {
				byName[t.Name] = t
			}
			w := c.App.Writer
			for _, t := range tools {
				mode := "writes"
				if byName[t.Name].ReadOnly() {
					mode = "read-only"
				}
				title := t.Name
				if t.Title != nil {
					title = *t.Title
				}
				fmt.Fprintf(w, "%-24s %-10s %-10s %s\n", t.Name, byName[t.Name].Toolset, mode, title)
			}
			if len(tools) == 0 {
				fmt.Fprintln(w, "no tools (no toolset is enabled, or the filter leaves none)")
			}
			return nil
		},
	}
}

func callCommand(p Program, cm *completion) *cli.Command {
	cmd := &cli.Command{
		Name:      "call",
		Category:  CategoryServing,
		Usage:     "call a tool: kontext call <tool> --<param> value …",
		UsageText: "kontext call <tool> [options] [--<param> value …]",
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return Missing(c, "<tool> (kontext tools lists them)")
			}
			var known []string
			for _, sub := range c.Command.Subcommands {
				known = append(known, sub.Name)
			}
			return unknownTool(c.Args().First(), known)
		},
	}
	type entry struct {
		factory              ToolsetFactory
		tool, toolset, usage string
		flags                []cli.Flag
	}
	var entries []entry
	for _, f := range p.Toolsets {
		for _, t := range f.Describe().Tools {
			if t.Hidden {
				continue
			}
			entries = append(entries, entry{f, t.Name, f.Name, t.Title, f.Flags(t.Name)})
		}
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].tool < entries[j].tool })
	for _, e := range entries {
		flags := append(serverFlags(), e.flags...)
		flags = append(flags, &cli.StringFlag{Name: "args", Usage: "all arguments as one JSON object (other parameter flags are merged over it)"})
		names := map[string]string{}
		for _, fl := range e.flags {
			names[fl.Names()[0]] = "--" + displayNames(fl)[0]
		}
		sub := &cli.Command{
			Name:  e.tool,
			Usage: e.usage + " [" + e.toolset + "]",
			Flags: flags,
			Action: func(c *cli.Context) error {
				args := map[string]json.RawMessage{}
				if raw := c.String("args"); c.IsSet("args") && raw != "" {
					if err := jsonObject(raw, &args); err != nil {
						return err
					}
				}
				fromFlags, err := toolArguments(c, e.flags)
				if err != nil {
					return err
				}
				maps.Copy(args, fromFlags)
				if e.factory.NeedsWorkTree {
					if _, err := WorkTree(c); err != nil {
						return err
					}
				}
				return callTool(c, p, e.tool, args, names, e.tool)
			},
		}
		registerToolCompletion(cm, sub, sync.OnceValue(func() inputSchema { return toolSchema(e.factory, e.tool) }), e.flags)
		cmd.Subcommands = append(cmd.Subcommands, sub)
	}
	return cmd
}

// flagsFirst moves a command's flags before its positional arguments, so
// that `kontext read src/a.go --level 0` works: urfave/cli stops reading
// flags at the first argument. A flag's value travels with it; "--" ends
// the flags.
func flagsFirst(app *cli.App, args []string) []string {
	if len(args) < 3 {
		return args
	}
	var cmd *cli.Command
	for _, c := range app.Commands {
		if c.HasName(args[1]) && len(c.Subcommands) == 0 && !c.SkipFlagParsing {
			cmd = c
		}
	}
	if cmd == nil {
		return args
	}
	valued := map[string]bool{}
	for _, f := range cmd.Flags {
		for _, n := range f.Names() {
			// A generic flag that tells the flag package it is boolean
			// (config --write) takes no separate value either.
			valued[n] = takesValue(f)
		}
	}
	var flags, positional []string
	rest := args[2:]
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		if a == "--" {
			positional = append(positional, rest[i:]...)
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			positional = append(positional, a)
			continue
		}
		flags = append(flags, a)
		name := strings.TrimLeft(a, "-")
		if strings.Contains(name, "=") {
			continue
		}
		if valued[name] && i+1 < len(rest) {
			i++
			flags = append(flags, rest[i])
		}
	}
	out := append([]string{args[0], args[1]}, flags...)
	return append(out, positional...)
}
