package analyze

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// Decisions come from decision folders and ADR-shaped documents, never
// from the inputs of tests: a JVM test resource named like an ADR, a
// fixture, an example's docs.
func TestDecisionsNeverFromTestsOrResources(t *testing.T) {
	f := newFixture(t)
	adr := "# Use the event log\n\nStatus: Accepted\n\n## Context\n\nWe need an audit trail.\n\n## Decision\n\nEvery change is an event.\n"
	f.write(map[string]string{
		"docs/adr/0001-event-log.md":                     adr,
		"src/test/resources/parser/1377_iteration.md":    "# Iteration 1377\n\nStatus: accepted\n\nSome input the parser tests read.\n",
		"core/src/test/resources/cases/0042-decision.md": adr,
		"tests/fixtures/adr/0007-fake.md":                adr,
		"examples/shop/docs/adr/0003-example.md":         adr,
		"src/main/resources/templates/0005-mail.md":      adr,
		"docs/guide/1200_release-notes.md":               "# Release notes\n\nWhat changed in 1.2.\n",
		"docs/design/0100-storage.md":                    adr,
		"notes/2031-write-ahead.md":                      "# ADR 2031: Write ahead\n\nWe write ahead.\n",
		"src/main/java/App.java":                         "class App {}\n",
	})
	f.commit("init", "Ada", time.Date(2024, 3, 1, 10, 0, 0, 0, time.UTC))
	g := scanned(t, f)
	got := map[string]string{}
	for _, d := range g.Decisions {
		if d.Kind == "adr" {
			got[d.Source] = d.ID
		}
	}
	for _, want := range []string{"docs/adr/0001-event-log.md", "docs/design/0100-storage.md", "notes/2031-write-ahead.md"} {
		if got[want] == "" {
			t.Errorf("%s is an ADR: %v", want, got)
		}
	}
	for src, id := range got {
		for _, never := range []string{"resources/", "tests/", "examples/", "release-notes"} {
			if strings.Contains(src, never) {
				t.Errorf("%s read from %s", id, src)
			}
		}
	}
}

// "The code builds on …" names what the root project's code imports in
// several modules: not the SDK one backend imports in many files, nor an
// example's framework.
func TestBuildsOnWhatTheProjectImports(t *testing.T) {
	f := newFixture(t)
	files := map[string]string{
		"go.mod":              "module example.com/svc\n\ngo 1.22\n\nrequire (\n\tgoogle.golang.org/grpc v1.60.0\n\tgithub.com/aws/aws-sdk-go-v2 v1.24.0\n\tgithub.com/gin-gonic/gin v1.9.1\n)\n",
		"api/api.go":          "package api\n\nimport _ \"google.golang.org/grpc\"\n",
		"rpc/rpc.go":          "package rpc\n\nimport _ \"google.golang.org/grpc\"\n",
		"examples/web/go.mod": "module example.com/svc/examples/web\n\ngo 1.22\n\nrequire github.com/gin-gonic/gin v1.9.1\n",
	}
	for i := range 6 {
		files["backend/s3/s3_"+string(rune('a'+i))+".go"] = "package s3\n\nimport _ \"github.com/aws/aws-sdk-go-v2\"\n"
	}
	for _, p := range []string{"examples/web/a/a.go", "examples/web/b/b.go", "examples/web/c/c.go"} {
		files[p] = "package x\n\nimport _ \"github.com/gin-gonic/gin\"\n"
	}
	f.write(files)
	f.commit("init", "Ada", time.Date(2024, 3, 1, 10, 0, 0, 0, time.UTC))
	g := scanned(t, f)
	var builds []string
	for _, d := range g.Decisions {
		if d.Kind == "dependency-signal" {
			builds = append(builds, d.Title)
		}
	}
	if len(builds) == 0 || !strings.Contains(builds[0], "google.golang.org/grpc") {
		t.Errorf("the code builds on grpc (two modules of the project): %v", builds)
	}
	for _, b := range builds {
		if strings.Contains(b, "aws-sdk") || strings.Contains(b, "gin-gonic") {
			t.Errorf("one backend's or an example's dependency: %q", b)
		}
	}
}

// The history window ends at HEAD's commit date: a repository last
// committed to years ago still shows its activity, the same any day.
func TestActivityFromHeadsDate(t *testing.T) {
	f := newFixture(t)
	base := time.Date(2021, 5, 1, 10, 0, 0, 0, time.UTC)
	f.write(map[string]string{"go.mod": "module example.com/old\n\ngo 1.16\n", "a/a.go": "package a\n"})
	f.commit("init", "Ada", base.AddDate(0, -10, 0)) // outside the 180 days
	f.write(map[string]string{"a/a.go": "package a\n\nfunc A() {}\n"})
	f.commit("a: add A", "Bob", base.AddDate(0, -2, 0)) // in the window, not recent
	f.write(map[string]string{"b/b.go": "package b\n"})
	f.commit("b: start", "Cy", base.AddDate(0, 0, -3)) // recent
	f.write(map[string]string{"a/a.go": "package a\n\nfunc A() {}\n\nfunc B() {}\n"})
	f.commit("a: add B", "Ada", base) // HEAD
	g := scanned(t, f)
	if g.Git == nil || g.Git.Commits != 3 || !g.Git.WindowEnd.Equal(base) || g.Git.Contributors != 3 {
		t.Fatalf("git summary %+v, want 3 commits by 3 people in the window ending %v", g.Git, base)
	}
	a, b := findModule(g, "a"), findModule(g, "b")
	if a == nil || b == nil || a.Git == nil || b.Git == nil {
		t.Fatalf("modules a and b with git figures: %s", dumpJSON(g.Modules))
	}
	if a.Git.Changes != 2 || a.Git.RecentChanges != 1 || b.Git.Changes != 1 || b.Git.RecentChanges != 1 {
		t.Errorf("a %+v, b %+v", a.Git, b.Git)
	}
	if a.Git.ChangeFrequency == "none" {
		t.Errorf("an idle repository's modules still changed: %+v", a.Git)
	}
}

// Commits that only change how the project is tested, built or documented
// are no architectural signal, whatever their words.
func TestGitSignalsSkipHousekeeping(t *testing.T) {
	f := newFixture(t)
	day := time.Date(2024, 3, 1, 10, 0, 0, 0, time.UTC)
	f.write(map[string]string{"go.mod": "module example.com/x\n\ngo 1.22\n", "a/a.go": "package a\n"})
	f.commit("init", "Ada", day)
	for i, msg := range []string{"test(svelte): migrate suitable tests to render", "chore: migrate changesets changelog generator", "ci!: rewrite the pipeline", "refactor: split the parser from the lexer"} {
		f.write(map[string]string{"a/a.go": fmt.Sprintf("package a\n\nconst V = %d\n", i)})
		f.commit(msg, "Ada", day.AddDate(0, 0, i+1))
	}
	g := scanned(t, f)
	var titles []string
	for _, d := range g.Decisions {
		if d.Kind == "git-signal" {
			titles = append(titles, d.Title)
		}
	}
	if len(titles) != 2 || !slices.Contains(titles, "refactor: split the parser from the lexer") || !slices.Contains(titles, "ci!: rewrite the pipeline") {
		t.Errorf("git signals %q, want the refactor and the breaking rewrite", titles)
	}
}
