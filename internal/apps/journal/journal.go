// Package journal is the App Context events journal: a bounded, sequenced
// ring that records an instance's events only while someone follows them.
// Applications keep one for their events resource and the broker keeps its
// own per instance, fed from the application's.
package journal

import (
	"encoding/json"
	"sync"
	"time"
	"unicode/utf8"
)

// The bounds (documented in docs/appcontext-profile.md): at most MaxEvents
// events or MaxBytes of their JSON, whichever is reached first; an event's
// data longer than MaxData is cut.
const (
	MaxEvents = 256
	MaxBytes  = 64 << 10
	MaxData   = 4 << 10
)

// Event is one journalled event. Seq counts from 1 per journal and is
// never reused, not even after the ring is cleared.
type Event struct {
	Seq  uint64          `json:"seq"`
	At   time.Time       `json:"at"`
	Type string          `json:"type"`
	Data json.RawMessage `json:"data,omitempty"`
	// Truncated says Data was cut: it is then a JSON string holding the
	// first MaxData bytes of the original JSON.
	Truncated bool `json:"truncated,omitempty"`
}

// Snapshot is what a read of the journal returns.
type Snapshot struct {
	// FirstSeq and LastSeq bound the events held (0 when none).
	FirstSeq uint64 `json:"firstSeq"`
	LastSeq  uint64 `json:"lastSeq"`
	// Dropped counts the events recorded and since pushed out by the
	// bounds (or lost before they reached this journal) while recording.
	Dropped uint64  `json:"dropped"`
	Events  []Event `json:"events"`
}

// Journal is safe for concurrent use.
type Journal struct {
	mu        sync.Mutex
	recording bool
	next      uint64
	events    []Event
	sizes     []int
	bytes     int
	dropped   uint64
}

// New returns a journal that is not recording.
func New() *Journal { return &Journal{next: 1} }

// SetRecording starts or stops recording. Stopping clears the ring and the
// dropped count; the sequence goes on.
func (j *Journal) SetRecording(on bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.recording == on {
		return
	}
	j.recording = on
	if !on {
		j.events, j.sizes, j.bytes, j.dropped = nil, nil, 0, 0
	}
}

// Recording reports whether events are being recorded.
func (j *Journal) Recording() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.recording
}

// Append records an event, unless the journal is not recording (false).
// Data that is not valid JSON is kept as a JSON string.
func (j *Journal) Append(typ string, data json.RawMessage, at time.Time) (Event, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if !j.recording {
		return Event{}, false
	}
	ev := Event{Seq: j.next, At: at.UTC(), Type: typ}
	j.next++
	if len(data) > 0 {
		if !json.Valid(data) {
			data, _ = json.Marshal(string(data))
		}
		if len(data) > MaxData {
			ev.Data, _ = json.Marshal(cut(string(data), MaxData))
			ev.Truncated = true
		} else {
			ev.Data = data
		}
	}
	size := encodedSize(ev)
	j.events = append(j.events, ev)
	j.sizes = append(j.sizes, size)
	j.bytes += size
	for len(j.events) > MaxEvents || (j.bytes > MaxBytes && len(j.events) > 1) {
		j.bytes -= j.sizes[0]
		j.events, j.sizes = j.events[1:], j.sizes[1:]
		j.dropped++
	}
	return ev, true
}

// Skip accounts for n events lost before they reached the journal (a gap
// in the sequence of the journal it is fed from): they count as dropped
// and use up their sequence numbers, so the gap stays visible in the
// sequence too.
func (j *Journal) Skip(n uint64) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.recording {
		j.dropped += n
		j.next += n
	}
}

// Snapshot returns the events held now.
func (j *Journal) Snapshot() Snapshot {
	j.mu.Lock()
	defer j.mu.Unlock()
	s := Snapshot{Dropped: j.dropped, Events: append([]Event{}, j.events...)}
	if len(j.events) > 0 {
		s.FirstSeq, s.LastSeq = j.events[0].Seq, j.events[len(j.events)-1].Seq
	}
	return s
}

func encodedSize(ev Event) int {
	b, _ := json.Marshal(ev)
	return len(b) + 1 // the comma between events
}

// cut keeps at most n bytes of s without splitting a UTF-8 character.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n]
	for len(s) > 0 && !utf8.ValidString(s) {
		s = s[:len(s)-1]
	}
	return s
}
