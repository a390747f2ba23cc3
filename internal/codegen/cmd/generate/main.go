// Command generate writes the code and docs generated from schema/ (and
// testdata/schema/). It is what `go generate ./...` runs, from gen/doc.go.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/kontext-dev/kontext/internal/codegen"
)

func main() {
	root := flag.String("root", "", "repository root (default: the directory holding go.mod above the working directory)")
	flag.Parse()
	if *root == "" {
		wd, err := os.Getwd()
		if err == nil {
			*root, err = codegen.FindRoot(wd)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "generate:", err)
			os.Exit(1)
		}
	}
	written, err := codegen.Write(*root)
	if err != nil {
		fmt.Fprintln(os.Stderr, "generate:", err)
		os.Exit(1)
	}
	for _, f := range written {
		fmt.Fprintln(os.Stderr, "generate: wrote", f)
	}
}
