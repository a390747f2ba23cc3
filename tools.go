//go:build tools

// This file pins the code generators in go.mod. go-jsonschema is used as a
// library by internal/codegen; importing its command here keeps the whole
// module (and its version) recorded even if the library use changes.
package tools

import (
	_ "github.com/atombender/go-jsonschema"
)
