package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"sync"

	"github.com/sourcegraph/jsonrpc2"

	"github.com/kontext-dev/kontext/gen/errcodes"
)

// DefaultMaxMessageBytes is the largest JSON-RPC line the server reads. A
// longer line is refused with -32600 and the session goes on.
const DefaultMaxMessageBytes = 8 << 20

// lineStream is the JSON-RPC 2.0 framing of every MCP connection: one
// message (or batch) per line.
//
// It answers malformed lines (-32700), invalid requests (-32600) and
// oversized lines itself and keeps reading; it keeps wire ids verbatim
// (negative and large integers included); it splits batches and reassembles
// their responses. The server reads decoded messages with readInbound. The
// client reads through a sourcegraph/jsonrpc2 connection, for which the
// stream is its jsonrpc2.ObjectStream: jsonrpc2 closes a connection on any
// decoding error and cannot represent negative ids, batches or the null id
// of a parse error, so it is handed a small canonical form of each valid
// message, keyed by a token, and never sees the wire bytes.
type lineStream struct {
	r        *bufio.Reader
	w        io.Writer
	closer   io.Closer
	maxBytes int

	wmu  sync.Mutex
	wbuf []byte
	// readerIdle is true while the read loop waits for input; then a
	// response is written at once. Otherwise it is held in wbuf and written
	// with the others when the read loop next needs input: one write(2) per
	// burst of pipelined requests instead of one per response.
	readerIdle bool

	mu      sync.Mutex
	next    uint64
	pending map[uint64]*inbound // delivered requests awaiting a response
	queue   [][]byte            // canonical messages waiting for ReadObject
	// direct: deliver *inbound values to readInbound instead of canonical
	// messages to jsonrpc2 (the server side).
	direct  bool
	inQueue []*inbound

	// atEOF runs once when the input ends, before ReadObject reports io.EOF,
	// so that in-flight requests can still be answered (jsonrpc2 refuses to
	// send once it has seen EOF).
	atEOF func()
	// trace, when set, sees every line read and written (for tests and
	// KONTEXT_TRACE).
	trace func(out bool, line []byte)
	// logf reports stream-level problems as diagnostics (stderr).
	logf func(format string, args ...any)
}

// inbound is what the stream remembers about a message it delivered.
type inbound struct {
	token  uint64
	wireID json.RawMessage // nil for a notification
	method string
	params json.RawMessage
	batch  *batch
	pos    int // the message's place in its batch
}

// batch collects the responses of one JSON-RPC batch so they are written as
// one array, as JSON-RPC 2.0 requires — in the order of the requests, which
// the specification leaves open, so that a client (and a transcript) sees
// the same array however the handlers interleave.
type batch struct {
	waiting   int
	responses []batchResponse
	decoding  int // the place of the member being decoded
}

type batchResponse struct {
	pos  int
	line []byte
}

func newLineStream(r io.Reader, w io.Writer, closer io.Closer, maxBytes int) *lineStream {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxMessageBytes
	}
	s := &lineStream{
		w:        w,
		closer:   closer,
		maxBytes: maxBytes,
		pending:  map[uint64]*inbound{},
		logf:     func(string, ...any) {},
	}
	s.r = bufio.NewReaderSize(flushingReader{s, r}, 64<<10)
	return s
}

// flushingReader writes the held responses before the read loop asks for
// more input, and marks the reader idle while it waits.
type flushingReader struct {
	s *lineStream
	r io.Reader
}

func (f flushingReader) Read(p []byte) (int, error) {
	s := f.s
	s.wmu.Lock()
	s.flushLocked()
	s.readerIdle = true
	s.wmu.Unlock()
	n, err := f.r.Read(p)
	// Data that comes with an error (io.EOF included) is the last the read
	// loop gets: it will not read again, so nothing may wait for that.
	if n > 0 && err == nil {
		s.wmu.Lock()
		s.readerIdle = false
		s.wmu.Unlock()
	}
	return n, err
}

// ReadObject implements jsonrpc2.ObjectStream. It returns an error only at
// the end of the input; everything else is answered here and skipped.
func (s *lineStream) ReadObject(v any) error {
	for {
		if msg := s.dequeue(); msg != nil {
			if err := json.Unmarshal(msg, v); err != nil {
				// The canonical forms are built by this file; failing to
				// decode one is a bug, not bad input.
				s.logf("mcp: internal message rejected by jsonrpc2: %v", err)
				continue
			}
			return nil
		}
		if err := s.acceptNext(); err != nil {
			return err
		}
	}
}

