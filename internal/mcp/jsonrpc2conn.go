package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/kontext-dev/kontext/gen/errcodes"
)

// jsonrpc2Conn is the client's jsonrpc2.ObjectStream over a lineConn.
// jsonrpc2 closes a connection on any decoding error and cannot represent
// negative ids, batches or the null id of a parse error, so the lineConn
// frames and checks the wire and jsonrpc2 is handed a small canonical form
// of each valid message, keyed by the lineConn's token, and never sees the
// wire bytes. jsonrpc2 matches the responses to the client's own calls.
type jsonrpc2Conn struct {
	lines *lineConn

	mu    sync.Mutex
	notes map[uint64]*inbound // delivered notifications, until Handle takes them
}

func newJSONRPC2Conn(lines *lineConn) *jsonrpc2Conn {
	return &jsonrpc2Conn{lines: lines, notes: map[uint64]*inbound{}}
}

// ReadObject implements jsonrpc2.ObjectStream. It returns an error only at
// the end of the input; everything else is answered by the lineConn and
// skipped.
func (c *jsonrpc2Conn) ReadObject(v any) error {
	for {
		in, err := c.lines.read()
		if err != nil {
			return err
		}
		msg := c.canonical(in)
		if msg == nil {
			continue
		}
		if err := json.Unmarshal(msg, v); err != nil {
			// The canonical forms are built by this file; failing to
			// decode one is a bug, not bad input.
			c.lines.logf("mcp: internal message rejected by jsonrpc2: %v", err)
			continue
		}
		return nil
	}
}

// canonical is the form of a message jsonrpc2 is handed, or nil for a
// response that cannot be to one of the client's requests. A request gets
// the string id "k<token>", and requests and notifications carry the token
// in jsonrpc2's "meta".
func (c *jsonrpc2Conn) canonical(in *inbound) []byte {
	if in.response != nil {
		return c.response(in.response)
	}
	if in.wireID == nil {
		c.mu.Lock()
		c.notes[in.token] = in
		c.mu.Unlock()
	}
	method, _ := json.Marshal(in.method)
	tok := strconv.FormatUint(in.token, 10)
	var buf bytes.Buffer
	buf.WriteString(`{"jsonrpc":"2.0","method":`)
	buf.Write(method)
	if in.wireID != nil {
		buf.WriteString(`,"id":"k` + tok + `"`)
	}
	buf.WriteString(`,"meta":` + tok + `}`)
	return buf.Bytes()
}

// response checks a response to one of the client's requests. jsonrpc2
// numbers its requests from 0 upwards, so anything else cannot be ours.
func (c *jsonrpc2Conn) response(m *wireMessage) []byte {
	if _, err := strconv.ParseUint(string(m.ID), 10, 64); err != nil {
		c.lines.logf("mcp: dropped a response with id %s that answers no request of ours", m.ID)
		return nil
	}
	if len(m.Error) > 0 {
		var e struct {
			Code    int64           `json:"code"`
			Message string          `json:"message"`
			Data    json.RawMessage `json:"data,omitempty"`
		}
		if json.Unmarshal(m.Error, &e) != nil {
			e.Code, e.Message = errcodes.InternalError, "malformed error object: "+string(m.Error)
		}
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": json.RawMessage(m.ID), "error": e})
		return body
	}
	var buf bytes.Buffer
	buf.WriteString(`{"jsonrpc":"2.0","id":`)
	buf.Write(m.ID)
	buf.WriteString(`,"result":`)
	buf.Write(m.Result)
	buf.WriteByte('}')
	return buf.Bytes()
}

// take returns (and forgets) the notification behind a token.
func (c *jsonrpc2Conn) take(token uint64) *inbound {
	c.mu.Lock()
	defer c.mu.Unlock()
	in := c.notes[token]
	delete(c.notes, token)
	return in
}

// lookup returns the request behind a token, still to be answered.
func (c *jsonrpc2Conn) lookup(token uint64) *inbound { return c.lines.lookup(token) }

// respond answers the request behind a token.
func (c *jsonrpc2Conn) respond(token uint64, member string, body []byte) error {
	return c.lines.respond(token, member, body)
}

// responseSuffix ends what jsonrpc2.Response.MarshalJSON writes, and
// nothing a jsonrpc2.Request writes: its members are sorted, the last being
// "method" or "params", and params is an object or array.
var responseSuffix = []byte(`,"jsonrpc":"2.0"}`)

// WriteObject implements jsonrpc2.ObjectStream. The client's requests and
// notifications are written as jsonrpc2 encodes them. The client answers
// the server's requests through respond; a response jsonrpc2 writes gets
// its wire id back from the token.
func (c *jsonrpc2Conn) WriteObject(obj any) error {
	raw, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	if !bytes.HasSuffix(raw, responseSuffix) {
		return c.lines.writeLine(raw)
	}
	var o struct {
		ID     json.RawMessage `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(raw, &o); err != nil {
		return err
	}
	token, ok := internalToken(o.ID)
	if !ok {
		return fmt.Errorf("mcp: response with an id the stream did not issue: %s", o.ID)
	}
	if len(o.Error) > 0 {
		return c.lines.respond(token, "error", o.Error)
	}
	return c.lines.respond(token, "result", o.Result)
}

func internalToken(id json.RawMessage) (uint64, bool) {
	if len(id) < 4 || id[0] != '"' || id[1] != 'k' {
		return 0, false
	}
	n, err := strconv.ParseUint(string(id[2:len(id)-1]), 10, 64)
	return n, err == nil
}

// Close implements jsonrpc2.ObjectStream.
func (c *jsonrpc2Conn) Close() error { return c.lines.close() }

var _ jsonrpc2.ObjectStream = (*jsonrpc2Conn)(nil)
