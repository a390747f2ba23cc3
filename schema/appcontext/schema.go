// Package appcontext holds the App Context manifest's JSON Schema, so the
// broker and the conformance check validate against the very file the
// generator makes the Go types of.
package appcontext

import _ "embed"

// ManifestSchema is manifest.json.
//
//go:embed manifest.json
var ManifestSchema []byte
