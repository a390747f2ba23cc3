package check

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/kontext-dev/kontext/appcontext"
	"github.com/kontext-dev/kontext/gen/protocol"
	"github.com/kontext-dev/kontext/internal/apps/journal"
	"github.com/kontext-dev/kontext/internal/apps/manifest"
	"github.com/kontext-dev/kontext/internal/mcp"
)

func (r *run) endpointHandshake() error {
	ctx, cancel := r.request()
	defer cancel()
	r.acks = make(chan protocol.SubscriptionFilter, 16)
	c, err := mcp.ConnectHTTP(ctx, r.m.Mcp.URL, mcp.HTTPOptions{Token: manifest.Token(r.m)}, mcp.ClientOptions{
		Info: mcp.Implementation{Name: "kontext-apps-check", Version: r.opts.Version}, Era: r.opts.Era,
		OnNotification: r.notified, Logger: r.opts.Logger,
	})
	if err != nil {
		return fmt.Errorf("handshake: %v", err)
	}
	r.client = c
	if !slices.Contains(r.m.Mcp.ProtocolVersions, c.Version) {
		return fmt.Errorf("the endpoint negotiated protocol revision %s, which the manifest's protocolVersions %v do not list", c.Version, r.m.Mcp.ProtocolVersions)
	}
	return nil
}

// notified keeps the acknowledgements of listen streams: in 2026-07-28
// they say which subscriptions the endpoint honours.
func (r *run) notified(method string, params json.RawMessage) {
	if method != "notifications/subscriptions/acknowledged" {
		return
	}
	var ack struct {
		Notifications protocol.SubscriptionFilter `json:"notifications"`
	}
	if json.Unmarshal(params, &ack) != nil {
		return
	}
	select {
	case r.acks <- ack.Notifications:
	default:
	}
}

func (r *run) instanceEcho() error {
	if _, err := manifest.Echo(r.client.ResultMeta, r.m); err != nil {
		return errors.New(strings.TrimPrefix(err.Error(), "instance echo: "))
	}
	ctx, cancel := r.request()
	defer cancel()
	tools, err := r.client.ListTools(ctx)
	if err != nil {
		return fmt.Errorf("tools/list: %v", err)
	}
	resources, err := r.client.ListResources(ctx)
	if err != nil {
		return fmt.Errorf("resources/list: %v", err)
	}
	r.tools, r.resources = tools, resources
	return nil
}

// failures joins what several actions or keys got wrong into one reason.
func failures(what []string) error {
	if len(what) == 0 {
		return nil
	}
	return errors.New(strings.Join(what, "; "))
}

func (r *run) actionDialect() error {
	var bad []string
	for _, t := range r.tools {
		var schema map[string]json.RawMessage
		if err := json.Unmarshal(t.InputSchema, &schema); err != nil {
			bad = append(bad, fmt.Sprintf("%s: the input schema is not a JSON object", t.Name))
			continue
		}
		var dialect string
		raw, ok := schema["$schema"]
		if !ok {
			bad = append(bad, fmt.Sprintf("%s: the input schema names no dialect ($schema)", t.Name))
		} else if json.Unmarshal(raw, &dialect) != nil || dialect == "" {
			bad = append(bad, fmt.Sprintf("%s: the input schema's $schema is not a non-empty string", t.Name))
		}
	}
	return failures(bad)
}

func (r *run) actionDestructiveness() error {
	var bad []string
	for _, t := range r.tools {
		if a := t.Annotations; a == nil || (a.ReadOnlyHint == nil && a.DestructiveHint == nil) {
			bad = append(bad, fmt.Sprintf("%s states neither readOnlyHint nor destructiveHint (a broker treats it as destructive)", t.Name))
		}
	}
	return failures(bad)
}

