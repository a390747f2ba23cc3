package mcp

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/kontext-dev/kontext/gen/errcodes"
)

// Error is a JSON-RPC error. A handler returns one to answer with a protocol
// error instead of a failed tool result.
type Error struct {
	Code    int64
	Message string
	Data    any
}

func (e *Error) Error() string {
	if e.Data != nil {
		if b, err := json.Marshal(e.Data); err == nil {
			return fmt.Sprintf("%s (%d): %s", e.Message, e.Code, b)
		}
	}
	return fmt.Sprintf("%s (%d)", e.Message, e.Code)
}

// MarshalJSON encodes the JSON-RPC error object.
func (e *Error) MarshalJSON() ([]byte, error) {
	type wire struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
		Data    any    `json:"data,omitempty"`
	}
	return json.Marshal(wire{e.Code, e.Message, e.Data})
}

// NewError returns an error with the code's standard message.
func NewError(code int64, data any) *Error {
	return &Error{Code: code, Message: errcodes.Message(code), Data: data}
}

// Violation is one reason params were refused.
type Violation struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

// InvalidParams is -32602 with data naming each violation, plus any extra
// members (tool, uri, cursor, …).
func InvalidParams(extra map[string]any, violations ...Violation) *Error {
	data := map[string]any{}
	for k, v := range extra {
		data[k] = v
	}
	if len(violations) > 0 {
		data["violations"] = violations
	}
	return NewError(errcodes.InvalidParams, data)
}

// asProtocolError reports whether err is (or wraps) a protocol error.
func asProtocolError(err error) (*Error, bool) {
	var e *Error
	if errors.As(err, &e) {
		return e, true
	}
	return nil, false
}
