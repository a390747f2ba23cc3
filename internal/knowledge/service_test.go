package knowledge

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/kontext-dev/kontext/internal/mcp"
	"github.com/kontext-dev/kontext/internal/textclip"
)

func gitCmd(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=T", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func writeFile(t *testing.T, dir, rel, text string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// openTest opens the knowledge of a new repository with one commit.
func openTest(t *testing.T) (string, *opened) {
	t.Helper()
	dir, _, o := openTestService(t)
	return dir, o
}

// openTestService is openTest with the service that opened the store.
func openTestService(t *testing.T) (string, *Service, *opened) {
	t.Helper()
	dir := t.TempDir()
	gitCmd(t, dir, "init", "-q", "-b", "main")
	writeFile(t, dir, "README.md", "# shop\n\nA shop.\n")
	writeFile(t, dir, "src/api.go", "package src\n")
	gitCmd(t, dir, "add", ".")
	gitCmd(t, dir, "commit", "-q", "-m", "shop")
	svc := NewService(dir)
	svc.getenv = func(k string) string {
		if k == "KONTEXT_CONFIG_DIR" {
			return filepath.Join(dir, ".no-user-config")
		}
		return ""
	}
	t.Cleanup(func() { svc.Close() })
	o, err := svc.open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return dir, svc, o
}

// Concurrent first searches (the MCP server answers tools/call requests
// in parallel) share one index: none is opened twice and left unclosed.
func TestSearchIndexIsOpenedOnce(t *testing.T) {
	_, o := openTest(t)
	const n = 8
	got := make([]any, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ix, err := o.searchIndex(context.Background())
			if err != nil {
				t.Error(err)
				return
			}
			got[i] = ix
		}()
	}
	wg.Wait()
	for i := range got {
		if got[i] != got[0] {
			t.Fatalf("call %d got another index than call 0", i)
		}
	}
}

// With nothing staged, the working tree's changes are the modified and the
// untracked files, and only the latter are marked untracked.
func TestChangedPaths(t *testing.T) {
	ctx := context.Background()
	dir, o := openTest(t)
	writeFile(t, dir, "src/api.go", "package src\n\nvar x = 1\n")
	writeFile(t, dir, "src/new.go", "package src\n")
	changed, untracked, staged, err := changedPaths(ctx, o.git)
	if err != nil {
		t.Fatal(err)
	}
	if staged || !slices.Equal(changed, []string{"src/api.go", "src/new.go"}) || len(untracked) != 1 || !untracked["src/new.go"] {
		t.Errorf("work tree: changed %v, untracked %v, staged %v", changed, untracked, staged)
	}
	gitCmd(t, dir, "add", "src/new.go")
	changed, untracked, staged, err = changedPaths(ctx, o.git)
	if err != nil {
		t.Fatal(err)
	}
	if !staged || !slices.Equal(changed, []string{"src/new.go"}) || len(untracked) != 0 {
		t.Errorf("staged: changed %v, untracked %v, staged %v", changed, untracked, staged)
	}
}

// Clipped text stays valid UTF-8, even without a space to cut at (CJK).
func TestClippingKeepsCharactersWhole(t *testing.T) {
	cjk := strings.Repeat("決定", 200) // 3 bytes a character, no spaces
	for name, got := range map[string]string{
		"oneParagraph":    oneParagraph(cjk, 100),
		"firstLine":       firstLine(cjk),
		"clip":            clip(cjk, 100, "hint"),
		"textclip.Prefix": textclip.Prefix(cjk, 100),
	} {
		if !utf8.ValidString(got) {
			t.Errorf("%s cut a character: %q", name, got)
		}
		if len(got) >= len(cjk) {
			t.Errorf("%s did not clip: %d bytes", name, len(got))
		}
	}
	if got := textclip.Prefix("abc", 2); got != "ab" {
		t.Errorf("textclip.Prefix(abc, 2) = %q", got)
	}
	if got := textclip.Prefix("abc", 5); got != "abc" {
		t.Errorf("textclip.Prefix(abc, 5) = %q", got)
	}
}

// A symbol is looked up as text: the dot in app.config matches a dot only.
func TestWhySymbolIsText(t *testing.T) {
	ctx := context.Background()
	dir, o := openTest(t)
	writeFile(t, dir, "a.js", "appXconfig = 1\n")
	writeFile(t, dir, "z.js", "app.config = 2\n")
	gitCmd(t, dir, "add", ".")
	gitCmd(t, dir, "commit", "-q", "-m", "config")
	res, err := (&why{o: o, limit: 5}).symbol(ctx, "app.config")
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	for _, c := range res.Content {
		text.Write(c)
	}
	if got := text.String(); !strings.Contains(got, "app.config is defined at z.js:1") || !strings.Contains(got, "0 other line(s) mention it") {
		t.Errorf("ctx_why app.config:\n%s", got)
	}
}

// resultText is the text of a tool result's blocks.
func resultText(t *testing.T, res *mcp.ToolResult) string {
	t.Helper()
	var parts []string
	for _, c := range res.Content {
		var block struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if err := json.Unmarshal(c, &block); err != nil {
			t.Fatal(err)
		}
		parts = append(parts, block.Text)
	}
	return strings.Join(parts, "\n")
}

func readText(t *testing.T, dir, rel string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
