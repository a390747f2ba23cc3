package mcp

import (
	"context"
	"encoding/json"
	"net/url"

	"github.com/kontext-dev/kontext/gen/protocol"
)

func unescape(s string) (string, error) { return url.PathUnescape(s) }

// levels are the RFC 5424 severities MCP logging uses, lowest first.
var levels = []string{"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"}

func levelIndex(level string) int {
	for i, l := range levels {
		if l == level {
			return i
		}
	}
	return -1
}

// Log sends a log message to the client of the request ctx belongs to, when
// the client asked for that level: through logging/setLevel in the legacy
// era, through io.modelcontextprotocol/logLevel on the request in the modern
// era (no level there: no messages).
func Log(ctx context.Context, level, logger string, data any) {
	c := callFrom(ctx)
	if c == nil {
		return
	}
	want := levelIndex(level)
	if want < 0 {
		return
	}
	if c.modern {
		if c.logLevel < 0 || want < c.logLevel {
			return
		}
	} else {
		c.ss.mu.Lock()
		min := c.ss.logLevel
		c.ss.mu.Unlock()
		if want < min {
			return
		}
	}
	if c.state.Load() != stateRunning {
		return
	}
	c.ss.notifyFor(c.in.token, "notifications/message", protocol.LoggingMessageParams{
		Level:  protocol.LoggingLevel(level),
		Logger: strPtr(logger),
		Data:   data,
	})
}

// Progress reports progress on the request ctx belongs to, when the client
// gave a progressToken. Progress must increase; a report that does not is
// dropped.
func Progress(ctx context.Context, progress, total float64, message string) {
	c := callFrom(ctx)
	if c == nil || c.progress == nil || c.state.Load() != stateRunning {
		return
	}
	c.progressMu.Lock()
	defer c.progressMu.Unlock()
	if c.sentProgress && progress <= c.lastProgress {
		return
	}
	c.sentProgress, c.lastProgress = true, progress
	p := protocol.ProgressParams{ProgressToken: c.progress, Progress: progress, Message: strPtr(message)}
	if total > 0 {
		p.Total = &total
	}
	c.ss.notifyFor(c.in.token, "notifications/progress", p)
}

// listenSubscriptions serves subscriptions/listen (2026-07-28): it
// acknowledges what it honours, then stays open, carrying list-changed and
// resource-updated notifications tagged with its id, until the client
// cancels it (never answered) or the input ends (a graceful result).
func (c *call) listenSubscriptions() (any, error) {
	var p protocol.ListenParams
	if err := decodeParams(c.params, &p); err != nil {
		return nil, err
	}
	caps := c.ss.srv.capabilities()
	honoured := protocol.SubscriptionFilter{}
	if p.Notifications.ToolsListChanged != nil && *p.Notifications.ToolsListChanged && caps.tools {
		honoured.ToolsListChanged = Bool(true)
	}
	if p.Notifications.ResourcesListChanged != nil && *p.Notifications.ResourcesListChanged && caps.resources {
		honoured.ResourcesListChanged = Bool(true)
	}
	for _, uri := range p.Notifications.ResourceSubscriptions {
		if caps.resources && c.knownResource(uri) {
			honoured.ResourceSubscriptions = append(honoured.ResourceSubscriptions, uri)
		}
	}
	c.listen = &honoured
	c.ss.mu.Lock()
	c.ss.listeners[c.key] = c
	c.ss.mu.Unlock()
	c.ss.srv.follow(honoured.ResourceSubscriptions, 1)
	defer func() {
		c.ss.mu.Lock()
		if c.ss.listeners[c.key] == c {
			delete(c.ss.listeners, c.key)
		}
		c.ss.mu.Unlock()
		c.ss.srv.follow(honoured.ResourceSubscriptions, -1)
	}()
	c.ss.notifyFor(c.in.token, "notifications/subscriptions/acknowledged", map[string]any{
		"notifications": honoured,
		"_meta":         c.subscriptionMeta(),
	})
	<-c.ctx.Done()
	return nil, context.Canceled
}

func (c *call) subscriptionMeta() map[string]json.RawMessage {
	return map[string]json.RawMessage{"io.modelcontextprotocol/subscriptionId": c.in.wireID}
}

// endListen ends a listener gracefully (the input ended).
func (c *call) endListen() {
	if !c.state.CompareAndSwap(stateRunning, stateAnswered) {
		return
	}
	body := spliceMembers([]byte("{}"), append([]byte(`"resultType":"complete","_meta":`), marshal(c.subscriptionMeta())...))
	c.ss.conn.respond(c.in.token, "result", body)
	c.cancel()
}

func (ss *session) listening(want func(f *protocol.SubscriptionFilter) bool) []*call {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	var out []*call
	for _, c := range ss.listeners {
		if c.listen != nil && c.state.Load() == stateRunning && want(c.listen) {
			out = append(out, c)
		}
	}
	return out
}

func (ss *session) legacyReady() bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.initialized
}

func (ss *session) toolsChanged() {
	if ss.legacyReady() {
		ss.notify("notifications/tools/list_changed", struct{}{})
	}
	for _, c := range ss.listening(func(f *protocol.SubscriptionFilter) bool { return f.ToolsListChanged != nil }) {
		ss.notifyFor(c.in.token, "notifications/tools/list_changed", map[string]any{"_meta": c.subscriptionMeta()})
	}
}

func (ss *session) resourcesChanged() {
	if ss.legacyReady() && ss.srv.capabilities().resources {
		ss.notify("notifications/resources/list_changed", struct{}{})
	}
	for _, c := range ss.listening(func(f *protocol.SubscriptionFilter) bool { return f.ResourcesListChanged != nil }) {
		ss.notifyFor(c.in.token, "notifications/resources/list_changed", map[string]any{"_meta": c.subscriptionMeta()})
	}
}

func (ss *session) resourceUpdated(uri string) {
	ss.mu.Lock()
	subscribed := ss.subscribed[uri]
	ss.mu.Unlock()
	if subscribed {
		ss.notify("notifications/resources/updated", protocol.ResourceUpdatedParams{URI: uri})
	}
	for _, c := range ss.listening(func(f *protocol.SubscriptionFilter) bool {
		for _, u := range f.ResourceSubscriptions {
			if u == uri {
				return true
			}
		}
		return false
	}) {
		ss.notifyFor(c.in.token, "notifications/resources/updated", map[string]any{"uri": uri, "_meta": c.subscriptionMeta()})
	}
}

// RequestMeta returns the _meta object of the request ctx belongs to (nil
// when it had none): what a caller said beyond the arguments, such as an
// App Context broker's confirmation.
func RequestMeta(ctx context.Context) json.RawMessage {
	c := callFrom(ctx)
	if c == nil {
		return nil
	}
	return c.envelope.Meta
}
