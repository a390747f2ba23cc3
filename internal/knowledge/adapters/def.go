// Package adapters makes other systems sources of the knowledge toolset:
// MCP servers (stdio or streamable HTTP), HTTP APIs and local programs,
// declared under [adapters.<name>] in the layered configuration. It decodes
// and validates the definitions, pins the repository's shared ones by hash
// in the user's trust file, and runs them lazily — one process or HTTP
// session per adapter per kontext process — with deadlines, a cool-down
// after failures, and the original's templates and result mapping. MCP
// adapters go through internal/mcp/proxy, the runtime's one proxy layer.
package adapters

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/kontext-dev/kontext/internal/knowledge/config"
	"github.com/kontext-dev/kontext/internal/lazyregexp"
	"github.com/kontext-dev/kontext/internal/mcp"
)

// Driver says how an adapter's operations run.
type Driver string

// The drivers.
const (
	DriverMCP     Driver = "mcp"
	DriverHTTP    Driver = "http"
	DriverCommand Driver = "command"
)

// The operations kontext itself asks of adapters. Definitions may name
// others (a second store op), which events and declared tools can use.
const (
	OpSearch  = "search"
	OpRead    = "read"
	OpBrief   = "brief"
	OpHistory = "history"
	OpCode    = "code"
	OpStore   = "store"
	OpLLM     = "llm"
	OpHealth  = "health"
)

// The events an adapter may subscribe to.
const (
	EventCapture = "capture"
	EventPromote = "promote"
	EventSync    = "sync"
)

// Defaults of the original.
const (
	DefaultTimeout = 10 * time.Second
	DefaultWeight  = 0.9
	// SearchTimeout bounds search, code and history; BriefTimeout bounds
	// brief. An adapter's or op's timeout_ms replaces them.
	SearchTimeout = 12 * time.Second
	BriefTimeout  = 8 * time.Second
)

// Definition is one validated [adapters.<name>] table. Its strings are
// still templates: ${env:NAME} and {{…}} are expanded when the adapter
// starts or an op runs, never here, so a definition (and its hash) holds
// no secret.
type Definition struct {
	Name        string
	Driver      Driver
	Enabled     bool
	Description string
	When        When
	Vars        map[string]string
	Env         map[string]string
	Cwd         string
	// Command is the MCP server to start (mcp over stdio) or the default
	// argument vector of command ops.
	Command []string
	// URL is the streamable-HTTP endpoint of an mcp adapter, or the base
	// of an http adapter (BaseURL wins).
	URL     string
	BaseURL string
	Headers map[string]string
	// Timeout is timeout_ms (0: the op's default).
	Timeout time.Duration
	Weight  float64
	Expose  Expose
	// Prefix is put before exposed tool names ("<name>_" by default).
	Prefix string
	Ops    map[string]*Op
	On     []Subscription
	Tools  []*DeclaredTool

	// Team is set when any of its settings comes from the repository's
	// shared configuration: it then runs only once the user trusts it.
	Team bool
	// raw is the table as configured, for the hash.
	raw map[string]any
}

// When holds the activation conditions; all that are set must hold.
type When struct {
	Command string `json:"command"` // a program on PATH
	File    string `json:"file"`    // a path in the repository
	Repo    string `json:"repo"`    // a regular expression on the repository id
	Env     string `json:"env"`     // an environment variable that is set
	Exists  string `json:"exists"`  // a templated path; * allowed in its last segment
}

// Expose says which of an MCP server's tools are re-published.
type Expose struct {
	All   bool
	Names []string
}

// None reports whether nothing is exposed.
func (e Expose) None() bool { return !e.All && len(e.Names) == 0 }

// Includes reports whether a downstream tool is exposed.
func (e Expose) Includes(tool string) bool { return e.All || slices.Contains(e.Names, tool) }

