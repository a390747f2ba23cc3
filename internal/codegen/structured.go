package codegen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/invopop/jsonschema"

	apps "github.com/kontext-dev/kontext/internal/apps/results"
	"github.com/kontext-dev/kontext/internal/mcptest/result"
	"github.com/kontext-dev/kontext/internal/repo/results"
)

// structuredOutputs are the Go types a tool spec may name as its structured
// output (output.structured: <import path>.<type>). The generator reflects
// each one's JSON Schema into the toolset's schemas_gen.go, so a server
// advertises an outputSchema derived from the type without reflecting at
// start, and TestGenerated fails when a type changes and the schema was not
// regenerated.
var structuredOutputs = []any{
	new(results.TaskContext), new(results.ChangeImpact), new(results.RepositoryContext),
	new(results.ModuleExplanation), new(results.Dependencies), new(results.Dependents),
	new(results.SearchResults), new(results.ModuleHistory), new(results.RevisionDiff),
	new(results.RevisionSnapshot), new(results.Architecture), new(results.Conventions),
	new(results.Decisions),
	new(apps.Instances), new(apps.Description), new(apps.State), new(apps.Call),
	new(result.Sum), // the test-only toolset
}

// structuredOutput returns the output schema of the type a spec names.
func structuredOutput(name string) ([]byte, error) {
	for _, v := range structuredOutputs {
		t := reflect.TypeOf(v).Elem()
		if t.PkgPath()+"."+t.Name() == name {
			return outputSchema(v)
		}
	}
	return nil, fmt.Errorf("output.structured names %s, which the generator does not know: add it to structuredOutputs in internal/codegen/structured.go", name)
}

// outputSchema reflects the JSON Schema of a result type (v is a pointer to
// a zero value). The schema is inlined (no $ref, no $defs): several clients
// do not resolve references in outputSchema.
func outputSchema(v any) ([]byte, error) {
	r := &jsonschema.Reflector{
		Anonymous:                 true,
		DoNotReference:            true,
		ExpandedStruct:            true,
		AllowAdditionalProperties: false,
		Mapper:                    anyJSON,
	}
	s := r.Reflect(v)
	s.Version = ""
	b, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("output schema of %T: %w", v, err)
	}
	var out bytes.Buffer
	if err := json.Compact(&out, b); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// anyJSON gives a json.RawMessage the schema {} (any value). The reflector's
// own answer is the boolean schema true, which means the same but breaks
// the official MCP schema: every property of an outputSchema must be an
// object. An empty, non-nil Extras is what makes the library write {}.
func anyJSON(t reflect.Type) *jsonschema.Schema {
	if t == reflect.TypeOf(json.RawMessage(nil)) {
		return &jsonschema.Schema{Extras: map[string]any{}}
	}
	return nil
}
