// Package safeyaml decodes YAML from files kontext does not control
// (manifests in a repository, a client's configuration) without letting the
// decoder crash the process.
//
// github.com/goccy/go-yaml (v1.19.2, the newest) dereferences nil on some
// malformed documents, for instance a tag on a scalar where a sequence is
// expected ("dependencies:\n  !00 00"); FuzzManifests found it. Unmarshal
// turns such a panic into an error, so a bad file is reported as unparsable
// like any other.
package safeyaml

import (
	"fmt"

	"github.com/goccy/go-yaml"
)

// Unmarshal is yaml.Unmarshal, with a decoder panic returned as an error.
func Unmarshal(data []byte, v any) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("malformed YAML (the decoder failed: %v)", r)
		}
	}()
	return yaml.Unmarshal(data, v)
}