// acceptNext reads and accepts the next line, answering an oversized one
// itself. At the end of the input it runs atEOF and returns io.EOF.
func (s *lineStream) acceptNext() error {
	for {
		line, err := s.readLine()
		if err != nil {
			if errors.Is(err, errLineTooLong) {
				s.writeError(nil, errcodes.InvalidRequest, map[string]any{
					"reason":   "message larger than the limit",
					"maxBytes": s.maxBytes,
				})
				continue
			}
			if s.atEOF != nil {
				s.atEOF()
			}
			return io.EOF
		}
		if s.trace != nil {
			s.trace(false, line)
		}
		s.accept(line)
		return nil
	}
}

var errLineTooLong = errors.New("line too long")

// readLine returns the next non-blank line without its terminator. A line
// longer than maxBytes is consumed and reported as errLineTooLong.
func (s *lineStream) readLine() ([]byte, error) {
	for {
		var line []byte
		tooLong := false
		for {
			chunk, err := s.r.ReadSlice('\n')
			if !tooLong {
				if len(line)+len(chunk) > s.maxBytes+2 {
					tooLong = true
					line = nil
				} else {
					line = append(line, chunk...)
				}
			}
			if err == nil {
				break
			}
			if errors.Is(err, bufio.ErrBufferFull) {
				continue
			}
			// End of input: a final line without a newline still counts.
			if tooLong {
				return nil, errLineTooLong
			}
			if len(bytes.TrimSpace(line)) > 0 {
				return bytes.TrimSpace(line), nil
			}
			return nil, err
		}
		if tooLong {
			return nil, errLineTooLong
		}
		line = bytes.TrimSpace(line)
		if len(line) > 0 {
			return line, nil
		}
	}
}

// readInbound is ReadObject without jsonrpc2: the next request or
// notification, as the stream decoded it.
func (s *lineStream) readInbound() (*inbound, error) {
	for {
		s.mu.Lock()
		if len(s.inQueue) > 0 {
			in := s.inQueue[0]
			s.inQueue[0] = nil
			s.inQueue = s.inQueue[1:]
			s.mu.Unlock()
			return in, nil
		}
		s.mu.Unlock()
		if err := s.acceptNext(); err != nil {
			return nil, err
		}
	}
}

func (s *lineStream) dequeue() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.queue) == 0 {
		return nil
	}
	msg := s.queue[0]
	s.queue[0] = nil
	s.queue = s.queue[1:]
	return msg
}

