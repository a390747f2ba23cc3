package apps

import (
	"context"
	"errors"

	"github.com/kontext-dev/kontext/appcontext"
	"github.com/kontext-dev/kontext/internal/mcp"
)

// connectLegacy reaches an application whose manifest names only the
// WebSocket channel of earlier releases.
func connectLegacy(ctx context.Context, m *appcontext.Manifest, opts mcp.ClientOptions) (*mcp.Client, error) {
	return nil, errors.New("the legacy WebSocket channel is not supported by this build")
}
