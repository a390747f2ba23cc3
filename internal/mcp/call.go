package mcp

import (
	"context"
	"encoding/json"
)

// Input is a generated tool input type (a pointer to it): a plain model
// whose ApplyDefaults sets every parameter with a schema default, so that
// decoding the arguments over it leaves the defaults where an argument is
// absent. It does not validate: the arguments have passed the tool's input
// schema before Call runs.
type Input[T any] interface {
	*T
	ApplyDefaults()
}

// Structured makes the Call of a tool whose handler returns structured
// content: handle is a method expression of the toolset's generated
// Handlers interface (Handlers.GetDependents), which is safe to take when h
// is nil (the toolset is then only described, never called).
func Structured[H any, T any, In Input[T], Out any](h H, handle func(H, context.Context, In) (*Out, error), forms *ArgumentForms) func(context.Context, json.RawMessage) (*ToolResult, error) {
	return func(ctx context.Context, args json.RawMessage) (*ToolResult, error) {
		in, notes, err := decodeInput[T, In](args, forms)
		if err != nil {
			return nil, err
		}
		out, err := handle(h, ctx, in)
		if err != nil {
			return nil, err
		}
		res, err := StructuredResult(out)
		return WithNotes(res, err, notes)
	}
}

// Text makes the Call of a tool whose handler returns its own result
// (text blocks, an error result); see Structured.
func Text[H any, T any, In Input[T]](h H, handle func(H, context.Context, In) (*ToolResult, error), forms *ArgumentForms) func(context.Context, json.RawMessage) (*ToolResult, error) {
	return func(ctx context.Context, args json.RawMessage) (*ToolResult, error) {
		in, notes, err := decodeInput[T, In](args, forms)
		if err != nil {
			return nil, err
		}
		res, err := handle(h, ctx, in)
		return WithNotes(res, err, notes)
	}
}

// decodeInput decodes validated arguments over a new input's defaults.
func decodeInput[T any, In Input[T]](args json.RawMessage, forms *ArgumentForms) (In, []string, error) {
	in := In(new(T))
	in.ApplyDefaults()
	notes, err := DecodeArguments(args, in, forms)
	if err != nil {
		return nil, nil, err
	}
	return in, notes, nil
}
