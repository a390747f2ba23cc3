package codegen

import (
	"encoding/json"
	"fmt"
	"strings"
)

// words are the fixed words of the reference, by language.
var words = map[string]map[string]string{
	"en": {
		"param": "Parameter", "type": "Type", "default": "Default", "required": "required",
		"optional": "optional", "prompts": "Prompts", "name": "Name", "args": "Arguments",
		"purpose": "Purpose", "resources": "Resources", "content": "Content", "errors": "Error codes",
		"code": "Code", "message": "Message", "when": "When", "data": "data", "never": "never sent",
		"template": "template", "noParams": "No parameters.",
	},
	"sk": {
		"param": "Parameter", "type": "Typ", "default": "Predvolene", "required": "povinné",
		"optional": "voliteľné", "prompts": "Prompty", "name": "Názov", "args": "Argumenty",
		"purpose": "Účel", "resources": "Zdroje", "content": "Obsah", "errors": "Chybové kódy",
		"code": "Kód", "message": "Správa", "when": "Kedy", "data": "data", "never": "nikdy sa neposiela",
		"template": "šablóna", "noParams": "Bez parametrov.",
	},
}

// reference renders the tool reference of a tree in one language, in the
// layout of seeds/004: the server paragraph, the tools with one table each,
// prompts, resources, the closing sections, then the error codes.
func reference(t *Tree, lang string) string {
	w := words[lang]
	var b strings.Builder
	s := t.Server
	if s == nil {
		return ""
	}
	fmt.Fprintf(&b, "# %s\n\n%s\n\n", md(s.Title.In(lang)), md(s.Intro.In(lang)))
	fmt.Fprintf(&b, "## %s\n\n", md(s.ToolsHeading.In(lang)))
	if s.ToolsIntro != nil {
		fmt.Fprintf(&b, "%s\n\n", md(s.ToolsIntro.In(lang)))
	}
	for i, ts := range t.Toolsets {
		if i > 0 {
			// The opening paragraphs describe the first toolset; each other
			// one gets a heading and its own description.
			fmt.Fprintf(&b, "## %s (%s)\n\n%s\n\n", md(ts.Title.In(lang)), ts.Name, md(ts.Description.In(lang)))
			if ts.Intro != nil {
				fmt.Fprintf(&b, "%s\n\n", md(ts.Intro.In(lang)))
			}
		}
		if contract := argumentContract(ts, t.toolsOf(ts.Name), lang); contract != "" {
			fmt.Fprintf(&b, "%s\n\n", md(contract))
		}
		for _, tool := range t.toolsOf(ts.Name) {
			if tool.Hidden {
				continue
			}
			fmt.Fprintf(&b, "### %s\n\n", tool.Name)
			b.WriteString(paramTable(tool, lang))
			if tool.Doc.After != nil {
				fmt.Fprintf(&b, "\n%s\n", md(tool.Doc.After.In(lang)))
			}
			for _, p := range tool.Params {
				if len(p.Aliases) > 0 {
					fmt.Fprintf(&b, "\n%s\n", md(aliasLine(p, lang)))
				}
			}
			b.WriteString("\n")
		}
	}
	sections := func(after string) {
		for _, sec := range s.Sections {
			if sec.After == after {
				fmt.Fprintf(&b, "## %s\n\n%s\n\n", md(sec.Heading.In(lang)), md(sec.Body.In(lang)))
			}
		}
	}
	sections("tools")
	if len(t.Prompts) > 0 {
		fmt.Fprintf(&b, "## %s\n\n| %s | %s | %s |\n|---|---|---|\n", w["prompts"], w["name"], w["args"], w["purpose"])
		for _, p := range t.Prompts {
			var args []string
			for _, a := range p.Arguments {
				if a.Required {
					args = append(args, a.Name)
				} else {
					args = append(args, a.Name+" ("+w["optional"]+")")
				}
			}
			fmt.Fprintf(&b, "| %s | %s | %s |\n", cell(p.Name), cell(strings.Join(args, ", ")), cell(p.Description.In(lang)))
		}
		b.WriteString("\n")
	}
	sections("prompts")
	if len(t.Resources)+len(t.Templates) > 0 {
		fmt.Fprintf(&b, "## %s\n\n| URI | %s |\n|---|---|\n", w["resources"], w["content"])
		for _, r := range t.Resources {
			content := r.Description.In(lang)
			if r.Doc != nil {
				content = r.Doc.In(lang)
			}
			fmt.Fprintf(&b, "| %s | %s |\n", cell(r.URI), cell(content))
		}
		for _, r := range t.Templates {
			content := r.Description.In(lang)
			if r.Doc != nil {
				content = r.Doc.In(lang)
			}
			uri := templateVarRE.ReplaceAllString(r.URITemplate, "<$1>")
			fmt.Fprintf(&b, "| %s | %s |\n", cell(uri), cell(content))
		}
		b.WriteString("\n")
	}
	sections("resources")
	fmt.Fprintf(&b, "## %s\n\n", w["errors"])
	b.WriteString(errorTable(t, lang))
	return strings.TrimRight(b.String(), "\n") + "\n"
}

