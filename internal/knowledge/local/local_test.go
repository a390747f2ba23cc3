package local

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kontext-dev/kontext/internal/git"
	"github.com/kontext-dev/kontext/internal/gittest"
	"github.com/kontext-dev/kontext/internal/knowledge/config"
	"github.com/kontext-dev/kontext/internal/knowledge/store"
)

// Child processes of the concurrency and kill tests run TestMain's branch
// for their role instead of the tests.
func TestMain(m *testing.M) {
	if role := os.Getenv("KONTEXT_LOCAL_CHILD"); role != "" {
		os.Exit(child(role))
	}
	os.Exit(m.Run())
}

var noUserConfig = config.Options{Getenv: func(k string) string {
	if k == "KONTEXT_CONFIG_DIR" {
		return filepath.Join(os.TempDir(), "kontext-local-test-no-user-config")
	}
	return ""
}}

// gitCmd runs git in dir as Test User.
func gitCmd(t testing.TB, dir string, args ...string) string {
	t.Helper()
	return gittest.Run(t, dir, gittest.Identity("Test User", "t@example.com"), args...)
}

// newRepo makes a repository with files, committed.
func newRepo(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "shop")
	os.MkdirAll(dir, 0o755)
	gitCmd(t, dir, "init", "-q", "-b", "main")
	gitCmd(t, dir, "config", "user.name", "Test User")
	files["README.md"] = "# shop\n"
	for rel, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gitCmd(t, dir, "add", ".")
	gitCmd(t, dir, "commit", "-q", "-m", "initial")
	return dir
}

func open(t testing.TB, dir string) *State {
	t.Helper()
	ctx := context.Background()
	repo, err := git.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { repo.Close() })
	cfg, err := config.Load(ctx, repo, noUserConfig)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Open(ctx, repo, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func clock(t string) func() time.Time {
	at, err := time.Parse(time.RFC3339, t)
	if err != nil {
		panic(err)
	}
	return func() time.Time { return at }
}

const withStore = ".ai/kontext.toml"

func TestCaptureListShowDrop(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t, map[string]string{withStore: "[store]\ndir = \".ai\"\n"})
	s := open(t, dir)
	s.Now = clock("2026-09-28T10:00:00Z")
	got, err := s.Capture(ctx, Capture{Kind: "adr", Title: "Prices are integer cents", Body: "## Decision\nCents.", Paths: []string{"./src/billing/**", " "},
		Commits: []string{"a1b2c3d4e5f6a7b8c9d0"}, Source: "claude:4f1c2a9b", Origin: "agent"})
	if err != nil {
		t.Fatal(err)
	}
	if got.Promoted || got.Entry.ID != "2026-09-28-prices-are-integer-cents" {
		t.Fatalf("%+v", got)
	}
	text, _ := os.ReadFile(filepath.Join(s.InboxDir(), got.Entry.ID+".md"))
	want := "---\nid: 2026-09-28-prices-are-integer-cents\nkind: decision\ntitle: Prices are integer cents\nstatus: accepted\ndate: 2026-09-28\n" +
		"paths: [src/billing/**]\ncommits: [a1b2c3d4e5f6]\nauthor: Test User\nvisibility: team\norigin: agent\nsource: claude:4f1c2a9b\n" +
		"captured: 2026-09-28T10:00:00Z\nbranch: main\nworktree: " + s.Worktree + "\n---\n\n## Decision\nCents.\n"
	if string(text) != want {
		t.Fatalf("inbox file:\n%s\nwant:\n%s", text, want)
	}

	s.Now = clock("2026-09-28T11:00:00Z")
	p, err := s.Capture(ctx, Capture{Kind: "gotcha", Title: "Prices are integer cents", Body: "Beware floats.", Tags: []string{"billing"}})
	if err != nil || p.Entry.ID != "2026-09-28-prices-are-integer-cents-2" || !reflect.DeepEqual(p.Entry.Tags, []string{"billing", "pitfall"}) || p.Entry.Kind != store.KindLearning {
		t.Fatalf("%v %+v", err, p.Entry)
	}
	s.Now = clock("2026-09-28T12:00:00Z")
	priv, err := s.Capture(ctx, Capture{Kind: "note", Title: "I prefer tabs", Summary: "Mine only.", Visibility: "PRIVATE"})
	if err != nil || priv.Entry.Visibility != Private {
		t.Fatalf("%v %+v", err, priv)
	}

	list, err := s.List(ctx)
	if err != nil || len(list) != 3 {
		t.Fatalf("%v %d", err, len(list))
	}
	if list[0].ID != priv.Entry.ID || list[2].ID != got.Entry.ID || !list[0].Here || list[0].Branch != "main" || !list[0].Private() {
		t.Fatalf("order or origin: %s %s %s %+v", list[0].ID, list[1].ID, list[2].ID, list[0])
	}
	if c, err := s.Show(ctx, "cents-2"); err != nil || c.ID != p.Entry.ID {
		t.Fatalf("suffix: %v", err)
	}
	if c, err := s.Show(ctx, "inbox:2026-09-28-i-prefer"); err != nil || c.ID != priv.Entry.ID || c.Summary != "Mine only." {
		t.Fatalf("prefix: %v", err)
	}
	var amb *store.AmbiguousError
	if _, err := s.Show(ctx, "2026-09-28-prices"); !errors.As(err, &amb) || len(amb.Candidates) != 2 {
		t.Fatalf("ambiguous: %v", err)
	}
	dropped, err := s.Drop(ctx, "cents-2", "nope")
	var nf *NotFoundError
	if !reflect.DeepEqual(dropped, []string{p.Entry.ID}) || !errors.As(err, &nf) {
		t.Fatalf("drop: %v %v", dropped, err)
	}
	if list, _ := s.List(ctx); len(list) != 2 {
		t.Fatalf("after drop: %d", len(list))
	}

	for _, bad := range []Capture{
		{Kind: "recipe", Title: "x", Body: "y"},
		{Kind: "decision", Title: " ", Body: "y"},
		{Kind: "decision", Title: "x"},
		{Kind: "decision", Title: "x", Body: "y", Visibility: "public"},
		{Kind: "decision", Title: "x", Body: "y", Visibility: "private", Promote: true},
	} {
		if _, err := s.Capture(ctx, bad); err == nil {
			t.Errorf("accepted %+v", bad)
		}
	}
}

