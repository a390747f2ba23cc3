package mcp

import (
	"encoding/json"
	"testing"
)

// TestCheckInputSchemaToolNames: a tool's name is no part of its schema,
// so a name with URL punctuation compiles and validates like any other.
func TestCheckInputSchemaToolNames(t *testing.T) {
	schema := json.RawMessage(`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`)
	for _, name := range []string{"plain", "a#b", "50%off", "a?b", "a/b", "a b", "zápisník"} {
		if err := CheckInputSchema(name, schema); err != nil {
			t.Errorf("CheckInputSchema(%q): %v", name, err)
			continue
		}
		v, err := compileInputSchema(name, schema)
		if err != nil {
			t.Fatal(err)
		}
		if bad, _ := v.validate([]byte(`{"n":1}`)); len(bad) != 0 {
			t.Errorf("%q: valid arguments refused: %v", name, bad)
		}
		if bad, _ := v.validate([]byte(`{}`)); len(bad) == 0 {
			t.Errorf("%q: arguments without n accepted", name)
		}
	}
}
