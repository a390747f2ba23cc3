package codegen

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"strconv"
	"strings"
	"text/template"
)

// templateFiles are the templates of the Go files of a toolset package, one
// per generated file (schemas.go.tmpl makes schemas_gen.go).
//
//go:embed templates/*.go.tmpl
var templateFiles embed.FS

var goTemplates = template.Must(template.New("").Funcs(funcs).ParseFS(templateFiles, "templates/*.go.tmpl"))

// toolsetFiles generates the Go package of one toolset (its input types, the
// canonical schemas, the handler interface, the registration table) and, in
// its subpackage flags, the CLI flags of its tools: the command line's
// dependency (urfave/cli) stays out of the toolset package, which servers
// and embedders import.
func toolsetFiles(tree *Tree, ts ToolsetSpec, dir, pkg string) (map[string][]byte, error) {
	tools := tree.toolsOf(ts.Name)
	var prompts []PromptSpec
	for _, p := range tree.Prompts {
		if p.Toolset == ts.Name {
			prompts = append(prompts, p)
		}
	}
	var resources []ResourceSpec
	for _, r := range tree.Resources {
		if r.Toolset == ts.Name {
			resources = append(resources, r)
		}
	}
	var templates []TemplateSpec
	for _, r := range tree.Templates {
		if r.Toolset == ts.Name {
			templates = append(templates, r)
		}
	}
	// Each file names exactly the spec files it was read from, so a change
	// to one toolset (or to one aspect of it) rewrites only what it affects.
	sources := func(folderFiles ...string) []string {
		var out []string
		for _, t := range tools {
			out = append(out, t.digest)
		}
		for _, f := range folderFiles {
			if src, ok := ts.sources[f]; ok {
				out = append(out, src)
			}
		}
		return out
	}

	out := map[string][]byte{}

	// Input types, by go-jsonschema.
	var defs bytes.Buffer
	defs.WriteString(`{"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"https://kontext.dev/gen/` + ts.Name + `/inputs.json","$defs":{`)
	for i, t := range tools {
		if i > 0 {
			defs.WriteByte(',')
		}
		s, err := goInputSchema(t)
		if err != nil {
			return nil, err
		}
		writeString(&defs, goName(t.Name)+"Input")
		defs.WriteByte(':')
		defs.Write(s)
	}
	defs.WriteString(`}}`)
	models := []byte("package " + pkg + "\n")
	var fields map[string]map[string]goField
	if len(tools) > 0 {
		var err error
		models, err = goTypes(pkg, "https://kontext.dev/gen/"+ts.Name+"/inputs.json", defs.Bytes(), true)
		if err != nil {
			return nil, err
		}
		if fields, err = structFields(models); err != nil {
			return nil, err
		}
	}

	data := toolsetData{Package: pkg, Toolset: ts, Imports: map[string]string{}}
	for _, t := range tools {
		schema, err := inputSchema(t)
		if err != nil {
			return nil, err
		}
		// The runtime compiles these bytes when it serves the tool; a schema
		// it would refuse (a pattern RE2 cannot compile) fails here, at
		// generation, not at start-up.
		if err := compiles(schema); err != nil {
			return nil, fmt.Errorf("%s: the input schema does not compile: %w", t.file, err)
		}
		td := toolData{Spec: t, Go: goName(t.Name), Schema: goStringLiteral(string(schema)), Forms: argumentForms(t), Invalid: invalidConst(t.args)}
		if t.structured != "" {
			i := strings.LastIndex(t.structured, ".")
			imp, typ := t.structured[:i], t.structured[i+1:]
			alias := path.Base(imp)
			data.Imports[imp] = alias
			td.OutputType = alias + "." + typ
			out, err := structuredOutput(t.structured)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", t.Name, err)
			}
			td.OutputSchema = goStringLiteral(string(out))
		}
		td.Description = t.Description.EN + "\n\nReturns: " + t.Output.Description.EN
		if td.Defaults, err = inputDefaults(t, fields[td.Go+"Input"]); err != nil {
			return nil, err
		}
		for _, p := range t.Params {
			td.Flags = append(td.Flags, flagFor(p))
		}
		data.Tools = append(data.Tools, td)
	}
	completers := map[string]bool{}
	useCompleter := func(name string) string {
		if name == "" {
			return ""
		}
		if !completers[name] {
			completers[name] = true
			data.Completers = append(data.Completers, completerData{Name: name, Go: goName(name)})
		}
		return goName(name)
	}
	for _, p := range prompts {
		pd := promptData{Spec: p, Go: goName(p.Name)}
		for _, a := range p.Arguments {
			pd.Args = append(pd.Args, argData{Name: a.Name, Go: goName(a.Name), Description: a.Description.EN, Required: a.Required, Complete: useCompleter(a.Complete)})
		}
		data.Prompts = append(data.Prompts, pd)
	}
	for _, r := range resources {
		data.Resources = append(data.Resources, resourceData{Spec: r, Go: goName(r.Name)})
	}
	for _, r := range templates {
		td := templateData{Spec: r, Go: goName(r.Name)}
		for _, v := range templateVars(r.URITemplate) {
			td.Vars = append(td.Vars, varData{Name: v, Go: goName(v), Complete: useCompleter(r.Complete[v])})
		}
		data.Templates = append(data.Templates, td)
	}

	// The input types: go-jsonschema's models, then what this generator
	// adds to them (their defaults, the prompt and template arguments).
	var inputs bytes.Buffer
	inputs.Write(models)
	if err := goTemplates.ExecuteTemplate(&inputs, "types.go.tmpl", data); err != nil {
		return nil, fmt.Errorf("%s/types_gen.go: %w", dir, err)
	}
	// Of resources.yaml, the types need only the templates' variables.
	typesFrom := []string{paramsFile, promptsFile}
	if len(templates) > 0 {
		typesFrom = append(typesFrom, resourcesFile)
	}
	typesSrc, err := goFile(sources(typesFrom...), inputs.Bytes())
	if err != nil {
		return nil, fmt.Errorf("%s/types_gen.go: %w", dir, err)
	}
	out[path.Join(dir, "types_gen.go")] = typesSrc

	for _, f := range []struct {
		name    string
		sources []string
	}{
		{"schemas_gen.go", sources(toolsetFile, paramsFile)},
		{"handlers_gen.go", sources(toolsetFile, promptsFile, resourcesFile)},
		{"register_gen.go", sources(toolsetFile, paramsFile, promptsFile, resourcesFile)},
		{"flags/flags_gen.go", sources(paramsFile)},
	} {
		var b bytes.Buffer
		if err := goTemplates.ExecuteTemplate(&b, strings.TrimSuffix(path.Base(f.name), "_gen.go")+".go.tmpl", data); err != nil {
			return nil, fmt.Errorf("%s/%s: %w", dir, f.name, err)
		}
		src, err := goFile(f.sources, b.Bytes())
		if err != nil {
			return nil, fmt.Errorf("%s/%s: %w", dir, f.name, err)
		}
		out[path.Join(dir, f.name)] = src
	}
	return out, nil
}

