package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// StringList is a list argument that accepts a JSON array of strings or one
// comma-separated string; empty parts are dropped. Tool specs mark such
// parameters `list: true`, which advertises anyOf [array, string].
type StringList []string

// UnmarshalJSON accepts ["a","b"] and "a, b".
func (l *StringList) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*l = splitList(one)
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return err
	}
	out := make(StringList, 0, len(many))
	for _, s := range many {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	*l = out
	return nil
}

func splitList(s string) StringList {
	out := StringList{}
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}

// InvalidArguments is how a tool answers arguments that fail its input
// schema. Each toolset declares it in its spec (arguments.invalid).
type InvalidArguments int

const (
	// InvalidArgumentsProtocolError refuses the call with -32602 and
	// data.violations: the tool never ran, and the client is told so.
	InvalidArgumentsProtocolError InvalidArguments = iota
	// InvalidArgumentsToolResult answers with a tool result with isError:
	// true whose text names each parameter and what is wrong with it, so
	// that the agent reads it and corrects itself.
	InvalidArgumentsToolResult
)

// ArgumentForms are the wider forms a tool's arguments may take beyond
// their plain JSON types, as its spec declares and its schema advertises.
// Generated code passes them to DecodeArguments, which brings arguments
// that passed validation to the plain form the generated types decode.
type ArgumentForms struct {
	// Integers are the integer parameters by name.
	Integers map[string]IntegerForm
	// Aliases map a parameter's alternative values to the values its
	// handler sees, by parameter name; a list parameter's items are mapped
	// one by one.
	Aliases map[string]map[string]string
}

// IntegerForm is what an integer parameter accepts besides a JSON integer.
type IntegerForm struct {
	// Digits accepts a string of decimal digits ("10").
	Digits bool
	// Clamp brings a value above Max down to Max (with a note in the
	// answer) instead of refusing it.
	Clamp bool
	Max   int64
}

// DecodeArguments decodes validated arguments into a generated input type.
// It first brings every number with an integral value to integer form
// (JSON Schema counts 10.0 and 1e1 as integers, Go's decoder does not) and
// the wider forms of forms (nil for none) to their plain ones, and returns a
// note for each value it changed in a way the caller should hear about.
// Validation has already run, so a failure here is a mismatch between the
// schema and the generated type and is reported as invalid params.
func DecodeArguments(args json.RawMessage, into any, forms *ArgumentForms) ([]string, error) {
	if len(bytes.TrimSpace(args)) == 0 || string(bytes.TrimSpace(args)) == "null" {
		args = json.RawMessage("{}")
	}
	args, notes, err := normaliseArguments(args, forms)
	if err != nil {
		return nil, InvalidParams(nil, Violation{Path: "", Message: err.Error()})
	}
	if err := json.Unmarshal(args, into); err != nil {
		return nil, InvalidParams(nil, Violation{Path: "", Message: err.Error()})
	}
	return notes, nil
}

// normaliseArguments rewrites only the values that need it and returns
// args itself when none does: a 100 KB body is scanned once, never decoded
// and encoded again.
func normaliseArguments(args json.RawMessage, forms *ArgumentForms) (json.RawMessage, []string, error) {
	if forms.empty() && !hasFractionOrExponent(args) {
		// Nothing can need rewriting: the bytes go to the decoder as they
		// are, parsed once there.
		return args, nil, nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(args, &obj); err != nil {
		return nil, nil, err
	}
	var notes []string
	changed := false
	for name, raw := range obj {
		_, isInteger := forms.integer(name)
		aliases := forms.aliases(name)
		first := firstByte(raw)
		// Only numbers, containers that may hold numbers, and the values
		// the forms widen can need rewriting.
		mayHaveFraction := bytes.ContainsAny(raw, ".eE") && first != '"'
		if !mayHaveFraction && !isInteger && aliases == nil {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			return nil, nil, err
		}
		v, moved := integralNumbers(v)
		if f, ok := forms.integer(name); ok {
			var note string
			var m bool
			v, note, m = f.normalise(name, v)
			moved = moved || m
			if note != "" {
				notes = append(notes, note)
			}
		}
		if aliases != nil {
			v = unalias(v, aliases)
			moved = true
		}
		if !moved {
			continue
		}
		b, err := json.Marshal(v)
		if err != nil {
			return nil, nil, err
		}
		obj[name] = b
		changed = true
	}
	// Notes in the order of the parameters' names, so answers are stable.
	sort.Strings(notes)
	if !changed {
		return args, notes, nil
	}
	// The values are valid JSON already: written as they are, not scanned
	// again by json.Marshal.
	var out bytes.Buffer
	out.Grow(len(args) + 64)
	out.WriteByte('{')
	first := true
	for name, raw := range obj {
		if !first {
			out.WriteByte(',')
		}
		first = false
		key, _ := json.Marshal(name)
		out.Write(key)
		out.WriteByte(':')
		out.Write(raw)
	}
	out.WriteByte('}')
	return out.Bytes(), notes, nil
}

func (f *ArgumentForms) empty() bool {
	return f == nil || len(f.Integers) == 0 && len(f.Aliases) == 0
}

// hasFractionOrExponent reports whether a JSON text holds a number written
// with a fraction or an exponent (10.0, 1e1), the only numbers Go's decoder
// may refuse for an integer field. It scans the bytes without decoding:
// strings are skipped, and the letters of true and false are not numbers.
func hasFractionOrExponent(text []byte) bool {
	inString, escaped, inNumber := false, false, false
	for _, c := range text {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString, inNumber = true, false
		case c == '-' || c >= '0' && c <= '9':
			inNumber = true
		case inNumber && (c == '.' || c == 'e' || c == 'E'):
			return true
		case inNumber && c == '+':
		default:
			inNumber = false
		}
	}
	return false
}

