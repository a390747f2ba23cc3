// Package clients holds the MCP client configuration presets that
// `kontext config` prints and merges: for each client, the entry that
// starts kontext, in the format that client's own documentation gives, the
// files it reads in each scope, and its own add command or install link
// where it has one.
package clients

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/kontext-dev/kontext/internal/lazyregexp"
)

// ServerName is the name kontext's entry has unless --name says otherwise.
const ServerName = "kontext"

// DefaultCommand with DefaultArgs starts kontext's stdio server.
const DefaultCommand = "kontext"

// DefaultArgs is a function, not a variable, so that no caller can change
// the default for the others.
func DefaultArgs() []string { return []string{"mcp"} }

// Format is the syntax of a client's configuration file.
type Format string

const (
	JSON  Format = "json"  // strict JSON
	JSONC Format = "jsonc" // JSON with comments and trailing commas
	YAML  Format = "yaml"
	TOML  Format = "toml"
)

// Scope says which of a client's files an entry goes to.
type Scope string

const (
	// Project is the file inside the repository, shared through git.
	Project Scope = "project"
	// User is the file in the user's home that every project sees.
	User Scope = "user"
)

// Spec is one kontext entry: the name it is listed under, the command
// that starts it, and the repository it serves.
type Spec struct {
	Name    string // "" is ServerName
	Command string
	Args    []string
	// Root is passed as --root Root after Args; "" passes none, and the
	// server then serves the directory the client starts it in.
	Root string
	// Scope selects the file and its conventions; "" is the client's
	// default scope.
	Scope Scope
}

func (s Spec) name() string {
	if s.Name == "" {
		return ServerName
	}
	return s.Name
}

// argv is the server's arguments, root included, never nil: a nil slice
// would encode as null, which no client accepts for args.
func (s Spec) argv() []string {
	args := append([]string{}, s.Args...)
	if s.Root != "" {
		args = append(args, "--root", s.Root)
	}
	return args
}

// validName is what every client accepts as a server name: Claude Code
// and Codex refuse anything else, it is a bare TOML key, and tool-name
// prefixes such as mcp__<name>__ stay short.
var validName = lazyregexp.New(`^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$`)

// CheckName says why name cannot name kontext's entry, or nil.
func CheckName(name string) error {
	if validName.MatchString(name) {
		return nil
	}
	return fmt.Errorf("--name %q: use letters, digits, - and _ (at most 32, starting with a letter or digit), which every client accepts", name)
}

// RootPolicy is what a client's entry names as the repository when no
// --root is given.
type RootPolicy int

const (
	// RootNone adds no --root: the client starts the server in the
	// project, so the entry follows whichever project is open.
	RootNone RootPolicy = iota
	// RootVariable passes the client's own variable for the open
	// workspace folder (Client.WorkspaceVar).
	RootVariable
	// RootRepository passes the absolute top level of the repository
	// `kontext config` runs in: a global entry must say what it serves,
	// since clients such as Claude Desktop and Cline start servers in /.
	RootRepository
)

// Client is one MCP client's preset.
type Client struct {
	ID    string
	Title string
	// Format is the syntax of the client's files.
	Format Format
	// Key is the field that holds the servers, for messages.
	Key string
	// DefaultScope is the scope used when none is asked for.
	DefaultScope Scope
	// WorkspaceVar is the client's variable for the open workspace folder,
	// which project files pass as the root; "" where it has none.
	WorkspaceVar string
	// Paste says where the output goes for a client kontext cannot write
	// a file for (JetBrains keeps MCP settings inside the IDE).
	Paste string

	// project is the project file relative to the repository's top level
	// (it may depend on the entry's name); nil where there is none.
	project func(name string) string
	// user is the user-scope file; nil where there is none.
	user func(Env) string
	// owns lists trailing path elements that identify the client's files
	// wherever they are ("*" matches any one element).
	owns [][]string

	render      func(Spec) ([]byte, error)
	file        func(Spec) ([]byte, error)
	merge       func(existing []byte, s Spec) ([]byte, error)
	commandLine func(Spec) ([]string, error)
	link        func(Spec) (string, error)
	// commandScopes are the scopes the add command can write; the first
	// is used when the client's default scope is not among them.
	commandScopes []Scope
}

// Scopes are the scopes the client has a file for, project first.
func (c Client) Scopes() []Scope {
	var out []Scope
	if c.project != nil {
		out = append(out, Project)
	}
	if c.user != nil || c.Paste != "" {
		out = append(out, User)
	}
	return out
}

// HasScope says whether the client has a file (or a settings page) for scope.
func (c Client) HasScope(s Scope) bool { return slices.Contains(c.Scopes(), s) }

// Writable says whether kontext can write the client's configuration.
func (c Client) Writable() bool { return c.merge != nil }

// HasCommandLine and HasLink say which one-liners the client offers.
func (c Client) HasCommandLine() bool { return c.commandLine != nil }
func (c Client) HasLink() bool        { return c.link != nil }

func (c Client) scope(s Spec) Scope {
	if s.Scope == "" {
		return c.DefaultScope
	}
	return s.Scope
}

// ScopeError is a scope the client has no file for.
func (c Client) ScopeError(s Scope) error {
	var has []string
	for _, sc := range c.Scopes() {
		has = append(has, "--scope "+string(sc))
	}
	return fmt.Errorf("%s has no %s configuration (it has %s)", c.Title, s, strings.Join(has, " and "))
}

// RootPolicy is what the entry for scope names as the repository by
// default: the client's workspace variable or nothing in a project file
// (the file travels with the repository and these clients start servers
// in the project), the repository's absolute top level in a global one.
func (c Client) RootPolicy(s Scope) RootPolicy {
	switch {
	case s == Project && c.WorkspaceVar != "":
		return RootVariable
	case s == Project:
		return RootNone
	default:
		return RootRepository
	}
}

