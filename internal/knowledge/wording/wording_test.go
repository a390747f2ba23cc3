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

// Bots and dependency bumps are no person's decision; a person's choice
// that mentions a dependency, or an update of something else, is.
func TestAutomated(t *testing.T) {
	for _, c := range []struct{ name, email, subject, want string }{
		{"dependabot[bot]", "49699333+dependabot[bot]@users.noreply.github.com", "Migrate to the new API", "bot"},
		{"renovate[bot]", "29139614+renovate[bot]@users.noreply.github.com", "fix: replace x", "bot"},
		{"github-actions", "41898282+github-actions[bot]@users.noreply.github.com", "docs: regenerate", "bot"},
		{"actions-user", "action@github.com", "chore: schema update", "bot"},
		{"GoReleaser Bot", "bot@goreleaser.com", "chore: auto-update generated files (#6806)", "bot"},
		{"Renovate Bot", "bot@renovateapp.com", "Update x", "bot"},
		{"Ada", "ada@example.com", "chore(deps): bump golang.org/x/net from 0.7.0 to 0.17.0", "dependency bump"},
		{"Ada", "ada@example.com", "build(deps-dev): bump vitest from 1.5.0 to 1.6.0 in /web", "dependency bump"},
		{"Ada", "ada@example.com", "Bump express from 4.18.2 to 4.19.2 (#12)", "dependency bump"},
		{"Ada", "ada@example.com", "chore(deps): bump the gomod group across 1 directory with 4 updates (#6805)", "dependency bump"},
		{"Ada", "ada@example.com", "Update dependency typescript to v5.4.5", "dependency bump"},
		{"Ada", "ada@example.com", "fix(deps): update module github.com/google/go-github/v87 to v88", "dependency bump"},
		{"Ada", "ada@example.com", "Update actions/checkout action to v4", "dependency bump"},
		{"Ada", "ada@example.com", "chore(deps): update go-github to v88", "dependency bump"},
		{"Ada", "ada@example.com", "Update terraform to 0.12.30", "dependency bump"},
		{"Ada", "ada@example.com", "chore: go mod tidy", "dependency bump"},
		{"Ada", "ada@example.com", "fix(deps): move to go.yaml.in/yaml (#6298)", ""},
		{"Ada", "ada@example.com", "Replace moment with date-fns because moment is deprecated", ""},
		{"Ada", "ada@example.com", "Bump the search instance size from t2 to c5", ""},
		{"Ada", "ada@example.com", "Update scheduled action times for the Knowledge Graph", ""},
		{"Ada", "ada@example.com", "docs: update github action", ""},
		{"Ada", "ada@example.com", "Upgrade to React 18: the new root API", ""},
		{"Robot Ross", "ross@example.com", "Add the paint module", ""},
	} {
		if got := Automated(c.name, c.email, c.subject); got != c.want {
			t.Errorf("Automated(%q, %q, %q) = %q, want %q", c.name, c.email, c.subject, got, c.want)
		}
	}
	if got := BotName("dependabot[bot]"); got != "dependabot" {
		t.Errorf("BotName = %q", got)
	}
}

func TestScope(t *testing.T) {
	for subject, want := range map[string]string{
		"feat(API)!: drop v1":       "api",
		"fix(docker, ko): tag both": "docker",
		"feat(pipe/brew): casks":    "pipe/brew",
		"refactor: split":           "",
		"Fix (the) build":           "",
	} {
		if got := Scope(subject); got != want {
			t.Errorf("Scope(%q) = %q, want %q", subject, got, want)
		}
	}
}
