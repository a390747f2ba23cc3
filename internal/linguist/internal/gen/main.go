// Command gen writes data_gen.go of package linguist from go-enry's data
// package. Run it through go generate ./internal/linguist.
package main

import (
	"flag"
	"log"
	"os"

	"github.com/kontext-dev/kontext/internal/linguist/internal/generator"
)

func main() {
	out := flag.String("o", "data_gen.go", "output file")
	flag.Parse()
	src, err := generator.Generate()
	if err != nil {
		log.Fatalf("linguist gen: %v", err)
	}
	if err := os.WriteFile(*out, src, 0o644); err != nil {
		log.Fatalf("linguist gen: %v", err)
	}
}
