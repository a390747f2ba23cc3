package mcp

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// forms is a contract like the knowledge toolset's: digits everywhere, a
// clamped limit, an unclamped enum level, kind aliases on a list.
var forms = &ArgumentForms{
	Integers: map[string]IntegerForm{
		"limit": {Digits: true, Clamp: true, Max: 50},
		"level": {Digits: true},
	},
	Aliases: map[string]map[string]string{
		"kinds": {"adr": "decision", "gotcha": "learning"},
	},
}

type decoded struct {
	Limit int        `json:"limit"`
	Level int        `json:"level"`
	Kinds StringList `json:"kinds"`
	Point struct {
		X int `json:"x"`
	} `json:"point"`
	Ratio float64 `json:"ratio"`
}

func TestDecodeArgumentsWiderForms(t *testing.T) {
	cases := []struct {
		args  string
		want  decoded
		notes []string
	}{
		{`{"limit":"10","level":"2"}`, decoded{Limit: 10, Level: 2}, nil},
		{`{"limit":"0010"}`, decoded{Limit: 10}, nil},
		{`{"limit":50}`, decoded{Limit: 50}, nil},
		{`{"limit":100}`, decoded{Limit: 50}, []string{"limit 100 is more than its maximum of 50, so 50 was used."}},
		{`{"limit":"100"}`, decoded{Limit: 50}, []string{"limit 100 is more than its maximum of 50, so 50 was used."}},
		// Far beyond int64, as a number or as digits: clamped, not overflowed.
		{`{"limit":1e300}`, decoded{Limit: 50}, []string{"limit 1e300 is more than its maximum of 50, so 50 was used."}},
		{`{"limit":"99999999999999999999"}`, decoded{Limit: 50}, []string{"limit 99999999999999999999 is more than its maximum of 50, so 50 was used."}},
		// The aliases, as an array or one comma-separated string; other values pass.
		{`{"kinds":["adr","doc"]}`, decoded{Kinds: StringList{"decision", "doc"}}, nil},
		{`{"kinds":"adr, gotcha,,commit"}`, decoded{Kinds: StringList{"decision", "learning", "commit"}}, nil},
		{`{"kinds":"gotcha"}`, decoded{Kinds: StringList{"learning"}}, nil},
	}
	for _, c := range cases {
		var got decoded
		notes, err := DecodeArguments(json.RawMessage(c.args), &got, forms)
		if err != nil {
			t.Errorf("%s: %v", c.args, err)
			continue
		}
		if !reflect.DeepEqual(got, c.want) || !reflect.DeepEqual(notes, c.notes) {
			t.Errorf("%s: got %+v %q, want %+v %q", c.args, got, notes, c.want, c.notes)
		}
	}
}

// TestDecodeArgumentsIntegralNumbers is the regression test for 10.0: JSON
// Schema counts it as an integer, so validation passed it, and Go's decoder
// then refused it as invalid params. Without forms too (the repo toolset).
func TestDecodeArgumentsIntegralNumbers(t *testing.T) {
	var got decoded
	if _, err := DecodeArguments(json.RawMessage(`{"limit":10.0,"level":2e0,"point":{"x":-3.000},"ratio":2.5}`), &got, nil); err != nil {
		t.Fatal(err)
	}
	want := decoded{Limit: 10, Level: 2, Ratio: 2.5}
	want.Point.X = -3
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
	// Digits are not numbers without a contract that says so.
	if _, err := DecodeArguments(json.RawMessage(`{"limit":"10"}`), &got, nil); err == nil {
		t.Error("a string of digits decoded into an int without integerStrings")
	}
}

func TestWithNotes(t *testing.T) {
	note := []string{"limit 100 is more than its maximum of 50, so 50 was used."}
	res, err := WithNotes(TextResult("1. a hit\n"), nil, note)
	if err != nil || len(res.Content) != 1 || string(res.Content[0]) != `{"type":"text","text":"1. a hit\n\nNote: limit 100 is more than its maximum of 50, so 50 was used."}` {
		t.Errorf("the note is not the last paragraph of the answer: %v %s", err, res.Content)
	}
	// Structured content keeps its text block the JSON it is.
	structured, _ := StructuredResult(map[string]int{"n": 1})
	res, _ = WithNotes(structured, nil, note)
	if len(res.Content) != 2 || string(res.Content[0]) != `{"type":"text","text":"{\"n\":1}"}` {
		t.Errorf("structured: %s", res.Content)
	}
	if res, _ := WithNotes(TextResult("x"), nil, nil); len(res.Content) != 1 || string(res.Content[0]) != `{"type":"text","text":"x"}` {
		t.Errorf("changed without notes: %s", res.Content)
	}
}

