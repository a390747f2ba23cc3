package tools

import (
	"sort"
	"strings"

	"github.com/kontext-dev/kontext/internal/git"
	"github.com/kontext-dev/kontext/internal/knowledge/wording"
	"github.com/kontext-dev/kontext/internal/lazyregexp"
)

// trailerRE finds kontext's commit trailers: a commit that carries one is
// the commit a knowledge entry was committed with.
var trailerRE = lazyregexp.New(`(?m)^(Decision|Convention|Learning|Incident): \S+`)

// decisionScore says how much a commit looks like it explains a decision,
// and why. A bot's commit or a dependency bump explains none, whatever the
// release notes it quotes say.
func decisionScore(c git.Commit) (float64, []string) {
	if why := wording.Automated(c.AuthorName, c.AuthorEmail, c.Subject); why != "" {
		return 0, []string{why}
	}
	msg := c.Subject + "\n" + c.Body
	score := 0.0
	var reasons []string
	if trailerRE.MatchString(c.Body) {
		score += 10
		reasons = append(reasons, "kontext trailer")
	}
	words, found := wording.Score(msg)
	score += words
	reasons = append(reasons, found...)
	if typ, breaking, ok := wording.Conventional(c.Subject); ok {
		switch {
		case breaking:
			score += 3
			reasons = append(reasons, typ+"!")
		case typ == "refactor" || typ == "feat" || typ == "perf":
			score += 1
			reasons = append(reasons, typ)
		}
	}
	// A long explanation is a sign someone recorded why.
	if n := len(strings.Fields(c.Body)); n >= 40 {
		score += 2
		reasons = append(reasons, "long explanation")
	} else if n >= 15 {
		score += 1
	}
	return score, reasons
}

type rankedCommit struct {
	c       git.Commit
	score   float64
	reasons []string
}

// rankCommits orders commits by decision score, newest first among equals.
func rankCommits(commits []git.Commit) []rankedCommit {
	out := make([]rankedCommit, len(commits))
	for i, c := range commits {
		s, r := decisionScore(c)
		out[i] = rankedCommit{c, s, r}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].score > out[j].score })
	return out
}
