package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sync"
	"testing"
)

// beforeWrite runs hook before the first write that contains marker.
type beforeWrite struct {
	io.ReadWriteCloser
	marker []byte
	once   sync.Once
	hook   func()
}

func (w *beforeWrite) Write(b []byte) (int, error) {
	if bytes.Contains(b, w.marker) {
		w.once.Do(w.hook)
	}
	return w.ReadWriteCloser.Write(b)
}

// The list changes between two pages: the server refuses the stale cursor
// and the client lists again from the start, so the caller gets the new
// list whole, not pages of two lists.
func TestListToolsStartsOverWhenTheCursorGoesStale(t *testing.T) {
	for _, era := range []Era{EraLegacy, EraModern} {
		t.Run(string(era), func(t *testing.T) {
			tool := func(name string) *Tool {
				return &Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`),
					Call: func(context.Context, json.RawMessage) (*ToolResult, error) { return TextResult(name), nil }}
			}
			var tools []*Tool
			for i := range 5 {
				tools = append(tools, tool(fmt.Sprintf("t%d", i)))
			}
			srv, err := NewServer(Implementation{Name: "s", Version: "1"}, Options{PageSize: 2}, &Toolset{Name: "t", Tools: tools})
			if err != nil {
				t.Fatal(err)
			}
			serverEnd, clientEnd := NewInMemoryTransport()
			go func() { _ = srv.Serve(context.Background(), serverEnd) }()
			// Just before the client asks for the second page, a tool comes.
			rwc := &beforeWrite{ReadWriteCloser: clientEnd, marker: []byte(`"cursor"`), hook: func() {
				if err := srv.AddTool(tool("late")); err != nil {
					t.Error(err)
				}
			}}
			c, err := Connect(context.Background(), rwc, ClientOptions{Info: Implementation{Name: "c", Version: "1"}, Era: era})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			got, err := c.ListTools(context.Background())
			if err != nil {
				t.Fatalf("ListTools: %v", err)
			}
			var names []string
			for _, tl := range got {
				names = append(names, tl.Name)
			}
			slices.Sort(names)
			if want := []string{"late", "t0", "t1", "t2", "t3", "t4"}; !slices.Equal(names, want) {
				t.Fatalf("ListTools: %v, want %v", names, want)
			}
		})
	}
}
