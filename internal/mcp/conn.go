package mcp

import "encoding/json"

// conn is what a session needs of its connection: messages in, answers and
// notifications out. It is shaped after the go-sdk's Connection so that a
// transport framing messages differently (streamable HTTP delivers them
// per POST, not per line) is one more implementation beside lineConn and
// leaves the session alone. The connection owns the wire: ids, batches,
// and the answers to messages that never reach the session (malformed,
// invalid, oversized).
type conn interface {
	// read returns the next inbound message: a request, a notification, or
	// a response (to a request the session never sends: it is dropped). It
	// returns an error only when the input has ended.
	read() (*inbound, error)
	// respond answers the request behind token, once: a second answer, or
	// one to a discarded request, is dropped. member is "result" or
	// "error", body its JSON value, which may be shared with other
	// sessions (a kept list page): it is read, never changed or kept.
	respond(token uint64, member string, body []byte) error
	// discard forgets a request that will never be answered (the client
	// cancelled it), so that whatever waits for it (a batch) can go on.
	discard(token uint64)
	// send writes a message the server originates (a notification, or a
	// request to the client), complete. related is the token of the
	// request it belongs to (progress and log messages of a call, the
	// acknowledgement and events of subscriptions/listen, a request a
	// handler makes of the client), or 0 for none. A framing with one
	// stream ignores it; streamable HTTP writes a related message on the
	// stream that answers that request, and the rest on the session's own.
	send(related uint64, message []byte) error
	// close ends the connection: the peer reads EOF once it has what was
	// written.
	close() error
}

// inbound is one message a connection delivered.
type inbound struct {
	token  uint64          // the connection's handle on a request, for respond
	wireID json.RawMessage // nil for a notification
	method string
	params json.RawMessage
	// response is set, and the fields above are not, when the message is a
	// response.
	response *wireMessage

	batch *batch // lineConn: the batch the request came in
	pos   int    // its place there
}

func (in *inbound) isNotification() bool { return in.response == nil && in.wireID == nil }
