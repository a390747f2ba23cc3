// Package wording reads commit messages for the words that make a commit
// explain a decision rather than just make a change — the original's
// history signals. The bootstrap's history and ctx_why's commit ranking
// score with the same table.
package wording

import (
	"strings"

	"github.com/kontext-dev/kontext/internal/lazyregexp"
)

// signals are the decision words, each with its weight, the name shown to
// the agent, and the lower-case fragments one of which any match contains:
// a history of thousands of commits is read with a substring search, the
// expression runs only where a fragment is.
var signals = []struct {
	re     *lazyregexp.Regexp
	weight float64
	name   string
	lits   []string
}{
	{lazyregexp.New(`(?i)\b(replace[sd]?|replacing)\b`), 3, "replaces", []string{"replac"}},
	{lazyregexp.New(`(?i)\bmigrat(e|es|ed|ing|ion)\b`), 3, "migration", []string{"migrat"}},
	{lazyregexp.New(`(?i)\bswitch(ed|es|ing)? (to|from)\b`), 3, "switch", []string{"switch"}},
	{lazyregexp.New(`(?i)\binstead of\b`), 3, "instead of", []string{"instead of"}},
	{lazyregexp.New(`(?i)\bdeprecat(e|es|ed|ing|ion)\b`), 2.5, "deprecation", []string{"deprecat"}},
	{lazyregexp.New(`(?i)\bbreaking\b|BREAKING CHANGE`), 3, "breaking", []string{"breaking"}},
	{lazyregexp.New(`(?i)\b\w+, not \w+`), 2, "X, not Y", []string{", not "}},
	{lazyregexp.New(`(?i)\b(never|no longer|is gone|must not|always)\b`), 1.5, "rule", []string{"never", "no longer", "is gone", "must not", "always"}},
	{lazyregexp.New(`(?i)\b(because|since|so that|otherwise|to keep|in order to|the reason)\b`), 2, "reason given", []string{"because", "since", "so that", "otherwise", "to keep", "in order to", "the reason"}},
	{lazyregexp.New(`(?i)\b(decid(e|ed|es)|decision|adr|trade-?off|chose|choose)\b`), 2.5, "decision wording", []string{"decid", "decision", "adr", "trade", "chose", "choose"}},
}

