// Package legacyws carries MCP's JSON-RPC over a WebSocket, one message per
// text frame, as the TypeScript SDK's WebSocket transport did (subprotocol
// "mcp"). It is the App Context compatibility channel: an application whose
// manifest names only a WebSocket endpoint is reached through it inside the
// broker, and agents never see it.
package legacyws

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"sync"

	"github.com/coder/websocket"

	"github.com/kontext-dev/kontext/internal/mcp"
)

// Subprotocol is the WebSocket subprotocol both ends ask for.
const Subprotocol = "mcp"

// Handler serves srv over WebSocket: each upgraded connection is one MCP
// session, ended by the peer's close or by ctx. Put it behind an
// mcp.HTTPGuard: the upgrade request carries the bearer token.
func Handler(ctx context.Context, srv *mcp.Server) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := websocket.Accept(w, r, &websocket.AcceptOptions{Subprotocols: []string{Subprotocol}})
		if err != nil {
			return // Accept has answered
		}
		if c.Subprotocol() != Subprotocol {
			c.Close(websocket.StatusPolicyViolation, `the "mcp" subprotocol is required`)
			return
		}
		s := newStream(ctx, c)
		_ = srv.Serve(s.ctx, s)
		_ = s.Close()
	})
}

// Dial connects to url with the bearer token and negotiates MCP over it.
func Dial(ctx context.Context, url, token string, opts mcp.ClientOptions) (*mcp.Client, error) {
	c, resp, err := websocket.Dial(ctx, url, &websocket.DialOptions{
		HTTPHeader:   http.Header{"Authorization": {"Bearer " + token}},
		Subprotocols: []string{Subprotocol},
	})
	if err != nil {
		if resp != nil {
			return nil, errors.New("the WebSocket upgrade was refused: HTTP " + resp.Status)
		}
		return nil, err
	}
	if c.Subprotocol() != Subprotocol {
		c.Close(websocket.StatusPolicyViolation, `the "mcp" subprotocol is required`)
		return nil, errors.New(`the WebSocket endpoint did not accept the "mcp" subprotocol`)
	}
	// The connection outlives the dial's context: it ends with Close.
	client, err := mcp.Connect(ctx, newStream(context.Background(), c), opts)
	if err != nil {
		return nil, err
	}
	return client, nil
}

// stream is the byte stream the runtime's line framing reads and writes:
// each frame read becomes one line, each line written becomes one frame.
type stream struct {
	c      *websocket.Conn
	ctx    context.Context
	cancel context.CancelFunc

	rmu     sync.Mutex
	pending []byte

	wmu  sync.Mutex
	wbuf []byte

	closeOnce sync.Once
}

func newStream(parent context.Context, c *websocket.Conn) *stream {
	c.SetReadLimit(mcp.DefaultMaxMessageBytes)
	ctx, cancel := context.WithCancel(parent)
	return &stream{c: c, ctx: ctx, cancel: cancel}
}

func (s *stream) Read(p []byte) (int, error) {
	s.rmu.Lock()
	defer s.rmu.Unlock()
	for len(s.pending) == 0 {
		_, msg, err := s.c.Read(s.ctx)
		if err != nil {
			// A close from either side, or the end of ctx, ends the
			// session as the end of stdin does.
			return 0, io.EOF
		}
		s.pending = frameLine(msg)
	}
	n := copy(p, s.pending)
	s.pending = s.pending[n:]
	return n, nil
}

// frameLine is one frame as one line for the line framing (nil for an
// empty frame, which is skipped): a pretty-printed message is still one
// message, so its newlines go.
func frameLine(msg []byte) []byte {
	msg = bytes.TrimSpace(msg)
	if len(msg) == 0 {
		return nil
	}
	if bytes.IndexByte(msg, '\n') >= 0 {
		var compact bytes.Buffer
		if json.Compact(&compact, msg) == nil {
			msg = compact.Bytes()
		} else {
			msg = bytes.ReplaceAll(msg, []byte("\n"), []byte(" "))
		}
	}
	return append(msg, '\n')
}

func (s *stream) Write(p []byte) (int, error) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	s.wbuf = append(s.wbuf, p...)
	for {
		i := bytes.IndexByte(s.wbuf, '\n')
		if i < 0 {
			break
		}
		line := bytes.TrimSpace(s.wbuf[:i])
		if len(line) > 0 {
			if err := s.c.Write(s.ctx, websocket.MessageText, line); err != nil {
				s.wbuf = s.wbuf[:0]
				return 0, err
			}
		}
		s.wbuf = s.wbuf[i+1:]
	}
	return len(p), nil
}

func (s *stream) Close() error {
	s.closeOnce.Do(func() {
		_ = s.c.Close(websocket.StatusNormalClosure, "")
		s.cancel()
	})
	return nil
}