func TestNoStoreAcceptsOnlyPrivate(t *testing.T) {
	ctx := context.Background()
	s := open(t, newRepo(t, map[string]string{}))
	_, err := s.Capture(ctx, Capture{Kind: "decision", Title: "Use Go", Body: "Because."})
	var ns *NoStoreError
	if !errors.As(err, &ns) || !strings.Contains(err.Error(), "only private captures") {
		t.Fatalf("%v", err)
	}
	got, err := s.Capture(ctx, Capture{Kind: "decision", Title: "Use Go", Body: "Because.", Visibility: "private"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Promote(ctx, got.Entry.ID)
	var pe *PrivateError
	if !errors.As(err, &pe) {
		t.Fatalf("%v", err)
	}
	// A team candidate left from when the store existed cannot be promoted either.
	team := &store.Entry{Kind: "decision", Title: "Team", Visibility: Team, Body: "x\n"}
	if err := s.writeCandidate(team, time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Promote(ctx, team.ID); !errors.As(err, &ns) {
		t.Fatalf("%v", err)
	}
	// The configured home of decisions is a store.
	dir := newRepo(t, map[string]string{".kontext.toml": "[store.kinds.decision]\npath = \"docs/adr\"\nstyle = \"fields\"\nnumbering = \"sequential\"\n", "docs/adr/0001-x.md": "# 1. X\n\nDate: 2020-01-01\n"})
	s2 := open(t, dir)
	s2.Now = clock("2026-09-28T10:00:00Z")
	c, err := s2.Capture(ctx, Capture{Kind: "adr", Title: "Use Go", Body: "## Decision\n\nGo.", Supersedes: []string{"1"}})
	if err != nil {
		t.Fatal(err)
	}
	ps, err := s2.Promote(ctx, c.Entry.ID)
	if err != nil || len(ps) != 1 || ps[0].Entry.Path != "docs/adr/0002-use-go.md" || !reflect.DeepEqual(ps[0].Written, []string{"docs/adr/0002-use-go.md", "docs/adr/0001-x.md"}) {
		t.Fatalf("%v %+v", err, ps)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "docs/adr/0002-use-go.md"))
	// Written the way the directory's ADRs are (issue 10, point 9): its
	// "# 1. X" title and plain "Date:" field lines; supersedes names the
	// full id (point 12).
	if string(b) != "# 2. Use Go\n\nStatus: Accepted\nDate: 2026-09-28\nSupersedes: 0001-x\nAuthor: Test User\n\n## Decision\n\nGo.\n" {
		t.Fatalf("%s", b)
	}
	b, _ = os.ReadFile(filepath.Join(dir, "docs/adr/0001-x.md"))
	if string(b) != "# 1. X\n\nDate: 2020-01-01\nStatus: Superseded by 0002-use-go\n" {
		t.Fatalf("%q", b)
	}
}

func TestPromoteCommitAndClean(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t, map[string]string{
		withStore:                            "",
		".ai/decisions/2026-01-05-floats.md": "---\nid: 2026-01-05-floats\nkind: decision\ntitle: Use floats\nstatus: accepted\ndate: 2026-01-05\n---\n\nFloats.\n",
	})
	s := open(t, dir)
	s.Now = clock("2026-09-28T10:00:00+02:00")
	c, err := s.Capture(ctx, Capture{Kind: "decision", Title: "Use integer cents", Body: "Cents.", Supersedes: []string{"2026-01-05"}, Source: "thread"})
	if err != nil {
		t.Fatal(err)
	}
	ps, err := s.Promote(ctx, c.Entry.ID)
	if err != nil {
		t.Fatal(err)
	}
	target := ".ai/decisions/2026-09-28-use-integer-cents.md"
	if ps[0].Entry.Path != target || len(ps[0].Written) != 2 {
		t.Fatalf("%+v", ps[0])
	}
	b, _ := os.ReadFile(filepath.Join(dir, target))
	if string(b) != "---\nid: 2026-09-28-use-integer-cents\nkind: decision\ntitle: Use integer cents\nstatus: accepted\ndate: 2026-09-28\nsupersedes: [2026-01-05-floats]\nauthor: Test User\n---\n\nCents.\n" {
		t.Fatalf("promoted entry:\n%s", b)
	}
	old, _ := os.ReadFile(filepath.Join(dir, ".ai/decisions/2026-01-05-floats.md"))
	if !strings.Contains(string(old), "status: superseded\n") || !strings.Contains(string(old), "superseded_by: [2026-09-28-use-integer-cents]\n") {
		t.Fatalf("%s", old)
	}
	if list, _ := s.List(ctx); len(list) != 0 {
		t.Fatal("still in the inbox")
	}
	prom, _ := s.Promoted(ctx)
	if len(prom) != 1 || prom[0].PromotedTo != target || prom[0].PromotedAt.IsZero() || prom[0].Source != "thread" {
		t.Fatalf("%+v", prom)
	}
	if _, err := s.Promote(ctx, c.Entry.ID); !errors.As(err, new(*AlreadyPromotedError)) {
		t.Fatalf("second promotion: %v", err)
	}
	if n, err := s.CleanPromoted(ctx); err != nil || n != 0 {
		t.Fatalf("not committed yet: %d %v", n, err)
	}
	gitCmd(t, dir, "add", ".")
	gitCmd(t, dir, "commit", "-q", "-m", "Use integer cents\n\nDecision: 2026-09-28-use-integer-cents")
	if n, err := s.CleanPromoted(ctx); err != nil || n != 1 {
		t.Fatalf("committed: %d %v", n, err)
	}
	if prom, _ := s.Promoted(ctx); len(prom) != 0 {
		t.Fatal("record kept")
	}

	// Straight into the store.
	d, err := s.Capture(ctx, Capture{Kind: "rule", Title: "Kebab-case file names", Body: "Always.", Promote: true})
	if err != nil || !d.Promoted || d.Result.Path != ".ai/conventions/kebab-case-file-names.md" {
		t.Fatalf("%v %+v", err, d)
	}
}

func TestInterruptedPromotion(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t, map[string]string{withStore: ""})
	s := open(t, dir)
	a, _ := s.Capture(ctx, Capture{Kind: "learning", Title: "A", Body: "a"})
	b, _ := s.Capture(ctx, Capture{Kind: "learning", Title: "B", Body: "b"})
	// A: the entry and the record were written, removing the inbox copy was not.
	twinA := "---\nid: " + a.Entry.ID + "\ntitle: A\npromoted_to: .ai/learnings/a.md\n---\n\na\n"
	os.MkdirAll(s.PromotedDir(), 0o755)
	os.WriteFile(filepath.Join(s.PromotedDir(), a.Entry.ID+".md"), []byte(twinA), 0o644)
	os.MkdirAll(filepath.Join(dir, ".ai/learnings"), 0o755)
	os.WriteFile(filepath.Join(dir, ".ai/learnings/a.md"), []byte("---\ntitle: A\n---\n\na\n"), 0o644)
	// B: the record was written, the entry was not.
	os.WriteFile(filepath.Join(s.PromotedDir(), b.Entry.ID+".md"), []byte("---\nid: "+b.Entry.ID+"\ntitle: B\npromoted_to: .ai/learnings/b.md\n---\n\nb\n"), 0o644)

	list, _ := s.List(ctx)
	if len(list) != 1 || list[0].ID != b.Entry.ID {
		t.Fatalf("a promoted candidate is not listed: %d", len(list))
	}
	// Completing the interrupted promotion is a promotion, so that its
	// files are staged as a complete one's.
	if ps, err := s.Promote(ctx, a.Entry.ID); err != nil || len(ps) != 1 || ps[0].Entry.Path != ".ai/learnings/a.md" {
		t.Fatalf("%v %+v", err, ps)
	}
	if _, err := os.Stat(filepath.Join(s.InboxDir(), a.Entry.ID+".md")); !os.IsNotExist(err) {
		t.Fatal("the interrupted promotion was not completed")
	}
	ps, err := s.Promote(ctx, b.Entry.ID)
	if err != nil || ps[0].Entry.Path != ".ai/learnings/b.md" {
		t.Fatalf("%v %+v", err, ps)
	}
	entries, _ := s.Store.Load()
	if len(entries) != 2 {
		t.Fatalf("%d entries", len(entries))
	}
}

