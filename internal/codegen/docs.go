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
		"template": "template",
	},
	"sk": {
		"param": "Parameter", "type": "Typ", "default": "Predvolene", "required": "povinné",
		"optional": "voliteľné", "prompts": "Prompty", "name": "Názov", "args": "Argumenty",
		"purpose": "Účel", "resources": "Zdroje", "content": "Obsah", "errors": "Chybové kódy",
		"code": "Kód", "message": "Správa", "when": "Kedy", "data": "data", "never": "nikdy sa neposiela",
		"template": "šablóna",
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
		}
		for _, tool := range t.toolsOf(ts.Name) {
			fmt.Fprintf(&b, "### %s\n\n", tool.Name)
			b.WriteString(paramTable(tool, lang))
			if tool.Doc.After != nil {
				fmt.Fprintf(&b, "\n%s\n", md(tool.Doc.After.In(lang)))
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
