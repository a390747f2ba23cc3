// Package codegen generates kontext's Go code and reference docs from the
// YAML and JSON Schema specs under schema/ (and, for the test-only toolset,
// testdata/schema/).
//
// Generate is a pure function of the files it reads: it returns every file it
// would write, so TestGenerated can compare them with what is committed.
//
// Reading it top-down: load.go reads a spec tree (server.yaml, errors.yaml
// and one folder per toolset, schema/toolsets/<toolset>/) into a Tree,
// validating each file against schema/spec.schema.json; spec.go holds the
// types it fills. schema.go renders a tool's input schema, the bytes the
// server advertises and validates against. toolset.go turns one toolset into
// its Go package, through go-jsonschema for the input models (gotypes.go)
// and the templates/*.go.tmpl for the rest; structured.go reflects output
// schemas. docs.go writes the references, errcodes.go and protocol.go the
// shared packages, generate.go puts it all together.
package codegen

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Text is a human text in English and Slovak.
type Text struct {
	EN string `json:"en"`
	SK string `json:"sk"`
}

// In returns the text in a language ("en" or "sk").
func (t Text) In(lang string) string {
	if lang == "sk" {
		return t.SK
	}
	return t.EN
}

// ToolSpec is one schema/toolsets/<toolset>/tools/<tool>.yaml.
type ToolSpec struct {
	Name string `json:"name"`
	// Toolset is the folder the file lives in.
	Toolset     string `json:"-"`
	Title       Text   `json:"title"`
	Description Text   `json:"description"`
	Annotations struct {
		ReadOnly    *bool `json:"readOnlyHint"`
		Destructive *bool `json:"destructiveHint"`
		Idempotent  *bool `json:"idempotentHint"`
		OpenWorld   *bool `json:"openWorldHint"`
	} `json:"annotations"`
	Params []ParamSpec `json:"params"`
	Output struct {
		Description Text `json:"description"`
		// Structured is the name of a type in the toolset's outputPackage.
		Structured string `json:"structured"`
	} `json:"output"`
	Doc struct {
		After *Text `json:"after"`
	} `json:"doc"`
	// Hidden tools answer calls and are never listed or documented in the
	// tables (names kept for clients of an earlier release).
	Hidden bool `json:"hidden"`

	// structured is the output type's import path and name, when the tool
	// has structured output.
	structured string

	file   string        // path relative to the repository root
	digest string        // sha256 of the file
	args   ArgumentsSpec // the argument contract of the tool's toolset
}

// ParamSpec is one tool parameter: its JSON Schema keywords plus the
// bilingual description and doc overrides.
type ParamSpec struct {
	// Use names a parameter of the toolset's params.yaml that stands here;
	// the loader replaces the reference with that parameter.
	Use         string `json:"use"`
	Name        string `json:"name"`
	Required    bool   `json:"required"`
	Description Text   `json:"description"`
	List        bool   `json:"list"`
	// Passthrough marks an object the tool hands on whole to a schema of
	// someone else's (app_call's arguments): an open object, raw JSON in Go.
	Passthrough bool `json:"passthrough"`
	Doc         struct {
		Type    string `json:"type"`
		Default *Text  `json:"default"`
		Blank   bool   `json:"blank"`
	} `json:"doc"`
	RequiredProperties []string `json:"requiredProperties"`
	// Aliases are other values the parameter (a list: each item) accepts,
	// each mapped to one of its enum values, in the order declared.
	Aliases []Alias `json:"-"`
	// Schema holds the JSON Schema keywords of the parameter, in the order
	// the canonical schema writes them.
	Schema orderedSchema `json:"-"`
}

// schemaKeywords is the order in which keywords are written; it is also the
// set of keywords a parameter may carry (spec.schema.json enforces it).
var schemaKeywords = []string{
	"type", "description", "enum", "default", "minimum", "maximum",
	"minLength", "maxLength", "pattern", "minItems", "maxItems",
	"items", "properties", "required", "additionalProperties",
}

// orderedSchema is a JSON Schema fragment whose keys are written in
// schemaKeywords order (properties in their declared order).
type orderedSchema struct {
	keys   []string
	values map[string]json.RawMessage
}

