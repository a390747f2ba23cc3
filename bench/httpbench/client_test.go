//go:build linux

package main

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

func response(status int, contentType, body string) *http.Response {
	return &http.Response{StatusCode: status, Status: http.StatusText(status), Header: http.Header{"Content-Type": {contentType}}, Body: io.NopCloser(strings.NewReader(body))}
}

func TestReadAnswerFromSSE(t *testing.T) {
	// What servers send before the answer: a priming event without data,
	// a comment, a notification, another request's answer; the answer's
	// JSON is split over two data lines and the lines end in CRLF.
	stream := "id: 0\r\ndata:\r\n\r\n" +
		": keep-alive\r\n\r\n" +
		"event: message\r\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\r\n\r\n" +
		"data: {\"jsonrpc\":\"2.0\",\"id\":6,\"result\":{}}\r\n\r\n" +
		"event: message\r\nid: 9\r\ndata: {\"jsonrpc\":\"2.0\",\r\ndata:\"id\":7,\"result\":{\"content\":[]}}\r\n\r\n"
	if err := readAnswer(response(200, "text/event-stream", stream), 7); err != nil {
		t.Errorf("readAnswer: %v", err)
	}
	if err := readAnswer(response(200, "text/event-stream", stream), 8); err == nil {
		t.Error("a stream without the answer to id 8 was taken for it")
	}
	// An event cut off by the end of the stream is not an answer.
	if err := readAnswer(response(200, "text/event-stream", `data: {"jsonrpc":"2.0","id":7,"result":{}}`+"\n"), 7); err == nil {
		t.Error("an event without its closing blank line was dispatched")
	}
}

func TestReadAnswerFailures(t *testing.T) {
	for _, tc := range []struct {
		name string
		resp *http.Response
	}{
		{"HTTP status", response(404, "application/json", `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"Method not found"}}`)},
		{"JSON-RPC error", response(200, "application/json", `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid params"}}`)},
		{"tool error", response(200, "text/event-stream", "data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"isError\":true}}\n\n")},
		{"other id", response(200, "application/json", `{"jsonrpc":"2.0","id":2,"result":{}}`)},
		{"string id", response(200, "application/json", `{"jsonrpc":"2.0","id":"1","result":{}}`)},
		{"no result", response(200, "application/json", `{"jsonrpc":"2.0","id":1}`)},
		{"content type", response(200, "text/plain", `{"jsonrpc":"2.0","id":1,"result":{}}`)},
	} {
		if err := readAnswer(tc.resp, 1); err == nil {
			t.Errorf("%s: readAnswer accepted it", tc.name)
		}
	}
	if err := readAnswer(response(200, "application/json; charset=utf-8", `{"jsonrpc":"2.0","id":1,"result":{}}`), 1); err != nil {
		t.Errorf("a JSON answer: %v", err)
	}
}

func TestModernParams(t *testing.T) {
	for params, want := range map[string]string{
		"":                                   `{"_meta":{"v":1}}`,
		"{}":                                 `{"_meta":{"v":1}}`,
		`{"name":"add","arguments":{"a":1}}`: `{"name":"add","arguments":{"a":1},"_meta":{"v":1}}`,
	} {
		if got := withMeta(params, `{"v":1}`); got != want {
			t.Errorf("withMeta(%q) = %s, want %s", params, got, want)
		}
	}
	if got := string(requestBody(3, "tools/call", `{"name":"add"}`)); got != `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"add"}}` {
		t.Errorf("requestBody = %s", got)
	}
	if got := string(requestBody(0, "ping", "")); got != `{"jsonrpc":"2.0","id":0,"method":"ping"}` {
		t.Errorf("requestBody without params = %s", got)
	}
}
