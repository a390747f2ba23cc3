package conformance

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/kontext-dev/kontext/internal/mcp"
)

// exchange serves the toolset in memory, sends each request after the
// handshake and returns the results by request (ids 2, 3, …).
func exchange(t *testing.T, requests ...string) []json.RawMessage {
	t.Helper()
	srv, err := mcp.NewServer(mcp.Implementation{Name: "kontext", Version: "test"}, mcp.Options{}, (&Kit{}).Toolset())
	if err != nil {
		t.Fatal(err)
	}
	serverEnd, clientEnd := mcp.NewInMemoryTransport()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go srv.Serve(ctx, serverEnd)
	defer clientEnd.Close()

	lines := []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
	}
	for i, r := range requests {
		lines = append(lines, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,%s}`, i+2, r))
	}
	if _, err := clientEnd.Write([]byte(strings.Join(lines, "\n") + "\n")); err != nil {
		t.Fatal(err)
	}
	results := make([]json.RawMessage, len(requests))
	scanner := bufio.NewScanner(clientEnd)
	scanner.Buffer(nil, 1<<20)
	for seen := 0; seen < len(requests)+1 && scanner.Scan(); {
		var msg struct {
			ID     int             `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(scanner.Bytes(), &msg); err != nil {
			t.Fatalf("%s: %v", scanner.Bytes(), err)
		}
		if msg.ID == 0 {
			continue // a notification
		}
		seen++
		if msg.Error != nil {
			t.Fatalf("request %d failed: %s", msg.ID, msg.Error)
		}
		if msg.ID >= 2 {
			results[msg.ID-2] = msg.Result
		}
	}
	for i, r := range results {
		if r == nil {
			t.Fatalf("no answer to %s", requests[i])
		}
	}
	return results
}

// The fixtures whose wire form the runtime had to learn: a prompt message
// that is an image or an embedded resource, a binary resource, and a raw
// JSON Schema 2020-12 input schema advertised as written.
func TestFixturesOnTheWire(t *testing.T) {
	got := exchange(t,
		`"method":"prompts/get","params":{"name":"test_prompt_with_image"}`,
		`"method":"prompts/get","params":{"name":"test_prompt_with_embedded_resource","arguments":{"resourceUri":"test://example-resource"}}`,
		`"method":"resources/read","params":{"uri":"test://static-binary"}`,
		`"method":"tools/list"`,
		`"method":"tools/call","params":{"name":"test_error_handling","arguments":{}}`,
	)

	var image struct {
		Messages []struct {
			Role    string
			Content map[string]string
		}
	}
	if err := json.Unmarshal(got[0], &image); err != nil || len(image.Messages) != 2 {
		t.Fatalf("test_prompt_with_image: %s (%v)", got[0], err)
	}
	if c := image.Messages[0].Content; c["type"] != "image" || c["data"] != imagePNG || c["mimeType"] != "image/png" {
		t.Errorf("image message = %v", c)
	}
	if c := image.Messages[1].Content; c["type"] != "text" || c["text"] != "Please analyze the image above." {
		t.Errorf("text message = %v", c)
	}

	var embedded struct {
		Messages []struct {
			Content struct {
				Type     string
				Resource map[string]string
			}
		}
	}
	if err := json.Unmarshal(got[1], &embedded); err != nil || len(embedded.Messages) != 2 {
		t.Fatalf("test_prompt_with_embedded_resource: %s (%v)", got[1], err)
	}
	if c := embedded.Messages[0].Content; c.Type != "resource" || c.Resource["uri"] != "test://example-resource" || c.Resource["text"] != "Embedded resource content for testing." {
		t.Errorf("embedded resource message = %+v", c)
	}

	var binary struct{ Contents []map[string]string }
	if err := json.Unmarshal(got[2], &binary); err != nil || len(binary.Contents) != 1 {
		t.Fatalf("test://static-binary: %s (%v)", got[2], err)
	}
	if c := binary.Contents[0]; c["blob"] != imagePNG || c["mimeType"] != "image/png" || c["uri"] != "test://static-binary" {
		t.Errorf("binary contents = %v", c)
	}
	if _, hasText := binary.Contents[0]["text"]; hasText {
		t.Errorf("binary contents carry text: %v", binary.Contents[0])
	}

	var list struct {
		Tools []struct {
			Name        string
			InputSchema json.RawMessage
		}
	}
	if err := json.Unmarshal(got[3], &list); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, tool := range list.Tools {
		if tool.Name != "json_schema_2020_12_tool" {
			continue
		}
		found = true
		var advertised, written any
		if err := json.Unmarshal(tool.InputSchema, &advertised); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(schemaInput), &written); err != nil {
			t.Fatal(err)
		}
		a, _ := json.Marshal(advertised)
		w, _ := json.Marshal(written)
		if string(a) != string(w) {
			t.Errorf("json_schema_2020_12_tool advertises\n%s\nwant\n%s", a, w)
		}
	}
	if !found {
		t.Error("tools/list lacks json_schema_2020_12_tool")
	}

	want := `{"content":[{"type":"text","text":"This tool intentionally returns an error for testing"}],"isError":true}`
	if string(got[4]) != want {
		t.Errorf("test_error_handling = %s, want %s", got[4], want)
	}
}

// The suite asks for completions of test_prompt_with_arguments' arguments.
func TestCompletesPromptArguments(t *testing.T) {
	got := exchange(t, `"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"test_prompt_with_arguments"},"argument":{"name":"arg1","value":"par"}}`)
	var res struct {
		Completion struct{ Values []string }
	}
	if err := json.Unmarshal(got[0], &res); err != nil {
		t.Fatal(err)
	}
	if want := []string{"park", "paris", "party"}; fmt.Sprint(res.Completion.Values) != fmt.Sprint(want) {
		t.Errorf("completion of arg1 %q = %v, want %v", "par", res.Completion.Values, want)
	}
}
