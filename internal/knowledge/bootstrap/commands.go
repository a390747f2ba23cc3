package bootstrap

import (
	"bufio"
	"bytes"
	"path"
	"sort"
	"strings"

	"github.com/goccy/go-yaml"

	"github.com/kontext-dev/kontext/internal/fsroot"
	"github.com/kontext-dev/kontext/internal/lazyregexp"
	"github.com/kontext-dev/kontext/internal/repo/model"
)

// The categories of "how to work", in the order the overview lists them.
const (
	catBuild  = "build"
	catTest   = "test"
	catLint   = "lint"
	catFormat = "format"
	catRun    = "run"
)

var categoryOrder = []string{catBuild, catTest, catLint, catFormat, catRun}

// categoryWords tell a command's category from the words of its name (or
// of its command line, for a guide's commands). Earlier categories win:
// "test-build" is a test, "lint-fix" is linting.
var categoryWords = []struct {
	category string
	words    []string
}{
	{catFormat, []string{"fmt", "format", "prettier", "gofmt", "gofumpt", "black", "isort", "rustfmt"}},
	{catLint, []string{"lint", "vet", "check", "typecheck", "type-check", "tsc", "golangci-lint", "eslint", "ruff", "clippy", "staticcheck", "shellcheck", "mypy", "flake8"}},
	{catTest, []string{"test", "tests", "unit", "e2e", "integration", "coverage", "cover", "pytest", "spec", "jest", "vitest", "tox", "nox"}},
	{catBuild, []string{"build", "compile", "bundle", "dist"}},
	{catRun, []string{"run", "dev", "start", "serve", "watch"}},
}

// categorize names a command's category, or "" when it has none of the
// usual ones.
func categorize(name string) string {
	words := strings.FieldsFunc(strings.ToLower(name), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-')
	})
	for _, cw := range categoryWords {
		for _, w := range words {
			for _, want := range cw.words {
				if w == want || strings.HasPrefix(w, want+"-") || strings.HasSuffix(w, "-"+want) {
					return cw.category
				}
			}
		}
	}
	return ""
}

// commands lists how people work with the repository: the root Makefile's
// targets, Taskfile.yml's tasks, the justfile's recipes, the root
// package.json's scripts, and the commands the contributing guide shows.
func commands(root *fsroot.Root, g *model.Graph) []Command {
	var out []Command
	add := func(tool, name, run string) {
		out = append(out, Command{Tool: tool, Name: name, Run: run, Category: categorize(name)})
	}
	for _, name := range []string{"Makefile", "makefile", "GNUmakefile"} {
		if data, err := root.ReadFile(name); err == nil {
			for _, t := range makeTargets(data) {
				add("make", t, "make "+t)
			}
			break
		}
	}
	for _, name := range []string{"Taskfile.yml", "Taskfile.yaml", "taskfile.yml", "taskfile.yaml", "Taskfile.dist.yml"} {
		if data, err := root.ReadFile(name); err == nil {
			for _, t := range taskfileTasks(data) {
				add("task", t, "task "+t)
			}
			break
		}
	}
	for _, name := range []string{"justfile", "Justfile", ".justfile"} {
		if data, err := root.ReadFile(name); err == nil {
			for _, r := range justRecipes(data) {
				add("just", r, "just "+r)
			}
			break
		}
	}
	files := map[string]bool{}
	for _, f := range g.Files {
		if path.Dir(f.Path) == "." {
			files[f.Path] = true
		}
	}
	for _, m := range g.Manifests {
		if path.Dir(m.Path) != "." || m.Ecosystem != "npm" {
			continue
		}
		pm := packageManager(files)
		for _, s := range m.Scripts {
			run := pm + " run " + s
			if s == "test" || s == "start" {
				run = pm + " " + s
			}
			add(pm, s, run)
		}
	}
	for _, name := range []string{"CONTRIBUTING.md", ".github/CONTRIBUTING.md", "docs/CONTRIBUTING.md", "CONTRIBUTING", "CONTRIBUTING.rst"} {
		if data, err := root.ReadFile(name); err == nil {
			for _, line := range guideCommands(data) {
				out = append(out, Command{Tool: name, Name: line, Run: line, Category: categorize(line)})
			}
			break
		}
	}
	return out
}

