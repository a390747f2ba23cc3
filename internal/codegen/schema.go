package codegen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
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
		ps, err := paramSchemaJSON(p, forGo, t.args)
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

// paramSchemaJSON renders one parameter's schema. The advertised schema
// (forGo false) says every form the parameter accepts under the toolset's
// argument contract; the Go variant is the plain type the decoder fills
// once mcp.DecodeArguments has brought the wider forms to it.
func paramSchemaJSON(p ParamSpec, forGo bool, args ArgumentsSpec) ([]byte, error) {
	var b bytes.Buffer
	if p.List {
		if forGo {
			b.WriteString(`{"type":"array","description":`)
			writeString(&b, p.Description.EN)
			b.WriteString(`,"items":{"type":"string"},"goJSONSchema":{"type":"mcp.StringList","imports":["` + mcpImport + `"],"pointer":false}}`)
			return b.Bytes(), nil
		}
		desc, _ := json.Marshal(p.Description.EN)
		vals := map[string]json.RawMessage{"description": desc}
		for _, k := range []string{"items", "minItems", "maxItems"} {
			if v, ok := p.Schema.values[k]; ok {
				vals[k] = v
			}
		}
		if err := listSchema(&b, vals, p.Aliases); err != nil {
			return nil, err
		}
		return b.Bytes(), nil
	}
	if p.Passthrough {
		// Open: the receiver validates it against its own schema.
		b.WriteString(`{"type":"object","description":`)
		writeString(&b, p.Description.EN)
		if forGo {
			b.WriteString(`,"goJSONSchema":{"type":"json.RawMessage","imports":["encoding/json"],"pointer":false}`)
		}
		b.WriteByte('}')
		return b.Bytes(), nil
	}
	if !forGo && args.widensInteger(p) {
		return integerSchema(p, args)
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
		case "enum":
			var ok bool
			if v, ok = p.Schema.values[k]; !ok {
				continue
			}
			if !forGo {
				v = withAliases(v, p.Aliases)
			}
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

// integerSchema advertises an integer parameter of a toolset that accepts
// more than a JSON integer: with integerStrings, anyOf an integer and a
// string of digits in the same range; with clampToMaximum, no maximum (a
// larger value is accepted and clamped), and the description says so.
func integerSchema(p ParamSpec, args ArgumentsSpec) ([]byte, error) {
	var b bytes.Buffer
	desc := p.Description.EN
	max, hasMax := p.maximum()
	clamped := args.clamps(p)
	if clamped {
		desc += fmt.Sprintf("; a value above %d is clamped to %d", max, max)
	}
	integer := func(b *bytes.Buffer, withDesc bool) {
		b.WriteString(`{"type":"integer"`)
		if withDesc {
			b.WriteString(`,"description":`)
			writeString(b, desc)
		}
		for _, k := range []string{"enum", "default", "minimum", "maximum"} {
			v, ok := p.Schema.values[k]
			if !ok || (k == "maximum" && clamped) || (k == "default" && !withDesc) {
				continue
			}
			b.WriteString(`,"` + k + `":`)
			compactInto(b, v)
		}
		b.WriteByte('}')
	}
	if !args.IntegerStrings {
		integer(&b, true)
		return b.Bytes(), nil
	}
	b.WriteString(`{"description":`)
	writeString(&b, desc)
	if d, ok := p.Schema.values["default"]; ok {
		b.WriteString(`,"default":`)
		compactInto(&b, d)
	}
	b.WriteString(`,"anyOf":[`)
	integer(&b, false)
	b.WriteString(`,{"type":"string"`)
	if vals := p.enumValues(); vals != nil {
		var digits []string
		for _, v := range vals {
			digits = append(digits, string(v))
		}
		enum, _ := json.Marshal(digits)
		b.WriteString(`,"enum":`)
		b.Write(enum)
	} else {
		lo, _ := p.minimum()
		hi := int64(-1)
		if hasMax && !clamped {
			hi = max
		}
		b.WriteString(`,"maxLength":` + fmt.Sprint(maxDigits))
		b.WriteString(`,"pattern":`)
		writeString(&b, "^0*(?:"+decimalRange(lo, hi)+")$")
	}
	b.WriteString(`}]}`)
	return b.Bytes(), nil
}

// maxDigits bounds a string of digits: an int64 has at most 19 digits, and
// a longer string (leading zeros aside) is no sensible argument.
const maxDigits = 20

// listSchema renders a list (`list: true`): anyOf an array of strings and
// one comma-separated string, each form bounded as the spec bounds the
// list. The string form holds at most maxItems parts (its pattern counts
// the commas) and is no longer than the array form could be.
func listSchema(b *bytes.Buffer, vals map[string]json.RawMessage, aliases []Alias) error {
	b.WriteByte('{')
	if d, ok := vals["description"]; ok {
		b.WriteString(`"description":`)
		compactInto(b, d)
		b.WriteByte(',')
	}
	b.WriteString(`"anyOf":[{"type":"array","items":`)
	_, items, err := orderedObject(orDefault(vals["items"], `{"type":"string"}`))
	if err != nil {
		return err
	}
	if e, ok := items["enum"]; ok {
		items["enum"] = withAliases(e, aliases)
	}
	itemsJSON, err := objectJSON(items)
	if err != nil {
		return err
	}
	if err := valueSchema(b, itemsJSON, false); err != nil {
		return err
	}
	for _, k := range []string{"minItems", "maxItems"} {
		if v, ok := vals[k]; ok {
			b.WriteString(`,"` + k + `":`)
			compactInto(b, v)
		}
	}
	b.WriteString(`},{"type":"string"`)
	var maxItems int
	_ = json.Unmarshal(vals["maxItems"], &maxItems)
	var enum []string
	_ = json.Unmarshal(items["enum"], &enum)
	var itemMax int
	_ = json.Unmarshal(items["maxLength"], &itemMax)
	for _, e := range enum {
		itemMax = max(itemMax, utf8.RuneCountInString(e))
	}
	if maxItems > 0 && itemMax > 0 {
		fmt.Fprintf(b, `,"maxLength":%d`, maxItems*(itemMax+1)-1)
	}
	if maxItems > 0 {
		b.WriteString(`,"pattern":`)
		writeString(b, listPattern(maxItems, itemMax, enum))
	}
	b.WriteString(`}]}`)
	return nil
}

// listPattern matches a comma-separated string of at most n items, where
// blank parts ("a,,b", "a, ") are no items, as mcp.StringList drops them.
// An item is one of enum (blanks around it allowed), or else at most
// itemMax characters long when RE2 can count that far (nested counts may
// not multiply beyond 1000), or else any length (maxLength bounds it).
func listPattern(n, itemMax int, enum []string) string {
	const blank = `[ \t\r\n]`
	var item string
	switch {
	case len(enum) > 0:
		quoted := make([]string, len(enum))
		for i, e := range enum {
			quoted[i] = regexp.QuoteMeta(e)
		}
		item = `(?:` + strings.Join(quoted, "|") + `)` + blank + `*`
	case itemMax > 0 && (itemMax-1)*max(n-1, 1) <= 1000:
		item = fmt.Sprintf(`[^, \t\r\n][^,]{0,%d}`, itemMax-1)
	default:
		item = `[^, \t\r\n][^,]*`
	}
	sep := `[ \t\r\n,]*`
	more := ""
	if n > 1 {
		more = fmt.Sprintf(`(?:,%s%s){0,%d}`, sep, item, n-1)
	}
	return "^" + sep + "(?:" + item + more + ")?" + sep + "$"
}

// withAliases appends the aliases to an enum (a JSON array of strings).
func withAliases(enum json.RawMessage, aliases []Alias) json.RawMessage {
	if len(aliases) == 0 {
		return enum
	}
	var vals []json.RawMessage
	if json.Unmarshal(enum, &vals) != nil {
		return enum
	}
	for _, a := range aliases {
		v, _ := json.Marshal(a.From)
		vals = append(vals, v)
	}
	out, _ := json.Marshal(vals)
	return out
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
		return listSchema(b, vals, nil)
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

func orDefault(v json.RawMessage, def string) json.RawMessage {
	if v == nil {
		return json.RawMessage(def)
	}
	return v
}

// objectJSON encodes decoded schema keywords back into an object (the
// renderer puts them in canonical order again).
func objectJSON(vals map[string]json.RawMessage) (json.RawMessage, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(vals); err != nil {
		return nil, err
	}
	return bytes.TrimSpace(b.Bytes()), nil
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
