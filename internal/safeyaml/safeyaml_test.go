package safeyaml

import (
	"strings"
	"testing"
)

func TestUnmarshal(t *testing.T) {
	var chart struct {
		Name         string `yaml:"name"`
		Dependencies []struct {
			Name string `yaml:"name"`
		} `yaml:"dependencies"`
	}
	if err := Unmarshal([]byte("name: a\ndependencies:\n  - name: b\n"), &chart); err != nil || chart.Name != "a" || len(chart.Dependencies) != 1 {
		t.Fatalf("a valid document: %+v, %v", chart, err)
	}
	// The input FuzzManifests found: the decoder panics on it.
	err := Unmarshal([]byte("name: A\ndependencies:\n  !00 00"), &chart)
	if err == nil || !strings.Contains(err.Error(), "malformed YAML") {
		t.Fatalf("the decoder's panic came back as %v", err)
	}
}
