package store

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/kontext-dev/kontext/internal/lazyregexp"
)

// MaxSlug is the longest slug Slugify makes.
const MaxSlug = 50

// Slugify makes a file-name slug of a title: ASCII, lower case, words joined
// by dashes, accents folded ("Použiť Tantivy" → "pouzit-tantivy"),
// apostrophes dropped ("team's" → "teams"), at most max characters cut at a
// word boundary when one is near (max <= 0: MaxSlug).
func Slugify(s string, max int) string {
	if max <= 0 {
		max = MaxSlug
	}
	var b strings.Builder
	dash := false
	for _, r := range s {
		if r == '\'' || r == '’' || r == '`' {
			continue
		}
		for _, c := range fold(r) {
			switch {
			case c >= 'a' && c <= 'z' || c >= '0' && c <= '9':
				b.WriteRune(c)
				dash = false
			case c >= 'A' && c <= 'Z':
				b.WriteRune(c + 'a' - 'A')
				dash = false
			default:
				if !dash && b.Len() > 0 {
					b.WriteByte('-')
					dash = true
				}
			}
		}
	}
	out := strings.TrimRight(b.String(), "-")
	if len(out) > max {
		midWord := out[max] != '-'
		out = out[:max]
		if i := strings.LastIndexByte(out, '-'); midWord && i > max/2 {
			out = out[:i]
		}
		out = strings.TrimRight(out, "-")
	}
	return out
}

// folds maps accented letters to ASCII. It is built on first use: a map
// built at package initialisation would cost every run of the binary, each
// git hook among them, whether or not it makes a slug.
var folds = sync.OnceValue(func() map[rune]string {
	folds := map[rune]string{}
	for from, to := range map[string]string{
		"áäàâãåąāă": "a", "ÁÄÀÂÃÅĄĀĂ": "a", "čćçĉ": "c", "ČĆÇĈ": "c", "ďđ": "d", "ĎĐ": "d",
		"éěèêëęēė": "e", "ÉĚÈÊËĘĒĖ": "e", "ğ": "g", "Ğ": "g", "íìîïīı": "i", "ÍÌÎÏĪİ": "i",
		"ľĺł": "l", "ĽĹŁ": "l", "ňńñ": "n", "ŇŃÑ": "n", "óôöòõőøō": "o", "ÓÔÖÒÕŐØŌ": "o",
		"ŕř": "r", "ŔŘ": "r", "šśşș": "s", "ŠŚŞȘ": "s", "ťţț": "t", "ŤŢȚ": "t",
		"úůüùûűū": "u", "ÚŮÜÙÛŰŪ": "u", "ýÿ": "y", "ÝŸ": "y", "žźż": "z", "ŽŹŻ": "z",
	} {
		for _, r := range from {
			folds[r] = to
		}
	}
	folds['ß'] = "ss"
	folds['æ'], folds['Æ'] = "ae", "ae"
	folds['œ'], folds['Œ'] = "oe", "oe"
	return folds
})

func fold(r rune) string {
	if r >= utf8.RuneSelf {
		if s, ok := folds()[r]; ok {
			return s
		}
	}
	return string(r)
}

// NotFoundError is a lookup that matched nothing.
type NotFoundError struct {
	Key string
	// Nearest are the ids that share the most words with Key, best first
	// (none share any: empty).
	Nearest []string
}

func (e *NotFoundError) Error() string {
	msg := fmt.Sprintf("no entry %q (give an id, a unique prefix of one, or an ADR number)", e.Key)
	if len(e.Nearest) > 0 {
		msg += "; the nearest: " + strings.Join(e.Nearest, ", ")
	}
	return msg
}

// maxNearest bounds the ids a NotFoundError suggests.
const maxNearest = 5

