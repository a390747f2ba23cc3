package tools

import (
	"context"
	"encoding/json"

	"github.com/kontext-dev/kontext/internal/mcp"
)

// The resources are the compact answers of the overview tools on the
// server's root, with every parameter at its default: the generated
// ApplyDefaults sets the defaults the schema states, exactly as for a call
// without arguments, so the two cannot drift apart.

func (h *Handlers) ReadRepositoryContext(ctx context.Context) (*mcp.ResourceContents, error) {
	return readAs(ctx, h.GetRepositoryContext)
}

func (h *Handlers) ReadRepositoryArchitecture(ctx context.Context) (*mcp.ResourceContents, error) {
	return readAs(ctx, h.GetArchitecture)
}

func (h *Handlers) ReadRepositoryDependencies(ctx context.Context) (*mcp.ResourceContents, error) {
	return readAs(ctx, h.GetDependencies)
}

func (h *Handlers) ReadRepositoryConventions(ctx context.Context) (*mcp.ResourceContents, error) {
	return readAs(ctx, h.GetConventions)
}

func (h *Handlers) ReadRepositoryDecisions(ctx context.Context) (*mcp.ResourceContents, error) {
	return readAs(ctx, h.GetDecisions)
}

func readAs[T any, In mcp.Input[T], Out any](ctx context.Context, tool func(context.Context, In) (*Out, error)) (*mcp.ResourceContents, error) {
	in := In(new(T))
	in.ApplyDefaults()
	out, err := tool(ctx, in)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, err
	}
	return &mcp.ResourceContents{Text: string(b)}, nil
}
