package bootstrap

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kontext-dev/kontext/internal/knowledge/store"

	"github.com/kontext-dev/kontext/internal/gittest"
)

// shipitWorkspace is shipit with thirty more pipes, the usual ways to build
// and test it, and an adr-tools directory.
func shipitWorkspace() map[string]string {
	files := shipitFiles()
	for i := 1; i <= 30; i++ {
		files[fmt.Sprintf("internal/pipe/p%02d/p.go", i)] = fmt.Sprintf("// Package p%02d is pipe number %d.\npackage p%02d\n\n// Run runs it.\nfunc Run() {}\n", i, i, i)
	}
	files["Makefile"] = ".PHONY: build test\n\nbuild:\n\tgo build ./...\n\ntest: build\n\tgo test ./...\n\nlint:\n\tgolangci-lint run\n\nsnapshot:\n\tgoreleaser release --snapshot\n\nVERSION := 1\n"
	files["Taskfile.yml"] = "version: '3'\n\ntasks:\n  fmt:\n    cmds: [gofumpt -w .]\n  docs:serve:\n    cmds: [hugo serve]\n  setup:\n    internal: true\n    cmds: [go mod download]\n"
	files["justfile"] = "set shell := [\"bash\", \"-c\"]\n\nalias t := test\n\n# run the tests\ntest *args:\n    go test {{args}} ./...\n\n_private:\n    echo hidden\n\nrelease version:\n    git tag {{version}}\n"
	files["package.json"] = `{"name":"shipit","private":true,"scripts":{"dev":"vite","build:docs":"vite build","test":"vitest","format":"prettier --write ."}}` + "\n"
	files["CONTRIBUTING.md"] = "# Contributing\n\n```sh\ngo test -race ./...\ngo run . --help\ntask fmt\n```\n\nThen open a pull request.\n"
	files["docs/adr/0001-record-architecture-decisions.md"] = "# 1. Record architecture decisions\n\nDate: 2017-11-14\n\n## Status\n\nAccepted\n\n## Context\n\nWe need to record the architectural decisions made on this project.\n\n## Decision\n\nWe will use Architecture Decision Records, as described by Michael Nygard.\n\n## Consequences\n\nSee Nygard's article.\n"
	return files
}

// Module docs and the overview: tests are no exports and testify no
// dependency, the project goes by its short name, the module table is
// bounded and ranked, the overview tells how to work, and kontext check
// finds nothing in kontext's own output.
func TestOverviewAndModuleDocs(t *testing.T) {
	dir := newRepo(t, shipitWorkspace())
	p := openPipeline(t, dir)
	ctx := context.Background()
	if _, err := p.Bootstrap(ctx); err != nil {
		t.Fatal(err)
	}
	brew := readFile(t, dir, ".ai/architecture/modules/internal-pipe-brew.md")
	if !strings.Contains(brew, "- Exports: `Legacy`, `Pipe`\n") || strings.Contains(brew, "TestRun") {
		t.Errorf("brew's exports:\n%s", brew)
	}
	if !strings.Contains(brew, "- External: `github.com/caarlos0/log`\n") || strings.Contains(brew, "testify") {
		t.Errorf("brew's dependencies:\n%s", brew)
	}
	if !strings.Contains(brew, "- Size: 4 files (Go)\n") {
		t.Errorf("brew's size:\n%s", brew)
	}
	if toml := readFile(t, dir, ".ai/kontext.toml"); !strings.Contains(toml, "name = \"shipit\"") {
		t.Errorf("the project's name:\n%s", toml)
	}
	overview := readFile(t, dir, ".ai/architecture/overview.md")
	if !strings.Contains(overview, "# shipit — architecture overview") {
		t.Errorf("the overview's title:\n%s", overview)
	}
	rows := regexp.MustCompile(`(?m)^\| (\S+) \|`).FindAllStringSubmatch(overview, -1)
	if len(rows) != 1+overviewModules || !strings.Contains(overview, "\n15 modules more (kontext scan lists every module).\n") {
		t.Errorf("%d table rows, want the header and %d modules, the rest counted:\n%s", len(rows), overviewModules, overview)
	}
	// The engine's ranking: the config package, which every pipe uses, first.
	if rows[1][1] != "pkg/config" {
		t.Errorf("first module %q, want pkg/config:\n%s", rows[1][1], overview)
	}
	for _, want := range []string{
		"- Build: `make build`, `npm run build:docs`\n",
		"- Test: `make test`, `just test`, `npm test`, `go test -race ./...`\n",
		"- Lint: `make lint`\n",
		"- Format: `task fmt`, `npm run format`\n",
		"- Run: `task docs:serve`, `npm run dev`\n",
		"- Other make targets: `snapshot`\n",
		"- Other recipes (just): `release`\n",
		"- Contributing guide: CONTRIBUTING.md\n",
		"- ADRs: docs/adr (the home of decisions)\n",
	} {
		if !strings.Contains(overview, want) {
			t.Errorf("the overview lacks %q:\n%s", want, overview)
		}
	}
	if strings.Contains(overview, "setup") || strings.Contains(overview, "_private") || strings.Contains(overview, "`t`") {
		t.Errorf("internal tasks, private recipes or aliases listed:\n%s", overview)
	}
	// A purpose as long as the task asks for, and check is still clean.
	purpose := strings.TrimSpace(strings.Repeat("A line of what shipit is for.\n", 15))
	if _, err := p.Submit(ctx, Submission{TaskID: "purpose", Summary: "Releases Go projects", Overview: purpose}); err != nil {
		t.Fatal(err)
	}
	tracked := strings.Fields(gitIn(t, dir, "ls-files"))
	problems, err := p.Store.Check(tracked)
	if err != nil || len(problems) > 0 {
		t.Errorf("kontext check flags kontext's own output: %v %v", problems, err)
	}
	// Even with a stricter limit than the default, the facts never count.
	gittest.WriteFiles(t, dir, map[string]string{".kontext.toml": "[store]\nmax_body_lines = 20\n"})
	p = openPipeline(t, dir)
	if problems, _ := p.Store.Check(tracked); len(problems) > 0 {
		t.Errorf("kontext check with max_body_lines = 20: %v", problems)
	}
}

