package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strconv"
	"sync"

	"github.com/kontext-dev/kontext/gen/errcodes"
)

// DefaultMaxMessageBytes is the largest JSON-RPC line the server reads. A
// longer line is refused with -32600 and the session goes on.
const DefaultMaxMessageBytes = 8 << 20

// lineConn is the stdio framing of JSON-RPC 2.0, one message (or batch)
// per line, over any byte stream: the process's stdin and stdout, OS pipes,
// the in-memory transport. It is the server session's conn, and the client
// reads through it too (see jsonrpc2Conn).
//
// It answers malformed lines (-32700), invalid requests (-32600) and
// oversized lines itself and keeps reading; it keeps wire ids verbatim
// (negative and large integers included); it splits batches and reassembles
// their responses.
type lineConn struct {
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
	queue   []*inbound          // decoded messages waiting for read

	// trace, when set, sees every line read and written (for tests and
	// KONTEXT_TRACE).
	trace func(out bool, line []byte)
	// logf reports framing problems as diagnostics (stderr).
	logf func(format string, args ...any)
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

func newLineConn(r io.Reader, w io.Writer, closer io.Closer, maxBytes int) *lineConn {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxMessageBytes
	}
	s := &lineConn{
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
	s *lineConn
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

// read implements conn. Everything the framing refuses is answered here
// and skipped.
func (s *lineConn) read() (*inbound, error) {
	for {
		s.mu.Lock()
		if len(s.queue) > 0 {
			in := s.queue[0]
			s.queue[0] = nil
			s.queue = s.queue[1:]
			s.mu.Unlock()
			return in, nil
		}
		s.mu.Unlock()
		if err := s.acceptNext(); err != nil {
			return nil, err
		}
	}
}

// acceptNext reads and accepts the next line, answering an oversized one
// itself. At the end of the input it returns io.EOF.
func (s *lineConn) acceptNext() error {
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
func (s *lineConn) readLine() ([]byte, error) {
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
func (s *lineConn) accept(line []byte) {
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
		var ready []*inbound
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

// decode validates one message and returns it to deliver, or nil when the
// message was answered here (invalid).
func (s *lineConn) decode(raw []byte, b *batch) *inbound {
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
		s.deliver(in)
		return in
	}
	if len(m.Result) > 0 || len(m.Error) > 0 {
		return &inbound{response: &m}
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

func (s *lineConn) reject(b *batch, id json.RawMessage, reason string) {
	resp := errorLine(id, errcodes.InvalidRequest, map[string]any{"reason": reason})
	if b == nil {
		s.writeLine(resp)
		return
	}
	s.mu.Lock()
	b.responses = append(b.responses, batchResponse{b.decoding, resp})
	s.mu.Unlock()
}

// deliver gives a request or notification its token; a request waits in
// pending for its answer.
func (s *lineConn) deliver(in *inbound) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.next++
	in.token = s.next
	if in.wireID == nil {
		return // notifications are never answered
	}
	s.pending[in.token] = in
	if in.batch != nil {
		in.batch.waiting++
	}
}

// lookup returns the inbound message behind a token without forgetting it.
func (s *lineConn) lookup(token uint64) *inbound {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pending[token]
}

// discard forgets a request that will never be answered (it was cancelled),
// so that a batch it belongs to can still be completed.
func (s *lineConn) discard(token uint64) {
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

// respond implements conn. A batch member's answer waits for the rest of
// its batch.
func (s *lineConn) respond(token uint64, member string, body []byte) error {
	s.mu.Lock()
	in := s.pending[token]
	delete(s.pending, token)
	s.mu.Unlock()
	if in == nil {
		return nil
	}
	if in.batch == nil {
		return s.writeResponse(in.wireID, member, body)
	}
	line := joinResponse(in.wireID, member, body)
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

func joinResponse(id json.RawMessage, member string, body json.RawMessage) []byte {
	return appendResponse(make([]byte, 0, len(body)+len(id)+40), id, member, body)
}

// appendResponse appends the response line (without its newline) to out.
func appendResponse(out []byte, id json.RawMessage, member string, body json.RawMessage) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	out = append(out, `{"jsonrpc":"2.0","id":`...)
	out = append(out, id...)
	out = append(out, `,"`...)
	out = append(out, member...)
	out = append(out, `":`...)
	out = append(out, body...)
	return append(out, '}')
}

// errorLine builds an error response for the framing's own answers.
func errorLine(id json.RawMessage, code int64, data any) []byte {
	return joinResponse(id, "error", marshal(NewError(code, data)))
}

func (s *lineConn) writeError(id json.RawMessage, code int64, data any) {
	s.writeLine(errorLine(id, code, data))
}

func (s *lineConn) writeBatch(b *batch) {
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

// writeResponse writes a response as writeLine does, assembled in place
// in the held lines: a tools/list answer is tens of kilobytes, and
// joining it into a line of its own first would copy it once more.
func (s *lineConn) writeResponse(id json.RawMessage, member string, body []byte) error {
	if s.trace != nil {
		return s.writeLine(joinResponse(id, member, body))
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	s.wbuf = append(appendResponse(s.wbuf, id, member, body), '\n')
	return s.flushHeldLocked()
}

// writeLine writes one message and its newline in a single write, so that
// concurrent writers never interleave.
func (s *lineConn) writeLine(line []byte) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.trace != nil {
		s.trace(true, line)
	}
	s.wbuf = append(append(s.wbuf, line...), '\n')
	return s.flushHeldLocked()
}

// flushHeldLocked writes the held lines unless the read loop will soon
// (see readerIdle); s.wmu is held.
func (s *lineConn) flushHeldLocked() error {
	if !s.readerIdle && len(s.wbuf) < 256<<10 {
		return nil // written when the read loop next reads
	}
	return s.flushLocked()
}

// flushLocked writes the held lines; s.wmu is held.
func (s *lineConn) flushLocked() error {
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

// notify implements conn.
func (s *lineConn) send(_ uint64, message []byte) error { return s.writeLine(message) }

// close implements conn.
func (s *lineConn) close() error {
	if s.closer == nil {
		return nil
	}
	return s.closer.Close()
}

var _ conn = (*lineConn)(nil)
