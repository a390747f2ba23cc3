package apps

import (
	"encoding/json"
	"io"
	"sync"
	"time"
)

// auditLog writes one JSON line per forwarded call: when, which launch,
// which action, how it ended and how long it took. Argument values and
// results are never written.
type auditLog struct {
	mu sync.Mutex
	w  io.Writer
}

type auditLine struct {
	Audit      string `json:"audit"`
	Time       string `json:"time"`
	AppID      string `json:"appId"`
	InstanceID string `json:"instanceId"`
	Action     string `json:"action"`
	Outcome    string `json:"outcome"`
	DurationMs int64  `json:"durationMs"`
}

func (a *auditLog) write(appID, instanceID, action, outcome string, took time.Duration) {
	b, _ := json.Marshal(auditLine{
		Audit: "apps.call", Time: time.Now().UTC().Format(time.RFC3339Nano),
		AppID: appID, InstanceID: instanceID, Action: action, Outcome: outcome, DurationMs: took.Milliseconds(),
	})
	a.mu.Lock()
	defer a.mu.Unlock()
	_, _ = a.w.Write(append(b, '\n'))
}
