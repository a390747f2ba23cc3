package codegen

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"path/filepath"
	"sort"
	"strings"
)

// Trees of specs and where their code goes.
const (
	mainSpecs = "schema"
	testSpecs = "testdata/schema"
)

// Generate returns every file generated from the specs under root, by path
// relative to root. It reads, and never writes.
func Generate(root string) (map[string][]byte, error) {
	v, err := newSpecValidator(root)
	if err != nil {
		return nil, err
	}
	main, err := loadTree(root, mainSpecs, v)
	if err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	add := func(files map[string][]byte) {
		for k, b := range files {
			out[k] = b
		}
	}

	protocol, err := protocolFile(root)
	if err != nil {
		return nil, err
	}
	out["gen/protocol/protocol_gen.go"] = protocol
	errcodes, err := errcodesFile(main)
	if err != nil {
		return nil, err
	}
	out["gen/errcodes/errcodes_gen.go"] = errcodes

	for _, ts := range main.Toolsets {
		files, err := toolsetFiles(main, ts, "gen/toolsets/"+ts.Name, ts.Name)
		if err != nil {
			return nil, err
		}
		add(files)
	}

	if _, err := os.Stat(filepath.Join(root, testSpecs, "toolsets.yaml")); err == nil {
		test, err := loadTree(root, testSpecs, v)
		if err != nil {
			return nil, err
		}
		for _, ts := range test.Toolsets {
			files, err := toolsetFiles(test, ts, "internal/"+ts.Name+"/spec", "spec")
			if err != nil {
				return nil, err
			}
			add(files)
		}
	}

	for _, lang := range []string{"en", "sk"} {
		file := "docs/reference." + lang + ".md"
		doc, err := markedFile(root, file, "reference", reference(main, lang))
		if err != nil {
			return nil, err
		}
		out[file] = doc
	}
	if readme, err := os.ReadFile(filepath.Join(root, "README.md")); err == nil {
		doc, err := replaceMarked("README.md", string(readme), "errors", errorTable(main, "en"))
		if err != nil {
			return nil, err
		}
		out["README.md"] = []byte(doc)
	}
	return out, nil
}

// markedFile returns file with its generated region replaced, or a new file
// holding just the region when it does not exist yet.
func markedFile(root, file, region, body string) ([]byte, error) {
	old, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(file)))
	if errors.Is(err, fs.ErrNotExist) {
		return []byte(markedDoc(region, body)), nil
	}
	if err != nil {
		return nil, err
	}
	doc, err := replaceMarked(file, string(old), region, body)
	return []byte(doc), err
}

// generatedDirs are the directories whose *_gen.go files all come from
// Generate; a *_gen.go there that Generate does not produce is stale.
var generatedDirs = []string{"gen", "internal"}

// Stale compares Generate's output with the files under root and returns
// one line per difference: a file that differs, is missing, or is a
// generated file no spec produces any more.
func Stale(root string) ([]string, error) {
	files, err := Generate(root)
	if err != nil {
		return nil, err
	}
	var problems []string
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(name)))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			problems = append(problems, name+": missing")
		case err != nil:
			return nil, err
		case !bytes.Equal(got, want):
			problems = append(problems, name+": stale")
		}
	}
	orphans, err := Orphans(root, files)
	if err != nil {
		return nil, err
	}
	for _, o := range orphans {
		problems = append(problems, o+": generated file that no spec produces")
	}
	sort.Strings(problems)
	return problems, nil
}

// Orphans lists the *_gen.go files under root that files does not contain.
func Orphans(root string, files map[string][]byte) ([]string, error) {
	var out []string
	for _, dir := range generatedDirs {
		err := filepath.WalkDir(filepath.Join(root, dir), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && (d.Name() == "testdata" || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(d.Name(), "_gen.go") {
				return nil
			}
			rel, _ := filepath.Rel(root, p)
			rel = filepath.ToSlash(rel)
			if _, ok := files[rel]; !ok {
				out = append(out, rel)
			}
			return nil
		})
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}
	sort.Strings(out)
	return out, nil
}

// Write writes the generated files under root and removes orphans.
func Write(root string) ([]string, error) {
	files, err := Generate(root)
	if err != nil {
		return nil, err
	}
	var written []string
	for name, b := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if old, err := os.ReadFile(p); err == nil && bytes.Equal(old, b) {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return nil, err
		}
		written = append(written, name)
	}
	orphans, err := Orphans(root, files)
	if err != nil {
		return nil, err
	}
	for _, o := range orphans {
		if err := os.Remove(filepath.Join(root, filepath.FromSlash(o))); err != nil {
			return nil, err
		}
		written = append(written, o+" (removed)")
	}
	sort.Strings(written)
	return written, nil
}

// FindRoot walks up from dir to the directory holding go.mod.
func FindRoot(dir string) (string, error) {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		if d == filepath.Dir(d) {
			return "", fmt.Errorf("no go.mod above %s", dir)
		}
	}
}
