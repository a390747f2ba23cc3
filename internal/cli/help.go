package cli

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/kontext-dev/kontext/internal/lazyregexp"
)

// The categories the commands are grouped in, in the order the help lists
// them. Every visible command has one (TestEveryCommandHasACategory).
const (
	CategoryServing    = "serving"
	CategoryKnowledge  = "knowledge"
	CategoryRepository = "repository"
	CategorySetup      = "setup"
)

var categoryOrder = []string{CategoryServing, CategoryKnowledge, CategoryRepository, CategorySetup}

func init() {
	cli.FlagStringer = flagHelp
	cli.HelpFlag = &cli.BoolFlag{Name: "help", Aliases: []string{"h"}, Usage: "show this help"}
	// The help of a command: "options", not urfave's "command options",
	// and the usage line every command's UsageText spells out.
	cli.CommandHelpTemplate = `NAME:
   {{template "helpNameTemplate" .}}

USAGE:
   {{template "usageTemplate" .}}{{if .Description}}

DESCRIPTION:
   {{template "descriptionTemplate" .}}{{end}}{{if .VisibleFlags}}

OPTIONS:{{template "visibleFlagTemplate" .}}{{end}}
`
	cli.SubcommandHelpTemplate = `NAME:
   {{template "helpNameTemplate" .}}

USAGE:
   {{template "usageTemplate" .}}{{if .Description}}

DESCRIPTION:
   {{template "descriptionTemplate" .}}{{end}}{{if .VisibleCommands}}

COMMANDS:{{template "visibleCommandTemplate" .}}{{end}}{{if .VisibleFlags}}

OPTIONS:{{template "visibleFlagTemplate" .}}{{end}}
`
}

// appHelpTemplate lists the commands by category, in categoryOrder (urfave
// sorts categories by name), from the text commandList prepared.
const appHelpTemplate = `NAME:
   {{template "helpNameTemplate" .}}

USAGE:
   {{.UsageText}}

VERSION:
   {{.Version}}
{{index .Metadata "kontext/commands"}}
GLOBAL OPTIONS:{{template "visibleFlagTemplate" .}}

Run 'kontext <command> --help' for a command's options, 'kontext completion --help' to set up
tab completion in your shell.
`

// commandList is the COMMANDS part of the help: one section per category,
// the names in one column across all of them.
func commandList(commands []*cli.Command) string {
	width := 0
	for _, c := range commands {
		if !c.Hidden && len(c.Name) > width {
			width = len(c.Name)
		}
	}
	var b strings.Builder
	for _, cat := range categoryOrder {
		var lines []string
		for _, c := range commands {
			if c.Hidden || c.Category != cat {
				continue
			}
			lines = append(lines, fmt.Sprintf("   %-*s  %s", width, c.Name, c.Usage))
		}
		if len(lines) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n%s COMMANDS:\n%s\n", strings.ToUpper(cat), strings.Join(lines, "\n"))
	}
	return b.String()
}

// flagHelp is how a flag shows in help: every name of more than one letter
// with "--", the kebab-case spelling first, and a default only where the
// flag has one. urfave's own adds "(default: false)" to every boolean and
// "(default: 0)" to every number, which contradicts the generated flags'
// "(default true)", and those take their default from the schema, not
// from the flag.
func flagHelp(f cli.Flag) string {
	df, ok := f.(cli.DocGenerationFlag)
	if !ok {
		return ""
	}
	placeholder, usage := placeholderOf(df.GetUsage())
	if placeholder == "" && df.TakesValue() {
		placeholder = "value"
	}
	// A flag that may go alone or take a value after "=" (config --write).
	optional := df.TakesValue() && !takesValue(f)
	var names []string
	for _, n := range displayNames(f) {
		name := "--" + n
		if len(n) == 1 {
			name = "-" + n
		}
		switch {
		case optional:
			name += "[=" + placeholder + "]"
		case placeholder != "":
			name += " " + placeholder
		}
		names = append(names, name)
	}
	head := strings.Join(names, ", ")
	if s, ok := f.(cli.DocGenerationSliceFlag); ok && s.IsSliceFlag() {
		head += " [ " + names[0] + " ]"
	}
	if d := defaultText(f, df); d != "" && !strings.Contains(usage, "(default") {
		usage += " (default " + d + ")"
	}
	return head + "\t" + strings.TrimSpace(usage)
}

// displayNames are a flag's names, the kebab-case one before one spelt
// with underscores (--budget-tokens, --budget_tokens), one-letter aliases
// last.
func displayNames(f cli.Flag) []string {
	var long, underscored, short []string
	for _, n := range f.Names() {
		switch {
		case len(n) == 1:
			short = append(short, n)
		case strings.Contains(n, "_"):
			underscored = append(underscored, n)
		default:
			long = append(long, n)
		}
	}
	return append(append(long, underscored...), short...)
}

