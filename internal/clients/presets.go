package clients

// The presets, in the order --list and --all print them. Each one's
// comment names the documentation its format, files and one-liners were
// checked against; the entry structs keep their keys in the order those
// pages show them.

var all = []Client{
	{
		// https://code.claude.com/docs/en/mcp: "Project scope" is
		// .mcp.json at the project root, user scope is mcpServers at the
		// top of ~/.claude.json; a stdio server is {"type":"stdio",
		// command, args, env}, which is what `claude mcp add` writes; `--`
		// separates claude's flags from the server's command line. Claude
		// Code starts servers in the directory it runs in, the project.
		ID:            "claude-code",
		Title:         "Claude Code",
		Format:        JSON,
		Key:           "mcpServers",
		DefaultScope:  Project,
		project:       fixed(".mcp.json"),
		user:          func(e Env) string { return e.home(".claude.json") },
		owns:          [][]string{{".mcp.json"}, {".claude.json"}},
		render:        jsonRender(claudeCodeEntry),
		merge:         jsonMerge("mcpServers", claudeCodeEntry),
		commandLine:   claudeCommandLine,
		commandScopes: []Scope{Project, User},
	},
	{
		// https://modelcontextprotocol.io/docs/develop/connect-local-servers
		// (claude_desktop_config.json: "mcpServers": {name: {command,
		// args}}, in ~/Library/Application Support/Claude on macOS and
		// %APPDATA%\Claude on Windows; the Linux builds use ~/.config/Claude).
		// It starts servers in / (anthropics/claude-code#44764), so the
		// entry names the repository.
		ID:           "claude-desktop",
		Title:        "Claude Desktop",
		Format:       JSON,
		Key:          "mcpServers",
		DefaultScope: User,
		user:         func(e Env) string { return e.appConfig("Claude", "claude_desktop_config.json") },
		owns:         [][]string{{"claude_desktop_config.json"}},
		render:       jsonRender(commandArgsEntry),
		merge:        jsonMerge("mcpServers", commandArgsEntry),
	},
	{
		// https://docs.cline.bot/mcp/configuring-mcp-servers (STDIO
		// example with "disabled": false, "autoApprove": []). Its sibling
		// page shows "alwaysAllow" instead, but Cline's settings schema
		// (src/services/mcp/schemas.ts) only reads autoApprove, so that is
		// the one written here. The file is in VS Code's globalStorage for
		// the saoudrizwan.claude-dev extension; Cline starts servers in /
		// (cline/cline#9950).
		ID:           "cline",
		Title:        "Cline",
		Format:       JSON,
		Key:          "mcpServers",
		DefaultScope: User,
		user: func(e Env) string {
			return e.vscodeUser("globalStorage", "saoudrizwan.claude-dev", "settings", "cline_mcp_settings.json")
		},
		owns:   [][]string{{"cline_mcp_settings.json"}},
		render: jsonRender(clineEntry),
		merge:  jsonMerge("mcpServers", clineEntry),
	},
	{
		// https://docs.continue.dev/customize/deep-dives/mcp
		// (continuedev/continue docs/customize/deep-dives/mcp.mdx):
		// config.yaml holds mcpServers as a list of {name, type, command,
		// args, env}; a workspace adds servers as block files in
		// .continue/mcpServers/, each with the name, version and schema
		// fields a config needs.
		ID:           "continue",
		Title:        "Continue",
		Format:       YAML,
		Key:          "mcpServers",
		DefaultScope: User,
		project:      func(name string) string { return ".continue/mcpServers/" + name + ".yaml" },
		user:         func(e Env) string { return e.home(".continue", "config.yaml") },
		owns:         [][]string{{".continue", "config.yaml"}, {".continue", "mcpServers", "*.yaml"}, {".continue", "mcpServers", "*.yml"}},
		render:       continueRender,
		merge:        continueMerge,
	},
	{
		// https://cursor.com/docs/mcp: .cursor/mcp.json in the project,
		// ~/.cursor/mcp.json for every project; a STDIO server is {type,
		// command, args, env, envFile}; its config interpolation resolves
		// ${env:NAME}, ${userHome} and ${workspaceFolder} (that part read
		// through syllago.dev's page on Cursor's MCP configs, which cites
		// it). The install link is cursor://anysphere.cursor-deeplink/mcp/
		// install?name=…&config=<base64 of the server's JSON> (the docs'
		// "Add to Cursor" generator; forum.cursor.com/t/128080 shows the
		// decoded form, {"command": …, "args": […]}).
		ID:           "cursor",
		Title:        "Cursor",
		Format:       JSON,
		Key:          "mcpServers",
		DefaultScope: Project,
		WorkspaceVar: "${workspaceFolder}",
		project:      fixed(".cursor/mcp.json"),
		user:         func(e Env) string { return e.home(".cursor", "mcp.json") },
		owns:         [][]string{{".cursor", "mcp.json"}},
		render:       jsonRender(cursorEntry),
		merge:        jsonMerge("mcpServers", cursorEntry),
		link:         cursorLink,
	},
	{
		// https://code.visualstudio.com/docs/copilot/reference/mcp-configuration
		// (microsoft/vscode-docs): .vscode/mcp.json or the profile's
		// mcp.json, servers under "servers" (not mcpServers), type "stdio"
		// required, ${workspaceFolder} among the predefined variables.
		// docs/copilot/customization/mcp-servers.md: `code --add-mcp
		// '{"name":…,…}'` adds to the user profile. The install link is
		// vscode:mcp/install?<URL-encoded JSON with the name>, which
		// src/vs/workbench/contrib/mcp/browser/mcpUrlHandler.ts decodes.
		// VS Code reads mcp.json as JSON with comments.
		ID:            "vscode",
		Title:         "VS Code",
		Format:        JSONC,
		Key:           "servers",
		DefaultScope:  Project,
		WorkspaceVar:  "${workspaceFolder}",
		project:       fixed(".vscode/mcp.json"),
		user:          func(e Env) string { return e.vscodeUser("mcp.json") },
		owns:          [][]string{{".vscode", "mcp.json"}, {"Code", "User", "mcp.json"}, {"Code - Insiders", "User", "mcp.json"}},
		render:        jsonRender(vscodeEntry),
		merge:         jsoncMerge("servers", vscodeEntry, nil),
		commandLine:   vscodeCommandLine,
		commandScopes: []Scope{User},
		link:          vscodeLink,
	},
	{
		// https://docs.windsurf.com/windsurf/cascade/mcp (mcp_config.json
		// in ~/.codeium/windsurf, global only, "the same schema as the
		// config file for Claude Desktop": command, args, env).
		ID:           "windsurf",
		Title:        "Windsurf",
		Format:       JSON,
		Key:          "mcpServers",
		DefaultScope: User,
		user:         func(e Env) string { return e.home(".codeium", "windsurf", "mcp_config.json") },
		owns:         [][]string{{".codeium", "windsurf", "mcp_config.json"}},
		render:       jsonRender(commandArgsEntry),
		merge:        jsonMerge("mcpServers", commandArgsEntry),
	},
	{
		// openai/codex docs/config.md ("mcp_servers": [mcp_servers.<name>]
		// with command, args, env, cwd; `codex mcp add docs -- docs-server
		// --port 4000`, which writes $CODEX_HOME/config.toml);
		// https://developers.openai.com/codex/config-basic: a trusted
		// project may add .codex/config.toml. Codex starts servers in the
		// session's directory.
		ID:            "codex",
		Title:         "Codex",
		Format:        TOML,
		Key:           "mcp_servers",
		DefaultScope:  User,
		project:       fixed(".codex/config.toml"),
		user:          codexConfig,
		owns:          [][]string{{".codex", "config.toml"}},
		render:        codexRender,
		merge:         codexMerge,
		commandLine:   codexCommandLine,
		commandScopes: []Scope{User},
	},
	{
		// zed-industries/zed docs/src/ai/mcp.md ("context_servers": {name:
		// {"source": "custom", command, args, env}} in settings.json,
		// which is JSON with comments; .zed/settings.json holds a
		// project's settings). crates/project/src/context_server_store.rs
		// starts a server in the project's directory.
		ID:           "zed",
		Title:        "Zed",
		Format:       JSONC,
		Key:          "context_servers",
		DefaultScope: Project,
		project:      fixed(".zed/settings.json"),
		// Zed's paths::config_dir: %APPDATA%\Zed on Windows, XDG on Linux,
		// and ~/.config/zed on macOS whatever XDG_CONFIG_HOME says.
		user: func(e Env) string {
			switch e.OS {
			case "windows":
				return e.appData("Zed", "settings.json")
			case "darwin":
				return e.home(".config", "zed", "settings.json")
			}
			return e.xdgConfig("zed", "settings.json")
		},
		owns:   [][]string{{".zed", "settings.json"}, {"zed", "settings.json"}, {"Zed", "settings.json"}},
		render: jsonRender(zedEntry),
		merge:  jsoncMerge("context_servers", zedEntry, nil),
	},
	{
		// google-gemini/gemini-cli docs/tools/mcp-server.md: mcpServers in
		// ~/.gemini/settings.json or .gemini/settings.json, {command, args,
		// env, cwd, timeout, trust}; trust defaults to false and bypasses
		// every confirmation, so it is written out, false, for the user to
		// decide. `gemini mcp add [--scope user|project] <name> <command>
		// [args...]`, with server arguments after `--`
		// (packages/cli/src/commands/mcp/add.ts). The settings are read
		// through strip-json-comments: JSON with comments.
		ID:            "gemini",
		Title:         "Gemini CLI",
		Format:        JSONC,
		Key:           "mcpServers",
		DefaultScope:  Project,
		project:       fixed(".gemini/settings.json"),
		user:          func(e Env) string { return e.home(".gemini", "settings.json") },
		owns:          [][]string{{".gemini", "settings.json"}},
		render:        jsonRender(geminiEntry),
		merge:         jsoncMerge("mcpServers", geminiEntry, nil),
		commandLine:   geminiCommandLine,
		commandScopes: []Scope{Project, User},
	},
	{
		// https://opencode.ai/docs/mcp-servers: "mcp": {name: {"type":
		// "local", "command": [the command and its arguments], "enabled",
		// "environment"}} in opencode.json (or .jsonc, which the docs'
		// examples use) at the project root or in
		// ~/.config/opencode/opencode.json; the config's "$schema" is
		// https://opencode.ai/config.json.
		ID:           "opencode",
		Title:        "opencode",
		Format:       JSONC,
		Key:          "mcp",
		DefaultScope: Project,
		project:      fixed("opencode.json"),
		user:         func(e Env) string { return e.xdgConfig("opencode", "opencode.json") },
		owns:         [][]string{{"opencode.json"}, {"opencode.jsonc"}},
		render:       jsonRender(opencodeEntry),
		merge:        jsoncMerge("mcp", opencodeEntry, opencodeSchema),
	},
	{
		// aaif-goose/goose documentation/docs/guides/config-files.md:
		// ~/.config/goose/config.yaml (Windows
		// %APPDATA%\Block\goose\config\config.yaml), extensions: {name:
		// {type: stdio, name, enabled, cmd, args, env_keys, envs,
		// timeout}}. Goose has no project file.
		ID:           "goose",
		Title:        "Goose",
		Format:       YAML,
		Key:          "extensions",
		DefaultScope: User,
		user: func(e Env) string {
			if e.OS == "windows" {
				return e.appData("Block", "goose", "config", "config.yaml")
			}
			return e.xdgConfig("goose", "config.yaml")
		},
		owns:   [][]string{{"goose", "config.yaml"}, {"goose", "config", "config.yaml"}},
		render: gooseRender,
		merge:  gooseMerge,
	},
	{
		// https://kiro.dev/docs/mcp/configuration: .kiro/settings/mcp.json
		// in the workspace, ~/.kiro/settings/mcp.json for the user;
		// mcpServers.<name> {command, args, env, disabled, autoApprove,
		// disabledTools}.
		ID:           "kiro",
		Title:        "Kiro",
		Format:       JSON,
		Key:          "mcpServers",
		DefaultScope: Project,
		project:      fixed(".kiro/settings/mcp.json"),
		user:         func(e Env) string { return e.home(".kiro", "settings", "mcp.json") },
		owns:         [][]string{{".kiro", "settings", "mcp.json"}},
		render:       jsonRender(kiroEntry),
		merge:        jsonMerge("mcpServers", kiroEntry),
	},
	{
		// https://www.jetbrains.com/help/ai-assistant/configure-an-mcp-server.html:
		// Settings | Tools | AI Assistant | Model Context Protocol (MCP) >
		// Add takes either the fields or a JSON configuration in the
		// Claude Desktop format ({"mcpServers": {name: {command, args}}}).
		// The settings live in the IDE, so kontext prints what to paste.
		ID:           "jetbrains",
		Title:        "JetBrains AI Assistant",
		Format:       JSON,
		Key:          "mcpServers",
		DefaultScope: User,
		Paste:        "Settings | Tools | AI Assistant | Model Context Protocol (MCP) > Add > JSON",
		render:       jsonFileRender("mcpServers", commandArgsEntry),
	},
}

