package bootstrap

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// shipitFiles is a Go project of the shape the issue describes: a /v2
// module with pipes, a client, a config package and tests using testify.
func shipitFiles() map[string]string {
	return map[string]string{
		"go.mod":                          shipitGoMod("github.com/google/go-github/v87 v87.0.0", "gopkg.in/yaml.v3 v3.0.1", "github.com/caarlos0/log v0.4.0", "github.com/stretchr/testify v1.9.0"),
		"go.sum":                          "",
		"main.go":                         "package main\n\nimport \"github.com/acme/shipit/v2/cmd\"\n\nfunc main() { cmd.Execute() }\n",
		"cmd/root.go":                     "// Package cmd is the command line of shipit.\npackage cmd\n\nimport _ \"github.com/acme/shipit/v2/internal/pipe/brew\"\n\n// Execute runs the command line.\nfunc Execute() {}\n",
		"internal/pipe/brew/brew.go":      "// Package brew writes Homebrew formulas.\npackage brew\n\nimport (\n\t\"github.com/caarlos0/log\"\n\n\t\"github.com/acme/shipit/v2/pkg/config\"\n)\n\n// Pipe is the brew pipe.\ntype Pipe struct{}\n\n// Run writes the formula.\nfunc (Pipe) Run(c config.Project) { log.Info(c.Name) }\n",
		"internal/pipe/brew/brew_test.go": "package brew\n\nimport (\n\t\"testing\"\n\n\t\"github.com/stretchr/testify/require\"\n)\n\nfunc TestRun(t *testing.T) { require.True(t, true) }\n\nfunc TestFormula(t *testing.T) {}\n",
		"internal/pipe/brew/tmpl.go":      "package brew\n\nconst formulaTemplate = `class {{ .Name }}`\n",
		"internal/pipe/brew/legacy.go":    "package brew\n\n// Legacy is the old formula writer.\nfunc Legacy() {}\n",
		"internal/pipe/docker/docker.go":  "// Package docker builds images.\npackage docker\n\nimport \"github.com/acme/shipit/v2/pkg/config\"\n\n// Pipe is the docker pipe.\ntype Pipe struct{ c config.Project }\n",
		"internal/client/github.go":       "// Package client talks to forges.\npackage client\n\nimport \"github.com/google/go-github/v87/github\"\n\n// New returns a client.\nfunc New() *github.Client { return nil }\n",
		"pkg/config/config.go":            "// Package config is the configuration of a project.\npackage config\n\nimport \"gopkg.in/yaml.v3\"\n\n// Project is a project's configuration.\ntype Project struct{ Name string }\n\n// Load reads one.\nfunc Load(b []byte) (p Project, err error) { return p, yaml.Unmarshal(b, &p) }\n",
		"pkg/config/config_test.go":       "package config\n\nimport (\n\t\"testing\"\n\n\t\"github.com/stretchr/testify/assert\"\n)\n\nfunc TestLoad(t *testing.T) { assert.NotNil(t, t) }\n",
		".github/workflows/ci.yml":        "name: ci\non: push\n",
		"www/schema.json":                 "{}\n",
		"README.md":                       "# shipit\n\nReleases Go projects.\n",
	}
}

func shipitGoMod(requires ...string) string {
	return "module github.com/acme/shipit/v2\n\ngo 1.23\n\nrequire (\n\t" + strings.Join(requires, "\n\t") + "\n)\n"
}

// releaseNotes is what dependabot quotes in a bump's body: the dependency's
// own words, full of decision wording that is not the team's.
const releaseNotes = "Bumps [github.com/caarlos0/log](https://github.com/caarlos0/log) from %[1]s to %[2]s.\n<details>\n<summary>Release notes</summary>\n<p><em>Sourced from the releases.</em></p>\n<blockquote>\n<h2>%[2]s</h2>\n<p>BREAKING CHANGE: migrate to the new handler; it replaces the old one because it was deprecated, instead of keeping both.</p>\n</blockquote>\n</details>\n<p>We decided to switch to slog since the old API is gone.</p>\n"

type shipitHistory struct {
	commits   []commit
	automated int
	// the decision-shaped commits by the cluster they belong to
	brew, docker, config, ci []string
	swap, upgrade            string
}

