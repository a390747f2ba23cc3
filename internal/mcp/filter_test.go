package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// testFilter redacts SECRET-<word>: a stand-in for the secret rules, which
// the runtime knows nothing of.
type testFilter struct{}

var testSecret = regexp.MustCompile(`SECRET-[a-z0-9]+`)

func (f *testFilter) Suspect(text []byte) bool {
	l := bytes.ToLower(text)
	return bytes.Contains(l, []byte("secret-")) || bytes.Contains(l, []byte(`"pin"`)) || string(l) == "pin"
}
func (f *testFilter) Redact(key, text string) string {
	if key == "pin" {
		return "[redacted:pin]" // a rule that needs the member's name
	}
	return testSecret.ReplaceAllString(text, "[redacted:test]")
}

// filterToolset answers with the secret in every place an answer can hold
// text.
func filterToolset() *Toolset {
	object := json.RawMessage(`{"type":"object","additionalProperties":false}`)
	img := strings.Repeat("U0VDUkVULWFiYw", 10) // base64, never read as text
	return &Toolset{
		Name: "leaky",
		Tools: []*Tool{
			{Name: "text", InputSchema: object, Call: func(context.Context, json.RawMessage) (*ToolResult, error) {
				return TextResult("line one\nthe key is SECRET-abc1, keep it\n\"quoted\" \\ back"), nil
			}},
			{Name: "structured", InputSchema: object, Call: func(context.Context, json.RawMessage) (*ToolResult, error) {
				return StructuredResult(map[string]any{
					"note":        "uses SECRET-def2",
					"list":        []any{"ok", "SECRET-ghi3", 3, true, nil},
					"SECRET-key4": "keys are kept",
					"nested":      map[string]any{"deep": "x SECRET-jkl5 y", "escaped": "<&> SECRET-mno6 \u2028"},
					"unrelated":   "nothing here",
					"pin":         "1234",
				})
			}},
			{Name: "image", InputSchema: object, Call: func(context.Context, json.RawMessage) (*ToolResult, error) {
				b, _ := json.Marshal(map[string]string{"type": "image", "mimeType": "image/png", "data": img})
				return &ToolResult{Content: []json.RawMessage{b, TextBlock("caption SECRET-stu8")}}, nil
			}},
			{Name: "fails", InputSchema: object, Call: func(context.Context, json.RawMessage) (*ToolResult, error) {
				return nil, fmt.Errorf("could not read SECRET-vwx9")
			}},
		},
		Resources: []*Resource{{URI: "leaky://doc", Name: "doc", Read: func(context.Context) (*ResourceContents, error) {
			return &ResourceContents{MIMEType: "application/json", Text: `{"a": "SECRET-res1", "b": [1, 2]}`}, nil
		}}},
		Prompts: []*Prompt{{Name: "p", Get: func(context.Context, map[string]string) (*PromptResult, error) {
			return &PromptResult{Messages: []PromptMessage{{Role: "user", Text: "use SECRET-prm1 please"}}}, nil
		}}},
	}
}

