package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"strings"

	"github.com/sourcegraph/jsonrpc2"
	"github.com/urfave/cli/v2"

	"github.com/kontext-dev/kontext/internal/cliflag"
	"github.com/kontext-dev/kontext/internal/mcp"
	"github.com/kontext-dev/kontext/internal/shell"
)

// toolArguments are the arguments the tool's flags set (unset flags are
// left out, so the schema's defaults apply).
func toolArguments(c *cli.Context, flags []cli.Flag) (map[string]json.RawMessage, error) {
	raw, err := cliflag.Arguments(c, flags)
	if err != nil {
		return nil, cli.Exit(err.Error(), 2)
	}
	args := map[string]json.RawMessage{}
	if err := json.Unmarshal(raw, &args); err != nil {
		return nil, err
	}
	return args, nil
}

// callTool calls one tool through an in-process MCP session, so arguments
// are validated exactly as they are for an agent. It prints the result's
// text; a tool error goes to stderr with exit status 1, invalid arguments
// (refused in every toolset, see mcp.Options.RefuseInvalidArguments) with
// exit status 2. names says how the command line
// spells each parameter (<query>, --limit); prefix, when not empty, leads
// the message of a refused call (the tool's name for kontext call).
func callTool(c *cli.Context, p Program, tool string, args map[string]json.RawMessage, names map[string]string, prefix string) error {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	// The command line names parameters as its flags and arguments, so it
	// asks for invalid arguments as -32602 whatever the toolset's policy.
	b, err := buildServer(c, p, mcp.Options{RefuseInvalidArguments: true}, log)
	if err != nil {
		return err
	}
	// The handlers see the mark through the session's context: they speak
	// to a person at a shell.
	ctx := shell.With(c.Context)
	// Closing the toolsets waits for what a call delivers in the
	// background (an adapter's event), which the process would cut off.
	defer b.close()
	client, stop, err := inProcess(ctx, b.server)
	if err != nil {
		return err
	}
	defer stop()
	res, err := client.CallTool(ctx, tool, args)
	if err != nil {
		var rpcErr *jsonrpc2.Error
		if errors.As(err, &rpcErr) {
			var schema inputSchema
			for _, f := range p.Toolsets {
				if s, ok := findToolSchema(f, tool); ok {
					schema = s
				}
			}
			msg := describeRPCError(rpcErr, args, schema.missing(args, names), names)
			if prefix != "" {
				msg = prefix + ": " + msg
			} else {
				msg += " (see " + c.Command.HelpName + " --help)"
			}
			return cli.Exit(msg, 2)
		}
		return err
	}
	var texts []string
	for _, block := range res.Content {
		var t struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if json.Unmarshal(block, &t) == nil && t.Type == "text" {
			texts = append(texts, t.Text)
		}
	}
	if res.IsError != nil && *res.IsError {
		return cli.Exit(strings.Join(texts, " "), 1)
	}
	for _, t := range texts {
		fmt.Fprintln(c.App.Writer, t)
	}
	return nil
}

// describeRPCError turns -32602's violations into one line, each naming
// the parameter as the command line spells it. The validator's "missing
// property 'x'" becomes "missing --x" (or <x>).
func describeRPCError(e *jsonrpc2.Error, args map[string]json.RawMessage, missing []string, names map[string]string) string {
	msg := e.Message
	if e.Data == nil {
		return msg
	}
	var data struct {
		Violations []mcp.Violation `json:"violations"`
	}
	if json.Unmarshal(*e.Data, &data) == nil && len(data.Violations) > 0 {
		var parts []string
		arguments := true
		saidMissing := false
		// "--kinds: got array, want string" is the other branch of a list
		// parameter's anyOf: what is wrong is said deeper (--kinds/0).
		deeper := map[string]bool{}
		for _, v := range data.Violations {
			if p, ok := strings.CutPrefix(v.Path, "/arguments/"); ok && strings.Contains(p, "/") {
				param, _, _ := strings.Cut(p, "/")
				deeper[param] = true
			}
		}
		// An integer also taken as a string of digits (the knowledge
		// toolset's) fails both arms of its anyOf: "--limit: got number,
		// want string" says nothing when its range is what is wrong.
		otherwise := map[string]bool{}
		for _, v := range data.Violations {
			if p, ok := strings.CutPrefix(v.Path, "/arguments/"); ok && !isTypeMismatch(v.Message) {
				otherwise[p] = true
			}
		}
		for _, v := range data.Violations {
			if p, ok := strings.CutPrefix(v.Path, "/arguments/"); ok && (deeper[p] || otherwise[p] && isTypeMismatch(v.Message)) {
				continue
			}
			p, isArg := strings.CutPrefix(v.Path, "/arguments")
			switch {
			case !isArg:
				arguments = false
				parts = append(parts, v.Message)
			case p == "" && strings.HasPrefix(v.Message, "missing propert") && len(missing) > 0:
				if !saidMissing {
					parts = append(parts, "missing "+joinAnd(missing))
					saidMissing = true
				}
			case p == "":
				parts = append(parts, v.Message)
			default:
				param, rest, _ := strings.Cut(strings.TrimPrefix(p, "/"), "/")
				name := names[param]
				if name == "" {
					name = "--" + param
				}
				if rest != "" {
					name += " " + itemOf(args[param], rest)
				}
				parts = append(parts, name+": "+v.Message)
			}
		}
		if !arguments {
			return strings.Join(parts, "; ")
		}
		return "invalid arguments: " + strings.Join(parts, "; ")
	}
	return fmt.Sprintf("%s: %s", msg, string(*e.Data))
}

