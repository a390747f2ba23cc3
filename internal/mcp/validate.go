package mcp

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// argumentValidator checks tool arguments against the exact bytes the tool
// advertises. It keeps those bytes beside the compiled schema so a test can
// prove the two are the same.
type argumentValidator struct {
	source   []byte
	compiled *jsonschema.Schema
}

func compileInputSchema(name string, schema []byte) (*argumentValidator, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		return nil, fmt.Errorf("tool %s: input schema is not JSON: %w", name, err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	url := "kontext:///tools/" + name + "/input.json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("tool %s: %w", name, err)
	}
	compiled, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("tool %s: input schema does not compile: %w", name, err)
	}
	return &argumentValidator{source: schema, compiled: compiled}, nil
}

// validate returns the violations of args (absent arguments count as {}).
func (v *argumentValidator) validate(args []byte) []Violation {
	if len(bytes.TrimSpace(args)) == 0 || string(bytes.TrimSpace(args)) == "null" {
		args = []byte("{}")
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		return []Violation{{Path: "", Message: "arguments are not JSON: " + err.Error()}}
	}
	err = v.compiled.Validate(inst)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []Violation{{Path: "", Message: err.Error()}}
	}
	return violationsOf(ve)
}

// violationsOf flattens a validation error into one violation per leaf
// cause, in a stable order, with messages that name the argument.
func violationsOf(ve *jsonschema.ValidationError) []Violation {
	seen := map[Violation]bool{}
	var out []Violation
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			v := Violation{Path: pointer(e.InstanceLocation), Message: e.ErrorKind.LocalizedString(english)}
			if !seen[v] {
				seen[v] = true
				out = append(out, v)
			}
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

var english = message.NewPrinter(language.English)

// pointer renders an instance location as a JSON pointer.
func pointer(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1"))
	}
	return b.String()
}
