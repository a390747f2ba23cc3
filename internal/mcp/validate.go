package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/kontext-dev/kontext/internal/lazyregexp"
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
	// The name is escaped: a tool named "a#b" or "50%off" must not turn
	// the schema's location into a fragment or a broken escape.
	loc := "kontext:///tools/" + url.PathEscape(name) + "/input.json"
	if err := c.AddResource(loc, doc); err != nil {
		return nil, fmt.Errorf("tool %s: %w", name, err)
	}
	compiled, err := c.Compile(loc)
	if err != nil {
		return nil, fmt.Errorf("tool %s: input schema does not compile: %w", name, err)
	}
	return &argumentValidator{source: schema, compiled: compiled}, nil
}

// validate returns the violations of args (absent arguments count as {}),
// and the same problems in words for an agent (see problems).
func (v *argumentValidator) validate(args []byte) ([]Violation, []string) {
	if trimmed := bytes.TrimSpace(args); len(trimmed) == 0 || string(trimmed) == "null" {
		args = []byte("{}")
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		msg := "arguments are not JSON: " + err.Error()
		return []Violation{{Path: "", Message: msg}}, []string{msg}
	}
	err = v.compiled.Validate(inst)
	if err == nil {
		return nil, nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []Violation{{Path: "", Message: err.Error()}}, []string{err.Error()}
	}
	return violationsOf(ve), v.problems(ve, inst)
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

// problems renders the same validation error for an agent to read: one
// "parameter: what is wrong" phrase per problem. Where a parameter takes
// one of several forms (anyOf), only the form the value was meant as is
// described: a string of digits as the integer it spells, a comma-separated
// string as the list it splits into.
func (v *argumentValidator) problems(ve *jsonschema.ValidationError, inst any) []string {
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	v.describe(ve, inst, nil, add)
	// The validator visits properties in no fixed order.
	sort.Strings(out)
	// A thousand bad items make one long line, not a useful one.
	if len(out) > maxProblems {
		out = append(out[:maxProblems], fmt.Sprintf("and %d more problems", len(out)-maxProblems))
	}
	return out
}

// maxProblems is how many problems an answer names.
const maxProblems = 20

// describe walks one error tree; prefix is the instance location of the
// value the tree was validated against (for a re-validated sub-value).
func (v *argumentValidator) describe(e *jsonschema.ValidationError, inst any, prefix []string, add func(string)) {
	loc := append(append([]string(nil), prefix...), e.InstanceLocation...)
	if _, ok := e.ErrorKind.(*kind.AnyOf); ok {
		v.describeAnyOf(e, inst, prefix, loc, add)
		return
	}
	if len(e.Causes) > 0 {
		for _, c := range e.Causes {
			v.describe(c, inst, prefix, add)
		}
		return
	}
	value, _ := valueAt(inst, e.InstanceLocation)
	switch k := e.ErrorKind.(type) {
	case *kind.Required:
		for _, m := range k.Missing {
			add(paramPath(append(loc, clipName(m))) + ": missing (required)")
		}
	case *kind.AdditionalProperties:
		known := ""
		if len(loc) == 0 && len(v.compiled.Properties) > 0 {
			names := make([]string, 0, len(v.compiled.Properties))
			for n := range v.compiled.Properties {
				names = append(names, n)
			}
			sort.Strings(names)
			known = " (the parameters are " + strings.Join(names, ", ") + ")"
		}
		what := "unknown parameter"
		if len(loc) > 0 {
			what = "unknown field"
		}
		if len(k.Properties) > 1 {
			what += "s"
		}
		names := make([]string, 0, len(k.Properties))
		for _, p := range k.Properties {
			names = append(names, paramPath(append(loc, clipName(p))))
		}
		sort.Strings(names)
		if len(names) > 10 {
			names = append(names[:10], fmt.Sprintf("and %d more", len(names)-10))
		}
		add(strings.Join(names, ", ") + ": " + what + known)
	default:
		add(paramPath(loc) + ": " + wrongValue(e.ErrorKind, value))
	}
}

// describeAnyOf describes the alternative the value was meant as.
func (v *argumentValidator) describeAnyOf(e *jsonschema.ValidationError, inst any, prefix, loc []string, add func(string)) {
	value, _ := valueAt(inst, e.InstanceLocation)
	node := schemaAt(v.compiled, e.SchemaURL)
	var meant []*jsonschema.ValidationError
	for _, c := range e.Causes {
		if !typeMismatch(c) {
			meant = append(meant, c)
		}
	}
	if len(meant) == 0 || node == nil {
		var wants []string
		for _, c := range e.Causes {
			if t, ok := leafKind(c).(*kind.Type); ok {
				wants = append(wants, t.Want...)
			}
		}
		add(paramPath(loc) + ": must be " + orList(articled(dedupe(wants))) + ", got " + shown(value))
		return
	}
	if s, ok := value.(string); ok {
		for _, branch := range node.AnyOf {
			if branch.Types == nil {
				continue
			}
			types := branch.Types.ToStrings()
			var as any
			switch {
			case slices.Contains(types, "integer") && !digitsRE.MatchString(s):
				add(paramPath(loc) + ": must be an integer or a string of digits, got " + shown(value))
				return
			case slices.Contains(types, "integer") && len(s) > 2*maxDigitsShown:
				// Too long to be meant as a number (and too long to
				// parse cheaply): the string form's maxLength says so.
				continue
			case slices.Contains(types, "integer"):
				n, _ := new(big.Int).SetString(s, 10)
				as = json.Number(n.String())
			case slices.Contains(types, "array"):
				parts := []any{}
				for _, p := range splitList(s) {
					parts = append(parts, p)
				}
				as = parts
			default:
				continue
			}
			err := branch.Validate(as)
			var sub *jsonschema.ValidationError
			if errors.As(err, &sub) {
				v.describe(sub, as, loc, add)
				return
			}
		}
	}
	for _, c := range meant {
		v.describe(c, inst, prefix, add)
	}
}

var digitsRE = lazyregexp.New(`^[0-9]+$`)

// maxDigitsShown bounds the strings of digits read as numbers for a message.
const maxDigitsShown = 32

// clipName keeps a message short when an argument's name is not.
func clipName(s string) string {
	if len(s) > 60 {
		return strconv.Quote(s[:40]) + "…"
	}
	return s
}

// typeMismatch reports an alternative that failed only on its type.
func typeMismatch(e *jsonschema.ValidationError) bool {
	_, ok := leafKind(e).(*kind.Type)
	return ok
}

// leafKind is the kind of an error with one cause at its bottom.
func leafKind(e *jsonschema.ValidationError) jsonschema.ErrorKind {
	for len(e.Causes) == 1 {
		e = e.Causes[0]
	}
	if len(e.Causes) > 0 {
		return nil
	}
	return e.ErrorKind
}

// wrongValue says what is wrong with a value, for the kinds of error tool
// schemas produce.
func wrongValue(k jsonschema.ErrorKind, value any) string {
	switch k := k.(type) {
	case *kind.Type:
		return "must be " + orList(articled(k.Want)) + ", got " + shown(value)
	case *kind.Enum:
		var want []string
		for _, w := range k.Want {
			want = append(want, fmt.Sprint(w))
		}
		return "must be one of " + strings.Join(want, ", ") + "; got " + shown(value)
	case *kind.Const:
		return fmt.Sprintf("must be %v, got %s", k.Want, shown(value))
	case *kind.MinLength:
		if k.Want == 1 {
			return "must not be empty"
		}
		return fmt.Sprintf("must be at least %d characters long, got %d", k.Want, k.Got)
	case *kind.MaxLength:
		return fmt.Sprintf("must be at most %d characters long, got %d", k.Want, k.Got)
	case *kind.Minimum:
		return fmt.Sprintf("must be at least %s, got %s", k.Want.RatString(), shown(value))
	case *kind.Maximum:
		return fmt.Sprintf("must be at most %s, got %s", k.Want.RatString(), shown(value))
	case *kind.ExclusiveMinimum:
		return fmt.Sprintf("must be more than %s, got %s", k.Want.RatString(), shown(value))
	case *kind.ExclusiveMaximum:
		return fmt.Sprintf("must be less than %s, got %s", k.Want.RatString(), shown(value))
	case *kind.MinItems:
		return fmt.Sprintf("needs at least %d items, got %d", k.Want, k.Got)
	case *kind.MaxItems:
		return fmt.Sprintf("takes at most %d items, got %d", k.Want, k.Got)
	case *kind.Pattern:
		return fmt.Sprintf("must match %s, got %s", k.Want, shown(value))
	}
	return k.LocalizedString(english)
}

// paramPath names a value the way an agent wrote it: decisions[0].title.
func paramPath(tokens []string) string {
	if len(tokens) == 0 {
		return "arguments"
	}
	var b strings.Builder
	for i, t := range tokens {
		if _, err := strconv.Atoi(t); err == nil && i > 0 {
			b.WriteString("[" + t + "]")
			continue
		}
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(t)
	}
	return b.String()
}

// shown quotes a short value and names the type of a long or composite one.
func shown(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		if len(x) > 60 {
			return "a string of " + strconv.Itoa(len(x)) + " bytes"
		}
		return strconv.Quote(x)
	case json.Number:
		return shortNumber(string(x))
	case bool:
		return strconv.FormatBool(x)
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprint(v)
}

func articled(types []string) []string {
	out := make([]string, 0, len(types))
	for _, t := range types {
		switch t {
		case "integer", "array", "object":
			out = append(out, "an "+t)
		case "boolean":
			out = append(out, "true or false")
		case "null":
			out = append(out, "null")
		default:
			out = append(out, "a "+t)
		}
	}
	return out
}

func orList(items []string) string {
	switch len(items) {
	case 0:
		return "something else"
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}

func dedupe(items []string) []string {
	var out []string
	for _, s := range items {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// valueAt is the value at an instance location.
func valueAt(inst any, tokens []string) (any, bool) {
	for _, t := range tokens {
		switch x := inst.(type) {
		case map[string]any:
			v, ok := x[t]
			if !ok {
				return nil, false
			}
			inst = v
		case []any:
			i, err := strconv.Atoi(t)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			inst = x[i]
		default:
			return nil, false
		}
	}
	return inst, true
}

// schemaAt finds the compiled subschema an error's schema URL points at,
// following the keywords tool schemas use; nil for anything else.
func schemaAt(root *jsonschema.Schema, url string) *jsonschema.Schema {
	_, frag, _ := strings.Cut(url, "#")
	s := root
	tokens := strings.Split(strings.TrimPrefix(frag, "/"), "/")
	if frag == "" {
		tokens = nil
	}
	for i := 0; s != nil && i < len(tokens); i++ {
		t := strings.ReplaceAll(strings.ReplaceAll(tokens[i], "~1", "/"), "~0", "~")
		next := func() (string, bool) {
			if i+1 >= len(tokens) {
				return "", false
			}
			i++
			return strings.ReplaceAll(strings.ReplaceAll(tokens[i], "~1", "/"), "~0", "~"), true
		}
		switch t {
		case "properties":
			name, ok := next()
			if !ok {
				return nil
			}
			s = s.Properties[name]
		case "items":
			s = s.Items2020
		case "anyOf", "allOf", "oneOf":
			list := map[string][]*jsonschema.Schema{"anyOf": s.AnyOf, "allOf": s.AllOf, "oneOf": s.OneOf}[t]
			n, ok := next()
			idx, err := strconv.Atoi(n)
			if !ok || err != nil || idx < 0 || idx >= len(list) {
				return nil
			}
			s = list[idx]
		default:
			return nil
		}
	}
	return s
}

// CheckInputSchema says whether schema compiles as a tool's input schema,
// in the words a tools/list would fail with: a proxy leaves out the
// downstream tools it could not validate calls of.
func CheckInputSchema(name string, schema json.RawMessage) error {
	_, err := compileInputSchema(name, schema)
	return err
}
