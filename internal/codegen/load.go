package codegen

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// specValidator validates spec files against schema/spec.schema.json.
type specValidator struct {
	compiler *jsonschema.Compiler
	cache    map[string]*jsonschema.Schema
}

const specSchemaURL = "https://kontext.dev/schema/spec.schema.json"

func newSpecValidator(root string) (*specValidator, error) {
	b, err := os.ReadFile(filepath.Join(root, "schema", "spec.schema.json"))
	if err != nil {
		return nil, err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("schema/spec.schema.json: %w", err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(specSchemaURL, doc); err != nil {
		return nil, err
	}
	return &specValidator{compiler: c, cache: map[string]*jsonschema.Schema{}}, nil
}

func (v *specValidator) check(def, file string, doc []byte) error {
	sch, ok := v.cache[def]
	if !ok {
		var err error
		sch, err = v.compiler.Compile(specSchemaURL + "#/$defs/" + def)
		if err != nil {
			return fmt.Errorf("spec.schema.json#/$defs/%s: %w", def, err)
		}
		v.cache[def] = sch
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	if err := sch.Validate(inst); err != nil {
		var ve *jsonschema.ValidationError
		if errors.As(err, &ve) {
			var msgs []string
			for _, vi := range violationsText(ve) {
				msgs = append(msgs, vi)
			}
			return fmt.Errorf("%s does not fit spec.schema.json#/$defs/%s:\n  %s", file, def, strings.Join(msgs, "\n  "))
		}
		return fmt.Errorf("%s: %w", file, err)
	}
	return nil
}

func violationsText(ve *jsonschema.ValidationError) []string {
	var out []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			out = append(out, fmt.Sprintf("at %q: %s", "/"+strings.Join(e.InstanceLocation, "/"), e.ErrorKind.LocalizedString(english)))
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	return out
}

var english = message.NewPrinter(language.English)

// specReader reads spec files of one tree, validating each against its
// definition in spec.schema.json and recording its digest.
type specReader struct {
	root    string
	v       *specValidator
	sources []string // "path sha256:…" of every file read
}

// read decodes the spec file rel (relative to the repository root) into
// into; ok is false when the file does not exist. source is the line a
// generated header names the file by.
func (r *specReader) read(rel, def string, into any) (source string, ok bool, err error) {
	b, err := os.ReadFile(filepath.Join(r.root, filepath.FromSlash(rel)))
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	sum := sha256.Sum256(b)
	source = rel + " sha256:" + hex.EncodeToString(sum[:])
	r.sources = append(r.sources, source)
	doc, err := yaml.YAMLToJSON(b)
	if err != nil {
		return "", false, fmt.Errorf("%s: %w", rel, err)
	}
	if err := r.v.check(def, rel, doc); err != nil {
		return "", false, err
	}
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.DisallowUnknownFields()
	if err := dec.Decode(into); err != nil {
		return "", false, fmt.Errorf("%s: %w", rel, err)
	}
	return source, true, nil
}

// toolsetsDir is the folder, inside a spec tree, that holds one folder per
// toolset.
const toolsetsDir = "toolsets"

// loadTree reads and validates every spec under root/dir: the shared
// server.yaml and errors.yaml (where the tree has them) and every toolset
// folder under toolsets/.
func loadTree(root, dir string, v *specValidator) (*Tree, error) {
	t := &Tree{Dir: dir}
	r := &specReader{root: root, v: v}

	var server struct {
		Server   *ServerSpec `json:"server"`
		Toolsets []string    `json:"toolsets"`
	}
	if _, _, err := r.read(path.Join(dir, "server.yaml"), "server", &server); err != nil {
		return nil, err
	}
	t.Server = server.Server

	var errs struct {
		Errors []ErrorSpec `json:"errors"`
	}
	if _, _, err := r.read(path.Join(dir, "errors.yaml"), "errors", &errs); err != nil {
		return nil, err
	}
	t.Errors = errs.Errors
	codes := map[int64]bool{}
	for _, e := range t.Errors {
		if codes[e.Code] {
			return nil, fmt.Errorf("%s/errors.yaml: code %d is listed twice", dir, e.Code)
		}
		codes[e.Code] = true
	}

	folders, err := toolsetFolders(root, dir, server.Toolsets)
	if err != nil {
		return nil, err
	}
	if len(folders) == 0 {
		return nil, fmt.Errorf("%s/%s/ holds no toolset folder", dir, toolsetsDir)
	}
	names := map[string]string{} // tool name → file, across toolsets
	for _, name := range folders {
		ts, err := r.loadToolset(t, path.Join(dir, toolsetsDir, name), name, names)
		if err != nil {
			return nil, err
		}
		t.Toolsets = append(t.Toolsets, ts)
	}
	sort.Strings(r.sources)
	t.sources = r.sources
	return t, nil
}

// toolsetFolders lists the toolset folders of a tree in the order the
// reference documents them: the order server.yaml gives, which must name
// every folder, or else by name.
func toolsetFolders(root, dir string, order []string) ([]string, error) {
	entries, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(dir), toolsetsDir))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	var folders []string
	for _, e := range entries {
		if !e.IsDir() {
			return nil, fmt.Errorf("%s/%s/%s: only toolset folders belong here", dir, toolsetsDir, e.Name())
		}
		folders = append(folders, e.Name())
	}
	if order == nil {
		return folders, nil
	}
	for _, name := range order {
		if !slices.Contains(folders, name) {
			return nil, fmt.Errorf("%s/server.yaml: toolsets names %s, but there is no folder %s/%s/%s", dir, name, dir, toolsetsDir, name)
		}
	}
	for _, name := range folders {
		if !slices.Contains(order, name) {
			return nil, fmt.Errorf("%s/server.yaml: toolsets does not name the toolset folder %s/%s/%s", dir, dir, toolsetsDir, name)
		}
	}
	return order, nil
}

// loadToolset reads one toolset folder: toolset.yaml, and where present
// prompts.yaml, resources.yaml, params.yaml and the tools/ folder. Its
// prompts, resources and tools are appended to t; names records every tool
// name (a tool name is unique across toolsets).
func (r *specReader) loadToolset(t *Tree, dir, name string, names map[string]string) (ToolsetSpec, error) {
	ts := ToolsetSpec{dir: dir, sources: map[string]string{}}
	file := path.Join(dir, "toolset.yaml")
	src, ok, err := r.read(file, "toolset", &ts)
	if err != nil {
		return ts, err
	} else if !ok {
		return ts, fmt.Errorf("%s is missing: every toolset folder has one", file)
	}
	ts.sources[toolsetFile] = src
	if ts.Name != name {
		return ts, fmt.Errorf("%s: name %q, but the folder is %s", file, ts.Name, name)
	}

	var prompts struct {
		Prompts []PromptSpec `json:"prompts"`
	}
	if src, ok, err := r.read(path.Join(dir, "prompts.yaml"), "prompts", &prompts); err != nil {
		return ts, err
	} else if ok {
		ts.sources[promptsFile] = src
	}
	for _, p := range prompts.Prompts {
		p.Toolset = name
		t.Prompts = append(t.Prompts, p)
	}

	var resources struct {
		Resources []ResourceSpec `json:"resources"`
		Templates []TemplateSpec `json:"templates"`
	}
	if src, ok, err := r.read(path.Join(dir, "resources.yaml"), "resources", &resources); err != nil {
		return ts, err
	} else if ok {
		ts.sources[resourcesFile] = src
	}
	for _, res := range resources.Resources {
		res.Toolset = name
		t.Resources = append(t.Resources, res)
	}
	for _, tmpl := range resources.Templates {
		tmpl.Toolset = name
		vars := templateVars(tmpl.URITemplate)
		for _, v := range slices.Sorted(maps.Keys(tmpl.Complete)) {
			if !slices.Contains(vars, v) {
				return ts, fmt.Errorf("%s: template %s completes %s, which is none of its variables", path.Join(dir, resourcesFile), tmpl.URITemplate, v)
			}
		}
		t.Templates = append(t.Templates, tmpl)
	}

	var params struct {
		Params []ParamSpec `json:"params"`
	}
	if src, ok, err := r.read(path.Join(dir, paramsFile), "params", &params); err != nil {
		return ts, err
	} else if ok {
		ts.sources[paramsFile] = src
	}
	shared := map[string]ParamSpec{}
	for _, p := range params.Params {
		if _, dup := shared[p.Name]; dup {
			return ts, fmt.Errorf("%s/%s: parameter %s is defined twice", dir, paramsFile, p.Name)
		}
		shared[p.Name] = p
	}
	used := map[string]bool{}

	toolsDir := filepath.Join(r.root, filepath.FromSlash(dir), "tools")
	entries, err := os.ReadDir(toolsDir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return ts, err
	}
	var tools []*ToolSpec
	for _, f := range entries {
		if f.IsDir() || !strings.HasSuffix(f.Name(), ".yaml") {
			return ts, fmt.Errorf("%s/tools/%s: only <tool>.yaml files belong here", dir, f.Name())
		}
		rel := path.Join(dir, "tools", f.Name())
		tool := &ToolSpec{Toolset: name, file: rel, args: ts.Arguments}
		src, _, err := r.read(rel, "tool", tool)
		if err != nil {
			return ts, err
		}
		tool.digest = src
		for i, p := range tool.Params {
			if p.Use == "" {
				continue
			}
			def, ok := shared[p.Use]
			if !ok {
				return ts, fmt.Errorf("%s: use: %s, but %s/%s defines no parameter %s", rel, p.Use, dir, paramsFile, p.Use)
			}
			used[p.Use] = true
			tool.Params[i] = def
		}
		if tool.Output.Structured != "" {
			if ts.OutputPackage == "" {
				return ts, fmt.Errorf("%s: output.structured %s needs the toolset's outputPackage (%s)", rel, tool.Output.Structured, file)
			}
			tool.structured = ts.OutputPackage + "." + tool.Output.Structured
		}
		if err := checkTool(tool, strings.TrimSuffix(f.Name(), ".yaml")); err != nil {
			return ts, err
		}
		if other, dup := names[tool.Name]; dup {
			return ts, fmt.Errorf("%s: tool %s is already defined in %s", rel, tool.Name, other)
		}
		names[tool.Name] = rel
		tools = append(tools, tool)
	}
	for _, p := range params.Params {
		if !used[p.Name] {
			return ts, fmt.Errorf("%s/%s: parameter %s is used by no tool", dir, paramsFile, p.Name)
		}
	}
	// The order toolset.yaml gives (when it gives one) is the order tools
	// are advertised and documented; otherwise the files' order.
	if ts.Order != nil {
		position := map[string]int{}
		for i, tool := range ts.Order {
			position[tool] = i
			if !slices.ContainsFunc(tools, func(s *ToolSpec) bool { return s.Name == tool }) {
				return ts, fmt.Errorf("%s: tools lists %s, but there is no %s/tools/%s.yaml", file, tool, dir, tool)
			}
		}
		for _, tool := range tools {
			if _, ok := position[tool.Name]; !ok {
				return ts, fmt.Errorf("%s: tools does not list its tool %s (%s)", file, tool.Name, tool.file)
			}
		}
		sort.SliceStable(tools, func(i, j int) bool { return position[tools[i].Name] < position[tools[j].Name] })
	}
	t.Tools = append(t.Tools, tools...)
	return ts, nil
}

// checkTool enforces what the spec schema cannot express.
func checkTool(tool *ToolSpec, fileStem string) error {
	if tool.Name != fileStem {
		return fmt.Errorf("%s: tool %q must live in %s.yaml", tool.file, tool.Name, tool.Name)
	}
	seen := map[string]bool{}
	for _, p := range tool.Params {
		if seen[p.Name] {
			return fmt.Errorf("%s: parameter %s is declared twice", tool.file, p.Name)
		}
		seen[p.Name] = true
		if err := noNestedDefault(p.Schema.values["items"]); err != nil {
			return fmt.Errorf("%s: parameter %s: %w", tool.file, p.Name, err)
		}
		if err := noDefaultInProperties(p.Schema.values["properties"]); err != nil {
			return fmt.Errorf("%s: parameter %s: %w", tool.file, p.Name, err)
		}
		if def := p.Default(); def != nil {
			if err := checkDefault(p, tool.args, def); err != nil {
				return fmt.Errorf("%s: parameter %s: %w", tool.file, p.Name, err)
			}
		}
		if p.Doc.Default != nil && p.Default() != nil {
			return fmt.Errorf("%s: parameter %s has both a default and doc.default", tool.file, p.Name)
		}
		if err := checkAliases(p); err != nil {
			return fmt.Errorf("%s: parameter %s: %w", tool.file, p.Name, err)
		}
		if min, ok := p.minimum(); ok {
			if max, ok := p.maximum(); ok && min > max {
				return fmt.Errorf("%s: parameter %s: minimum %d is above maximum %d", tool.file, p.Name, min, max)
			}
		}
		if min, ok := p.minimum(); ok && min < 0 && tool.args.IntegerStrings && p.Type() == "integer" {
			return fmt.Errorf("%s: parameter %s: a string of digits cannot spell a minimum below 0 (%d)", tool.file, p.Name, min)
		}
	}
	return nil
}

// checkAliases makes sure every alias stands for one of the parameter's
// enum values (its items' for a list) and is not one itself.
func checkAliases(p ParamSpec) error {
	if len(p.Aliases) == 0 {
		return nil
	}
	enum := aliasTargets(p)
	if enum == nil {
		return fmt.Errorf("aliases need an enum of strings to stand for (on the parameter, or on its items for a list)")
	}
	for _, a := range p.Aliases {
		if !slices.Contains(enum, a.To) {
			return fmt.Errorf("alias %s stands for %q, which is not one of its values (%s)", a.From, a.To, strings.Join(enum, ", "))
		}
		if slices.Contains(enum, a.From) {
			return fmt.Errorf("alias %s is one of the values itself", a.From)
		}
		if strings.ContainsAny(a.From, ", \t") {
			return fmt.Errorf("alias %q may not contain a comma or a space", a.From)
		}
	}
	return nil
}

// aliasTargets are the string values aliases may stand for: the enum of a
// string parameter or of a list's items; nil when there is none.
func aliasTargets(p ParamSpec) []string {
	raw := p.Schema.values["enum"]
	if p.Type() == "array" {
		var items struct {
			Enum json.RawMessage `json:"enum"`
		}
		_ = json.Unmarshal(p.Schema.values["items"], &items)
		raw = items.Enum
	}
	var out []string
	if raw == nil || json.Unmarshal(raw, &out) != nil {
		return nil
	}
	return out
}

// compiles compiles a schema as the runtime's argument validator does
// (draft 2020-12, Go's regexp for patterns).
func compiles(schema []byte) error {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource("kontext:///input.json", doc); err != nil {
		return err
	}
	_, err = c.Compile("kontext:///input.json")
	return err
}

// checkDefault makes sure a default satisfies its own parameter schema, so the
// generated decoder can never produce a value the schema would refuse.
func checkDefault(p ParamSpec, args ArgumentsSpec, def json.RawMessage) error {
	schema, err := paramSchemaJSON(p, false, args)
	if err != nil {
		return err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return err
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("kontext:///default.json", doc); err != nil {
		return err
	}
	sch, err := c.Compile("kontext:///default.json")
	if err != nil {
		return err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(def))
	if err != nil {
		return err
	}
	if err := sch.Validate(inst); err != nil {
		return fmt.Errorf("default %s does not satisfy the parameter's own schema", def)
	}
	return nil
}
