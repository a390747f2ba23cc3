package cli

import (
	"embed"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"
)

// Shell completion. Each shell's script (completion/) asks kontext what
// completes, with the hidden command
//
//	kontext __complete --current=<the word being typed> -- <the words before it>…
//
// which prints one candidate a line, "value" or "value<TAB>description",
// and ":files" or ":dirs" when file or directory names complete there too.
// kontext works it out from the command tree the help is made of, so the
// scripts never go stale. urfave/cli/v2's own completion (the hidden
// --generate-bash-completion flag) completes flags only once a "-" is
// typed, reads os.Args rather than the arguments it is given, and knows
// nothing of flag values; its fish generator writes aliases such as
// --budget-tokens as one-letter options.

//go:embed completion/kontext.bash completion/kontext.zsh completion/kontext.fish completion/kontext.ps1
var completionScripts embed.FS

// shells are the shells kontext completion writes a script for, and each
// script's file.
var shells = []struct{ name, file, title string }{
	{"bash", "completion/kontext.bash", "bash"},
	{"zsh", "completion/kontext.zsh", "zsh"},
	{"fish", "completion/kontext.fish", "fish"},
	{"powershell", "completion/kontext.ps1", "PowerShell"},
}

const completeCommandName = "__complete"

// candidate is one completion: the text and what it is.
type candidate struct{ value, about string }

// Values is a list of completions for an argument or a flag's value; each
// may say what it is after a tab.
type Values func() []string

// completion is what the completer knows beyond the command tree: what the
// positional arguments and flag values of each command complete to.
type completion struct {
	args  map[*cli.Command][]argCompletion
	flags map[*cli.Command]map[string]Values
	// global flag values, whatever the command (--toolsets, --tools).
	global map[string]Values
}

// argCompletion is what one positional argument completes to: values, or
// file names.
type argCompletion struct {
	values Values
	files  bool
}

func newCompletion() *completion {
	return &completion{args: map[*cli.Command][]argCompletion{}, flags: map[*cli.Command]map[string]Values{}, global: map[string]Values{}}
}

func (cm *completion) flagValues(cmd *cli.Command, name string, v Values) {
	if cm.flags[cmd] == nil {
		cm.flags[cmd] = map[string]Values{}
	}
	cm.flags[cmd][name] = v
}

func fixed(values ...string) Values { return func() []string { return values } }

func completionCommand() *cli.Command {
	var names []string
	for _, s := range shells {
		names = append(names, s.name)
	}
	return &cli.Command{
		Name:      "completion",
		Category:  CategorySetup,
		Usage:     "print the script that makes your shell complete kontext's commands, flags and values",
		ArgsUsage: "<shell>",
		Description: "Prints a completion script for bash, zsh, fish or powershell. It completes commands, flags,\n" +
			"client names (kontext config), toolsets and tools (--toolsets, --tools), the values a flag\n" +
			"allows, and file names where a command takes a path. To install it:\n\n" +
			"   bash        add to ~/.bashrc:  eval \"$(kontext completion bash)\"\n" +
			"               (or, with the bash-completion package:\n" +
			"               kontext completion bash > ~/.local/share/bash-completion/completions/kontext)\n" +
			"   zsh         mkdir -p ~/.zfunc && kontext completion zsh > ~/.zfunc/_kontext\n" +
			"               and in ~/.zshrc, before compinit:  fpath=(~/.zfunc $fpath); autoload -U compinit; compinit\n" +
			"   fish        kontext completion fish > ~/.config/fish/completions/kontext.fish\n" +
			"   powershell  add to $PROFILE:  kontext completion powershell | Out-String | Invoke-Expression\n\n" +
			"Then open a new shell. The script asks kontext what completes, so it stays right when kontext\n" +
			"is updated.",
		Action: func(c *cli.Context) error {
			if err := CheckArgs(c, 1); err != nil {
				return err
			}
			if c.NArg() == 0 {
				return Missing(c, "<shell> ("+joinOr(names)+")")
			}
			shell := c.Args().First()
			for _, s := range shells {
				if s.name == shell {
					script, err := completionScripts.ReadFile(s.file)
					if err != nil {
						return err
					}
					_, err = c.App.Writer.Write(script)
					return err
				}
			}
			return cli.Exit(fmt.Sprintf("unknown shell %q%s (kontext completes in %s)", shell, didYouMean(shell, names, quoted), joinAnd(names)), 2)
		},
	}
}

