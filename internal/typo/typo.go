// Package typo measures how far a typed name is from a known one, for the
// "did you mean" of every command, flag, module and tool name kontext
// suggests.
package typo

// maxRunes bounds the work of one comparison: names come from arguments,
// and a megabyte-long one must not cost a quadratic table.
const maxRunes = 128

// Distance is the optimal string alignment distance between a and b:
// insertions, deletions, substitutions and transpositions of adjacent
// characters each cost one. Names longer than 128 characters are compared
// by their first 128.
func Distance(a, b string) int {
	s, t := clip([]rune(a)), clip([]rune(b))
	// Three rows of the table: the one before the previous is what a
	// transposition looks back to.
	before := make([]int, len(t)+1)
	prev := make([]int, len(t)+1)
	cur := make([]int, len(t)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(s); i++ {
		cur[0] = i
		for j := 1; j <= len(t); j++ {
			cost := 1
			if s[i-1] == t[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && s[i-1] == t[j-2] && s[i-2] == t[j-1] {
				cur[j] = min(cur[j], before[j-2]+1)
			}
		}
		before, prev, cur = prev, cur, before
	}
	return prev[len(t)]
}

func clip(r []rune) []rune {
	if len(r) > maxRunes {
		return r[:maxRunes]
	}
	return r
}
