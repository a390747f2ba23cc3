package knowledge

import (
	"sort"
	"strings"

	"github.com/kontext-dev/kontext/internal/git"
	"github.com/kontext-dev/kontext/internal/lazyregexp"
)

// decisionSignals are the words that make a commit explain a decision
// rather than just make a change (the original's history signals). Each
// has a weight and the reason shown to the agent.
var decisionSignals = []struct {
	re     *lazyregexp.Regexp
	weight float64
	reason string
}{
	{lazyregexp.New(`(?i)\b(replace[sd]?|replacing)\b`), 3, "replaces"},
	{lazyregexp.New(`(?i)\bmigrat(e|es|ed|ing|ion)\b`), 3, "migration"},
	{lazyregexp.New(`(?i)\bswitch(ed|es|ing)? (to|from)\b`), 3, "switch"},
	{lazyregexp.New(`(?i)\binstead of\b`), 3, "instead of"},
	{lazyregexp.New(`(?i)\bdeprecat(e|es|ed|ing|ion)\b`), 2.5, "deprecation"},
	{lazyregexp.New(`(?i)\bbreaking\b|BREAKING CHANGE`), 3, "breaking"},
	{lazyregexp.New(`(?i)\b\w+, not \w+`), 2, "X, not Y"},
	{lazyregexp.New(`(?i)\b(never|no longer|is gone|must not|always)\b`), 1.5, "rule"},
	{lazyregexp.New(`(?i)\b(because|since|so that|otherwise|to keep|in order to|the reason)\b`), 2, "reason given"},
	{lazyregexp.New(`(?i)\b(decid(e|ed|es)|decision|adr|trade-?off|chose|choose)\b`), 2.5, "decision wording"},
}

// trailerRE finds kontext's commit trailers: a commit that carries one is
// the commit a knowledge entry was committed with.
var trailerRE = lazyregexp.New(`(?m)^(Decision|Convention|Learning|Incident): \S+`)

// conventionalRE reads a Conventional Commits type.
var conventionalRE = lazyregexp.New(`^(\w+)(\([^)]*\))?(!)?: `)

// decisionScore says how much a commit looks like it explains a decision,
// and why.
func decisionScore(c git.Commit) (float64, []string) {
	msg := c.Subject + "\n" + c.Body
	score := 0.0
	var reasons []string
	if trailerRE.MatchString(c.Body) {
		score += 10
		reasons = append(reasons, "kontext trailer")
	}
	for _, s := range decisionSignals {
		if s.re.MatchString(msg) {
			score += s.weight
			reasons = append(reasons, s.reason)
		}
	}
	if m := conventionalRE.FindStringSubmatch(c.Subject); m != nil {
		switch {
		case m[3] == "!":
			score += 3
			reasons = append(reasons, m[1]+"!")
		case m[1] == "refactor" || m[1] == "feat" || m[1] == "perf":
			score += 1
			reasons = append(reasons, m[1])
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