// packageManager is the one the root's lockfile names.
func packageManager(rootFiles map[string]bool) string {
	switch {
	case rootFiles["pnpm-lock.yaml"]:
		return "pnpm"
	case rootFiles["yarn.lock"]:
		return "yarn"
	case rootFiles["bun.lock"] || rootFiles["bun.lockb"]:
		return "bun"
	}
	return "npm"
}

var makeTargetRE = lazyregexp.New(`^([a-zA-Z][a-zA-Z0-9_./-]*)\s*:([^=]|$)`)

// makeTargets are a Makefile's explicit targets, in file order: not the
// special ones (.PHONY), pattern rules or variable assignments.
func makeTargets(data []byte) []string {
	var out []string
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		m := makeTargetRE.FindStringSubmatch(line)
		if m == nil || seen[m[1]] || strings.Contains(line, ":=") || strings.Contains(line, "::=") {
			continue
		}
		seen[m[1]] = true
		out = append(out, m[1])
	}
	return out
}

// taskfileTasks are the tasks a Taskfile declares (go-task), sorted; tasks
// marked internal are left out.
func taskfileTasks(data []byte) []string {
	var tf struct {
		Tasks map[string]any `yaml:"tasks"`
	}
	if err := yaml.Unmarshal(data, &tf); err != nil {
		return nil
	}
	var out []string
	for name, def := range tf.Tasks {
		if m, ok := def.(map[string]any); ok {
			if internal, _ := m["internal"].(bool); internal {
				continue
			}
		}
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

var justRecipeRE = lazyregexp.New(`^@?([A-Za-z_][A-Za-z0-9_-]*)(\s+[^:=]*)?:([^=]|$)`)

// justRecipes are a justfile's recipes, in file order: not its settings,
// aliases, variables or private recipes (_name).
func justRecipes(data []byte) []string {
	var out []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == ' ' || line[0] == '\t' || line[0] == '#' || line[0] == '[' {
			continue
		}
		first, _, _ := strings.Cut(line, " ")
		switch first {
		case "set", "alias", "export", "import", "mod":
			continue
		}
		m := justRecipeRE.FindStringSubmatch(line)
		if m == nil || strings.HasPrefix(m[1], "_") {
			continue
		}
		out = append(out, m[1])
	}
	return out
}

// guideTools are the programs whose commands a contributing guide's code
// blocks show for building, testing, linting and formatting.
var guideTools = map[string]bool{
	"make": true, "go": true, "npm": true, "pnpm": true, "yarn": true, "npx": true, "bun": true, "cargo": true,
	"pytest": true, "python": true, "python3": true, "tox": true, "nox": true, "task": true, "just": true,
	"bundle": true, "rake": true, "mvn": true, "./mvnw": true, "gradle": true, "./gradlew": true, "dotnet": true,
	"poetry": true, "uv": true, "golangci-lint": true, "gofmt": true, "prettier": true, "eslint": true,
	"ruff": true, "black": true, "pre-commit": true, "mix": true, "deno": true, "hatch": true,
}

// guideCommands are the build, test, lint and format commands in the
// shell code blocks of a contributing guide, in the order it gives them.
func guideCommands(data []byte) []string {
	var out []string
	seen := map[string]bool{}
	in := false
	shell := false
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		t := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			if in {
				in = false
				continue
			}
			in = true
			lang := strings.ToLower(strings.Trim(t, "`~ "))
			shell = lang == "" || lang == "sh" || lang == "bash" || lang == "shell" || lang == "console" || lang == "zsh" || lang == "shell-session"
			continue
		}
		if !in || !shell {
			continue
		}
		t = strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(t, "$ "), "> "))
		if i := strings.Index(t, " #"); i >= 0 {
			t = strings.TrimSpace(t[:i])
		}
		first, _, _ := strings.Cut(t, " ")
		if !guideTools[first] || len(t) > 80 || seen[t] || categorize(t) == "" || categorize(t) == catRun && first != "make" {
			continue
		}
		seen[t] = true
		out = append(out, t)
	}
	return out
}
