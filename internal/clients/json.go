package clients

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

const defaultJSONIndent = "  "

// jsonRender prints the servers field holding only kontext's entry.
func jsonRender(entry func(Spec) any) func(Spec) ([]byte, error) {
	return func(s Spec) ([]byte, error) {
		raw, err := marshalJSON(entry(s))
		if err != nil {
			return nil, err
		}
		return encodeObject(jsonObject{{s.name(), raw}}, defaultJSONIndent)
	}
}

// jsonFileRender prints a whole file: the servers field under key.
func jsonFileRender(key string, entry func(Spec) any) func(Spec) ([]byte, error) {
	return func(s Spec) ([]byte, error) {
		servers, err := jsonRender(entry)(s)
		if err != nil {
			return nil, err
		}
		return encodeObject(jsonObject{{key, servers}}, defaultJSONIndent)
	}
}

func jsonMerge(key string, entry func(Spec) any) func([]byte, Spec) ([]byte, error) {
	return func(existing []byte, s Spec) ([]byte, error) {
		raw, err := marshalJSON(entry(s))
		if err != nil {
			return nil, err
		}
		return mergeJSON(existing, key, s.name(), raw)
	}
}

// mergeJSON sets key.name in a JSON document. Unrelated members
// stay as they were, in their order and with their exact values (numbers
// are never rounded through float64); only the whitespace between tokens
// is laid out anew, in the indentation the file already uses.
func mergeJSON(existing []byte, key, name string, entry json.RawMessage) ([]byte, error) {
	bom := []byte("\xef\xbb\xbf")
	hadBOM := bytes.HasPrefix(existing, bom)
	existing = bytes.TrimPrefix(existing, bom)
	top := jsonObject{}
	if len(bytes.TrimSpace(existing)) > 0 {
		// Unmarshal first: its errors, unlike the token decoder's, point
		// at the offending byte.
		if err := json.Unmarshal(existing, new(json.RawMessage)); err != nil {
			return nil, describeJSONError(existing, err)
		}
		var err error
		if top, err = decodeObject(existing); err != nil {
			return nil, describeJSONError(existing, err)
		}
	}
	if err := checkServersKey(key, func(k string) bool { _, ok := top.get(k); return ok }); err != nil {
		return nil, err
	}
	servers := jsonObject{}
	if raw, ok := top.get(key); ok && !isJSONNull(raw) {
		var err error
		// raw is known to be valid JSON: only its kind can be wrong.
		if servers, err = decodeObject(raw); err != nil {
			return nil, fmt.Errorf("%s is %s, not an object; kontext left the file as it was", key, jsonKind(raw))
		}
	}
	servers.set(name, entry)
	rawServers, err := encodeObject(servers, "")
	if err != nil {
		return nil, err
	}
	top.set(key, rawServers)
	out, err := encodeObject(top, detectIndent(existing))
	if err != nil {
		return nil, err
	}
	if hadBOM {
		out = append(bom, out...)
	}
	return out, nil
}

type jsonMember struct {
	key   string
	value json.RawMessage
}

// jsonObject is a JSON object that remembers the order of its members.
type jsonObject []jsonMember

func (o jsonObject) get(key string) (json.RawMessage, bool) {
	for _, m := range o {
		if m.key == key {
			return m.value, true
		}
	}
	return nil, false
}

// set replaces the first member named key and drops any later duplicate,
// which would otherwise win in most parsers; or appends the member.
func (o *jsonObject) set(key string, value json.RawMessage) {
	kept := (*o)[:0]
	found := false
	for _, m := range *o {
		if m.key == key {
			if found {
				continue
			}
			found = true
			m.value = value
		}
		kept = append(kept, m)
	}
	if !found {
		kept = append(kept, jsonMember{key, value})
	}
	*o = kept
}

var errNotObject = errors.New("not a JSON object")

func decodeObject(data []byte) (jsonObject, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errNotObject
	}
	obj := jsonObject{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil, err
		}
		obj = append(obj, jsonMember{key, value})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("unexpected content after the top-level object")
	}
	return obj, nil
}

