package tools

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/kontext-dev/kontext/internal/repo/model"
	"github.com/kontext-dev/kontext/internal/repo/results"
)

// The detail contract. Compact is a size budget, not a different question:
// the same shape with the evidence dropped and lists cut until the JSON
// fits. Full keeps the evidence within the same bound: a client caps what
// it shows an agent (25,000 characters), and an answer cut by the client
// loses its end without saying so, where one cut here says what it left
// out and how to ask for it. The budget leaves room below the cap.
const (
	AnswerCap     = 25_000
	CompactBudget = 24_000
	FullBudget    = CompactBudget
)

var evidenceType = reflect.TypeFor[[]model.Evidence]()

// shape returns a copy of res that honours the detail contract: evidence
// dropped in compact, required lists present (never null, so the answer
// validates against the reflected outputSchema), and every list that had to
// be cut to fit the budget named in Truncated, with its counts and narrow
// (how to ask for the rest; an entry's own Narrow, set where a tool's bound
// cut it, wins). res is never changed: it shares its slices with the
// immutable analysis.
func shape[T any](res *T, full bool, narrow string) *T {
	budget := CompactBudget
	if full {
		budget = FullBudget
	}
	return shapeWithin(res, full, narrow, budget)
}

// shapeWithin is shape with a budget of the caller's: a part of an answer
// that must keep to a share of it.
func shapeWithin[T any](res *T, full bool, narrow string, budget int) *T {
	out := new(T)
	v := reflect.ValueOf(out).Elem()
	v.Set(clone(reflect.ValueOf(res).Elem(), !full))
	fit(v, budget, full, narrow)
	return out
}

// clone deep-copies v, leaving out evidence when drop is set and turning a
// nil list that the schema requires into an empty one.
func clone(v reflect.Value, drop bool) reflect.Value {
	switch v.Kind() {
	case reflect.Struct:
		t := v.Type()
		out := reflect.New(t).Elem()
		if !allExported(t) { // time.Time and the like are values: copy whole
			out.Set(v)
			return out
		}
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if drop && f.Type == evidenceType {
				continue
			}
			fv := clone(v.Field(i), drop)
			if fv.Kind() == reflect.Slice && fv.IsNil() && required(f) {
				fv = reflect.MakeSlice(f.Type, 0, 0)
			}
			out.Field(i).Set(fv)
		}
		return out
	case reflect.Slice:
		if v.IsNil() {
			return reflect.Zero(v.Type())
		}
		out := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := 0; i < v.Len(); i++ {
			out.Index(i).Set(clone(v.Index(i), drop))
		}
		return out
	case reflect.Pointer:
		if v.IsNil() {
			return reflect.Zero(v.Type())
		}
		out := reflect.New(v.Type().Elem())
		out.Elem().Set(clone(v.Elem(), drop))
		return out
	case reflect.Map:
		if v.IsNil() {
			return reflect.Zero(v.Type())
		}
		out := reflect.MakeMapWithSize(v.Type(), v.Len())
		it := v.MapRange()
		for it.Next() {
			out.SetMapIndex(it.Key(), clone(it.Value(), drop))
		}
		return out
	}
	return v
}

func allExported(t reflect.Type) bool {
	for i := 0; i < t.NumField(); i++ {
		if !t.Field(i).IsExported() {
			return false
		}
	}
	return true
}

// jsonName is a field's name in JSON and whether the field is required
// (neither omitempty nor omitzero: the reflected schema requires it).
func jsonName(f reflect.StructField) (name string, req bool) {
	tag := f.Tag.Get("json")
	if tag == "-" {
		return "", false
	}
	name, opts, _ := strings.Cut(tag, ",")
	if name == "" {
		name = f.Name
	}
	req = true
	for _, o := range strings.Split(opts, ",") {
		if o == "omitempty" || o == "omitzero" {
			req = false
		}
	}
	return name, req
}

func required(f reflect.StructField) bool {
	_, req := jsonName(f)
	return req
}

// group is every list at one path of the answer ("modules", or
// "modules[].usedBy" for the usedBy list of each module): they are cut
// together, so that no single element keeps a long list while its
// siblings lose theirs.
type group struct {
	path   string
	lists  []reflect.Value
	size   int // their JSON, without the lists nested in their elements
	whole  int // their JSON, nested lists included: what cutting removes
	items  int
	maxLen int
	core   bool // tagged shape:"core": what the answer is for
	floor  int  // the length no list of the group is cut below
}

// coreWeight is how much of a core list's size counts when choosing what
// to cut: the other lists of an answer give way first.
const coreWeight = 0.1

func (g *group) weight() float64 {
	if g.core {
		return coreWeight * float64(g.size)
	}
	return float64(g.size)
}

