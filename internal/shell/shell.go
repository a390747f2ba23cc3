// Package shell marks the tool calls made from kontext's command line
// (`kontext capture`, `kontext call ctx_inbox`, …). Such a call goes
// through an in-process MCP session like an agent's, so the handler
// cannot tell it apart by its arguments; the mark lets it speak to a
// person at a shell — CLI verbs and flags (kontext prepare-commit
// --promote <id>) instead of tool calls — and record what a person
// captured as theirs.
package shell

import "context"

type key struct{}

// With marks ctx, and every context derived from it, as a call from the
// command line.
func With(ctx context.Context) context.Context { return context.WithValue(ctx, key{}, true) }

// From reports whether ctx carries the mark.
func From(ctx context.Context) bool {
	v, _ := ctx.Value(key{}).(bool)
	return v
}