// Render returns the value of the client's servers field that holds only
// kontext's entry, as the client's documentation writes it. It is what
// gets merged into the client's file; for JetBrains it is what to paste.
func (c Client) Render(s Spec) ([]byte, error) {
	s, err := c.normalize(s)
	if err != nil {
		return nil, err
	}
	return c.render(s)
}

// File returns a whole configuration file holding only kontext's entry,
// which can be saved as it is.
func (c Client) File(s Spec) ([]byte, error) {
	s, err := c.normalize(s)
	if err != nil {
		return nil, err
	}
	if c.file != nil {
		return c.file(s)
	}
	if c.merge == nil {
		return c.render(s)
	}
	return c.merge(nil, s)
}

// Merge returns existing (the contents of the client's configuration
// file, empty when there is none) with kontext's entry set and everything
// else kept.
func (c Client) Merge(existing []byte, s Spec) ([]byte, error) {
	s, err := c.normalize(s)
	if err != nil {
		return nil, err
	}
	if c.merge == nil {
		return nil, c.notWritable()
	}
	return c.merge(existing, s)
}

// CommandLine returns the client's own command that adds kontext's entry,
// as arguments, for s's scope; with none, for CommandScope's.
func (c Client) CommandLine(s Spec) ([]string, error) {
	if c.commandLine == nil {
		return nil, fmt.Errorf("%s has no command that adds a server; use --write or --file%s", c.Title, c.linkHint())
	}
	s.Scope = c.CommandScope(s.Scope)
	s, err := c.normalize(s)
	if err != nil {
		return nil, err
	}
	if sc := c.scope(s); !slices.Contains(c.commandScopes, sc) {
		return nil, fmt.Errorf("%s's add command writes only the %s configuration; for the %s file use --write", c.Title, c.commandScopes[0], sc)
	}
	return c.commandLine(s)
}

// CommandScope is the scope the add command writes when none is asked for.
func (c Client) CommandScope(asked Scope) Scope {
	if asked != "" {
		return asked
	}
	if slices.Contains(c.commandScopes, c.DefaultScope) || len(c.commandScopes) == 0 {
		return c.DefaultScope
	}
	return c.commandScopes[0]
}

// Link returns the client's install link, which adds the server to the
// user's configuration when opened.
func (c Client) Link(s Spec) (string, error) {
	if c.link == nil {
		return "", fmt.Errorf("%s has no install link; use --write or --file", c.Title)
	}
	s, err := c.normalize(s)
	if err != nil {
		return "", err
	}
	return c.link(s)
}

func (c Client) linkHint() string {
	if c.link != nil {
		return ", or --link"
	}
	return ""
}

func (c Client) notWritable() error {
	if c.Paste != "" {
		return fmt.Errorf("%s keeps its MCP servers in its settings, not in a file kontext can write: paste the output of `kontext config %s` into %s", c.Title, c.ID, c.Paste)
	}
	return fmt.Errorf("kontext cannot write %s's configuration", c.Title)
}

// normalize checks s and fills in its scope, which the formats read.
func (c Client) normalize(s Spec) (Spec, error) {
	if err := CheckName(s.name()); err != nil {
		return s, err
	}
	if s.Command == "" {
		return s, errors.New("the command must not be empty")
	}
	s.Scope = c.scope(s)
	if !c.HasScope(s.Scope) {
		return s, c.ScopeError(s.Scope)
	}
	return s, nil
}

// EntryLabel names the entry s makes in the client's file, for messages.
func (c Client) EntryLabel(s Spec) string {
	switch c.ID {
	case "continue":
		return c.Key + "[name=" + s.name() + "]"
	case "codex":
		return codexHeader(s.name())
	}
	return c.Key + "." + s.name()
}

// All returns every preset, in the order --list and --all print them.
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

// WriteList writes one line per client: its id, then where its
// configuration lives in each scope (the default scope first is marked)
// and which one-liners it has.
func WriteList(w io.Writer, env Env) error {
	width := 0
	for _, c := range all {
		width = max(width, len(c.ID))
	}
	for _, c := range all {
		if _, err := fmt.Fprintf(w, "%-*s  %s\n", width, c.ID, c.describe(env)); err != nil {
			return err
		}
	}
	return nil
}

func (c Client) describe(env Env) string {
	var where []string
	for _, sc := range c.Scopes() {
		mark := ""
		if sc == c.DefaultScope && len(c.Scopes()) > 1 {
			mark = ", default"
		}
		where = append(where, fmt.Sprintf("%s (%s%s)", c.DisplayPath(sc, env), sc, mark))
	}
	line := c.Title + ": " + strings.Join(where, ", ")
	var extra []string
	if c.commandLine != nil {
		extra = append(extra, "--command-line")
	}
	if c.link != nil {
		extra = append(extra, "--link")
	}
	if len(extra) > 0 {
		line += "; " + strings.Join(extra, ", ")
	}
	return line
}

// WriteAll writes every client's preset in its default scope, each after
// a header line naming the client, its servers field and its file,
// separated by blank lines. It is for reading and copying block by block:
// no client accepts the whole of it. spec gives each client's entry.
func WriteAll(w io.Writer, env Env, spec func(Client) (Spec, error)) error {
	var b strings.Builder
	for i, c := range all {
		s, err := spec(c)
		if err != nil {
			return fmt.Errorf("%s: %w", c.ID, err)
		}
		out, err := c.Render(s)
		if err != nil {
			return fmt.Errorf("%s: %w", c.ID, err)
		}
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "# %s: %s in %s\n", c.ID, c.Key, c.DisplayPath(c.scope(s), env))
		b.Write(out)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
