// Package jsonc reads JSON with comments and trailing commas, as
// tsconfig.json, jsconfig.json and deno.jsonc are written.
package jsonc

import "encoding/json"

// Strip removes // and /* */ comments and trailing commas, keeping the
// line breaks (so lines still count), and leaves strings alone. A trailing
// comma is dropped at the bracket that closes it, so a comment between
// the two ("a": 1, // last) does not hide it.
func Strip(data []byte) []byte {
	out := make([]byte, 0, len(data))
	inStr := false
	for i := 0; i < len(data); i++ {
		c := data[i]
		if inStr {
			out = append(out, c)
			if c == '\\' && i+1 < len(data) {
				i++
				out = append(out, data[i])
			} else if c == '"' {
				inStr = false
			}
			continue
		}
		switch {
		case c == '"':
			inStr = true
			out = append(out, c)
		case c == '/' && i+1 < len(data) && data[i+1] == '/':
			for i < len(data) && data[i] != '\n' {
				i++
			}
			if i < len(data) {
				out = append(out, '\n')
			}
		case c == '/' && i+1 < len(data) && data[i+1] == '*':
			// Up to the "*/", or to the end of an unterminated comment,
			// whose last byte counts too (a line break there is kept).
			i += 2
			for i < len(data) && !(data[i] == '*' && i+1 < len(data) && data[i+1] == '/') {
				if data[i] == '\n' {
					out = append(out, '\n')
				}
				i++
			}
			i++
		case c == ']' || c == '}':
			// Drop a trailing comma before the closing bracket.
			k := len(out) - 1
			for k >= 0 && (out[k] == ' ' || out[k] == '\n' || out[k] == '\t' || out[k] == '\r') {
				k--
			}
			if k >= 0 && out[k] == ',' {
				out = append(out[:k], out[k+1:]...)
			}
			out = append(out, c)
		default:
			out = append(out, c)
		}
	}
	return out
}

// Unmarshal decodes JSON with comments and trailing commas into v (plain
// JSON, the common case, without a copy).
func Unmarshal(data []byte, v any) error {
	if err := json.Unmarshal(data, v); err == nil {
		return nil
	}
	return json.Unmarshal(Strip(data), v)
}
