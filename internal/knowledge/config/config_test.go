package config

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/kontext-dev/kontext/internal/git"
)

func newRepo(t *testing.T) (string, *git.Repo) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "shop")
	os.MkdirAll(dir, 0o755)
	run(t, dir, "git", "init", "-q", "-b", "main")
	r, err := git.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return dir, r
}

func run(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %v\n%s", args, err, out)
	}
}

func write(t *testing.T, path, text string) {
	t.Helper()
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func env(m map[string]string) Options {
	return Options{Getenv: func(k string) string { return m[k] }}
}

func TestDefaults(t *testing.T) {
	c := Defaults()
	checks := map[string][2]any{
		"store.dir":                    {c.Store.Dir, ".ai"},
		"store.style":                  {c.Store.Style, "frontmatter"},
		"store.index_file":             {c.Store.IndexFile, true},
		"store.max_body_lines":         {c.Store.MaxBodyLines, 80},
		"sources.max_bytes":            {c.Sources.MaxBytes, int64(300000)},
		"index.commits":                {c.Index.Commits, true},
		"index.max_commits":            {c.Index.MaxCommits, 5000},
		"brief.budget_tokens":          {c.Brief.BudgetTokens, 1400},
		"brief.max_decisions":          {c.Brief.MaxDecisions, 12},
		"brief.max_modules":            {c.Brief.MaxModules, 14},
		"freshness.threshold_commits":  {c.Freshness.ThresholdCommits, 20},
		"capture.default_visibility":   {c.Capture.DefaultVisibility, "team"},
		"capture.redact":               {c.Capture.Redact, true},
		"hooks.validate":               {c.Hooks.Validate, true},
		"hooks.trailers":               {c.Hooks.Trailers, true},
		"hooks.remind_inbox":           {c.Hooks.RemindInbox, true},
		"secrets.scan":                 {c.Secrets.Scan, "store"},
		"init.max_module_docs":         {c.Init.MaxModuleDocs, 40},
		"init.min_module_files":        {c.Init.MinModuleFiles, 3},
		"init.history_max_commits":     {c.Init.HistoryMaxCommits, 3000},
		"init.max_decision_tasks":      {c.Init.MaxDecisionTasks, 20},
		"init.task_max_files":          {c.Init.TaskMaxFiles, 12},
		"init.task_inline_chars":       {c.Init.TaskInlineChars, 24000},
		"init.jobs":                    {c.Init.Jobs, 2},
		"len(sources.include)":         {len(c.Sources.Include), 7},
		"sources.exclude[0]":           {c.Sources.Exclude[0], "**/node_modules/**"},
		"len(secrets.allow)":           {len(c.Secrets.Allow), 0},
		"store.kinds.decision.trailer": {c.Store.Kinds["decision"].Trailer, "Decision"},
	}
	for k, v := range checks {
		if !reflect.DeepEqual(v[0], v[1]) {
			t.Errorf("%s = %#v, want %#v", k, v[0], v[1])
		}
	}
	var names []string
	for _, k := range c.Kinds() {
		names = append(names, k.Name+"="+k.Path+"/"+k.Style+"/"+k.Numbering+"/"+k.Trailer)
	}
	want := []string{
		"decision=.ai/decisions/frontmatter/date/Decision",
		"convention=.ai/conventions/frontmatter/none/Convention",
		"learning=.ai/learnings/frontmatter/none/Learning",
		"incident=.ai/incidents/frontmatter/none/Incident",
		"architecture=.ai/architecture/frontmatter/none/",
	}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("kinds %v", names)
	}
}