// shipitHistoryOf writes n commits: a third dependabot bumps with release
// notes, renovate major-version updates, github-actions commits, people's
// bumps, and among the people's routine changes the decision-shaped
// commits of four areas, spread over the years (never in runs of dates).
func shipitHistoryOf(n int) shipitHistory {
	var h shipitHistory
	add := func(c commit) { h.commits = append(h.commits, c) }
	logVersion := 0
	githubMajor := 87
	decisions := map[int]func(){}
	at := func(frac float64, f func()) { decisions[int(frac*float64(n))] = f }
	brew := func(i int, msg string, files map[string]string) {
		h.brew = append(h.brew, msg)
		add(commit{msg: msg, files: files})
	}
	at(0.02, func() {
		brew(0, "fix(brew): keep the formula template apart, never inline, because reviewers read it", map[string]string{"internal/pipe/brew/tmpl.go": "package brew\n\nconst formulaTemplate = `class {{ .Name }} < Formula`\n"})
	})
	at(0.03, func() {
		brew(0, "fix(brew): write the legacy formula instead of the cask so that old taps keep working", map[string]string{"internal/pipe/brew/legacy.go": "package brew\n\n// Legacy is the old formula writer, kept for old taps.\nfunc Legacy() {}\n"})
	})
	for i, frac := range []float64{0.1, 0.35, 0.55, 0.8, 0.95} {
		at(frac, func() {
			brew(0, fmt.Sprintf("fix(brew): use install_name %d instead of the bin stanza because Homebrew deprecated it", i), map[string]string{"internal/pipe/brew/brew.go": shipitFiles()["internal/pipe/brew/brew.go"] + fmt.Sprintf("\n// rev %d\n", i)})
		})
	}
	at(0.3, func() { // the template moves: old commits name it as it is now
		add(commit{msg: "chore: move the brew template", renames: [][2]string{{"internal/pipe/brew/tmpl.go", "internal/pipe/brew/formula_tmpl.go"}}})
	})
	at(0.31, func() {
		add(commit{msg: "chore: remove the legacy formula writer", files: map[string]string{"internal/pipe/brew/legacy.go": ""}})
	})
	for i, frac := range []float64{0.2, 0.4, 0.6, 0.85} {
		at(frac, func() {
			msg := fmt.Sprintf("feat(docker)!: drop the v1 image tags %d\n\nBREAKING CHANGE: configurations must name the tags, as ADR-2 says.", i)
			h.docker = append(h.docker, msg)
			add(commit{msg: msg, files: map[string]string{"internal/pipe/docker/docker.go": shipitFiles()["internal/pipe/docker/docker.go"] + fmt.Sprintf("\n// rev %d\n", i)}})
		})
	}
	at(0.5, func() {
		msg := "refactor(config): parse yaml with go.yaml.in/yaml, the maintained fork"
		h.config = append(h.config, msg)
		h.swap = msg
		add(commit{msg: msg, files: map[string]string{
			"go.mod":               shipitGoMod(fmt.Sprintf("github.com/google/go-github/v%d v%d.0.0", githubMajor, githubMajor), "go.yaml.in/yaml/v3 v3.0.4", fmt.Sprintf("github.com/caarlos0/log v0.4.%d", logVersion), "github.com/stretchr/testify v1.9.0"),
			"pkg/config/config.go": strings.Replace(shipitFiles()["pkg/config/config.go"], "gopkg.in/yaml.v3", "go.yaml.in/yaml/v3", 1),
		}})
	})
	for i, frac := range []float64{0.52, 0.7} {
		at(frac, func() {
			msg := fmt.Sprintf("fix(config): never default the project name %d, because an empty name publishes nothing", i)
			h.config = append(h.config, msg)
			add(commit{msg: msg, files: map[string]string{"pkg/config/config.go": strings.Replace(shipitFiles()["pkg/config/config.go"], "gopkg.in/yaml.v3", "go.yaml.in/yaml/v3", 1) + fmt.Sprintf("\n// rev %d\n", i)}})
		})
	}
	at(0.65, func() { // the same dependency, one major version up: no swap
		h.upgrade = "feat(client): use the v88 client instead of v87 because v87 lost the releases API"
		githubMajor = 88
		add(commit{msg: h.upgrade, files: map[string]string{
			"go.mod":                    shipitGoMod("github.com/google/go-github/v88 v88.0.0", "go.yaml.in/yaml/v3 v3.0.4", fmt.Sprintf("github.com/caarlos0/log v0.4.%d", logVersion), "github.com/stretchr/testify v1.9.0"),
			"internal/client/github.go": strings.Replace(shipitFiles()["internal/client/github.go"], "v87", "v88", 1),
		}})
	})
	for i, frac := range []float64{0.15, 0.45, 0.75} {
		at(frac, func() {
			msg := fmt.Sprintf("ci: switch to the hosted runners %d because the self-hosted ones are gone", i)
			h.ci = append(h.ci, msg)
			add(commit{msg: msg, files: map[string]string{".github/workflows/ci.yml": fmt.Sprintf("name: ci\non: push\n# %d\n", i)}})
		})
	}
	yamlMod := "gopkg.in/yaml.v3 v3.0.1"
	for i := 1; len(h.commits) < n; i++ {
		if f, ok := decisions[len(h.commits)]; ok {
			delete(decisions, len(h.commits))
			f()
			if len(h.commits) > n/2 {
				yamlMod = "go.yaml.in/yaml/v3 v3.0.4"
			}
			continue
		}
		mod := func() string {
			return shipitGoMod(fmt.Sprintf("github.com/google/go-github/v%d v%d.0.0", githubMajor, githubMajor), yamlMod, fmt.Sprintf("github.com/caarlos0/log v0.4.%d", logVersion), "github.com/stretchr/testify v1.9.0")
		}
		switch {
		case i%3 == 0:
			from := fmt.Sprintf("0.4.%d", logVersion)
			logVersion++
			add(commit{name: "dependabot[bot]", email: "49699333+dependabot[bot]@users.noreply.github.com",
				msg:   fmt.Sprintf("chore(deps): bump github.com/caarlos0/log from %s to 0.4.%d\n\n", from, logVersion) + fmt.Sprintf(releaseNotes, from, fmt.Sprintf("0.4.%d", logVersion)),
				files: map[string]string{"go.mod": mod()}})
			h.automated++
		case i%50 == 1 && githubMajor < 200:
			githubMajor++
			add(commit{name: "renovate[bot]", email: "29139614+renovate[bot]@users.noreply.github.com",
				msg:   fmt.Sprintf("fix(deps): update module github.com/google/go-github/v%d to v%d\n\nThis PR migrates the client; it replaces v%d because it is deprecated.", githubMajor-1, githubMajor, githubMajor-1),
				files: map[string]string{"go.mod": mod()}})
			h.automated++
		case i%11 == 0:
			add(commit{name: "github-actions[bot]", email: "41898282+github-actions[bot]@users.noreply.github.com",
				msg:   "docs: regenerate the schema because the config changed, instead of by hand",
				files: map[string]string{"www/schema.json": fmt.Sprintf("{\"rev\": %d}\n", i)}})
			h.automated++
		case i%13 == 0:
			add(commit{msg: fmt.Sprintf("Bump github.com/stretchr/testify from 1.9.%d to 1.9.%d\n\nBREAKING CHANGE: migrate assertions, replacing the old ones because they were deprecated.", i, i+1),
				files: map[string]string{"www/schema.json": fmt.Sprintf("{\"t\": %d}\n", i)}})
			h.automated++
		default:
			area := []string{"internal/pipe/brew/brew.go", "internal/pipe/docker/docker.go", "pkg/config/config.go", "README.md"}[i%4]
			add(commit{msg: fmt.Sprintf("fix: tidy %s (%d)", area, i), files: map[string]string{area + ".txt": fmt.Sprintf("%d\n", i)}})
		}
	}
	return h
}

