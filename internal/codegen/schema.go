package codegen

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// mcpImport is the runtime package generated code builds on.
const mcpImport = "github.com/kontext-dev/kontext/internal/mcp"

// inputSchema returns the canonical JSON of a tool's input schema: the bytes
// tools/list advertises and the validator compiles. It is compact (a JSON-RPC
// line may not contain a newline) and deterministic: keys in schemaKeywords
// order, properties in declared order.
func inputSchema(t *ToolSpec) ([]byte, error) {
	return rootSchema(t, false)
}

// goInputSchema is the variant handed to go-jsonschema: the same schema with
// Go type hints (goJSONSchema) where the Go type is ours.
func goInputSchema(t *ToolSpec) ([]byte, error) {
	return rootSchema(t, true)
}

func rootSchema(t *ToolSpec, forGo bool) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"type":"object"`)
	if forGo {
		b.WriteString(`,"description":`)
		writeString(&b, fmt.Sprintf("%sInput is the input of %s: %s", goName(t.Name), t.Name, t.Title.EN))
	}
	b.WriteString(`,"properties":{`)
	var required []string
	for i, p := range t.Params {
		if i > 0 {
			b.WriteByte(',')
		}
		writeString(&b, p.Name)
		b.WriteByte(':')
		ps, err := paramSchemaJSON(p, forGo)
		if err != nil {
			return nil, fmt.Errorf("%s: parameter %s: %w", t.file, p.Name, err)
		}
		b.Write(ps)
		if p.Required {
			required = append(required, p.Name)
		}
	}
	b.WriteByte('}')
	if len(required) > 0 {
		b.WriteString(`,"required":`)
		r, _ := json.Marshal(required)
		b.Write(r)
	}
	if forGo && len(t.Params) == 0 {
		// go-jsonschema would make a map of an object without properties.
		b.WriteString(`,"goJSONSchema":{"type":"struct{}"}`)
	}
	b.WriteString(`,"additionalProperties":false}`)
	return b.Bytes(), nil
}

// paramSchemaJSON renders one parameter's schema.
func paramSchemaJSON(p ParamSpec, forGo bool) ([]byte, error) {
	var b bytes.Buffer
	if p.List {
		// A list parameter takes an array of strings or one comma-separated
		// string: advertised as exactly that, decoded by mcp.StringList.
		if forGo {
			b.WriteString(`{"type":"array","description":`)
			writeString(&b, p.Description.EN)
			b.WriteString(`,"items":{"type":"string"},"goJSONSchema":{"type":"mcp.StringList","imports":["` + mcpImport + `"],"pointer":false}}`)
			return b.Bytes(), nil
		}
		b.WriteString(`{"description":`)
		writeString(&b, p.Description.EN)
		b.WriteString(`,"anyOf":[{"type":"array","items":`)
		if err := compactInto(&b, p.Schema.values["items"]); err != nil {
			return nil, err
		}
		for _, k := range []string{"minItems", "maxItems"} {
			if v, ok := p.Schema.values[k]; ok {
				b.WriteString(`,"` + k + `":`)
				if err := compactInto(&b, v); err != nil {
					return nil, err
				}
			}
		}
		b.WriteString(`},{"type":"string"}]}`)
		return b.Bytes(), nil
	}
	b.WriteByte('{')
	first := true
	for _, k := range schemaKeywords {
		var v json.RawMessage
		switch k {
		case "description":
			var d bytes.Buffer
			writeString(&d, p.Description.EN)
			v = d.Bytes()
		default:
			var ok bool
			if v, ok = p.Schema.values[k]; !ok {
				continue
			}
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		writeString(&b, k)
		b.WriteByte(':')
		if err := writeKeyword(&b, k, v, forGo); err != nil {
			return nil, err
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// writeKeyword writes one keyword's value; nested schemas (items,
// properties) are rendered like parameters, so `list: true` works at any
// depth.
func writeKeyword(b *bytes.Buffer, k string, v json.RawMessage, forGo bool) error {
	switch k {
	case "items":
		return valueSchema(b, v, forGo)
	case "properties":
		keys, vals, err := orderedObject(v)
		if err != nil {
			return err
		}
		b.WriteByte('{')
		for i, name := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(b, name)
			b.WriteByte(':')
			if err := valueSchema(b, vals[name], forGo); err != nil {
				return err
			}
		}
		b.WriteByte('}')
		return nil
	}
	return compactInto(b, v)
}

// valueSchema renders a nested value schema in canonical keyword order.
func valueSchema(b *bytes.Buffer, raw json.RawMessage, forGo bool) error {
	_, vals, err := orderedObject(raw)
	if err != nil {
		return err
	}
	if list := vals["list"]; string(list) == "true" {
		if forGo {
			b.WriteString(`{"type":"array"`)
			if d, ok := vals["description"]; ok {
				b.WriteString(`,"description":`)
				compactInto(b, d)
			}
			b.WriteString(`,"items":{"type":"string"},"goJSONSchema":{"type":"mcp.StringList","imports":["` + mcpImport + `"],"pointer":false}}`)
			return nil
		}
		b.WriteByte('{')
		if d, ok := vals["description"]; ok {
			b.WriteString(`"description":`)
			compactInto(b, d)
			b.WriteByte(',')
		}
		b.WriteString(`"anyOf":[{"type":"array","items":{"type":"string"}},{"type":"string"}]}`)
		return nil
	}
	b.WriteByte('{')
	first := true
	for _, k := range schemaKeywords {
		v, ok := vals[k]
		if !ok {
			continue
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		writeString(b, k)
		b.WriteByte(':')
		if err := writeKeyword(b, k, v, forGo); err != nil {
			return err
		}
	}
	b.WriteByte('}')
	return nil
}

// orderedObject decodes a JSON object, keeping its keys' order.
func orderedObject(raw json.RawMessage) ([]string, map[string]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		return nil, nil, fmt.Errorf("not a JSON object: %s", raw)
	}
	var keys []string
	vals := map[string]json.RawMessage{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, nil, err
		}
		keys = append(keys, key)
		vals[key] = v
	}
	return keys, vals, nil
}

func compactInto(b *bytes.Buffer, v json.RawMessage) error {
	return json.Compact(b, v)
}

// writeString writes a JSON string without HTML escaping, so that the
// advertised schema reads as written ("kx:<id>", not "kx:\u003cid\u003e").
func writeString(b *bytes.Buffer, s string) {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	b.Truncate(b.Len() - 1) // Encode's newline
}

// prettyJSON indents canonical JSON for files people read.
func prettyJSON(b []byte) []byte {
	var out bytes.Buffer
	_ = json.Indent(&out, b, "", "  ")
	out.WriteByte('\n')
	return out.Bytes()
}
