package apps

import (
	"context"

	"github.com/kontext-dev/kontext/appcontext"
	"github.com/kontext-dev/kontext/internal/mcp"
	"github.com/kontext-dev/kontext/internal/mcp/legacyws"
)

// connectLegacy reaches an application whose manifest names only the
// WebSocket channel of earlier releases; the broker then treats it as any
// MCP application.
func connectLegacy(ctx context.Context, m *appcontext.Manifest, opts mcp.ClientOptions) (*mcp.Client, error) {
	return legacyws.Dial(ctx, m.Websocket.URL, m.Websocket.Token, opts)
}
