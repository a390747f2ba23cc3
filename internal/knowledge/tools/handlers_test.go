package tools

import (
	"context"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/kontext-dev/kontext/internal/gittest"
	"github.com/kontext-dev/kontext/internal/textclip"

	"github.com/kontext-dev/kontext/internal/knowledge"
)

// With nothing staged, the working tree's changes are the modified and the
// untracked files, and only the latter are marked untracked.
func TestChangedPaths(t *testing.T) {
	ctx := context.Background()
	dir, o := openTest(t)
	gittest.WriteFile(t, dir, "src/api.go", "package src\n\nvar x = 1\n")
	gittest.WriteFile(t, dir, "src/new.go", "package src\n")
	changed, untracked, staged, err := changedPaths(ctx, o.Git)
	if err != nil {
		t.Fatal(err)
	}
	if staged || !slices.Equal(changed, []string{"src/api.go", "src/new.go"}) || len(untracked) != 1 || !untracked["src/new.go"] {
		t.Errorf("work tree: changed %v, untracked %v, staged %v", changed, untracked, staged)
	}
	gittest.Git(t, dir, "add", "src/new.go")
	changed, untracked, staged, err = changedPaths(ctx, o.Git)
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
		"oneParagraph":    knowledge.OneParagraph(cjk, 100),
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
	gittest.WriteFile(t, dir, "a.js", "appXconfig = 1\n")
	gittest.WriteFile(t, dir, "z.js", "app.config = 2\n")
	gittest.Git(t, dir, "add", ".")
	gittest.Git(t, dir, "commit", "-q", "-m", "config")
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
