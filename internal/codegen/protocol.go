package codegen

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
)

// protocolFile generates gen/protocol from schema/protocol/*.json.
func protocolFile(root string) ([]byte, error) {
	dir := filepath.Join(root, "schema", "protocol")
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if filepath.Ext(e.Name()) == ".json" {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	if len(names) != 1 {
		return nil, fmt.Errorf("schema/protocol: want exactly one schema file (mcp.json), found %v", names)
	}
	b, err := os.ReadFile(filepath.Join(dir, names[0]))
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(b)
	src, err := goTypes("protocol", "https://kontext.dev/schema/protocol/"+names[0], b, false)
	if err != nil {
		return nil, err
	}
	doc := []byte("// Package protocol holds the MCP params and results kontext exchanges, generated\n// from schema/protocol. Unions, request ids and _meta are modelled by hand in\n// internal/mcp.\n")
	return goFile([]string{"schema/protocol/" + names[0] + " sha256:" + hex.EncodeToString(sum[:])}, append(doc, src...))
}

// appcontextFile generates gen/appcontext from schema/appcontext/manifest.json:
// the manifest an application writes and a broker reads. Only models: the
// manifest is validated against the schema itself (internal/apps/manifest),
// which says more than generated unmarshalers could.
func appcontextFile(root string) ([]byte, error) {
	const name = "manifest.json"
	b, err := os.ReadFile(filepath.Join(root, "schema", "appcontext", name))
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(b)
	src, err := goTypes("appcontext", "https://kontext.dev/schema/appcontext/"+name, b, true)
	if err != nil {
		return nil, err
	}
	doc := []byte("// Package appcontext holds the App Context instance manifest, generated from\n// schema/appcontext.\n")
	return goFile([]string{"schema/appcontext/" + name + " sha256:" + hex.EncodeToString(sum[:])}, append(doc, src...))
}