// Op is one operation: how to call it (the driver's fields) and how to
// read its answer.
type Op struct {
	Name string `json:"-"`
	// mcp
	Tool string         `json:"tool"`
	Args map[string]any `json:"args"`
	// http
	Method  string            `json:"method"`
	Path    string            `json:"path"`
	URL     string            `json:"url"`
	Query   map[string]string `json:"query"`
	Headers map[string]string `json:"headers"`
	Body    any               `json:"body"`
	// command
	Command    []string          `json:"command"`
	Stdin      string            `json:"stdin"`
	OutputFile bool              `json:"output_file"`
	Cwd        string            `json:"cwd"`
	Env        map[string]string `json:"env"`
	// every driver
	Format    string `json:"format"`
	TimeoutMS int    `json:"timeout_ms"`
	// result mapping (search, history, code)
	Items string            `json:"items"`
	Split string            `json:"split"`
	Where map[string]any    `json:"where"`
	Map   map[string]string `json:"map"`
	// text answers (read, brief, llm, store receipts)
	Text string `json:"text"`
	// read
	Owns []string `json:"owns"`
}

// Subscription maps an event to an op.
type Subscription struct {
	Event      string   `json:"event"`
	Op         string   `json:"op"`
	Visibility string   `json:"visibility"`
	Kinds      []string `json:"kinds"`
}

// DeclaredTool is a tool the configuration declares, backed by one of the
// adapter's calls.
type DeclaredTool struct {
	Name        string
	Description string
	// Schema is the JSON schema of its params.
	Schema json.RawMessage
	// Op is the call behind it: an op of the adapter's (OpName) or its own.
	OpName string
	Op     *Op
}

