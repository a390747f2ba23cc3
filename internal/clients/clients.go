// Package clients holds the MCP client configuration presets that
// `kontext config` prints and merges: for each client, the value of its
// mcpServers field that starts kontext, in the format that client's own
// documentation gives.
package clients

import (
	"fmt"
	"io"
	"strings"
)

// ServerName is the name kontext's entry has in every client's mcpServers.
const ServerName = "kontext"

// DefaultCommand with DefaultArgs starts kontext's stdio server.
const DefaultCommand = "kontext"

// DefaultArgs is a function, not a variable, so that no caller can change
// the default for the others.
func DefaultArgs() []string { return []string{"mcp"} }

// Format is the syntax of a client's configuration file.
type Format string

const (
	JSON Format = "json"
	YAML Format = "yaml"
)

// Server is how a client starts kontext.
type Server struct {
	Command string
	Args    []string
}

// Client is one MCP client's preset.
type Client struct {
	ID          string
	Description string
	// File names the configuration file, for people: it is a hint, not a
	// path kontext opens.
	File   string
	Format Format
	// Entry says where the kontext entry lives in File, for messages.
	Entry string

	render func(Server) ([]byte, error)
	merge  func(existing []byte, s Server) ([]byte, error)
}

// Render returns the value of the client's mcpServers field that holds
// only the kontext entry, as the client's documentation writes it.
func (c Client) Render(command string, args []string) ([]byte, error) {
	return c.render(server(command, args))
}

// Merge returns existing (the contents of the client's configuration
// file, empty when there is none) with the kontext entry set and
// everything else kept.
func (c Client) Merge(existing []byte, command string, args []string) ([]byte, error) {
	return c.merge(existing, server(command, args))
}

func server(command string, args []string) Server {
	// A nil slice would encode as null, which no client accepts for args.
	return Server{Command: command, Args: append([]string{}, args...)}
}

// The presets, in the order --list and --all print them. Each one's
// comment names the documentation page its format was checked against.
var all = []Client{
	{
		// Project scope, because .mcp.json is the file a repository shares.
		// https://code.claude.com/docs/en/mcp ("Project scope": the
		// .mcp.json format with command, args and env; "Add MCP servers from
		// JSON configuration": a stdio server is {"type":"stdio",…}, which is
		// also what `claude mcp add --scope project` writes).
		ID:          "claude-code",
		Description: "Claude Code, project scope: .mcp.json at the repository root",
		File:        ".mcp.json",
		Format:      JSON,
		Entry:       "mcpServers." + ServerName,
		render:      jsonRender(claudeCodeEntry),
		merge:       jsonMerge(claudeCodeEntry),
	},
	{
		// https://modelcontextprotocol.io/docs/develop/connect-local-servers
		// (claude_desktop_config.json, "mcpServers": {name: {command, args}}).
		ID:          "claude-desktop",
		Description: `Claude Desktop: claude_desktop_config.json (macOS ~/Library/Application Support/Claude/, Windows %APPDATA%\Claude\)`,
		File:        "claude_desktop_config.json",
		Format:      JSON,
		Entry:       "mcpServers." + ServerName,
		render:      jsonRender(commandArgsEntry),
		merge:       jsonMerge(commandArgsEntry),
	},
	{
		// https://docs.cline.bot/mcp/mcp-overview (STDIO example with
		// "disabled": false, "autoApprove": []). Its sibling page
		// adding-and-configuring-servers shows "alwaysAllow" instead, but
		// Cline's settings schema (src/services/mcp/schemas.ts) only reads
		// autoApprove, so that is the one written here.
		ID:          "cline",
		Description: "Cline: cline_mcp_settings.json (MCP Servers > Configure > Configure MCP Servers)",
		File:        "cline_mcp_settings.json",
		Format:      JSON,
		Entry:       "mcpServers." + ServerName,
		render:      jsonRender(clineEntry),
		merge:       jsonMerge(clineEntry),
	},
	{
		// https://docs.continue.dev/reference (config.yaml: mcpServers is a
		// list of {name, command, args, env, cwd}; name, version and schema
		// are required at the top level).
		ID:          "continue",
		Description: "Continue: ~/.continue/config.yaml (YAML; mcpServers is a list)",
		File:        "~/.continue/config.yaml",
		Format:      YAML,
		Entry:       "mcpServers[name=" + ServerName + "]",
		render:      continueRender,
		merge:       continueMerge,
	},
	{
		// https://cursor.com/docs/context/mcp ("STDIO server configuration":
		// type "stdio" is required, command, args; env and envFile are
		// optional and kontext needs neither).
		ID:          "cursor",
		Description: "Cursor: .cursor/mcp.json in the project, or ~/.cursor/mcp.json for every project",
		File:        ".cursor/mcp.json or ~/.cursor/mcp.json",
		Format:      JSON,
		Entry:       "mcpServers." + ServerName,
		render:      jsonRender(cursorEntry),
		merge:       jsonMerge(cursorEntry),
	},
	{
		// https://docs.windsurf.com/windsurf/cascade/mcp (mcp_config.json
		// "should follow the same schema as the config file for Claude
		// Desktop": command, args, env).
		ID:          "windsurf",
		Description: "Windsurf (Cascade): ~/.codeium/windsurf/mcp_config.json",
		File:        "~/.codeium/windsurf/mcp_config.json",
		Format:      JSON,
		Entry:       "mcpServers." + ServerName,
		render:      jsonRender(commandArgsEntry),
		merge:       jsonMerge(commandArgsEntry),
	},
}

// All returns every preset.
func All() []Client { return append([]Client(nil), all...) }

// Lookup returns the preset with that id.
func Lookup(id string) (Client, bool) {
	for _, c := range all {
		if c.ID == id {
			return c, true
		}
	}
	return Client{}, false
}

// IDs returns the ids of every preset, in order.
func IDs() []string {
	ids := make([]string, len(all))
	for i, c := range all {
		ids[i] = c.ID
	}
	return ids
}

// WriteList writes one line per client: its id, then its description.
func WriteList(w io.Writer) error {
	width := 0
	for _, c := range all {
		width = max(width, len(c.ID))
	}
	for _, c := range all {
		if _, err := fmt.Fprintf(w, "%-*s  %s\n", width, c.ID, c.Description); err != nil {
			return err
		}
	}
	return nil
}

// WriteAll writes every client's preset, each after a header line naming
// the client and its file, separated by blank lines. It is for reading and
// copying block by block: no client accepts the whole of it.
func WriteAll(w io.Writer, command string, args []string) error {
	var b strings.Builder
	for i, c := range all {
		out, err := c.Render(command, args)
		if err != nil {
			return fmt.Errorf("%s: %w", c.ID, err)
		}
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "# %s: mcpServers in %s\n", c.ID, c.File)
		b.Write(out)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
