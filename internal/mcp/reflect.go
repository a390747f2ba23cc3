package mcp

import (
	"bytes"
	"encoding/json"

	"github.com/invopop/jsonschema"
)

// Bool returns a pointer to b, for annotations.
func Bool(b bool) *bool { return &b }

// OutputSchemaFor reflects the JSON Schema of a tool's result type (v is a
// pointer to a zero value), so a tool's outputSchema is derived from the Go
// type it returns and cannot drift from it. The schema is inlined (no $ref,
// no $defs): several clients do not resolve references in outputSchema.
func OutputSchemaFor(v any) json.RawMessage {
	r := &jsonschema.Reflector{
		Anonymous:                 true,
		DoNotReference:            true,
		ExpandedStruct:            true,
		AllowAdditionalProperties: false,
	}
	s := r.Reflect(v)
	s.Version = ""
	b, err := json.Marshal(s)
	if err != nil {
		panic("mcp: output schema of " + s.Title + ": " + err.Error())
	}
	var out bytes.Buffer
	if err := json.Compact(&out, b); err != nil {
		panic(err)
	}
	return out.Bytes()
}
