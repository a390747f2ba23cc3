package inventory_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/kontext-dev/kontext/internal/mcp"
)

// errHandlerReached stands for the handler: decoding succeeded.
var errHandlerReached = errors.New("the handler was reached")

// FuzzNoDrift: whatever a shipped tool's advertised schema accepts, its
// generated decoder accepts too — digits, clamped values, aliases, 10.0 and
// lists as strings included — so no argument the schema lets through is
// refused after validation. (The decoder runs inside the tool's generated
// Call; a nil handler stops it there: the panic means decoding passed.)
func FuzzNoDrift(f *testing.F) {
	type target struct {
		tool   *mcp.Tool
		schema *jsonschema.Schema
	}
	var targets []target
	for _, factory := range all() {
		for _, tool := range factory.Describe().Tools {
			doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(tool.InputSchema))
			if err != nil {
				f.Fatal(err)
			}
			c := jsonschema.NewCompiler()
			c.DefaultDraft(jsonschema.Draft2020)
			url := "kontext:///" + tool.Name + ".json"
			if err := c.AddResource(url, doc); err != nil {
				f.Fatal(err)
			}
			s, err := c.Compile(url)
			if err != nil {
				f.Fatal(err)
			}
			targets = append(targets, target{tool, s})
		}
	}
	seeds := []string{
		`{"query":"x","limit":"100","kinds":"adr, gotcha","budget_tokens":"020000"}`,
		`{"query":"x","limit":1e300,"kinds":["rule"],"sources":"local"}`,
		`{"query":"x","limit":10.0,"budget_tokens":100}`,
		`{"uri":"kx:a","level":"2"}`,
		`{"target":"a:1-2","limit":"99999999999999999999"}`,
		`{"kind":"adr","limit":"5000","all":true}`,
		`{"count":"9","bootstrap":false}`,
		`{"focus":"a, b,,c","budget_tokens":40000}`,
		`{"task_id":"dec:x","decisions":[{"title":"t","decision":"d","paths":"a,b","commits":["abc"],"tags":"x"}],"learnings":[{"title":"t","body":"b","tags":"a,,b"}]}`,
		`{"kind":"decision","title":"t","body":"b","paths":"src/**","tags":["a"],"supersedes":"x,y","status":"accepted"}`,
		`{"action":"show","ids":"a,b"}`,
		`{"promote":"a","drop":["b"]}`,
		`{"module":"m","maxModules":12.0,"detail":"full"}`,
		`{"maxModules":100,"maxCycles":0,"maxEntryPoints":200.0}`,
		`{"query":"q","limit":100,"types":["file","module"]}`,
		`{"target":"t","maxFiles":1e2}`,
		`{"revision":"HEAD","base":"HEAD~1"}`,
		`{"color":"red","tags":"a,b","point":{"x":1.0,"y":-2},"level":2}`,
		`{"text":"a","repeat":5.0,"upper":true}`,
		`{"ms":0,"steps":1e2}`,
	}
	for _, s := range seeds {
		for j := range targets {
			f.Add(uint(j), s)
		}
	}
	f.Fuzz(func(t *testing.T, which uint, args string) {
		tg := targets[which%uint(len(targets))]
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(args)))
		if err != nil || tg.schema.Validate(inst) != nil {
			return
		}
		err = decodeOnly(tg.tool, json.RawMessage(args))
		if !errors.Is(err, errHandlerReached) {
			t.Fatalf("%s: the schema accepts %s, the decoder refuses it: %v", tg.tool.Name, args, err)
		}
	})
}

// decodeOnly runs a described tool's generated Call up to its (nil)
// handler. A panic inside the decoder is a failure, not the handler.
func decodeOnly(tool *mcp.Tool, args json.RawMessage) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = errHandlerReached
			if stack := string(debug.Stack()); strings.Contains(stack, "mcp.DecodeArguments(") {
				err = fmt.Errorf("the decoder panicked: %v\n%s", r, stack)
			}
		}
	}()
	_, err = tool.Call(context.Background(), args)
	if err == nil {
		return fmt.Errorf("a nil handler answered")
	}
	return err
}