func TestSecretsInCaptures(t *testing.T) {
	ctx := context.Background()
	key := "AKIA" + "Q3EGRT5LZKDW7NPV"
	dir := newRepo(t, map[string]string{withStore: ""})
	s := open(t, dir)
	c, err := s.Capture(ctx, Capture{Kind: "incident", Title: "Leaked key " + key, Body: "We rotated " + key + " after the outage."})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(s.InboxDir(), c.Entry.ID+".md"))
	if strings.Contains(string(b), key) || !strings.Contains(string(b), "We rotated [redacted:aws-access-key] after") || len(c.Redacted) != 2 {
		t.Fatalf("%d %s", len(c.Redacted), b)
	}
	os.MkdirAll(filepath.Join(s.Repo.CommonDir, "kontext"), 0o755)
	os.WriteFile(filepath.Join(s.Repo.CommonDir, "kontext", "config.toml"), []byte("[capture]\nredact = false\n"), 0o644)
	s = open(t, dir)
	_, err = s.Capture(ctx, Capture{Kind: "incident", Title: "Leak", Body: "Key " + key})
	var se *SecretError
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "aws-access-key at line 1") {
		t.Fatalf("%v", err)
	}
	if _, err := s.Capture(ctx, Capture{Kind: "incident", Title: "Leak", Body: "token: hunter2hunter2hunter2"}); err != nil {
		t.Fatalf("a medium finding does not refuse: %v", err)
	}
}

