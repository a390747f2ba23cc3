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
	"os"
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
	// with the tool's generated flags.
	Verbs []Verb
	// Commands are other commands the toolset brings.
	Commands []*cli.Command
}

// Verb is a command that calls a tool: `kontext <Name> [<Arg>] --flags`.
type Verb struct {
	Name  string
	Tool  string
	Usage string
	// Arg names the parameter the first positional argument fills
	// (kontext search "order total"); "" takes none.
	Arg string
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

// Main runs the command line and returns the process exit status. Errors are
// one line on stderr.
func Main(args []string, p Program, stdout, stderr io.Writer) int {
	app := NewApp(p, stdout, stderr)
	if err := app.Run(flagsFirst(app, args)); err != nil {
		var exit cli.ExitCoder
		msg := strings.ReplaceAll(strings.TrimSpace(err.Error()), "\n", "; ")
		if msg != "" {
			fmt.Fprintln(stderr, "kontext: "+msg)
		}
		if errors.As(err, &exit) {
			return exit.ExitCode()
		}
		return 2
	}
	return 0
}

// NewApp returns the kontext command line.
func NewApp(p Program, stdout, stderr io.Writer) *cli.App {
	app := &cli.App{
		Name:                 "kontext",
		Usage:                "repository context for coding agents, over MCP",
		Version:              Version,
		Writer:               stdout,
		ErrWriter:            stderr,
		EnableBashCompletion: true,
		ExitErrHandler:       func(*cli.Context, error) {},
		OnUsageError: func(_ *cli.Context, err error, _ bool) error {
			return cli.Exit(err.Error()+" (see kontext help)", 2)
		},
		Commands: []*cli.Command{
			mcpCommand(p),
			configCommand(),

			toolsCommand(p),
			callCommand(p),
			versionCommand(),
		},
	}
	for _, f := range p.Toolsets {
		for _, v := range f.Verbs {
			app.Commands = append(app.Commands, verbCommand(p, f, v))
		}
		app.Commands = append(app.Commands, f.Commands...)
	}
	for _, cmd := range app.Commands {
		cmd.OnUsageError = app.OnUsageError
	}
	return app
}

// verbCommand is a tool as a command of its own.
func verbCommand(p Program, f ToolsetFactory, v Verb) *cli.Command {
	toolFlags := f.Flags(v.Tool)
	flags := append(serverFlags(), toolFlags...)
	usage := v.Usage
	argsUsage := ""
	if v.Arg != "" {
		argsUsage = "[<" + v.Arg + ">]"
	}
	return &cli.Command{
		Name:      v.Name,
		Usage:     usage,
		ArgsUsage: argsUsage,
		Flags:     flags,
		Action: func(c *cli.Context) error {
			positional := ""
			if v.Arg != "" && c.NArg() > 0 {
				positional = strings.Join(c.Args().Slice(), " ")
			} else if c.NArg() > 0 {
				return cli.Exit(fmt.Sprintf("%s takes no arguments, only flags (kontext %s --help)", v.Name, v.Name), 2)
			}
			return runCallWith(c, p, v.Tool, toolFlags, v.Arg, positional)
		},
	}
}

// serverFlags are the flags that choose what a server serves.
func serverFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "root", Usage: "repository root (default $KONTEXT_ROOT, else $AGENT_CONTEXT_ROOT, else the working directory)"},
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
}

// buildServer opens the root and the toolsets and applies the filter. An
// unknown toolset or tool name is an error, not an empty server.
func buildServer(c *cli.Context, p Program, opts mcp.Options, log *slog.Logger) (*built, error) {
	choice, err := fsroot.Choose(c.String("root"), os.Getenv)
	if err != nil {
		return nil, err
	}
	root, err := fsroot.Open(choice.Dir)
	if err != nil {
		return nil, fmt.Errorf("%s (from %s)", err, choice.Source)
	}
	filter := mcp.Filter{Toolsets: splitList(c.StringSlice("toolsets")), Tools: splitList(c.StringSlice("tools")), ReadOnly: c.Bool("read-only")}
	var names []string
	for _, f := range p.Toolsets {
		names = append(names, f.Name)
	}
	for _, ts := range filter.Toolsets {
		if !slices.Contains(names, ts) {
			return nil, fmt.Errorf("unknown toolset %q (known: %s)", ts, strings.Join(names, ", "))
		}
	}
	var sets []*mcp.Toolset
	var attach []func(*mcp.Server)
	known := map[string]bool{}
	for _, f := range p.Toolsets {
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
			return nil, fmt.Errorf("unknown tool %q (kontext tools lists them)", t)
		}
	}
	opts.Filter = filter
	opts.Logger = log
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
	log.Info("kontext serving", "root", root.Dir(), "rootFrom", choice.Source, "tools", len(srv.Tools()), "readOnly", filter.ReadOnly)
	return &built{server: srv, root: root}, nil
}