func TestLayersMergeAndProvenance(t *testing.T) {
	dir, repo := newRepo(t)
	run(t, dir, "git", "remote", "add", "origin", "git@github.com:Acme/Shop.git")
	user := t.TempDir()
	write(t, filepath.Join(user, "config.toml"), "[brief]\nbudget_tokens = 2000\nmax_modules = 20\n\n[sources]\ninclude = [\"docs/**/*.md\"]\n")
	write(t, filepath.Join(user, "repos", "github.com-acme-shop.toml"), "[brief]\nbudget_tokens = 2500\n")
	write(t, filepath.Join(dir, ".ai", "kontext.toml"), "# shared\n[project]\nname = \"shop\"\n\n[brief]\nmax_decisions = 8\n\n[store.kinds.decision]\npath = \"docs/adr\"\nstyle = \"fields\"\nnumbering = \"sequential\"\n")
	write(t, filepath.Join(repo.CommonDir, "kontext", "config.toml"), "[capture]\ndefault_visibility = \"private\"\n[brief]\nbudget_tokens = 3000\n")

	c, err := Load(context.Background(), repo, env(map[string]string{"KONTEXT_CONFIG_DIR": user}))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Warnings) != 0 {
		t.Errorf("warnings %v", c.Warnings)
	}
	if c.Brief.BudgetTokens != 3000 || c.Brief.MaxModules != 20 || c.Brief.MaxDecisions != 8 {
		t.Errorf("brief %+v", c.Brief)
	}
	if !reflect.DeepEqual(c.Sources.Include, []string{"docs/**/*.md"}) || len(c.Sources.Exclude) != 6 {
		t.Errorf("arrays replace, tables merge: %+v", c.Sources)
	}
	if c.Capture.DefaultVisibility != "private" || !c.Capture.Redact {
		t.Errorf("capture %+v", c.Capture)
	}
	k, _ := c.Kind("decision")
	if k.Path != "docs/adr" || k.Style != "fields" || k.Numbering != "sequential" || k.Trailer != "Decision" || !k.Configured {
		t.Errorf("decision home %+v", k)
	}
	if l, _ := c.Kind("learning"); l.Path != ".ai/learnings" || l.Configured {
		t.Errorf("learning %+v", l)
	}
	if c.Identity.ID != "github.com/acme/shop" || c.Identity.Slug != "github.com-acme-shop" || c.Identity.Name != "shop" {
		t.Errorf("identity %+v", c.Identity)
	}

	shared := filepath.Join(dir, ".ai", "kontext.toml")
	for key, want := range map[string]Source{
		"brief.budget_tokens":            {LayerLocal, LocalPath(repo), 4},
		"brief.max_modules":              {LayerUser, filepath.Join(user, "config.toml"), 3},
		"brief.max_decisions":            {LayerRepository, shared, 6},
		"store.kinds.decision.numbering": {LayerRepository, shared, 11},
		"sources.include":                {LayerUser, filepath.Join(user, "config.toml"), 6},
		"store.dir":                      {LayerDefault, "", 0},
	} {
		if got, ok := c.Source(key); !ok || got != want {
			t.Errorf("Source(%s) = %+v, want %+v", key, got, want)
		}
	}

	text := c.Explain()
	for _, want := range []string{
		"budget_tokens = 3000  # clone-local (" + LocalPath(repo) + ":4)",
		"max_decisions = 8",
		"# repository (" + shared + ":6)",
		"dir = \".ai\"",
		"# built-in",
		"[store.kinds.decision]",
		"path = \"docs/adr\"",
		"Repository: github.com/acme/shop",
		"not found",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("Explain lacks %q:\n%s", want, text)
		}
	}
	var back map[string]any
	if _, err := toml.Decode(text, &back); err != nil {
		t.Fatalf("Explain is not TOML: %v\n%s", err, text)
	}
	if strings.Index(text, "[store]") > strings.Index(text, "[brief]") {
		t.Error("tables are not in the defaults' order")
	}
}

