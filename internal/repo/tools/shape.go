package tools

import (
	"encoding/json"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/kontext-dev/kontext/internal/repo/model"
)

// The detail contract. Compact is a size budget, not a different question:
// the same shape with the evidence dropped and lists cut until the JSON fits.
// Full keeps the evidence; its budget only keeps a message from growing
// without bound on a huge repository.
const (
	CompactBudget = 25_000
	FullBudget    = 1 << 20
)

var evidenceType = reflect.TypeFor[[]model.Evidence]()

// shape returns a copy of res that honours the detail contract: evidence
// dropped in compact, required lists present (never null, so the answer
// validates against the reflected outputSchema), and every list that had to
// be cut to fit the budget named in Truncated. res is never changed: it
// shares its slices with the immutable analysis.
func shape[T any](res *T, full bool) *T {
	out := new(T)
	v := reflect.ValueOf(out).Elem()
	v.Set(clone(reflect.ValueOf(res).Elem(), !full))
	budget := CompactBudget
	if full {
		budget = FullBudget
	}
	fit(v, budget)
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
	size   int
	maxLen int
}

// fit cuts v (an addressable result struct) until its JSON fits budget,
// halving the largest group of lists each round, so big lists shrink first
// and lists of similar size end up cut alike. Lists keep their head: every
// tool orders its lists by what matters most. A string long enough to
// rival the lists (a 4,000-character task echoed back) competes with them
// and is clipped the same way.
func fit(v reflect.Value, budget int) {
	for range 10_000 {
		b, err := json.Marshal(v.Addr().Interface())
		if err != nil || len(b) <= budget {
			return
		}
		groups := map[string]*group{}
		var order []string
		var long []longString
		collect(v, "", true, groups, &order, &long)
		var best *group
		for _, p := range order {
			g := groups[p]
			if g.maxLen > 0 && (best == nil || g.size > best.size) {
				best = g
			}
		}
		var str *longString
		for i := range long {
			if str == nil || long[i].size > str.size {
				str = &long[i]
			}
		}
		switch {
		case str != nil && (best == nil || str.size > best.size):
			s := str.v.String()
			cut := len(s) / 2
			for cut > 0 && !utf8.RuneStart(s[cut]) {
				cut--
			}
			str.v.SetString(s[:cut] + "…")
			noteTruncated(v, str.path)
		case best != nil:
			keep := best.maxLen / 2
			if best.size > budget {
				// Far over: cut to about half the budget at once instead of
				// halving round after round, each round a marshal of it all.
				keep = min(keep, int(float64(best.maxLen)*float64(budget)/float64(2*best.size)))
			}
			for _, l := range best.lists {
				if l.Len() > keep {
					l.Set(l.Slice(0, keep))
				}
			}
			noteTruncated(v, best.path)
		default:
			return // nothing left that could make a difference
		}
	}
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
// set for the result itself, whose Truncated list is never cut. A group's
// size is its lists' own JSON without the lists nested in their elements
// (those are groups of their own), so that a list of modules competes with
// the modules' usedBy lists instead of always outweighing them. It returns
// the JSON size of the lists directly under v.
func collect(v reflect.Value, path string, top bool, groups map[string]*group, order *[]string, long *[]longString) int {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			return collect(v.Elem(), path, false, groups, order, long)
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
			nested += collect(v.Field(i), p, false, groups, order, long)
		}
		return nested
	case reflect.Slice:
		if v.Len() == 0 {
			return 0
		}
		g := groups[path]
		if g == nil {
			g = &group{path: path}
			groups[path] = g
			*order = append(*order, path)
		}
		b, _ := json.Marshal(v.Interface())
		inner := 0
		for i := 0; i < v.Len(); i++ {
			inner += collect(v.Index(i), path+"[]", false, groups, order, long)
		}
		g.lists = append(g.lists, v)
		g.size += max(len(b)-inner, 0)
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

// noteTruncated adds name to the result's Truncated list, once.
func noteTruncated(v reflect.Value, name string) {
	f := v.FieldByName("Truncated")
	if !f.IsValid() || f.Type() != reflect.TypeFor[[]string]() {
		return
	}
	list := f.Interface().([]string)
	for _, n := range list {
		if n == name {
			return
		}
	}
	f.Set(reflect.ValueOf(append(list, name)))
}

// cut bounds a list a tool was asked to bound, recording the cut.
func cut[E any](list []E, n int, name string, truncated *[]string) []E {
	if n < 0 {
		n = 0
	}
	if len(list) <= n {
		return list
	}
	addTruncated(truncated, name)
	return list[:n:n]
}

func addTruncated(truncated *[]string, name string) {
	for _, n := range *truncated {
		if n == name {
			return
		}
	}
	*truncated = append(*truncated, name)
}
