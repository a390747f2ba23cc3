package local

import (
	"fmt"
	"strings"

	"github.com/kontext-dev/kontext/internal/secrets"
)

// NoStoreError refuses team knowledge in a repository without a store.
type NoStoreError struct{ StoreDir string }

func (e *NoStoreError) Error() string {
	return fmt.Sprintf("this repository has no knowledge store (%s/ does not exist), so only private captures are accepted "+
		"and nothing can be promoted; capture with visibility \"private\", or set the store up first (ctx_init with bootstrap: true, when the user asks for it)", e.StoreDir)
}

// PrivateError refuses to promote a private candidate into the team store.
type PrivateError struct{ ID string }

func (e *PrivateError) Error() string {
	return fmt.Sprintf("%s is private and stays in the local inbox; capture it again with visibility \"team\" if the team should see it", e.ID)
}

// SecretError refuses a capture that contains secrets when redaction is
// off (capture.redact = false).
type SecretError struct{ Findings []secrets.Finding }

func (e *SecretError) Error() string {
	var rules []string
	for _, f := range e.Findings {
		rules = append(rules, fmt.Sprintf("%s at line %d", f.Rule, f.Line))
	}
	return "the capture contains what looks like a secret (" + strings.Join(rules, ", ") + "); remove it and capture again"
}

// NotFoundError is an inbox id that names no candidate.
type NotFoundError struct{ ID string }

func (e *NotFoundError) Error() string {
	return fmt.Sprintf("no inbox candidate %q", e.ID)
}

// AlreadyPromotedError is a candidate that was promoted before.
type AlreadyPromotedError struct{ ID, To string }

func (e *AlreadyPromotedError) Error() string {
	return fmt.Sprintf("%s was already promoted to %s", e.ID, e.To)
}

// InvalidError is a capture that lacks what it needs.
type InvalidError struct{ Msg string }

func (e *InvalidError) Error() string { return e.Msg }