// toolsetData is what each template under templates/ is executed with: one
// toolset, its tools, prompts and resources, ready to print.
type toolsetData struct {
	Package   string
	Toolset   ToolsetSpec
	Tools     []toolData
	Prompts   []promptData
	Resources []resourceData
	Templates []templateData
	// Completers are the completers the prompts and templates name, in
	// the order they first appear.
	Completers []completerData
	Imports    map[string]string // structured output packages: path → name
}

// completerData is one completer: a spec name and its Handlers method
// Complete<Go>.
type completerData struct{ Name, Go string }

type toolData struct {
	Spec   *ToolSpec
	Go     string
	Schema string // Go string literal
	// Forms is the Go expression of the tool's *mcp.ArgumentForms ("nil"
	// when its arguments take no wider forms).
	Forms string
	// Invalid is the Go constant of how invalid arguments are answered.
	Invalid     string
	Description string
	OutputType  string
	// OutputSchema is the Go literal of the reflected output schema.
	OutputSchema string
	Flags        []flagData
	Defaults     []defaultData
}

type flagData struct {
	Expr string // a Go expression of type cli.Flag
}

type promptData struct {
	Spec PromptSpec
	Go   string
	Args []argData
}

type argData struct {
	Name, Go, Description string
	Required              bool
	Complete              string // the Go name of its completer, or ""
}

// defaultData is one parameter default an input's ApplyDefaults sets.
type defaultData struct {
	Field string // the Go field
	Value string // a Go literal
}

