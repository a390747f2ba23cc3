package mcp

import (
	"context"
	"io"
	"os"
	"sync"
)

// stdio joins the process's stdin and stdout. Closing it closes neither:
// the process owns them.
type stdio struct{}

func (stdio) Read(p []byte) (int, error)  { return os.Stdin.Read(p) }
func (stdio) Write(p []byte) (int, error) { return os.Stdout.Write(p) }
func (stdio) Close() error                { return nil }

// ServeStdio serves one connection over the process's stdin and stdout.
func (s *Server) ServeStdio(ctx context.Context) error {
	return s.Serve(ctx, stdio{})
}

// NewInMemoryTransport returns the two ends of an in-memory connection: give
// one to Server.Serve (or a Client) and use the other as the peer. Each end
// reads what the other writes. It is built on channels so that tests running
// in a synctest bubble see it as durably blocking.
func NewInMemoryTransport() (serverEnd, clientEnd io.ReadWriteCloser) {
	a := newPipe()
	b := newPipe()
	return &memEnd{r: a, w: b}, &memEnd{r: b, w: a}
}

type memEnd struct {
	r, w *pipe
}

func (e *memEnd) Read(p []byte) (int, error)  { return e.r.read(p) }
func (e *memEnd) Write(p []byte) (int, error) { return e.w.write(p) }

// Close ends what this end writes: the other end reads EOF once it has read
// everything written before.
func (e *memEnd) Close() error {
	e.w.close()
	return nil
}

// pipe is a one-way, unbounded byte queue.
type pipe struct {
	mu     sync.Mutex
	buf    []byte
	closed bool
	ready  chan struct{} // has one token when buf is non-empty or closed
}

func newPipe() *pipe { return &pipe{ready: make(chan struct{}, 1)} }

func (p *pipe) signal() {
	select {
	case p.ready <- struct{}{}:
	default:
	}
}

func (p *pipe) write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return 0, io.ErrClosedPipe
	}
	p.buf = append(p.buf, b...)
	p.signal()
	return len(b), nil
}

func (p *pipe) read(b []byte) (int, error) {
	for {
		p.mu.Lock()
		if len(p.buf) > 0 {
			n := copy(b, p.buf)
			p.buf = p.buf[n:]
			if len(p.buf) > 0 || p.closed {
				p.signal()
			}
			p.mu.Unlock()
			return n, nil
		}
		if p.closed {
			p.signal()
			p.mu.Unlock()
			return 0, io.EOF
		}
		p.mu.Unlock()
		<-p.ready
	}
}

func (p *pipe) close() {
	p.mu.Lock()
	p.closed = true
	p.signal()
	p.mu.Unlock()
}
