package store

import (
	"os"
	"testing"
)

func BenchmarkParse(b *testing.B) {
	for _, name := range []string{"frontmatter-original.md", "frontmatter-handwritten.md", "fields-bold.md"} {
		data, err := os.ReadFile("testdata/golden/" + name)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				Parse(".ai/decisions/x.md", data, KindDecision)
			}
		})
	}
}
