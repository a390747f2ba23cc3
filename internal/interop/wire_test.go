package interop_test

// Wire analysis of KONTEXT_TRACE files and their validation against the
// official MCP JSON Schemas.
//
// Every server process a test starts records each line it reads and writes
// ({"out": bool, "message": <message or batch>}). readTrace pairs every
// response with the request it answers (by id, in order), works out the
// protocol revision each message belongs to, and notes cancellations;
// validateWire checks each message the server wrote against the schema of
// that revision: the JSON-RPC envelope, the result definition of the
// request's method, the error definition of the error code, the
// ServerNotification union for notifications.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

const (
	firstModern   = "2026-07-28"
	defaultLegacy = "2025-11-25" // what kontext assumes before initialize
)

// wireReq is a request the server read.
type wireReq struct {
	Key      string // the id, as compact JSON
	Method   string
	Params   json.RawMessage
	Revision string
	Line     int
	// Answers counts the responses written for it.
	Answers int
	// CancelLine is the trace line of the client's notifications/cancelled
	// for it (0: never cancelled).
	CancelLine int
	// AnsweredAfterCancel is set when a response was written after the
	// server read the cancellation.
	AnsweredAfterCancel bool
}

// wireMsg is one message (or one member of a batch) in a trace.
type wireMsg struct {
	Trace    string
	Line     int
	Out      bool
	Batch    bool
	Raw      json.RawMessage
	Kind     string // request, notification, response
	Method   string // of a request or notification
	Key      string // id of a request or response
	Revision string
	Req      *wireReq // the request a response answers
	Result   json.RawMessage
	Error    json.RawMessage
}

func (m *wireMsg) String() string {
	dir := "in"
	if m.Out {
		dir = "out"
	}
	what := m.Method
	if m.Kind == "response" {
		what = "response"
		if m.Req != nil {
			what = "response to " + m.Req.Method
		}
	}
	if m.Key != "" {
		what += " (id " + m.Key + ")"
	}
	return fmt.Sprintf("%s:%d %s %s [%s]", filepath.Base(m.Trace), m.Line, dir, what, m.Revision)
}

// wireLog is a trace, read.
type wireLog struct {
	Path     string
	Msgs     []*wireMsg
	Requests []*wireReq
	// Problems are protocol faults found while pairing (a response to no
	// request, two responses to one request, a response after a cancel).
	Problems []string
}

// readTrace reads and pairs one trace file.
func readTrace(path string) (*wireLog, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	log := &wireLog{Path: path}
	st := &traceState{pending: map[string]*wireReq{}, progress: map[string]string{}, listens: map[string]string{}, lastRev: defaultLegacy}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	line := 0
	for sc.Scan() {
		line++
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue // a line that was not JSON cannot be recorded
		}
		var rec struct {
			Out     bool            `json:"out"`
			Message json.RawMessage `json:"message"`
		}
		if err := json.Unmarshal(text, &rec); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, line, err)
		}
		var members []json.RawMessage
		batch := len(rec.Message) > 0 && rec.Message[0] == '['
		if batch {
			if err := json.Unmarshal(rec.Message, &members); err != nil {
				return nil, fmt.Errorf("%s:%d: %v", path, line, err)
			}
		} else {
			members = []json.RawMessage{rec.Message}
		}
		for _, raw := range members {
			m, err := st.accept(log, path, line, rec.Out, batch, raw)
			if err != nil {
				return nil, err
			}
			log.Msgs = append(log.Msgs, m)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return log, nil
}

type traceState struct {
	legacy   string              // negotiated by initialize
	lastRev  string              // of the last request read
	pending  map[string]*wireReq // requests read and not yet answered
	progress map[string]string   // progressToken -> revision of its request
	listens  map[string]string   // subscriptions/listen id -> revision
}

