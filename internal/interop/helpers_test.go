package interop_test

import (
	"bytes"
	"os"
	"sync"
	"testing"
	"time"
)

// events records what a client's callbacks received, for tests to wait on.
type events struct {
	mu   sync.Mutex
	list []event
	wake chan struct{}
}

type event struct {
	kind  string
	value any
}

func newEvents() *events { return &events{wake: make(chan struct{}, 1)} }

func (e *events) add(kind string, value any) {
	e.mu.Lock()
	e.list = append(e.list, event{kind, value})
	e.mu.Unlock()
	select {
	case e.wake <- struct{}{}:
	default:
	}
}

// all returns the values recorded for kind, in order.
func (e *events) all(kind string) []any {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []any
	for _, ev := range e.list {
		if ev.kind == kind {
			out = append(out, ev.value)
		}
	}
	return out
}

// waitFor waits until n values of kind satisfying match were recorded.
func (e *events) waitFor(kind string, n int, match func(any) bool, timeout time.Duration) bool {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		count := 0
		for _, v := range e.all(kind) {
			if match == nil || match(v) {
				count++
			}
		}
		if count >= n {
			return true
		}
		select {
		case <-e.wake:
		case <-time.After(20 * time.Millisecond):
		case <-deadline.C:
			return false
		}
	}
}

// waitTrace waits until the trace holds at least n lines containing substr
// (for example the server's acknowledgement of a subscriptions/listen).
func waitTrace(t *testing.T, path, substr string, n int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		b, _ := os.ReadFile(path)
		if bytes.Count(b, []byte(substr)) >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the trace %s never held %d× %s", path, n, substr)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// testkitTools are the testkit toolset's tools, sorted.
var testkitTools = []string{"add", "choose", "echo", "fail", "read_file", "sleep", "toggle_bonus", "write_note"}
