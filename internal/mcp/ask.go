package mcp

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/kontext-dev/kontext/gen/protocol"
)

// DefaultAskTimeout bounds how long a handler waits for the client to
// answer a request of the server (legacy eras), unless Options.AskTimeout
// says otherwise.
const DefaultAskTimeout = 60 * time.Second

// Question is one thing a handler asks the client.
type Question struct {
	// Key names the question among those of one request: in 2026-07-28 it
	// is the key of inputRequests and of the client's inputResponses, so
	// it must stay the same each time the handler runs again.
	Key string
	// Method is roots/list, elicitation/create, sampling/createMessage or
	// ping (legacy eras only).
	Method string
	// Params are the request's params (nil: none).
	Params any
	// Answer, a pointer, receives the client's result (nil: discarded).
	Answer any
}

// Ask asks the client the questions and fills their answers, in whatever
// way the request's era asks a client: a JSON-RPC request per question in
// the legacy eras, a multi-round-trip request in 2026-07-28. A handler
// returns any error it gets unchanged: in 2026-07-28 the first run of a
// handler that asks gets an error that makes the runtime answer with
// input_required, and the client's retry runs the handler again with the
// answers.
func Ask(ctx context.Context, questions ...Question) error {
	c := callFrom(ctx)
	if c == nil {
		return errors.New("mcp: Ask needs the context of a request the server is handling")
	}
	if c.modern {
		return c.askModern(questions)
	}
	for _, q := range questions {
		if err := c.ss.ask(ctx, c.in.token, q.Method, q.Params, q.Answer); err != nil {
			return err
		}
	}
	return nil
}

// ListRoots asks the client for its roots.
func ListRoots(ctx context.Context) ([]protocol.Root, error) {
	var res protocol.ListRootsResult
	if err := Ask(ctx, Question{Key: "roots", Method: "roots/list", Answer: &res}); err != nil {
		return nil, err
	}
	return res.Roots, nil
}

// ElicitResult is the client's answer to elicitation/create.
type ElicitResult struct {
	Action  string         `json:"action"` // accept, decline or cancel
	Content map[string]any `json:"content,omitempty"`
}

// Elicit asks the user, through the client, for the input params describe
// (message and requestedSchema).
func Elicit(ctx context.Context, key string, params any) (*ElicitResult, error) {
	var res ElicitResult
	if err := Ask(ctx, Question{Key: key, Method: "elicitation/create", Params: params, Answer: &res}); err != nil {
		return nil, err
	}
	return &res, nil
}

// CreateMessage asks the client's model for a message
// (sampling/createMessage) and returns the client's result as sent.
func CreateMessage(ctx context.Context, key string, params any) (json.RawMessage, error) {
	var res json.RawMessage
	if err := Ask(ctx, Question{Key: key, Method: "sampling/createMessage", Params: params, Answer: &res}); err != nil {
		return nil, err
	}
	return res, nil
}

// PingClient checks that the client answers. 2026-07-28 has no ping: a
// client sending a request is there, so it returns nil at once.
func PingClient(ctx context.Context) error {
	c := callFrom(ctx)
	if c != nil && c.modern {
		return nil
	}
	return Ask(ctx, Question{Key: "ping", Method: "ping"})
}

// ClientSupports reports whether the client of the request ctx belongs to
// declared what method needs (roots, sampling, elicitation), so that a
// handler can leave out a question it may not ask.
func ClientSupports(ctx context.Context, method string) bool {
	c := callFrom(ctx)
	if c == nil {
		return false
	}
	capability, ok := askCapability[method]
	if !ok {
		return false
	}
	if capability == "" {
		return !c.modern
	}
	return c.clientDeclares(capability)
}

// askCapability names the client capability each method needs ("" for
// none).
var askCapability = map[string]string{
	"roots/list":             "roots",
	"elicitation/create":     "elicitation",
	"sampling/createMessage": "sampling",
	"ping":                   "",
}

