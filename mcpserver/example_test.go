package mcpserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"

	"github.com/kontext-dev/kontext/mcpserver"
)

// A server with one tool, driven over the in-memory transport in the modern
// era: discover, a call, and a call the schema refuses.
func Example() {
	greet := &mcpserver.Tool{
		Name:        "greet",
		Title:       "Greet",
		Description: "Greets someone.",
		Annotations: mcpserver.Annotations{ReadOnly: mcpserver.Bool(true), OpenWorld: mcpserver.Bool(false)},
		InputSchema: json.RawMessage(`{"type":"object","properties":{"who":{"type":"string","description":"whom"}},"required":["who"],"additionalProperties":false}`),
		Call: func(_ context.Context, args json.RawMessage) (*mcpserver.ToolResult, error) {
			var in struct{ Who string }
			if err := json.Unmarshal(args, &in); err != nil {
				return nil, err
			}
			return mcpserver.TextResult("Hello, " + in.Who + "!"), nil
		},
	}
	srv, err := mcpserver.New(mcpserver.Implementation{Name: "embedded", Version: "1.0.0"}, mcpserver.Options{},
		&mcpserver.Toolset{Name: "demo", Tools: []*mcpserver.Tool{greet}})
	if err != nil {
		panic(err)
	}
	serverEnd, clientEnd := mcpserver.NewInMemoryTransport()
	go srv.Serve(context.Background(), serverEnd)

	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	fmt.Fprintln(clientEnd, `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{`+meta+`}}`)
	fmt.Fprintln(clientEnd, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"greet","arguments":{"who":"Ada"},`+meta+`}}`)
	fmt.Fprintln(clientEnd, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"greet","arguments":{},`+meta+`}}`)
	clientEnd.Close()

	// Requests run concurrently, so answers may come in any order: print
	// them by id.
	answers := map[int]string{}
	lines := bufio.NewScanner(clientEnd)
	for lines.Scan() {
		var msg struct {
			ID     int `json:"id"`
			Result struct {
				SupportedVersions []string `json:"supportedVersions"`
				Content           []struct{ Text string }
			} `json:"result"`
			Error *struct{ Code int } `json:"error"`
		}
		json.Unmarshal(lines.Bytes(), &msg)
		switch {
		case msg.Error != nil:
			answers[msg.ID] = fmt.Sprint("error ", msg.Error.Code)
		case msg.Result.SupportedVersions != nil:
			answers[msg.ID] = fmt.Sprint(msg.Result.SupportedVersions)
		default:
			answers[msg.ID] = msg.Result.Content[0].Text
		}
	}
	for id := 1; id <= len(answers); id++ {
		fmt.Println(id, answers[id])
	}
	// Output:
	// 1 [2026-07-28 2025-11-25 2025-06-18 2025-03-26 2024-11-05]
	// 2 Hello, Ada!
	// 3 error -32602
}
