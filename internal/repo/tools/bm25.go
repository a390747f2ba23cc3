package tools

import (
	"math"
	"sort"
	"strings"
	"unicode"
)

// BM25's usual constants.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// index is a BM25 index over documents identified by their position.
type index struct {
	lens     []int32
	total    int64
	postings map[string][]posting
}

type posting struct {
	doc int32
	tf  int32
}

func newIndex() *index { return &index{postings: map[string][]posting{}} }

// add indexes the next document; weighted fields repeat their terms, so a
// name counts for more than a path it sits in.
func (ix *index) add(terms []string) {
	doc := int32(len(ix.lens))
	tf := map[string]int32{}
	for _, t := range terms {
		tf[t]++
	}
	// Postings are appended in doc order, so each list stays sorted.
	for t, n := range tf {
		ix.postings[t] = append(ix.postings[t], posting{doc, n})
	}
	ix.lens = append(ix.lens, int32(len(terms)))
	ix.total += int64(len(terms))
}

// hit is a scored document and the query terms it matched.
type hit struct {
	doc     int
	score   float64
	matched []string
}

// search scores every document matching at least one query term. keep,
// when not nil, restricts the documents scored; the collection statistics
// stay those of the whole index, so scores are comparable across filters.
func (ix *index) search(query []string, keep func(doc int) bool) []hit {
	n := len(ix.lens)
	if n == 0 || len(query) == 0 {
		return nil
	}
	avg := float64(ix.total) / float64(n)
	if avg == 0 {
		avg = 1
	}
	byDoc := map[int]*hit{}
	for _, t := range dedupe(query) {
		ps := ix.postings[t]
		if len(ps) == 0 {
			continue
		}
		idf := math.Log(1 + (float64(n)-float64(len(ps))+0.5)/(float64(len(ps))+0.5))
		for _, p := range ps {
			d := int(p.doc)
			if keep != nil && !keep(d) {
				continue
			}
			tf := float64(p.tf)
			norm := bm25K1 * (1 - bm25B + bm25B*float64(ix.lens[d])/avg)
			h := byDoc[d]
			if h == nil {
				h = &hit{doc: d}
				byDoc[d] = h
			}
			h.score += idf * tf * (bm25K1 + 1) / (tf + norm)
			h.matched = append(h.matched, t)
		}
	}
	hits := make([]hit, 0, len(byDoc))
	for _, h := range byDoc {
		h.score = round3(h.score)
		sort.Strings(h.matched)
		hits = append(hits, *h)
	}
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].score != hits[j].score {
			return hits[i].score > hits[j].score
		}
		return hits[i].doc < hits[j].doc
	})
	return hits
}

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }

// stopwords are the function words of a task description; they would match
// every document and rank nothing.
var stopwords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an and are as at be but by can do does for from has have how i if in into is it its
		me my need needs not of on or our should so some than that the their them then there these this those to
		us use using was we what when where which while who why will with would you your all any also make just`) {
		stopwords[w] = true
	}
}

// terms splits text into search terms: words and identifiers split at
// punctuation, case changes and digits ("placeOrder" gives place, order
// and placeorder, so both the words and the identifier match), lower-cased
// and lightly stemmed; stopwords and single letters are dropped.
func terms(text string) []string {
	var out []string
	emit := func(w string) {
		w = stem(strings.ToLower(w))
		if len([]rune(w)) < 2 || stopwords[w] {
			return
		}
		out = append(out, w)
	}
	for _, word := range strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		parts := splitIdentifier(word)
		if len(parts) > 1 {
			emit(word)
		}
		for _, p := range parts {
			emit(p)
		}
	}
	return out
}

// splitIdentifier splits at lower→upper changes ("placeOrder"), before the
// last capital of a run ("HTTPServer" → HTTP, Server) and around digits.
func splitIdentifier(word string) []string {
	rs := []rune(word)
	var parts []string
	start := 0
	for i := 1; i < len(rs); i++ {
		prev, cur := rs[i-1], rs[i]
		boundary := unicode.IsLower(prev) && unicode.IsUpper(cur) ||
			unicode.IsDigit(prev) != unicode.IsDigit(cur) ||
			unicode.IsUpper(prev) && unicode.IsUpper(cur) && i+1 < len(rs) && unicode.IsLower(rs[i+1])
		if boundary {
			parts = append(parts, string(rs[start:i]))
			start = i
		}
	}
	return append(parts, string(rs[start:]))
}

// stem folds the plural and a few verb endings, so "orders" finds order
// and "validation" stays itself; it is deliberately timid.
func stem(w string) string {
	switch {
	case len(w) > 4 && strings.HasSuffix(w, "ies"):
		return w[:len(w)-3] + "y"
	case len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		return w[:len(w)-1]
	}
	return w
}

// repeat returns terms n times, to weight a field.
func repeat(ts []string, n int) []string {
	out := make([]string, 0, len(ts)*n)
	for range n {
		out = append(out, ts...)
	}
	return out
}

func dedupe(xs []string) []string {
	seen := map[string]bool{}
	out := xs[:0:0]
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// matchedReason is the reason search results and ranked lists give.
func matchedReason(matched []string) string {
	return "matched terms: " + strings.Join(dedupe(matched), ", ") + "; ranked by bm25"
}
