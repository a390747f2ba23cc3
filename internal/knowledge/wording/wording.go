// Package wording reads commit messages for the words that make a commit
// explain a decision rather than just make a change — the original's
// history signals. The bootstrap's history and ctx_why's commit ranking
// score with the same table.
package wording

import "github.com/kontext-dev/kontext/internal/lazyregexp"

// signals are the decision words, each with its weight and the name shown
// to the agent.
var signals = []struct {
	re     *lazyregexp.Regexp
	weight float64
	name   string
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

// Score returns the weight of the decision words in a commit message and
// the names of the signals found, in the table's order.
func Score(msg string) (float64, []string) {
	score := 0.0
	var found []string
	for _, s := range signals {
		if s.re.MatchString(msg) {
			score += s.weight
			found = append(found, s.name)
		}
	}
	return score, found
}

var conventional = lazyregexp.New(`^(\w+)(\([^)]*\))?(!)?: `)

// Conventional reads a Conventional Commits subject ("feat(api)!: …"):
// its type, and whether it marks a breaking change.
func Conventional(subject string) (typ string, breaking, ok bool) {
	m := conventional.FindStringSubmatch(subject)
	if m == nil {
		return "", false, false
	}
	return m[1], m[3] == "!", true
}
