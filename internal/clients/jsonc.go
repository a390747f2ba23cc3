package clients

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"

	"github.com/kontext-dev/kontext/internal/jsonc"
)

// jsoncMerge sets key.name in a JSON-with-comments file (Zed's and VS
// Code's settings, Gemini's, opencode's) by editing the text in place:
// comments, trailing commas, layout and every other member stay exactly
// as they were. Only the entry kontext replaces is written anew, so a
// comment inside an old kontext entry is the one thing lost. header, when
// not nil, gives the members a new file starts with.
func jsoncMerge(key string, entry func(Spec) any, header func(jsonObject) jsonObject) func([]byte, Spec) ([]byte, error) {
	return func(existing []byte, s Spec) ([]byte, error) {
		raw, err := marshalJSON(entry(s))
		if err != nil {
			return nil, err
		}
		return mergeJSONC(existing, key, s.name(), raw, header)
	}
}

// jsoncMember is one member of an object, by its offsets in the file.
type jsoncMember struct {
	key                        string
	keyStart, valStart, valEnd int
}

// jsoncObject is an object's braces and members, by offsets.
type jsoncObject struct {
	open, close int
	members     []jsoncMember
}

func (o jsoncObject) find(key string) []int {
	var at []int
	for i, m := range o.members {
		if m.key == key {
			at = append(at, i)
		}
	}
	return at
}

type textEdit struct {
	start, end int
	text       string
}

func mergeJSONC(existing []byte, key, name string, entry json.RawMessage, header func(jsonObject) jsonObject) ([]byte, error) {
	bom := []byte("\xef\xbb\xbf")
	hadBOM := bytes.HasPrefix(existing, bom)
	orig := bytes.TrimPrefix(existing, bom)
	withBOM := func(b []byte) []byte {
		if hadBOM {
			return append(append([]byte(nil), bom...), b...)
		}
		return b
	}
	servers, err := encodeObject(jsonObject{{name, entry}}, "")
	if err != nil {
		return nil, err
	}
	blank := jsonc.Blank(orig)
	if len(bytes.TrimSpace(blank)) == 0 {
		fresh := jsonObject{}
		if header != nil {
			fresh = header(fresh)
		}
		fresh = append(fresh, jsonMember{key, servers})
		out, err := encodeObject(fresh, defaultJSONIndent)
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(orig)) > 0 {
			// Only comments: keep them above the new settings.
			out = append(withNewline(orig), out...)
		}
		return withBOM(out), nil
	}
	// Blank keeps every offset, so errors point into the file as it is.
	if err := json.Unmarshal(blank, new(json.RawMessage)); err != nil {
		return nil, describeJSONError(blank, err)
	}
	start := len(blank) - len(bytes.TrimLeft(blank, " \t\r\n"))
	if blank[start] != '{' {
		return nil, describeJSONError(blank, errNotObject)
	}
	top, err := parseJSONCObject(blank, start)
	if err != nil {
		return nil, describeJSONError(blank, err)
	}
	has := func(k string) bool { return len(top.find(k)) > 0 }
	if err := checkServersKey(key, has); err != nil {
		return nil, err
	}
	unit := detectIndent(orig)
	var edits []textEdit
	switch at := top.find(key); {
	case len(at) == 0:
		edits = insertMember(orig, top, unit, key, servers)
	case len(at) > 1:
		return nil, fmt.Errorf("the file has %q %d times; remove all but one and run kontext again; it left the file as it was", key, len(at))
	default:
		m := top.members[at[0]]
		switch blank[m.valStart] {
		case 'n':
			edits = []textEdit{replaceValue(orig, top, m, unit, servers)}
		case '{':
			obj, err := parseJSONCObject(blank, m.valStart)
			if err != nil {
				return nil, describeJSONError(blank, err)
			}
			edits = setMember(orig, obj, unit, name, entry)
		default:
			return nil, fmt.Errorf("%s is %s, not an object; kontext left the file as it was", key, jsonKind(blank[m.valStart:m.valEnd]))
		}
	}
	out := applyEdits(orig, edits)
	if err := checkJSONCMerge(orig, out, key, name, entry); err != nil {
		return nil, err
	}
	return withBOM(out), nil
}