// History scoring ignores bots and dependency bumps (their release notes
// included), tells an upgrade of the same dependency from a swap, clusters
// by commit scope and module rather than by runs of dates, and names files
// as they are at HEAD.
func TestHistoryIgnoresBotsAndBumpsAndClustersByScope(t *testing.T) {
	dir := newRepo(t, shipitFiles())
	h := shipitHistoryOf(2999)
	fastImport(t, dir, h.commits)
	p := openPipeline(t, dir)
	ctx := context.Background()
	s, err := p.Scan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if s.Project != "shipit" {
		t.Errorf("github.com/acme/shipit/v2 is called %q, want shipit", s.Project)
	}
	hist, err := ReadHistory(ctx, p.Git, s, p.Config, "")
	if err != nil {
		t.Fatal(err)
	}
	if hist.Commits != 3000 || hist.Automated != h.automated || !slices.Equal(hist.Bots, []string{"dependabot", "github-actions", "renovate"}) {
		t.Errorf("read %d commits (want 3000), %d automated (want %d), bots %v", hist.Commits, hist.Automated, h.automated, hist.Bots)
	}
	if hist.Contributors != 1 {
		t.Errorf("%d contributors: bots are not people", hist.Contributors)
	}
	byArea := map[string]Cluster{}
	var swap, upgrade *Candidate
	for _, c := range hist.Clusters {
		byArea[c.Area] = c
		if regexp.MustCompile(`^root-\d+$`).MatchString(c.Area) {
			t.Errorf("a cluster of the root's later part: %s", c.Area)
		}
		for i, cm := range c.Commits {
			if strings.Contains(cm.Author, "[bot]") || strings.HasPrefix(cm.Subject, "chore(deps)") || strings.HasPrefix(cm.Subject, "Bump ") ||
				strings.HasPrefix(cm.Subject, "fix(deps)") || strings.HasPrefix(cm.Subject, "docs: regenerate") {
				t.Errorf("dec:%s holds an automated commit: %s %q [%s]", c.Area, cm.Author, cm.Subject, strings.Join(cm.Signals, ", "))
			}
			switch cm.Subject {
			case h.swap:
				swap = &c.Commits[i]
			case h.upgrade:
				upgrade = &c.Commits[i]
			}
		}
	}
	subjects := func(c Cluster) []string {
		var out []string
		for _, cm := range c.Commits {
			out = append(out, cm.Subject)
		}
		slices.Sort(out)
		return out
	}
	firstLines := func(msgs []string) []string {
		var out []string
		for _, m := range msgs {
			out = append(out, strings.SplitN(m, "\n", 2)[0])
		}
		slices.Sort(out)
		return out
	}
	for area, want := range map[string][]string{
		"internal/pipe/brew":   firstLines(h.brew),
		"internal/pipe/docker": firstLines(h.docker),
		"pkg/config":           firstLines(h.config),
		"ci":                   firstLines(h.ci),
	} {
		if got := subjects(byArea[area]); !slices.Equal(got, want) {
			t.Errorf("dec:%s holds\n  %q\nwant\n  %q\n(clusters: %v)", area, got, want, clusterNames(hist.Clusters))
		}
	}
	if c := byArea["ci"]; c.Scope != "ci" || c.Module != "." {
		t.Errorf("the ci cluster: scope %q module %q", c.Scope, c.Module)
	}
	if swap == nil || !slices.Contains(swap.Signals, "dependency swap in go.mod: -gopkg.in/yaml.v3 +go.yaml.in/yaml/v3") {
		t.Errorf("the swap of yaml libraries: %+v", swap)
	}
	if upgrade == nil {
		t.Errorf("the client upgrade (a reason given) is no candidate")
	} else if strings.Contains(strings.Join(upgrade.Signals, ","), "swap") {
		t.Errorf("go-github v87 → v88 read as a swap: %v", upgrade.Signals)
	}
	brew := byArea["internal/pipe/brew"]
	var files []string
	for _, cm := range brew.Commits {
		files = append(files, cm.Files...)
	}
	if !slices.Contains(files, "internal/pipe/brew/formula_tmpl.go") || slices.Contains(files, "internal/pipe/brew/tmpl.go") || slices.Contains(files, "internal/pipe/brew/legacy.go") {
		t.Errorf("the brew commits' files are not those at HEAD: %v", files)
	}
}

