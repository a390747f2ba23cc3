package mcp

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"time"
)

// decodeAll returns every event of stream and the error that ended it.
func decodeAll(stream io.Reader, maxBytes int) (*sseDecoder, []receivedEvent, error) {
	d := newSSEDecoder(stream, maxBytes)
	var events []receivedEvent
	for {
		ev, err := d.next()
		if err != nil {
			return d, events, err
		}
		events = append(events, ev)
	}
}

func TestSSEDecoder(t *testing.T) {
	cases := []struct {
		name   string
		stream string
		want   []receivedEvent
		lastID string
		retry  time.Duration
	}{
		{"one event", "data: {}\n\n", []receivedEvent{{Data: []byte("{}")}}, "", 0},
		{"multi-line data joined with LF", "data: a\ndata: b\ndata:\n\n", []receivedEvent{{Data: []byte("a\nb\n")}}, "", 0},
		{"one leading space stripped, not two", "data:  a\ndata:b\n\n", []receivedEvent{{Data: []byte(" a\nb")}}, "", 0},
		{"comments skipped", ": keep-alive\ndata: x\n:\n\n", []receivedEvent{{Data: []byte("x")}}, "", 0},
		{"CRLF and lone CR end lines", "data: a\r\ndata: b\rdata: c\r\n\r\n", []receivedEvent{{Data: []byte("a\nb\nc")}}, "", 0},
		{"CR at a buffer edge then LF is one end", "data: a\r\n\r\ndata: b\r\r", []receivedEvent{{Data: []byte("a")}, {Data: []byte("b")}}, "", 0},
		{"byte order mark dropped", "\xef\xbb\xbfdata: x\n\n", []receivedEvent{{Data: []byte("x")}}, "", 0},
		{"ids persist across events", "id: 7\ndata: a\n\ndata: b\n\nid\ndata: c\n\n",
			[]receivedEvent{{ID: "7", Data: []byte("a")}, {ID: "7", Data: []byte("b")}, {Data: []byte("c")}}, "", 0},
		{"an id with NUL is ignored", "id: 1\n\nid: a\x00b\ndata: x\n\n", []receivedEvent{{ID: "1", Data: []byte("x")}}, "1", 0},
		{"an event with no data is not dispatched but its id counts", "id: 42\n\n", nil, "42", 0},
		{"event type kept, reset after dispatch", "event: ping\ndata: 1\n\ndata: 2\n\n",
			[]receivedEvent{{Type: "ping", Data: []byte("1")}, {Data: []byte("2")}}, "", 0},
		{"retry in milliseconds", "retry: 1500\n\n", nil, "", 1500 * time.Millisecond},
		{"retry not all digits is ignored", "retry: 1500\nretry: 12a\nretry: -3\nretry:\n\n", nil, "", 1500 * time.Millisecond},
		{"unknown fields ignored", "foo: bar\ndata: x\nidx: 9\n\n", []receivedEvent{{Data: []byte("x")}}, "", 0},
		{"an unterminated event is dropped", "data: a\n\ndata: b\n", []receivedEvent{{Data: []byte("a")}}, "", 0},
		{"a field without a colon has an empty value", "data\ndata\n\n", []receivedEvent{{Data: []byte("\n")}}, "", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// One byte at a time too, so a CRLF split across reads counts
			// once.
			for _, r := range []io.Reader{strings.NewReader(c.stream), iotest.OneByteReader(strings.NewReader(c.stream))} {
				d, got, err := decodeAll(r, 0)
				if !errors.Is(err, io.EOF) {
					t.Fatalf("ended with %v, want EOF", err)
				}
				if !sameEvents(got, c.want) {
					t.Fatalf("events %q, want %q", got, c.want)
				}
				if d.lastID != c.lastID && c.lastID != "" {
					t.Errorf("last id %q, want %q", d.lastID, c.lastID)
				}
				if d.retry != c.retry {
					t.Errorf("retry %v, want %v", d.retry, c.retry)
				}
			}
		})
	}
}

func TestSSEDecoderBound(t *testing.T) {
	t.Run("one long line", func(t *testing.T) {
		_, _, err := decodeAll(strings.NewReader("data: "+strings.Repeat("x", 100)+"\n\n"), 64)
		if !errors.Is(err, errSSETooLarge) {
			t.Fatalf("got %v, want errSSETooLarge", err)
		}
	})
	t.Run("many short data lines", func(t *testing.T) {
		_, _, err := decodeAll(strings.NewReader(strings.Repeat("data: xxxxxxxx\n", 20)+"\n"), 64)
		if !errors.Is(err, errSSETooLarge) {
			t.Fatalf("got %v, want errSSETooLarge", err)
		}
	})
	t.Run("within the bound", func(t *testing.T) {
		_, got, err := decodeAll(strings.NewReader("data: "+strings.Repeat("x", 50)+"\n\n"), 64)
		if !errors.Is(err, io.EOF) || len(got) != 1 {
			t.Fatalf("got %d events, %v", len(got), err)
		}
	})
}

func sameEvents(a, b []receivedEvent) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].ID != b[i].ID || a[i].Type != b[i].Type || !bytes.Equal(a[i].Data, b[i].Data) {
			return false
		}
	}
	return true
}

// encodeSSE writes events as a server would.
func encodeSSE(events []receivedEvent) []byte {
	var b bytes.Buffer
	for _, ev := range events {
		b.WriteString("id: " + ev.ID + "\n")
		if ev.Type != "" {
			b.WriteString("event: " + ev.Type + "\n")
		}
		for _, line := range bytes.Split(ev.Data, []byte{'\n'}) {
			b.WriteString("data: ")
			b.Write(line)
			b.WriteByte('\n')
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// FuzzSSE feeds the decoder untrusted bytes: it never panics, never returns
// an event beyond its bound, and what it decodes, encoded again, decodes to
// the same events.
func FuzzSSE(f *testing.F) {
	for _, seed := range []string{
		"data: {}\n\n",
		"id: 1\nretry: 10\nevent: message\ndata: a\ndata: b\n\n",
		": c\r\ndata:x\r\rdata\n\n",
		"\xef\xbb\xbfid: \x00\ndata: \n\n",
		"data: " + strings.Repeat("y", 300) + "\n\n",
	} {
		f.Add([]byte(seed))
	}
	const bound = 256
	f.Fuzz(func(t *testing.T, stream []byte) {
		_, events, err := decodeAll(bytes.NewReader(stream), bound)
		if !errors.Is(err, io.EOF) && !errors.Is(err, errSSETooLarge) {
			t.Fatalf("ended with %v", err)
		}
		for _, ev := range events {
			if len(ev.Data) > bound {
				t.Fatalf("an event of %d bytes passed a bound of %d", len(ev.Data), bound)
			}
		}
		_, again, err := decodeAll(bytes.NewReader(encodeSSE(events)), 1<<20)
		if !errors.Is(err, io.EOF) {
			t.Fatalf("re-encoded stream ended with %v", err)
		}
		if !sameEvents(events, again) {
			t.Fatalf("decoded %q, re-encoded and decoded %q", events, again)
		}
	})
}
