package tools

import (
	"testing"

	"github.com/kontext-dev/kontext/internal/git"
)

// ctx_why weighs a bot's commit and a dependency bump at nothing: the
// release notes a bump quotes are not the team's reasons.
func TestBumpsExplainNoDecision(t *testing.T) {
	notes := "Bumps x from 1.0 to 2.0.\n\nBREAKING CHANGE: migrate to the new API; it replaces the old one because it was deprecated, instead of keeping both."
	for _, c := range []git.Commit{
		{AuthorName: "dependabot[bot]", AuthorEmail: "49699333+dependabot[bot]@users.noreply.github.com", Subject: "chore(deps): bump x from 1.0 to 2.0", Body: notes},
		{AuthorName: "Ada", AuthorEmail: "ada@example.com", Subject: "Bump x from 1.0 to 2.0", Body: notes},
	} {
		if score, reasons := decisionScore(c); score != 0 {
			t.Errorf("%s %q scored %v %v", c.AuthorName, c.Subject, score, reasons)
		}
	}
	if score, _ := decisionScore(git.Commit{AuthorName: "Ada", Subject: "Replace x with y because x is deprecated"}); score <= 0 {
		t.Errorf("a person's decision scored %v", score)
	}
}