// clientDeclares reports whether the client declared a capability: at
// initialize in the legacy eras, in the request's own _meta in 2026-07-28.
func (c *call) clientDeclares(capability string) bool {
	var caps protocol.ClientCapabilities
	if c.modern {
		var meta requestMeta
		if json.Unmarshal(c.envelope.Meta, &meta) != nil || json.Unmarshal(meta.ClientCapabilities, &caps) != nil {
			return false
		}
	} else {
		c.ss.mu.Lock()
		caps = c.ss.clientCaps
		c.ss.mu.Unlock()
	}
	return capsDeclare(caps, capability)
}

func capsDeclare(caps protocol.ClientCapabilities, capability string) bool {
	declared := func(raw json.RawMessage) bool { return len(raw) > 0 && !bytes.Equal(raw, []byte("null")) }
	switch capability {
	case "roots":
		return caps.Roots != nil
	case "elicitation":
		return declared(caps.Elicitation)
	case "sampling":
		return declared(caps.Sampling)
	}
	return false
}

// ClientCapabilityError is what asking gets when the client did not
// declare the capability the question needs: no request was sent.
type ClientCapabilityError struct {
	Method     string
	Capability string
}

func (e *ClientCapabilityError) Error() string {
	return fmt.Sprintf("the client did not declare the %s capability, so the server cannot send it %s", e.Capability, e.Method)
}

// missingClientCapability is 2026-07-28's MissingRequiredClientCapabilityError.
// The code is not in schema/errors.yaml: the generated reference documents
// only the codes of every era.
const missingClientCapability = -32021

// ClientError is the error the client answered a request of the server with.
type ClientError struct {
	Method string
	Err    *Error
}

func (e *ClientError) Error() string {
	return fmt.Sprintf("the client refused %s: %s", e.Method, e.Err.Message)
}

