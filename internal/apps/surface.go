package apps

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/kontext-dev/kontext/internal/apps/results"
	"github.com/kontext-dev/kontext/internal/mcp"
)

// List answers apps_list: every instance, the unavailable ones with why.
func (b *Broker) List() *results.Instances {
	out := &results.Instances{Instances: []results.Instance{}}
	b.mu.Lock()
	counts := map[*instance]int{}
	for _, t := range b.typed {
		counts[t.inst]++
	}
	insts := b.instancesLocked()
	b.mu.Unlock()
	for _, inst := range insts {
		s := inst.snapshot()
		s.Tools = counts[inst]
		out.Instances = append(out.Instances, s)
	}
	return out
}

// errNoInstance names an instanceId the broker does not know.
func errNoInstance(id string) error {
	return fmt.Errorf("no instance %q: it exited, restarted (a restarted application is another instance) or never was; apps_list lists the live ones", id)
}

// find returns an available instance by id, or a tool error naming it.
func (b *Broker) find(id string) (*instance, error) {
	inst, ok := b.Lookup(id)
	if !ok {
		return nil, errNoInstance(id)
	}
	if _, _, err := inst.available(); err != nil {
		return nil, err
	}
	return inst, nil
}

// Describe answers app_describe.
func (b *Broker) Describe(ctx context.Context, id string) (*results.Description, error) {
	inst, err := b.find(id)
	if err != nil {
		return nil, err
	}
	mount, m, err := inst.available()
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	toolOf := map[string]string{}
	for name, t := range b.typed {
		if t.inst == inst {
			toolOf[t.down.Name] = name
		}
	}
	b.mu.Unlock()
	inst.mu.Lock()
	keys, events := slices.Clone(inst.stateKeys), slices.Clone(inst.events)
	inst.mu.Unlock()
	out := &results.Description{
		AppID: m.AppID, InstanceID: m.InstanceID, Name: m.AppName, Version: m.AppVersion,
		Workspaces: append([]string{}, m.Workspaces...), Actions: []results.Action{}, StateKeys: append([]string{}, keys...),
		Events: append([]results.EventType{}, events...), Resources: []results.ResourceRef{},
	}
	for _, p := range mount.Tools() {
		d := p.Down
		a := results.Action{Name: d.Name, Description: deref(d.Description), Tool: toolOf[d.Name], InputSchema: d.InputSchema, OutputSchema: d.OutputSchema}
		if d.Annotations != nil {
			a.Annotations, _ = json.Marshal(d.Annotations)
		}
		if am := metaOf(d); am.Confirmation != nil && am.Confirmation.Required {
			a.ConfirmationRequired, a.ConfirmationPrompt = true, am.Confirmation.Prompt
		}
		out.Actions = append(out.Actions, a)
	}
	for _, uri := range inst.resourceURIs() {
		out.Resources = append(out.Resources, results.ResourceRef{URI: uri})
	}
	return out, nil
}

// State answers app_state: all of the state, or the keys asked for.
func (b *Broker) State(ctx context.Context, id string, keys []string) (*results.State, error) {
	inst, err := b.find(id)
	if err != nil {
		return nil, err
	}
	mount, m, err := inst.available()
	if err != nil {
		return nil, err
	}
	contents, err := mount.Read(ctx, uriPrefix(m.AppID, m.InstanceID)+"state")
	if err != nil {
		return nil, fmt.Errorf("reading the state of %s (instance %s): %w", m.AppName, m.InstanceID, err)
	}
	all := map[string]json.RawMessage{}
	if len(contents) == 0 || json.Unmarshal([]byte(contents[0].Text), &all) != nil {
		return nil, fmt.Errorf("%s (instance %s) answered its state with something other than a JSON object", m.AppName, m.InstanceID)
	}
	out := &results.State{AppID: m.AppID, InstanceID: m.InstanceID, State: all}
	if len(keys) > 0 {
		out.State = map[string]json.RawMessage{}
		for _, k := range keys {
			if v, ok := all[k]; ok {
				out.State[k] = v
			} else if !slices.Contains(out.Missing, k) {
				out.Missing = append(out.Missing, k)
			}
		}
	}
	return out, nil
}

