package cli

import (
	"fmt"
	"strings"

	"github.com/kontext-dev/kontext/internal/typo"
)

// suggest returns the names closest to typed: those at the smallest edit
// distance (transpositions count once, so "stauts" is one step from
// "status") when that distance is small for the word's length, else the one
// name that typed is a prefix of. Nothing when nothing is close: a
// suggestion that is not close only misleads.
func suggest(typed string, names []string) []string {
	typed = strings.ToLower(typed)
	if len([]rune(typed)) < 3 {
		return nil // one or two letters are close to too much
	}
	limit := 1
	if n := len([]rune(typed)); n >= 5 {
		limit = 2
	}
	best, bestDist := []string(nil), limit+1
	seen := map[string]bool{}
	for _, name := range names {
		if seen[name] {
			continue
		}
		seen[name] = true
		d := typo.Distance(typed, strings.ToLower(name))
		switch {
		case d > limit:
		case d < bestDist:
			best, bestDist = []string{name}, d
		case d == bestDist:
			best = append(best, name)
		}
	}
	if len(best) > 0 {
		return best
	}
	var prefixed []string
	for name := range seen {
		if strings.HasPrefix(strings.ToLower(name), typed) {
			prefixed = append(prefixed, name)
		}
	}
	if len(prefixed) == 1 {
		return prefixed
	}
	return nil
}

// didYouMean is ` — did you mean "x"?` (or "x" or "y"), or "" when nothing
// is close.
func didYouMean(typed string, names []string, quote func(string) string) string {
	s := suggest(typed, names)
	if len(s) == 0 {
		return ""
	}
	quoted := make([]string, len(s))
	for i, n := range s {
		quoted[i] = quote(n)
	}
	return " — did you mean " + joinOr(quoted) + "?"
}

func joinOr(items []string) string {
	switch len(items) {
	case 1:
		return items[0]
	case 2:
		return items[0] + " or " + items[1]
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}

func quoted(s string) string { return fmt.Sprintf("%q", s) }