func TestRepositoryFileChoice(t *testing.T) {
	dir, repo := newRepo(t)
	user := t.TempDir()
	o := env(map[string]string{"XDG_CONFIG_HOME": user})
	write(t, filepath.Join(dir, ".ai", "kontext.toml"), "[brief]\nmax_modules = 5\n")
	write(t, filepath.Join(dir, ".kontext.toml"), "[brief]\nmax_modules = 6\n")
	c, err := Load(context.Background(), repo, o)
	if err != nil {
		t.Fatal(err)
	}
	if c.Brief.MaxModules != 6 {
		t.Fatalf(".kontext.toml wins over .ai/kontext.toml: %d", c.Brief.MaxModules)
	}
	// A personal layer can move the store; its kontext.toml is then the shared file.
	os.Remove(filepath.Join(dir, ".kontext.toml"))
	write(t, filepath.Join(user, "kontext", "config.toml"), "[store]\ndir = \"knowledge\"\n")
	write(t, filepath.Join(dir, "knowledge", "kontext.toml"), "[brief]\nmax_modules = 7\n")
	c, err = Load(context.Background(), repo, o)
	if err != nil {
		t.Fatal(err)
	}
	if c.Brief.MaxModules != 7 || c.StoreDir() != "knowledge" {
		t.Fatalf("moved store: %d %s", c.Brief.MaxModules, c.StoreDir())
	}
	if k, _ := c.Kind("decision"); k.Path != "knowledge/decisions" {
		t.Fatalf("kind path %s", k.Path)
	}
}

func TestWarningsAndErrors(t *testing.T) {
	dir, repo := newRepo(t)
	user := t.TempDir()
	o := env(map[string]string{"KONTEXT_CONFIG_DIR": user})
	shared := filepath.Join(dir, ".ai", "kontext.toml")

	write(t, shared, "[brief]\nbudget_tokens = 900\nbudget_tokenz = 1\n[store.kinds.decision]\nfoo = 1\n[brief2]\nx = 1\n[adapters.viking]\ndriver = \"http\"\nops = { search = { path = \"/x\" } }\n[vars]\nuser = \"alice\"\n")
	c, err := Load(context.Background(), repo, o)
	if err != nil {
		t.Fatal(err)
	}
	if c.Brief.BudgetTokens != 900 || c.Adapters["viking"]["driver"] != "http" || c.Vars["user"] != "alice" {
		t.Fatalf("values %+v %v", c.Brief, c.Adapters)
	}
	joined := strings.Join(c.Warnings, "\n")
	for _, k := range []string{`"brief.budget_tokenz"`, `"store.kinds.decision.foo"`, `"brief2.x"`} {
		if !strings.Contains(joined, k) {
			t.Errorf("no warning for %s in %s", k, joined)
		}
	}
	if !strings.Contains(joined, shared+":3") {
		t.Errorf("warning without file:line: %s", joined)
	}

	for text, want := range map[string]string{
		"[brief]\nbudget_tokens = \"big\"\n":               shared + ":2: brief.budget_tokens",
		"[brief\n":                                         shared + ":",
		"[capture]\ndefault_visibility = \"public\"\n":     "use one of team, private",
		"[store.kinds.decision]\nnumbering = \"random\"\n": "store.kinds.decision.numbering",
		"[store.kinds.decision]\npath = \"../outside\"\n":  "inside the repository",
		"[secrets]\nallow = [\"(\"]\n":                     "not a regular expression",
		"[store]\nstyle = \"yaml\"\n":                      shared + ":2: store.style",
	} {
		write(t, shared, text)
		_, err := Load(context.Background(), repo, o)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", text, err, want)
		}
	}
}

func TestAliasAndCustomKinds(t *testing.T) {
	dir, repo := newRepo(t)
	write(t, filepath.Join(dir, ".ai", "kontext.toml"), "[brief]\nstale_after_commits = 7\n[store.kinds.runbook]\ndir = \"runbooks\"\n")
	c, err := Load(context.Background(), repo, env(map[string]string{"KONTEXT_CONFIG_DIR": t.TempDir()}))
	if err != nil {
		t.Fatal(err)
	}
	if c.Freshness.ThresholdCommits != 7 || len(c.Warnings) != 0 {
		t.Fatalf("alias: %d %v", c.Freshness.ThresholdCommits, c.Warnings)
	}
	if s, _ := c.Source("freshness.threshold_commits"); s.Layer != LayerRepository || s.Line != 2 {
		t.Fatalf("alias source %+v", s)
	}
	ks := c.Kinds()
	if last := ks[len(ks)-1]; last.Name != "runbook" || last.Path != ".ai/runbooks" || last.Numbering != "none" || last.Style != "frontmatter" {
		t.Fatalf("custom kind %+v", last)
	}
	if _, ok := c.Kind("nope"); ok {
		t.Fatal("unknown kind")
	}
}