func mcpCommand(p Program) *cli.Command {
	flags := append(serverFlags(),
		&cli.DurationFlag{Name: "request-timeout", Value: 120 * time.Second, Usage: "bound on every request; 0 disables"},
		&cli.StringFlag{Name: "log-level", Value: "info", Usage: "diagnostics on stderr: debug, info, warn, error"},
		&cli.IntFlag{Name: "page-size", Value: 100, Usage: "items per page of a list method", Hidden: true},
	)
	return &cli.Command{
		Name:  "mcp",
		Usage: "serve MCP over stdio (JSON-RPC on stdout, diagnostics on stderr)",
		Flags: flags,
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
			b, err := buildServer(c, p, opts, log)
			if err != nil {
				return err
			}
			if term.IsTerminal(int(os.Stdin.Fd())) {
				// Someone ran it by hand and sees nothing happen: say why.
				fmt.Fprintln(c.App.ErrWriter, waitingNotice)
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return b.server.ServeStdio(ctx)
		},
	}
}

// waitingNotice is what kontext mcp says when its stdin is a terminal:
// an MCP client starts it and speaks JSON-RPC on its stdin.
const waitingNotice = "kontext mcp is waiting for an MCP client on stdin; a client starts it itself. " +
	"To connect one: kontext config --list, then e.g. kontext config cursor --write. Ctrl-D or Ctrl-C ends it."

func stderrLogger(w io.Writer, level string) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("--log-level %q: use debug, info, warn or error", level)
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
		Name:  "tools",
		Usage: "list the tools the server would advertise (with the same flags as mcp)",
		Flags: append(serverFlags(), &cli.BoolFlag{Name: "json", Usage: "print the tools/list result as JSON"}),
		Action: func(c *cli.Context) error {
			log := slog.New(slog.NewTextHandler(io.Discard, nil))
			b, err := buildServer(c, p, mcp.Options{}, log)
			if err != nil {
				return err
			}
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

func callCommand(p Program) *cli.Command {
	cmd := &cli.Command{
		Name:      "call",
		Usage:     "call a tool: kontext call <tool> --<param> value …",
		ArgsUsage: "<tool>",
		Action: func(c *cli.Context) error {
			if c.NArg() == 0 {
				return cli.Exit("name a tool: kontext call <tool> (kontext tools lists them)", 2)
			}
			return cli.Exit(fmt.Sprintf("unknown tool %q (kontext tools lists them)", c.Args().First()), 2)
		},
	}
	type entry struct {
		tool, toolset, usage string
		flags                []cli.Flag
	}
	var entries []entry
	for _, f := range p.Toolsets {
		for _, t := range f.Describe().Tools {
			entries = append(entries, entry{t.Name, f.Name, t.Title, f.Flags(t.Name)})
		}
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].tool < entries[j].tool })
	for _, e := range entries {
		e := e
		flags := append(serverFlags(), e.flags...)
		flags = append(flags, &cli.StringFlag{Name: "args", Usage: "all arguments as one JSON object (other parameter flags are merged over it)"})
		cmd.Subcommands = append(cmd.Subcommands, &cli.Command{
			Name:         e.tool,
			Usage:        e.usage + " [" + e.toolset + "]",
			Flags:        flags,
			OnUsageError: func(_ *cli.Context, err error, _ bool) error { return cli.Exit(err.Error(), 2) },
			Action:       func(c *cli.Context) error { return runCall(c, p, e.tool, e.flags) },
		})
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
		if c.HasName(args[1]) && len(c.Subcommands) == 0 {
			cmd = c
		}
	}
	if cmd == nil {
		return args
	}
	takesValue := map[string]bool{}
	for _, f := range cmd.Flags {
		_, isBool := f.(*cli.BoolFlag)
		if g, ok := f.(*cli.GenericFlag); ok {
			// A generic flag that tells the flag package it is boolean
			// (config --write) takes no separate value either.
			b, ok := g.Value.(interface{ IsBoolFlag() bool })
			isBool = ok && b.IsBoolFlag()
		}
		for _, n := range f.Names() {
			takesValue[n] = !isBool
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
		if takesValue[name] && i+1 < len(rest) {
			i++
			flags = append(flags, rest[i])
		}
	}
	out := append([]string{args[0], args[1]}, flags...)
	return append(out, positional...)
}
