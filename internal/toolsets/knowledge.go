package toolsets

import (
	"fmt"

	"github.com/urfave/cli/v2"

	spec "github.com/kontext-dev/kontext/gen/toolsets/knowledge"
	kcli "github.com/kontext-dev/kontext/internal/cli"
	"github.com/kontext-dev/kontext/internal/fsroot"
	"github.com/kontext-dev/kontext/internal/knowledge"
	"github.com/kontext-dev/kontext/internal/mcp"
)

// Knowledge is the knowledge toolset (seeds/004).
func Knowledge() kcli.ToolsetFactory {
	return kcli.ToolsetFactory{
		Name:        spec.Name,
		Description: spec.Description,
		Describe:    func() *mcp.Toolset { return spec.Toolset(nil) },
		Open: func(root *fsroot.Root) (*mcp.Toolset, func(*mcp.Server), error) {
			h := knowledge.NewHandlers(knowledge.NewService(root.Dir()))
			return h.Toolset(), h.Attach, nil
		},
		Flags: spec.Flags,
		Verbs: []kcli.Verb{
			{Name: "brief", Tool: "ctx_brief", Usage: "the team's context for this repository"},
			{Name: "search", Tool: "ctx_search", Arg: "query", Usage: "search decisions, conventions, learnings, incidents, docs and commits"},
			{Name: "read", Tool: "ctx_read", Arg: "uri", Usage: "read kx:<id>, file:<path>[#section], git:<sha>, inbox:<id> or a path"},
			{Name: "why", Tool: "ctx_why", Arg: "target", Usage: "why a path, a line, a commit or a symbol is the way it is"},
			{Name: "log", Tool: "ctx_log", Usage: "the timeline of one kind of entry"},
			{Name: "capture", Tool: "ctx_capture", Usage: "capture a decision, convention, learning or incident"},
			{Name: "inbox", Tool: "ctx_inbox", Usage: "list, show, promote or drop captured candidates"},
			{Name: "prepare-commit", Tool: "ctx_prepare_commit", Usage: "promote and drop candidates, stage the knowledge, report on the change"},
		},
		Commands: []*cli.Command{settingsCommand()},
	}
}

// settingsCommand prints the effective knowledge configuration and the file
// each value comes from. Named so that it cannot be taken for the client
// presets of `kontext config <client>`.
func settingsCommand() *cli.Command {
	return &cli.Command{
		Name:  "settings",
		Usage: "print the effective knowledge configuration and where each value comes from",
		Flags: []cli.Flag{&cli.StringFlag{Name: "root", Usage: "repository root (default $KONTEXT_ROOT, else the working directory)"}},
		Action: func(c *cli.Context) error {
			text, err := knowledge.Settings(c.Context, c.String("root"))
			if err != nil {
				return err
			}
			fmt.Fprint(c.App.Writer, text)
			return nil
		},
	}
}