func TestWorktreesShareTheInbox(t *testing.T) {
	ctx := context.Background()
	dir := newRepo(t, map[string]string{withStore: ""})
	other := filepath.Join(t.TempDir(), "feature-wt")
	gitCmd(t, dir, "worktree", "add", "-q", "-b", "feature", other)
	a, b := open(t, dir), open(t, other)
	if a.Dir != b.Dir || a.Worktree == b.Worktree {
		t.Fatalf("%s %s %s %s", a.Dir, b.Dir, a.Worktree, b.Worktree)
	}
	if _, err := b.Capture(ctx, Capture{Kind: "learning", Title: "From the feature worktree", Body: "x"}); err != nil {
		t.Fatal(err)
	}
	list, _ := a.List(ctx)
	if len(list) != 1 || list[0].Here || list[0].Gone || list[0].Branch != "feature" || list[0].Worktree != b.Worktree {
		t.Fatalf("%+v", list[0])
	}
	gitCmd(t, dir, "worktree", "remove", "--force", other)
	list, _ = a.List(ctx)
	if !list[0].Gone {
		t.Fatal("the worktree is gone")
	}
}

func TestLockWaitsAndHonoursContext(t *testing.T) {
	s := open(t, newRepo(t, map[string]string{}))
	unlock, err := s.Lock(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := s.Lock(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("%v", err)
	}
	// Another process cannot take it either.
	cmd := childCmd("lock", map[string]string{"KX_DIR": s.Repo.Dir})
	out, _ := cmd.CombinedOutput()
	if !strings.Contains(string(out), "lock: context deadline exceeded") {
		t.Fatalf("child: %s", out)
	}
	unlock()
	unlock() // twice is harmless
	out, _ = childCmd("lock", map[string]string{"KX_DIR": s.Repo.Dir}).CombinedOutput()
	if !strings.Contains(string(out), "lock: ok") {
		t.Fatalf("child after unlock: %s", out)
	}
}

func TestWorktreeKey(t *testing.T) {
	if k := WorktreeKey("/home/me/src/My Shop"); !strings.HasPrefix(k, "my-shop-") || len(k) != len("my-shop-")+8 {
		t.Fatal(k)
	}
	if WorktreeKey("/a/x") == WorktreeKey("/b/x") {
		t.Fatal("same key for different directories")
	}
}

// Regression (issue 8.3): only the title, body and summary were redacted;
// tags, paths, supersedes, commits and the source went into the entry as
// given. Every value is redacted (in the inbox and when promoted straight
// into the store), and, with redaction off, every value can refuse it.
func TestSecretsInEveryCaptureValue(t *testing.T) {
	ctx := context.Background()
	key := "AKIA" + "Q3EGRT5LZKDW7NPV"
	stripe := "sk" + "_live_" + "51Hq8ZkLq2Rv81TbW7xNc5Hy4Mg6Dp0Js8"
	dir := newRepo(t, map[string]string{withStore: ""})
	s := open(t, dir)
	capture := Capture{
		Kind: "learning", Title: "Rotate " + key, Body: "Rotated.", Summary: "we used " + stripe,
		Tags: []string{"billing", stripe}, Paths: []string{"src/" + key + "/x.go"},
		Commits: []string{stripe}, Source: "claude:" + stripe, Status: stripe,
	}
	for _, promote := range []bool{false, true} {
		c := capture
		c.Promote = promote
		got, err := s.Capture(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(s.InboxDir(), got.Entry.ID+".md")
		if promote {
			file = filepath.Join(dir, filepath.FromSlash(got.Result.Path))
		}
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), key) || strings.Contains(string(b), stripe) || !strings.Contains(string(b), "[redacted:stripe-key]") || len(got.Redacted) < 7 {
			t.Errorf("promote %v: %d redacted:\n%s", promote, len(got.Redacted), b)
		}
	}
	// supersedes names entries by id: a secret there names none, and the
	// refusal does not repeat it.
	withSecret := capture
	withSecret.Supersedes = []string{stripe}
	if _, err := s.Capture(ctx, withSecret); err == nil || strings.Contains(err.Error(), stripe) {
		t.Errorf("a secret in supersedes: %v", err)
	}
	os.MkdirAll(filepath.Join(s.Repo.CommonDir, "kontext"), 0o755)
	os.WriteFile(filepath.Join(s.Repo.CommonDir, "kontext", "config.toml"), []byte("[capture]\nredact = false\n"), 0o644)
	s = open(t, dir)
	for name, c := range map[string]Capture{
		"tags":       {Kind: "learning", Title: "T", Body: "B", Tags: []string{stripe}},
		"paths":      {Kind: "learning", Title: "T", Body: "B", Paths: []string{stripe}},
		"supersedes": {Kind: "learning", Title: "T", Body: "B", Supersedes: []string{stripe}},
		"summary":    {Kind: "learning", Title: "T", Summary: stripe},
	} {
		var se *SecretError
		if _, err := s.Capture(ctx, c); !errors.As(err, &se) {
			t.Errorf("a secret in %s is not refused: %v", name, err)
		}
	}
}