// wireMessage is the JSON-RPC 2.0 envelope as it arrives. Raw fields keep the
// exact bytes; presence is told apart from null by len().
type wireMessage struct {
	JSONRPC json.RawMessage `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  json.RawMessage `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

// accept decodes one line: a message or a batch.
func (s *lineStream) accept(line []byte) {
	if line[0] == '[' {
		var elems []json.RawMessage
		if err := json.Unmarshal(line, &elems); err != nil {
			s.writeError(nil, errcodes.ParseError, map[string]any{"reason": jsonReason(err)})
			return
		}
		if len(elems) == 0 {
			s.writeError(nil, errcodes.InvalidRequest, map[string]any{"reason": "empty batch"})
			return
		}
		b := &batch{}
		var ready [][]byte
		for i, elem := range elems {
			b.decoding = i
			if msg := s.decode(elem, b); msg != nil {
				ready = append(ready, msg)
			}
		}
		s.mu.Lock()
		s.queue = append(s.queue, ready...)
		flush := b.waiting == 0 && len(b.responses) > 0
		s.mu.Unlock()
		if flush {
			s.writeBatch(b)
		}
		return
	}
	// json.Unmarshal in decode validates the whole line anyway; a separate
	// json.Valid pass is only needed when decode fails.
	if msg := s.decode(line, nil); msg != nil {
		s.mu.Lock()
		s.queue = append(s.queue, msg)
		s.mu.Unlock()
	}
}

func jsonReason(err error) string {
	if err == nil {
		return "invalid JSON"
	}
	return err.Error()
}

// decode validates one message and returns the canonical form to deliver,
// or nil when the message was answered here (invalid) or dropped.
func (s *lineStream) decode(raw []byte, b *batch) []byte {
	var m wireMessage
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &m) != nil {
		if b == nil && !json.Valid(raw) {
			s.writeError(nil, errcodes.ParseError, map[string]any{"reason": jsonReason(json.Unmarshal(raw, new(any)))})
			return nil
		}
		s.reject(b, nil, "a JSON-RPC message must be a JSON object")
		return nil
	}
	id, idOK := requestID(m.ID)
	if string(m.JSONRPC) != `"2.0"` {
		s.reject(b, id, `"jsonrpc" must be "2.0"`)
		return nil
	}
	if len(m.Method) > 0 {
		var method string
		if n := len(m.Method); n >= 2 && m.Method[0] == '"' && bytes.IndexByte(m.Method[1:n-1], '\\') < 0 && bytes.IndexByte(m.Method[1:n-1], '"') < 0 {
			method = string(m.Method[1 : n-1]) // no escapes: the bytes are the string
		} else if json.Unmarshal(m.Method, &method) != nil {
			s.reject(b, id, `"method" must be a string`)
			return nil
		}
		if len(m.ID) > 0 && !idOK {
			s.reject(b, nil, `"id" must be a string or an integer`)
			return nil
		}
		if len(m.Params) > 0 && m.Params[0] != '{' && m.Params[0] != '[' {
			s.reject(b, id, `"params" must be an object or an array`)
			return nil
		}
		in := &inbound{wireID: id, method: method, params: m.Params, batch: b}
		if b != nil {
			in.pos = b.decoding
		}
		return s.deliver(in)
	}
	if len(m.Result) > 0 || len(m.Error) > 0 {
		return s.response(m)
	}
	s.reject(b, id, `a message needs "method" (a request or notification) or "result"/"error" (a response)`)
	return nil
}

// requestID reports whether raw is a valid request id (a string or an
// integer, negative included) and returns it verbatim.
func requestID(raw json.RawMessage) (json.RawMessage, bool) {
	if len(raw) == 0 {
		return nil, false
	}
	switch raw[0] {
	case '"':
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return nil, false
		}
		return raw, true
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		if _, err := strconv.ParseInt(string(raw), 10, 64); err != nil {
			return nil, false
		}
		return raw, true
	}
	return nil, false
}

func (s *lineStream) reject(b *batch, id json.RawMessage, reason string) {
	resp := errorLine(id, errcodes.InvalidRequest, map[string]any{"reason": reason})
	if b == nil {
		s.writeLine(resp)
		return
	}
	s.mu.Lock()
	b.responses = append(b.responses, batchResponse{b.decoding, resp})
	s.mu.Unlock()
}

