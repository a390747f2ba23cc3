package tools

import (
	"context"
	"log/slog"

	"github.com/kontext-dev/kontext/internal/knowledge"
	"github.com/kontext-dev/kontext/internal/knowledge/adapters"
	"github.com/kontext-dev/kontext/internal/knowledge/store"
)

// deliver tells the adapters that subscribe to the event about the
// entries, in the background: a delivery never delays or fails the tool.
// Each op is bounded by its adapter's deadline; a failure is logged (the
// manager's errors carry no secret, its redaction applied).
//
// A failed delivery waits in the manager's outbox, and the deliveries
// that wait are tried again after each new one.
func (h *Handlers) deliver(ctx context.Context, o *knowledge.Opened, event string, entries ...*store.Entry) {
	if len(entries) == 0 || len(o.Config.Adapters) == 0 {
		return
	}
	mgr, err := h.svc.Adapters(ctx)
	if mgr == nil {
		if err != nil {
			slog.Warn("knowledge: the "+event+" event is not delivered", "error", knowledge.OneParagraph(err.Error(), 300))
		}
		return
	}
	var events []adapters.Event
	for _, e := range entries {
		events = append(events, adapters.Event{Name: event, Fields: o.EventFields(e)})
	}
	// The call's context ends with the call; the delivery outlives it.
	bg := context.WithoutCancel(ctx)
	h.events.Add(1)
	go func() {
		defer h.events.Done()
		for _, ev := range events {
			for _, d := range mgr.Deliver(bg, ev) {
				if d.Err != nil {
					slog.Warn("knowledge: adapter delivery failed", "event", event, "adapter", d.Adapter, "op", d.Op, "id", ev.Fields["id"], "error", knowledge.OneParagraph(d.Err.Error(), 300))
				}
			}
		}
		mgr.RetryKept(bg)
	}()
}

// WaitEvents waits for the deliveries under way (tests, and a server
// that shuts down).
func (h *Handlers) WaitEvents() { h.events.Wait() }
