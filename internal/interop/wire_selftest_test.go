package interop_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWireValidatorCatchesFaults feeds the trace reader and the schema
// validator hand-written traces with known faults, so that a passing
// interop run means something: each fault must be reported, and the valid
// messages around it must not be.
func TestWireValidatorCatchesFaults(t *testing.T) {
	dir, ok := schemaDir()
	if !ok {
		t.Skipf("the official MCP schemas are not at %s (set KONTEXT_MCP_SCHEMA_DIR)", dir)
	}
	s := loadSchemas(dir)
	const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	trace := strings.Join([]string{
		// Legacy session.
		`{"out":false,"message":{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}}`,
		`{"out":true,"message":{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"s","version":"1"}}}}`,
		`{"out":false,"message":{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}}`,
		// fault 1: CallToolResult without content.
		`{"out":true,"message":{"jsonrpc":"2.0","id":2,"result":{"isError":false}}}`,
		`{"out":false,"message":{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"x"}}}}`,
		`{"out":true,"message":{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"x"}]}}}`,
		// fault 2: a notification no revision defines.
		`{"out":true,"message":{"jsonrpc":"2.0","method":"notifications/bogus","params":{}}}`,
		`{"out":true,"message":{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}}`,
		// fault 3 (pairing): a response to no request.
		`{"out":true,"message":{"jsonrpc":"2.0","id":99,"result":{}}}`,
		// fault 4 (pairing): an answer after notifications/cancelled.
		`{"out":false,"message":{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":10000}}}}`,
		`{"out":false,"message":{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":4}}}`,
		`{"out":true,"message":{"jsonrpc":"2.0","id":4,"result":{"content":[]}}}`,
		// Modern requests on the same connection.
		`{"out":false,"message":{"jsonrpc":"2.0","id":"m1","method":"tools/list","params":{` + modernMeta + `}}}`,
		// fault 5: a 2026-07-28 list result without resultType, ttlMs, cacheScope.
		`{"out":true,"message":{"jsonrpc":"2.0","id":"m1","result":{"tools":[]}}}`,
		`{"out":false,"message":{"jsonrpc":"2.0","id":"m2","method":"tools/list","params":{` + modernMeta + `}}}`,
		`{"out":true,"message":{"jsonrpc":"2.0","id":"m2","result":{"resultType":"complete","ttlMs":0,"cacheScope":"private","tools":[]}}}`,
		`{"out":false,"message":{"jsonrpc":"2.0","id":"m3","method":"server/discover","params":{` + modernMeta + `}}}`,
		// fault 6: -32022 without data.
		`{"out":true,"message":{"jsonrpc":"2.0","id":"m3","error":{"code":-32022,"message":"Unsupported protocol version"}}}`,
		// A batch: one valid member, one (fault 7) with a string progress.
		`{"out":false,"message":[{"jsonrpc":"2.0","id":"b1","method":"tools/call","params":{"name":"echo",` + modernMeta + `}},{"jsonrpc":"2.0","id":"b2","method":"tools/call","params":{"name":"echo",` + modernMeta + `}}]}`,
		`{"out":true,"message":[{"jsonrpc":"2.0","id":"b1","result":{"resultType":"complete","content":[]}},{"jsonrpc":"2.0","id":"b2","error":{"code":"oops","message":"x"}}]}`,
	}, "\n") + "\n"
	path := filepath.Join(t.TempDir(), "faults.jsonl")
	if err := os.WriteFile(path, []byte(trace), 0o644); err != nil {
		t.Fatal(err)
	}
	log, err := readTrace(path)
	if err != nil {
		t.Fatal(err)
	}

	wantProblems := []string{"id 99 answers no request", "answered request 4 (tools/call) after reading its notifications/cancelled"}
	if len(log.Problems) != len(wantProblems) {
		t.Errorf("pairing problems %q, want %d", log.Problems, len(wantProblems))
	}
	for _, want := range wantProblems {
		if !strings.Contains(strings.Join(log.Problems, "\n"), want) {
			t.Errorf("no pairing problem mentions %q (got %q)", want, log.Problems)
		}
	}

	faults := map[int][]string{} // trace line -> violated definitions
	for _, m := range log.out() {
		for _, v := range s.validateMsg(m) {
			faults[m.Line] = append(faults[m.Line], v.Def)
			t.Logf("caught: %s", v)
			if len(v.Details) == 0 || v.Details[0] == "" {
				t.Errorf("line %d: a violation without details: %+v", m.Line, v)
			}
		}
	}
	want := map[int]string{
		4:  "2025-06-18#CallToolResult",
		7:  "2025-06-18#ServerNotification",
		14: "2026-07-28#ListToolsResult",
		18: "2026-07-28#UnsupportedProtocolVersionError",
		20: "2026-07-28#JSONRPCErrorResponse",
	}
	for line, def := range want {
		if !strings.Contains(strings.Join(faults[line], " "), def) {
			t.Errorf("line %d: violations %v, want one of %s", line, faults[line], def)
		}
	}
	for line, defs := range faults {
		if _, ok := want[line]; !ok {
			t.Errorf("line %d: unexpected violations %v", line, defs)
		}
	}
	if got := log.Msgs[1].Revision; got != "2025-06-18" {
		t.Errorf("the initialize result was read as %s, want 2025-06-18", got)
	}
}
