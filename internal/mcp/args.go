package mcp

import (
	"encoding/json"
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

// DecodeArguments decodes validated arguments into a generated input type.
// Validation has already run, so a failure here is a mismatch between the
// schema and the generated type and is reported as invalid params.
func DecodeArguments(args json.RawMessage, into any) error {
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage("{}")
	}
	if err := json.Unmarshal(args, into); err != nil {
		return InvalidParams(nil, Violation{Path: "", Message: err.Error()})
	}
	return nil
}