// fit cuts v (an addressable result struct) until its JSON fits budget.
// Each round cuts the group of lists that weighs most (core lists weigh
// less) by what the excess needs (keepFor: at most by half, unless the
// group outweighs all others by more), so that big lists shrink first and
// lists of similar size end up cut alike. Lists
// keep their head: every tool orders its lists by what matters most. In a
// full answer an evidence list keeps at least its first item, which is
// what full is for. A string long enough to rival the lists (a
// 4,000-character task echoed back) competes with them and is clipped the
// same way. The Truncated notes are counted in the budget as they grow.
func fit(v reflect.Value, budget int, full bool, narrow string) {
	before := counts(v)
	for range 10_000 {
		noteCounts(v, narrow)
		b, err := json.Marshal(v.Addr().Interface())
		if err != nil || len(b) <= budget {
			return
		}
		excess := len(b) - budget
		groups := map[string]*group{}
		var order []string
		var long []longString
		collect(v, "", true, "", groups, &order, &long)
		var best *group
		next := 0.0 // the weight of the heaviest group after best
		for _, p := range order {
			g := groups[p]
			if full && carriesEvidence(g.lists[0].Type()) {
				g.floor = max(g.floor, 1)
			}
			if g.maxLen <= g.floor {
				continue
			}
			if best == nil || g.weight() > best.weight() {
				if best != nil {
					next = max(next, best.weight())
				}
				best = g
			} else {
				next = max(next, g.weight())
			}
		}
		var str *longString
		for i := range long {
			if str == nil || long[i].size > str.size {
				str = &long[i]
			}
		}
		if str != nil && best != nil && float64(str.size) <= best.weight() {
			next = max(next, float64(str.size))
		}
		switch {
		case str != nil && (best == nil || float64(str.size) > best.weight()):
			s := str.v.String()
			cut := max(len(s)/2, len(s)-excess-len("…"))
			for cut > 0 && !utf8.RuneStart(s[cut]) {
				cut--
			}
			str.v.SetString(s[:cut] + "…")
			noteTruncated(v, str.path, before)
		case best != nil:
			keep := max(keepFor(best, excess, next), best.floor)
			for _, l := range best.lists {
				if l.Len() > keep {
					l.Set(l.Slice(0, keep))
				}
			}
			noteTruncated(v, best.path, before)
		default:
			return // nothing left that could make a difference
		}
	}
}

// carriesEvidence reports a list type whose items hold evidence, as
// evidence lists or further down: a full answer keeps one of each.
func carriesEvidence(t reflect.Type) bool {
	seen := map[reflect.Type]bool{}
	var walk func(t reflect.Type) bool
	walk = func(t reflect.Type) bool {
		if t == evidenceType {
			return true
		}
		if seen[t] {
			return false
		}
		seen[t] = true
		switch t.Kind() {
		case reflect.Slice, reflect.Pointer:
			return walk(t.Elem())
		case reflect.Struct:
			for i := 0; i < t.NumField(); i++ {
				if t.Field(i).IsExported() && walk(t.Field(i).Type) {
					return true
				}
			}
		}
		return false
	}
	return walk(t)
}

// keepFor is the length to cut a group's lists to: the longest that
// removes excess bytes at the group's average item size. A round cuts a
// group by at most half, so that big lists shrink first and lists of
// similar size end up cut alike, except down to the next heaviest group
// (next, a weight) when the group outweighs it by more: a list that alone
// makes an answer too big is cut at once to what fits, not halved round
// after round (each round is a marshal of the whole answer).
func keepFor(g *group, excess int, next float64) int {
	if g.items == 0 {
		return g.maxLen / 2
	}
	lower := float64(g.size) / 2
	if w := g.weight(); next < w/2 {
		lower = float64(g.size) * next / w
	}
	// A tenth more than the estimate asks: items differ in size, and a
	// round that falls short by a few bytes costs a whole round more.
	need := max(1.1*float64(excess)+64, 0)
	if float64(g.size)-need < lower {
		need = float64(g.size) - lower
	}
	// An item removed takes the lists nested in it along.
	perItem := float64(g.whole) / float64(g.items)
	removedAt := func(keep int) int {
		removed := 0
		for _, l := range g.lists {
			removed += max(l.Len()-keep, 0)
		}
		return removed
	}
	// The longest keep that removes enough: removedAt grows as keep
	// shrinks, so a binary search finds it.
	lo, hi := 0, g.maxLen-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if float64(removedAt(mid))*perItem >= need {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// minClip is the JSON size below which a string is never clipped: ids,
// paths and titles stay whole.
const minClip = 256

// longString is a string worth clipping and where it is.
type longString struct {
	v    reflect.Value
	path string
	size int
}

// collect gathers the lists under v by path, and the long strings. top is
// set for the result itself, whose Truncated list is never cut; tag is the
// shape tag of the field v is: "core" (weighs less) or "head" (never cut
// below its first item). A group's size is its lists'
// own JSON without the lists nested in their elements (those are groups of
// their own), so that a list of modules competes with the modules' usedBy
// lists instead of always outweighing them. It returns the JSON size of
// the lists directly under v.
func collect(v reflect.Value, path string, top bool, tag string, groups map[string]*group, order *[]string, long *[]longString) int {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			return collect(v.Elem(), path, false, tag, groups, order, long)
		}
	case reflect.Struct:
		t := v.Type()
		if !allExported(t) {
			return 0
		}
		nested := 0
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if top && f.Name == "Truncated" {
				continue
			}
			name, _ := jsonName(f)
			if name == "" {
				continue
			}
			p := name
			if path != "" {
				p = path + "." + name
			}
			nested += collect(v.Field(i), p, false, f.Tag.Get("shape"), groups, order, long)
		}
		return nested
	case reflect.Slice:
		if v.Len() == 0 {
			return 0
		}
		g := groups[path]
		if g == nil {
			g = &group{path: path, core: tag == "core"}
			if tag == "head" {
				g.floor = 1
			}
			groups[path] = g
			*order = append(*order, path)
		}
		b, _ := json.Marshal(v.Interface())
		inner := 0
		for i := 0; i < v.Len(); i++ {
			inner += collect(v.Index(i), path+"[]", false, "", groups, order, long)
		}
		g.lists = append(g.lists, v)
		g.size += max(len(b)-inner, 0)
		g.whole += len(b)
		g.items += v.Len()
		g.maxLen = max(g.maxLen, v.Len())
		return len(b)
	case reflect.String:
		if v.Len() >= minClip/6 && v.CanSet() {
			if b, _ := json.Marshal(v.String()); len(b) >= minClip {
				*long = append(*long, longString{v, path, len(b)})
			}
		}
	}
	return 0
}