// nearest are the ids of the entries that share the most words with key
// (the words of an id are its dash-separated parts, dates and numbers
// aside), best first, then newest.
func nearest(entries []*Entry, key string) []string {
	words := map[string]bool{}
	for _, w := range idWords(key) {
		words[w] = true
	}
	if len(words) == 0 {
		return nil
	}
	type scored struct {
		id    string
		score int
	}
	var hits []scored
	for _, e := range entries {
		n := 0
		for _, w := range idWords(e.ID) {
			if words[w] {
				n++
			}
		}
		if n > 0 {
			hits = append(hits, scored{e.ID, n})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool {
		if hits[i].score != hits[j].score {
			return hits[i].score > hits[j].score
		}
		return hits[i].id > hits[j].id
	})
	var out []string
	for _, h := range hits {
		if len(out) == maxNearest {
			break
		}
		out = append(out, h.id)
	}
	return out
}

func idWords(id string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(id), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127)
	}) {
		if strings.Trim(w, "0123456789") != "" && len(w) > 2 {
			out = append(out, w)
		}
	}
	return out
}

// ResolveIDs turns the keys that name entries (ids, unique id prefixes,
// ADR numbers, paths: what Find accepts) into the entries' full ids, in
// order and without repeats. A key that matches several entries is an
// *AmbiguousError listing them, one that matches none a *NotFoundError
// naming the nearest.
func ResolveIDs(entries []*Entry, keys []string) ([]string, error) {
	var out []string
	for _, k := range keys {
		e, err := Find(entries, k)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(out, e.ID) {
			out = append(out, e.ID)
		}
	}
	return out, nil
}

// AmbiguousError is a lookup that matched several entries.
type AmbiguousError struct {
	Key        string
	Candidates []string // their ids
}

func (e *AmbiguousError) Error() string {
	return fmt.Sprintf("%q matches %d entries: %s; give more of the id", e.Key, len(e.Candidates), strings.Join(e.Candidates, ", "))
}

var adrNumber = lazyregexp.New(`^(?i)(?:adr[-_ ]?)?0*([0-9]{1,5})$`)

// Find looks an entry up by exact id, by path, by ADR number (`7`, `0007`,
// `ADR-7`) or by a unique id prefix; `kx:` in front is ignored. An ambiguous
// key is an *AmbiguousError listing the candidates, a key that matches
// nothing a *NotFoundError.
func Find(entries []*Entry, key string) (_ *Entry, err error) {
	k := strings.TrimPrefix(strings.TrimSpace(key), "kx:")
	if k == "" {
		return nil, &NotFoundError{Key: key}
	}
	defer func() {
		if nf, ok := err.(*NotFoundError); ok && nf.Nearest == nil {
			nf.Nearest = nearest(entries, k)
		}
	}()
	for _, e := range entries {
		if e.ID == k {
			return e, nil
		}
	}
	for _, e := range entries {
		if e.Path == k {
			return e, nil
		}
	}
	pick := func(m []*Entry) (*Entry, error) {
		if len(m) == 1 {
			return m[0], nil
		}
		ids := make([]string, len(m))
		for i, e := range m {
			ids[i] = e.ID
		}
		sort.Strings(ids)
		return nil, &AmbiguousError{Key: key, Candidates: ids}
	}
	if m := adrNumber.FindStringSubmatch(k); m != nil {
		want := atoi(m[1])
		var hits []*Entry
		for _, e := range entries {
			if n, ok := e.Number(); ok && n == want {
				hits = append(hits, e)
			}
		}
		if len(hits) > 0 {
			return pick(hits)
		}
	}
	var hits []*Entry
	for _, e := range entries {
		if strings.HasPrefix(e.ID, k) {
			hits = append(hits, e)
		}
	}
	if len(hits) == 0 {
		return nil, &NotFoundError{Key: key}
	}
	return pick(hits)
}

// ShortestPrefix returns the shortest prefix of id (ending at a dash, or the
// whole id) that no other entry's id starts with, for compact references.
func ShortestPrefix(entries []*Entry, id string) string {
	for i := 0; i < len(id); i++ {
		if id[i] != '-' {
			continue
		}
		p := id[:i]
		unique := true
		for _, e := range entries {
			if e.ID != id && strings.HasPrefix(e.ID, p) {
				unique = false
				break
			}
		}
		if unique {
			return p
		}
	}
	return id
}
