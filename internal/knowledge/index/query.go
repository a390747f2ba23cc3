package index

import (
	"slices"
	"strings"
	"sync"
)

const (
	// maxQueryRunes bounds the text an agent's query is built from: an
	// agent that pastes a whole file as a query gets an answer, not a
	// thousand-clause expression.
	maxQueryRunes = 1000
	// maxClauses bounds the OR'ed terms for the same reason.
	maxClauses = 24
	// phraseMax is the longest query also run as one phrase: a short
	// query said in the very words of a document should find it first.
	phraseMax = 8
)

// stopwords are dropped from a query that has other words: in an OR
// query they match nearly every document, which costs time and adds
// nothing but noise to the ranking. A query of stopwords only keeps them.
// The set is built by the first query, not at the start of every run of
// the binary.
var stopwords = sync.OnceValue(func() map[string]bool {
	set := map[string]bool{}
	for _, w := range strings.Fields(`a about after all also an and any are as at be been before
		but by can could did do does for from had has have how i if in into is it its
		may me my no not of on or our should so than that the their them then there these
		they this those to too up us was we were what when where which while who why will
		with would you your`) {
		set[w] = true
	}
	return set
})

// matchExpr turns an agent's free text into an FTS5 MATCH expression.
// Every term is a quoted string, so nothing an agent writes is read as
// FTS5 syntax (AND, NEAR, column filters, a stray quote or parenthesis):
// a query can find nothing, but it cannot be a syntax error. Terms are
// OR'ed and BM25 ranks documents that have more of them, and rarer ones,
// first. An identifier also runs as the phrase of its words, so that
// orderTotal finds "order total" and the other way round. "" means the
// text has no searchable word.
func matchExpr(text string) string {
	if r := []rune(text); len(r) > maxQueryRunes {
		text = string(r[:maxQueryRunes])
	}
	type clause struct {
		expr string
		stop bool
	}
	var clauses []clause
	seen := map[string]bool{}
	var all []string // every word in order, for the whole-query phrase
	idents := 0
	identifiers(text, func(ident string) {
		plain := plainWords(ident)
		if len(plain) == 0 {
			return
		}
		idents++
		all = append(all, plain...)
		alts := []string{phrase(plain)}
		if words := splitWords(ident); len(words) > 1 && !slices.Equal(words, plain) {
			alts = append(alts, phrase(words))
		}
		expr := alts[0]
		if len(alts) > 1 {
			expr = "(" + strings.Join(alts, " OR ") + ")"
		}
		if seen[expr] {
			return
		}
		seen[expr] = true
		clauses = append(clauses, clause{expr: expr, stop: len(alts) == 1 && len(plain) == 1 && stopwords()[plain[0]]})
	})
	if len(clauses) == 0 {
		return ""
	}
	keepStop := true
	for _, c := range clauses {
		if !c.stop {
			keepStop = false
			break
		}
	}
	var out []string
	for _, c := range clauses {
		if (keepStop || !c.stop) && len(out) < maxClauses {
			out = append(out, c.expr)
		}
	}
	if idents >= 2 && idents <= phraseMax {
		if p := phrase(all); !seen[p] {
			out = append(out, p)
		}
	}
	return strings.Join(out, " OR ")
}

// phrase quotes words as one FTS5 string (a phrase when it has several
// tokens). Words come from identifiers and hold no quote, but doubling
// quotes keeps that a property of this function rather than its callers.
func phrase(words []string) string {
	return `"` + strings.ReplaceAll(strings.Join(words, " "), `"`, `""`) + `"`
}
