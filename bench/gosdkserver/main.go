// Command gosdkserver is the official Go SDK's contender in bench/mcpbench
// and bench/httpbench: an MCP server built with
// github.com/modelcontextprotocol/go-sdk the way its documentation shows,
// serving the same tools as kontext.
//
// Its tools come from -tools, a tools/list result that mcpbench takes from
// kontext before the run, so that both servers advertise the same names,
// descriptions and schemas and a tools/list answer weighs about the same:
// the comparison is then of the runtimes, not of the payloads. The tools
// are registered with Server.AddTool (raw schemas, no validation), and
// calling any of them answers with one text block. One more tool, add,
// is registered with the generic mcp.AddTool (inferred schema, validated
// arguments, structured result) for the tools/call measurement.
//
// With -http ADDR it serves the same server over streamable HTTP at
// http://ADDR/mcp (mcp.NewStreamableHTTPHandler, the SDK's defaults) for
// bench/httpbench, and prints that URL on stderr once it listens, so that
// port 0 can be used.
//
// It is built and run by mcpbench and httpbench only, never by go test.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// listedTool is one tool of a tools/list result, its schemas kept as the
// bytes kontext advertised.
type listedTool struct {
	Name         string               `json:"name"`
	Title        string               `json:"title"`
	Description  string               `json:"description"`
	InputSchema  json.RawMessage      `json:"inputSchema"`
	OutputSchema json.RawMessage      `json:"outputSchema"`
	Annotations  *mcp.ToolAnnotations `json:"annotations"`
}

type addArgs struct {
	A float64 `json:"a" jsonschema:"the first addend"`
	B float64 `json:"b" jsonschema:"the second addend"`
}

type addResult struct {
	Sum float64 `json:"sum"`
}

func main() {
	toolsFile := flag.String("tools", "", "a tools/list result whose tools to serve")
	httpAddr := flag.String("http", "", "serve streamable HTTP at http://`ADDR`/mcp instead of stdio (port 0 picks one)")
	flag.Parse()

	server := mcp.NewServer(&mcp.Implementation{Name: "gosdk-bench", Version: "1.0.0"}, nil)
	if *toolsFile != "" {
		raw, err := os.ReadFile(*toolsFile)
		if err != nil {
			log.Fatal(err)
		}
		var list struct {
			Tools []listedTool `json:"tools"`
		}
		if err := json.Unmarshal(raw, &list); err != nil {
			log.Fatalf("%s: %v", *toolsFile, err)
		}
		for _, t := range list.Tools {
			tool := &mcp.Tool{Name: t.Name, Title: t.Title, Description: t.Description, InputSchema: t.InputSchema, Annotations: t.Annotations}
			if len(t.OutputSchema) > 0 {
				tool.OutputSchema = t.OutputSchema
			}
			server.AddTool(tool, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
			})
		}
	}
	mcp.AddTool(server, &mcp.Tool{Name: "add", Description: "Adds two numbers."},
		func(_ context.Context, _ *mcp.CallToolRequest, args addArgs) (*mcp.CallToolResult, addResult, error) {
			return nil, addResult{Sum: args.A + args.B}, nil
		})
	if *httpAddr != "" {
		serveHTTP(server, *httpAddr)
		return
	}
	if err := server.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// serveHTTP serves server at /mcp on addr until the process is killed.
func serveHTTP(server *mcp.Server, addr string) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
	fmt.Fprintf(os.Stderr, "gosdkserver: serving MCP at http://%s/mcp\n", ln.Addr())
	log.Fatal(http.Serve(ln, mux))
}