// Hash pins the definition: the sha256 of its canonical encoding (JSON,
// keys sorted) with the adapter's name, as the trust file records it.
func (d *Definition) Hash() string {
	b, err := json.Marshal(map[string]any{"name": d.Name, "definition": d.raw})
	if err != nil {
		// The table came from TOML, which encodes; keep the name's hash
		// rather than fail, so a definition never hashes like another.
		b = []byte(d.Name + "\x00" + fmt.Sprint(d.raw))
	}
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Timeout is how long one call of op may take: the op's timeout_ms, else
// the adapter's, else the op's default (12 s for search, code and history,
// 8 s for brief, 10 s for the others).
func (d *Definition) OpTimeout(op string) time.Duration {
	if o := d.Ops[op]; o != nil && o.TimeoutMS > 0 {
		return time.Duration(o.TimeoutMS) * time.Millisecond
	}
	if d.Timeout > 0 {
		return d.Timeout
	}
	switch op {
	case OpSearch, OpCode, OpHistory:
		return SearchTimeout
	case OpBrief:
		return BriefTimeout
	}
	return DefaultTimeout
}

// OpNames lists the ops, sorted.
func (d *Definition) OpNames() []string {
	names := make([]string, 0, len(d.Ops))
	for n := range d.Ops {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Owns reports whether uri starts with a prefix the adapter's read op owns.
func (d *Definition) Owns(uri string) bool {
	r := d.Ops[OpRead]
	if r == nil {
		return false
	}
	for _, p := range r.Owns {
		if p != "" && strings.HasPrefix(uri, p) {
			return true
		}
	}
	return false
}

// ToolName is what an exposed downstream tool is called here: the prefix
// and its name, unless the name already starts with the prefix.
func (d *Definition) ToolName(down string) string {
	if strings.HasPrefix(down, d.Prefix) {
		return down
	}
	return d.Prefix + down
}

// Error is a problem with one adapter's definition: it names the adapter,
// the field, and the file that set it when known.
type Error struct {
	Adapter string
	Field   string // "ops.search.items", "" for the adapter as a whole
	Where   string // file:line, when known
	Message string
}

func (e *Error) Error() string {
	key := "adapters." + e.Adapter
	if e.Field != "" {
		key += "." + e.Field
	}
	if e.Where != "" {
		return fmt.Sprintf("%s: %s: %s", e.Where, key, e.Message)
	}
	return key + ": " + e.Message
}

// nameRe is what adapter, op and tool names may be: the character set the
// apps toolset's typed tool names use.
var nameRe = lazyregexp.New(`^[A-Za-z0-9][A-Za-z0-9_-]*$`)

var prefixRe = lazyregexp.New(`^[A-Za-z0-9_-]+$`)

// maxAdapterName leaves an exposed tool's name, <adapter>_<tool>, room
// for the tool within mcp.ToolNameBudget.
const maxAdapterName = 32

// FromConfig decodes and validates every adapter of cfg, sorted by name.
// The first invalid one is an error; Team is set from where the settings
// come from.
func FromConfig(cfg *config.Config) ([]*Definition, error) {
	names := make([]string, 0, len(cfg.Adapters))
	for n := range cfg.Adapters {
		names = append(names, n)
	}
	sort.Strings(names)
	var defs []*Definition
	var errs []error
	for _, n := range names {
		d, err := Decode(n, cfg.Adapters[n])
		if err != nil {
			var de *Error
			if errors.As(err, &de) && de.Where == "" {
				key := "adapters." + n
				if de.Field != "" {
					key += "." + de.Field
				}
				for k := key; ; {
					if s, ok := cfg.Source(k); ok && s.File != "" {
						de.Where = locate(s)
						break
					}
					i := strings.LastIndexByte(k, '.')
					if i <= len("adapters.") {
						break
					}
					k = k[:i]
				}
				if de.Where == "" {
					for _, s := range cfg.SourcesUnder("adapters." + n) {
						if s.File != "" {
							de.Where = s.File
							break
						}
					}
				}
			}
			errs = append(errs, err)
			continue
		}
		for _, s := range cfg.SourcesUnder("adapters." + n) {
			if s.Layer == config.LayerRepository {
				d.Team = true
			}
		}
		defs = append(defs, d)
	}
	return defs, errors.Join(errs...)
}

func locate(s config.Source) string {
	if s.Line > 0 {
		return fmt.Sprintf("%s:%d", s.File, s.Line)
	}
	return s.File
}

// rawDef is the table's shape for the decoder; fields whose TOML may take
// several forms are decoded by hand.
type rawDef struct {
	Driver      string                     `json:"driver"`
	Enabled     *bool                      `json:"enabled"`
	Description string                     `json:"description"`
	When        When                       `json:"when"`
	Vars        map[string]string          `json:"vars"`
	Env         map[string]string          `json:"env"`
	Cwd         string                     `json:"cwd"`
	Command     json.RawMessage            `json:"command"`
	Args        []string                   `json:"args"`
	URL         string                     `json:"url"`
	BaseURL     string                     `json:"base_url"`
	Headers     map[string]string          `json:"headers"`
	TimeoutMS   *int64                     `json:"timeout_ms"`
	Weight      *float64                   `json:"weight"`
	Expose      json.RawMessage            `json:"expose"`
	Prefix      *string                    `json:"prefix"`
	Ops         map[string]json.RawMessage `json:"ops"`
	On          []Subscription             `json:"on"`
	Tools       []rawTool                  `json:"tools"`
}

type rawTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Params      json.RawMessage `json:"params"`
	Op          json.RawMessage `json:"op"`
}

// Decode validates one adapter's table.
func Decode(name string, table map[string]any) (*Definition, error) {
	fail := func(field, format string, args ...any) error {
		return &Error{Adapter: name, Field: field, Message: fmt.Sprintf(format, args...)}
	}
	if !nameRe.MatchString(name) || len(name) > maxAdapterName {
		return nil, fail("", "the name may hold letters, digits, _ and - (at most %d), and start with a letter or digit", maxAdapterName)
	}
	if name == "local" {
		return nil, fail("", `"local" names kontext's own results; choose another name`)
	}
	b, err := json.Marshal(table)
	if err != nil {
		return nil, fail("", "cannot be read: %v", err)
	}
	var r rawDef
	if err := strictDecode(b, &r); err != nil {
		return nil, decodeError(name, "", err)
	}
	d := &Definition{
		Name: name, Driver: Driver(r.Driver), Enabled: r.Enabled == nil || *r.Enabled,
		Description: r.Description, When: r.When, Vars: r.Vars, Env: r.Env, Cwd: r.Cwd,
		URL: r.URL, BaseURL: r.BaseURL, Headers: r.Headers, Weight: DefaultWeight,
		Prefix: name + "_", Ops: map[string]*Op{}, On: r.On, raw: table,
	}
	switch d.Driver {
	case DriverMCP, DriverHTTP, DriverCommand:
	case "":
		return nil, fail("driver", "missing; use mcp, http or command")
	default:
		return nil, fail("driver", "%q; use mcp, http or command", r.Driver)
	}
	if len(r.Command) > 0 && string(r.Command) != "null" {
		var one string
		if json.Unmarshal(r.Command, &one) == nil {
			d.Command = []string{one}
		} else if err := json.Unmarshal(r.Command, &d.Command); err != nil {
			return nil, fail("command", "must be a string or an array of strings")
		}
		if len(d.Command) == 0 || strings.TrimSpace(d.Command[0]) == "" {
			return nil, fail("command", "names no program")
		}
	}
	if len(r.Args) > 0 {
		if len(d.Command) == 0 {
			return nil, fail("args", "needs command")
		}
		d.Command = append(d.Command, r.Args...)
	}
	if r.TimeoutMS != nil {
		if *r.TimeoutMS <= 0 || *r.TimeoutMS > 600000 {
			return nil, fail("timeout_ms", "%d; use a number of milliseconds between 1 and 600000", *r.TimeoutMS)
		}
		d.Timeout = time.Duration(*r.TimeoutMS) * time.Millisecond
	}
	if r.Weight != nil {
		if *r.Weight < 0 || *r.Weight > 10 {
			return nil, fail("weight", "%v; use a number between 0 and 10 (local results weigh 1.0)", *r.Weight)
		}
		d.Weight = *r.Weight
	}
	if r.Prefix != nil {
		if *r.Prefix != "" && !prefixRe.MatchString(*r.Prefix) {
			return nil, fail("prefix", "%q may hold only letters, digits, _ and -", *r.Prefix)
		}
		d.Prefix = *r.Prefix
	}
	if err := d.decodeExpose(r.Expose); err != nil {
		return nil, err
	}
	if r.When.Repo != "" {
		if _, err := regexp.Compile(r.When.Repo); err != nil {
			return nil, fail("when.repo", "%q is not a regular expression: %v", r.When.Repo, err)
		}
	}
	switch d.Driver {
	case DriverMCP:
		if (len(d.Command) == 0) == (d.URL == "") {
			return nil, fail("", "an mcp adapter needs either command (a server over stdio) or url (streamable HTTP)")
		}
		if d.BaseURL != "" {
			return nil, fail("base_url", "belongs to http adapters; an mcp adapter over HTTP takes url")
		}
		if d.URL != "" {
			if err := checkURL(d.URL); err != nil {
				return nil, fail("url", "%v", err)
			}
			if d.Cwd != "" || len(d.Env) > 0 {
				return nil, fail("", "cwd and env apply to a server kontext starts (command), not to url")
			}
		}
	case DriverHTTP:
		if d.BaseURL == "" {
			d.BaseURL = d.URL
		}
		if len(d.Command) > 0 {
			return nil, fail("command", "belongs to mcp and command adapters")
		}
		if d.BaseURL != "" {
			if err := checkURL(d.BaseURL); err != nil {
				return nil, fail("base_url", "%v", err)
			}
		}
	case DriverCommand:
		if d.URL != "" || d.BaseURL != "" {
			return nil, fail("url", "a command adapter runs programs; url and base_url do not apply")
		}
	}
	if d.Driver == DriverCommand && len(d.Headers) > 0 {
		return nil, fail("headers", "apply to mcp (over url) and http adapters")
	}
	if d.Driver != DriverMCP && !d.Expose.None() {
		return nil, fail("expose", "only an mcp adapter has tools of its own to re-publish")
	}
	for opName, rawOp := range r.Ops {
		op, err := d.decodeOp("ops."+opName, rawOp)
		if err != nil {
			return nil, err
		}
		if !nameRe.MatchString(opName) {
			return nil, fail("ops."+opName, "an op name may hold letters, digits, _ and -")
		}
		op.Name = opName
		d.Ops[opName] = op
	}
	if r := d.Ops[OpRead]; r != nil && len(r.Owns) == 0 {
		return nil, fail("ops.read.owns", "a read op needs the URI prefixes it owns (owns = [\"notes://\"])")
	}
	for opName, op := range d.Ops {
		if len(op.Owns) > 0 && opName != OpRead {
			return nil, fail("ops."+opName+".owns", "only the read op owns URIs")
		}
	}
	for i, s := range d.On {
		field := fmt.Sprintf("on[%d]", i)
		switch s.Event {
		case EventCapture, EventPromote, EventSync:
		default:
			return nil, fail(field+".event", "%q; use capture, promote or sync", s.Event)
		}
		if d.Ops[s.Op] == nil {
			return nil, fail(field+".op", "%q is not an op of this adapter (it has %s)", s.Op, listOr(d.OpNames()))
		}
		switch s.Visibility {
		case "", "team", "private":
		default:
			return nil, fail(field+".visibility", "%q; use team or private", s.Visibility)
		}
	}
	seen := map[string]bool{}
	for i, t := range r.Tools {
		dt, err := d.decodeTool(fmt.Sprintf("tools[%d]", i), t)
		if err != nil {
			return nil, err
		}
		if seen[dt.Name] {
			return nil, fail(fmt.Sprintf("tools[%d].name", i), "%q is declared twice", dt.Name)
		}
		seen[dt.Name] = true
		d.Tools = append(d.Tools, dt)
	}
	return d, nil
}

func checkURL(s string) error {
	if strings.Contains(s, "{{") || strings.Contains(s, "${") {
		return nil // a template: checked once expanded
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%q is not an http:// or https:// URL", s)
	}
	return nil
}

func (d *Definition) decodeExpose(raw json.RawMessage) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var one string
	if json.Unmarshal(raw, &one) == nil {
		switch one {
		case "none", "":
			return nil
		case "all":
			d.Expose.All = true
			return nil
		}
		return &Error{Adapter: d.Name, Field: "expose", Message: fmt.Sprintf("%q; use \"none\", \"all\" or a list of tool names", one)}
	}
	if err := json.Unmarshal(raw, &d.Expose.Names); err != nil {
		return &Error{Adapter: d.Name, Field: "expose", Message: "use \"none\", \"all\" or a list of tool names"}
	}
	for _, n := range d.Expose.Names {
		if strings.TrimSpace(n) == "" {
			return &Error{Adapter: d.Name, Field: "expose", Message: "a tool name is empty"}
		}
	}
	return nil
}

var mapFields = []string{"title", "snippet", "uri", "score", "kind", "date"}

func (d *Definition) decodeOp(field string, raw json.RawMessage) (*Op, error) {
	fail := func(sub, format string, args ...any) error {
		f := field
		if sub != "" {
			f += "." + sub
		}
		return &Error{Adapter: d.Name, Field: f, Message: fmt.Sprintf(format, args...)}
	}
	var op Op
	// command may be one string or a list.
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(raw, &probe); err != nil {
		return nil, fail("", "must be a table")
	}
	if c, ok := probe["command"]; ok {
		var one string
		if json.Unmarshal(c, &one) == nil {
			b, _ := json.Marshal([]string{one})
			probe["command"] = b
			raw, _ = json.Marshal(probe)
		}
	}
	if err := strictDecode(raw, &op); err != nil {
		return nil, decodeError(d.Name, field, err)
	}
	switch d.Driver {
	case DriverMCP:
		if op.Tool == "" {
			return nil, fail("tool", "missing: an mcp op names the server's tool to call")
		}
		if op.Method != "" || op.Path != "" || op.URL != "" || op.Body != nil || len(op.Query) > 0 || len(op.Command) > 0 || op.Stdin != "" || op.OutputFile {
			return nil, fail("", "an mcp op takes tool and args (method, path, url, query, body, command and stdin belong to other drivers)")
		}
	case DriverHTTP:
		if op.Tool != "" || len(op.Args) > 0 || len(op.Command) > 0 || op.Stdin != "" || op.OutputFile {
			return nil, fail("", "an http op takes method, path or url, query, headers and body")
		}
		if op.Path == "" && op.URL == "" && d.BaseURL == "" {
			return nil, fail("path", "missing: an http op needs path (with the adapter's base_url) or url")
		}
		if op.Path == "" && op.URL == "" {
			op.Path = "/"
		}
		if op.URL != "" {
			if err := checkURL(op.URL); err != nil {
				return nil, fail("url", "%v", err)
			}
		} else if d.BaseURL == "" {
			return nil, fail("path", "needs the adapter's base_url (or use url)")
		}
		switch strings.ToUpper(op.Method) {
		case "", "GET", "POST", "PUT", "PATCH", "DELETE", "HEAD":
			op.Method = strings.ToUpper(op.Method)
		default:
			return nil, fail("method", "%q is not an HTTP method kontext sends", op.Method)
		}
	case DriverCommand:
		if op.Tool != "" || len(op.Args) > 0 || op.Method != "" || op.Path != "" || op.URL != "" || op.Body != nil || len(op.Query) > 0 {
			return nil, fail("", "a command op takes command, stdin, cwd, env and output_file")
		}
		if len(op.Command) == 0 {
			op.Command = slices.Clone(d.Command)
		}
		if len(op.Command) == 0 || strings.TrimSpace(op.Command[0]) == "" {
			return nil, fail("command", "missing: a command op needs an argument vector (or the adapter's command)")
		}
	}
	switch op.Format {
	case "", "auto", "json", "jsonl", "lines", "text":
	default:
		return nil, fail("format", "%q; use auto, json, jsonl, lines or text", op.Format)
	}
	if op.TimeoutMS < 0 || op.TimeoutMS > 600000 {
		return nil, fail("timeout_ms", "%d; use a number of milliseconds between 1 and 600000", op.TimeoutMS)
	}
	if op.Items != "" {
		if _, err := parsePath(op.Items); err != nil {
			return nil, fail("items", "%v", err)
		}
	}
	if op.Items != "" && op.Split != "" {
		return nil, fail("split", "items and split both choose the list; keep one")
	}
	for k := range op.Where {
		if _, err := parsePath(k); err != nil {
			return nil, fail("where", "%q: %v", k, err)
		}
	}
	for k, v := range op.Map {
		if !slices.Contains(mapFields, k) {
			return nil, fail("map."+k, "is not a hit field (%s)", strings.Join(mapFields, ", "))
		}
		if err := checkMapValue(v); err != nil {
			return nil, fail("map."+k, "%v", err)
		}
	}
	if op.Text != "" {
		if _, err := parsePath(op.Text); err != nil {
			return nil, fail("text", "%v", err)
		}
	}
	for _, s := range []string{op.Tool, op.Path, op.URL, op.Stdin, op.Cwd} {
		if err := checkTemplate(s); err != nil {
			return nil, fail("", "%v", err)
		}
	}
	for _, s := range op.Command {
		if err := checkTemplate(s); err != nil {
			return nil, fail("command", "%v", err)
		}
	}
	return &op, nil
}

var paramTypes = []string{"string", "integer", "number", "boolean", "array", "object"}

func (d *Definition) decodeTool(field string, t rawTool) (*DeclaredTool, error) {
	fail := func(sub, format string, args ...any) error {
		return &Error{Adapter: d.Name, Field: field + sub, Message: fmt.Sprintf(format, args...)}
	}
	switch {
	case t.Name == "":
		return nil, fail(".name", "missing")
	case !nameRe.MatchString(t.Name) || len(t.Name) > mcp.ToolNameBudget:
		return nil, fail(".name", "%q: a tool name may hold letters, digits, _ and - (at most %d)", t.Name, mcp.ToolNameBudget)
	case strings.HasPrefix(t.Name, "ctx_"):
		return nil, fail(".name", "%q: ctx_ names are the knowledge toolset's own", t.Name)
	}
	dt := &DeclaredTool{Name: t.Name, Description: t.Description}
	schema, err := paramsSchema(t.Params)
	if err != nil {
		return nil, fail(".params", "%v", err)
	}
	dt.Schema = schema
	if len(t.Op) == 0 || string(t.Op) == "null" {
		return nil, fail(".op", "missing: name an op of this adapter (op = \"search\") or give one (op = { … })")
	}
	var ref string
	if json.Unmarshal(t.Op, &ref) == nil {
		if d.Ops[ref] == nil {
			return nil, fail(".op", "%q is not an op of this adapter (it has %s)", ref, listOr(d.OpNames()))
		}
		dt.OpName = ref
		return dt, nil
	}
	op, err := d.decodeOp(field+".op", t.Op)
	if err != nil {
		return nil, err
	}
	op.Name = t.Name
	dt.Op = op
	return dt, nil
}

// paramsSchema turns params — { name = "type" } with "!" marking required
// ones, or a whole JSON schema — into an object schema.
func paramsSchema(raw json.RawMessage) (json.RawMessage, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return json.RawMessage(`{"type":"object","properties":{}}`), nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, errors.New("must be a table of parameter types or a JSON schema")
	}
	if _, ok := obj["properties"]; ok {
		return raw, nil
	}
	if t, ok := obj["type"]; ok {
		var s string
		if json.Unmarshal(t, &s) == nil && s == "object" {
			return raw, nil
		}
	}
	props := map[string]any{}
	required := []string{}
	for _, name := range slices.Sorted(maps.Keys(obj)) {
		var typ string
		if err := json.Unmarshal(obj[name], &typ); err != nil {
			return nil, fmt.Errorf("%s: give a type (%s), with ! when required", name, strings.Join(paramTypes, ", "))
		}
		if req, ok := strings.CutSuffix(typ, "!"); ok {
			typ = req
			required = append(required, name)
		}
		if !slices.Contains(paramTypes, typ) {
			return nil, fmt.Errorf("%s: %q is not a type (%s)", name, typ, strings.Join(paramTypes, ", "))
		}
		props[name] = map[string]string{"type": typ}
	}
	return json.Marshal(map[string]any{"type": "object", "properties": props, "required": required})
}