// counts are the items of the lists under v by path (summed over the
// lists at one path), and the characters of its strings.
func counts(v reflect.Value) map[string]int {
	out := map[string]int{}
	var walk func(v reflect.Value, path string, top bool)
	walk = func(v reflect.Value, path string, top bool) {
		switch v.Kind() {
		case reflect.Pointer:
			if !v.IsNil() {
				walk(v.Elem(), path, false)
			}
		case reflect.Struct:
			t := v.Type()
			if !allExported(t) {
				return
			}
			for i := 0; i < t.NumField(); i++ {
				f := t.Field(i)
				if top && f.Name == "Truncated" {
					continue
				}
				if name, _ := jsonName(f); name != "" {
					p := name
					if path != "" {
						p = path + "." + name
					}
					walk(v.Field(i), p, false)
				}
			}
		case reflect.Slice:
			out[path] += v.Len()
			for i := 0; i < v.Len(); i++ {
				walk(v.Index(i), path+"[]", false)
			}
		case reflect.String:
			out[path] += utf8.RuneCountInString(v.String())
		}
	}
	walk(v, "", true)
	return out
}

// noteCounts fills in what every Truncated entry keeps now, and the
// narrow of entries without one of their own. Totals were set when the
// entries were made: by a tool's bound, which saw the whole list, or by
// fit, from the answer before it cut anything.
func noteCounts(v reflect.Value, narrow string) {
	f := v.FieldByName("Truncated")
	if !f.IsValid() || f.Len() == 0 {
		return
	}
	now := counts(v)
	list := f.Interface().([]results.Truncation)
	out := make([]results.Truncation, len(list))
	for i, t := range list {
		if n, ok := now[t.Field]; ok {
			t.Kept = n
		}
		if t.Narrow == "" {
			t.Narrow = narrow
		}
		out[i] = t
	}
	f.Set(reflect.ValueOf(out))
}

// noteTruncated adds name to the result's Truncated list, once, with the
// total it had before fit began.
func noteTruncated(v reflect.Value, name string, before map[string]int) {
	f := v.FieldByName("Truncated")
	if !f.IsValid() || f.Type() != reflect.TypeFor[[]results.Truncation]() {
		return
	}
	list := f.Interface().([]results.Truncation)
	for _, t := range list {
		if t.Field == name {
			return
		}
	}
	f.Set(reflect.ValueOf(append(slices.Clip(list), results.Truncation{Field: name, Total: before[name]})))
}

// cut bounds a list a tool was asked to bound, recording the cut with its
// counts and how to ask for more (narrow).
func cut[E any](list []E, n int, name, narrow string, truncated *[]results.Truncation) []E {
	if n < 0 {
		n = 0
	}
	if len(list) <= n {
		return list
	}
	note(truncated, results.Truncation{Field: name, Kept: n, Total: len(list), Narrow: narrow})
	return list[:n:n]
}

// note records a cut, once per field: a second note of a field adds what
// the first did not say.
func note(truncated *[]results.Truncation, t results.Truncation) {
	for i := range *truncated {
		if e := &(*truncated)[i]; e.Field == t.Field {
			e.Total = max(e.Total, t.Total)
			if e.Narrow == "" {
				e.Narrow = t.Narrow
			}
			return
		}
	}
	*truncated = append(*truncated, t)
}

// addTruncated records a cut made where the whole could not be counted
// (a bound of the analysis itself, or of a list the engine returns cut):
// kept is what is left, the total unknown.
func addTruncated(truncated *[]results.Truncation, name string, kept int, narrow string) {
	note(truncated, results.Truncation{Field: name, Kept: kept, Narrow: narrow})
}
