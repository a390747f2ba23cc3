package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// callInput is shaped like a generated input: a plain model whose
// ApplyDefaults sets the defaults, including a true boolean and a string
// enum the arguments may override.
type callInput struct {
	Limit    int        `json:"limit,omitempty"`
	Adapters bool       `json:"adapters,omitempty"`
	Detail   string     `json:"detail,omitempty"`
	Kinds    StringList `json:"kinds,omitempty"`
}

func (in *callInput) ApplyDefaults() {
	in.Limit = 10
	in.Adapters = true
	in.Detail = "compact"
}

type callHandlers interface {
	Echo(ctx context.Context, in *callInput) (*ToolResult, error)
	Shape(ctx context.Context, in *callInput) (*callInput, error)
}

type recordingHandlers struct{ got *callInput }

func (h *recordingHandlers) Echo(_ context.Context, in *callInput) (*ToolResult, error) {
	h.got = in
	return TextResult("ok"), nil
}

func (h *recordingHandlers) Shape(_ context.Context, in *callInput) (*callInput, error) {
	h.got = in
	return in, nil
}

// TestCallAppliesDefaultsUnderArguments: an absent argument takes its
// default, a given one (false, 0-free values, a different enum value)
// replaces it, and a list's comma form still splits.
func TestCallAppliesDefaultsUnderArguments(t *testing.T) {
	h := &recordingHandlers{}
	call := Text(callHandlers(h), callHandlers.Echo, forms)
	for _, c := range []struct {
		args string
		want callInput
	}{
		{``, callInput{Limit: 10, Adapters: true, Detail: "compact"}},
		{`{}`, callInput{Limit: 10, Adapters: true, Detail: "compact"}},
		{`{"adapters":false,"detail":"full","limit":"70","kinds":"adr, learning"}`, callInput{Limit: 50, Adapters: false, Detail: "full", Kinds: StringList{"decision", "learning"}}},
	} {
		res, err := call(context.Background(), json.RawMessage(c.args))
		if err != nil {
			t.Fatalf("%s: %v", c.args, err)
		}
		got := *h.got
		if got.Limit != c.want.Limit || got.Adapters != c.want.Adapters || got.Detail != c.want.Detail || strings.Join(got.Kinds, ",") != strings.Join(c.want.Kinds, ",") {
			t.Errorf("%s: the handler got %+v, want %+v", c.args, got, c.want)
		}
		if c.args != `` && c.args != `{}` && !strings.Contains(string(res.Content[len(res.Content)-1]), "more than its maximum of 50") {
			t.Errorf("%s: the clamp note is missing from %s", c.args, res.Content)
		}
	}
}

// TestCallDoesNotValidateAgain: validation is the runtime's, against the
// advertised schema, before Call; the decode accepts what the model can
// hold, whatever a schema would say of it (here, an enum-free value).
func TestCallDoesNotValidateAgain(t *testing.T) {
	h := &recordingHandlers{}
	res, err := Structured(callHandlers(h), callHandlers.Shape, nil)(context.Background(), json.RawMessage(`{"detail":"anything"}`))
	if err != nil {
		t.Fatal(err)
	}
	if h.got.Detail != "anything" || res.Structured == nil {
		t.Fatalf("handler got %+v, result %+v", h.got, res)
	}
	// A value the model cannot hold is still invalid params.
	_, err = Structured(callHandlers(h), callHandlers.Shape, nil)(context.Background(), json.RawMessage(`{"limit":"ten"}`))
	if e, ok := asProtocolError(err); !ok || e.Code != -32602 {
		t.Fatalf("want invalid params for a string limit, got %v", err)
	}
}

// TestCallWithNilHandlersDescribes: a toolset built with nil handlers (to
// describe it) can make its Calls; only calling one needs handlers.
func TestCallWithNilHandlersDescribes(t *testing.T) {
	var h callHandlers
	if Text(h, callHandlers.Echo, nil) == nil || Structured(h, callHandlers.Shape, nil) == nil {
		t.Fatal("no Call made")
	}
}