type envelope struct {
	ID     json.RawMessage `json:"id"`
	Method *string         `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

type paramsMeta struct {
	Meta struct {
		ProtocolVersion any             `json:"io.modelcontextprotocol/protocolVersion"`
		ProgressToken   json.RawMessage `json:"progressToken"`
		SubscriptionID  json.RawMessage `json:"io.modelcontextprotocol/subscriptionId"`
	} `json:"_meta"`
	ProtocolVersion string          `json:"protocolVersion"` // initialize
	RequestID       json.RawMessage `json:"requestId"`       // notifications/cancelled
	ProgressToken   json.RawMessage `json:"progressToken"`   // notifications/progress
}

func compact(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

func (st *traceState) accept(log *wireLog, path string, line int, out, batch bool, raw json.RawMessage) (*wireMsg, error) {
	var env envelope
	if err := json.Unmarshal(raw, &env); err != nil {
		return nil, fmt.Errorf("%s:%d: not a JSON-RPC object: %v", path, line, err)
	}
	var pm paramsMeta
	if len(env.Params) > 0 && env.Params[0] == '{' {
		_ = json.Unmarshal(env.Params, &pm)
	}
	m := &wireMsg{Trace: path, Line: line, Out: out, Batch: batch, Raw: raw, Result: env.Result, Error: env.Error}
	if len(env.ID) > 0 && string(env.ID) != "null" {
		m.Key = compact(env.ID)
	}
	switch {
	case env.Method != nil && len(env.ID) > 0:
		m.Kind, m.Method = "request", *env.Method
	case env.Method != nil:
		m.Kind, m.Method = "notification", *env.Method
	default:
		m.Kind = "response"
	}
	if !out {
		switch m.Kind {
		case "request":
			rev := st.legacy
			if v, ok := pm.Meta.ProtocolVersion.(string); ok && v >= firstModern {
				rev = v
			} else if rev == "" {
				rev = defaultLegacy
				if m.Method == "initialize" && pm.ProtocolVersion != "" {
					rev = pm.ProtocolVersion
				}
			}
			m.Revision = rev
			st.lastRev = rev
			req := &wireReq{Key: m.Key, Method: m.Method, Params: env.Params, Revision: rev, Line: line}
			log.Requests = append(log.Requests, req)
			st.pending[m.Key] = req
			if len(pm.Meta.ProgressToken) > 0 {
				st.progress[compact(pm.Meta.ProgressToken)] = rev
			}
			if m.Method == "subscriptions/listen" {
				st.listens[m.Key] = rev
			}
		case "notification":
			m.Revision = st.lastRev
			if m.Method == "notifications/cancelled" && len(pm.RequestID) > 0 {
				if req := st.pending[compact(pm.RequestID)]; req != nil && req.CancelLine == 0 {
					req.CancelLine = line
				}
			}
		}
		return m, nil
	}
	switch m.Kind {
	case "response":
		req := st.pending[m.Key]
		if req == nil {
			// A second answer, or an answer to nothing the server read.
			for _, r := range slices.Backward(log.Requests) {
				if r.Key == m.Key {
					req = r
					break
				}
			}
			if req != nil {
				log.Problems = append(log.Problems, fmt.Sprintf("%s:%d: a second response to request %s (%s, line %d)", filepath.Base(path), line, m.Key, req.Method, req.Line))
			} else if m.Key != "" {
				log.Problems = append(log.Problems, fmt.Sprintf("%s:%d: a response with id %s answers no request the server read", filepath.Base(path), line, m.Key))
			}
		}
		delete(st.pending, m.Key)
		m.Req = req
		m.Revision = st.lastRev
		if req != nil {
			req.Answers++
			m.Revision = req.Revision
			if req.CancelLine > 0 {
				req.AnsweredAfterCancel = true
				log.Problems = append(log.Problems, fmt.Sprintf("%s:%d: answered request %s (%s) after reading its notifications/cancelled (line %d)", filepath.Base(path), line, m.Key, req.Method, req.CancelLine))
			}
			if req.Method == "initialize" && len(env.Result) > 0 {
				var res struct {
					ProtocolVersion string `json:"protocolVersion"`
				}
				if json.Unmarshal(env.Result, &res) == nil && res.ProtocolVersion != "" {
					st.legacy = res.ProtocolVersion
					m.Revision = res.ProtocolVersion
				}
			}
		}
	case "notification":
		switch {
		case len(pm.Meta.SubscriptionID) > 0:
			m.Revision = firstModern
			if rev, ok := st.listens[compact(pm.Meta.SubscriptionID)]; ok {
				m.Revision = rev
			}
		case m.Method == "notifications/progress" && st.progress[compact(pm.ProgressToken)] != "":
			m.Revision = st.progress[compact(pm.ProgressToken)]
		case st.legacy != "":
			m.Revision = st.legacy
		default:
			m.Revision = st.lastRev
		}
	case "request":
		m.Revision = st.lastRev
		if st.legacy != "" {
			m.Revision = st.legacy
		}
	}
	return m, nil
}

// find returns the requests of a method whose params satisfy pred.
func (l *wireLog) find(method string, pred func(params map[string]any) bool) []*wireReq {
	var out []*wireReq
	for _, r := range l.Requests {
		if r.Method != method {
			continue
		}
		var p map[string]any
		_ = json.Unmarshal(r.Params, &p)
		if pred == nil || pred(p) {
			out = append(out, r)
		}
	}
	return out
}

// out returns the messages the server wrote.
func (l *wireLog) out() []*wireMsg {
	var out []*wireMsg
	for _, m := range l.Msgs {
		if m.Out {
			out = append(out, m)
		}
	}
	return out
}

// isSleep matches a tools/call of sleep for ms milliseconds.
func isSleep(ms float64) func(map[string]any) bool {
	return func(p map[string]any) bool {
		args, _ := p["arguments"].(map[string]any)
		return p["name"] == "sleep" && args["ms"] == ms
	}
}

// readTraces reads every trace file.
func readTraces(t *testing.T, paths []string) []*wireLog {
	t.Helper()
	var logs []*wireLog
	for _, p := range paths {
		l, err := readTrace(p)
		if err != nil {
			t.Fatal(err)
		}
		logs = append(logs, l)
	}
	return logs
}

// checkPairing fails t on every pairing problem (responses to nothing,
// duplicate responses, answers after a cancellation).
func checkPairing(t *testing.T, logs []*wireLog) {
	t.Helper()
	for _, l := range logs {
		for _, p := range l.Problems {
			t.Error(p)
		}
	}
}

// checkCancelled asserts that the server read a notifications/cancelled for
// every tools/call sleep of ms milliseconds and never answered it.
func checkCancelled(t *testing.T, logs []*wireLog, ms float64) {
	t.Helper()
	n := 0
	for _, l := range logs {
		for _, r := range l.find("tools/call", isSleep(ms)) {
			n++
			if r.CancelLine == 0 {
				t.Errorf("%s: the sleep %v ms request %s (line %d) was never cancelled on the wire", filepath.Base(l.Path), ms, r.Key, r.Line)
			}
			if r.Answers > 0 {
				t.Errorf("%s: the cancelled sleep request %s (line %d) was answered %d time(s)", filepath.Base(l.Path), r.Key, r.Line, r.Answers)
			}
		}
	}
	if n == 0 {
		t.Errorf("no tools/call sleep %v ms in the traces", ms)
	}
}

// checkUnanswered is checkCancelled for a client that cancels by closing
// the response stream of its POST, as 2026-07-28 over streamable HTTP does:
// that leaves no message in a trace, so the trace can only show that the
// request was never answered. That still tells a cancelled request from one
// left running: a server being stopped waits for the requests still running
// and traces their answers even when no client reads them (with the stream
// close not cancelling, the 10 s sleep shows up here as answered once).
func checkUnanswered(t *testing.T, logs []*wireLog, ms float64) {
	t.Helper()
	n := 0
	for _, l := range logs {
		for _, r := range l.find("tools/call", isSleep(ms)) {
			n++
			if r.Answers > 0 {
				t.Errorf("%s: the cancelled sleep request %s (line %d) was answered %d time(s)", filepath.Base(l.Path), r.Key, r.Line, r.Answers)
			}
		}
	}
	if n == 0 {
		t.Errorf("no tools/call sleep %v ms in the traces", ms)
	}
}

// --- schema validation ---

// schemaSet compiles definitions of the official schemas on demand.
type schemaSet struct {
	dir string

	mu        sync.Mutex
	compilers map[string]*jsonschema.Compiler
	urls      map[string]string
	defsKey   map[string]string
	defs      map[string]map[string]bool
	compiled  map[string]*jsonschema.Schema
}

var (
	schemasOnce sync.Once
	schemas     *schemaSet
)

func loadSchemas(dir string) *schemaSet {
	schemasOnce.Do(func() {
		schemas = &schemaSet{
			dir:       dir,
			compilers: map[string]*jsonschema.Compiler{},
			urls:      map[string]string{},
			defsKey:   map[string]string{},
			defs:      map[string]map[string]bool{},
			compiled:  map[string]*jsonschema.Schema{},
		}
	})
	return schemas
}

// revision loads one revision's schema.json.
func (s *schemaSet) revision(rev string) error {
	if _, ok := s.compilers[rev]; ok {
		return nil
	}
	path, err := filepath.Abs(filepath.Join(s.dir, rev, "schema.json"))
	if err != nil {
		return err
	}
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("no official schema for revision %q: %v", rev, err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	obj, _ := doc.(map[string]any)
	key := "$defs"
	if _, ok := obj[key]; !ok {
		key = "definitions"
	}
	defs, _ := obj[key].(map[string]any)
	if len(defs) == 0 {
		return fmt.Errorf("%s has neither $defs nor definitions", path)
	}
	names := map[string]bool{}
	for name := range defs {
		names[name] = true
	}
	url := "file://" + filepath.ToSlash(path)
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(url, doc); err != nil {
		return err
	}
	s.compilers[rev], s.urls[rev], s.defsKey[rev], s.defs[rev] = c, url, key, names
	return nil
}

// has reports whether a revision defines name.
func (s *schemaSet) has(rev, name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.revision(rev) != nil {
		return false
	}
	return s.defs[rev][name]
}

// defProps reports whether a definition declares a property (to tell error
// objects from whole error responses).
func (s *schemaSet) defHasProperty(rev, name, prop string) bool {
	sch, err := s.schema(rev, name)
	if err != nil || sch == nil {
		return false
	}
	if sch.Properties != nil {
		_, ok := sch.Properties[prop]
		return ok
	}
	return false
}

func (s *schemaSet) schema(rev, name string) (*jsonschema.Schema, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.revision(rev); err != nil {
		return nil, err
	}
	if !s.defs[rev][name] {
		return nil, fmt.Errorf("revision %s defines no %q", rev, name)
	}
	loc := s.urls[rev] + "#/" + s.defsKey[rev] + "/" + name
	if sch, ok := s.compiled[loc]; ok {
		return sch, nil
	}
	sch, err := s.compilers[rev].Compile(loc)
	if err != nil {
		return nil, fmt.Errorf("compiling %s: %v", loc, err)
	}
	s.compiled[loc] = sch
	return sch, nil
}

// violation is one way a message breaks its revision's schema.
type violation struct {
	Msg     *wireMsg
	Def     string // revision#definition
	Details []string
}

func (v violation) String() string {
	excerpt := string(v.Msg.Raw)
	if len(excerpt) > 600 {
		excerpt = excerpt[:600] + "…"
	}
	return fmt.Sprintf("%s violates %s:\n    %s\n    message: %s", v.Msg, v.Def, strings.Join(v.Details, "\n    "), excerpt)
}

// check validates instance (raw JSON) against a definition; a missing
// definition is itself a violation.
func (s *schemaSet) check(m *wireMsg, rev, def string, raw json.RawMessage) *violation {
	where := rev + "#" + def
	sch, err := s.schema(rev, def)
	if err != nil {
		return &violation{Msg: m, Def: where, Details: []string{err.Error()}}
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return &violation{Msg: m, Def: where, Details: []string{"not JSON: " + err.Error()}}
	}
	err = sch.Validate(inst)
	if err == nil {
		return nil
	}
	verr, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return &violation{Msg: m, Def: where, Details: []string{err.Error()}}
	}
	s.mu.Lock()
	base := "#/" + s.defsKey[rev] + "/" + def
	s.mu.Unlock()
	return &violation{Msg: m, Def: where, Details: outputUnits(verr, base)}
}

// outputUnits flattens a validation error into "at <instance>: <error>
// (schema <location>)" lines, deepest first, at most 12. base is the
// location of the definition validated against.
func outputUnits(verr *jsonschema.ValidationError, base string) []string {
	out := verr.BasicOutput()
	var lines []string
	for _, u := range out.Errors {
		if u.Error == nil {
			continue
		}
		loc := u.AbsoluteKeywordLocation
		if i := strings.Index(loc, "#"); i >= 0 {
			loc = loc[i:]
		} else {
			loc = base + u.KeywordLocation
		}
		inst := u.InstanceLocation
		if inst == "" {
			inst = "/"
		}
		lines = append(lines, fmt.Sprintf("at %s: %s (schema %s)", inst, u.Error.String(), loc))
	}
	sort.SliceStable(lines, func(i, j int) bool { return strings.Count(lines[i], "/") > strings.Count(lines[j], "/") })
	if len(lines) > 12 {
		lines = append(lines[:12], fmt.Sprintf("… %d more", len(lines)-12))
	}
	if len(lines) == 0 {
		lines = []string{verr.Error()}
	}
	return lines
}

// resultDefs names the result definition of each method the server answers.
var resultDefs = map[string]string{
	"initialize":               "InitializeResult",
	"ping":                     "EmptyResult",
	"logging/setLevel":         "EmptyResult",
	"server/discover":          "DiscoverResult",
	"tools/list":               "ListToolsResult",
	"tools/call":               "CallToolResult",
	"prompts/list":             "ListPromptsResult",
	"prompts/get":              "GetPromptResult",
	"resources/list":           "ListResourcesResult",
	"resources/templates/list": "ListResourceTemplatesResult",
	"resources/read":           "ReadResourceResult",
	"resources/subscribe":      "EmptyResult",
	"resources/unsubscribe":    "EmptyResult",
	"subscriptions/listen":     "SubscriptionsListenResult",
	"completion/complete":      "CompleteResult",
}

// errorDefs names the definition of each error code, where a revision has
// one (2026-07-28 defines most; older revisions only the generic error).
var errorDefs = map[int64]string{
	-32700: "ParseError",
	-32600: "InvalidRequestError",
	-32601: "MethodNotFoundError",
	-32602: "InvalidParamsError",
	-32603: "InternalError",
	-32020: "HeaderMismatchError",
	-32021: "MissingRequiredClientCapabilityError",
	-32022: "UnsupportedProtocolVersionError",
	-32042: "URLElicitationRequiredError",
}

func firstDef(s *schemaSet, rev string, names ...string) string {
	for _, n := range names {
		if s.has(rev, n) {
			return n
		}
	}
	return names[0]
}

// effective returns the revision whose schema judges a message: its own, or,
// for a modern revision newer than any schema here (a client asked for a
// future version and was refused), the newest modern schema.
func (s *schemaSet) effective(rev string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.revision(rev) == nil || rev < firstModern {
		return rev
	}
	entries, _ := os.ReadDir(s.dir)
	newest := rev
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() && name >= firstModern && name[0] >= '0' && name[0] <= '9' && (newest == rev || name > newest) {
			if _, err := os.Stat(filepath.Join(s.dir, name, "schema.json")); err == nil {
				newest = name
			}
		}
	}
	return newest
}

// validateMsg checks one message the server wrote.
func (s *schemaSet) validateMsg(m *wireMsg) []violation {
	var vs []violation
	add := func(v *violation) {
		if v != nil {
			vs = append(vs, *v)
		}
	}
	rev := s.effective(m.Revision)
	switch m.Kind {
	case "notification":
		add(s.check(m, rev, "JSONRPCNotification", m.Raw))
		add(s.check(m, rev, "ServerNotification", m.Raw))
	case "request":
		add(s.check(m, rev, "JSONRPCRequest", m.Raw))
		add(s.check(m, rev, "ServerRequest", m.Raw))
	case "response":
		if len(m.Error) > 0 {
			raw := m.Raw
			if unreadableID(m) {
				// The one place JSON-RPC 2.0 and the MCP schema disagree: for
				// a parse error or an invalid request whose id could not be
				// read, JSON-RPC 2.0 §5 says the id MUST be null, which no
				// MCP revision's RequestId allows (2025-11-25 and later let
				// it be left out). kontext follows JSON-RPC 2.0; everything
				// else in the message must still fit the schema.
				raw = withoutID(m.Raw)
				if s.requiresID(rev) {
					raw = m.Raw
					add(s.check(m, rev, "JSONRPCError", withID(m.Raw)))
					return vs
				}
			}
			add(s.check(m, rev, firstDef(s, rev, "JSONRPCErrorResponse", "JSONRPCError"), raw))
			var e struct {
				Code int64 `json:"code"`
			}
			_ = json.Unmarshal(m.Error, &e)
			if def, ok := errorDefs[e.Code]; ok && s.has(rev, def) {
				if s.defHasProperty(rev, def, "error") {
					add(s.check(m, rev, def, m.Raw))
				} else {
					add(s.check(m, rev, def, m.Error))
				}
			}
			return vs
		}
		add(s.check(m, rev, firstDef(s, rev, "JSONRPCResultResponse", "JSONRPCResponse"), m.Raw))
		if m.Req == nil {
			return vs
		}
		def, ok := resultDefs[m.Req.Method]
		if !ok {
			vs = append(vs, violation{Msg: m, Def: rev, Details: []string{"a result for " + m.Req.Method + ", which has no result definition this suite knows"}})
			return vs
		}
		var kind struct {
			ResultType string `json:"resultType"`
		}
		if json.Unmarshal(m.Result, &kind) == nil && kind.ResultType == "input_required" && s.has(rev, "InputRequiredResult") {
			// A multi-round-trip answer (2026-07-28): the server asks the
			// client first, whatever the method's own result would be.
			def = "InputRequiredResult"
		}
		add(s.check(m, rev, def, m.Result))
		if s.has(rev, def+"Response") {
			add(s.check(m, rev, def+"Response", m.Raw))
		}
	}
	return vs
}

// validateWire validates every message the server wrote in the traces
// against the official schemas and fails t on each violation. It skips
// when the schema folder is absent.
func validateWire(t *testing.T, logs []*wireLog) {
	t.Helper()
	dir, ok := schemaDir()
	if !ok {
		t.Skipf("the official MCP schemas are not at %s (set KONTEXT_MCP_SCHEMA_DIR): wire validation skipped", dir)
	}
	s := loadSchemas(dir)
	counts := map[string]int{}
	for _, l := range logs {
		for _, m := range l.out() {
			counts[s.effective(m.Revision)]++
			for _, v := range s.validateMsg(m) {
				t.Error(v.String())
			}
		}
	}
	if len(counts) == 0 {
		t.Fatal("the server wrote nothing")
	}
	t.Logf("validated server messages per revision: %v", counts)
}

// unreadableID reports an error answering a line whose id could not be read:
// id null with -32700 (parse error) or -32600 (invalid request).
func unreadableID(m *wireMsg) bool {
	var r struct {
		ID    json.RawMessage `json:"id"`
		Error struct {
			Code int64 `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal(m.Raw, &r) != nil || string(r.ID) != "null" {
		return false
	}
	return r.Error.Code == -32700 || r.Error.Code == -32600
}

func withoutID(raw json.RawMessage) json.RawMessage {
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return raw
	}
	delete(obj, "id")
	out, _ := json.Marshal(obj)
	return out
}

// withID stands a placeholder id in for null, for the revisions whose error
// definition requires one: the rest of the message is still checked.
func withID(raw json.RawMessage) json.RawMessage {
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return raw
	}
	obj["id"] = json.RawMessage(`0`)
	out, _ := json.Marshal(obj)
	return out
}

// requiresID reports whether the revision's error response requires an id.
func (s *schemaSet) requiresID(rev string) bool {
	return !s.has(rev, "JSONRPCErrorResponse")
}