func (p *ParamSpec) UnmarshalJSON(b []byte) error {
	type plain ParamSpec
	if err := json.Unmarshal(b, (*plain)(p)); err != nil {
		return err
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(b, &all); err != nil {
		return err
	}
	p.Schema = orderedSchema{values: map[string]json.RawMessage{}}
	for _, k := range schemaKeywords {
		if v, ok := all[k]; ok && k != "description" && k != "required" {
			p.Schema.keys = append(p.Schema.keys, k)
			p.Schema.values[k] = v
		}
	}
	if v, ok := all["requiredProperties"]; ok {
		p.Schema.values["required"] = v
	}
	if v, ok := all["aliases"]; ok {
		keys, vals, err := orderedObject(v)
		if err != nil {
			return fmt.Errorf("parameter %s: aliases: %w", p.Name, err)
		}
		for _, k := range keys {
			var to string
			if err := json.Unmarshal(vals[k], &to); err != nil {
				return fmt.Errorf("parameter %s: alias %s: %w", p.Name, k, err)
			}
			p.Aliases = append(p.Aliases, Alias{From: k, To: to})
		}
	}
	return nil
}

// Alias is one alternative value of a parameter and the value it stands for.
type Alias struct{ From, To string }

// maximum returns an integer parameter's maximum, if it has one.
func (p ParamSpec) maximum() (int64, bool) {
	return p.intKeyword("maximum")
}

// minimum returns an integer parameter's minimum, if it has one.
func (p ParamSpec) minimum() (int64, bool) {
	return p.intKeyword("minimum")
}

func (p ParamSpec) intKeyword(k string) (int64, bool) {
	raw, ok := p.Schema.values[k]
	if !ok {
		return 0, false
	}
	var n int64
	if json.Unmarshal(raw, &n) != nil {
		return 0, false
	}
	return n, true
}

// Type returns the parameter's JSON type.
func (p ParamSpec) Type() string {
	var t string
	_ = json.Unmarshal(p.Schema.values["type"], &t)
	return t
}

// itemType returns the JSON type of an array parameter's items.
func (p ParamSpec) itemType() string {
	var items struct {
		Type string `json:"type"`
	}
	_ = json.Unmarshal(p.Schema.values["items"], &items)
	return items.Type
}

// Default returns the parameter's default as JSON, or nil.
func (p ParamSpec) Default() json.RawMessage { return p.Schema.values["default"] }

// enumValues returns the enum as JSON texts, or nil.
func (p ParamSpec) enumValues() []json.RawMessage {
	var vals []json.RawMessage
	_ = json.Unmarshal(p.Schema.values["enum"], &vals)
	return vals
}

// ToolsetSpec is one schema/toolsets/<toolset>/toolset.yaml.
type ToolsetSpec struct {
	Name         string        `json:"name"`
	Title        Text          `json:"title"`
	Description  Text          `json:"description"`
	Intro        *Text         `json:"intro"`
	Instructions string        `json:"instructions"`
	Order        []string      `json:"tools"`
	Arguments    ArgumentsSpec `json:"arguments"`
	// OutputPackage is the import path of the types the tools name in
	// output.structured.
	OutputPackage string `json:"outputPackage"`

	dir string // the toolset's folder, relative to the repository root
	// sources are the "path sha256:…" lines of the folder's files other
	// than its tools, by file name (toolsetFile, promptsFile, …).
	sources map[string]string
}

// Dir is the toolset's folder, relative to the repository root.
func (ts ToolsetSpec) Dir() string { return ts.dir }

// The files of a toolset folder besides tools/, as keys of
// ToolsetSpec.sources.
const (
	toolsetFile   = "toolset.yaml"
	promptsFile   = "prompts.yaml"
	resourcesFile = "resources.yaml"
	paramsFile    = "params.yaml"
)

// ArgumentsSpec is a toolset's argument contract: how invalid arguments are
// answered and which wider forms its parameters accept.
type ArgumentsSpec struct {
	// Invalid is "protocol" (-32602 with data.violations) or "result" (a
	// tool result with isError: true naming each parameter).
	Invalid string `json:"invalid"`
	// IntegerStrings: integer parameters also accept a string of digits.
	IntegerStrings bool `json:"integerStrings"`
	// ClampToMaximum: an integer above its maximum is clamped to it, with
	// a note in the answer, instead of being refused.
	ClampToMaximum bool `json:"clampToMaximum"`
}

// clamps reports whether p, in a toolset with this contract, is clamped.
func (a ArgumentsSpec) clamps(p ParamSpec) bool {
	_, hasMax := p.maximum()
	return a.ClampToMaximum && hasMax && p.Type() == "integer" && p.enumValues() == nil
}

// widensInteger reports whether p's advertised schema is wider than its
// plain integer type: a string of digits, or a value above the maximum.
func (a ArgumentsSpec) widensInteger(p ParamSpec) bool {
	return p.Type() == "integer" && (a.IntegerStrings || a.clamps(p))
}

// ServerSpec is the reference's opening and closing text.
type ServerSpec struct {
	Title        Text  `json:"title"`
	Intro        Text  `json:"intro"`
	ToolsHeading Text  `json:"toolsHeading"`
	ToolsIntro   *Text `json:"toolsIntro"`
	Sections     []struct {
		Heading Text   `json:"heading"`
		Body    Text   `json:"body"`
		After   string `json:"after"`
	} `json:"sections"`
}

// ErrorSpec is one entry of errors.yaml.
type ErrorSpec struct {
	Name    string `json:"name"`
	Code    int64  `json:"code"`
	Message string `json:"message"`
	When    Text   `json:"when"`
	Data    *Text  `json:"data"`
	Emitted bool   `json:"emitted"`
}

// PromptSpec is one entry of a toolset's prompts.yaml.
type PromptSpec struct {
	Name        string `json:"name"`
	Toolset     string `json:"-"` // the folder of the prompts.yaml
	Title       Text   `json:"title"`
	Description Text   `json:"description"`
	Arguments   []struct {
		Name        string `json:"name"`
		Description Text   `json:"description"`
		Required    bool   `json:"required"`
		// Complete names the completer that suggests its values.
		Complete string `json:"complete"`
	} `json:"arguments"`
}

// ResourceSpec is one fixed resource of a toolset's resources.yaml.
type ResourceSpec struct {
	URI         string `json:"uri"`
	Name        string `json:"name"`
	Toolset     string `json:"-"` // the folder of the resources.yaml
	Title       Text   `json:"title"`
	Description Text   `json:"description"`
	MIMEType    string `json:"mimeType"`
	Doc         *Text  `json:"doc"`
}

// TemplateSpec is one resource template of a toolset's resources.yaml.
type TemplateSpec struct {
	URITemplate string `json:"uriTemplate"`
	Name        string `json:"name"`
	Toolset     string `json:"-"` // the folder of the resources.yaml
	Title       Text   `json:"title"`
	Description Text   `json:"description"`
	MIMEType    string `json:"mimeType"`
	// Complete names, by variable, the completer that suggests its values.
	Complete map[string]string `json:"complete"`
	Doc      *Text             `json:"doc"`
}

// Tree is every spec of one spec directory.
type Tree struct {
	Dir       string
	Server    *ServerSpec
	Toolsets  []ToolsetSpec
	Tools     []*ToolSpec // by toolset, in each toolset's order
	Errors    []ErrorSpec
	Prompts   []PromptSpec
	Resources []ResourceSpec
	Templates []TemplateSpec
	sources   []string // "path sha256:…" of every file read, sorted
}

func (t *Tree) toolsOf(toolset string) []*ToolSpec {
	var out []*ToolSpec
	for _, tool := range t.Tools {
		if tool.Toolset == toolset {
			out = append(out, tool)
		}
	}
	return out
}

// goName turns snake_case (or a dashed name) into an exported Go identifier.
func goName(name string) string {
	var b strings.Builder
	for _, part := range strings.FieldsFunc(name, func(r rune) bool { return r == '_' || r == '-' || r == '.' }) {
		switch strings.ToLower(part) {
		case "id", "uri", "url", "json", "mcp", "api", "http":
			b.WriteString(strings.ToUpper(part))
		default:
			b.WriteString(strings.ToUpper(part[:1]) + part[1:])
		}
	}
	return b.String()
}

func fail(format string, args ...any) error { return fmt.Errorf(format, args...) }