func strictDecode(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// unknownField is how encoding/json names an unknown key.
var unknownField = lazyregexp.New(`unknown field "([^"]+)"`)

// decodeError names the field a JSON decoding error is about.
func decodeError(adapter, prefix string, err error) error {
	join := func(f string) string {
		if prefix == "" {
			return f
		}
		if f == "" {
			return prefix
		}
		return prefix + "." + f
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		want := te.Type.String()
		switch {
		case strings.HasPrefix(want, "map[string]string"):
			want = "a table of strings"
		case strings.HasPrefix(want, "map"):
			want = "a table"
		case strings.HasPrefix(want, "[]"):
			want = "an array of " + strings.TrimPrefix(want, "[]") + "s"
		case strings.Contains(want, "int"):
			want = "an integer"
		case strings.Contains(want, "float"):
			want = "a number"
		case want == "bool" || want == "*bool":
			want = "true or false"
		case strings.HasPrefix(want, "adapters."):
			want = "a table"
		}
		return &Error{Adapter: adapter, Field: join(te.Field), Message: fmt.Sprintf("is %s, want %s", te.Value, want)}
	}
	if m := unknownField.FindStringSubmatch(err.Error()); m != nil {
		return &Error{Adapter: adapter, Field: join(m[1]), Message: "unknown field"}
	}
	return &Error{Adapter: adapter, Field: prefix, Message: err.Error()}
}

func listOr(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