func (r *run) actionConfirmation() error {
	var bad []string
	for _, t := range r.tools {
		a := t.Annotations
		if a == nil || a.DestructiveHint == nil || !*a.DestructiveHint || (a.ReadOnlyHint != nil && *a.ReadOnlyHint) {
			continue
		}
		var meta map[string]json.RawMessage
		var action struct {
			Confirmation *struct {
				Required bool `json:"required"`
			} `json:"confirmation"`
		}
		if json.Unmarshal(t.Meta, &meta) == nil {
			_ = json.Unmarshal(meta[appcontext.MetaAction], &action)
		}
		if action.Confirmation == nil || !action.Confirmation.Required {
			bad = append(bad, fmt.Sprintf("%s is destructive and declares no confirmation (_meta %s.confirmation.required)", t.Name, appcontext.MetaAction))
		}
	}
	return failures(bad)
}

func (r *run) prefix() string {
	return "appcontext://apps/" + url.PathEscape(r.m.AppID) + "/" + url.PathEscape(r.m.InstanceID) + "/"
}

func (r *run) listed(uri string) bool {
	return slices.ContainsFunc(r.resources, func(res protocol.Resource) bool { return res.URI == uri })
}

// stateKeys are the keys resources/list names, with their URIs.
func (r *run) stateKeys() (keys []string, uris map[string]string) {
	uris = map[string]string{}
	p := r.prefix() + "state/"
	for _, res := range r.resources {
		if esc, ok := strings.CutPrefix(res.URI, p); ok && esc != "" {
			if key, err := url.PathUnescape(esc); err == nil {
				keys = append(keys, key)
				uris[key] = res.URI
			}
		}
	}
	slices.Sort(keys)
	return keys, uris
}

// read reads a resource's one text content.
func (r *run) read(uri string) (string, error) {
	ctx, cancel := r.request()
	defer cancel()
	res, err := r.client.ReadResource(ctx, uri)
	if err != nil {
		return "", err
	}
	if len(res.Contents) != 1 {
		return "", fmt.Errorf("%d contents, not one", len(res.Contents))
	}
	return res.Contents[0].Text, nil
}

func (r *run) stateReadable() error {
	stateURI := r.prefix() + "state"
	if !r.listed(stateURI) {
		return fmt.Errorf("resources/list does not list %s", stateURI)
	}
	keys, uris := r.stateKeys()
	// State may change between the reads of the whole and of a key; a
	// disagreement counts only when a second round repeats it.
	var err error
	for range 2 {
		if err = r.readState(stateURI, keys, uris); err == nil {
			return nil
		}
	}
	return err
}

func (r *run) readState(stateURI string, keys []string, uris map[string]string) error {
	text, err := r.read(stateURI)
	if err != nil {
		return fmt.Errorf("reading %s: %v", stateURI, err)
	}
	var whole map[string]any
	if err := json.Unmarshal([]byte(text), &whole); err != nil || whole == nil {
		return fmt.Errorf("%s does not read as a JSON object", stateURI)
	}
	var bad []string
	for _, key := range keys {
		text, err := r.read(uris[key])
		if err != nil {
			bad = append(bad, fmt.Sprintf("state key %q: %v", key, err))
			continue
		}
		var v any
		if err := json.Unmarshal([]byte(text), &v); err != nil {
			bad = append(bad, fmt.Sprintf("state key %q does not read as JSON", key))
			continue
		}
		if w, ok := whole[key]; !ok || !reflect.DeepEqual(v, w) {
			bad = append(bad, fmt.Sprintf("state key %q reads differently from its value in %s", key, stateURI))
		}
	}
	for key := range whole {
		if _, ok := uris[key]; !ok {
			bad = append(bad, fmt.Sprintf("state key %q is in %s but resources/list does not list it", key, stateURI))
		}
	}
	slices.Sort(bad)
	return failures(bad)
}