func clusterNames(cs []Cluster) []string {
	var out []string
	for _, c := range cs {
		out = append(out, fmt.Sprintf("%s(%d)", c.Area, len(c.Commits)))
	}
	return out
}

// A decision task says which recorded ADRs already cover its commits, and
// its Read list names only files that exist, where they are now.
func TestDecisionTasksKnowTheirADRsAndReadFilesAtHead(t *testing.T) {
	files := shipitFiles()
	files["docs/adr/0001-parse-yaml-with-the-maintained-fork.md"] = "# 1. Parse YAML with the maintained fork\n\nDate: 2024-06-01\n\n## Status\n\nAccepted\n\n## Decision\n\nConfigurations are parsed with go.yaml.in/yaml/v3.\n"
	files["docs/adr/0002-name-docker-tags.md"] = "# 2. Name docker tags\n\nDate: 2024-03-01\n\n## Status\n\nAccepted\n\n## Decision\n\nConfigurations name every tag; there are no default v1 tags.\n"
	dir := newRepo(t, files)
	h := shipitHistoryOf(600)
	fastImport(t, dir, h.commits)
	ctx := context.Background()
	if _, err := openPipeline(t, dir).Bootstrap(ctx); err != nil {
		t.Fatal(err)
	}
	p := openPipeline(t, dir) // with the configuration render wrote: docs/adr holds the decisions
	tasks, _, err := p.Tasks(ctx)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]Task{}
	for _, task := range tasks {
		byID[task.ID] = task
	}
	config, docker, brew := byID["dec:pkg/config"], byID["dec:internal/pipe/docker"], byID["dec:internal/pipe/brew"]
	if known := strings.Join(config.Known, "\n"); !strings.Contains(known, `Recorded already: kx:0001-parse-yaml-with-the-maintained-fork "Parse YAML with the maintained fork" [accepted] covers 1 of these 3 commits (records the swap to go.yaml.in/yaml/v3 in `) {
		t.Errorf("dec:pkg/config does not say ADR 1 covers the swap:\n%s", known)
	}
	if known := strings.Join(docker.Known, "\n"); !strings.Contains(known, `kx:0002-name-docker-tags "Name docker tags" [accepted] covers 4 of these 4 commits (cited by `) ||
		!strings.Contains(docker.Why, "already record every one of them") {
		t.Errorf("dec:internal/pipe/docker does not say ADR 2 covers it:\n%s\n%s", docker.Why, known)
	}
	if !slices.Contains(brew.Read, "internal/pipe/brew/formula_tmpl.go") || slices.Contains(brew.Read, "internal/pipe/brew/tmpl.go") || slices.Contains(brew.Read, "internal/pipe/brew/legacy.go") {
		t.Errorf("dec:internal/pipe/brew reads %v", brew.Read)
	}
	text := p.Text([]Task{brew}, Progress{}, 4000)
	if !strings.Contains(text, "Find the decisions in the history of internal/pipe/brew") || strings.Contains(text, "legacy.go") {
		t.Errorf("the brew task:\n%s", text)
	}
	// What the task finds is written as the directory's ADRs are
	// (adr-tools: "# N. Title", "Date:", "## Status").
	res, err := p.Submit(ctx, Submission{TaskID: "dec:internal/pipe/brew", Decisions: []DecisionInput{{
		Title: "Formulas use install_name", Decision: "Formulas name the binary with install_name, never the bin stanza.",
		Context: "Homebrew deprecated the bin stanza.", Paths: []string{"internal/pipe/brew/**"},
	}}})
	if err != nil || len(res.Written) != 2 {
		t.Fatalf("submit: %+v %v", res, err)
	}
	if len(res.Created) != 1 {
		t.Fatalf("submit created %v", res.Created)
	}
	adr := readFile(t, dir, res.Created[0])
	if !strings.HasPrefix(res.Created[0], "docs/adr/0003-") || !strings.HasPrefix(adr, "# 3. Formulas use install_name\n\nDate: ") ||
		!strings.Contains(adr, "\n## Status\n\nAccepted\n\n## Context\n\nHomebrew deprecated the bin stanza.\n\n## Decision\n\n") {
		t.Errorf("%s is not written as the directory's ADRs are:\n%s", res.Created[0], adr)
	}
}

