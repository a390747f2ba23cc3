// Package tools implements the apps toolset's generated handlers on the
// broker.
package tools

import (
	"context"

	spec "github.com/kontext-dev/kontext/gen/toolsets/apps"
	"github.com/kontext-dev/kontext/internal/apps"
	"github.com/kontext-dev/kontext/internal/apps/results"
	"github.com/kontext-dev/kontext/internal/mcp"
)

type handlers struct{ b *apps.Broker }

var _ spec.Handlers = handlers{}

// Toolset serves the broker's stable tools and resource templates; the
// broker adds the typed tools itself once it is attached to the server.
func Toolset(b *apps.Broker) *mcp.Toolset {
	ts := spec.Toolset(handlers{b})
	ts.Close = b.Close
	if b.ReadOnly() {
		// Under --read-only app_call calls only actions that say they
		// only read, so it reads only too, and --read-only keeps it.
		for _, t := range ts.Tools {
			if t.Name == "app_call" {
				t.Annotations = mcp.Annotations{ReadOnly: mcp.Bool(true), OpenWorld: mcp.Bool(false)}
			}
		}
	}
	return ts
}

func (h handlers) AppsList(context.Context, *spec.AppsListInput) (*results.Instances, error) {
	return h.b.List(), nil
}

func (h handlers) AcpListApps(context.Context, *spec.AcpListAppsInput) (*results.Instances, error) {
	return h.b.List(), nil
}

func (h handlers) AppDescribe(ctx context.Context, in *spec.AppDescribeInput) (*results.Description, error) {
	return h.b.Describe(ctx, in.InstanceID)
}

func (h handlers) AppState(ctx context.Context, in *spec.AppStateInput) (*results.State, error) {
	return h.b.State(ctx, in.InstanceID, in.Keys)
}

func (h handlers) AcpGetState(ctx context.Context, in *spec.AcpGetStateInput) (*results.State, error) {
	return h.b.State(ctx, in.InstanceID, in.Keys)
}

func (h handlers) AppCall(ctx context.Context, in *spec.AppCallInput) (*results.Call, error) {
	return h.b.Call(ctx, in.InstanceID, in.Action, in.Arguments)
}

func (h handlers) ReadAppState(ctx context.Context, v *spec.AppStateVars) (*mcp.ResourceContents, error) {
	return h.b.ReadState(ctx, v.App, v.Instance, "", true)
}

func (h handlers) ListAppState(context.Context) ([]*mcp.Resource, error) {
	return h.b.Resources(apps.StateResource), nil
}

func (h handlers) ReadAppStateKey(ctx context.Context, v *spec.AppStateKeyVars) (*mcp.ResourceContents, error) {
	return h.b.ReadState(ctx, v.App, v.Instance, v.Key, false)
}

func (h handlers) ListAppStateKey(context.Context) ([]*mcp.Resource, error) {
	return h.b.Resources(apps.KeyResource), nil
}

func (h handlers) ReadAppEvents(_ context.Context, v *spec.AppEventsVars) (*mcp.ResourceContents, error) {
	return h.b.ReadEvents(v.App, v.Instance)
}

func (h handlers) ListAppEvents(context.Context) ([]*mcp.Resource, error) {
	return h.b.Resources(apps.EventsResource), nil
}
