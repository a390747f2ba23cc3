package tools

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kontext-dev/kontext/internal/knowledge"

	"github.com/kontext-dev/kontext/internal/gittest"
)

// The secrets below are fake but shaped like real ones, assembled from
// pieces so that this file does not itself look like a leak.
var (
	stripeKey = "sk" + "_live_" + "51Hq8ZkLq2Rv81TbW7xNc5Hy4Mg6Dp0Js8"
	pemKey    = "-----BEGIN RSA " + "PRIVATE KEY-----\n" +
		"MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\n" +
		"VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK\n" +
		"-----END RSA " + "PRIVATE KEY-----\n"
	// pemMaterial is a line of the key that no redaction rule would
	// recognise on its own: it must never be shown at all.
	pemMaterial = "VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u"
)

// secretRepo is a repository whose history holds secret files: a .env
// with a Stripe key, an SSH key and a TLS key added in one commit, a
// private key in an ordinary text file, and a symlink named innocently that
// leads to the .env. It returns the repository, the handlers on it, and
// the commits that added the .env and the keys.
func secretRepo(t *testing.T) (dir string, h *Handlers, envCommit, keysCommit string) {
	t.Helper()
	dir = t.TempDir()
	gittest.Git(t, dir, "init", "-q", "-b", "main")
	gittest.WriteFile(t, dir, "README.md", "# shop\n\nA shop.\n")
	gittest.WriteFile(t, dir, "cmd/app/main.go", "package main\n\nfunc main() { Charge() }\n")
	gittest.WriteFile(t, dir, "billing.go", "package main\n\n// Charge reads STRIPE_SECRET_KEY from the environment.\nfunc Charge() {}\n")
	gittest.Git(t, dir, "add", ".")
	gittest.Git(t, dir, "commit", "-q", "-m", "shop")
	gittest.WriteFile(t, dir, ".env", "STRIPE_SECRET_KEY="+stripeKey+"\nDEBUG=1\n")
	gittest.Git(t, dir, "add", "-f", ".env")
	gittest.Git(t, dir, "commit", "-q", "-m", "configure billing")
	envCommit = revParse(t, dir, "HEAD")
	gittest.WriteFile(t, dir, ".ssh/id_rsa", pemKey)
	gittest.WriteFile(t, dir, "certs/server.key", pemKey)
	gittest.WriteFile(t, dir, "notes/deploy.txt", "how we deploy\n"+pemKey)
	gittest.WriteFile(t, dir, "docs/ops.md", "# Ops\n\nDeploy with make.\n")
	gittest.Git(t, dir, "add", ".")
	gittest.Git(t, dir, "commit", "-q", "-m", "add deploy keys")
	keysCommit = revParse(t, dir, "HEAD")
	if err := os.Symlink("../.env", filepath.Join(dir, "cmd", "settings.txt")); err != nil {
		t.Fatal(err)
	}
	svc := knowledge.NewService(dir)
	svc.Getenv = func(k string) string {
		if k == "KONTEXT_CONFIG_DIR" {
			return filepath.Join(dir, ".no-user-config")
		}
		return ""
	}
	t.Cleanup(func() { svc.Close() })
	return dir, New(svc), envCommit, keysCommit
}

