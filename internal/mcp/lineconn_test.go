package mcp

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
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
func TestServerDropsResponses(t *testing.T) {
	var logged strings.Builder
	srv, err := NewServer(Implementation{Name: "k", Version: "1"}, Options{Logger: slog.New(slog.NewTextHandler(&logged, nil))})
	if err != nil {
		t.Fatal(err)
	}
	input := strings.Repeat(`{"jsonrpc":"2.0","id":6,"result":{}}`+"\n", 3) +
		`[{"jsonrpc":"2.0","id":7,"error":{"code":1,"message":"x"}}]` + "\n"
	conn := &dataErrConn{Reader: strings.NewReader(input)}
	lines := newLineConn(conn, conn, conn, 0)
	lines.logf = func(format string, args ...any) { srv.log.Warn(fmt.Sprintf(format, args...)) }
	if err := srv.serve(context.Background(), lines); err != nil {
		t.Fatal(err)
	}
	if len(lines.queue) != 0 || len(lines.pending) != 0 {
		t.Errorf("the server's conn kept %d messages and %d requests, want none", len(lines.queue), len(lines.pending))
	}
	if n := strings.Count(logged.String(), "dropped a response"); n != 4 {
		t.Errorf("logged %d dropped responses, want 4:\n%s", n, logged.String())
	}
	if conn.out.Len() != 0 {
		t.Errorf("the server answered responses: %q", conn.out.String())
	}
}