func (f *ArgumentForms) integer(name string) (IntegerForm, bool) {
	if f == nil {
		return IntegerForm{}, false
	}
	i, ok := f.Integers[name]
	return i, ok
}

func (f *ArgumentForms) aliases(name string) map[string]string {
	if f == nil {
		return nil
	}
	return f.Aliases[name]
}

func firstByte(raw json.RawMessage) byte {
	raw = bytes.TrimLeft(raw, " \t\r\n")
	if len(raw) == 0 {
		return 0
	}
	return raw[0]
}

// integralNumbers rewrites numbers written with a fraction or an exponent
// whose value is a whole number that fits in an int64 (10.0, 1e1) as plain
// integers, everywhere in v, and reports whether it rewrote any.
func integralNumbers(v any) (any, bool) {
	switch x := v.(type) {
	case json.Number:
		s := string(x)
		if !strings.ContainsAny(s, ".eE") {
			return x, false
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
			return x, false
		}
		return json.Number(strconv.FormatInt(int64(f), 10)), true
	case map[string]any:
		moved := false
		for k, e := range x {
			var m bool
			x[k], m = integralNumbers(e)
			moved = moved || m
		}
		return x, moved
	case []any:
		moved := false
		for i, e := range x {
			var m bool
			x[i], m = integralNumbers(e)
			moved = moved || m
		}
		return x, moved
	}
	return v, false
}

// normalise turns a string of digits into a number and clamps a number
// above the maximum; the note says what was clamped, changed whether v was
// rewritten.
func (f IntegerForm) normalise(name string, v any) (out any, note string, changed bool) {
	var text string
	switch x := v.(type) {
	case string:
		if !f.Digits {
			return v, "", false
		}
		text = x
	case json.Number:
		text = string(x)
	default:
		return v, "", false
	}
	if f.Clamp {
		// ParseFloat reads any size (a huge value is +Inf), so no value is
		// too big to clamp.
		if n, err := strconv.ParseFloat(text, 64); err == nil && n > float64(f.Max) {
			return json.Number(strconv.FormatInt(f.Max, 10)), fmt.Sprintf("%s %s is more than its maximum of %d, so %d was used.", name, shortNumber(text), f.Max, f.Max), true
		}
	}
	if n, err := strconv.ParseInt(text, 10, 64); err == nil {
		return json.Number(strconv.FormatInt(n, 10)), "", true
	}
	return v, "", false
}

// shortNumber keeps a note readable when the number given was absurdly long.
func shortNumber(s string) string {
	if len(s) > 24 {
		return s[:20] + "…"
	}
	return s
}

// unalias maps a value, or each item of a list (an array or one
// comma-separated string), through aliases. A comma-separated string comes
// out as an array, exactly as StringList would have split it.
func unalias(v any, aliases map[string]string) any {
	one := func(s string) string {
		if to, ok := aliases[strings.TrimSpace(s)]; ok {
			return to
		}
		return s
	}
	switch x := v.(type) {
	case string:
		if !strings.Contains(x, ",") {
			if to, ok := aliases[strings.TrimSpace(x)]; ok {
				return to
			}
			return x
		}
		out := []any{}
		for _, part := range splitList(x) {
			out = append(out, one(part))
		}
		return out
	case []any:
		for i, e := range x {
			if s, ok := e.(string); ok {
				x[i] = one(s)
			}
		}
	}
	return v
}

// WithNotes appends the notes DecodeArguments returned to a tool's answer,
// so the agent hears what was adjusted: as the last paragraph of its last
// text block (many clients show only one block, or join blocks without a
// break), or as a block of its own after structured content, whose text
// block must stay its JSON.
func WithNotes(res *ToolResult, err error, notes []string) (*ToolResult, error) {
	if len(notes) == 0 || err != nil {
		return res, err
	}
	if res == nil {
		res = &ToolResult{}
	}
	note := "Note: " + strings.Join(notes, " ")
	if res.Structured == nil {
		for i := len(res.Content) - 1; i >= 0; i-- {
			var block map[string]any
			if json.Unmarshal(res.Content[i], &block) != nil || block["type"] != "text" {
				continue
			}
			text, _ := block["text"].(string)
			text = strings.TrimRight(text, "\n") + "\n\n" + note
			if len(block) == 2 {
				res.Content[i] = TextBlock(text)
				return res, nil
			}
			block["text"] = text // keep annotations and _meta
			if b, err := json.Marshal(block); err == nil {
				res.Content[i] = b
				return res, nil
			}
		}
	}
	res.Content = append(res.Content, TextBlock(note))
	return res, nil
}