// ask sends one request to the client of a legacy session and waits for
// its answer. related is the request it belongs to (0: none).
func (ss *session) ask(ctx context.Context, related uint64, method string, params, answer any) error {
	capability, ok := askCapability[method]
	if !ok {
		return fmt.Errorf("mcp: the server does not ask clients %q", method)
	}
	if capability != "" {
		ss.mu.Lock()
		caps := ss.clientCaps
		ss.mu.Unlock()
		if !capsDeclare(caps, capability) {
			return &ClientCapabilityError{Method: method, Capability: capability}
		}
	}
	if ss.closed.Load() {
		return errors.New("mcp: the session has ended")
	}
	id := ss.askIDs.Add(1)
	key := wireKey([]byte(strconv.FormatUint(id, 10)))
	reply := make(chan *wireMessage, 1)
	ss.mu.Lock()
	ss.asks[key] = reply
	ss.mu.Unlock()
	defer func() {
		ss.mu.Lock()
		delete(ss.asks, key)
		ss.mu.Unlock()
	}()
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"method":`, id)
	b.Write(marshal(method))
	if params != nil {
		b.WriteString(`,"params":`)
		b.Write(marshal(params))
	}
	b.WriteByte('}')
	if err := ss.conn.send(related, b.Bytes()); err != nil {
		return fmt.Errorf("mcp: sending %s to the client: %w", method, err)
	}
	timeout := ss.srv.opts.AskTimeout
	if timeout <= 0 {
		timeout = DefaultAskTimeout
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	giveUp := func(reason string) {
		ss.notifyFor(related, "notifications/cancelled", protocol.CancelledParams{RequestID: json.RawMessage(strconv.FormatUint(id, 10)), Reason: &reason})
	}
	select {
	case m := <-reply:
		if len(m.Error) > 0 && !bytes.Equal(m.Error, []byte("null")) {
			var e struct {
				Code    int64           `json:"code"`
				Message string          `json:"message"`
				Data    json.RawMessage `json:"data"`
			}
			_ = json.Unmarshal(m.Error, &e)
			ce := &Error{Code: e.Code, Message: e.Message}
			if len(e.Data) > 0 {
				ce.Data = e.Data
			}
			return &ClientError{Method: method, Err: ce}
		}
		if answer == nil {
			return nil
		}
		if err := json.Unmarshal(m.Result, answer); err != nil {
			return fmt.Errorf("the client's answer to %s: %w", method, err)
		}
		return nil
	case <-ctx.Done():
		giveUp("the request that asked was cancelled")
		return ctx.Err()
	case <-ss.ctx.Done():
		return errors.New("the session ended before the client answered")
	case <-timer.C:
		giveUp("the client did not answer in time")
		return fmt.Errorf("the client did not answer %s within %s", method, timeout)
	}
}

// answered routes a response of the client to the ask waiting for it,
// and reports whether one was.
func (ss *session) answered(m *wireMessage) bool {
	key := wireKey(m.ID)
	ss.mu.Lock()
	reply, ok := ss.asks[key]
	delete(ss.asks, key)
	ss.mu.Unlock()
	if ok {
		reply <- m
	}
	return ok
}

// The multi-round-trip requests of 2026-07-28.

// mrtrMethods may answer with input_required.
var mrtrMethods = map[string]bool{"tools/call": true, "prompts/get": true, "resources/read": true}

// inputRequired is what Ask returns in 2026-07-28 while answers are
// missing: the handler returns it, and the runtime answers with
// input_required.
type inputRequired struct{}

func (inputRequired) Error() string {
	return "mcp: the client must answer the server's input requests first"
}

// roundTrip is what one 2026-07-28 request carries across rounds and what
// its run asked.
type roundTrip struct {
	answers  map[string]json.RawMessage // from requestState and inputResponses
	used     map[string]json.RawMessage // the answers the handler took
	asked    map[string]json.RawMessage // key → {"method":…,"params":…}
	askOrder []string
}

// inputParams are the members of an MRTR request's params the runtime reads.
type inputParams struct {
	InputResponses json.RawMessage `json:"inputResponses"`
	RequestState   json.RawMessage `json:"requestState"`
	Name           string          `json:"name"`
	URI            string          `json:"uri"`
}

// readInput reads inputResponses and requestState of a 2026-07-28 request
// that may answer input_required. Malformed responses and a state this
// process did not issue for this request are refused with -32602.
func (c *call) readInput() *Error {
	if !c.modern || !mrtrMethods[c.method] {
		return nil
	}
	rt := &roundTrip{answers: map[string]json.RawMessage{}, used: map[string]json.RawMessage{}, asked: map[string]json.RawMessage{}}
	c.input = rt
	// A first round carries neither: its params need no second decoding.
	if !bytes.Contains(c.params, []byte(`"inputResponses"`)) && !bytes.Contains(c.params, []byte(`"requestState"`)) {
		return nil
	}
	var p inputParams
	if json.Unmarshal(c.params, &p) != nil {
		return nil // the method's own decoding words the problem
	}
	if len(p.RequestState) > 0 {
		var state string
		if json.Unmarshal(p.RequestState, &state) != nil {
			return InvalidParams(nil, Violation{Path: "/requestState", Message: "must be a string"})
		}
		answers, ok := openState(state, c.method, p.Name+p.URI)
		if !ok {
			return InvalidParams(nil, Violation{Path: "/requestState", Message: "not a requestState this server issued for this request; start the request again without it"})
		}
		rt.answers = answers
	}
	if len(p.InputResponses) > 0 {
		var responses map[string]json.RawMessage
		if p.InputResponses[0] != '{' || json.Unmarshal(p.InputResponses, &responses) != nil {
			return InvalidParams(nil, Violation{Path: "/inputResponses", Message: "must be an object of input responses"})
		}
		for _, key := range sortedKeys(responses) {
			if r := bytes.TrimSpace(responses[key]); len(r) == 0 || r[0] != '{' {
				return InvalidParams(nil, Violation{Path: "/inputResponses/" + key, Message: "must be an object (the client's result)"})
			}
			rt.answers[key] = responses[key]
		}
	}
	return nil
}

func (c *call) askModern(questions []Question) error {
	if !mrtrMethods[c.method] || c.input == nil {
		return fmt.Errorf("mcp: a %s request cannot ask the client anything in %s", c.method, c.version)
	}
	rt := c.input
	missing := false
	for _, q := range questions {
		capability, ok := askCapability[q.Method]
		if !ok || capability == "" {
			return fmt.Errorf("mcp: %s cannot ask the client %q", c.version, q.Method)
		}
		if answer, ok := rt.answers[q.Key]; ok {
			if q.Answer != nil {
				if err := json.Unmarshal(answer, q.Answer); err != nil {
					return InvalidParams(nil, Violation{Path: "/inputResponses/" + q.Key, Message: "not a result of " + q.Method})
				}
			}
			rt.used[q.Key] = answer
			continue
		}
		if !c.clientDeclares(capability) {
			return &Error{Code: missingClientCapability, Message: "Missing required client capability", Data: map[string]any{
				"requiredCapabilities": map[string]any{capability: struct{}{}},
			}}
		}
		var b bytes.Buffer
		b.WriteString(`{"method":`)
		b.Write(marshal(q.Method))
		b.WriteString(`,"params":`)
		if q.Params == nil {
			b.WriteString("{}")
		} else {
			b.Write(marshal(q.Params))
		}
		b.WriteByte('}')
		if _, dup := rt.asked[q.Key]; !dup {
			rt.askOrder = append(rt.askOrder, q.Key)
		}
		rt.asked[q.Key] = b.Bytes()
		missing = true
	}
	if missing {
		return inputRequired{}
	}
	return nil
}

// inputRequiredBody is the input_required result of a run that asked, or
// false when it asked nothing.
func (c *call) inputRequiredBody() ([]byte, bool) {
	if c.input == nil || len(c.input.asked) == 0 {
		return nil, false
	}
	var p inputParams
	_ = json.Unmarshal(c.params, &p)
	var b bytes.Buffer
	b.WriteString(`{"resultType":"input_required","inputRequests":{`)
	for i, key := range c.input.askOrder {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(marshal(key))
		b.WriteByte(':')
		b.Write(c.input.asked[key])
	}
	b.WriteString(`},"requestState":`)
	b.Write(marshal(sealState(c.method, p.Name+p.URI, c.input.used)))
	b.WriteString(`,"_meta":{"io.modelcontextprotocol/serverInfo":`)
	b.Write(marshal(c.ss.srv.implementation(c.feat)))
	b.WriteString(`}}`)
	return b.Bytes(), true
}

// stateKey signs requestState: random per process, so a state survives
// only as long as the process that issued it, and no client can forge one.
var stateKey = func() []byte {
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		panic("mcp: no randomness for the requestState key: " + err.Error())
	}
	return key
}()

// sealedState is what a requestState carries: the request it belongs to
// and the answers the handler took in earlier rounds.
type sealedState struct {
	Method  string                     `json:"m"`
	Target  string                     `json:"t"`
	Answers map[string]json.RawMessage `json:"a"`
}

// sealState encodes a requestState: the state as base64url, a dot, and
// its HMAC-SHA256.
func sealState(method, target string, answers map[string]json.RawMessage) string {
	body := base64.RawURLEncoding.EncodeToString(marshal(sealedState{Method: method, Target: target, Answers: answers}))
	return body + "." + base64.RawURLEncoding.EncodeToString(stateMAC(body))
}

// openState checks a requestState and returns its answers; it fails for
// a state altered, issued by another process, or for another request.
func openState(state, method, target string) (map[string]json.RawMessage, bool) {
	body, mac, ok := cutState(state)
	if !ok {
		return nil, false
	}
	got, err := base64.RawURLEncoding.DecodeString(mac)
	if err != nil || !hmac.Equal(got, stateMAC(body)) {
		return nil, false
	}
	raw, err := base64.RawURLEncoding.DecodeString(body)
	if err != nil {
		return nil, false
	}
	var s sealedState
	if json.Unmarshal(raw, &s) != nil || s.Method != method || s.Target != target {
		return nil, false
	}
	if s.Answers == nil {
		s.Answers = map[string]json.RawMessage{}
	}
	return s.Answers, true
}

func cutState(state string) (string, string, bool) {
	i := strings.LastIndexByte(state, '.')
	if i < 0 {
		return "", "", false
	}
	return state[:i], state[i+1:], true
}

func stateMAC(body string) []byte {
	m := hmac.New(sha256.New, stateKey)
	m.Write([]byte(body))
	return m.Sum(nil)
}

// isInputRequired reports whether err is Ask's signal that answers are
// missing.
func isInputRequired(err error) bool {
	var ir inputRequired
	return errors.As(err, &ir)
}
