package repo

import (
	"reflect"
	"sync"
)

// gob decodes an empty slice as nil, and the graph's JSON tells them apart
// ("entryPoints": [] is not null). emptySlices records, depth-first, which
// slices of a value are empty but not nil, and restoreEmpty makes them so
// again after decoding: a graph loaded from the cache marshals exactly as
// the one that was saved. The walk visits the same slices in the same
// order before and after (an empty slice has no elements either way).
// Maps are not walked: the cached types hold none.

type emptyBits struct {
	bits []uint64
	n    int
}

func (b *emptyBits) push(v bool) {
	if b.n%64 == 0 {
		b.bits = append(b.bits, 0)
	}
	if v {
		b.bits[b.n/64] |= 1 << (b.n % 64)
	}
	b.n++
}

func (b *emptyBits) pop() bool {
	if b.n/64 >= len(b.bits) {
		return false
	}
	v := b.bits[b.n/64]&(1<<(b.n%64)) != 0
	b.n++
	return v
}

// A walk follows a plan made once per type: for each type, whether a
// value of it holds a slice anywhere, and where — the exported fields of a
// struct that do, the element of a pointer, array or slice. Values of
// types without slices are skipped, and no field is looked up by
// reflection per value: a warm start walks every file of the graph.
type slicePlan struct {
	has    bool
	elem   *slicePlan // pointer, array, slice
	fields []fieldPlan
}

type fieldPlan struct {
	index int
	plan  *slicePlan
}

var (
	plansMu   sync.Mutex
	plans     = map[reflect.Type]*slicePlan{}
	hasSlices = map[reflect.Type]bool{}
)

func planOf(t reflect.Type) *slicePlan {
	plansMu.Lock()
	defer plansMu.Unlock()
	return planLocked(t)
}

func planLocked(t reflect.Type) *slicePlan {
	if p, ok := plans[t]; ok {
		return p
	}
	p := &slicePlan{has: typeHasSlicesLocked(t)}
	plans[t] = p // a recursive type finds its own plan
	if !p.has {
		return p
	}
	switch t.Kind() {
	case reflect.Pointer, reflect.Array, reflect.Slice:
		p.elem = planLocked(t.Elem())
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			if f := t.Field(i); f.IsExported() {
				if fp := planLocked(f.Type); fp.has {
					p.fields = append(p.fields, fieldPlan{i, fp})
				}
			}
		}
	}
	return p
}

func typeHasSlicesLocked(t reflect.Type) bool {
	if v, ok := hasSlices[t]; ok {
		return v
	}
	hasSlices[t] = false // ends the recursion of a recursive type
	has := false
	switch t.Kind() {
	case reflect.Slice:
		has = true
	case reflect.Pointer, reflect.Array:
		has = typeHasSlicesLocked(t.Elem())
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			if f := t.Field(i); f.IsExported() && typeHasSlicesLocked(f.Type) {
				has = true
				break
			}
		}
	}
	hasSlices[t] = has
	return has
}

func walkSlices(v reflect.Value, visit func(reflect.Value)) {
	walkPlan(v, planOf(v.Type()), visit)
}

func walkPlan(v reflect.Value, p *slicePlan, visit func(reflect.Value)) {
	if !p.has {
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			walkPlan(v.Elem(), p.elem, visit)
		}
	case reflect.Struct:
		for _, f := range p.fields {
			walkPlan(v.Field(f.index), f.plan, visit)
		}
	case reflect.Array:
		for i := 0; i < v.Len(); i++ {
			walkPlan(v.Index(i), p.elem, visit)
		}
	case reflect.Slice:
		visit(v)
		if p.elem.has {
			for i := 0; i < v.Len(); i++ {
				walkPlan(v.Index(i), p.elem, visit)
			}
		}
	}
}

// emptySlices records the empty non-nil slices of *ptr.
func emptySlices(ptr any) emptyBits {
	var b emptyBits
	walkSlices(reflect.ValueOf(ptr), func(s reflect.Value) {
		b.push(!s.IsNil() && s.Len() == 0)
	})
	return b
}

// restoreEmpty turns the slices emptySlices recorded back into empty ones.
func restoreEmpty(ptr any, b emptyBits) {
	b.n = 0
	walkSlices(reflect.ValueOf(ptr), func(s reflect.Value) {
		if b.pop() && s.IsNil() && s.CanSet() {
			s.Set(reflect.MakeSlice(s.Type(), 0, 0))
		}
	})
}
