package repo

import (
	"bytes"
	"encoding/gob"
	"reflect"
	"testing"

	"github.com/kontext-dev/kontext/internal/repo/model"
)

type emptyInner struct {
	A []int
	B []string
	N int
}

type emptyOuter struct {
	X   []emptyInner
	P   *emptyInner
	Q   *emptyInner
	Arr [2]emptyInner
	S   [][]int
	T   []string
	G   model.Graph
}

// TestEmptySlicesSurviveGob: what gob decodes as nil, restoreEmpty makes
// empty again — at any depth (fields, pointers, arrays, slices of slices,
// slices of structs) — and a nil slice stays nil.
func TestEmptySlicesSurviveGob(t *testing.T) {
	in := emptyOuter{
		X:   []emptyInner{{A: []int{}, B: nil, N: 1}, {A: []int{1}, B: []string{}}, {}},
		P:   &emptyInner{A: []int{}, B: []string{"x"}},
		Arr: [2]emptyInner{{B: []string{}}, {A: []int{}, B: []string{}}},
		S:   [][]int{{}, nil, {1}, {}},
		T:   nil,
		G: model.Graph{
			Modules:      []model.Module{{ID: "a", Roles: []model.Role{}, DependsOn: []string{}, UsedBy: nil}, {ID: "b", Roles: []model.Role{{Role: "domain", Evidence: []model.Evidence{}}}}},
			Dependencies: []model.Dependency{},
			Files:        []model.File{{Path: "a.go", Imports: []model.Import{}}},
		},
	}
	bits := emptySlices(&in)
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(&in); err != nil {
		t.Fatal(err)
	}
	var out emptyOuter
	if err := gob.NewDecoder(&buf).Decode(&out); err != nil {
		t.Fatal(err)
	}
	if reflect.DeepEqual(in, out) {
		t.Fatal("gob kept the empty slices: the test shows nothing")
	}
	restoreEmpty(&out, bits)
	if !reflect.DeepEqual(in, out) {
		t.Fatalf("after restoreEmpty:\n got %#v\nwant %#v", out, in)
	}
}
