package inventory

import (
	"github.com/urfave/cli/v2"

	spec "github.com/kontext-dev/kontext/gen/toolsets/repo"
	"github.com/kontext-dev/kontext/gen/toolsets/repo/flags"
	kcli "github.com/kontext-dev/kontext/internal/cli"
	"github.com/kontext-dev/kontext/internal/fsroot"
	"github.com/kontext-dev/kontext/internal/mcp"
	"github.com/kontext-dev/kontext/internal/repo/graph"
	"github.com/kontext-dev/kontext/internal/repo/tools"
)

// Repo is the repo toolset (seeds/000): the computed knowledge graph of the
// repository.
func Repo() kcli.ToolsetFactory {
	return kcli.ToolsetFactory{
		Name:        spec.Name,
		Description: spec.Description,
		Describe:    func() *mcp.Toolset { return spec.Toolset(nil) },
		Open: func(root *fsroot.Root) (*mcp.Toolset, func(*mcp.Server), error) {
			// The process's one engine (engine.go): the knowledge bootstrap
			// and the repo commands read the same analyses.
			return tools.New(root, sharedEngine()).Toolset(), nil, nil
		},
		Flags:    repoFlags,
		Category: kcli.CategoryRepository,
		Commands: repoCommands(),
		Args: map[string][]kcli.Arg{
			"impact": {{Files: true}},
		},
		FlagValues: map[string]map[string][]string{"graph": {"format": graph.Formats}},
	}
}

// repoFlags are the tools' generated flags without root: on the command
// line --root already chooses the server's root, which is the repository
// the tool analyses (and a second --root would not parse).
func repoFlags(tool string) []cli.Flag {
	var out []cli.Flag
	for _, f := range flags.Flags(tool) {
		if f.Names()[0] != "root" {
			out = append(out, f)
		}
	}
	return out
}