func revParse(t *testing.T, dir, rev string) string {
	t.Helper()
	cmd := exec.Command("git", "rev-parse", rev)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

// call runs a tool of the toolset as the server does: arguments decoded by
// the generated types, defaults applied. It returns the text of the result,
// or of the error.
func call(t *testing.T, h *Handlers, tool string, args map[string]any) (string, bool) {
	t.Helper()
	raw, _ := json.Marshal(args)
	for _, tl := range h.Toolset().Tools {
		if tl.Name != tool {
			continue
		}
		res, err := tl.Call(context.Background(), raw)
		if err != nil {
			return err.Error(), false
		}
		return resultText(t, res), !res.IsError
	}
	t.Fatalf("no tool %s", tool)
	return "", false
}

// leaks fails the test when text shows a secret of secretRepo.
func leaks(t *testing.T, what, text string) {
	t.Helper()
	for _, s := range []string{stripeKey, "sk" + "_live_", pemMaterial, "PRIVATE KEY-----\nMII"} {
		if strings.Contains(text, s) {
			t.Errorf("%s shows a secret (%q):\n%s", what, s, text)
		}
	}
}

// Regression (issue 8.1): ctx_why path:lines ran git blame on .env, under
// every spelling of its path, and printed the key.
func TestWhyNeverBlamesSecretFiles(t *testing.T) {
	_, h, _, _ := secretRepo(t)
	for _, target := range []string{".env:1", "./.env:1", "cmd/app/../../.env:1", " .env:1", ".env:1-2",
		"cmd/settings.txt:1", ".ssh/id_rsa:2", "certs/server.key:1-3", "notes/deploy.txt:2-4"} {
		text, ok := call(t, h, "ctx_why", map[string]any{"target": target})
		if !ok {
			t.Errorf("ctx_why %q failed: %s", target, text)
			continue
		}
		leaks(t, "ctx_why "+target, text)
		if !strings.Contains(text, "secret file left out") {
			t.Errorf("ctx_why %q does not say it left the lines out:\n%s", target, text)
		}
	}
	// An ordinary file is still blamed.
	text, _ := call(t, h, "ctx_why", map[string]any{"target": "billing.go:4"})
	if !strings.Contains(text, "func Charge()") || strings.Contains(text, "left out") {
		t.Errorf("billing.go:4 is not blamed:\n%s", text)
	}
}

// A symbol found by git grep in a secret file is never shown nor blamed
// there.
func TestWhySymbolSkipsSecretFiles(t *testing.T) {
	_, h, _, _ := secretRepo(t)
	text, ok := call(t, h, "ctx_why", map[string]any{"target": "STRIPE_SECRET_KEY"})
	leaks(t, "ctx_why STRIPE_SECRET_KEY", text)
	if !ok || !strings.Contains(text, "billing.go") || !strings.Contains(text, "1 secret file left out: .env") {
		t.Errorf("ctx_why STRIPE_SECRET_KEY:\n%s", text)
	}
	text, ok = call(t, h, "ctx_why", map[string]any{"target": "DEBUG"})
	if ok || !strings.Contains(text, "only in files kontext never reads") {
		t.Errorf("ctx_why DEBUG (only in .env): %v\n%s", ok, text)
	}
}

// ctx_why on a commit lists its files without the secret ones, and says so.
func TestWhyCommitLeavesSecretFilesOut(t *testing.T) {
	_, h, env, keys := secretRepo(t)
	text, _ := call(t, h, "ctx_why", map[string]any{"target": env})
	if strings.Contains(text, "- A .env") || !strings.Contains(text, "1 secret file left out: .env") {
		t.Errorf("ctx_why %s:\n%s", env, text)
	}
	text, _ = call(t, h, "ctx_why", map[string]any{"target": keys})
	if strings.Contains(text, "id_rsa\n") || !strings.Contains(text, "2 secret files left out: .ssh/id_rsa, certs/server.key") ||
		!strings.Contains(text, "- A docs/ops.md") {
		t.Errorf("ctx_why %s:\n%s", keys, text)
	}
}

// Regression (issue 8.1): ctx_read git:<sha> at level 2 printed the whole
// patch of a commit that added PEM keys. Levels 1 and 2 leave the secret
// files out by path (.ssh/id_rsa, certs/server.key) and by what their diff
// holds (a key in notes/deploy.txt), and say which.
func TestReadCommitLeavesSecretFilesOut(t *testing.T) {
	_, h, env, keys := secretRepo(t)
	for level := 1; level <= 2; level++ {
		text, ok := call(t, h, "ctx_read", map[string]any{"uri": "git:" + keys, "level": level})
		if !ok {
			t.Fatalf("level %d: %s", level, text)
		}
		leaks(t, "ctx_read git level "+string(rune('0'+level)), text)
		if !strings.Contains(text, "docs/ops.md") || strings.Contains(text, "server.key |") {
			t.Errorf("level %d lists the wrong files:\n%s", level, text)
		}
		want := "2 secret files left out: .ssh/id_rsa, certs/server.key"
		if level == 2 {
			want = "3 secret files left out: .ssh/id_rsa, certs/server.key, notes/deploy.txt"
			if !strings.Contains(text, "+Deploy with make.") {
				t.Errorf("the patch of docs/ops.md is missing:\n%s", text)
			}
		}
		if !strings.Contains(text, want) {
			t.Errorf("level %d does not say %q:\n%s", level, want, text)
		}
		text, _ = call(t, h, "ctx_read", map[string]any{"uri": "git:" + env, "level": level})
		leaks(t, "ctx_read git:env", text)
		if !strings.Contains(text, "1 secret file left out: .env") || !strings.Contains(text, "configure billing") {
			t.Errorf("level %d of the .env commit:\n%s", level, text)
		}
	}
}

// ctx_read file: refuses secret files by any path that leads to them, and
// files whose content is a key.
func TestReadFileRefusesSecrets(t *testing.T) {
	_, h, _, _ := secretRepo(t)
	for _, uri := range []string{"file:.env", ".env", "./.env", "file: .env", "cmd/app/../../.env", "file:cmd/settings.txt",
		"cmd/settings.txt", "file:.ssh/id_rsa", "file:notes/deploy.txt", "notes/deploy.txt"} {
		text, ok := call(t, h, "ctx_read", map[string]any{"uri": uri, "level": 2})
		leaks(t, "ctx_read "+uri, text)
		if ok || !strings.Contains(text, "kontext never") {
			t.Errorf("ctx_read %q was not refused: %s", uri, text)
		}
	}
	if text, ok := call(t, h, "ctx_read", map[string]any{"uri": "file:billing.go", "level": 2}); !ok || !strings.Contains(text, "func Charge") {
		t.Errorf("billing.go: %s", text)
	}
}

// Search over commits finds a commit by the files it touched, never by a
// secret file's name; a document that is a key is never indexed.
func TestSearchLeavesSecretFilesOut(t *testing.T) {
	dir, h, _, _ := secretRepo(t)
	gittest.WriteFile(t, dir, "docs/rotation.md", "# Rotation\n\nThe quarterly rotation key:\n\n"+pemKey)
	text, _ := call(t, h, "ctx_search", map[string]any{"query": "ops.md"})
	if !strings.Contains(text, "add deploy keys") {
		t.Fatalf("the commit is not found by a file it touched:\n%s", text)
	}
	for _, q := range []string{"certs", "rsa", "ssh", ".env", "quarterly rotation"} {
		text, _ := call(t, h, "ctx_search", map[string]any{"query": q})
		leaks(t, "ctx_search "+q, text)
		if strings.Contains(text, "add deploy keys") || strings.Contains(text, "configure billing") || strings.Contains(text, "docs/rotation.md") {
			t.Errorf("ctx_search %q finds what a secret file holds or names:\n%s", q, text)
		}
	}
}

// The brief quotes the README and the agents' rule files: never a secret
// file behind those names.
func TestBriefNeverQuotesSecretFiles(t *testing.T) {
	dir, h, _, _ := secretRepo(t)
	os.Remove(filepath.Join(dir, "README.md"))
	for _, link := range []string{"README.md", "AGENTS.md"} {
		if err := os.Symlink(".env", filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	gittest.WriteFile(t, dir, "CLAUDE.md", "Keys:\n\n"+pemKey)
	text, ok := call(t, h, "ctx_brief", map[string]any{})
	if !ok {
		t.Fatal(text)
	}
	leaks(t, "ctx_brief", text)
	if strings.Contains(text, "STRIPE_SECRET_KEY") {
		t.Errorf("the brief quotes .env through a symlink:\n%s", text)
	}
}

// storeFiles returns the text of every file under .ai/, joined.
func storeFiles(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	filepath.Walk(filepath.Join(dir, ".ai"), func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			data, _ := os.ReadFile(p)
			b.WriteString("== " + p + "\n" + string(data) + "\n")
		}
		return nil
	})
	return b.String()
}

// Regression (issue 8.3): the bootstrap copied a token in the README's
// first paragraph into overview.md and .ai/README.md, and
// ctx_init_submit wrote what it was given. Both redact every value.
func TestBootstrapAndSubmissionsAreRedacted(t *testing.T) {
	ghToken := "ghp" + "_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5b"
	dir := t.TempDir()
	gittest.Git(t, dir, "init", "-q", "-b", "main")
	gittest.WriteFile(t, dir, "README.md", "# shop\n\nThe shop; deploys use the token "+ghToken+" for now.\n")
	gittest.WriteFile(t, dir, "package.json", `{"name": "shop", "description": "billing with `+stripeKey+`"}`)
	for i, name := range []string{"a", "b", "c", "d"} {
		gittest.WriteFile(t, dir, "src/"+name+".ts", "export const x"+string(rune('0'+i))+" = 1\n")
	}
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
	h := New(svc)
	if text, ok := call(t, h, "ctx_init", map[string]any{"bootstrap": true}); !ok {
		t.Fatal(text)
	}
	files := storeFiles(t, dir)
	if strings.Contains(files, ghToken) || strings.Contains(files, stripeKey) || !strings.Contains(files, "[redacted:") {
		t.Fatalf("the bootstrap copied a secret into the store:\n%s", files)
	}

	text, ok := call(t, h, "ctx_init_submit", map[string]any{"task_id": "purpose",
		"overview": "The shop sells things; the admin password is hunter2-Xk9q.", "summary": "A shop using " + stripeKey})
	if !ok || !strings.Contains(text, "Redacted 2 secret(s)") {
		t.Fatalf("purpose: %s", text)
	}
	files = storeFiles(t, dir)
	for _, s := range []string{stripeKey, "hunter2-Xk9q"} {
		if strings.Contains(files, s) {
			t.Errorf("the purpose submission wrote %q:\n%s", s, files)
		}
	}
	// A skipped task's reason is kept locally: redacted too.
	if text, ok := call(t, h, "ctx_init_submit", map[string]any{"task_id": "mod:.", "skip": true, "reason": "uses " + stripeKey}); !ok || !strings.Contains(text, "Redacted 1") {
		t.Errorf("skip: %s", text)
	}
}

// Every field of a decision and a learning is redacted.
func TestSubmittedDecisionsAreRedacted(t *testing.T) {
	ghToken := "ghp" + "_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5b"
	dir := t.TempDir()
	gittest.Git(t, dir, "init", "-q", "-b", "main")
	gittest.WriteFile(t, dir, "README.md", "# shop\n\nA shop.\n")
	gittest.WriteFile(t, dir, "package.json", `{"name": "shop", "dependencies": {"braintree": "1"}}`)
	gittest.WriteFile(t, dir, "src/pay.ts", "export const pay = 1\n")
	gittest.Git(t, dir, "add", ".")
	gittest.Git(t, dir, "commit", "-q", "-m", "shop")
	for i := range 3 {
		gittest.WriteFile(t, dir, "package.json", `{"name": "shop", "dependencies": {"stripe": "`+string(rune('1'+i))+`"}}`)
		gittest.WriteFile(t, dir, "src/pay.ts", "export const pay = "+string(rune('2'+i))+"\n")
		gittest.Git(t, dir, "commit", "-qam", "refactor!: switch payments from Braintree to Stripe\n\nWe decided to replace Braintree because the fees are lower; this changes refunds and every caller must pass a currency from now on, which is a breaking change for the mobile app and the admin tools alike.")
	}
	svc := knowledge.NewService(dir)
	svc.Getenv = func(k string) string {
		if k == "KONTEXT_CONFIG_DIR" {
			return filepath.Join(dir, ".no-user-config")
		}
		return ""
	}
	t.Cleanup(func() { svc.Close() })
	h := New(svc)
	text, ok := call(t, h, "ctx_init", map[string]any{"bootstrap": true, "count": 5})
	if !ok {
		t.Fatal(text)
	}
	i := strings.Index(text, "dec:")
	if i < 0 {
		t.Fatalf("no decision task:\n%s", text)
	}
	task := strings.Fields(text[i:])[0]
	task = strings.TrimRight(task, ".,:;)`")
	s := " " + stripeKey
	text, ok = call(t, h, "ctx_init_submit", map[string]any{"task_id": task,
		"decisions": []map[string]any{{"title": "Use Stripe" + s, "decision": "Stripe" + s, "summary": "sum" + s, "context": "ctx" + s,
			"consequences": "cons" + s, "paths": []string{"src" + s}, "commits": []string{ghToken}, "tags": []string{"pay" + s}}},
		"learnings": []map[string]any{{"title": "Refunds" + s, "body": "body" + s, "paths": []string{"src/" + ghToken}, "tags": []string{ghToken}}},
	})
	if !ok {
		t.Fatalf("%s: %s", task, text)
	}
	files := storeFiles(t, dir)
	if strings.Contains(files, stripeKey) || strings.Contains(files, ghToken) || !strings.Contains(text, "Redacted 12 secret(s)") {
		t.Errorf("%s\nthe store:\n%s", text, files)
	}
}
