package journal

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestRecordsOnlyWhileRecording(t *testing.T) {
	j := New()
	if _, ok := j.Append("x", nil, time.Now()); ok {
		t.Fatal("recorded while not recording")
	}
	j.SetRecording(true)
	ev, ok := j.Append("x", json.RawMessage(`{"a":1}`), time.Now())
	if !ok || ev.Seq != 1 {
		t.Fatalf("first event = %+v, %v", ev, ok)
	}
	j.Append("x", nil, time.Now())
	j.SetRecording(false)
	if s := j.Snapshot(); len(s.Events) != 0 || s.FirstSeq != 0 {
		t.Fatalf("stopping kept %+v", s)
	}
	j.SetRecording(true)
	ev, _ = j.Append("x", nil, time.Now())
	if ev.Seq != 3 {
		t.Fatalf("seq after a restart = %d, want 3 (never reused)", ev.Seq)
	}
}

func TestBoundAfterAThousandEvents(t *testing.T) {
	j := New()
	j.SetRecording(true)
	for i := 0; i < 1000; i++ {
		j.Append("note_added", json.RawMessage(`{"text":"a short note"}`), time.Now())
	}
	s := j.Snapshot()
	if len(s.Events) != MaxEvents || s.Dropped != 1000-MaxEvents || s.FirstSeq != 1000-MaxEvents+1 || s.LastSeq != 1000 {
		t.Fatalf("held %d, dropped %d, seq %d…%d", len(s.Events), s.Dropped, s.FirstSeq, s.LastSeq)
	}
	for i := 1; i < len(s.Events); i++ {
		if s.Events[i].Seq != s.Events[i-1].Seq+1 {
			t.Fatalf("seq not monotonic at %d", i)
		}
	}
	// Large events hit the byte bound first.
	j = New()
	j.SetRecording(true)
	big := json.RawMessage(`"` + strings.Repeat("x", 3000) + `"`)
	for i := 0; i < 1000; i++ {
		j.Append("big", big, time.Now())
	}
	s = j.Snapshot()
	b, _ := json.Marshal(s.Events)
	if len(b) > MaxBytes || len(s.Events) >= MaxEvents || s.Dropped != uint64(1000-len(s.Events)) {
		t.Fatalf("byte bound: %d events, %d bytes, dropped %d", len(s.Events), len(b), s.Dropped)
	}
	j.Skip(5)
	if got := j.Snapshot().Dropped; got != s.Dropped+5 {
		t.Fatalf("Skip: dropped %d", got)
	}
	if ev, _ := j.Append("after", nil, time.Now()); ev.Seq != s.LastSeq+6 {
		t.Fatalf("Skip: the next event is seq %d, want %d", ev.Seq, s.LastSeq+6)
	}
}

func TestLargeDataIsTruncatedToValidJSON(t *testing.T) {
	j := New()
	j.SetRecording(true)
	data, _ := json.Marshal(map[string]string{"text": strings.Repeat("ž", 5000)})
	ev, _ := j.Append("big", data, time.Now())
	var s string
	if !ev.Truncated || len(ev.Data) > MaxData+64 || json.Unmarshal(ev.Data, &s) != nil || !strings.HasPrefix(s, `{"text":"žž`) {
		t.Fatalf("truncated = %v, %d bytes", ev.Truncated, len(ev.Data))
	}
	ev, _ = j.Append("bad", json.RawMessage(`not json`), time.Now())
	if string(ev.Data) != `"not json"` {
		t.Fatalf("invalid JSON kept as %s", ev.Data)
	}
}

func TestConcurrentUse(t *testing.T) {
	j := New()
	j.SetRecording(true)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				j.Append("x", nil, time.Now())
				_ = j.Snapshot()
			}
		}()
	}
	wg.Wait()
	if s := j.Snapshot(); s.LastSeq != 1600 || s.Dropped != 1600-MaxEvents {
		t.Fatalf("last %d dropped %d", s.LastSeq, s.Dropped)
	}
}
