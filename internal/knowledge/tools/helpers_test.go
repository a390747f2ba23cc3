package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kontext-dev/kontext/internal/gittest"
	"github.com/kontext-dev/kontext/internal/mcp"

	"github.com/kontext-dev/kontext/internal/knowledge"
)

// openTest opens the knowledge of a new repository with one commit.
func openTest(t *testing.T) (string, *knowledge.Opened) {
	t.Helper()
	dir, _, o := openTestService(t)
	return dir, o
}

// openTestService is openTest with the service that opened the store.
func openTestService(t *testing.T) (string, *knowledge.Service, *knowledge.Opened) {
	t.Helper()
	dir := t.TempDir()
	gittest.Git(t, dir, "init", "-q", "-b", "main")
	gittest.WriteFile(t, dir, "README.md", "# shop\n\nA shop.\n")
	gittest.WriteFile(t, dir, "src/api.go", "package src\n")
	gittest.Git(t, dir, "add", ".")
	gittest.Git(t, dir, "commit", "-q", "-m", "shop")
	svc := knowledge.NewService(dir)
	svc.Getenv = func(k string) string {
		if k == "KONTEXT_CONFIG_DIR" {
			return filepath.Join(dir, ".no-user-config")
		}
		return ""
	}
	t.Cleanup(func() { svc.Close() })
	o, err := svc.Open(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return dir, svc, o
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