// paramTable renders a tool's parameters. A tool none of whose parameters
// has a default gets no default column; a required parameter then says so in
// its type ("string (povinné)").
func paramTable(tool *ToolSpec, lang string) string {
	w := words[lang]
	if len(tool.Params) == 0 {
		return w["noParams"] + "\n"
	}
	withDefaults := false
	for _, p := range tool.Params {
		if p.Default() != nil || p.Doc.Default != nil {
			withDefaults = true
		}
	}
	var b strings.Builder
	if withDefaults {
		fmt.Fprintf(&b, "| %s | %s | %s | |\n|---|---|---|---|\n", w["param"], w["type"], w["default"])
	} else {
		fmt.Fprintf(&b, "| %s | %s | |\n|---|---|---|\n", w["param"], w["type"])
	}
	for _, p := range tool.Params {
		typ := docType(p)
		desc := p.Description.In(lang)
		if p.Doc.Blank {
			desc = ""
		}
		if withDefaults {
			def := ""
			switch {
			case p.Required:
				def = w["required"]
			case p.Doc.Default != nil:
				def = p.Doc.Default.In(lang)
			case p.Default() != nil:
				def = jsonText(p.Default())
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", cell(p.Name), cell(typ), cell(def), cell(desc))
			continue
		}
		if p.Required {
			typ += " (" + w["required"] + ")"
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", cell(p.Name), cell(typ), cell(desc))
	}
	return b.String()
}

// docType is the type as a reader expects it: an enum's values, "string[]"
// for a list.
func docType(p ParamSpec) string {
	if p.Doc.Type != "" {
		return p.Doc.Type
	}
	if p.List {
		return "string[]"
	}
	if vals := p.enumValues(); vals != nil {
		var parts []string
		for _, v := range vals {
			parts = append(parts, jsonText(v))
		}
		return strings.Join(parts, " | ")
	}
	if p.Type() == "array" {
		return p.itemType() + "[]"
	}
	return p.Type()
}

// jsonText shows a JSON value as text: strings unquoted, arrays joined.
func jsonText(v json.RawMessage) string {
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s
	}
	var list []json.RawMessage
	if json.Unmarshal(v, &list) == nil {
		var parts []string
		for _, e := range list {
			parts = append(parts, jsonText(e))
		}
		return strings.Join(parts, ", ")
	}
	return string(v)
}

func errorTable(t *Tree, lang string) string {
	w := words[lang]
	var b strings.Builder
	fmt.Fprintf(&b, "| %s | %s | %s | %s |\n|---|---|---|---|\n", w["code"], w["message"], w["when"], w["data"])
	for _, e := range t.Errors {
		when := e.When.In(lang)
		if !e.Emitted {
			when = "(" + w["never"] + ") " + when
		}
		data := ""
		if e.Data != nil {
			data = e.Data.In(lang)
		}
		fmt.Fprintf(&b, "| %d | %s | %s | %s |\n", e.Code, cell(e.Message), cell(when), strings.ReplaceAll(data, "|", `\|`))
	}
	return b.String()
}

// md escapes what Markdown would otherwise read as HTML.
func md(s string) string {
	return strings.ReplaceAll(s, "<", `\<`)
}

// cell escapes a table cell.
func cell(s string) string {
	return strings.ReplaceAll(md(s), "|", `\|`)
}

// replaceMarked replaces the text between the markers of a generated region
// in doc, or returns an error naming the missing markers.
func replaceMarked(file, doc, region, body string) (string, error) {
	begin := "<!-- BEGIN GENERATED: " + region + " (make generate; do not edit) -->"
	end := "<!-- END GENERATED: " + region + " -->"
	i := strings.Index(doc, begin)
	j := strings.Index(doc, end)
	if i < 0 || j < i {
		return "", fmt.Errorf("%s: the markers of the generated region %q are missing:\n%s\n%s", file, region, begin, end)
	}
	return doc[:i+len(begin)] + "\n" + body + doc[j:], nil
}

// markedDoc is a new file that holds only a generated region.
func markedDoc(region, body string) string {
	return "<!-- BEGIN GENERATED: " + region + " (make generate; do not edit) -->\n" + body + "<!-- END GENERATED: " + region + " -->\n"
}

// argumentContract is the paragraph that documents a toolset's argument
// contract (toolset.yaml, arguments), in the words of the language; the
// examples are taken from the toolset's own tools.
func argumentContract(ts ToolsetSpec, tools []*ToolSpec, lang string) string {
	a := ts.Arguments
	var parts []string
	switch a.Invalid {
	case "result":
		example := ""
		for _, tool := range tools {
			for _, p := range tool.Params {
				if p.Required && example == "" {
					example = fmt.Sprintf("Invalid arguments for %s: %s: missing (required)", tool.Name, p.Name)
				}
			}
		}
		if lang == "sk" {
			parts = append(parts, "Argumenty sa pred spustením nástroja overia voči jeho vstupnej schéme (tej, ktorú ohlasuje tools/list). Argument, ktorý neprejde, sa vráti ako výsledok nástroja s isError: true, ktorý pomenuje parameter a čo je na ňom zlé (napríklad „"+example+"“), aby agent mohol volanie opraviť; nástroj sa nespustí. Neznámy nástroj sa odmietne s -32602.")
		} else {
			parts = append(parts, "Arguments are validated against the tool's input schema (the one tools/list advertises) before the tool runs. An argument that fails comes back as a tool result with isError: true that names the parameter and what is wrong with it (for example \""+example+"\"), so that the agent can correct the call; the tool does not run. An unknown tool is refused with -32602.")
		}
	case "protocol":
		if lang == "sk" {
			parts = append(parts, "Argumenty sa pred spustením nástroja overia voči jeho vstupnej schéme (tej, ktorú ohlasuje tools/list); volanie, ktorého argumenty neprejdú (chýbajúce povinné polia, zlé typy, neplatné hodnoty enum, neznáme vlastnosti, prekročené hranice), sa odmietne s -32602 a data.violations a nástroj sa nespustí. Rovnako neznámy nástroj.")
		} else {
			parts = append(parts, "Arguments are validated against the tool's input schema (the one tools/list advertises) before the tool runs; a call whose arguments fail (missing required fields, wrong types, invalid enums, unknown properties, exceeded bounds) is refused with -32602 and data.violations, and the tool does not run. So is a call to an unknown tool.")
		}
	}
	if a.IntegerStrings {
		if lang == "sk" {
			parts = append(parts, "Celočíselné parametre prijímajú hodnotu aj ako reťazec číslic (\"10\").")
		} else {
			parts = append(parts, "Integer parameters also take their value as a string of digits (\"10\").")
		}
	}
	if a.ClampToMaximum {
		// The example is a limit where there is one, as the original's
		// users know it (limit: 100 in ctx_search is 50).
		example := ""
		for _, limitsOnly := range []bool{true, false} {
			for _, tool := range tools {
				for _, p := range tool.Params {
					max, ok := p.maximum()
					if !ok || !a.clamps(p) || example != "" || (limitsOnly && p.Name != "limit") {
						continue
					}
					example = fmt.Sprintf("%s: %d in %s is %d", p.Name, max*2, tool.Name, max)
					if lang == "sk" {
						example = fmt.Sprintf("%s: %d v %s je %d", p.Name, max*2, tool.Name, max)
					}
				}
			}
		}
		if lang == "sk" {
			parts = append(parts, "Hodnota nad maximom parametra sa zníži na maximum ("+example+") a odpoveď to na konci oznámi.")
		} else {
			parts = append(parts, "A value above a parameter's maximum is clamped to the maximum ("+example+"), and the answer ends with a note saying so.")
		}
	}
	return strings.Join(parts, " ")
}

// aliasLine documents the aliases a parameter accepts.
func aliasLine(p ParamSpec, lang string) string {
	var pairs []string
	for _, a := range p.Aliases {
		pairs = append(pairs, a.From+" → "+a.To)
	}
	if lang == "sk" {
		return p.Name + " prijíma aj aliasy: " + strings.Join(pairs, ", ") + "."
	}
	return p.Name + " also accepts the aliases " + strings.Join(pairs, ", ") + "."
}
