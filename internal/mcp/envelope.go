package mcp

import (
	"bytes"
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// requestEnvelope is the part of a request's params the runtime reads
// itself, decoded once when the request arrives: _meta for every method,
// and the name and arguments of tools/call. The values stay raw: the
// arguments go to the validator and the tool as the client sent them.
type requestEnvelope struct {
	Meta      json.RawMessage `json:"_meta"`
	Name      json.RawMessage `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

// toolName returns the tool a tools/call names, refusing params exactly as
// decoding them into protocol.CallToolParams does (a map[string]any pass,
// then the struct), without building either: a number beyond float64
// anywhere, a missing "name" key, a "name" that is not a string.
func (c *call) toolName() (string, error) {
	params := c.params
	if len(params) == 0 {
		params = json.RawMessage("{}")
	}
	shape := inspectParams(params)
	switch {
	case shape.tooLarge != "":
		// encoding/json names no field for a number in a map[string]any.
		return "", InvalidParams(nil, Violation{Path: "/", Message: "number " + shape.tooLarge + " is out of range"})
	case !shape.hasName:
		return "", InvalidParams(nil, Violation{Path: "/name", Message: "required"})
	case shape.nameNotString:
		return "", InvalidParams(nil, Violation{Path: "/name", Message: "must be string"})
	}
	raw := c.envelope.Name
	if n := len(raw); n >= 2 && raw[0] == '"' && bytes.IndexByte(raw[1:n-1], '\\') < 0 && utf8.Valid(raw[1:n-1]) {
		return string(raw[1 : n-1]), nil // no escapes, valid UTF-8: the bytes are the string
	}
	var name string
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &name); err != nil {
			return "", InvalidParams(nil, Violation{Path: "/name", Message: "must be string"})
		}
	}
	return name, nil
}

// paramsShape is what inspectParams learns about a params object.
type paramsShape struct {
	tooLarge      string // the first number a float64 cannot hold, as written
	hasName       bool   // the object has the key "name", spelt exactly so
	nameNotString bool   // a key encoding/json takes for "name" holds neither a string nor null
}

// inspectParams walks the bytes of a valid JSON object once. It stands in
// for decoding them into map[string]any, which costs a tree of values per
// call; encoding/json matches field names without regard to case, hence
// the fold for nameNotString.
func inspectParams(params []byte) paramsShape {
	var shape paramsShape
	depth := 0
	expectKey := false
	var key []byte // the last key read at the top level, until its value
	for i := 0; i < len(params); i++ {
		switch ch := params[i]; ch {
		case '"':
			end := stringEnd(params, i) + 1 // params is valid JSON: the string is closed
			if depth == 1 && expectKey {
				key = params[i:end]
				expectKey = false
				if string(key) == `"name"` || (bytes.IndexByte(key, '\\') >= 0 && unquoted(key) == "name") {
					shape.hasName = true
				}
			} else if depth == 1 {
				key = nil // a string value: fine for "name"
			}
			i = end - 1
		case '{', '[':
			if depth == 1 && key != nil {
				shape.nameNotString = shape.nameNotString || foldsToName(key)
				key = nil
			}
			depth++
			expectKey = ch == '{' && depth == 1
		case '}', ']':
			depth--
		case ',':
			expectKey = depth == 1
		case ':', ' ', '\t', '\r', '\n':
		default:
			// A number or a literal (true, false, null).
			end := i + 1
			for end < len(params) && !isDelimiter(params[end]) {
				end++
			}
			token := params[i:end]
			if depth == 1 && key != nil {
				if token[0] != 'n' { // null leaves a string field alone
					shape.nameNotString = shape.nameNotString || foldsToName(key)
				}
				key = nil
			}
			if shape.tooLarge == "" && (ch == '-' || ch >= '0' && ch <= '9') && (len(token) > 300 || bytes.ContainsAny(token, "eE")) {
				if _, err := strconv.ParseFloat(string(token), 64); err != nil {
					shape.tooLarge = string(token)
				}
			}
			i = end - 1
		}
	}
	return shape
}

func isDelimiter(ch byte) bool {
	switch ch {
	case ',', '}', ']', ':', ' ', '\t', '\r', '\n':
		return true
	}
	return false
}

func unquoted(s []byte) string {
	var out string
	_ = json.Unmarshal(s, &out)
	return out
}

// foldsToName reports whether encoding/json would decode the value of the
// quoted key into a field named "name".
func foldsToName(key []byte) bool {
	if bytes.IndexByte(key, '\\') < 0 {
		return bytes.EqualFold(key[1:len(key)-1], []byte("name"))
	}
	return bytes.EqualFold([]byte(unquoted(key)), []byte("name"))
}