// Score returns the weight of the decision words in a commit message and
// the names of the signals found, in the table's order.
func Score(msg string) (float64, []string) {
	score := 0.0
	var found []string
	lower := strings.ToLower(msg)
	for _, s := range signals {
		if containsAny(lower, s.lits) && s.re.MatchString(msg) {
			score += s.weight
			found = append(found, s.name)
		}
	}
	return score, found
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
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

// Scope is a Conventional Commits subject's scope ("api" for "feat(api):
// …"), lower-cased, the first of several ("feat(api,web)"); "" when the
// subject has none.
func Scope(subject string) string {
	m := conventional.FindStringSubmatch(subject)
	if m == nil || len(m[2]) < 3 {
		return ""
	}
	s := strings.ToLower(strings.TrimSpace(m[2][1 : len(m[2])-1]))
	if i := strings.IndexAny(s, ", "); i >= 0 {
		s = s[:i]
	}
	return strings.Trim(s, "/.")
}

// botNames are automation accounts that commit under a plain name.
var botNames = map[string]bool{
	"dependabot": true, "dependabot-preview": true, "renovate": true, "renovate-bot": true, "renovatebot": true,
	"github-actions": true, "actions-user": true, "greenkeeper": true, "snyk-bot": true, "pre-commit-ci": true,
	"mergify": true, "semantic-release-bot": true, "allcontributors": true, "imgbot": true, "pyup-bot": true,
}

// IsBot reports whether a commit's author is automation: a GitHub App
// ("…[bot]"), or a known bot account (dependabot, renovate,
// github-actions and the like).
func IsBot(name, email string) bool {
	n := strings.ToLower(strings.TrimSpace(name))
	e := strings.ToLower(strings.TrimSpace(email))
	if strings.HasSuffix(n, "[bot]") || strings.Contains(e, "[bot]@") || botNames[n] {
		return true
	}
	if strings.Contains(n, "dependabot") || strings.HasPrefix(n, "renovate") || strings.Contains(n, "continuous integration") {
		return true
	}
	// "GoReleaser Bot", "release-bot": accounts named as bots.
	if strings.HasSuffix(n, " bot") || strings.HasSuffix(n, "-bot") || strings.HasSuffix(n, "_bot") {
		return true
	}
	local, _, _ := strings.Cut(e, "@")
	return e == "action@github.com" || botNames[local]
}

// BotName is the name a bot is known by, as it writes it ("dependabot" for
// "dependabot[bot]", "GoReleaser Bot").
func BotName(name string) string {
	n := strings.TrimSpace(name)
	n = strings.TrimSuffix(n, "[bot]")
	n = strings.TrimSuffix(n, "-preview")
	switch strings.ToLower(n) {
	case "renovate-bot", "renovatebot":
		n = "renovate"
	}
	return n
}

// bumpPatterns recognise the subjects of dependency updates, as
// dependabot, renovate and people write them, after an optional
// Conventional Commits prefix.
var bumpPatterns = []*lazyregexp.Regexp{
	// Housekeeping scoped to dependencies: chore(deps), build(deps-dev), ci(deps).
	lazyregexp.New(`(?i)^(chore|build|ci|deps)\((deps|deps-dev|dev-deps|dependencies|dependency|deps-[\w-]+)\)!?:`),
	// Another type scoped to dependencies, when it updates: fix(deps): update x
	// (but fix(deps): move to y is a choice, and is scored).
	lazyregexp.New(`(?i)^\w+\((deps|deps-dev|dev-deps|dependencies|dependency|deps-[\w-]+)\)!?:\s*(update|upgrade|bump|pin)`),
	lazyregexp.New(`(?i)^deps(-dev)?(\([^)]*\))?:`),
	// Dependabot: Bump x from 1.2 to 1.3 [in /dir]; Bump the gomod group with 4 updates.
	lazyregexp.New(`(?i)^(\w+(\([^)]*\))?!?:\s*)?bump(s|ed)?\s+\S+\s+from\s+\S+\s+to\s+\S+(\s+in\s+\S+)?(\s*\(#\d+\))?\s*$`),
	lazyregexp.New(`(?i)^(\w+(\([^)]*\))?!?:\s*)?bump(s|ed)?\s+the\s+\S+\s+group\b`),
	lazyregexp.New(`(?i)^(\w+(\([^)]*\))?!?:\s*)?(update|bump)\s+\S+\s+requirement\s+from\b`),
	// Renovate: Update dependency x to v2; Update module github.com/x/y to
	// v1.4; Update actions/checkout action to v4; Update golang Docker tag.
	lazyregexp.New(`(?i)^(\w+(\([^)]*\))?!?:\s*)?(update|upgrade)s?\s+(dependency|dependencies|module|modules|package|packages|devdependency|devdependencies|deps|go module|all( non-major)? dependencies)\b`),
	lazyregexp.New(`(?i)^(\w+(\([^)]*\))?!?:\s*)?update\s+\S+/\S+\s+action\b`),
	lazyregexp.New(`(?i)^(\w+(\([^)]*\))?!?:\s*)?update\s+\S+\s+(docker tag|digest)\b`),
	// A subject that is nothing but "update x to v1.2.3".
	lazyregexp.New(`(?i)^(\w+(\([^)]*\))?!?:\s*)?(update|upgrade|bump)\s+\S+\s+(from\s+\S+\s+)?to\s+v?\d[\w.+-]*\s*(\(#\d+\))?$`),
	lazyregexp.New(`(?i)^(\w+(\([^)]*\))?!?:\s*)?(pin dependencies|lock ?file maintenance|update (the )?lock ?files?|go mod tidy)\b`),
}

// bumpWords are in every subject a bump pattern matches.
var bumpWords = []string{"dep", "bump", "updat", "upgrad", "pin ", "lock", "tidy"}

// IsDependencyBump reports whether a subject is a dependency update
// (chore(deps): …, Bump x from a to b, Update dependency x to v2): a
// routine change whose body, when it has one, quotes the dependency's
// release notes, never the team's reasons.
func IsDependencyBump(subject string) bool {
	s := strings.TrimSpace(subject)
	if !containsAny(strings.ToLower(s), bumpWords) {
		return false
	}
	for _, re := range bumpPatterns {
		if re.MatchString(s) {
			return true
		}
	}
	return false
}

// Automated says why a commit is no person's decision: "bot" for a bot
// author, "dependency bump" for a dependency update; "" when it is
// neither.
func Automated(authorName, authorEmail, subject string) string {
	switch {
	case IsBot(authorName, authorEmail):
		return "bot"
	case IsDependencyBump(subject):
		return "dependency bump"
	}
	return ""
}
