package benchrepo

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestGenerate(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "repo")
	st, err := Generate(context.Background(), dir, Options{Commits: 40, Entries: 20, Docs: 70})
	if err != nil {
		t.Fatal(err)
	}
	if st.Commits != 40 || st.Entries != 20 || st.Docs != 70 {
		t.Fatalf("%+v", st)
	}
	out, err := exec.Command("git", "-C", dir, "rev-list", "--count", "HEAD").Output()
	if err != nil || strings.TrimSpace(string(out)) != "40" {
		t.Fatalf("rev-list: %q %v", out, err)
	}
	out, err = exec.Command("git", "-C", dir, "status", "--porcelain").Output()
	if err != nil || len(out) != 0 {
		t.Fatalf("the work tree is checked out clean: %q %v", out, err)
	}
	decisions, _ := filepath.Glob(filepath.Join(dir, ".ai", "decisions", "*.md"))
	if len(decisions) != 8 {
		t.Fatalf("%d decisions", len(decisions))
	}
	data, err := os.ReadFile(decisions[0])
	if err != nil || !strings.HasPrefix(string(data), "---\nid: ") || !strings.Contains(string(data), "\n## Decision\n") {
		t.Fatalf("entry format: %q %v", data, err)
	}

	// The same options give the same repository.
	again := filepath.Join(t.TempDir(), "again")
	if _, err := Generate(context.Background(), again, Options{Commits: 40, Entries: 20, Docs: 70}); err != nil {
		t.Fatal(err)
	}
	a, _ := exec.Command("git", "-C", dir, "rev-parse", "HEAD^{tree}").Output()
	b, _ := exec.Command("git", "-C", again, "rev-parse", "HEAD^{tree}").Output()
	if string(a) != string(b) {
		t.Errorf("trees differ: %s vs %s", a, b)
	}
}