func TestUserDir(t *testing.T) {
	if d := UserDir(func(k string) string {
		return map[string]string{"KONTEXT_CONFIG_DIR": "/k", "XDG_CONFIG_HOME": "/x", "HOME": "/h"}[k]
	}); d != "/k" {
		t.Error(d)
	}
	if d := UserDir(func(k string) string { return map[string]string{"XDG_CONFIG_HOME": "/x", "HOME": "/h"}[k] }); d != filepath.Join("/x", "kontext") {
		t.Error(d)
	}
	if d := UserDir(func(k string) string { return map[string]string{"HOME": "/h"}[k] }); d != filepath.Join("/h", ".config", "kontext") {
		t.Error(d)
	}
}

func TestLoadOutsideRepository(t *testing.T) {
	user := t.TempDir()
	write(t, filepath.Join(user, "config.toml"), "[index]\nmax_commits = 10\n")
	c, err := Load(context.Background(), nil, env(map[string]string{"KONTEXT_CONFIG_DIR": user}))
	if err != nil || c.Index.MaxCommits != 10 || len(c.Layers) != 1 || !c.Layers[0].Loaded {
		t.Fatalf("%v %+v", err, c)
	}
}

func TestNormalizeRemote(t *testing.T) {
	for in, want := range map[string]string{
		"git@github.com:Acme/Shop.git":                    "github.com/acme/shop",
		"https://github.com/acme/shop":                    "github.com/acme/shop",
		"https://github.com/Acme-Corp/Shop-API":           "github.com/acme-corp/shop-api",
		"ssh://git@gitlab.com:2222/a/b.git":               "gitlab.com/a/b",
		"https://user:tok@github.com/Acme/Kontext.git/":   "github.com/acme/kontext",
		"git+ssh://git@bitbucket.org/team/repo.git":       "bitbucket.org/team/repo",
		"https://dev.azure.com/org/project/_git/repo":     "dev.azure.com/org/project/_git/repo",
		"http://gitea.local:3000/me/../me/tool.git":       "gitea.local/me/me/tool",
		"  git@gitlab.example.com:group/sub/project.git ": "gitlab.example.com/group/sub/project",
	} {
		if got := NormalizeRemote(in); got != want {
			t.Errorf("NormalizeRemote(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestLocalIdentity(t *testing.T) {
	dir, repo := newRepo(t)
	id := Identify(context.Background(), repo)
	if !regexp.MustCompile(`^local/shop-[0-9a-f]{8}$`).MatchString(id.ID) || id.Slug != strings.ReplaceAll(id.ID, "/", "-") || id.Name != "shop" || id.Remote != "" {
		t.Fatalf("%+v", id)
	}
	// A linked worktree has the same identity.
	run(t, dir, "git", "-c", "user.name=a", "-c", "user.email=a@b", "commit", "-q", "--allow-empty", "-m", "x")
	wt := filepath.Join(t.TempDir(), "other")
	run(t, dir, "git", "worktree", "add", "-q", wt)
	r2, err := git.Open(context.Background(), wt)
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	if id2 := Identify(context.Background(), r2); id2 != id {
		t.Fatalf("worktree identity %+v != %+v", id2, id)
	}
	if ShortHash("") != "9ce484222325" {
		t.Fatal("ShortHash")
	}
}

func TestSkipIdentity(t *testing.T) {
	dir, repo := newRepo(t)
	run(t, dir, "git", "remote", "add", "origin", "git@github.com:Acme/Shop.git")
	user := t.TempDir()
	opts := env(map[string]string{"KONTEXT_CONFIG_DIR": user})
	opts.SkipIdentity = true
	c, err := Load(context.Background(), repo, opts)
	if err != nil {
		t.Fatal(err)
	}
	if c.Identity.ID != "" {
		t.Errorf("identity worked out: %+v", c.Identity)
	}
	// With per-repository files the identity finds this repository's.
	write(t, filepath.Join(user, "repos", "github.com-acme-shop.toml"), "[hooks]\ntrailers = false\n")
	c, err = Load(context.Background(), repo, opts)
	if err != nil {
		t.Fatal(err)
	}
	if c.Hooks.Trailers || c.Identity.ID != "github.com/acme/shop" {
		t.Errorf("the per-repository layer was skipped: trailers %v, identity %+v", c.Hooks.Trailers, c.Identity)
	}
}

// Regression (issue 8.3): [secrets] allow = ["."] in the repository's
// shared file switched the secret scan off for everyone. A shared file may
// allow specific lines only, and cannot turn the scan or redaction off;
// what it tried is reported. The personal layers may do all of it.
func TestTeamCannotSwitchSecretsOff(t *testing.T) {
	dir, repo := newRepo(t)
	user := t.TempDir()
	o := env(map[string]string{"KONTEXT_CONFIG_DIR": user})
	shared := filepath.Join(dir, ".ai", "kontext.toml")
	write(t, shared, "[capture]\nredact = false\n\n[secrets]\nscan = \"off\"\nallow = [\".\", \"^fixture:\", \"(?i)key\", \"sk_live\", \"x*\", \"EXAMPLE_[0-9]+\"]\n")
	c, err := Load(context.Background(), repo, o)
	if err != nil {
		t.Fatal(err)
	}
	if c.Secrets.Scan != "store" || !c.Capture.Redact || !reflect.DeepEqual(c.Secrets.Allow, []string{"^fixture:", "EXAMPLE_[0-9]+"}) {
		t.Errorf("the shared file switched protection off: scan %q, redact %v, allow %q", c.Secrets.Scan, c.Capture.Redact, c.Secrets.Allow)
	}
	var refused []string
	for _, r := range c.Refusals {
		refused = append(refused, r.Key+"="+r.Value)
		if r.Source.File != shared || r.Source.Line == 0 {
			t.Errorf("refusal without file:line: %+v", r)
		}
	}
	want := []string{"secrets.scan=\"off\"", "capture.redact=false", `secrets.allow=["."]`, `secrets.allow=["(?i)key"]`, `secrets.allow=["sk_live"]`, `secrets.allow=["x*"]`}
	if !reflect.DeepEqual(refused, want) {
		t.Errorf("refusals %v, want %v", refused, want)
	}
	text := c.Explain()
	for _, w := range []string{shared + ":5: secrets.scan = \"off\" is not applied", `secrets.allow = ["."] is not applied: it matches every line`,
		`secrets.allow = ["sk_live"] is not applied: it also matches ordinary secrets (a line holding a Stripe key)`, "personal configuration"} {
		if !strings.Contains(text, w) {
			t.Errorf("kontext settings does not say %q:\n%s", w, text)
		}
	}
	// Only the broad entries go: a list of them all falls back to the
	// built-in empty list.
	write(t, shared, "[secrets]\nallow = [\".*\"]\n")
	if c, _ = Load(context.Background(), repo, o); len(c.Secrets.Allow) != 0 {
		t.Errorf("allow %q", c.Secrets.Allow)
	}
	// The same settings from the personal layers apply.
	write(t, filepath.Join(user, "config.toml"), "[secrets]\nallow = [\".\"]\n")
	write(t, filepath.Join(repo.CommonDir, "kontext", "config.toml"), "[capture]\nredact = false\n[secrets]\nscan = \"off\"\n")
	write(t, shared, "")
	c, err = Load(context.Background(), repo, o)
	if err != nil {
		t.Fatal(err)
	}
	if c.Secrets.Scan != "off" || c.Capture.Redact || !reflect.DeepEqual(c.Secrets.Allow, []string{"."}) || len(c.Refusals) != 0 {
		t.Errorf("personal settings: scan %q, redact %v, allow %q, refusals %v", c.Secrets.Scan, c.Capture.Redact, c.Secrets.Allow, c.Refusals)
	}
}
