package inventory

import "github.com/kontext-dev/kontext/internal/repo"

// SharedEngineStats lets the external tests count the analyses of the
// process's one engine.
func SharedEngineStats() repo.Stats { return sharedEngine().Stats() }
