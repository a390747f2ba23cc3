package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	spec "github.com/kontext-dev/kontext/gen/toolsets/knowledge"
	"github.com/kontext-dev/kontext/internal/gittest"
	"github.com/kontext-dev/kontext/internal/knowledge"
)

// The test binary doubles as the program a command adapter runs when
// KONTEXT_TOOLS_HELPER is set: "brief <focus>" prints a section, "history
// <target>" prints JSON lines of hits, "sleep" hangs, "write <file>"
// copies its input to the file.
func TestMain(m *testing.M) {
	if os.Getenv("KONTEXT_TOOLS_HELPER") != "" {
		toolsHelper(os.Args[1:])
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func toolsHelper(args []string) {
	switch args[0] {
	case "brief":
		fmt.Printf("Last session: worked on %s.\nOpen question: the refund window.\n", strings.Join(args[1:], " "))
	case "history", "code":
		for i, a := range []string{"first", "second"} {
			b, _ := json.Marshal(map[string]any{"title": fmt.Sprintf("%s %s of %s", args[0], a, args[1]), "snippet": "from the archive", "uri": fmt.Sprintf("arch://%d", i)})
			fmt.Println(string(b))
		}
	case "sleep":
		time.Sleep(time.Minute)
	case "write":
		data, _ := io.ReadAll(os.Stdin)
		_ = os.WriteFile(args[1], data, 0o600)
	}
}

// adapterService is a repository whose user configuration declares
// adapters (toml, with BIN for the test binary).
func adapterService(t *testing.T, toml string) (string, *Handlers) {
	t.Helper()
	dir := t.TempDir()
	gittest.Git(t, dir, "init", "-q", "-b", "main")
	gittest.WriteFile(t, dir, "README.md", "# shop\n\nA shop.\n")
	gittest.WriteFile(t, dir, "src/api.go", "package src\n\nfunc Refund() {}\n")
	gittest.WriteFile(t, dir, ".ai/kontext.toml", "[brief]\nbudget_tokens = 1400\n")
	gittest.Git(t, dir, "add", ".")
	gittest.Git(t, dir, "commit", "-q", "-m", "shop")
	user := t.TempDir()
	bin, _ := json.Marshal(os.Args[0])
	if err := os.WriteFile(filepath.Join(user, "config.toml"), []byte(strings.ReplaceAll(toml, "BIN", string(bin))), 0o600); err != nil {
		t.Fatal(err)
	}
	svc := knowledge.NewService(dir)
	svc.Getenv = func(k string) string {
		if k == "KONTEXT_CONFIG_DIR" {
			return user
		}
		return ""
	}
	t.Cleanup(func() { svc.Close() })
	h := New(svc)
	t.Cleanup(h.WaitEvents)
	return dir, h
}

const archiveAdapter = `
[adapters.archive]
driver = "command"
env = { KONTEXT_TOOLS_HELPER = "1" }

[adapters.archive.ops.brief]
command = [BIN, "brief", "{{query}}"]
format = "text"

[adapters.archive.ops.history]
command = [BIN, "history", "{{target}}"]
format = "jsonl"
map = { title = "title", snippet = "snippet", uri = "uri" }

[adapters.archive.ops.code]
command = [BIN, "code", "{{query}}"]
format = "jsonl"
map = { title = "title", snippet = "snippet", uri = "uri" }
`

const slowAdapter = `
[adapters.slow]
driver = "command"
env = { KONTEXT_TOOLS_HELPER = "1" }
timeout_ms = 300

[adapters.slow.ops.brief]
command = [BIN, "sleep"]
format = "text"

[adapters.slow.ops.history]
command = [BIN, "sleep"]
format = "jsonl"
`

func TestBriefAdapters(t *testing.T) {
	_, h := adapterService(t, archiveAdapter+slowAdapter)
	ctx := context.Background()
	call := func(adapters bool) (string, time.Duration) {
		in := &spec.CtxBriefInput{}
		in.ApplyDefaults()
		in.Adapters = adapters
		in.Focus = []string{"billing"}
		start := time.Now()
		res, err := h.CtxBrief(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		return resultText(t, res), time.Since(start)
	}
	text, took := call(true)
	if !strings.Contains(text, "## From archive\nLast session: worked on billing.\nOpen question: the refund window.\n") {
		t.Fatalf("no archive section:\n%s", text)
	}
	if strings.Index(text, "## From archive") > strings.Index(text, "## State") {
		t.Fatalf("the adapter's section is not before State:\n%s", text)
	}
	if !strings.Contains(text, "Note: ") || !strings.Contains(text, "slow") || strings.Contains(text, "## From slow") {
		t.Fatalf("the hanging adapter is not a note:\n%s", text)
	}
	if took > 5*time.Second {
		t.Fatalf("the hanging adapter delayed the brief: %s", took)
	}
	if text, _ := call(false); strings.Contains(text, "From archive") || strings.Contains(text, "slow") {
		t.Fatalf("adapters: false asked the adapters:\n%s", text)
	}
	rc, err := h.ReadBrief(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(rc.Text, "From archive") || strings.Contains(rc.Text, "slow") {
		t.Fatalf("kontext://brief has adapter sections:\n%s", rc.Text)
	}
}

// An adapter's section takes at most a third of the room.
func TestBriefAdapterShare(t *testing.T) {
	_, h := adapterService(t, archiveAdapter)
	in := &spec.CtxBriefInput{}
	in.ApplyDefaults()
	budget := 120
	in.BudgetTokens = &budget
	in.Focus = []string{strings.Repeat("billing ", 200)}
	res, err := h.CtxBrief(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	text := resultText(t, res)
	_, sec, ok := strings.Cut(text, "## From archive\n")
	if !ok {
		t.Fatalf("no archive section:\n%s", text)
	}
	sec, _, _ = strings.Cut(sec, "\n## ")
	if len(sec) > budget*charsPerToken/3 {
		t.Fatalf("the section takes %d characters of %d:\n%s", len(sec), budget*charsPerToken, text)
	}
}

func TestWhyAdapters(t *testing.T) {
	_, h := adapterService(t, archiveAdapter+slowAdapter)
	ctx := context.Background()
	why := func(target string) string {
		in := &spec.CtxWhyInput{Target: target}
		in.ApplyDefaults()
		start := time.Now()
		res, err := h.CtxWhy(ctx, in)
		if err != nil {
			t.Fatal(err)
		}
		if took := time.Since(start); took > 5*time.Second {
			t.Fatalf("the hanging adapter delayed ctx_why: %s", took)
		}
		return resultText(t, res)
	}
	text := why("src/api.go")
	if !strings.Contains(text, "## From archive (history)\n1. history first of src/api.go — from the archive <arch://0>\n2. history second") {
		t.Fatalf("no history section:\n%s", text)
	}
	if !strings.Contains(text, "Note: ") || !strings.Contains(text, "slow") {
		t.Fatalf("the hanging adapter is not a note:\n%s", text)
	}
	if text := why("src/api.go:3"); !strings.Contains(text, "history first of src/api.go:3") {
		t.Fatalf("no history section for lines:\n%s", text)
	}
	text = why("Refund")
	code, hist := strings.Index(text, "## From archive (code)\n1. code first of Refund"), strings.Index(text, "## From archive (history)\n1. history first of Refund")
	if code < 0 || hist < code || strings.Count(text, "## From archive (history)") != 1 {
		t.Fatalf("a symbol: want code then history, once:\n%s", text)
	}
	// A symbol the repository does not have, but an adapter knows.
	if text := why("ElsewhereOnly"); !strings.Contains(text, "code first of ElsewhereOnly") {
		t.Fatalf("no code section:\n%s", text)
	}
}

func TestEventsReachAdapters(t *testing.T) {
	out := filepath.Join(t.TempDir(), "delivered")
	promoted := out + ".promoted"
	_, h := adapterService(t, `
[adapters.mirror]
driver = "command"
env = { KONTEXT_TOOLS_HELPER = "1" }

[adapters.mirror.ops.store]
command = [BIN, "write", "`+out+`"]
stdin = "{{visibility}} {{kind}}: {{title}}"

[adapters.mirror.ops.keep]
command = [BIN, "write", "`+promoted+`"]
stdin = "{{id}} {{title}}"

[[adapters.mirror.on]]
event = "capture"
op = "store"

[[adapters.mirror.on]]
event = "promote"
op = "keep"
`)
	ctx := context.Background()
	in := &spec.CtxCaptureInput{Kind: "learning", Title: "Refunds need the order id", Body: "Always pass it."}
	res, err := h.CtxCapture(ctx, in)
	if err != nil {
		t.Fatal(err)
	}
	h.WaitEvents()
	got, err := os.ReadFile(out)
	if err != nil || string(got) != "team learning: Refunds need the order id" {
		t.Fatalf("capture delivered %q %v (%s)", got, err, resultText(t, res))
	}
	id := strings.Fields(strings.TrimPrefix(resultText(t, res), "Captured to the inbox as inbox:"))[0]
	if _, err := h.CtxPrepareCommit(ctx, &spec.CtxPrepareCommitInput{Promote: []string{id}}); err != nil {
		t.Fatal(err)
	}
	h.WaitEvents()
	got, err = os.ReadFile(promoted)
	if err != nil || !strings.HasSuffix(string(got), " Refunds need the order id") {
		t.Fatalf("promote delivered %q %v", got, err)
	}
}