// setMember replaces the value of name in obj, dropping any later
// duplicate (which most parsers would let win), or adds the member.
func setMember(orig []byte, obj jsoncObject, unit, name string, value json.RawMessage) []textEdit {
	at := obj.find(name)
	if len(at) == 0 {
		return insertMember(orig, obj, unit, name, value)
	}
	edits := []textEdit{replaceValue(orig, obj, obj.members[at[0]], unit, value)}
	for _, i := range at[1:] {
		// From the end of the member before it: the separating comma and
		// whatever lies between go with the duplicate.
		edits = append(edits, textEdit{obj.members[i-1].valEnd, obj.members[i].valEnd, ""})
	}
	return edits
}

// replaceValue writes value over m's value, laid out like the member's line.
func replaceValue(orig []byte, obj jsoncObject, m jsoncMember, unit string, value json.RawMessage) textEdit {
	if oneLine(orig, obj) {
		return textEdit{m.valStart, m.valEnd, string(value)}
	}
	return textEdit{m.valStart, m.valEnd, indentJSON(value, lineIndent(orig, m.keyStart), unit)}
}

// insertMember adds key: value as obj's last member. An object written on
// one line gets it on that line; otherwise it goes on a line of its own,
// indented like the other members, before the closing brace, so a comment
// after the last member stays where it was.
func insertMember(orig []byte, obj jsoncObject, unit, key string, value json.RawMessage) []textEdit {
	keyJSON, _ := marshalJSON(key)
	if len(obj.members) > 0 && oneLine(orig, obj) {
		last := obj.members[len(obj.members)-1]
		return []textEdit{{last.valEnd, last.valEnd, ", " + string(keyJSON) + ": " + string(value)}}
	}
	parent := lineIndent(orig, obj.open)
	indent := parent + unit
	if len(obj.members) > 0 && onOwnLine(orig, obj.members[0].keyStart) {
		indent = lineIndent(orig, obj.members[0].keyStart)
	}
	at := obj.close
	for at > obj.open+1 && isJSONSpace(orig[at-1]) {
		at--
	}
	text := "\n" + indent + string(keyJSON) + ": " + indentJSON(value, indent, unit)
	var edits []textEdit
	if n := len(obj.members); n > 0 {
		last := obj.members[n-1]
		if hasComma(orig[last.valEnd:obj.close]) {
			text += ","
		} else {
			edits = append(edits, textEdit{last.valEnd, last.valEnd, ","})
		}
	}
	if !bytes.Contains(orig[at:obj.close], []byte("\n")) {
		text += "\n" + parent
	}
	return append(edits, textEdit{at, at, text})
}

// applyEdits applies non-overlapping edits; of two at the same offset, the
// one listed first ends up first.
func applyEdits(orig []byte, edits []textEdit) []byte {
	order := make([]int, len(edits))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool {
		ea, eb := edits[order[a]], edits[order[b]]
		if ea.start != eb.start {
			return ea.start > eb.start
		}
		return order[a] > order[b]
	})
	out := append([]byte(nil), orig...)
	for _, i := range order {
		e := edits[i]
		out = append(out[:e.start], append([]byte(e.text), out[e.end:]...)...)
	}
	return out
}