// schema is shaped as the generator writes a knowledge tool's input schema.
const schema = `{"type":"object","properties":{
"query":{"type":"string","minLength":1,"maxLength":20},
"limit":{"default":10,"anyOf":[{"type":"integer","minimum":1},{"type":"string","maxLength":20,"pattern":"^0*(?:[1-9]|[1-9][0-9]{1,})$"}]},
"level":{"default":1,"anyOf":[{"type":"integer","enum":[0,1,2]},{"type":"string","enum":["0","1","2"]}]},
"kinds":{"anyOf":[{"type":"array","items":{"type":"string","enum":["decision","learning","adr"]},"maxItems":2},{"type":"string","maxLength":17,"pattern":"^[ \\t\\r\\n,]*(?:(?:decision|learning|adr)[ \\t\\r\\n]*(?:,[ \\t\\r\\n,]*(?:decision|learning|adr)[ \\t\\r\\n]*){0,1})?[ \\t\\r\\n,]*$"}]},
"tags":{"anyOf":[{"type":"array","items":{"type":"string","maxLength":5},"maxItems":3},{"type":"string","maxLength":17}]},
"decisions":{"type":"array","maxItems":1,"items":{"type":"object","properties":{"title":{"type":"string","minLength":1,"maxLength":10}},"required":["title"],"additionalProperties":false}},
"promote":{"type":"boolean"}
},"required":["query"],"additionalProperties":false}`

// TestProblemsNameTheParameter checks the words an agent reads when the
// knowledge toolset answers invalid arguments with isError: each problem
// names the parameter (the item, the field) and what is wrong, and of the
// alternatives of anyOf only the one the value was meant as.
func TestProblemsNameTheParameter(t *testing.T) {
	v, err := compileInputSchema("t", []byte(schema))
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string][]string{
		`{}`:                                     {"query: missing (required)"},
		`{"query":""}`:                           {"query: must not be empty"},
		`{"query":"abcdefghijklmnopqrstuvwxyz"}`: {"query: must be at most 20 characters long, got 26"},
		`{"query":5}`:                            {"query: must be a string, got 5"},
		`{"query":"x","mood":1}`:                 {"mood: unknown parameter (the parameters are decisions, kinds, level, limit, promote, query, tags)"},
		`{"query":"x","b":1,"a":2}`:              {"a, b: unknown parameters (the parameters are decisions, kinds, level, limit, promote, query, tags)"},
		`{"query":"x","limit":"` + strings.Repeat("9", 5000) + `"}`: {"limit: must be at most 20 characters long, got 5000"},
		`{"query":"x","limit":0}`:                                   {"limit: must be at least 1, got 0"},
		`{"query":"x","limit":"0"}`:                                 {"limit: must be at least 1, got 0"},
		`{"query":"x","limit":"ten"}`:                               {`limit: must be an integer or a string of digits, got "ten"`},
		`{"query":"x","limit":true}`:                                {"limit: must be an integer or a string, got true"},
		`{"query":"x","level":"7"}`:                                 {"level: must be one of 0, 1, 2; got 7"},
		`{"query":"x","level":3}`:                                   {"level: must be one of 0, 1, 2; got 3"},
		`{"query":"x","kinds":["nope"]}`:                            {`kinds[0]: must be one of decision, learning, adr; got "nope"`},
		`{"query":"x","kinds":"adr,nope"}`:                          {`kinds[1]: must be one of decision, learning, adr; got "nope"`},
		`{"query":"x","kinds":"adr,decision,learning"}`:             {"kinds: takes at most 2 items, got 3"},
		`{"query":"x","tags":["toolong"]}`:                          {"tags[0]: must be at most 5 characters long, got 7"},
		`{"query":"x","tags":5}`:                                    {"tags: must be an array or a string, got 5"},
		`{"query":"x","decisions":[{"title":""},{}]}`:               {"decisions: takes at most 1 items, got 2", "decisions[0].title: must not be empty", "decisions[1].title: missing (required)"},
		`{"query":"x","decisions":[{"title":"t","why":1}]}`:         {"decisions[0].why: unknown field"},
		`{"query":"x","promote":"yes"}`:                             {`promote: must be true or false, got "yes"`},
		`[]`:                                                        {"arguments: must be an object, got an array"},
		`{"query":1,"limit":-1}`:                                    {"limit: must be at least 1, got -1", "query: must be a string, got 1"},
	}
	for args, want := range cases {
		vs, got := v.validate([]byte(args))
		if len(vs) == 0 {
			t.Errorf("%s: no violations", args)
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got  %q\n want %q", args, got, want)
		}
	}
	// Many bad items: the first twenty problems, and a count of the rest.
	many := `{"query":"x","tags":[` + strings.Repeat(`"toolong",`, 99) + `"toolong"]}`
	if _, got := v.validate([]byte(many)); len(got) != 21 || got[20] != "and 81 more problems" {
		t.Errorf("100 bad tags: %d problems, the last %q", len(got), got[len(got)-1])
	}
	if vs, got := v.validate([]byte(`{"query":"x","limit":"0050","level":"2","kinds":" adr , learning ,","tags":"a,b"}`)); vs != nil || got != nil {
		t.Errorf("valid wider forms refused: %v %q", vs, got)
	}
}