// completeCommand is the hidden command the scripts call.
func completeCommand(cm *completion) *cli.Command {
	return &cli.Command{
		Name:            completeCommandName,
		Hidden:          true,
		SkipFlagParsing: true,
		Action: func(c *cli.Context) error {
			args := c.Args().Slice()
			if len(args) == 0 || !strings.HasPrefix(args[0], "--current=") {
				return cli.Exit("usage: kontext __complete --current=WORD -- WORDS… (what the completion scripts call)", 2)
			}
			current := strings.TrimPrefix(args[0], "--current=")
			before := args[1:]
			if len(before) > 0 && before[0] == "--" {
				before = before[1:]
			}
			cands, dirs, files := cm.complete(c.App, before, current)
			writeCandidates(c.App.Writer, cands)
			switch {
			case dirs:
				fmt.Fprintln(c.App.Writer, ":dirs")
			case files:
				fmt.Fprintln(c.App.Writer, ":files")
			}
			return nil
		},
	}
}

func writeCandidates(w io.Writer, cands []candidate) {
	for _, c := range cands {
		if c.about == "" {
			fmt.Fprintln(w, c.value)
			continue
		}
		fmt.Fprintf(w, "%s\t%s\n", c.value, oneLineAbout(c.about))
	}
}

// oneLineAbout is a description short enough for a completion menu.
func oneLineAbout(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 72 {
		s = strings.TrimRight(string(r[:71]), " ,;:") + "…"
	}
	return s
}

// walked is where the words before the cursor leave the command line.
type walked struct {
	cmd        *cli.Command // nil: the app itself
	positional []string
	seen       map[cli.Flag]bool
	pending    cli.Flag // the last word is a flag that wants a value
	afterDash  bool     // "--" ended the flags
	help       bool     // kontext help …: the words name a command
}

// walk follows the words as urfave/cli would parse them: commands down the
// tree, flags with their values, the rest positional.
func walk(app *cli.App, words []string) walked {
	w := walked{seen: map[cli.Flag]bool{}}
	flags := appFlags(app)
	for _, word := range words {
		switch {
		case w.pending != nil:
			if word == "=" { // bash splits --flag=value at the "="
				continue
			}
			w.pending = nil
		case w.afterDash || (w.cmd != nil && w.cmd.SkipFlagParsing):
			w.positional = append(w.positional, word)
		case word == "--":
			w.afterDash = true
		case word == "=":
		case strings.HasPrefix(word, "-") && word != "-":
			name, _, inline := strings.Cut(strings.TrimLeft(word, "-"), "=")
			if f := flagNamed(flags, name); f != nil {
				w.seen[f] = true
				if takesValue(f) && !inline {
					w.pending = f
				}
			}
		case len(w.positional) == 0 && len(subcommands(app, w.cmd)) > 0:
			if word == "help" || word == "h" {
				w.help = true
				continue
			}
			sub := findCommand(subcommands(app, w.cmd), word)
			if sub == nil {
				w.positional = append(w.positional, word)
				continue
			}
			w.cmd = sub
			flags = withFlags(sub.Flags, cli.HelpFlag)
		default:
			w.positional = append(w.positional, word)
		}
	}
	return w
}

// complete returns what completes the word being typed, after the words
// before it, and whether directory or file names complete there too.
func (cm *completion) complete(app *cli.App, before []string, current string) (cands []candidate, dirs, files bool) {
	w := walk(app, before)
	flags := appFlags(app)
	if w.cmd != nil {
		flags = withFlags(w.cmd.Flags, cli.HelpFlag)
	}
	if w.pending != nil {
		return cm.valuesOf(w.cmd, w.pending, "", current)
	}
	if !w.afterDash && strings.HasPrefix(current, "-") && (w.cmd == nil || !w.cmd.SkipFlagParsing) {
		if name, value, ok := strings.Cut(strings.TrimLeft(current, "-"), "="); ok {
			// --write=FILE: a flag that takes no separate value may take
			// one after "=".
			if f := flagNamed(flags, name); f != nil && (takesValue(f) || takesFile(f)) {
				prefix := current[:len(current)-len(value)]
				return cm.valuesOf(w.cmd, f, prefix, value)
			}
			return nil, false, false
		}
		return flagCandidates(flags, w.seen, current), false, false
	}
	subs := subcommands(app, w.cmd)
	if len(subs) > 0 && len(w.positional) == 0 {
		return commandCandidates(subs, current), false, false
	}
	if w.help || w.cmd == nil {
		return nil, false, false
	}
	args := cm.args[w.cmd]
	if n := len(w.positional); n < len(args) {
		a := args[n]
		if a.values != nil {
			cands = matching(a.values(), current)
		}
		return cands, false, a.files
	}
	if w.cmd.ArgsUsage == "" && current == "" && !w.cmd.SkipFlagParsing {
		// A command without arguments: what can follow is its flags.
		return flagCandidates(flags, w.seen, current), false, false
	}
	return nil, false, false
}

