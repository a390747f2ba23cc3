package check

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/kontext-dev/kontext/internal/fsroot"
	"github.com/kontext-dev/kontext/internal/git"
	"github.com/kontext-dev/kontext/internal/gittest"
	"github.com/kontext-dev/kontext/internal/knowledge/config"
	"github.com/kontext-dev/kontext/internal/knowledge/store"
)

func learning(title string) string {
	return "---\nkind: learning\ntitle: " + title + "\n---\n\nBody.\n"
}

func target(t *testing.T, dir string) *Target {
	t.Helper()
	repo, err := git.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { repo.Close() })
	root, err := fsroot.Open(repo.Dir)
	if err != nil {
		t.Fatal(err)
	}
	cfg := config.Defaults()
	return &Target{Repo: repo, Store: store.New(root, cfg), Config: cfg}
}

func TestIndexViewIsWhatTheCommitRecords(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	gittest.Git(t, dir, "init", "-q", "-b", "main")
	gittest.WriteFile(t, dir, ".ai/learnings/kept.md", learning("Kept"))
	gittest.WriteFile(t, dir, ".ai/learnings/edited.md", learning("Staged title"))
	gittest.WriteFile(t, dir, ".ai/learnings/removed.md", learning("Removed from disk only"))
	gittest.Git(t, dir, "add", ".")
	gittest.Git(t, dir, "commit", "-q", "-m", "store")
	gittest.WriteFile(t, dir, ".ai/learnings/edited.md", learning("Unstaged title"))
	os.Remove(filepath.Join(dir, ".ai", "learnings", "removed.md"))
	gittest.WriteFile(t, dir, ".ai/learnings/untracked.md", learning("Untracked"))

	tg := target(t, dir)
	v, err := tg.Index(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var titles []string
	for _, e := range v.Entries {
		titles = append(titles, e.Title)
	}
	sort.Strings(titles)
	if got := strings.Join(titles, ", "); got != "Kept, Removed from disk only, Staged title" {
		t.Errorf("index view: %s", got)
	}
	if !v.Modified(".ai/learnings/edited.md") || v.Modified(".ai/learnings/kept.md") {
		t.Error("Modified is wrong")
	}
}

func TestStagedChecksTheIndexNotTheWorkTree(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	gittest.Git(t, dir, "init", "-q", "-b", "main")
	gittest.WriteFile(t, dir, ".ai/learnings/a.md", learning("A"))
	gittest.Git(t, dir, "add", ".")
	gittest.Git(t, dir, "commit", "-q", "-m", "store")
	// Staged: a second entry with the same id (a duplicate: an error).
	gittest.WriteFile(t, dir, ".ai/learnings/b.md", "---\nid: a\nkind: learning\ntitle: B\n---\n\nBody.\n")
	gittest.Git(t, dir, "add", ".")
	// The work tree fixes it, unstaged.
	gittest.WriteFile(t, dir, ".ai/learnings/b.md", learning("B"))

	tg := target(t, dir)
	changes, err := StagedChanges(ctx, tg.Repo)
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) != 1 || changes[0] != (Change{Status: 'A', Path: ".ai/learnings/b.md"}) {
		t.Fatalf("changes %v", changes)
	}
	res, err := tg.Staged(ctx, changes, nil, StagedOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Errors() != 1 || !strings.Contains(res.Problems[0].Message, `duplicate id "a"`) || res.Problems[0].Line != 2 {
		t.Errorf("staged: %+v", res.Problems)
	}
	if got := Line(res.Problems[0]); got != `.ai/learnings/b.md:2: error: duplicate id "a" (also .ai/learnings/a.md)` {
		t.Errorf("line %q", got)
	}
	// Without validation only secrets count.
	res, _ = tg.Staged(ctx, changes, nil, StagedOptions{NoValidate: true})
	if len(res.Problems) != 0 {
		t.Errorf("NoValidate: %+v", res.Problems)
	}
	wt, err := tg.WorkTree(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if wt.Errors() != 0 {
		t.Errorf("work tree: %+v", wt.Problems)
	}
}

func TestStagedScanOfEveryFile(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	gittest.Git(t, dir, "init", "-q", "-b", "main")
	gittest.WriteFile(t, dir, ".ai/learnings/a.md", learning("A"))
	gittest.Git(t, dir, "add", ".")
	gittest.Git(t, dir, "commit", "-q", "-m", "store")
	key := "AKIA" + "2E3MYQ7VX5HNP4RT"
	gittest.WriteFile(t, dir, "src/config.go", "package config\n\nconst key = \""+key+"\"\n")
	gittest.WriteFile(t, dir, ".env", "TOKEN=x\n")
	gittest.Git(t, dir, "add", ".")

	tg := target(t, dir)
	changes, _ := StagedChanges(ctx, tg.Repo)
	res, _ := tg.Staged(ctx, changes, nil, StagedOptions{})
	if len(res.Problems) != 0 {
		t.Errorf("secrets.scan = store looked at code: %+v", res.Problems)
	}
	tg.Config.Secrets.Scan = "staged"
	res, _ = tg.Staged(ctx, changes, nil, StagedOptions{})
	var lines []string
	for _, p := range res.Problems {
		lines = append(lines, Line(p))
	}
	got := strings.Join(lines, "\n")
	if !strings.Contains(got, "src/config.go:3: error: high-confidence secret (aws-access-key)") || !strings.Contains(got, ".env:1: warning: a secret file is staged") {
		t.Errorf("secrets.scan = staged:\n%s", got)
	}
	tg.Config.Secrets.Scan = "off"
	res, _ = tg.Staged(ctx, changes, nil, StagedOptions{})
	if len(res.Problems) != 0 {
		t.Errorf("secrets.scan = off: %+v", res.Problems)
	}
}

// The record cache: a second view reads no unchanged entry, and answers as
// the first; a changed blob is parsed again; a damaged cache is ignored.
func TestIndexRecordCache(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	gittest.Git(t, dir, "init", "-q", "-b", "main")
	gittest.WriteFile(t, dir, ".ai/decisions/0001-use-postgres.md", "# 1. Use Postgres\n\n**Status:** Accepted\n**Date:** 2026-01-02\n\n## Decision\n\nOrders live in Postgres.\n")
	gittest.WriteFile(t, dir, ".ai/decisions/0002-cents.md", "---\ntitle: Prices in cents\nstatus: accepted\ndate: 2026-02-03\nsupersedes: [\"1\"]\n---\n\n## Decision\n\nIntegers.\n")
	gittest.WriteFile(t, dir, ".ai/learnings/slow.md", learning("Staging is slow"))
	gittest.Git(t, dir, "add", ".")
	gittest.Git(t, dir, "commit", "-q", "-m", "store")

	tg := target(t, dir)
	tg.RecordCache = filepath.Join(t.TempDir(), "records.gob")
	index := func(parsed int) (string, []store.Problem) {
		t.Helper()
		v, err := tg.Index(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if v.Parsed != parsed {
			t.Errorf("the view parsed %d entries, want %d", v.Parsed, parsed)
		}
		staged := []*store.Entry{}
		for _, e := range v.Entries {
			if e.Path == ".ai/decisions/0002-cents.md" {
				staged = append(staged, e)
			}
		}
		return store.RenderIndex(v.Entries, ".ai"), store.Validate(staged, tg.options(v.Entries, v.Tracked))
	}
	cold, coldProblems := index(3)
	if _, err := os.Stat(tg.RecordCache); err != nil {
		t.Fatalf("no cache written: %v", err)
	}
	warm, warmProblems := index(0)
	if warm != cold || fmt.Sprint(warmProblems) != fmt.Sprint(coldProblems) {
		t.Errorf("warm view differs:\n%s\n%v\ncold:\n%s\n%v", warm, warmProblems, cold, coldProblems)
	}
	if !strings.Contains(cold, "Use Postgres") || !strings.Contains(cold, "Orders live in Postgres.") {
		t.Errorf("index:\n%s", cold)
	}

	gittest.WriteFile(t, dir, ".ai/learnings/slow.md", learning("Staging is slow on Mondays"))
	gittest.Git(t, dir, "add", ".")
	if changed, _ := index(1); !strings.Contains(changed, "Staging is slow on Mondays") {
		t.Errorf("a changed blob was not read again:\n%s", changed)
	}
	os.WriteFile(tg.RecordCache, []byte("not gob"), 0o644)
	if damaged, _ := index(3); !strings.Contains(damaged, "Staging is slow on Mondays") || !strings.Contains(damaged, "Use Postgres") {
		t.Errorf("with a damaged cache:\n%s", damaged)
	}
}

// Regression (issue 8.3): a secret file staged inside the store
// (.ai/id_rsa) passed kontext check --staged silently. It is an error
// whatever secrets.scan says; in the work tree it is a warning.
func TestSecretFileInTheStore(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	gittest.Git(t, dir, "init", "-q", "-b", "main")
	gittest.WriteFile(t, dir, ".ai/learnings/ok.md", learning("Fine"))
	gittest.WriteFile(t, dir, ".ai/id_rsa", "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n-----END OPENSSH PRIVATE KEY-----\n")
	gittest.WriteFile(t, dir, ".ai/decisions/.env.production", "X=1\n")
	gittest.Git(t, dir, "add", ".")
	tg := target(t, dir)
	for _, scan := range []string{"store", "off"} {
		tg.Config.Secrets.Scan = scan
		changes, err := StagedChanges(ctx, tg.Repo)
		if err != nil {
			t.Fatal(err)
		}
		res, err := tg.Staged(ctx, changes, nil, StagedOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var errs []string
		for _, p := range res.Problems {
			if p.Level == store.Error {
				errs = append(errs, p.Path)
			}
		}
		if strings.Join(errs, ",") != ".ai/decisions/.env.production,.ai/id_rsa" || res.Errors() != 2 {
			t.Errorf("scan %s: errors %v in %+v", scan, errs, res.Problems)
		}
	}
	res, err := tg.WorkTree(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]store.Level{}
	for _, p := range res.Problems {
		got[p.Path] = p.Level
	}
	if got[".ai/id_rsa"] != store.Warning || got[".ai/decisions/.env.production"] != store.Warning {
		t.Errorf("work tree: %+v", res.Problems)
	}
}

// The repository file's refused settings are reported by every check.
func TestRefusedSettingsAreReported(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	gittest.Git(t, dir, "init", "-q", "-b", "main")
	gittest.WriteFile(t, dir, ".ai/kontext.toml", "[secrets]\nallow = [\".\"]\n")
	gittest.WriteFile(t, dir, ".ai/learnings/ok.md", learning("Fine"))
	gittest.Git(t, dir, "add", ".")
	tg := target(t, dir)
	cfg, err := config.Load(ctx, tg.Repo, config.Options{Getenv: func(k string) string {
		if k == "KONTEXT_CONFIG_DIR" {
			return filepath.Join(dir, ".none")
		}
		return ""
	}})
	if err != nil {
		t.Fatal(err)
	}
	tg.Config = cfg
	res, err := tg.WorkTree(ctx)
	if err != nil {
		t.Fatal(err)
	}
	changes, _ := StagedChanges(ctx, tg.Repo)
	staged, err := tg.Staged(ctx, changes, nil, StagedOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for name, r := range map[string]*Result{"work tree": res, "staged": staged} {
		found := false
		for _, p := range r.Problems {
			if p.Path == ".ai/kontext.toml" && p.Line == 2 && p.Level == store.Warning && strings.Contains(p.Message, `secrets.allow = ["."] is not applied`) {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: %+v", name, r.Problems)
		}
	}
}
