package codegen

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// demoTool loads one tool of a toolset with the given argument contract
// from a throwaway spec tree.
func demoTool(t *testing.T, contract, params string) *ToolSpec {
	t.Helper()
	root := repoRoot(t)
	specSchema, err := os.ReadFile(filepath.Join(root, "schema", "spec.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(rel, body string) {
		p := filepath.Join(dir, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("schema/spec.schema.json", string(specSchema))
	write("schema/toolsets/demo/toolset.yaml", "{name: demo, title: {en: D, sk: D}, description: {en: D, sk: D}, arguments: "+contract+"}\n")
	write("schema/toolsets/demo/tools/demo.yaml", `
name: demo
title: {en: Demo, sk: Demo}
description: {en: Demo., sk: Demo.}
annotations: {readOnlyHint: true, openWorldHint: false}
params:
`+params+`
output: {description: {en: x, sk: x}}
`)
	v, err := newSpecValidator(dir)
	if err != nil {
		t.Fatal(err)
	}
	tree, err := loadTree(dir, "schema", v)
	if err != nil {
		t.Fatal(err)
	}
	return tree.Tools[0]
}

func compileFor(t *testing.T, schema []byte) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource("kontext:///t.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("kontext:///t.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func accepts(t *testing.T, s *jsonschema.Schema, args string) bool {
	t.Helper()
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(args))
	if err != nil {
		t.Fatal(err)
	}
	return s.Validate(inst) == nil
}

const limitParam = `
  - {name: limit, type: integer, default: 10, minimum: 1, maximum: 50, description: {en: "most results (up to 50)", sk: "najviac"}}
  - {name: level, type: integer, enum: [0, 1, 2], default: 1, description: {en: level, sk: úroveň}}
`

// TestIntegerContract: the advertised schema says exactly what the toolset's
// contract lets an integer be — and the validator, on those bytes, agrees.
func TestIntegerContract(t *testing.T) {
	cases := []struct {
		contract string
		schema   string
		accept   []string
		refuse   []string
		forms    string
	}{
		{
			contract: "{invalid: protocol}",
			schema:   `{"type":"object","properties":{"limit":{"type":"integer","description":"most results (up to 50)","default":10,"minimum":1,"maximum":50},"level":{"type":"integer","description":"level","enum":[0,1,2],"default":1}},"additionalProperties":false}`,
			accept:   []string{`{"limit":50}`, `{"limit":10.0}`, `{"level":2}`},
			refuse:   []string{`{"limit":51}`, `{"limit":"10"}`, `{"level":"2"}`, `{"limit":0}`},
			forms:    "nil",
		},
		{
			contract: "{invalid: result, integerStrings: true, clampToMaximum: true}",
			schema:   `{"type":"object","properties":{"limit":{"description":"most results (up to 50); a value above 50 is clamped to 50","default":10,"anyOf":[{"type":"integer","minimum":1},{"type":"string","maxLength":20,"pattern":"^0*(?:[1-9]|[1-9][0-9]{1,})$"}]},"level":{"description":"level","default":1,"anyOf":[{"type":"integer","enum":[0,1,2]},{"type":"string","enum":["0","1","2"]}]}},"additionalProperties":false}`,
			accept:   []string{`{"limit":50}`, `{"limit":51}`, `{"limit":1e300}`, `{"limit":"10"}`, `{"limit":"0100"}`, `{"limit":"99999999999999999999"}`, `{"level":"2"}`, `{"level":0}`},
			refuse:   []string{`{"limit":0}`, `{"limit":"0"}`, `{"limit":"-1"}`, `{"limit":"1e3"}`, `{"limit":" 5"}`, `{"limit":"000000000000000000005"}`, `{"level":"3"}`, `{"level":"02"}`, `{"limit":true}`},
			forms:    "\"limit\": {Digits: true, Clamp: true, Max: 50}",
		},
		{
			contract: "{invalid: result, clampToMaximum: true}",
			schema:   `{"type":"object","properties":{"limit":{"type":"integer","description":"most results (up to 50); a value above 50 is clamped to 50","default":10,"minimum":1},"level":{"type":"integer","description":"level","enum":[0,1,2],"default":1}},"additionalProperties":false}`,
			accept:   []string{`{"limit":5000}`},
			refuse:   []string{`{"limit":"10"}`, `{"limit":0}`},
			forms:    "\"limit\": {Clamp: true, Max: 50}",
		},
		{
			contract: "{invalid: result, integerStrings: true}",
			accept:   []string{`{"limit":"50"}`, `{"limit":"7"}`},
			refuse:   []string{`{"limit":"51"}`, `{"limit":51}`, `{"limit":"0"}`},
			forms:    "\"limit\": {Digits: true}",
		},
	}
	for _, c := range cases {
		tool := demoTool(t, c.contract, limitParam)
		got, err := inputSchema(tool)
		if err != nil {
			t.Fatal(err)
		}
		if c.schema != "" && string(got) != c.schema {
			t.Errorf("%s:\n got  %s\n want %s", c.contract, got, c.schema)
		}
		s := compileFor(t, got)
		for _, a := range c.accept {
			if !accepts(t, s, a) {
				t.Errorf("%s refuses %s", c.contract, a)
			}
		}
		for _, a := range c.refuse {
			if accepts(t, s, a) {
				t.Errorf("%s accepts %s", c.contract, a)
			}
		}
		if forms := argumentForms(tool); !strings.Contains(forms, c.forms) {
			t.Errorf("%s: forms %s, want %s", c.contract, forms, c.forms)
		}
		// The Go types are the plain integers the forms decode to.
		goSchema, _ := goInputSchema(tool)
		if !strings.Contains(string(goSchema), `"limit":{"type":"integer","description":"most results (up to 50)","default":10,"minimum":1,"maximum":50}`) {
			t.Errorf("%s: the Go schema is not the plain integer: %s", c.contract, goSchema)
		}
	}
}

// TestAliasesAreAdvertised: aliases join the enum tools/list advertises
// (the items' enum of a list), not the Go enum the handler sees, and they
// are in the generated forms that map them back.
func TestAliasesAreAdvertised(t *testing.T) {
	tool := demoTool(t, "{invalid: result}", `
  - {name: kinds, type: array, list: true, maxItems: 4, items: {type: string, enum: [decision, learning]}, aliases: {adr: decision, gotcha: learning}, description: {en: kinds, sk: druhy}}
  - {name: kind, type: string, enum: [decision, learning], aliases: {adr: decision}, description: {en: kind, sk: druh}}
`)
	got, _ := inputSchema(tool)
	for _, want := range []string{
		`"items":{"type":"string","enum":["decision","learning","adr","gotcha"]},"maxItems":4}`,
		`"kind":{"type":"string","description":"kind","enum":["decision","learning","adr"]}`,
	} {
		if !strings.Contains(string(got), want) {
			t.Errorf("advertised %s\nlacks %s", got, want)
		}
	}
	s := compileFor(t, got)
	for args, want := range map[string]bool{
		`{"kinds":"adr, gotcha"}`: true, `{"kinds":["adr"]}`: true, `{"kind":"adr"}`: true,
		`{"kinds":"adr,memo"}`: false, `{"kind":"memo"}`: false, `{"kinds":"adr,adr,adr,adr,adr"}`: false,
	} {
		if accepts(t, s, args) != want {
			t.Errorf("%s: accepted %v, want %v", args, !want, want)
		}
	}
	goSchema, _ := goInputSchema(tool)
	if strings.Contains(string(goSchema), `"adr"`) {
		t.Errorf("the Go enum takes the alias: %s", goSchema)
	}
	if forms := argumentForms(tool); !strings.Contains(forms, `"kinds": {"adr": "decision", "gotcha": "learning"}`) || !strings.Contains(forms, `"kind": {"adr": "decision"}`) {
		t.Errorf("forms: %s", forms)
	}
}

// TestListStringForm compares the comma-separated form's pattern with what
// mcp.StringList makes of a string (split at commas, parts trimmed, blank
// parts dropped): it matches exactly the strings of at most n items, each
// within its bound or one of its values.
func TestListStringForm(t *testing.T) {
	parts := []string{"", " ", "a", "bb", "ccc", " a ", "\tbb", "dddd"}
	for _, c := range []struct {
		n, itemMax int
		enum       []string
	}{
		{1, 3, nil}, {2, 3, nil}, {3, 3, nil}, {3, 0, nil}, {2, 600, nil}, {3, 2, []string{"a", "bb"}},
	} {
		re := regexp.MustCompile(listPattern(c.n, c.itemMax, c.enum))
		// Every string of up to five parts joined by commas.
		var walk func(prefix []string)
		walk = func(prefix []string) {
			if len(prefix) > 0 {
				s := strings.Join(prefix, ",")
				if got, want := re.MatchString(s), listAccepts(s, c.n, c.itemMax, c.enum); got != want {
					t.Errorf("n=%d max=%d enum=%v: %q matched %v, want %v (%s)", c.n, c.itemMax, c.enum, s, got, want, re)
				}
			}
			if len(prefix) == 5 {
				return
			}
			for _, p := range parts {
				walk(append(prefix, p))
			}
		}
		walk(nil)
	}
}

// listAccepts is the meaning the pattern must have.
func listAccepts(s string, n, itemMax int, enum []string) bool {
	items := 0
	for _, part := range strings.Split(s, ",") {
		item := strings.TrimSpace(part)
		if item == "" {
			continue
		}
		items++
		if enum != nil {
			found := false
			for _, e := range enum {
				found = found || e == item
			}
			if !found {
				return false
			}
		} else if itemMax > 0 && utf8.RuneCountInString(strings.TrimLeft(part, " \t")) > itemMax {
			return false
		}
	}
	return items <= n
}

// TestEveryShippedListIsCounted: each shipped list's string form has the
// pattern that counts its items, and it compiles in RE2 (a count over 1000
// would not).
func TestEveryShippedListIsCounted(t *testing.T) {
	tree := loadMain(t)
	lists := 0
	for _, tool := range tree.Tools {
		schema, err := inputSchema(tool)
		if err != nil {
			t.Fatal(err)
		}
		compileFor(t, schema)
		for _, p := range tool.Params {
			if p.List {
				lists++
				var n int
				fmt.Sscan(string(p.Schema.values["maxItems"]), &n)
				if !strings.Contains(string(schema), fmt.Sprintf("){0,%d})?", n-1)) {
					t.Errorf("%s.%s: the string form does not count %d items", tool.Name, p.Name, n)
				}
			}
		}
	}
	if lists < 9 {
		t.Fatalf("only %d list parameters", lists)
	}
}

func loadMain(t *testing.T) *Tree {
	t.Helper()
	root := repoRoot(t)
	v, err := newSpecValidator(root)
	if err != nil {
		t.Fatal(err)
	}
	tree, err := loadTree(root, mainSpecs, v)
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

// TestShippedListEnumsAreEnforced: a `list: true` parameter with an enum is
// checked by its generated schema in both forms (the array's items and the
// comma-separated string), so no handler keeps its own copy of the values.
func TestShippedListEnumsAreEnforced(t *testing.T) {
	root := repoRoot(t)
	v, err := newSpecValidator(root)
	if err != nil {
		t.Fatal(err)
	}
	tree, err := loadTree(root, mainSpecs, v)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, tool := range tree.Tools {
		for _, p := range tool.Params {
			enum := aliasTargets(p)
			if !p.List || enum == nil {
				continue
			}
			checked++
			schema, err := inputSchema(tool)
			if err != nil {
				t.Fatal(err)
			}
			s := compileFor(t, schema)
			var required strings.Builder
			for _, q := range tool.Params {
				if q.Required {
					fmt.Fprintf(&required, `,%q:"x"`, q.Name)
				}
			}
			args := func(value string) string { return `{"` + p.Name + `":` + value + required.String() + `}` }
			values := append([]string(nil), enum...)
			for _, a := range p.Aliases {
				values = append(values, a.From)
			}
			for _, val := range values {
				if !accepts(t, s, args(`["`+val+`"]`)) || !accepts(t, s, args(`"`+val+`, `+enum[0]+`"`)) {
					t.Errorf("%s.%s refuses its own value %s", tool.Name, p.Name, val)
				}
			}
			for _, bad := range []string{`["recipe"]`, `"recipe"`, `"` + enum[0] + `,recipe"`} {
				if accepts(t, s, args(bad)) {
					t.Errorf("%s.%s accepts %s, which is not one of its values", tool.Name, p.Name, bad)
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no shipped list parameter has an enum: ctx_search.kinds should")
	}
}
