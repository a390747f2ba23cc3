package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"testing"

	"github.com/kontext-dev/kontext/gen/protocol"
)

// callToolParams decodes as protocol.CallToolParams did when tools/call
// decoded its params with it (a map[string]any pass for the required key,
// then the struct); toolName must refuse and name exactly as it did.
type callToolParams struct {
	Arguments json.RawMessage `json:"arguments,omitempty,omitzero"`
	Name      string          `json:"name"`
}

func (j *callToolParams) UnmarshalJSON(value []byte) error {
	var raw map[string]any
	if err := json.Unmarshal(value, &raw); err != nil {
		return err
	}
	if _, ok := raw["name"]; raw != nil && !ok {
		return errors.New("field name in CallToolParams: required")
	}
	type plain callToolParams
	return json.Unmarshal(value, (*plain)(j))
}

// toolNameCases are tools/call params a client may send, odd ones
// included.
var toolNameCases = []string{
	``,
	`{}`,
	`{"name":"echo"}`,
	`{"name":"echo","arguments":{"text":"x","repeat":2}}`,
	`{"arguments":{"name":"echo"}}`,
	`{"Name":"echo"}`,
	`{"NAME":"echo","name":"add"}`,
	`{"name":"add","NAME":"echo"}`,
	`{"name":5}`,
	`{"name":null}`,
	`{"name":true}`,
	`{"name":{"a":"b"}}`,
	`{"name":["x"]}`,
	`{"name":"x","Name":7}`,
	`{"Name":7,"name":"x"}`,
	`{"na\u006de":"echo"}`,
	`{"name":"ec\"ho"}`,
	`{"name":"\u00e9cho"}`,
	`{"name":"echo","arguments":{"limit":1e400}}`,
	`{"arguments":{"limit":-1E+400},"name":5}`,
	`{"name":"echo","arguments":{"limit":1e-400,"big":123456789e300}}`,
	`{"name":"echo","arguments":[1e308,2e308]}`,
	`{"name":"echo","_meta":{"progressToken":1e999}}`,
	`{ "name" : "echo" , "arguments" : { "s" : "1e400 \"name\":5" } }`,
	`{"x":{"name":5},"name":"echo"}`,
	`{"name":"echo","x":"name"}`,
	`{"ſame":"echo"}`,
	`{"nameſ":1,"name":"a"}`,
}

func TestToolNameDecodesLikeCallToolParams(t *testing.T) {
	for _, params := range toolNameCases {
		c := &call{params: json.RawMessage(params)}
		if len(params) > 0 {
			if err := json.Unmarshal(c.params, &c.envelope); err != nil {
				t.Fatalf("%s: %v", params, err)
			}
		}
		got, gotErr := c.toolName()
		var want callToolParams
		wantErr := decodeParams(json.RawMessage(params), &want)
		if !reflect.DeepEqual(gotErr, wantErr) {
			t.Errorf("%s: toolName refused with %v, CallToolParams with %v", params, gotErr, wantErr)
			continue
		}
		if wantErr == nil && got != want.Name {
			t.Errorf("%s: toolName is %q, CallToolParams.Name %q", params, got, want.Name)
		}
	}
}

func FuzzToolName(f *testing.F) {
	for _, params := range toolNameCases {
		f.Add([]byte(params))
	}
	f.Fuzz(func(t *testing.T, params []byte) {
		c := &call{params: params}
		// The stream delivers only objects, and the envelope has decoded.
		if len(params) > 0 && (params[0] != '{' || json.Unmarshal(params, &c.envelope) != nil) {
			return
		}
		got, gotErr := c.toolName()
		var want callToolParams
		wantErr := decodeParams(params, &want)
		if !reflect.DeepEqual(gotErr, wantErr) {
			t.Fatalf("%s: toolName refused with %v, CallToolParams with %v", params, gotErr, wantErr)
		}
		if wantErr == nil && got != want.Name {
			t.Fatalf("%s: toolName is %q, CallToolParams.Name %q", params, got, want.Name)
		}
	})
}

// encodeToolResult must write what marshal writes for the same result.
func TestEncodeToolResultMatchesMarshal(t *testing.T) {
	structured, err := StructuredResult(map[string]any{"sum": 3, "html": "<a>&</a>", "sep": "\u2028"})
	if err != nil {
		t.Fatal(err)
	}
	isError := true
	cases := []struct {
		name   string
		out    protocol.CallToolResult
		mirror json.RawMessage
	}{
		{"empty", protocol.CallToolResult{Content: []json.RawMessage{}}, nil},
		{"text", protocol.CallToolResult{Content: []json.RawMessage{TextBlock("a <b> & \"c\"\n")}}, nil},
		{"error", protocol.CallToolResult{Content: []json.RawMessage{TextBlock("x")}, IsError: &isError}, nil},
		{"structured", protocol.CallToolResult{Content: structured.Content, StructuredContent: marshal(structured.Structured)}, structured.mirror},
		{"spaced", protocol.CallToolResult{Content: []json.RawMessage{json.RawMessage("{ \"type\" : \"text\",\n \"text\": \"a b\" }")}, StructuredContent: json.RawMessage(`{ "a" : [1, 2] }`)}, nil},
		{"nil block", protocol.CallToolResult{Content: []json.RawMessage{nil, TextBlock("y")}}, nil},
		{"empty block", protocol.CallToolResult{Content: []json.RawMessage{{}}}, nil},
		{"invalid block", protocol.CallToolResult{Content: []json.RawMessage{json.RawMessage(`{"type":`)}}, nil},
		{"invalid structured", protocol.CallToolResult{Content: []json.RawMessage{}, StructuredContent: json.RawMessage(`{,}`)}, nil},
	}
	for _, tc := range cases {
		want := marshal(tc.out)
		got, ok := encodeToolResult(tc.out, tc.mirror)
		if !ok {
			got = marshal(tc.out) // what toolResult falls back to
			if json.Valid(want) && !bytes.HasPrefix(want, []byte(`{"error":`)) {
				t.Errorf("%s: encodeToolResult refused what marshal encodes as %s", tc.name, want)
			}
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: encodeToolResult wrote\n%s\nmarshal writes\n%s", tc.name, got, want)
		}
	}
}