// isTypeMismatch reports whether a violation says only that a value has
// another type than one arm of its schema wants ("got number, want string").
func isTypeMismatch(message string) bool {
	return strings.HasPrefix(message, "got ") && strings.Contains(message, ", want ")
}

// itemOf names the item a violation's path points at in a list value:
// "nope" for /0 of ["nope"], else the path.
func itemOf(value json.RawMessage, path string) string {
	var items []any
	if i, err := strconv.Atoi(path); err == nil && json.Unmarshal(value, &items) == nil && i < len(items) {
		if s, ok := items[i].(string); ok {
			return strconv.Quote(s)
		}
	}
	return "/" + path
}

// inputSchema is what the command line reads of a tool's input schema.
type inputSchema struct {
	Properties map[string]propertySchema `json:"properties"`
	Required   []string                  `json:"required"`
}

type propertySchema struct {
	Enum  []any           `json:"enum"`
	Items *propertySchema `json:"items"`
	// A list parameter is a list or one string (anyOf).
	AnyOf []propertySchema `json:"anyOf"`
}

// values is what the property, its items or its alternatives may be.
func (p propertySchema) values() []any {
	out := p.Enum
	if p.Items != nil {
		out = append(out, p.Items.values()...)
	}
	for _, alt := range p.AnyOf {
		out = append(out, alt.values()...)
	}
	return out
}

// enum is the values a parameter (or its items) may take, as text.
func (s inputSchema) enum(param string) []string {
	var out []string
	for _, v := range s.Properties[param].values() {
		if t := fmt.Sprint(v); !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

// missing names the required parameters args lacks, as the command line
// spells them.
func (s inputSchema) missing(args map[string]json.RawMessage, names map[string]string) []string {
	var out []string
	for _, r := range s.Required {
		if _, ok := args[r]; ok {
			continue
		}
		if n := names[r]; n != "" {
			out = append(out, n)
		} else {
			out = append(out, "--"+r)
		}
	}
	return out
}

func findToolSchema(f ToolsetFactory, tool string) (inputSchema, bool) {
	for _, t := range f.Describe().Tools {
		if t.Name == tool {
			var s inputSchema
			_ = json.Unmarshal(t.InputSchema, &s)
			return s, true
		}
	}
	return inputSchema{}, false
}

// toolSchema is the input schema of one of the factory's tools; a verb
// naming a tool the toolset does not have is a programming error.
func toolSchema(f ToolsetFactory, tool string) inputSchema {
	s, ok := findToolSchema(f, tool)
	if !ok {
		panic(fmt.Sprintf("kontext: toolset %s has no tool %s", f.Name, tool))
	}
	return s
}

// flagUsage and setUsage read and write the usage text of the flags the
// generator makes.
func flagUsage(f cli.Flag) string {
	if d, ok := f.(cli.DocGenerationFlag); ok {
		return d.GetUsage()
	}
	return ""
}

func setUsage(f cli.Flag, usage string) {
	switch f := f.(type) {
	case *cli.StringFlag:
		f.Usage = usage
	case *cli.Int64Flag:
		f.Usage = usage
	case *cli.Float64Flag:
		f.Usage = usage
	case *cli.BoolFlag:
		f.Usage = usage
	case *cli.StringSliceFlag:
		f.Usage = usage
	case *cli.Int64SliceFlag:
		f.Usage = usage
	case *cli.GenericFlag:
		f.Usage = usage
	}
}
