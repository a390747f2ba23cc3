// Command gendoc rewrites the generated sections of the App Context
// profile document (docs/appcontext-profile.md): the manifest's keys from
// its JSON Schema and the conformance rules from internal/apps/check.
// go generate ./internal/apps/check runs it.
package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/kontext-dev/kontext/internal/apps/check"
	"github.com/kontext-dev/kontext/internal/codegen"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "gendoc:", err)
		os.Exit(1)
	}
}

func run() error {
	wd, err := os.Getwd()
	if err != nil {
		return err
	}
	root, err := codegen.FindRoot(wd)
	if err != nil {
		return err
	}
	path := filepath.Join(root, filepath.FromSlash(check.ProfileDoc))
	doc, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	out, err := check.SpliceDoc(doc)
	if err != nil {
		return err
	}
	if bytes.Equal(out, doc) {
		return nil
	}
	if err := os.WriteFile(path, out, 0o644); err != nil {
		return err
	}
	fmt.Fprintln(os.Stderr, "gendoc: wrote", check.ProfileDoc)
	return nil
}
