package mcp

import (
	"context"
	"strconv"
	"strings"

	"github.com/kontext-dev/kontext/gen/protocol"
)

// MaxCompletionValues is the most values one completion/complete answer
// carries (the specification's bound); total and hasMore tell the rest.
const MaxCompletionValues = 100

// Completer suggests values for one prompt argument or template variable.
// It may return every match, most relevant first: the server keeps the
// first MaxCompletionValues and reports how many there were.
type Completer func(ctx context.Context, req CompletionRequest) (*Completion, error)

// CompletionRequest is what a client asks a Completer.
type CompletionRequest struct {
	// Argument is the prompt argument or template variable being completed.
	Argument string
	// Value is what the user typed so far.
	Value string
	// Arguments are the values already chosen for the other arguments or
	// variables (context.arguments); nil when the client sent none.
	Arguments map[string]string
}

// Completion is a Completer's answer.
type Completion struct {
	// Values are the suggestions, most relevant first.
	Values []string
	// Total counts every suggestion when the Completer stopped early (it
	// then sets HasMore too); 0 means len(Values).
	Total int
	// HasMore says there are suggestions beyond Values even when Total is
	// not known.
	HasMore bool
}

// completesAny reports whether a toolset's prompts or templates can
// complete something.
func completesAny(prompts []*Prompt, templates []*ResourceTemplate) bool {
	for _, p := range prompts {
		for _, a := range p.Arguments {
			if a.Complete != nil {
				return true
			}
		}
	}
	for _, t := range templates {
		for _, c := range t.Complete {
			if c != nil {
				return true
			}
		}
	}
	return false
}

// completer finds what completes the argument a reference names. A
// known argument without a completer has none (nil, nil): it completes to
// nothing, as an argument of free text should. Errors name the prompt or
// template in data as prompts/get and resources/read do; the violation
// names the argument or the reference type.
func (s *Server) completer(ref protocol.CompleteReference, argument string) (Completer, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	switch ref.Type {
	case "ref/prompt":
		name := deref(ref.Name)
		p, ok := s.prompts[name]
		if !ok {
			return nil, InvalidParams(map[string]any{"prompt": name}, Violation{Path: "/ref/name", Message: "unknown prompt " + name})
		}
		for _, a := range p.Arguments {
			if a.Name == argument {
				return a.Complete, nil
			}
		}
		return nil, InvalidParams(map[string]any{"prompt": name}, Violation{Path: "/argument/name", Message: "prompt " + name + " has no argument " + argument})
	case "ref/resource":
		uri := deref(ref.URI)
		for _, t := range s.templates {
			if t.URITemplate != uri {
				continue
			}
			if !templateHasVar(t.URITemplate, argument) {
				return nil, InvalidParams(map[string]any{"uri": uri}, Violation{Path: "/argument/name", Message: "template " + uri + " has no variable " + argument})
			}
			return t.Complete[argument], nil
		}
		return nil, InvalidParams(map[string]any{"uri": uri}, Violation{Path: "/ref/uri", Message: "no resource template " + uri})
	default:
		return nil, InvalidParams(nil, Violation{Path: "/ref/type", Message: strconv.Quote(ref.Type) + " is neither ref/prompt nor ref/resource"})
	}
}

// templateHasVar reports whether a template of simple {var} expressions
// has the variable name.
func templateHasVar(template, name string) bool {
	return strings.Contains(template, "{"+name+"}")
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func (c *call) complete() (any, error) {
	var p protocol.CompleteParams
	if err := decodeParams(c.params, &p); err != nil {
		return nil, err
	}
	complete, err := c.ss.srv.completer(p.Ref, p.Argument.Name)
	if err != nil {
		return nil, err
	}
	var got *Completion
	if complete != nil {
		req := CompletionRequest{Argument: p.Argument.Name, Value: p.Argument.Value}
		if p.Context != nil {
			req.Arguments = p.Context.Arguments
		}
		if got, err = complete(c.ctx, req); err != nil {
			return nil, err
		}
	}
	return protocol.CompleteResult{Completion: bounded(got)}, nil
}

// bounded is a Completer's answer within the specification's limits.
func bounded(got *Completion) protocol.Completion {
	if got == nil {
		got = &Completion{}
	}
	out := protocol.Completion{Values: []string{}}
	total := max(got.Total, len(got.Values))
	values := got.Values
	if len(values) > MaxCompletionValues {
		values = values[:MaxCompletionValues]
	}
	out.Values = append(out.Values, values...)
	out.Total = &total
	out.HasMore = Bool(total > len(out.Values) || got.HasMore)
	return out
}
