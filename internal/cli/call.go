package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/sourcegraph/jsonrpc2"
	"github.com/urfave/cli/v2"

	"github.com/kontext-dev/kontext/internal/cliflag"
	"github.com/kontext-dev/kontext/internal/mcp"
	"github.com/kontext-dev/kontext/internal/shell"
)

// runCall calls one tool through an in-process MCP session, so arguments
// are validated exactly as they are for an agent. It prints the result's
// text; a tool error goes to stderr with exit status 1 (so do invalid
// arguments of a toolset that answers them with isError, as knowledge
// does), a refused call (-32602: invalid arguments of a toolset that
// refuses them, as repo does) with exit status 2.
func runCall(c *cli.Context, p Program, tool string, flags []cli.Flag) error {
	return runCallWith(c, p, tool, flags, "", "")
}

// runCallWith is runCall with one argument given positionally.
func runCallWith(c *cli.Context, p Program, tool string, flags []cli.Flag, argName, argValue string) error {
	args := map[string]json.RawMessage{}
	if argName != "" && argValue != "" {
		v, _ := json.Marshal(argValue)
		args[argName] = v
	}
	if raw := c.String("args"); c.IsSet("args") && raw != "" {
		if err := json.Unmarshal([]byte(raw), &args); err != nil {
			return cli.Exit("--args must be a JSON object: "+err.Error(), 2)
		}
	}
	fromFlags, err := cliflag.Arguments(c, flags)
	if err != nil {
		return cli.Exit(err.Error(), 2)
	}
	var overlay map[string]json.RawMessage
	_ = json.Unmarshal(fromFlags, &overlay)
	for k, v := range overlay {
		args[k] = v
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	b, err := buildServer(c, p, mcp.Options{}, log)
	if err != nil {
		return err
	}
	// The handlers see the mark through the session's context: they speak
	// to a person at a shell.
	ctx := shell.With(c.Context)
	client, stop, err := inProcess(ctx, b.server)
	if err != nil {
		return err
	}
	defer stop()
	res, err := client.CallTool(ctx, tool, args)
	if err != nil {
		var rpcErr *jsonrpc2.Error
		if errors.As(err, &rpcErr) {
			return cli.Exit(describeRPCError(tool, rpcErr), 2)
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

// describeRPCError turns -32602's violations into one line.
func describeRPCError(tool string, e *jsonrpc2.Error) string {
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
		for _, v := range data.Violations {
			p, isArg := strings.CutPrefix(v.Path, "/arguments")
			switch {
			case !isArg:
				arguments = false
				parts = append(parts, v.Message)
			case p == "":
				parts = append(parts, v.Message)
			default:
				parts = append(parts, "--"+strings.TrimPrefix(p, "/")+": "+v.Message)
			}
		}
		if !arguments {
			return fmt.Sprintf("%s: %s", tool, strings.Join(parts, "; "))
		}
		return fmt.Sprintf("%s: invalid arguments: %s", tool, strings.Join(parts, "; "))
	}
	return fmt.Sprintf("%s: %s: %s", tool, msg, string(*e.Data))
}
