package analyze

import (
	"math/rand/v2"
	"path"
	"strings"
	"testing"

	"github.com/kontext-dev/kontext/internal/repo/model"
)

// enclosingByDir is the definition EnclosingDir must keep: path.Dir up to
// the root, every parent asked about.
func enclosingByDir(p string, set map[string]bool) string {
	for d := path.Dir(p); ; d = path.Dir(d) {
		if set[d] {
			return d
		}
		if d == "." || d == "/" || d == "" {
			return ""
		}
	}
}

func TestEnclosingDirAgreesWithPathDir(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 11))
	parts := []string{"a", "b", "cmd", "x.go", "internal", "."}
	randomPath := func(n int) string {
		var b strings.Builder
		if rng.IntN(5) == 0 {
			b.WriteByte('/')
		}
		for i := range n {
			if i > 0 {
				b.WriteByte('/')
			}
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		return path.Clean(b.String())
	}
	for round := range 2000 {
		set := map[string]bool{}
		depth := 0
		for range rng.IntN(6) {
			m := randomPath(1 + rng.IntN(4))
			set[m] = true
			depth = max(depth, Depth(m))
		}
		if rng.IntN(3) == 0 {
			set["."] = true
		}
		p := randomPath(1 + rng.IntN(8))
		if got, want := EnclosingDir(p, depth, set), enclosingByDir(p, set); got != want {
			t.Fatalf("round %d: EnclosingDir(%q, %d, %v) = %q, path.Dir finds %q", round, p, depth, set, got, want)
		}
	}
}

// A target of 32,000 components took 13 s in get_module_history: every
// parent was cleaned and looked up again from the whole path. EnclosingDir
// makes one pass; a million components would not end otherwise.
func TestEnclosingDirIsLinear(t *testing.T) {
	set := map[string]bool{"a/a": true, "src": true}
	long := strings.Repeat("a/", 1_000_000) + "x.go"
	if got := EnclosingDir(long, 2, set); got != "a/a" {
		t.Fatalf("EnclosingDir = %q", got)
	}
	if got := EnclosingDir("src/"+long, 2, set); got != "src" {
		t.Fatalf("EnclosingDir = %q", got)
	}
	if !inDir(long, strings.Repeat("a/", 999_999)+"a") || inDir("a/b", long) {
		t.Fatal("inDir")
	}
	g := &model.Graph{Modules: []model.Module{{ID: "a"}, {ID: "a/a/a"}, {ID: "."}}}
	if got := newIndex(g).moduleOf(long); got != "a/a/a" {
		t.Fatalf("moduleOf = %q", got)
	}
}

func BenchmarkEnclosingDirLong(b *testing.B) {
	set := map[string]bool{"a/a": true}
	long := strings.Repeat("a/", 32000) + "x.go"
	for b.Loop() {
		EnclosingDir(long, 2, set)
	}
}
