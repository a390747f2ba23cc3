package check

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	schema "github.com/kontext-dev/kontext/schema/appcontext"
)

// The profile document's generated sections sit between these markers,
// so the rules and the manifest's keys there are the table above and the
// schema the broker validates against, never a copy that drifts.
//
//go:generate go run ./internal/gendoc

// ProfileDoc is the profile document, from the module root.
const ProfileDoc = "docs/appcontext-profile.md"

func begin(section string) string {
	return "<!-- BEGIN GENERATED: " + section + " (go generate ./internal/apps/check; do not edit) -->"
}

func end(section string) string { return "<!-- END GENERATED: " + section + " -->" }

// SpliceDoc returns the profile document with its generated sections
// (manifest, rules) rewritten.
func SpliceDoc(doc []byte) ([]byte, error) {
	manifest, err := ManifestMarkdown()
	if err != nil {
		return nil, err
	}
	for _, s := range []struct{ name, body string }{{"manifest", manifest}, {"rules", RulesMarkdown()}} {
		b, e := []byte(begin(s.name)), []byte(end(s.name))
		i := bytes.Index(doc, b)
		j := bytes.Index(doc, e)
		if i < 0 || j < i {
			return nil, fmt.Errorf("%s has no %q … %q section", ProfileDoc, begin(s.name), end(s.name))
		}
		var out bytes.Buffer
		out.Write(doc[:i+len(b)])
		out.WriteString("\n" + s.body)
		out.Write(doc[j:])
		doc = out.Bytes()
	}
	return doc, nil
}

// RulesMarkdown is the rules section: a summary table, then each rule.
func RulesMarkdown() string {
	var b strings.Builder
	b.WriteString("| Rule | Passes when | Needs |\n|---|---|---|\n")
	for _, r := range Rules() {
		needs := "—"
		if len(r.Needs) > 0 {
			needs = strings.Join(r.Needs, ", ")
		}
		fmt.Fprintf(&b, "| [`%s`](#%s) | %s | %s |\n", r.ID, r.ID, cell(r.Title), needs)
	}
	for _, r := range Rules() {
		fmt.Fprintf(&b, "\n#### %s\n\n%s\n\n*Why:* %s\n", r.ID, r.Checks, r.Why)
	}
	return b.String()
}

func cell(s string) string {
	return strings.NewReplacer("|", `\|`, "<", "&lt;", ">", "&gt;").Replace(s)
}

// schemaNode is the part of a JSON Schema the keys table reads.
type schemaNode struct {
	Ref         string                 `json:"$ref"`
	Description string                 `json:"description"`
	Type        string                 `json:"type"`
	Const       any                    `json:"const"`
	Pattern     string                 `json:"pattern"`
	Format      string                 `json:"format"`
	MinLength   *int                   `json:"minLength"`
	MaxLength   *int                   `json:"maxLength"`
	Minimum     *float64               `json:"minimum"`
	MinItems    *int                   `json:"minItems"`
	Items       *schemaNode            `json:"items"`
	Properties  map[string]*schemaNode `json:"properties"`
	Required    []string               `json:"required"`
}

// ManifestMarkdown is the manifest section: every key of
// schema/appcontext/manifest.json, nested keys dotted, with whether it is
// required, its type, its constraints and its description.
func ManifestMarkdown() (string, error) {
	var root struct {
		Defs map[string]*schemaNode `json:"$defs"`
	}
	if err := json.Unmarshal(schema.ManifestSchema, &root); err != nil {
		return "", fmt.Errorf("the manifest schema: %v", err)
	}
	top, ok := root.Defs["Manifest"]
	if !ok {
		return "", fmt.Errorf("the manifest schema has no $defs/Manifest")
	}
	var b strings.Builder
	b.WriteString("| Key | Required | Type | Constraint | Meaning |\n|---|---|---|---|---|\n")
	var walk func(prefix string, n *schemaNode) error
	walk = func(prefix string, n *schemaNode) error {
		keys := make([]string, 0, len(n.Properties))
		for k := range n.Properties {
			keys = append(keys, k)
		}
		// The schema's order is lost in a map; required keys first, each
		// group by name, reads well enough and is deterministic.
		slices.SortFunc(keys, func(x, y string) int {
			rx, ry := slices.Contains(n.Required, x), slices.Contains(n.Required, y)
			if rx != ry {
				if rx {
					return -1
				}
				return 1
			}
			return strings.Compare(x, y)
		})
		for _, k := range keys {
			p := n.Properties[k]
			desc := p.Description
			if p.Ref != "" {
				def, ok := root.Defs[strings.TrimPrefix(p.Ref, "#/$defs/")]
				if !ok {
					return fmt.Errorf("the manifest schema: %s refers to %s, which it does not define", prefix+k, p.Ref)
				}
				if desc == "" {
					desc = def.Description
				}
				p = def
			}
			req := "no"
			if slices.Contains(n.Required, k) {
				req = "yes"
			}
			typ := p.Type
			if p.Items != nil && p.Items.Type != "" {
				typ += " of " + p.Items.Type
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n", prefix+k, req, typ, cell(constraint(p)), cell(desc))
			if len(p.Properties) > 0 {
				if err := walk(prefix+k+".", p); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := walk("", top); err != nil {
		return "", err
	}
	b.WriteString("\nOne of `mcp` and `websocket` is required; a manifest without `mcp` is a legacy manifest. No other key is allowed, at any level.\n")
	return b.String(), nil
}

func constraint(n *schemaNode) string {
	var parts []string
	if n.Const != nil {
		c, _ := json.Marshal(n.Const)
		parts = append(parts, "exactly "+"`"+string(c)+"`")
	}
	if n.Pattern != "" {
		parts = append(parts, "pattern `"+n.Pattern+"`")
	}
	if n.Items != nil && n.Items.Pattern != "" {
		parts = append(parts, "each matches `"+n.Items.Pattern+"`")
	}
	if n.Format != "" {
		parts = append(parts, "format "+n.Format)
	}
	if n.MinLength != nil && n.MaxLength != nil {
		parts = append(parts, fmt.Sprintf("%d…%d characters", *n.MinLength, *n.MaxLength))
	} else if n.MaxLength != nil {
		parts = append(parts, fmt.Sprintf("at most %d characters", *n.MaxLength))
	}
	if n.Minimum != nil {
		parts = append(parts, fmt.Sprintf("at least %g", *n.Minimum))
	}
	if n.MinItems != nil {
		parts = append(parts, fmt.Sprintf("at least %d item%s", *n.MinItems, map[bool]string{true: "", false: "s"}[*n.MinItems == 1]))
	}
	if len(parts) == 0 {
		return "—"
	}
	return strings.Join(parts, "; ")
}