// Without modules or commit scopes (a Terraform tree), commits cluster by
// the directory they change, small directories merging into their parent:
// never the root's history in parts.
func TestHistoryClustersByDirectoryWithoutModulesOrScopes(t *testing.T) {
	files := map[string]string{"README.md": "# infra\n"}
	for _, p := range []string{"app-a", "app-b", "app-c", "app-d"} {
		files["terraform/projects/"+p+"/main.tf"] = "resource \"aws_instance\" \"x\" {}\n"
	}
	dir := newRepo(t, files)
	var commits []commit
	decide := func(project string, i int) commit {
		return commit{msg: fmt.Sprintf("Use RDS instead of EC2 for %s (%d) because backups were manual", project, i),
			files: map[string]string{"terraform/projects/" + project + "/main.tf": fmt.Sprintf("resource \"aws_db_instance\" \"x%d\" {}\n", i)}}
	}
	for i := 0; i < 60; i++ {
		switch i % 10 {
		case 1, 4, 7:
			commits = append(commits, decide("app-a", i))
		case 2, 5:
			commits = append(commits, decide("app-b", i))
		case 8:
			if i < 20 {
				commits = append(commits, decide("app-c", i))
			}
		default:
			commits = append(commits, commit{msg: fmt.Sprintf("Tidy %d", i), files: map[string]string{"README.md": fmt.Sprintf("# infra %d\n", i)}})
		}
	}
	fastImport(t, dir, commits)
	p := openPipeline(t, dir)
	ctx := context.Background()
	s, err := p.Scan(ctx)
	if err != nil {
		t.Fatal(err)
	}
	hist, err := ReadHistory(ctx, p.Git, s, p.Config, "")
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for _, c := range hist.Clusters {
		counts[c.Area] = len(c.Commits)
	}
	// app-a: 18 commits in three parts; app-b: 12 in two; app-c's two merge
	// upward, directory by directory, into the root, with the founding
	// commit.
	want := map[string]int{"terraform/projects/app-a": 8, "terraform/projects/app-a-2": 8, "terraform/projects/app-a-3": 2,
		"terraform/projects/app-b": 8, "terraform/projects/app-b-2": 4, "root": 3}
	if fmt.Sprint(counts) != fmt.Sprint(want) {
		t.Errorf("clusters %v, want %v", counts, want)
	}
}

