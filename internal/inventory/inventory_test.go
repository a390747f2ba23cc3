package inventory_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/kontext-dev/kontext/internal/cli"
	"github.com/kontext-dev/kontext/internal/fsroot"
	"github.com/kontext-dev/kontext/internal/inventory"
	"github.com/kontext-dev/kontext/internal/knowledge"
	"github.com/kontext-dev/kontext/internal/mcp"
	"github.com/kontext-dev/kontext/internal/mcptest"
)

var update = flag.Bool("update", false, "rewrite the tool snapshots in testdata/tools")

// all is every toolset there is: the shipped ones and the test kit.
func all() []cli.ToolsetFactory {
	return append(inventory.Shipped(), mcptest.Factory())
}

// serve starts a server with every toolset and returns the raw tools/list
// result of a 2025-11-25 session.
func serve(t *testing.T) (*mcp.Server, json.RawMessage) {
	t.Helper()
	root, err := fsroot.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var sets []*mcp.Toolset
	for _, f := range all() {
		ts, _, err := f.Open(root)
		if err != nil {
			t.Fatal(err)
		}
		sets = append(sets, ts)
	}
	srv, err := mcp.NewServer(mcp.Implementation{Name: "kontext", Version: "test"}, mcp.Options{PageSize: 1000}, sets...)
	if err != nil {
		t.Fatal(err)
	}
	serverEnd, clientEnd := mcp.NewInMemoryTransport()
	go srv.Serve(context.Background(), serverEnd)
	defer clientEnd.Close()
	clientEnd.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}` + "\n"))
	clientEnd.Write([]byte(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}` + "\n"))
	sc := bufio.NewScanner(clientEnd)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var resp struct {
			ID     int             `json:"id"`
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal(sc.Bytes(), &resp); err != nil {
			t.Fatal(err)
		}
		if resp.ID == 2 {
			return srv, append(json.RawMessage(nil), resp.Result...)
		}
	}
	t.Fatal("no tools/list answer")
	return nil, nil
}

type advertised struct {
	Tools []struct {
		Name        string          `json:"name"`
		InputSchema json.RawMessage `json:"inputSchema"`
	} `json:"tools"`
}

// TestAdvertisedIsValidated proves, for every tool, that the bytes tools/list
// sends as inputSchema are the bytes the argument validator compiled.
func TestAdvertisedIsValidated(t *testing.T) {
	srv, result := serve(t)
	var list advertised
	if err := json.Unmarshal(result, &list); err != nil {
		t.Fatal(err)
	}
	listed := 0
	for _, tool := range srv.Tools() {
		if !tool.Hidden {
			listed++
		}
	}
	if len(list.Tools) != listed {
		t.Fatalf("advertised %d tools, serving %d listed ones", len(list.Tools), listed)
	}
	for _, tool := range list.Tools {
		compiled, ok := srv.ValidatedSchema(tool.Name)
		if !ok {
			t.Errorf("%s: advertised but has no validator", tool.Name)
			continue
		}
		if !bytes.Equal(tool.InputSchema, compiled) {
			t.Errorf("%s: advertised schema differs from the compiled one\nadvertised: %s\ncompiled:   %s", tool.Name, tool.InputSchema, compiled)
		}
	}
}

// TestShippedSchemasCompile compiles every shipped tool's input schema:
// the server compiles each only when the tool is first called, so a schema
// the validator refuses would otherwise surface on a user's first call.
func TestShippedSchemasCompile(t *testing.T) {
	srv, _ := serve(t)
	if err := srv.CompileSchemas(); err != nil {
		t.Fatal(err)
	}
}