// exchange serves one legacy session with the filter and returns the raw
// result of each request after the handshake, by id.
func exchange(t *testing.T, f OutputFilter, requests ...string) map[int]json.RawMessage {
	t.Helper()
	srv, err := NewServer(Implementation{Name: "t", Version: "1"}, Options{OutputFilter: f}, filterToolset())
	if err != nil {
		t.Fatal(err)
	}
	serverEnd, clientEnd := NewInMemoryTransport()
	done := make(chan struct{})
	go func() { srv.Serve(context.Background(), serverEnd); close(done) }()
	lines := append([]string{`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`}, requests...)
	go func() {
		for _, l := range lines {
			clientEnd.Write([]byte(l + "\n"))
		}
	}()
	got := map[int]json.RawMessage{}
	sc := bufio.NewScanner(clientEnd)
	sc.Buffer(nil, 1<<20)
	for len(got) < len(lines) && sc.Scan() {
		var resp struct {
			ID     *int            `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(sc.Bytes(), &resp); err != nil {
			t.Fatalf("not JSON: %v: %s", err, sc.Bytes())
		}
		if resp.ID != nil {
			if resp.Error != nil {
				t.Fatalf("request %d: %s", *resp.ID, resp.Error)
			}
			got[*resp.ID] = resp.Result
		}
	}
	clientEnd.Close()
	<-done
	return got
}

func toolCall(id int, tool string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":{}}}`, id, tool)
}

// Every tool result, resource read and prompt passes the filter once:
// text blocks, structured content (and the text block that mirrors it,
// which stays the same valid JSON), error results, JSON resources; keys and
// base64 blobs are left alone.
func TestOutputFilter(t *testing.T) {
	f := &testFilter{}
	got := exchange(t, f, toolCall(1, "text"), toolCall(2, "structured"), toolCall(3, "image"), toolCall(4, "fails"),
		`{"jsonrpc":"2.0","id":5,"method":"resources/read","params":{"uri":"leaky://doc"}}`,
		`{"jsonrpc":"2.0","id":6,"method":"prompts/get","params":{"name":"p"}}`)
	for id, raw := range got {
		if id == 0 {
			continue
		}
		if testSecret.Match(bytes.ReplaceAll(raw, []byte("SECRET-key4"), nil)) {
			t.Errorf("answer %d keeps a secret: %s", id, raw)
		}
		if !json.Valid(raw) {
			t.Errorf("answer %d is not JSON: %s", id, raw)
		}
	}
	var text struct{ Content []struct{ Text string } }
	json.Unmarshal(got[1], &text)
	if want := "line one\nthe key is [redacted:test], keep it\n\"quoted\" \\ back"; text.Content[0].Text != want {
		t.Errorf("text %q", text.Content[0].Text)
	}
	var structured struct {
		Content           []struct{ Text string }
		StructuredContent map[string]any
	}
	if err := json.Unmarshal(got[2], &structured); err != nil {
		t.Fatal(err)
	}
	var mirror map[string]any
	if err := json.Unmarshal([]byte(structured.Content[0].Text), &mirror); err != nil {
		t.Fatalf("the text block is no longer JSON: %v\n%s", err, structured.Content[0].Text)
	}
	sc := structured.StructuredContent
	if fmt.Sprint(mirror) != fmt.Sprint(sc) {
		t.Errorf("the text block and the structured content differ:\n%v\n%v", mirror, sc)
	}
	if sc["pin"] != "[redacted:pin]" {
		t.Errorf("the member's name did not reach the filter: %v", sc["pin"])
	}
	nested := sc["nested"].(map[string]any)
	if sc["note"] != "uses [redacted:test]" || sc["list"].([]any)[1] != "[redacted:test]" || sc["SECRET-key4"] != "keys are kept" ||
		nested["deep"] != "x [redacted:test] y" || nested["escaped"] != "<&> [redacted:test] \u2028" {
		t.Errorf("structured %v", sc)
	}
	if !bytes.Contains(got[3], []byte(strings.Repeat("U0VDUkVULWFiYw", 10))) || !bytes.Contains(got[3], []byte("caption [redacted:test]")) {
		t.Errorf("image: %s", got[3])
	}
	if !bytes.Contains(got[4], []byte(`could not read [redacted:test]`)) || !bytes.Contains(got[4], []byte(`"isError":true`)) {
		t.Errorf("error result: %s", got[4])
	}
	var res struct{ Contents []struct{ Text string } }
	json.Unmarshal(got[5], &res)
	if !json.Valid([]byte(res.Contents[0].Text)) || !strings.Contains(res.Contents[0].Text, `"a": "[redacted:test]", "b": [1, 2]`) {
		t.Errorf("resource %q", res.Contents[0].Text)
	}
	if !bytes.Contains(got[6], []byte("use [redacted:test] please")) {
		t.Errorf("prompt %s", got[6])
	}

	// Without a filter the answers are the handlers' own.
	plain := exchange(t, nil, toolCall(1, "text"))
	if !bytes.Contains(plain[1], []byte("SECRET-abc1")) {
		t.Errorf("unfiltered: %s", plain[1])
	}
}

// The fast path: an answer the filter does not suspect is sent as it is,
// and a suspected one is redacted string by string.
func TestFilterJSON(t *testing.T) {
	f := &testFilter{}
	for _, raw := range []string{`{"a":"b"}`, `[]`, `"plain"`, `{"k":"v \" \\ \u00e9"}`} {
		if out := filterJSON(f, []byte(raw)); out != nil {
			t.Errorf("%s changed to %s", raw, out)
		}
	}
	for raw, want := range map[string]string{
		`{"hidden":"S\u0045CRET-e"}`:                         `{"hidden":"[redacted:test]"}`,
		`{"slash":"a\/SECRET-s"}`:                            `{"slash":"a/[redacted:test]"}`,
		`{"a":"SECRET-x","b":"SECRET-y"}`:                    `{"a":"[redacted:test]","b":"[redacted:test]"}`,
		`{"SECRET-k" : "v"}`:                                 ``,
		`["a", "SECRET-z\n"]`:                                `["a", "[redacted:test]\n"]`,
		`{"t":"{\"in\":\"SECRET-q\"}"}`:                      `{"t":"{\"in\":\"[redacted:test]\"}"}`,
		`{"data":"` + strings.Repeat("A", 80) + `SECRET-b"}`: ``, // not base64: a '-' in it
	} {
		got := string(filterJSON(f, []byte(raw)))
		if strings.HasPrefix(raw, `{"data"`) {
			if !strings.Contains(got, "[redacted:test]") {
				t.Errorf("%s: a data value that is not base64 is not filtered: %s", raw, got)
			}
			continue
		}
		if got != want {
			t.Errorf("%s: got %s, want %s", raw, got, want)
		}
		if got != "" && !json.Valid([]byte(got)) {
			t.Errorf("%s: invalid %s", raw, got)
		}
	}
}
