package cli

import (
	"testing"

	"github.com/kontext-dev/kontext/internal/lazyregexp"
)

// The package's expressions compile on first use: a bad one fails here.
func TestExpressionsCompile(t *testing.T) {
	if err := lazyregexp.CompileAll(); err != nil {
		t.Fatal(err)
	}
}
