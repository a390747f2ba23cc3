package clients

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// The JSON entries are structs, not maps, so that their keys come out in
// the order the clients' documentation shows them.

type claudeCodeServer struct {
	Type    string            `json:"type"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
}

func claudeCodeEntry(s Server) any {
	return claudeCodeServer{Type: "stdio", Command: s.Command, Args: s.Args, Env: map[string]string{}}
}

type cursorServer struct {
	Type    string   `json:"type"`
	Command string   `json:"command"`
	Args    []string `json:"args"`
}

func cursorEntry(s Server) any {
	return cursorServer{Type: "stdio", Command: s.Command, Args: s.Args}
}

type clineServer struct {
	Command     string   `json:"command"`
	Args        []string `json:"args"`
	Disabled    bool     `json:"disabled"`
	AutoApprove []string `json:"autoApprove"`
}

func clineEntry(s Server) any {
	return clineServer{Command: s.Command, Args: s.Args, AutoApprove: []string{}}
}

type commandArgsServer struct {
	Command string   `json:"command"`
	Args    []string `json:"args"`
}

func commandArgsEntry(s Server) any {
	return commandArgsServer{Command: s.Command, Args: s.Args}
}

const defaultJSONIndent = "  "

func jsonRender(entry func(Server) any) func(Server) ([]byte, error) {
	return func(s Server) ([]byte, error) {
		raw, err := marshalJSON(entry(s))
		if err != nil {
			return nil, err
		}
		return encodeObject(jsonObject{{ServerName, raw}}, defaultJSONIndent)
	}
}

func jsonMerge(entry func(Server) any) func([]byte, Server) ([]byte, error) {
	return func(existing []byte, s Server) ([]byte, error) {
		raw, err := marshalJSON(entry(s))
		if err != nil {
			return nil, err
		}
		return mergeJSON(existing, raw)
	}
}

// mergeJSON sets mcpServers.kontext in a JSON document. Unrelated members
// stay as they were, in their order and with their exact values (numbers
// are never rounded through float64); only the whitespace between tokens
// is laid out anew, in the indentation the file already uses.
func mergeJSON(existing, entry json.RawMessage) ([]byte, error) {
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
	servers := jsonObject{}
	if raw, ok := top.get("mcpServers"); ok && !isJSONNull(raw) {
		var err error
		// raw is known to be valid JSON: only its kind can be wrong.
		if servers, err = decodeObject(raw); err != nil {
			return nil, fmt.Errorf("mcpServers is %s, not an object; kontext left the file as it was", jsonKind(raw))
		}
	}
	servers.set(ServerName, entry)
	rawServers, err := encodeObject(servers, "")
	if err != nil {
		return nil, err
	}
	top.set("mcpServers", rawServers)
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
