package codegen

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
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

// loadTree reads and validates every spec under root/dir.
func loadTree(root, dir string, v *specValidator) (*Tree, error) {
	t := &Tree{Dir: dir}
	read := func(rel, def string, into any) (bool, error) {
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		sum := sha256.Sum256(b)
		t.sources = append(t.sources, rel+" sha256:"+hex.EncodeToString(sum[:]))
		doc, err := yaml.YAMLToJSON(b)
		if err != nil {
			return false, fmt.Errorf("%s: %w", rel, err)
		}
		if err := v.check(def, rel, doc); err != nil {
			return false, err
		}
		dec := json.NewDecoder(bytes.NewReader(doc))
		dec.DisallowUnknownFields()
		if err := dec.Decode(into); err != nil {
			return false, fmt.Errorf("%s: %w", rel, err)
		}
		return true, nil
	}

	var toolsets struct {
		Server   *ServerSpec   `json:"server"`
		Toolsets []ToolsetSpec `json:"toolsets"`
	}
	if ok, err := read(path.Join(dir, "toolsets.yaml"), "toolsets", &toolsets); err != nil {
		return nil, err
	} else if !ok {
		return nil, fmt.Errorf("%s/toolsets.yaml is missing", dir)
	}
	t.Server, t.Toolsets = toolsets.Server, toolsets.Toolsets
	known := map[string]bool{}
	contract := map[string]ArgumentsSpec{}
	for _, ts := range t.Toolsets {
		if known[ts.Name] {
			return nil, fmt.Errorf("%s/toolsets.yaml: toolset %s is listed twice", dir, ts.Name)
		}
		known[ts.Name] = true
		contract[ts.Name] = ts.Arguments
	}

	var errs struct {
		Errors []ErrorSpec `json:"errors"`
	}
	if _, err := read(path.Join(dir, "errors.yaml"), "errors", &errs); err != nil {
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

	var prompts struct {
		Prompts []PromptSpec `json:"prompts"`
	}
	if _, err := read(path.Join(dir, "prompts.yaml"), "prompts", &prompts); err != nil {
		return nil, err
	}
	t.Prompts = prompts.Prompts
	for _, p := range t.Prompts {
		if !known[p.Toolset] {
			return nil, fmt.Errorf("%s/prompts.yaml: prompt %s names unknown toolset %s", dir, p.Name, p.Toolset)
		}
	}

	var resources struct {
		Resources []ResourceSpec `json:"resources"`
		Templates []TemplateSpec `json:"templates"`
	}
	if _, err := read(path.Join(dir, "resources.yaml"), "resources", &resources); err != nil {
		return nil, err
	}
	t.Resources, t.Templates = resources.Resources, resources.Templates
	for _, r := range t.Resources {
		if !known[r.Toolset] {
			return nil, fmt.Errorf("%s/resources.yaml: resource %s names unknown toolset %s", dir, r.URI, r.Toolset)
		}
	}
	for _, r := range t.Templates {
		if !known[r.Toolset] {
			return nil, fmt.Errorf("%s/resources.yaml: template %s names unknown toolset %s", dir, r.URITemplate, r.Toolset)
		}
	}

	toolsDir := filepath.Join(root, filepath.FromSlash(dir), "tools")
	entries, err := os.ReadDir(toolsDir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	names := map[string]string{}
	for _, e := range entries {
		if !e.IsDir() {
			return nil, fmt.Errorf("%s/tools/%s: tools live in a directory named after their toolset", dir, e.Name())
		}
		if !known[e.Name()] {
			return nil, fmt.Errorf("%s/tools/%s: no such toolset in toolsets.yaml", dir, e.Name())
		}
		files, err := os.ReadDir(filepath.Join(toolsDir, e.Name()))
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			if f.IsDir() || !strings.HasSuffix(f.Name(), ".yaml") {
				return nil, fmt.Errorf("%s/tools/%s/%s: only <tool>.yaml files belong here", dir, e.Name(), f.Name())
			}
			rel := path.Join(dir, "tools", e.Name(), f.Name())
			tool := &ToolSpec{file: rel, args: contract[e.Name()]}
			if _, err := read(rel, "tool", tool); err != nil {
				return nil, err
			}
			tool.digest = t.sources[len(t.sources)-1]
			if err := checkTool(tool, e.Name(), strings.TrimSuffix(f.Name(), ".yaml")); err != nil {
				return nil, err
			}
			if other, dup := names[tool.Name]; dup {
				return nil, fmt.Errorf("%s: tool %s is already defined in %s", rel, tool.Name, other)
			}
			names[tool.Name] = rel
			t.Tools = append(t.Tools, tool)
		}
	}
	order := func(ts string) int {
		return slices.IndexFunc(t.Toolsets, func(s ToolsetSpec) bool { return s.Name == ts })
	}
	// Within a toolset, the order toolsets.yaml gives (when it gives one)
	// is the order tools are advertised and documented.
	position := map[string]int{}
	for _, ts := range t.Toolsets {
		if ts.Order == nil {
			continue
		}
		for i, name := range ts.Order {
			position[name] = i
			if other, ok := names[name]; !ok || !strings.Contains(other, "/tools/"+ts.Name+"/") {
				return nil, fmt.Errorf("%s/toolsets.yaml: toolset %s lists %s, which is not a tool file of that toolset", dir, ts.Name, name)
			}
		}
		for name, file := range names {
			if strings.Contains(file, "/tools/"+ts.Name+"/") && !slices.Contains(ts.Order, name) {
				return nil, fmt.Errorf("%s/toolsets.yaml: toolset %s does not list its tool %s (%s)", dir, ts.Name, name, file)
			}
		}
	}
	sort.SliceStable(t.Tools, func(i, j int) bool {
		oi, oj := order(t.Tools[i].Toolset), order(t.Tools[j].Toolset)
		if oi != oj {
			return oi < oj
		}
		pi, iok := position[t.Tools[i].Name]
		pj, jok := position[t.Tools[j].Name]
		if iok && jok && pi != pj {
			return pi < pj
		}
		return t.Tools[i].file < t.Tools[j].file
	})
	sort.Strings(t.sources)
	return t, nil
}

// checkTool enforces what the spec schema cannot express.
func checkTool(tool *ToolSpec, dirToolset, fileStem string) error {
	if tool.Toolset != dirToolset {
		return fmt.Errorf("%s: toolset %q but the file is under tools/%s", tool.file, tool.Toolset, dirToolset)
	}
	if tool.Name != fileStem {
		return fmt.Errorf("%s: tool %q must live in %s.yaml", tool.file, tool.Name, tool.Name)
	}
	seen := map[string]bool{}
	for _, p := range tool.Params {
		if seen[p.Name] {
			return fmt.Errorf("%s: parameter %s is declared twice", tool.file, p.Name)
		}
		seen[p.Name] = true
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
	if tool.Output.Structured != "" && !strings.Contains(tool.Output.Structured, "/") {
		return fmt.Errorf("%s: output.structured must be an import path and a type name", tool.file)
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
