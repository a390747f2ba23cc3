package mcp

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// dataErrConn reads its input in one Read that also reports io.EOF, as
// io.Reader allows.
type dataErrConn struct {
	io.Reader
	out bytes.Buffer
}

func (c *dataErrConn) Write(p []byte) (int, error) { return c.out.Write(p) }
func (c *dataErrConn) Close() error                { return nil }

// A reader may return the last data together with io.EOF; what the server
// answers to that data must still be written.
func TestServeAnswersDataReadWithEOF(t *testing.T) {
	srv, err := NewServer(Implementation{Name: "k", Version: "1"}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	conn := &dataErrConn{Reader: iotest.DataErrReader(strings.NewReader(
		`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n" + `{"jsonrpc":"2.0","id":2,"method":"ping"}` + "\n"))}
	if err := srv.Serve(context.Background(), conn); err != nil {
		t.Fatal(err)
	}
	want := `{"jsonrpc":"2.0","id":1,"result":{}}` + "\n" + `{"jsonrpc":"2.0","id":2,"result":{}}` + "\n"
	if got := conn.out.String(); got != want {
		t.Errorf("the server wrote %q, want %q", got, want)
	}
}

// The server sends no requests, so a response from the client answers
// nothing: it is dropped, not kept.
func TestServerStreamDropsResponses(t *testing.T) {
	var logged []string
	s := newLineStream(strings.NewReader(""), io.Discard, nil, 0)
	s.direct = true
	s.logf = func(format string, _ ...any) { logged = append(logged, format) }
	for range 3 {
		s.accept([]byte(`{"jsonrpc":"2.0","id":6,"result":{}}`))
	}
	s.accept([]byte(`[{"jsonrpc":"2.0","id":7,"error":{"code":1,"message":"x"}}]`))
	if len(s.queue) != 0 || len(s.inQueue) != 0 {
		t.Errorf("the server stream kept %d responses and %d messages, want none", len(s.queue), len(s.inQueue))
	}
	if len(logged) != 4 {
		t.Errorf("logged %d dropped responses, want 4", len(logged))
	}
}