func fixed(p string) func(string) string { return func(string) string { return p } }

func codexConfig(e Env) string {
	if e.CodexHome != "" {
		return e.join(e.CodexHome, "config.toml")
	}
	return e.home(".codex", "config.toml")
}

type claudeCodeServer struct {
	Type    string            `json:"type"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
}

func claudeCodeEntry(s Spec) any {
	return claudeCodeServer{Type: "stdio", Command: s.Command, Args: s.argv(), Env: map[string]string{}}
}

type typedServer struct {
	Type    string   `json:"type"`
	Command string   `json:"command"`
	Args    []string `json:"args"`
}

func cursorEntry(s Spec) any { return typedServer{Type: "stdio", Command: s.Command, Args: s.argv()} }
func vscodeEntry(s Spec) any { return typedServer{Type: "stdio", Command: s.Command, Args: s.argv()} }

type clineServer struct {
	Command     string   `json:"command"`
	Args        []string `json:"args"`
	Disabled    bool     `json:"disabled"`
	AutoApprove []string `json:"autoApprove"`
}

func clineEntry(s Spec) any {
	return clineServer{Command: s.Command, Args: s.argv(), AutoApprove: []string{}}
}

type commandArgsServer struct {
	Command string   `json:"command"`
	Args    []string `json:"args"`
}

func commandArgsEntry(s Spec) any { return commandArgsServer{Command: s.Command, Args: s.argv()} }

type zedServer struct {
	Source  string            `json:"source"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
}