// Arguments with nothing to rewrite are decoded as they came: a large body
// is not decoded and encoded again on the way.
func TestNormaliseLeavesPlainArgumentsAlone(t *testing.T) {
	args := json.RawMessage(`{"body":"` + strings.Repeat("a.e", 1000) + `","kinds":["decision"],"limit":7,"ok":true}`)
	out, notes, err := normaliseArguments(args, &ArgumentForms{Aliases: map[string]map[string]string{"other": {"x": "y"}}})
	if err != nil || notes != nil || &out[0] != &args[0] {
		t.Errorf("plain arguments were rewritten (%v, %q)", err, notes)
	}
	out, _, err = normaliseArguments(json.RawMessage(`{"body":"<b>","n":2.0}`), nil)
	if err != nil || string(out) != `{"body":"<b>","n":2}` && string(out) != `{"n":2,"body":"<b>"}` {
		t.Errorf("rewritten: %s %v (want the other values byte for byte)", out, err)
	}
}

func TestHasFractionOrExponent(t *testing.T) {
	for text, want := range map[string]bool{
		`{}`:                               false,
		`{"a":1,"b":-20,"c":[3,4]}`:        false,
		`{"a":true,"b":false,"c":null}`:    false,
		`{"a":"1.5e3","b":"E"}`:            false,
		`{"a":"quote \" 1.5 \\"}`:          false,
		`{"e.E":1}`:                        false,
		`{"a":1.5}`:                        true,
		`{"a":10.0}`:                       true,
		`{"a":1e1}`:                        true,
		`{"a":-2E+3}`:                      true,
		`{"a":[1,{"b":0.5}]}`:              true,
		`{"a":"x\\","b":2.0}`:              true,
		"{\"a\" : \t 3.25 }":               true,
		`{"a":"tail \\\\","b":true,"c":1}`: false,
	} {
		if got := hasFractionOrExponent([]byte(text)); got != want {
			t.Errorf("hasFractionOrExponent(%s) = %v, want %v", text, got, want)
		}
	}
}

// Skipping the rewrite when nothing can need it must decode exactly what
// the full path decodes.
func TestDecodeArgumentsShortcutAgrees(t *testing.T) {
	type input struct {
		Limit int      `json:"limit"`
		Kinds []string `json:"kinds"`
		Query string   `json:"query"`
		Ratio float64  `json:"ratio"`
	}
	for _, args := range []string{
		`{"limit":5,"kinds":["a"],"query":"1.5e3 true"}`,
		`{"limit":5.0}`,
		`{"limit":1e1,"ratio":0.25}`,
		`{"query":"\"5.0\""}`,
		``,
		`null`,
	} {
		var short, full input
		if _, err := DecodeArguments(json.RawMessage(args), &short, nil); err != nil {
			t.Errorf("%s: %v", args, err)
			continue
		}
		// A form for an absent parameter forces the full path.
		forceFull := &ArgumentForms{Aliases: map[string]map[string]string{"absent": {"x": "y"}}}
		if _, err := DecodeArguments(json.RawMessage(args), &full, forceFull); err != nil {
			t.Errorf("%s (full path): %v", args, err)
			continue
		}
		if !reflect.DeepEqual(short, full) {
			t.Errorf("%s: shortcut decoded %+v, the full path %+v", args, short, full)
		}
	}
}

// FuzzHasFractionOrExponent holds the byte scan to the decoder's reading
// of the numbers of every valid JSON text.
func FuzzHasFractionOrExponent(f *testing.F) {
	for _, seed := range []string{`{"a":1.5}`, `{"a":"1.5"}`, `[true,false,null,-0]`, `{"a\"":2e3}`, `"\\"`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if !json.Valid([]byte(text)) {
			return
		}
		dec := json.NewDecoder(strings.NewReader(text))
		dec.UseNumber()
		want := false
		for {
			tok, err := dec.Token()
			if err != nil {
				break
			}
			if n, ok := tok.(json.Number); ok && strings.ContainsAny(string(n), ".eE") {
				want = true
			}
		}
		if got := hasFractionOrExponent([]byte(text)); got != want {
			t.Fatalf("hasFractionOrExponent(%q) = %v, the decoder says %v", text, got, want)
		}
	})
}