// parseJSONCObject reads the object at open in blank (a jsonc.Blank copy,
// so plain JSON with the original's offsets).
func parseJSONCObject(blank []byte, open int) (jsoncObject, error) {
	obj := jsoncObject{open: open}
	dec := json.NewDecoder(bytes.NewReader(blank[open:]))
	if tok, err := dec.Token(); err != nil {
		return obj, err
	} else if d, ok := tok.(json.Delim); !ok || d != '{' {
		return obj, errNotObject
	}
	prev := open + 1
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return obj, err
		}
		key, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return obj, err
		}
		end := open + int(dec.InputOffset())
		keyStart := skipSeparators(blank, prev)
		obj.members = append(obj.members, jsoncMember{key: key, keyStart: keyStart, valStart: end - len(raw), valEnd: end})
		prev = end
	}
	if _, err := dec.Token(); err != nil {
		return obj, err
	}
	obj.close = open + int(dec.InputOffset()) - 1
	if blank[obj.close] != '}' {
		return obj, errors.New("the object's end is not where it should be")
	}
	return obj, nil
}

func skipSeparators(blank []byte, at int) int {
	for at < len(blank) && (isJSONSpace(blank[at]) || blank[at] == ',') {
		at++
	}
	return at
}

func isJSONSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// hasComma reports a comma outside comments in text that holds only
// whitespace, comments and commas (what lies between two tokens).
func hasComma(text []byte) bool {
	for i := 0; i < len(text); i++ {
		switch {
		case text[i] == ',':
			return true
		case text[i] == '/' && i+1 < len(text) && text[i+1] == '/':
			for i < len(text) && text[i] != '\n' {
				i++
			}
		case text[i] == '/' && i+1 < len(text) && text[i+1] == '*':
			i += 2
			for i+1 < len(text) && !(text[i] == '*' && text[i+1] == '/') {
				i++
			}
			i++
		}
	}
	return false
}

func oneLine(orig []byte, obj jsoncObject) bool {
	return !bytes.Contains(orig[obj.open:obj.close], []byte("\n"))
}

func lineIndent(data []byte, at int) string {
	start := bytes.LastIndexByte(data[:at], '\n') + 1
	end := start
	for end < len(data) && (data[end] == ' ' || data[end] == '\t') {
		end++
	}
	return string(data[start:end])
}

func onOwnLine(data []byte, at int) bool {
	start := bytes.LastIndexByte(data[:at], '\n') + 1
	return len(bytes.TrimLeft(data[start:at], " \t")) == 0
}

func indentJSON(compact json.RawMessage, prefix, unit string) string {
	var out bytes.Buffer
	if err := json.Indent(&out, compact, prefix, unit); err != nil {
		return string(compact)
	}
	return out.String()
}

// checkJSONCMerge decodes the file before and after and checks that the
// only difference is key.name: the edit is made on text, and a file must
// never be written that says something else than it did.
func checkJSONCMerge(before, after []byte, key, name string, entry json.RawMessage) error {
	decode := func(data []byte) (any, error) {
		dec := json.NewDecoder(bytes.NewReader(jsonc.Blank(data)))
		dec.UseNumber()
		var v any
		err := dec.Decode(&v)
		return v, err
	}
	was, err := decode(before)
	if err != nil {
		return err
	}
	now, err := decode(after)
	if err != nil {
		return jsoncRefused(key, err)
	}
	var value any
	if err := json.Unmarshal(entry, &value); err != nil {
		return err
	}
	want, _ := was.(map[string]any)
	servers, _ := want[key].(map[string]any)
	if servers == nil {
		servers = map[string]any{}
	}
	servers[name] = normalizeNumbers(value)
	want[key] = servers
	if !reflect.DeepEqual(any(want), now) {
		return jsoncRefused(key, errors.New("the edited file would decode differently"))
	}
	return nil
}

// normalizeNumbers turns float64s into json.Numbers, as UseNumber decodes them.
func normalizeNumbers(v any) any {
	switch v := v.(type) {
	case float64:
		b, _ := json.Marshal(v)
		return json.Number(b)
	case map[string]any:
		for k, x := range v {
			v[k] = normalizeNumbers(x)
		}
	case []any:
		for i, x := range v {
			v[i] = normalizeNumbers(x)
		}
	}
	return v
}

func jsoncRefused(key string, err error) error {
	return fmt.Errorf("kontext could not add its entry without changing the rest of the file (%v); left it as it was: add the output of kontext config under %q by hand", err, key)
}
