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

// hasSlices caches, by type, whether a value of the type holds a slice
// anywhere (a walk skips the ones that do not).
var (
	hasSlicesMu sync.Mutex
	hasSlices   = map[reflect.Type]bool{}
)

func typeHasSlices(t reflect.Type) bool {
	hasSlicesMu.Lock()
	defer hasSlicesMu.Unlock()
	return typeHasSlicesLocked(t)
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
	if !typeHasSlices(v.Type()) {
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			walkSlices(v.Elem(), visit)
		}
	case reflect.Struct:
		t := v.Type()
		for i := 0; i < v.NumField(); i++ {
			if t.Field(i).IsExported() {
				walkSlices(v.Field(i), visit)
			}
		}
	case reflect.Array:
		for i := 0; i < v.Len(); i++ {
			walkSlices(v.Index(i), visit)
		}
	case reflect.Slice:
		visit(v)
		if typeHasSlices(v.Type().Elem()) {
			for i := 0; i < v.Len(); i++ {
				walkSlices(v.Index(i), visit)
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