// Call answers app_call: the action by its exact name, forwarded as its
// typed tool would be.
func (b *Broker) Call(ctx context.Context, id, action string, args json.RawMessage) (*results.Call, error) {
	inst, err := b.find(id)
	if err != nil {
		return nil, err
	}
	res, err := inst.call(ctx, action, args)
	if err != nil {
		return nil, err
	}
	_, m, _ := inst.available()
	if m == nil {
		return nil, errNoInstance(id)
	}
	if res.IsError {
		return nil, fmt.Errorf("%s of %s (app %s, instance %s) failed: %s", action, m.AppName, m.AppID, m.InstanceID, resultText(res))
	}
	out := &results.Call{AppID: m.AppID, InstanceID: m.InstanceID, Action: action, Content: res.Content}
	if out.Content == nil {
		out.Content = []json.RawMessage{}
	}
	if res.Structured != nil {
		out.StructuredContent, _ = json.Marshal(res.Structured)
	}
	return out, nil
}

// resultText joins a result's text blocks.
func resultText(res *mcp.ToolResult) string {
	var parts []string
	for _, c := range res.Content {
		var block struct {
			Type, Text string
		}
		if json.Unmarshal(c, &block) == nil && block.Type == "text" {
			parts = append(parts, block.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// ReadState answers resources/read for a state or state-key URI; (nil,
// nil) when no live instance has it.
func (b *Broker) ReadState(ctx context.Context, app, id, key string, whole bool) (*mcp.ResourceContents, error) {
	inst, ok := b.Lookup(id)
	if !ok || inst.appID() != app {
		return nil, nil
	}
	mount, m, err := inst.available()
	if err != nil {
		return nil, nil
	}
	uri := uriPrefix(m.AppID, m.InstanceID) + "state"
	if !whole {
		uri += "/" + url.PathEscape(key)
	}
	contents, err := mount.Read(ctx, uri)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", uri, err)
	}
	if len(contents) == 0 {
		return nil, nil
	}
	c := contents[0]
	c.URI = uri
	if c.MIMEType == "" {
		c.MIMEType = "application/json"
	}
	return &c, nil
}

// ReadEvents answers resources/read for an events URI from the broker's
// journal.
func (b *Broker) ReadEvents(app, id string) (*mcp.ResourceContents, error) {
	inst, ok := b.Lookup(id)
	if !ok || inst.appID() != app {
		return nil, nil
	}
	_, m, err := inst.available()
	if err != nil {
		return nil, nil
	}
	body, err := json.Marshal(inst.journal.Snapshot())
	if err != nil {
		return nil, err
	}
	return &mcp.ResourceContents{URI: uriPrefix(m.AppID, m.InstanceID) + "events", MIMEType: "application/json", Text: string(body)}, nil
}

// Resources lists one kind of resource of every available instance.
func (b *Broker) Resources(kind resourceKind) []*mcp.Resource {
	var out []*mcp.Resource
	for _, inst := range b.Instances() {
		inst.mu.Lock()
		if inst.status != stateAvailable || inst.closed {
			inst.mu.Unlock()
			continue
		}
		m, keys := inst.m, slices.Clone(inst.stateKeys)
		inst.mu.Unlock()
		p := uriPrefix(m.AppID, m.InstanceID)
		label := m.AppName + " (" + m.InstanceID + ")"
		switch kind {
		case resourceState:
			out = append(out, &mcp.Resource{URI: p + "state", Name: "state", Title: label + " state", MIMEType: "application/json"})
		case resourceKey:
			for _, k := range keys {
				out = append(out, &mcp.Resource{URI: p + "state/" + url.PathEscape(k), Name: k, Title: label + " state: " + k, MIMEType: "application/json"})
			}
		case resourceEvents:
			out = append(out, &mcp.Resource{URI: p + "events", Name: "events", Title: label + " events", MIMEType: "application/json"})
		}
	}
	return out
}

// Resource kinds, for the toolset's handlers.
const (
	StateResource  = resourceState
	KeyResource    = resourceKey
	EventsResource = resourceEvents
)