// inputDefaults are the assignments of a tool input's ApplyDefaults: one per
// parameter with a default, into the field go-jsonschema made for it.
// Setting them before the arguments are decoded leaves each default where
// its argument is absent (or null, which decoding ignores for a value).
func inputDefaults(t *ToolSpec, fields map[string]goField) ([]defaultData, error) {
	var out []defaultData
	for _, p := range t.Params {
		def := p.Default()
		if def == nil {
			continue
		}
		f, ok := fields[p.Name]
		if !ok || f.Pointer {
			return nil, fmt.Errorf("%s: parameter %s has a default but go-jsonschema made no plain field for it", t.file, p.Name)
		}
		var v any
		if err := json.Unmarshal(def, &v); err != nil {
			return nil, err
		}
		var lit string
		switch x := v.(type) {
		case string:
			lit = strconv.Quote(x)
		case float64, bool:
			lit = string(bytes.TrimSpace(def))
		default:
			return nil, fmt.Errorf("%s: parameter %s: a default must be a string, a number or a boolean, not %s", t.file, p.Name, def)
		}
		out = append(out, defaultData{Field: f.Name, Value: lit})
	}
	return out, nil
}

// noNestedDefault refuses a default in a nested schema (a parameter's
// items, or one of its properties) or anywhere below it: ApplyDefaults sets
// the defaults of parameters only, and a nested one would be advertised but
// never applied.
func noNestedDefault(schema json.RawMessage) error {
	if schema == nil {
		return nil
	}
	_, vals, err := orderedObject(schema)
	if err != nil {
		return err
	}
	if _, ok := vals["default"]; ok {
		return fmt.Errorf("a default inside items or properties is never applied; only parameters take defaults")
	}
	if err := noNestedDefault(vals["items"]); err != nil {
		return err
	}
	return noDefaultInProperties(vals["properties"])
}

// noDefaultInProperties applies noNestedDefault to each schema of a
// properties keyword.
func noDefaultInProperties(properties json.RawMessage) error {
	if properties == nil {
		return nil
	}
	_, vals, err := orderedObject(properties)
	if err != nil {
		return err
	}
	for _, v := range vals {
		if err := noNestedDefault(v); err != nil {
			return err
		}
	}
	return nil
}

type resourceData struct {
	Spec ResourceSpec
	Go   string
}

type templateData struct {
	Spec TemplateSpec
	Go   string
	Vars []varData
}

type varData struct {
	Name, Go string
	Complete string // the Go name of its completer, or ""
}

var templateVarRE = regexp.MustCompile(`\{([a-z_]+)\}`)

func templateVars(t string) []string {
	var out []string
	for _, m := range templateVarRE.FindAllStringSubmatch(t, -1) {
		out = append(out, m[1])
	}
	return out
}

// argumentForms renders the Go literal of a tool's wider argument forms:
// the integers that take strings of digits or are clamped, and the aliases.
func argumentForms(t *ToolSpec) string {
	var ints, aliases []string
	for _, p := range t.Params {
		if t.args.widensInteger(p) {
			f := []string{}
			if t.args.IntegerStrings {
				f = append(f, "Digits: true")
			}
			if t.args.clamps(p) {
				max, _ := p.maximum()
				f = append(f, "Clamp: true", fmt.Sprintf("Max: %d", max))
			}
			ints = append(ints, fmt.Sprintf("\t\t%q: {%s},\n", p.Name, strings.Join(f, ", ")))
		}
		if len(p.Aliases) > 0 {
			var pairs []string
			for _, a := range p.Aliases {
				pairs = append(pairs, fmt.Sprintf("%q: %q", a.From, a.To))
			}
			aliases = append(aliases, fmt.Sprintf("\t\t%q: {%s},\n", p.Name, strings.Join(pairs, ", ")))
		}
	}
	if len(ints)+len(aliases) == 0 {
		return "nil"
	}
	var b strings.Builder
	b.WriteString("&mcp.ArgumentForms{\n")
	if len(ints) > 0 {
		b.WriteString("\tIntegers: map[string]mcp.IntegerForm{\n" + strings.Join(ints, "") + "\t},\n")
	}
	if len(aliases) > 0 {
		b.WriteString("\tAliases: map[string]map[string]string{\n" + strings.Join(aliases, "") + "\t},\n")
	}
	b.WriteString("}")
	return b.String()
}

