package wording

import (
	"reflect"
	"testing"

	"github.com/kontext-dev/kontext/internal/lazyregexp"
)

func TestScore(t *testing.T) {
	score, found := Score("Switch to date-fns instead of moment because moment is deprecated")
	if want := []string{"switch", "instead of", "deprecation", "reason given"}; !reflect.DeepEqual(found, want) || score != 3+3+2.5+2 {
		t.Errorf("Score = %v %v, want %v", score, found, want)
	}
	if score, found := Score("Fix typo in README"); score != 0 || found != nil {
		t.Errorf("a plain change scored %v %v", score, found)
	}
	if _, found := Score("Postgres, not MySQL"); !reflect.DeepEqual(found, []string{"X, not Y"}) {
		t.Errorf("X, not Y: %v", found)
	}
}

func TestConventional(t *testing.T) {
	for subject, want := range map[string][3]any{
		"feat(api)!: drop v1": {"feat", true, true},
		"refactor: split":     {"refactor", false, true},
		"Fix the build":       {"", false, false},
	} {
		typ, breaking, ok := Conventional(subject)
		if got := [3]any{typ, breaking, ok}; got != want {
			t.Errorf("Conventional(%q) = %v, want %v", subject, got, want)
		}
	}
	if err := lazyregexp.CompileAll(); err != nil {
		t.Fatal(err)
	}
}
