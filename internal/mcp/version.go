package mcp

import "slices"

// The protocol revisions kontext serves.
const (
	// LatestLegacyVersion is what initialize answers when the client asks
	// for a revision the server does not implement.
	LatestLegacyVersion = "2025-11-25"
	// ModernVersion is the first revision without a handshake.
	ModernVersion = "2026-07-28"
)

// LegacyVersions are the handshake revisions, newest first.
var LegacyVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// ModernVersions are the per-request _meta revisions, newest first.
var ModernVersions = []string{ModernVersion}

// SupportedVersions lists every revision, newest first (the order -32022
// offers them in).
func SupportedVersions() []string {
	return append(slices.Clone(ModernVersions), LegacyVersions...)
}

// negotiateLegacy returns the revision initialize answers with: the client's
// when it is one of ours, the newest legacy revision otherwise.
func negotiateLegacy(requested string) string {
	if slices.Contains(LegacyVersions, requested) {
		return requested
	}
	return LatestLegacyVersion
}

// features says which optional members a revision's schema defines, so that
// what the server sends is correct to the letter of the negotiated revision.
type features struct {
	annotations bool // tool annotations (2025-03-26)
	completions bool // the completions capability (2025-03-26); 2024-11-05 has the method only
	titles      bool // title on tools, prompts, resources, implementations (2025-06-18)
	structured  bool // outputSchema and structuredContent (2025-06-18)
	modern      bool // resultType, ttlMs, cacheScope, _meta.serverInfo (2026-07-28)
}

func featuresOf(version string) features {
	switch {
	case version >= ModernVersion:
		return features{annotations: true, completions: true, titles: true, structured: true, modern: true}
	case version >= "2025-06-18":
		return features{annotations: true, completions: true, titles: true, structured: true}
	case version >= "2025-03-26":
		return features{annotations: true, completions: true}
	default:
		return features{}
	}
}
