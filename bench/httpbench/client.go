//go:build linux

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
)

// endpoint is one server's /mcp URL and the client every session of the
// benchmark shares: its pool keeps a connection alive per busy session.
type endpoint struct {
	url    string
	client *http.Client
	modern bool // 2026-07-28: no sessions, _meta and headers on every request
}

// session is one client's conversation: in the legacy era its own
// Mcp-Session-Id, in 2026-07-28 only a source of request ids.
type session struct {
	ep     *endpoint
	id     string
	nextID atomic.Int64
}

// modernMeta is the _meta a 2026-07-28 request carries in place of a
// session's negotiation.
const modernMeta = `{"io.modelcontextprotocol/protocolVersion":"` + modernVersion + `","io.modelcontextprotocol/clientCapabilities":{}}`

const initializeParams = `{"protocolVersion":"` + legacyVersion + `","capabilities":{},"clientInfo":{"name":"httpbench","version":"1.0.0"}}`

// open starts a session: initialize, then notifications/initialized, the
// way every legacy client does once before its requests.
func (ep *endpoint) open() (*session, error) {
	s := &session{ep: ep}
	if ep.modern {
		return s, nil
	}
	resp, err := s.post(requestBody(0, "initialize", initializeParams), "initialize", "")
	if err != nil {
		return nil, err
	}
	id := resp.Header.Get("Mcp-Session-Id")
	if err := readAnswer(resp, 0); err != nil {
		return nil, fmt.Errorf("initialize: %w", err)
	}
	if id == "" {
		return nil, errors.New("initialize: the answer has no Mcp-Session-Id")
	}
	s.id = id
	resp, err = s.post([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), "notifications/initialized", "")
	if err != nil {
		return nil, err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted && resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("notifications/initialized: HTTP %s", resp.Status)
	}
	return s, nil
}

// call sends one request and reads its answer, which must be a result
// (for tools/call, one that is not isError). params is the request's params
// without _meta ("" for none); name is what Mcp-Name carries in 2026-07-28.
func (s *session) call(method, params, name string) error {
	id := s.nextID.Add(1)
	if s.ep.modern {
		params = withMeta(params, modernMeta)
	}
	resp, err := s.post(requestBody(id, method, params), method, name)
	if err != nil {
		return err
	}
	if err := readAnswer(resp, id); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	return nil
}

func (s *session) post(body []byte, method, name string) (*http.Response, error) {
	req, err := http.NewRequest(http.MethodPost, s.ep.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if s.ep.modern {
		req.Header.Set("MCP-Protocol-Version", modernVersion)
		req.Header.Set("Mcp-Method", method)
		if name != "" {
			req.Header.Set("Mcp-Name", name)
		}
	} else if s.id != "" {
		req.Header.Set("Mcp-Session-Id", s.id)
		req.Header.Set("MCP-Protocol-Version", legacyVersion)
	}
	return s.ep.client.Do(req)
}

func requestBody(id int64, method, params string) []byte {
	b := make([]byte, 0, 96+len(params))
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = strconv.AppendInt(b, id, 10)
	b = append(b, `,"method":`...)
	b = strconv.AppendQuote(b, method)
	if params != "" {
		b = append(b, `,"params":`...)
		b = append(b, params...)
	}
	return append(b, '}')
}

// withMeta adds a _meta member to a params object ("" is no params yet).
func withMeta(params, meta string) string {
	params = strings.TrimSpace(params)
	if params == "" || params == "{}" {
		return `{"_meta":` + meta + `}`
	}
	return params[:len(params)-1] + `,"_meta":` + meta + `}`
}

// readAnswer reads the response to request id from an HTTP response, a
// JSON body or an SSE stream, and closes the body after reading it to its
// end so that the connection is kept alive for the next request.
func readAnswer(resp *http.Response, id int64) error {
	defer resp.Body.Close()
	defer io.Copy(io.Discard, resp.Body) //nolint:errcheck // draining for keep-alive only
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("HTTP %s: %s", resp.Status, bytes.TrimSpace(b))
	}
	media, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch media {
	case "application/json":
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			return err
		}
		matched, err := checkAnswer(b, id)
		if err == nil && !matched {
			err = fmt.Errorf("the JSON answer is not the response to id %d: %.200s", id, b)
		}
		return err
	case "text/event-stream":
		return findSSEAnswer(resp.Body, id)
	default:
		return fmt.Errorf("unexpected Content-Type %q", resp.Header.Get("Content-Type"))
	}
}

// findSSEAnswer reads SSE events until one is the response to id; the
// events before it (notifications, priming events without data) are
// skipped.
func findSSEAnswer(r io.Reader, id int64) error {
	events := newSSEReader(r)
	for {
		data, err := events.next()
		if err == io.EOF {
			return fmt.Errorf("the event stream ended without the response to id %d", id)
		}
		if err != nil {
			return err
		}
		if len(data) == 0 {
			continue
		}
		matched, err := checkAnswer(data, id)
		if err != nil || matched {
			return err
		}
	}
}

// checkAnswer tells whether message is the response to id, and if it is,
// whether it failed. Anything else (a notification, a server request, an
// answer to another id) is not matched.
func checkAnswer(message []byte, id int64) (matched bool, err error) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Result *struct {
			IsError bool `json:"isError"`
		} `json:"result"`
		Error *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(message, &m); err != nil {
		return false, fmt.Errorf("not a JSON-RPC message: %v: %.200s", err, message)
	}
	if m.Method != "" || string(m.ID) != strconv.FormatInt(id, 10) {
		return false, nil
	}
	switch {
	case m.Error != nil:
		return true, fmt.Errorf("error %d: %s", m.Error.Code, m.Error.Message)
	case m.Result == nil:
		return true, fmt.Errorf("a response without result: %.200s", message)
	case m.Result.IsError:
		return true, fmt.Errorf("the tool failed: %.200s", message)
	}
	return true, nil
}

// sseReader splits a text/event-stream into the data of its events, as
// the HTML event-stream format defines it: data lines joined by "\n", a
// blank line ending the event, comments and other fields ignored. Lines
// end in "\n" or "\r\n" (no server measured uses a lone "\r").
type sseReader struct {
	r    *bufio.Reader
	data []byte
}

func newSSEReader(r io.Reader) *sseReader { return &sseReader{r: bufio.NewReader(r)} }

// next returns the data of the next event (empty for an event without
// data lines), or io.EOF once the stream ends; an event cut off by the end
// of the stream is not dispatched.
func (s *sseReader) next() ([]byte, error) {
	s.data = s.data[:0]
	hasData := false
	for {
		line, err := s.r.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			// A long line: read the rest of it.
			rest, rerr := s.r.ReadBytes('\n')
			line, err = append(append([]byte(nil), line...), rest...), rerr
		}
		if err != nil {
			if err == io.EOF {
				return nil, io.EOF
			}
			return nil, err
		}
		line = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
		if len(line) == 0 {
			return s.data, nil
		}
		if line[0] == ':' {
			continue
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		if string(field) == "data" {
			if hasData {
				s.data = append(s.data, '\n')
			}
			s.data = append(s.data, value...)
			hasData = true
		}
	}
}
