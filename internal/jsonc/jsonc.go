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

// Blank returns data with every comment and trailing comma replaced by
// spaces, byte for byte (line breaks inside comments are kept), so the
// result is plain JSON whose offsets are those of data. Code that edits a
// JSONC file in place finds its way through the blanked copy and splices
// into the original, keeping every comment it does not touch.
func Blank(data []byte) []byte {
	out := make([]byte, len(data))
	copy(out, data)
	inStr := false
	lastComma := -1 // offset of a comma that may yet prove to be trailing
	for i := 0; i < len(out); i++ {
		c := out[i]
		if inStr {
			if c == '\\' && i+1 < len(out) {
				i++
			} else if c == '"' {
				inStr = false
			}
			continue
		}
		switch {
		case c == '"':
			inStr = true
			lastComma = -1
		case c == '/' && i+1 < len(out) && out[i+1] == '/':
			for i < len(out) && out[i] != '\n' {
				out[i] = ' '
				i++
			}
		case c == '/' && i+1 < len(out) && out[i+1] == '*':
			out[i], out[i+1] = ' ', ' '
			i += 2
			for i < len(out) && !(out[i] == '*' && i+1 < len(out) && out[i+1] == '/') {
				if out[i] != '\n' && out[i] != '\r' {
					out[i] = ' '
				}
				i++
			}
			if i < len(out) {
				out[i] = ' '
				if i+1 < len(out) {
					out[i+1] = ' '
				}
				i++
			}
		case c == ',':
			lastComma = i
		case c == ']' || c == '}':
			if lastComma >= 0 {
				out[lastComma] = ' '
			}
			lastComma = -1
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
		default:
			lastComma = -1
		}
	}
	return out
}