func encodeObject(obj jsonObject, indent string) ([]byte, error) {
	var compact bytes.Buffer
	compact.WriteByte('{')
	for i, m := range obj {
		if i > 0 {
			compact.WriteByte(',')
		}
		key, err := marshalJSON(m.key)
		if err != nil {
			return nil, err
		}
		compact.Write(key)
		compact.WriteByte(':')
		compact.Write(m.value)
	}
	compact.WriteByte('}')
	if indent == "" {
		return compact.Bytes(), nil
	}
	var out bytes.Buffer
	if err := json.Indent(&out, compact.Bytes(), "", indent); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// marshalJSON is json.Marshal without HTML escaping: a command such as
// "a&b" stays readable in a file people edit by hand.
func marshalJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// detectIndent returns the indentation of the first indented line, so a
// file laid out with tabs or four spaces keeps its style.
func detectIndent(data []byte) string {
	for _, line := range bytes.Split(data, []byte("\n"))[1:] {
		trimmed := bytes.TrimLeft(line, " \t")
		if n := len(line) - len(trimmed); n > 0 && len(bytes.TrimSpace(trimmed)) > 0 {
			return string(line[:n])
		}
	}
	return defaultJSONIndent
}

// serversKeys are the fields JSON clients keep their servers in, and the
// client each one tells apart.
var serversKeys = map[string]string{
	"mcpServers":      "Claude, Cursor, Cline and most others",
	"servers":         "VS Code",
	"context_servers": "Zed",
}

// checkServersKey refuses a file that holds another client's servers field
// and not this one's: an mcpServers entry in VS Code's mcp.json, or a
// servers entry in Cursor's, is a key the client silently ignores.
func checkServersKey(key string, has func(string) bool) error {
	if _, known := serversKeys[key]; !known || has(key) {
		return nil
	}
	for _, other := range []string{"mcpServers", "servers", "context_servers"} {
		if who := serversKeys[other]; other != key && has(other) {
			return fmt.Errorf("the file has %q (the servers field of %s) and no %q, so it belongs to another client; kontext left it as it was", other, who, key)
		}
	}
	return nil
}

func isJSONNull(raw json.RawMessage) bool {
	return string(bytes.TrimSpace(raw)) == "null"
}

func jsonKind(raw json.RawMessage) string {
	switch b := bytes.TrimSpace(raw); {
	case len(b) == 0:
		return "empty"
	case b[0] == '[':
		return "an array"
	case b[0] == '"':
		return "a string"
	case b[0] == 't' || b[0] == 'f':
		return "a boolean"
	default:
		return "a number"
	}
}

// describeJSONError turns a decoding error into one line with the line and
// column, which is what someone fixing the file by hand needs.
func describeJSONError(data []byte, err error) error {
	const untouched = "; kontext left the file as it was"
	var syntax *json.SyntaxError
	switch {
	case errors.Is(err, errNotObject):
		return fmt.Errorf("the top level is %s, not a JSON object%s", jsonKind(data), untouched)
	case errors.As(err, &syntax) && syntax.Offset >= int64(len(data)):
		return fmt.Errorf("not valid JSON: it ends before the object does%s", untouched)
	case errors.As(err, &syntax):
		line, col := position(data, syntax.Offset)
		return fmt.Errorf("not valid JSON at line %d, column %d: %s%s", line, col, syntax.Error(), untouched)
	}
	return fmt.Errorf("not valid JSON: %v%s", err, untouched)
}

// position turns a json.SyntaxError offset, the count of bytes read up to
// and including the byte at fault, into that byte's 1-based line and column.
func position(data []byte, offset int64) (line, col int) {
	at := int(max(0, min(offset-1, int64(len(data)))))
	before := data[:at]
	return bytes.Count(before, []byte("\n")) + 1, at - bytes.LastIndexByte(before, '\n')
}