func zedEntry(s Spec) any {
	return zedServer{Source: "custom", Command: s.Command, Args: s.argv(), Env: map[string]string{}}
}

type geminiServer struct {
	Command string   `json:"command"`
	Args    []string `json:"args"`
	Cwd     string   `json:"cwd"`
	Trust   bool     `json:"trust"`
}

// geminiEntry starts the server in the repository as well as naming it:
// Gemini resolves a relative cwd against the directory it runs in, which
// for a project file is the project ("."), and a user file gets the root.
func geminiEntry(s Spec) any {
	cwd := "."
	if s.Root != "" {
		cwd = s.Root
	}
	return geminiServer{Command: s.Command, Args: s.argv(), Cwd: cwd}
}

type opencodeServer struct {
	Type    string   `json:"type"`
	Command []string `json:"command"`
	Enabled bool     `json:"enabled"`
}

func opencodeEntry(s Spec) any {
	return opencodeServer{Type: "local", Command: append([]string{s.Command}, s.argv()...), Enabled: true}
}

func opencodeSchema(jsonObject) jsonObject {
	return jsonObject{{"$schema", []byte(`"https://opencode.ai/config.json"`)}}
}

type kiroServer struct {
	Command     string            `json:"command"`
	Args        []string          `json:"args"`
	Env         map[string]string `json:"env"`
	Disabled    bool              `json:"disabled"`
	AutoApprove []string          `json:"autoApprove"`
}

func kiroEntry(s Spec) any {
	return kiroServer{Command: s.Command, Args: s.argv(), Env: map[string]string{}, AutoApprove: []string{}}
}
