// Command inittrace imports package linguist and nothing else, for
// TestInitCost: run with GODEBUG=inittrace=1 it shows what importing the
// package costs at program start. With -use it also times the first calls
// (which compile the regular expressions they need).
package main

import (
	"fmt"
	"os"
	"time"

	"github.com/kontext-dev/kontext/internal/linguist"
)

func main() {
	if len(os.Args) < 2 || os.Args[1] != "-use" {
		return
	}
	for _, in := range []struct{ name, content string }{
		{"main.go", "package main\n\nfunc main() {}\n"},
		{"lib.rs", "fn main() {}\n"},
		{"x.h", "#include <stdio.h>\nint f(void);\n"},
		{"script", "#!/usr/bin/env python3\nprint(1)\n"},
		{"README.md", "# Title\n"},
		{"main.go", "package main\n"},
	} {
		start := time.Now()
		lang := linguist.Language(in.name, []byte(in.content))
		gen := linguist.IsGenerated(in.name, []byte(in.content))
		vendor := linguist.IsVendor("src/" + in.name)
		doc := linguist.IsDocumentation(in.name)
		fmt.Printf("%-10s %-12s generated=%v vendor=%v doc=%v  %v\n", in.name, lang, gen, vendor, doc, time.Since(start))
	}
}
