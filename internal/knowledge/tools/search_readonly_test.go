package tools

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	spec "github.com/kontext-dev/kontext/gen/toolsets/knowledge"

	"github.com/kontext-dev/kontext/internal/knowledge"
)

// Without write access to .git/kontext, ctx_search failed: the index could
// not be made. It now lives under the user's cache directory, and the
// first search says so once.
func TestSearchWorksWithoutWriteAccessToGitKontext(t *testing.T) {
	for _, how := range []struct {
		name  string
		block func(t *testing.T, stateDir string)
	}{
		{"not a directory", func(t *testing.T, stateDir string) {
			// A file where the index directory would be made.
			if err := os.MkdirAll(stateDir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(stateDir, "worktrees"), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}},
		{"read-only", func(t *testing.T, stateDir string) {
			if err := os.MkdirAll(stateDir, 0o755); err != nil {
				t.Fatal(err)
			}
			if os.Geteuid() != 0 {
				if err := os.Chmod(stateDir, 0o555); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { os.Chmod(stateDir, 0o755) })
				return
			}
			// Permissions do not stop root; an immutable directory does.
			if out, err := exec.Command("chattr", "+i", stateDir).CombinedOutput(); err != nil {
				t.Skipf("running as root and chattr +i is not available here (%v: %s): the not-a-directory case covers the fallback", err, out)
			}
			t.Cleanup(func() { exec.Command("chattr", "-i", stateDir).Run() })
		}},
	} {
		t.Run(how.name, func(t *testing.T) {
			cache := t.TempDir()
			t.Setenv("XDG_CACHE_HOME", cache)
			dir, _ := openTest(t)
			how.block(t, filepath.Join(dir, ".git", "kontext"))
			svc := knowledge.NewService(dir)
			svc.Getenv = func(string) string { return "" }
			t.Cleanup(func() { svc.Close() })
			h := New(svc)
			search := func() string {
				res, err := h.CtxSearch(context.Background(), &spec.CtxSearchInput{Query: "shop", Limit: 10, BudgetTokens: 1000})
				if err != nil {
					t.Fatalf("ctx_search without write access to .git/kontext: %v", err)
				}
				var block struct{ Text string }
				json.Unmarshal(res.Content[0], &block)
				return block.Text
			}
			first := search()
			if !strings.Contains(first, "shop") || !strings.Contains(first, "Note: ") || !strings.Contains(first, "is not writable") || !strings.Contains(first, cache) {
				t.Errorf("first search:\n%s", first)
			}
			if second := search(); strings.Contains(second, "Note: ") || !strings.Contains(second, "shop") {
				t.Errorf("the note came twice, or the second search found nothing:\n%s", second)
			}
			matches, _ := filepath.Glob(filepath.Join(cache, "kontext", "index", "*", "index-v*.db"))
			if len(matches) != 1 {
				t.Errorf("no index under the user cache directory: %v", matches)
			}
		})
	}
}
