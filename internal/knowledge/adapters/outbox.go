package adapters

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/kontext-dev/kontext/internal/atomicfile"
)

// The outbox keeps the capture and promote deliveries that failed and
// tries them again, as the original's does: each time an event is
// delivered, and when kontext mcp starts serving (RetryKept). One file per
// event, entry, adapter and op (so a later failure for the same entry
// replaces the older one) under StateDir/outbox. A delivery is tried at
// most outboxAttempts times within outboxMaxAge, then dropped with a
// warning. Sync deliveries are not kept: the next sync of an entry tries
// every subscriber that does not have its version yet.
const (
	outboxAttempts = 8
	outboxMaxAge   = 7 * 24 * time.Hour
	// outboxClaimAge is how long a retry may hold a delivery before
	// another process takes it back (its process died).
	outboxClaimAge = 10 * time.Minute
)

// kept is one delivery waiting in the outbox.
type kept struct {
	Event    string         `json:"event"`
	Fields   map[string]any `json:"fields"`
	Adapter  string         `json:"adapter"`
	Op       string         `json:"op"`
	Attempts int            `json:"attempts"`
	First    time.Time      `json:"first"`
	Last     time.Time      `json:"last"`
	Error    string         `json:"error"`
}

func (m *Manager) outboxDir() string {
	if m.opts.StateDir == "" {
		return ""
	}
	return filepath.Join(m.opts.StateDir, "outbox")
}

// outboxName is the file of a delivery: the same for every delivery of
// that event of that entry to that op.
func outboxName(event string, fields map[string]any, adapter, op string) string {
	id := fmt.Sprint(fields["id"])
	if id == "" || id == "<nil>" {
		id = fmt.Sprint(fields["path"])
	}
	sum := sha256.Sum256([]byte(event + "\x00" + id + "\x00" + adapter + "\x00" + op))
	return event + "-" + hex.EncodeToString(sum[:8]) + ".json"
}

// keepable reports whether a failed delivery is worth trying again: not
// when the adapter may not run at all, or has no such op.
func keepable(err error) bool {
	var nr *NotReadyError
	if errors.As(err, &nr) && nr.State != StateFailing {
		return false
	}
	return !errors.Is(err, ErrNoOp)
}

// keep records the outcome of a first delivery: a failure that is worth
// it waits in the outbox, a success clears what waited for the same entry.
func (m *Manager) keep(ev Event, d Delivery) {
	dir := m.outboxDir()
	if dir == "" || ev.Name == EventSync {
		return
	}
	path := filepath.Join(dir, outboxName(ev.Name, ev.Fields, d.Adapter, d.Op))
	if d.Err == nil {
		_ = os.Remove(path)
		return
	}
	if !keepable(d.Err) {
		return
	}
	now := m.opts.Now()
	k := kept{Event: ev.Name, Fields: ev.Fields, Adapter: d.Adapter, Op: d.Op, Attempts: 1, First: now, Last: now, Error: d.Err.Error()}
	if err := m.writeKept(path, k); err != nil {
		m.log.Warn("adapter delivery not kept for retry", "adapter", d.Adapter, "op", d.Op, "error", err)
	}
}

func (m *Manager) writeKept(path string, k kept) error {
	b, err := json.Marshal(k)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return atomicfile.Write(path, b, 0o600)
}

// Kept counts the deliveries waiting in the outbox, per adapter.
func (m *Manager) Kept() map[string]int {
	out := map[string]int{}
	dir := m.outboxDir()
	if dir == "" {
		return out
	}
	paths, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	for _, p := range paths {
		var k kept
		if b, err := os.ReadFile(p); err == nil && json.Unmarshal(b, &k) == nil {
			out[k.Adapter]++
		}
	}
	return out
}

// RetryKept tries the deliveries waiting in the outbox again, one at a
// time, and returns how many went through and how many still wait. An
// adapter cooling down keeps its deliveries for the next time; one that
// was removed from the configuration, or may no longer run, loses them.
func (m *Manager) RetryKept(ctx context.Context) (delivered, waiting int) {
	dir := m.outboxDir()
	if dir == "" {
		return 0, 0
	}
	m.reclaimStale(dir)
	paths, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	sort.Strings(paths)
	for _, path := range paths {
		if ctx.Err() != nil {
			return delivered, waiting + 1
		}
		switch m.retryOne(ctx, path) {
		case retryDelivered:
			delivered++
		case retryWaiting:
			waiting++
		}
	}
	return delivered, waiting
}

type retryOutcome int

const (
	retryDelivered retryOutcome = iota
	retryWaiting
	retryDropped
	retryTaken // another process has it
)

func (m *Manager) retryOne(ctx context.Context, path string) retryOutcome {
	// Renaming claims the file: a second process finds it gone.
	claim := path + ".claim"
	if err := os.Rename(path, claim); err != nil {
		return retryTaken
	}
	b, err := os.ReadFile(claim)
	var k kept
	if err != nil || json.Unmarshal(b, &k) != nil {
		m.log.Warn("adapter delivery dropped: its outbox file is unreadable", "file", path)
		_ = os.Remove(claim)
		return retryDropped
	}
	putBack := func() retryOutcome {
		if _, err := os.Stat(path); err == nil {
			// A newer failure of the same delivery was kept meanwhile.
			_ = os.Remove(claim)
			return retryWaiting
		}
		if err := os.Rename(claim, path); err != nil {
			_ = os.Remove(claim)
			return retryDropped
		}
		return retryWaiting
	}
	drop := func(why string) retryOutcome {
		m.log.Warn("adapter delivery dropped: "+why, "adapter", k.Adapter, "op", k.Op, "event", k.Event, "id", k.Fields["id"], "attempts", k.Attempts, "error", k.Error)
		_ = os.Remove(claim)
		return retryDropped
	}
	if m.opts.Now().Sub(k.First) > outboxMaxAge {
		return drop("it failed for longer than a week")
	}
	rt, err := m.get(k.Adapter)
	if err != nil {
		return drop("the adapter is no longer configured")
	}
	if err := rt.ready(); err != nil {
		if keepable(err) {
			return putBack() // cooling down: the next time
		}
		return drop(err.Error())
	}
	op := rt.def.Ops[k.Op]
	if op == nil {
		return drop("the adapter no longer has the op")
	}
	inputs := scope{}
	for key, v := range k.Fields {
		inputs[key] = v
	}
	if _, _, err := rt.run(ctx, k.Op, op, inputs); err != nil {
		k.Attempts++
		k.Last, k.Error = m.opts.Now(), err.Error()
		if k.Attempts >= outboxAttempts || !keepable(err) {
			return drop(fmt.Sprintf("%d attempts failed", k.Attempts))
		}
		if err := m.writeKept(claim, k); err != nil {
			return drop(err.Error())
		}
		return putBack()
	}
	_ = os.Remove(claim)
	return retryDelivered
}

// reclaimStale gives back the deliveries whose retry died with its
// process.
func (m *Manager) reclaimStale(dir string) {
	claims, _ := filepath.Glob(filepath.Join(dir, "*.json.claim"))
	for _, c := range claims {
		fi, err := os.Stat(c)
		if err != nil || time.Since(fi.ModTime()) < outboxClaimAge {
			continue
		}
		path := strings.TrimSuffix(c, ".claim")
		if _, err := os.Stat(path); err == nil {
			_ = os.Remove(c)
			continue
		}
		_ = os.Rename(c, path)
	}
}
