package tools

import (
	"testing"

	"github.com/kontext-dev/kontext/internal/knowledge/index"
)

// A hit line names its source only when it is not local (the original's
// hit line), so an adapter's hit stands out.
func TestHitLineNamesOnlyOtherSources(t *testing.T) {
	local := hitLine(1, index.Hit{Doc: index.Doc{Title: "Billing", Kind: "doc", Source: "local", URI: "file:README.md#billing"}, Snippet: "nightly"})
	if local != "1. Billing — nightly [doc] <file:README.md#billing>" {
		t.Errorf("local hit line %q", local)
	}
	memory := hitLine(2, index.Hit{Doc: index.Doc{Title: "Invoices service", Kind: "service", Source: "memory"}})
	if memory != "2. Invoices service [service · memory]" {
		t.Errorf("adapter hit line %q", memory)
	}
}