// deliver registers a request or notification and returns its canonical form:
// a string id "k<token>" for requests and the token in jsonrpc2's "meta".
func (s *lineStream) deliver(in *inbound) []byte {
	s.mu.Lock()
	s.next++
	in.token = s.next
	s.pending[in.token] = in
	if in.batch != nil && in.wireID != nil {
		in.batch.waiting++
	}
	if s.direct {
		s.inQueue = append(s.inQueue, in)
		s.mu.Unlock()
		return nil
	}
	s.mu.Unlock()
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

// response validates a response to one of our own requests. jsonrpc2 numbers
// its requests from 0 upwards, so anything else cannot be ours.
func (s *lineStream) response(m wireMessage) []byte {
	// The server side (direct) sends no requests, and nothing would ever
	// dequeue a canonical response there.
	if _, err := strconv.ParseUint(string(m.ID), 10, 64); err != nil || s.direct {
		s.logf("mcp: dropped a response with id %s that answers no request of ours", m.ID)
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

// take returns (and forgets) the inbound message behind a token.
func (s *lineStream) take(token uint64) *inbound {
	s.mu.Lock()
	defer s.mu.Unlock()
	in := s.pending[token]
	if in != nil && in.wireID == nil {
		delete(s.pending, token) // notifications are never answered
	}
	return in
}

// lookup returns the inbound message behind a token without forgetting it.
func (s *lineStream) lookup(token uint64) *inbound {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pending[token]
}

// discard forgets a request that will never be answered (it was cancelled),
// so that a batch it belongs to can still be completed.
func (s *lineStream) discard(token uint64) {
	s.mu.Lock()
	in := s.pending[token]
	delete(s.pending, token)
	var flush *batch
	if in != nil && in.batch != nil {
		in.batch.waiting--
		if in.batch.waiting == 0 && len(in.batch.responses) > 0 {
			flush = in.batch
		}
	}
	s.mu.Unlock()
	if flush != nil {
		s.writeBatch(flush)
	}
}

// outgoing is how jsonrpc2 encodes what it sends.
type outgoing struct {
	ID     json.RawMessage `json:"id"`
	Method json.RawMessage `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
}

// WriteObject implements jsonrpc2.ObjectStream. Responses get their wire id
// back; requests and notifications pass through.
func (s *lineStream) WriteObject(obj any) error {
	raw, err := json.Marshal(obj)
	if err != nil {
		return err
	}
	var o outgoing
	if err := json.Unmarshal(raw, &o); err != nil {
		return err
	}
	if len(o.Method) > 0 {
		return s.writeLine(raw)
	}
	token, ok := internalToken(o.ID)
	if !ok {
		return fmt.Errorf("mcp: response with an id the stream did not issue: %s", o.ID)
	}
	if len(o.Error) > 0 {
		return s.respond(token, "error", o.Error)
	}
	return s.respond(token, "result", o.Result)
}

// respond answers the request behind a token (once: a second answer, or an
// answer to a discarded request, is dropped). A batch member's answer waits
// for the rest of its batch.
func (s *lineStream) respond(token uint64, member string, body []byte) error {
	s.mu.Lock()
	in := s.pending[token]
	delete(s.pending, token)
	s.mu.Unlock()
	if in == nil {
		return nil
	}
	line := joinResponse(in.wireID, member, body)
	if in.batch == nil {
		return s.writeLine(line)
	}
	s.mu.Lock()
	in.batch.responses = append(in.batch.responses, batchResponse{in.pos, line})
	in.batch.waiting--
	done := in.batch.waiting == 0
	s.mu.Unlock()
	if done {
		s.writeBatch(in.batch)
	}
	return nil
}

func internalToken(id json.RawMessage) (uint64, bool) {
	if len(id) < 4 || id[0] != '"' || id[1] != 'k' {
		return 0, false
	}
	n, err := strconv.ParseUint(string(id[2:len(id)-1]), 10, 64)
	return n, err == nil
}

func joinResponse(id json.RawMessage, member string, body json.RawMessage) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	out := make([]byte, 0, len(body)+len(id)+40)
	out = append(out, `{"jsonrpc":"2.0","id":`...)
	out = append(out, id...)
	out = append(out, `,"`...)
	out = append(out, member...)
	out = append(out, `":`...)
	out = append(out, body...)
	return append(out, '}')
}

// errorLine builds an error response for the stream's own answers.
func errorLine(id json.RawMessage, code int64, data any) []byte {
	return joinResponse(id, "error", marshal(NewError(code, data)))
}

func (s *lineStream) writeError(id json.RawMessage, code int64, data any) {
	s.writeLine(errorLine(id, code, data))
}

func (s *lineStream) writeBatch(b *batch) {
	s.mu.Lock()
	parts := b.responses
	b.responses = nil
	s.mu.Unlock()
	if len(parts) == 0 {
		return
	}
	slices.SortStableFunc(parts, func(a, b batchResponse) int { return a.pos - b.pos })
	out := []byte{'['}
	for i, p := range parts {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, p.line...)
	}
	s.writeLine(append(out, ']'))
}

// writeLine writes one message and its newline in a single write, so that
// concurrent writers never interleave.
func (s *lineStream) writeLine(line []byte) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.trace != nil {
		s.trace(true, line)
	}
	s.wbuf = append(append(s.wbuf, line...), '\n')
	if !s.readerIdle && len(s.wbuf) < 256<<10 {
		return nil // written when the read loop next reads
	}
	return s.flushLocked()
}

// flushLocked writes the held lines; s.wmu is held.
func (s *lineStream) flushLocked() error {
	if len(s.wbuf) == 0 {
		return nil
	}
	_, err := s.w.Write(s.wbuf)
	s.wbuf = s.wbuf[:0]
	if cap(s.wbuf) > 1<<20 {
		s.wbuf = nil
	}
	return err
}

// Close implements jsonrpc2.ObjectStream.
func (s *lineStream) Close() error {
	if s.closer == nil {
		return nil
	}
	return s.closer.Close()
}

var _ jsonrpc2.ObjectStream = (*lineStream)(nil)
