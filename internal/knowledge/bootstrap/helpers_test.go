package bootstrap

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/kontext-dev/kontext/internal/fsroot"
	"github.com/kontext-dev/kontext/internal/git"
	"github.com/kontext-dev/kontext/internal/gittest"
	"github.com/kontext-dev/kontext/internal/knowledge/config"
	"github.com/kontext-dev/kontext/internal/knowledge/local"
	"github.com/kontext-dev/kontext/internal/repo"
)

// gitIn runs git in dir as Ada, away from the machine's configuration.
func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	return gittest.Run(t, dir, gittest.Ada(), args...)
}

// newRepo makes a repository whose first commit holds files.
func newRepo(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	gitIn(t, dir, "init", "-q", "-b", "main")
	gittest.WriteFiles(t, dir, files)
	gitIn(t, dir, "add", ".")
	gitIn(t, dir, "commit", "-q", "-m", "Initial commit")
	return dir
}

// commit is one commit for fastImport. A file whose content is "" is
// deleted; renames move a file (from → to) with its content.
type commit struct {
	name, email string
	msg         string
	files       map[string]string
	renames     [][2]string
}

// fastImport appends commits to main through git fast-import (thousands in
// a second), three hours apart from 2024-01-01, then checks them out.
func fastImport(t *testing.T, dir string, commits []commit) {
	t.Helper()
	parent := strings.TrimSpace(gitIn(t, dir, "rev-parse", "HEAD"))
	var in bytes.Buffer
	when := time.Date(2024, 1, 1, 9, 0, 0, 0, time.UTC)
	for i, c := range commits {
		when = when.Add(3 * time.Hour)
		name, email := c.name, c.email
		if name == "" {
			name, email = "Ada", "ada@example.com"
		}
		fmt.Fprintf(&in, "commit refs/heads/main\nauthor %s <%s> %d +0000\ncommitter %s <%s> %d +0000\ndata %d\n%s\n",
			name, email, when.Unix(), name, email, when.Unix(), len(c.msg), c.msg)
		if i == 0 {
			fmt.Fprintf(&in, "from %s\n", parent)
		}
		for _, r := range c.renames {
			fmt.Fprintf(&in, "R %s %s\n", r[0], r[1])
		}
		paths := make([]string, 0, len(c.files))
		for p := range c.files {
			paths = append(paths, p)
		}
		sort.Strings(paths)
		for _, p := range paths {
			if c.files[p] == "" {
				fmt.Fprintf(&in, "D %s\n", p)
				continue
			}
			fmt.Fprintf(&in, "M 100644 inline %s\ndata %d\n%s\n", p, len(c.files[p]), c.files[p])
		}
	}
	cmd := gittest.Command(dir, gittest.Ada(), "fast-import", "--quiet")
	cmd.Stdin = &in
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("fast-import: %v\n%s", err, out)
	}
	gitIn(t, dir, "reset", "-q", "--hard", "main")
}

// openPipeline opens the bootstrap of the repository in dir, isolated from
// the user's configuration.
func openPipeline(t *testing.T, dir string) *Pipeline {
	t.Helper()
	ctx := context.Background()
	g, err := git.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.Close() })
	root, err := fsroot.Open(g.Dir)
	if err != nil {
		t.Fatal(err)
	}
	opts := config.Options{Getenv: func(k string) string {
		if k == "KONTEXT_CONFIG_DIR" {
			return filepath.Join(dir, ".git", "no-user-config")
		}
		return ""
	}}
	cfg, err := config.Load(ctx, g, opts)
	if err != nil {
		t.Fatal(err)
	}
	state, err := local.Open(ctx, g, cfg)
	if err != nil {
		t.Fatal(err)
	}
	engine := repo.NewEngine(repo.Options{NoCache: true, NoTerminal: true})
	t.Cleanup(func() { engine.Close() })
	p := NewPipeline(root, state, engine)
	p.ConfigOptions = opts
	p.Now = func() time.Time { return time.Date(2026, 9, 28, 12, 0, 0, 0, time.UTC) }
	return p
}

func readFile(t *testing.T, dir, rel string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
