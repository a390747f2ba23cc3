package codegen

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// copySpecs copies the repository's schema/ into a new root and returns it.
func copySpecs(t *testing.T) string {
	t.Helper()
	src := filepath.Join(repoRoot(t), "schema")
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, "schema", rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// toolsetOutputs generates the packages of every toolset of the tree under
// root, as Generate lays them out.
func toolsetOutputs(t *testing.T, root string) map[string][]byte {
	t.Helper()
	v, err := newSpecValidator(root)
	if err != nil {
		t.Fatal(err)
	}
	tree, err := loadTree(root, mainSpecs, v)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, ts := range tree.Toolsets {
		files, err := toolsetFiles(tree, ts, "gen/toolsets/"+ts.Name, ts.Name)
		if err != nil {
			t.Fatal(err)
		}
		for k, b := range files {
			out[k] = b
		}
	}
	return out
}

// TestAddingAToolTouchesOnlyItsToolset: a new tool is one file in its
// toolset's folder (plus its place in that folder's tools: order), and only
// that toolset's generated files change.
func TestAddingAToolTouchesOnlyItsToolset(t *testing.T) {
	root := copySpecs(t)
	before := toolsetOutputs(t, root)

	tool := `name: get_owners
title: {en: "Owners", sk: "Vlastníci"}
description: {en: "Who owns a path.", sk: "Kto vlastní cestu."}
annotations: {readOnlyHint: true, openWorldHint: false}
params:
  - {name: path, type: string, required: true, maxLength: 4096, description: {en: a path, sk: cesta}}
output:
  description: {en: "the owners", sk: "vlastníci"}
`
	folder := filepath.Join(root, "schema", "toolsets", "repo")
	if err := os.WriteFile(filepath.Join(folder, "tools", "get_owners.yaml"), []byte(tool), 0o644); err != nil {
		t.Fatal(err)
	}
	toolset, err := os.ReadFile(filepath.Join(folder, "toolset.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	listed := strings.Replace(string(toolset), "get_decisions]", "get_decisions, get_owners]", 1)
	if listed == string(toolset) {
		t.Fatal("the repo toolset's tools: list no longer ends with get_decisions; update this test")
	}
	if err := os.WriteFile(filepath.Join(folder, "toolset.yaml"), []byte(listed), 0o644); err != nil {
		t.Fatal(err)
	}
	after := toolsetOutputs(t, root)

	var changed []string
	for name, b := range after {
		if string(before[name]) != string(b) {
			changed = append(changed, name)
		}
	}
	sort.Strings(changed)
	if len(changed) == 0 {
		t.Fatal("adding a tool changed no generated file")
	}
	for _, name := range changed {
		if !strings.HasPrefix(name, "gen/toolsets/repo/") {
			t.Errorf("adding a repo tool rewrote %s", name)
		}
	}
	t.Logf("changed: %s", strings.Join(changed, ", "))
}

// TestHeadersNameOnlyWhatWasRead: a toolset's generated files name files of
// its own folder only, never the shared errors.yaml or server.yaml, and the
// flags (made from the parameters alone) name nothing but tool files and the
// shared parameters.
func TestHeadersNameOnlyWhatWasRead(t *testing.T) {
	for name, b := range toolsetOutputs(t, repoRoot(t)) {
		ts := strings.Split(name, "/")[2]
		head, _, _ := strings.Cut(string(b), "\npackage ")
		for _, line := range strings.Split(head, "\n") {
			src, ok := strings.CutPrefix(line, "// Source: ")
			if !ok {
				continue
			}
			file, _, _ := strings.Cut(src, " ")
			if !strings.HasPrefix(file, "schema/toolsets/"+ts+"/") {
				t.Errorf("%s names %s, outside its toolset's folder", name, file)
			}
			if strings.Contains(name, "flags") && !strings.Contains(file, "/tools/") && !strings.HasSuffix(file, "/"+paramsFile) {
				t.Errorf("%s names %s, but flags are made from parameters only", name, file)
			}
			if strings.HasSuffix(name, "/types_gen.go") && strings.HasSuffix(file, "/"+resourcesFile) && !strings.Contains(string(b), "Vars struct") {
				t.Errorf("%s names %s, but holds no resource template's variables", name, file)
			}
		}
	}
}

// TestToolsetFolderRules: the loader refuses a tools: list that names a
// tool of no file in the folder, and a folder server.yaml does not order.
func TestToolsetFolderRules(t *testing.T) {
	t.Run("tools lists a missing tool", func(t *testing.T) {
		root := copySpecs(t)
		p := filepath.Join(root, "schema", "toolsets", "repo", "toolset.yaml")
		b, _ := os.ReadFile(p)
		os.WriteFile(p, []byte(strings.Replace(string(b), "get_decisions]", "get_decisions, ctx_brief]", 1)), 0o644)
		v, _ := newSpecValidator(root)
		_, err := loadTree(root, mainSpecs, v)
		if err == nil || !strings.Contains(err.Error(), "no schema/toolsets/repo/tools/ctx_brief.yaml") {
			t.Fatalf("want the missing tool file named, got %v", err)
		}
	})
	t.Run("unordered folder", func(t *testing.T) {
		root := copySpecs(t)
		os.MkdirAll(filepath.Join(root, "schema", "toolsets", "widgets"), 0o755)
		v, _ := newSpecValidator(root)
		_, err := loadTree(root, mainSpecs, v)
		if err == nil || !strings.Contains(err.Error(), "does not name the toolset folder schema/toolsets/widgets") {
			t.Fatalf("want the unordered folder named, got %v", err)
		}
	})
}

// TestInputsArePlainModelsWithTheirDefaults: a tool input type validates
// nothing when decoded (no UnmarshalJSON: the runtime validated the
// arguments already), and its ApplyDefaults sets exactly the defaults its
// spec declares.
func TestInputsArePlainModelsWithTheirDefaults(t *testing.T) {
	root := repoRoot(t)
	v, err := newSpecValidator(root)
	if err != nil {
		t.Fatal(err)
	}
	tree, err := loadTree(root, mainSpecs, v)
	if err != nil {
		t.Fatal(err)
	}
	files := toolsetOutputs(t, root)
	for _, tool := range tree.Tools {
		src := string(files["gen/toolsets/"+tool.Toolset+"/types_gen.go"])
		if strings.Contains(src, "UnmarshalJSON") {
			t.Fatalf("gen/toolsets/%s/types_gen.go decodes with its own UnmarshalJSON", tool.Toolset)
		}
		_, body, ok := strings.Cut(src, "func (in *"+goName(tool.Name)+"Input) ApplyDefaults() {\n")
		if !ok {
			t.Fatalf("%s: no ApplyDefaults", tool.Name)
		}
		body, _, _ = strings.Cut(body, "}\n")
		var set []string
		for _, line := range strings.Split(strings.TrimSpace(body), "\n") {
			if line = strings.TrimSpace(line); line != "" {
				set = append(set, line)
			}
		}
		var want []string
		for _, p := range tool.Params {
			if d := p.Default(); d != nil {
				want = append(want, p.Name+"="+string(d))
			}
		}
		if len(set) != len(want) {
			t.Errorf("%s: ApplyDefaults sets %q, the spec's defaults are %q", tool.Name, set, want)
			continue
		}
		for i, line := range set {
			_, value, _ := strings.Cut(want[i], "=")
			if !strings.HasSuffix(line, " = "+value) {
				t.Errorf("%s: ApplyDefaults line %q, want the default %s", tool.Name, line, want[i])
			}
		}
	}
}