// A swap is a dependency replaced by another; a new version, a new major
// version's module path or a package's own version is none, in every
// ecosystem the engine reads.
func TestDependencySwapAcrossEcosystems(t *testing.T) {
	for _, c := range []struct {
		path, before, after string
		swap                bool
	}{
		{"go.mod", shipitGoMod("github.com/google/go-github/v87 v87.0.0", "k8s.io/client-go v0.87.0"), shipitGoMod("github.com/google/go-github/v88 v88.1.0", "k8s.io/client-go v0.88.0"), false},
		{"go.mod", shipitGoMod("gopkg.in/yaml.v2 v2.4.0"), shipitGoMod("gopkg.in/yaml.v3 v3.0.1"), false},
		{"go.mod", shipitGoMod("gopkg.in/yaml.v3 v3.0.1"), shipitGoMod("go.yaml.in/yaml/v3 v3.0.4"), true},
		{"go.mod", shipitGoMod("github.com/a/b v1.0.0"), shipitGoMod("github.com/a/b v1.0.0", "github.com/c/d v1.0.0 // indirect"), false},
		{"package.json", `{"name":"x","version":"1.0.0","dependencies":{"moment":"^2.29.0"}}`, `{"name":"x","version":"2.0.0","dependencies":{"moment":"^2.30.1"}}`, false},
		{"package.json", `{"dependencies":{"lodash":"npm:lodash@1"}}`, `{"dependencies":{"lodash":"npm:lodash@2"}}`, false},
		{"package.json", `{"dependencies":{"moment":"^2.29.0"}}`, `{"dependencies":{"date-fns":"^3.0.0"}}`, true},
		{"requirements.txt", "requests==2.31.0\ncelery==5.3\n", "httpx==0.27.0\ncelery==5.4\n", true},
		{"pyproject.toml", "[project]\nname = \"w\"\ndependencies = [\"Requests>=2.31\"]\n", "[project]\nname = \"w\"\ndependencies = [\"requests>=2.32\"]\n", false},
		{"Cargo.toml", "[package]\nname = \"x\"\n\n[dependencies]\nserde = \"1.0\"\n", "[package]\nname = \"x\"\n\n[dependencies]\nserde = \"2.0\"\n", false},
	} {
		added, removed := dependencySwap(dependencyNames(c.path, []byte(c.before)), dependencyNames(c.path, []byte(c.after)))
		if got := len(added) > 0 && len(removed) > 0; got != c.swap {
			t.Errorf("%s %q → %q: added %v removed %v, want swap %v", c.path, c.before, c.after, added, removed, c.swap)
		}
		// The go.mod prefilter never hides a swap the parse finds.
		if c.path == "go.mod" && c.swap && !goMayHaveSwapped([]byte(c.before), []byte(c.after)) {
			t.Errorf("the go.mod prefilter skips the swap %q → %q", c.before, c.after)
		}
	}
}
