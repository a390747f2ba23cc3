package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"testing"
	"time"
)

// fakePeer is the server end of a client's connection, spoken to line by
// line.
type fakePeer struct {
	t  *testing.T
	r  *bufio.Reader
	w  io.Writer
	in chan string
}

func (p *fakePeer) send(line string) {
	if _, err := io.WriteString(p.w, line+"\n"); err != nil {
		p.t.Fatal(err)
	}
}

func (p *fakePeer) next() string {
	select {
	case line := <-p.in:
		return line
	case <-time.After(10 * time.Second):
		p.t.Fatal("the client wrote nothing for 10 s")
		return ""
	}
}

// The client answers what the server asks of it, ids verbatim (negative,
// strings) and batches as batches; notifications reach OnNotification;
// what the client sends is written as jsonrpc2 encodes it.
func TestClientOverLineConn(t *testing.T) {
	serverEnd, clientEnd := NewInMemoryTransport()
	peer := &fakePeer{t: t, w: serverEnd, in: make(chan string, 16)}
	go func() {
		sc := bufio.NewScanner(serverEnd)
		for sc.Scan() {
			peer.in <- sc.Text()
		}
		close(peer.in)
	}()
	notes := make(chan string, 4)
	connected := make(chan *Client, 1)
	go func() {
		c, err := Connect(context.Background(), clientEnd, ClientOptions{
			Info: Implementation{Name: "c", Version: "1"},
			Era:  EraLegacy,
			OnNotification: func(method string, params json.RawMessage) {
				notes <- method + " " + string(params)
			},
		})
		if err != nil {
			t.Error(err)
		}
		connected <- c
	}()

	if got, want := peer.next(), `{"id":1,"jsonrpc":"2.0","method":"initialize","params":{"capabilities":{},"clientInfo":{"name":"c","version":"1"},"protocolVersion":"2025-11-25"}}`; got != want {
		t.Fatalf("initialize went out as\n%s\nwant\n%s", got, want)
	}
	peer.send(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"fake","version":"1"}}}`)
	if got, want := peer.next(), `{"jsonrpc":"2.0","method":"notifications/initialized"}`; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
	c := <-connected
	if c == nil {
		t.FailNow()
	}
	defer c.Close()

	peer.send(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hi"}}`)
	if got, want := <-notes, `notifications/message {"level":"info","data":"hi"}`; got != want {
		t.Errorf("OnNotification saw %q, want %q", got, want)
	}
	peer.send(`{"jsonrpc":"2.0","id":"zzz","result":{}}`) // answers nothing: dropped
	peer.send(`{"jsonrpc":"2.0","id":-5,"method":"ping"}`)
	if got, want := peer.next(), `{"jsonrpc":"2.0","id":-5,"result":{}}`; got != want {
		t.Errorf("ping answered %s, want %s", got, want)
	}
	peer.send(`{"jsonrpc":"2.0","id":"r","method":"roots/list"}`)
	if got, want := peer.next(), `{"jsonrpc":"2.0","id":"r","result":{"roots":[]}}`; got != want {
		t.Errorf("roots/list answered %s, want %s", got, want)
	}
	peer.send(`[{"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"2.0","id":3,"method":"sampling/createMessage"}]`)
	if got, want := peer.next(), `[{"jsonrpc":"2.0","id":2,"result":{}},{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"Method not found","data":{"method":"sampling/createMessage","reason":"this client answers only ping and roots/list"}}}]`; got != want {
		t.Errorf("the batch answered\n%s\nwant\n%s", got, want)
	}

	pinged := make(chan error, 1)
	go func() { pinged <- c.Ping(context.Background()) }()
	if got, want := peer.next(), `{"id":2,"jsonrpc":"2.0","method":"ping"}`; got != want {
		t.Errorf("ping went out as %s, want %s", got, want)
	}
	peer.send(`{"jsonrpc":"2.0","id":2,"error":{"code":-32000,"message":"busy"}}`)
	if err := <-pinged; err == nil || err.Error() != "jsonrpc2: code -32000 message: busy" {
		t.Errorf("Ping returned %v, want the server's error", err)
	}
}