// subscribe subscribes to uri and, in 2026-07-28, insists that the
// listen stream's acknowledgement honours it.
func (r *run) subscribe(uri string) error {
	ctx, cancel := r.request()
	defer cancel()
	r.drainAcks()
	if err := r.client.Subscribe(ctx, uri); err != nil {
		return fmt.Errorf("subscribing to %s: %v", uri, err)
	}
	if !r.client.Modern {
		return nil
	}
	select {
	case ack := <-r.acks:
		if !slices.Contains(ack.ResourceSubscriptions, uri) {
			return fmt.Errorf("subscribing to %s: the listen stream's acknowledgement does not honour it", uri)
		}
		return nil
	case <-ctx.Done():
		return fmt.Errorf("subscribing to %s: no acknowledgement of the listen stream", uri)
	}
}

func (r *run) unsubscribe(uri string) error {
	ctx, cancel := r.request()
	defer cancel()
	if err := r.client.Unsubscribe(ctx, uri); err != nil {
		return fmt.Errorf("unsubscribing from %s: %v", uri, err)
	}
	return nil
}

func (r *run) drainAcks() {
	for {
		select {
		case <-r.acks:
		default:
			return
		}
	}
}

func (r *run) stateSubscribable() error {
	if caps := r.client.Capabilities.Resources; caps == nil || caps.Subscribe == nil || !*caps.Subscribe {
		return errors.New("the endpoint does not advertise resources.subscribe")
	}
	keys, keyURIs := r.stateKeys()
	uris := []string{r.prefix() + "state"}
	for _, k := range keys {
		uris = append(uris, keyURIs[k])
	}
	var bad []string
	var subscribed []string
	for _, uri := range uris {
		if err := r.subscribe(uri); err != nil {
			bad = append(bad, err.Error())
			continue
		}
		subscribed = append(subscribed, uri)
	}
	for _, uri := range subscribed {
		if err := r.unsubscribe(uri); err != nil {
			bad = append(bad, err.Error())
		}
	}
	return failures(bad)
}

// readJournal reads the events resource as a journal.
func (r *run) readJournal(uri string) (journal.Snapshot, error) {
	var j journal.Snapshot
	text, err := r.read(uri)
	if err != nil {
		return j, fmt.Errorf("reading %s: %v", uri, err)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal([]byte(text), &fields); err != nil {
		return j, fmt.Errorf("%s does not read as a JSON object", uri)
	}
	for _, f := range []string{"firstSeq", "lastSeq", "dropped", "events"} {
		if _, ok := fields[f]; !ok {
			return j, fmt.Errorf("%s does not read as a journal: no %s", uri, f)
		}
	}
	if err := json.Unmarshal([]byte(text), &j); err != nil {
		return j, fmt.Errorf("%s does not read as a journal: %v", uri, err)
	}
	return j, nil
}

// settle is how long the journal may take to clear after the last
// subscriber left (the endpoint hears of it asynchronously).
const settle = 2 * time.Second

func (r *run) eventsSubscribed() error {
	uri := r.prefix() + "events"
	if !r.listed(uri) {
		return fmt.Errorf("resources/list does not list %s", uri)
	}
	before, err := r.readJournal(uri)
	if err != nil {
		return err
	}
	if n := len(before.Events); n > 0 {
		return fmt.Errorf("the journal holds %s before this check subscribed (seq %d…%d): events are recorded without a subscriber (or another client, such as a running broker, follows them)", plural(n, "event"), before.FirstSeq, before.LastSeq)
	}
	if err := r.subscribe(uri); err != nil {
		return err
	}
	if _, err := r.readJournal(uri); err != nil {
		_ = r.unsubscribe(uri)
		return fmt.Errorf("while subscribed: %v", err)
	}
	if err := r.unsubscribe(uri); err != nil {
		return err
	}
	deadline := time.Now().Add(settle)
	for {
		after, err := r.readJournal(uri)
		if err != nil {
			return fmt.Errorf("after unsubscribing: %v", err)
		}
		if len(after.Events) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the journal still holds %s %s after this check unsubscribed: it is not cleared when its last subscriber leaves", plural(len(after.Events), "event"), settle)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