// placeholderOf takes the `WORD` urfave reads as a value's placeholder out
// of a usage text.
func placeholderOf(usage string) (string, string) {
	start := strings.IndexByte(usage, '`')
	if start < 0 {
		return "", usage
	}
	end := strings.IndexByte(usage[start+1:], '`')
	if end < 0 {
		return "", usage
	}
	word := usage[start+1 : start+1+end]
	return word, usage[:start] + word + usage[start+1+end+1:]
}

// defaultText is a hand-written flag's default, when it has one worth
// saying: not a zero value, which is what "not given" means.
func defaultText(f cli.Flag, df cli.DocGenerationFlag) string {
	if b, ok := f.(*cli.BoolFlag); ok {
		if b.DefaultText != "" {
			return b.DefaultText
		}
		if b.Value {
			return "true"
		}
		return ""
	}
	if g, ok := f.(*cli.GenericFlag); ok && g.DefaultText == "" {
		return "" // its String() is what was set, not a default
	}
	d := strings.Trim(df.GetDefaultText(), `"`)
	switch d {
	case "", "0", "0s", "false", "[]":
		return ""
	}
	return d
}

var (
	undefinedFlagRE = lazyregexp.New(`^flag provided but not defined: -+(.+)$`)
	needsValueRE    = lazyregexp.New(`^flag needs an argument: -+(.+)$`)
	invalidValueRE  = lazyregexp.New(`^invalid (boolean )?value "(.*)" for (?:flag )?-+([^:]+): (.*)$`)
)

// usageError turns what the flag package says about a command line into
// kontext's terms: flags spelt with "--", a suggestion for a misspelt one,
// and where to read the command's options. Exit status 2.
func usageError(c *cli.Context, err error) error {
	cmd := c.Command
	var flags []cli.Flag
	path := "kontext"
	if cmd != nil && cmd.Name != "" {
		flags = cmd.Flags
		path = cmd.HelpName
	} else {
		flags = c.App.Flags
	}
	help := fmt.Sprintf(" (see %s --help)", path)
	msg := err.Error()
	switch {
	case undefinedFlagRE.MatchString(msg):
		name := undefinedFlagRE.FindStringSubmatch(msg)[1]
		var names []string
		for _, f := range flags {
			names = append(names, f.Names()...)
		}
		names = append(names, "help")
		hint := didYouMean(name, names, func(n string) string { return dashed(n) })
		if hint == "" && path == "kontext" {
			if owner := commandWithFlag(c.App, name); owner != "" {
				return cli.Exit(fmt.Sprintf("unknown flag %s: a command's options go after the command (kontext %s %s …)", dashed(name), owner, dashed(name)), 2)
			}
		}
		return cli.Exit(fmt.Sprintf("unknown flag %s%s%s", dashed(name), hint, help), 2)
	case needsValueRE.MatchString(msg):
		name := needsValueRE.FindStringSubmatch(msg)[1]
		return cli.Exit(fmt.Sprintf("%s needs a value%s", dashed(name), help), 2)
	case invalidValueRE.MatchString(msg):
		m := invalidValueRE.FindStringSubmatch(msg)
		value, name, reason := m[2], m[3], m[4]
		return cli.Exit(fmt.Sprintf("%s: %s%s", dashed(name), invalidValue(flagNamed(flags, name), value, reason), help), 2)
	}
	return cli.Exit(msg+help, 2)
}

// invalidValue says what a flag takes instead of the flag package's
// "parse error".
func invalidValue(f cli.Flag, value, reason string) string {
	switch f.(type) {
	case *cli.BoolFlag:
		return fmt.Sprintf("%q is not true or false", value)
	case *cli.IntFlag, *cli.Int64Flag, *cli.UintFlag, *cli.Uint64Flag, *cli.IntSliceFlag, *cli.Int64SliceFlag:
		return fmt.Sprintf("%q is not a whole number", value)
	case *cli.Float64Flag, *cli.Float64SliceFlag:
		return fmt.Sprintf("%q is not a number", value)
	case *cli.DurationFlag:
		return fmt.Sprintf("%q is not a duration such as 30s, 2m or 1h30m", value)
	}
	return fmt.Sprintf("%q: %s", value, reason)
}

func flagNamed(flags []cli.Flag, name string) cli.Flag {
	for _, f := range flags {
		for _, n := range f.Names() {
			if n == name {
				return f
			}
		}
	}
	return nil
}

// commandWithFlag names the command on the command line that has the
// flag, for the user who put it before the command (kontext --root x
// status).
func commandWithFlag(app *cli.App, name string) string {
	args, _ := app.Metadata[metaArgs].([]string)
	for _, a := range args {
		if c := app.Command(a); c != nil && !c.Hidden && flagNamed(c.Flags, name) != nil {
			return c.Name
		}
	}
	return ""
}

func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}
