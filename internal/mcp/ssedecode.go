package mcp

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strconv"
	"time"
)

// sseDecoder reads a text/event-stream as the HTML Living Standard's
// "event stream interpretation" defines it: lines ended by CRLF, LF or a lone
// CR; comments; field names with an optional value after the colon (one
// leading space stripped); data lines joined with LF; id kept across events
// (ignored when it holds NUL); retry only when all ASCII digits. The bytes
// come from whatever server a client was pointed at, so every line and every
// event's data are bounded.
type sseDecoder struct {
	r   *bufio.Reader
	max int

	// lastID is the last event id the stream set: the Last-Event-ID to
	// resume with.
	lastID string
	// retry is the reconnection time the stream asked for, or 0.
	retry time.Duration

	started   bool // the optional byte order mark has been looked for
	skipLF    bool // the previous line ended with CR: a LF next is its end
	eventType string
	data      []byte
	hasData   bool
}

// receivedEvent is one event an sseDecoder dispatched.
type receivedEvent struct {
	ID   string // the stream's last event id when the event was dispatched
	Type string // "" for the default, "message"
	Data []byte
}

// errSSETooLarge reports a line or an event larger than the bound.
var errSSETooLarge = errors.New("server-sent event larger than the limit")

func newSSEDecoder(r io.Reader, maxBytes int) *sseDecoder {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxMessageBytes
	}
	return &sseDecoder{r: bufio.NewReaderSize(r, 32<<10), max: maxBytes}
}

// next returns the next event. At the end of the stream it returns io.EOF
// (an event not ended by a blank line is dropped, as the standard says), and
// errSSETooLarge past the bound.
func (d *sseDecoder) next() (receivedEvent, error) {
	for {
		line, err := d.line()
		if err != nil {
			return receivedEvent{}, err
		}
		if len(line) == 0 {
			if !d.hasData {
				d.eventType = ""
				continue
			}
			ev := receivedEvent{ID: d.lastID, Type: d.eventType, Data: bytes.TrimSuffix(d.data, []byte{'\n'})}
			d.data, d.hasData, d.eventType = nil, false, ""
			return ev, nil
		}
		d.field(line)
	}
}

func (d *sseDecoder) field(line []byte) {
	if line[0] == ':' {
		return // a comment (a keep-alive, usually)
	}
	name, value := line, []byte(nil)
	if i := bytes.IndexByte(line, ':'); i >= 0 {
		name, value = line[:i], line[i+1:]
		value = bytes.TrimPrefix(value, []byte{' '})
	}
	switch string(name) {
	case "event":
		d.eventType = string(value)
	case "data":
		d.data = append(append(d.data, value...), '\n')
		d.hasData = true
	case "id":
		if bytes.IndexByte(value, 0) < 0 {
			d.lastID = string(value)
		}
	case "retry":
		if len(value) > 0 && allDigits(value) {
			if ms, err := strconv.ParseInt(string(value), 10, 64); err == nil && ms <= int64(time.Hour/time.Millisecond) {
				d.retry = time.Duration(ms) * time.Millisecond
			}
		}
	}
}

func allDigits(b []byte) bool {
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// line returns the next line without its terminator. The bound covers the
// line and the data gathered so far, so no event outgrows it.
func (d *sseDecoder) line() ([]byte, error) {
	if !d.started {
		d.started = true
		if bom, err := d.r.Peek(3); err == nil && bytes.Equal(bom, []byte("\xef\xbb\xbf")) {
			_, _ = d.r.Discard(3)
		}
	}
	var line []byte
	for {
		c, err := d.r.ReadByte()
		if err != nil {
			if err == io.EOF {
				return nil, io.EOF
			}
			return nil, err
		}
		if d.skipLF {
			d.skipLF = false
			if c == '\n' {
				continue
			}
		}
		switch c {
		case '\r':
			d.skipLF = true
			return line, nil
		case '\n':
			return line, nil
		}
		if len(line)+len(d.data) >= d.max {
			return nil, errSSETooLarge
		}
		line = append(line, c)
	}
}