// valuesOf is what a flag's value completes to, each with prefix.
func (cm *completion) valuesOf(cmd *cli.Command, f cli.Flag, prefix, current string) ([]candidate, bool, bool) {
	name := f.Names()[0]
	v := cm.flags[cmd][name]
	if v == nil {
		v = cm.global[name]
	}
	if values := valuesOrNil(v); len(values) > 0 {
		if isSlice(f) {
			values = splitCurrent(values, current)
		}
		return prefixed(matching(values, current), prefix), false, false
	}
	if name == "root" {
		return nil, true, false
	}
	if takesFile(f) {
		return nil, false, true
	}
	return nil, false, false
}

func valuesOrNil(v Values) []string {
	if v == nil {
		return nil
	}
	return v()
}

// splitCurrent lets a comma-separated list complete its last item
// (--toolsets knowledge,re → knowledge,repo).
func splitCurrent(values []string, current string) []string {
	head := ""
	if i := strings.LastIndexByte(current, ','); i >= 0 {
		head = current[:i+1]
	}
	given := strings.Split(head, ",")
	var out []string
	for _, v := range values {
		if !slices.Contains(given, v) {
			out = append(out, head+v)
		}
	}
	return out
}

func prefixed(cands []candidate, prefix string) []candidate {
	for i := range cands {
		cands[i].value = prefix + cands[i].value
	}
	return cands
}

// matching keeps the values that start with current, in their order. A
// value may carry what it is after a tab ("cursor\tCursor").
func matching(values []string, current string) []candidate {
	var out []candidate
	for _, v := range values {
		value, about, _ := strings.Cut(v, "\t")
		if strings.HasPrefix(value, current) {
			out = append(out, candidate{value, about})
		}
	}
	return out
}

func commandCandidates(cmds []*cli.Command, current string) []candidate {
	var out []candidate
	for _, c := range cmds {
		if c.Hidden {
			continue
		}
		for _, n := range c.Names() {
			if strings.HasPrefix(n, current) {
				out = append(out, candidate{n, c.Usage})
			}
		}
	}
	return out
}

// flagCandidates are the flags that can still be given, spelt with "--":
// a flag given once is not offered again unless it takes a list. Of a
// flag's spellings the kebab-case one is offered, the one with
// underscores only once it is being typed.
func flagCandidates(flags []cli.Flag, seen map[cli.Flag]bool, current string) []candidate {
	var out []candidate
	for _, f := range flags {
		if v, ok := f.(cli.VisibleFlag); ok && !v.IsVisible() {
			continue
		}
		if seen[f] && !isSlice(f) {
			continue
		}
		usage := ""
		if d, ok := f.(cli.DocGenerationFlag); ok {
			_, usage = placeholderOf(d.GetUsage())
		}
		for i, n := range displayNames(f) {
			offered := i == 0 || (strings.Contains(n, "_") && strings.Contains(current, "_"))
			if len(n) > 1 && offered && strings.HasPrefix("--"+n, current) {
				out = append(out, candidate{"--" + n, usage})
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].value < out[j].value })
	return out
}

func appFlags(app *cli.App) []cli.Flag {
	return withFlags(app.Flags, cli.HelpFlag, cli.VersionFlag)
}

// withFlags is flags and the extra ones it does not have yet (urfave adds
// --help and --version to a command once it runs).
func withFlags(flags []cli.Flag, extra ...cli.Flag) []cli.Flag {
	out := slices.Clone(flags)
	for _, f := range extra {
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	return out
}

func subcommands(app *cli.App, cmd *cli.Command) []*cli.Command {
	if cmd == nil {
		return app.Commands
	}
	return cmd.Subcommands
}

func findCommand(cmds []*cli.Command, name string) *cli.Command {
	for _, c := range cmds {
		if c.HasName(name) {
			return c
		}
	}
	return nil
}

func takesValue(f cli.Flag) bool {
	if g, ok := f.(*cli.GenericFlag); ok {
		if b, ok := g.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			return false
		}
	}
	d, ok := f.(cli.DocGenerationFlag)
	return ok && d.TakesValue()
}

func takesFile(f cli.Flag) bool {
	switch f := f.(type) {
	case *cli.StringFlag:
		return f.TakesFile
	case *cli.GenericFlag:
		return f.TakesFile
	case *cli.PathFlag:
		return true
	}
	return false
}

func isSlice(f cli.Flag) bool {
	s, ok := f.(cli.DocGenerationSliceFlag)
	return ok && s.IsSliceFlag()
}