// invalidConst is the runtime's name for a toolset's invalid-arguments
// policy.
func invalidConst(a ArgumentsSpec) string {
	if a.Invalid == "result" {
		return "mcp.InvalidArgumentsToolResult"
	}
	return "mcp.InvalidArgumentsProtocolError"
}

// goStringLiteral quotes s as a raw string when it can, so schemas stay
// readable in the generated source.
func goStringLiteral(s string) string {
	if !strings.Contains(s, "`") {
		return "`" + s + "`"
	}
	return strconv.Quote(s)
}

// flagFor maps a parameter to a urfave/cli flag. No flag carries a default:
// an unset flag leaves the argument out, so the schema's default applies
// exactly as it does over MCP.
func flagFor(p ParamSpec) flagData {
	usage := p.Description.EN
	if p.Required {
		usage += " (required)"
	} else if d := p.Default(); d != nil {
		usage += " (default " + strings.Trim(string(d), `"`) + ")"
	} else if p.Doc.Default != nil {
		usage += " (default " + p.Doc.Default.EN + ")"
	}
	if vals := p.enumValues(); vals != nil {
		var parts []string
		for _, v := range vals {
			parts = append(parts, strings.Trim(string(v), `"`))
		}
		usage += "; one of " + strings.Join(parts, ", ")
	}
	names := fmt.Sprintf("Name: %q, Usage: %q", p.Name, usage)
	if kebab := kebabCase(p.Name); kebab != p.Name {
		names = fmt.Sprintf("Name: %q, Aliases: []string{%q}, Usage: %q", p.Name, kebab, usage)
	}
	switch p.Type() {
	case "string":
		return flagData{"&cli.StringFlag{" + names + "}"}
	case "integer":
		return flagData{"&cli.Int64Flag{" + names + "}"}
	case "number":
		return flagData{"&cli.Float64Flag{" + names + "}"}
	case "boolean":
		return flagData{"&cli.BoolFlag{" + names + "}"}
	case "array":
		switch p.itemType() {
		case "string":
			return flagData{"&cli.StringSliceFlag{" + names + "}"}
		case "integer":
			return flagData{"&cli.Int64SliceFlag{" + names + "}"}
		}
	}
	return flagData{fmt.Sprintf("cliflag.JSON(%q, %q)", p.Name, usage+" (JSON)")}
}

func boolLit(b *bool) string {
	if b == nil {
		return "nil"
	}
	return fmt.Sprintf("mcp.Bool(%t)", *b)
}

var funcs = template.FuncMap{
	"goName": goName,
	"schemaConst": func(tool string) string {
		g := goName(tool)
		return strings.ToLower(g[:1]) + g[1:] + "InputSchema"
	},
	"formsVar": func(tool string) string {
		g := goName(tool)
		return strings.ToLower(g[:1]) + g[1:] + "Arguments"
	},
	"outputConst": func(tool string) string {
		g := goName(tool)
		return strings.ToLower(g[:1]) + g[1:] + "OutputSchema"
	},
	"boolLit": boolLit,
	"quote":   strconv.Quote,
	"hasOutputs": func(tools []toolData) bool {
		for _, t := range tools {
			if t.OutputType != "" {
				return true
			}
		}
		return false
	},
	"needsCLIFlag": func(tools []toolData) bool {
		for _, t := range tools {
			for _, f := range t.Flags {
				if strings.HasPrefix(f.Expr, "cliflag.") {
					return true
				}
			}
		}
		return false
	},
	"needsMCP": func(d toolsetData) bool {
		if len(d.Prompts)+len(d.Resources)+len(d.Templates) > 0 {
			return true
		}
		for _, t := range d.Tools {
			if t.OutputType == "" {
				return true
			}
		}
		return false
	},
}

// kebabCase is a parameter's name as a command-line flag spells it:
// budget_tokens → budget-tokens, maxModules → max-modules.
func kebabCase(name string) string {
	var b strings.Builder
	for i, r := range name {
		switch {
		case r == '_':
			b.WriteByte('-')
		case r >= 'A' && r <= 'Z':
			if i > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r + ('a' - 'A'))
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
