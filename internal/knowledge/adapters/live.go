package adapters

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/kontext-dev/kontext/internal/atomicfile"
	"github.com/kontext-dev/kontext/internal/procstart"
)

// Adapters run inside kontext mcp, but kontext adapters list runs in
// another process: each manager with a StateDir keeps its adapters' states
// in a small file of its own (adapters-<pid>.json), which the listing reads
// while that process lives. Reasons are redacted before they are written.

// LiveState is what a running kontext process says of one adapter.
type LiveState struct {
	State   State     `json:"state"`
	Reason  string    `json:"reason,omitempty"`
	Hash    string    `json:"hash"`
	Updated time.Time `json:"updated"`
	PID     int       `json:"pid"`
}

type liveFile struct {
	PID      int                  `json:"pid"`
	Start    string               `json:"start,omitempty"`
	Adapters map[string]LiveState `json:"adapters"`
}

func liveFileName(pid int) string { return "adapters-" + strconv.Itoa(pid) + ".json" }

// persist writes the states when they changed since the last write.
func (m *Manager) persist() {
	if m.opts.StateDir == "" {
		return
	}
	pid := os.Getpid()
	f := liveFile{PID: pid, Adapters: map[string]LiveState{}}
	f.Start, _ = procstart.Of(pid)
	for _, rt := range m.runtimes() {
		st := rt.status()
		if st.State != StateRunning && st.State != StateFailing {
			continue
		}
		f.Adapters[st.Name] = LiveState{State: st.State, Reason: st.Reason, Hash: rt.def.Hash(), PID: pid}
	}
	b, err := json.Marshal(f)
	if err != nil {
		return
	}
	m.liveMu.Lock()
	defer m.liveMu.Unlock()
	if bytes.Equal(b, m.liveLast) {
		return
	}
	m.liveLast = b
	// The time is left out of the comparison: only a change is written.
	now := m.opts.Now().UTC()
	for k, v := range f.Adapters {
		v.Updated = now
		f.Adapters[k] = v
	}
	out, _ := json.Marshal(f)
	path := filepath.Join(m.opts.StateDir, liveFileName(pid))
	if len(f.Adapters) == 0 {
		_ = os.Remove(path)
		return
	}
	if err := os.MkdirAll(m.opts.StateDir, 0o700); err != nil {
		return
	}
	if err := atomicfile.Write(path, out, 0o600); err != nil {
		m.log.Debug("adapters: state file not written", "error", err)
	}
}

func (m *Manager) removeLive() {
	if m.opts.StateDir == "" {
		return
	}
	_ = os.Remove(filepath.Join(m.opts.StateDir, liveFileName(os.Getpid())))
}

// ReadLive returns, per adapter, the latest state the live kontext
// processes of dir report; files of processes that are gone are removed.
func ReadLive(dir string) map[string]LiveState {
	out := map[string]LiveState{}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return out
	}
	for _, e := range ents {
		name := e.Name()
		if !strings.HasPrefix(name, "adapters-") || !strings.HasSuffix(name, ".json") {
			continue
		}
		path := filepath.Join(dir, name)
		b, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		var f liveFile
		if json.Unmarshal(b, &f) != nil || !alive(f.PID, f.Start) {
			_ = os.Remove(path)
			continue
		}
		for n, s := range f.Adapters {
			if old, ok := out[n]; !ok || s.Updated.After(old.Updated) {
				out[n] = s
			}
		}
	}
	return out
}

// alive reports whether pid still names the process that wrote the file.
func alive(pid int, start string) bool {
	if pid <= 0 {
		return false
	}
	if now, err := procstart.Of(pid); err == nil {
		return start == "" || now == start && !procstart.Exited(pid)
	} else if !errors.Is(err, procstart.ErrUnknown) {
		return false
	}
	p, err := os.FindProcess(pid)
	return err == nil && p.Signal(syscall.Signal(0)) == nil
}