// TestToolSnapshots compares each tool's advertised definition with
// testdata/tools/<tool>.json byte for byte; -update rewrites them (and
// removes those of tools that are gone); a missing or orphaned snapshot
// fails.
func TestToolSnapshots(t *testing.T) {
	_, result := serve(t)
	var list struct {
		Tools []json.RawMessage `json:"tools"`
	}
	if err := json.Unmarshal(result, &list); err != nil {
		t.Fatal(err)
	}
	served := map[string]bool{}
	for _, raw := range list.Tools {
		var named struct {
			Name string `json:"name"`
		}
		json.Unmarshal(raw, &named)
		var pretty bytes.Buffer
		json.Indent(&pretty, raw, "", "  ")
		pretty.WriteByte('\n')
		file := filepath.Join("testdata", "tools", named.Name+".json")
		served[file] = true
		if *update {
			os.MkdirAll(filepath.Dir(file), 0o755)
			if err := os.WriteFile(file, pretty.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(file)
		if err != nil {
			t.Errorf("%s: no snapshot (go test ./internal/inventory -run TestToolSnapshots -update writes it): %v", named.Name, err)
			continue
		}
		if !bytes.Equal(want, pretty.Bytes()) {
			t.Errorf("%s: the advertised definition changed (rerun with -update if intended)\nwant:\n%s\ngot:\n%s", named.Name, want, pretty.Bytes())
		}
	}
	files, err := filepath.Glob(filepath.Join("testdata", "tools", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range files {
		if served[file] {
			continue
		}
		if *update {
			if err := os.Remove(file); err != nil {
				t.Fatal(err)
			}
			continue
		}
		t.Errorf("%s: a snapshot of no served tool (rerun with -update to remove it)", file)
	}
}

var toolName = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`)

// TestInventory lints every tool definition of every toolset.
func TestInventory(t *testing.T) {
	names := map[string]bool{}
	for _, f := range all() {
		ts := f.Describe()
		if ts.Name != f.Name {
			t.Errorf("factory %s describes toolset %s", f.Name, ts.Name)
		}
		for _, tool := range ts.Tools {
			if !toolName.MatchString(tool.Name) {
				t.Errorf("%s: not a valid MCP tool name", tool.Name)
			}
			if names[tool.Name] {
				t.Errorf("%s: defined twice", tool.Name)
			}
			names[tool.Name] = true
			if tool.Annotations.ReadOnly == nil || tool.Annotations.OpenWorld == nil {
				t.Errorf("%s: readOnlyHint and openWorldHint must be explicit", tool.Name)
			}
			if tool.Title == "" || tool.Description == "" {
				t.Errorf("%s: needs a title and a description", tool.Name)
			}
			var schema struct {
				Type                 string                     `json:"type"`
				Properties           map[string]json.RawMessage `json:"properties"`
				AdditionalProperties *bool                      `json:"additionalProperties"`
				AnyOf, OneOf, AllOf  []json.RawMessage
			}
			if err := json.Unmarshal(tool.InputSchema, &schema); err != nil {
				t.Errorf("%s: input schema: %v", tool.Name, err)
				continue
			}
			if schema.Type != "object" || schema.AdditionalProperties == nil || *schema.AdditionalProperties {
				t.Errorf("%s: input schema must be an object with additionalProperties: false", tool.Name)
			}
			if schema.AnyOf != nil || schema.OneOf != nil || schema.AllOf != nil {
				t.Errorf("%s: no combinator at the root of an input schema (clients reject them)", tool.Name)
			}
			for prop, raw := range schema.Properties {
				var p struct {
					Description string `json:"description"`
				}
				json.Unmarshal(raw, &p)
				if p.Description == "" {
					t.Errorf("%s.%s: every parameter needs a description", tool.Name, prop)
				}
			}
			if f.Flags(tool.Name) == nil && len(schema.Properties) > 0 {
				t.Errorf("%s: has parameters but no CLI flags", tool.Name)
			}
		}
	}
}

// The knowledge verbs are the commands the knowledge toolset's replies
// name when they answer a shell (knowledge.ToolVerbs): the two agree.
func TestKnowledgeVerbsAgree(t *testing.T) {
	verbs, args := map[string]string{}, map[string]string{}
	for _, v := range inventory.Knowledge().Verbs {
		verbs[v.Tool] = v.Name
		// A verb of one positional argument takes it bare in the replies
		// (kontext read git:abc1234); the others' arguments are flags.
		if len(v.Args) == 1 {
			args[v.Tool] = v.Args[0]
		}
	}
	if !reflect.DeepEqual(verbs, knowledge.ToolVerbs) || !reflect.DeepEqual(args, knowledge.ToolVerbArgs) {
		t.Errorf("the toolset's verbs %v (arguments %v) differ from knowledge.ToolVerbs %v (%v)", verbs, args, knowledge.ToolVerbs, knowledge.ToolVerbArgs)
	}
}

// TestEveryArgumentIsBounded (issue 8.6) walks every parameter of every
// advertised input schema, alternatives, items and fields included: a
// string states maxLength unless it is an enum, an array maxItems, an
// integer its range unless it is an enum — or, clamped, its minimum and a
// description that says where it is clamped.
func TestEveryArgumentIsBounded(t *testing.T) {
	_, result := serve(t)
	var list advertised
	if err := json.Unmarshal(result, &list); err != nil {
		t.Fatal(err)
	}
	type node = map[string]any
	var walk func(where string, s node, clampNote bool)
	walk = func(where string, s node, clampNote bool) {
		if d, ok := s["description"].(string); ok && strings.Contains(d, "is clamped to") {
			clampNote = true
		}
		for _, alt := range asList(s["anyOf"]) {
			walk(where, alt.(node), clampNote)
		}
		_, enum := s["enum"]
		switch s["type"] {
		case "string":
			if _, ok := s["maxLength"]; !ok && !enum {
				t.Errorf("%s: a string without maxLength", where)
			}
		case "array":
			if _, ok := s["maxItems"]; !ok {
				t.Errorf("%s: an array without maxItems", where)
			}
			if items, ok := s["items"].(node); ok {
				walk(where+"[]", items, false)
			}
		case "integer":
			_, min := s["minimum"]
			_, max := s["maximum"]
			if !enum && !(min && (max || clampNote)) {
				t.Errorf("%s: an integer without its range", where)
			}
		case "object":
			for name, p := range asMap(s["properties"]) {
				walk(where+"."+name, p.(node), false)
			}
		}
	}
	params := 0
	for _, tool := range list.Tools {
		var s node
		if err := json.Unmarshal(tool.InputSchema, &s); err != nil {
			t.Fatal(err)
		}
		for name, p := range asMap(s["properties"]) {
			params++
			walk(tool.Name+"."+name, p.(map[string]any), false)
		}
	}
	if params < 60 {
		t.Fatalf("only %d parameters walked", params)
	}
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}