// Rendered facts change only when the facts do: committing the
// bootstrap's output (a decision it wrote into the ADR directory
// included), an unrelated edit, or a hundred more commits rewrite nothing.
func TestRenderIsStableAcrossUnrelatedCommits(t *testing.T) {
	dir := newRepo(t, shipitWorkspace())
	ctx := context.Background()
	bootstrap := func(when string) []string {
		t.Helper()
		written, err := openPipeline(t, dir).Bootstrap(ctx)
		if err != nil {
			t.Fatalf("%s: %v", when, err)
		}
		return written
	}
	if written := bootstrap("first run"); len(written) == 0 {
		t.Fatal("the first run wrote nothing")
	}
	p := openPipeline(t, dir)
	if _, err := p.Store.Create(&store.Entry{Kind: store.KindDecision, Title: "Use go.yaml.in/yaml", Status: store.StatusAccepted, Body: "## Decision\n\nWe parse YAML with go.yaml.in/yaml.\n"}); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Submit(ctx, Submission{TaskID: "mod:pkg/config", Summary: "The configuration", Overview: "Loads a project's configuration."}); err != nil {
		t.Fatal(err)
	}
	gitIn(t, dir, "add", "-A")
	gitIn(t, dir, "commit", "-q", "-m", "Set up kontext")
	if written := bootstrap("after committing the store"); len(written) > 0 {
		t.Errorf("committing the bootstrap's output rewrote %v", written)
	}
	brew := filepath.Join(dir, "internal", "pipe", "brew", "brew.go")
	data, _ := os.ReadFile(brew)
	os.WriteFile(brew, append(data, []byte("\n// Formulas are written to the tap.\nvar tap = \"homebrew-tap\"\n")...), 0o644)
	gitIn(t, dir, "commit", "-q", "-am", "fix(brew): name the tap")
	if written := bootstrap("after an unrelated commit"); len(written) > 0 {
		t.Errorf("an unrelated commit rewrote %v", written)
	}
	var more []commit
	for i := 0; i < 100; i++ {
		more = append(more, commit{msg: fmt.Sprintf("Tweak the docker pipe (%d) because the registry changed", i), files: map[string]string{"internal/pipe/docker/docker.go": shipitFiles()["internal/pipe/docker/docker.go"] + strings.Repeat("// The registry is asked first.\n", i+1)}})
	}
	fastImport(t, dir, more)
	if written := bootstrap("after a hundred commits"); len(written) > 0 {
		t.Errorf("a hundred commits rewrote %v", written)
	}
}

// A module doc's "Depends on" is what the module's code needs: an import
// only its tests make (the repo engine's test-scope edge) is not one.
func TestModuleDocsDependOnProductionEdgesOnly(t *testing.T) {
	files := shipitFiles()
	files["internal/pipe/brew/brew_docker_test.go"] = "package brew\n\nimport (\n\t\"testing\"\n\n\t\"github.com/acme/shipit/v2/internal/pipe/docker\"\n)\n\nfunc TestWithDocker(t *testing.T) { _ = docker.Pipe{} }\n"
	dir := newRepo(t, files)
	p := openPipeline(t, dir)
	if _, err := p.Bootstrap(context.Background()); err != nil {
		t.Fatal(err)
	}
	brew := readFile(t, dir, ".ai/architecture/modules/internal-pipe-brew.md")
	if !strings.Contains(brew, "`pkg/config`") || strings.Contains(brew, "`internal/pipe/docker`") {
		t.Errorf("brew's module doc depends on its tests' imports:\n%s", brew)
	}
}
