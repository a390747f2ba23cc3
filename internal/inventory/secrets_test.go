package inventory_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/kontext-dev/kontext/internal/fsroot"
	"github.com/kontext-dev/kontext/internal/gittest"
	"github.com/kontext-dev/kontext/internal/inventory"
	"github.com/kontext-dev/kontext/internal/mcp"
	"github.com/kontext-dev/kontext/internal/secrets/secretstest"
)

// TestSecretScripts drives a real kontext mcp process (and the verbs) on a
// repository full of secrets: secret files, keys in a commit, tokens in a
// tracked file, the README and a commit subject. The secrets are written
// by the secretrepo command, so that no file of this repository holds one.
func TestSecretScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/secrets",
		Setup: func(env *testscript.Env) error {
			env.Setenv("KONTEXT_CONFIG_DIR", env.WorkDir+"/.userconfig")
			env.Setenv("HOME", env.WorkDir)
			gittest.Setenv(env.Setenv)
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){"secretrepo": secretRepo},
	})
}

// The secrets of the repository secretrepo makes.
var (
	stripeKey   = "sk" + "_live_" + "51Hq8ZkLq2Rv81TbW7xNc5Hy4Mg6Dp0Js8"
	githubToken = "ghp" + "_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5b"
	slackToken  = "xoxb" + "-" + "2848296491-4839201948-Zk39fLq2Rv81TbW7xNc5Hy4M"
	pemKey      = "-----BEGIN RSA " + "PRIVATE KEY-----\n" + secretstest.PEMBody + "-----END RSA " + "PRIVATE KEY-----\n"
)

// secretRepo makes, in the script's work directory, a repository of four
// commits: a shop whose README and src/config.ts hold tokens; a .env with
// a Stripe key; deploy keys (.ssh/id_rsa, certs/server.key, a key in
// notes/deploy.txt); and a commit whose subject holds a token.
func secretRepo(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 0 {
		ts.Fatalf("usage: secretrepo")
	}
	dir := ts.Getenv("WORK")
	git := func(args ...string) {
		cmd := gittest.Command(dir, append(gittest.Ada(), "HOME="+ts.Getenv("HOME")), args...)
		if out, err := cmd.CombinedOutput(); err != nil {
			ts.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write := func(rel, text string) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		ts.Check(os.MkdirAll(filepath.Dir(p), 0o755))
		ts.Check(os.WriteFile(p, []byte(text), 0o644))
	}
	git("init", "-q", "-b", "main")
	write("README.md", "# shop\n\nThe shop. CI posts with the Slack token "+slackToken+" for now.\n")
	write("package.json", `{"name": "shop", "version": "1.0.0"}`+"\n")
	write("src/config.ts", "// the deploy bot\nexport const token = \""+githubToken+"\";\nexport const region = \"eu\";\n")
	write("src/app.ts", "import { region } from './config';\nexport const where = region;\n")
	git("add", ".")
	git("commit", "-q", "-m", "shop")
	write(".env", "STRIPE_SECRET_KEY="+stripeKey+"\n")
	git("add", "-f", ".env")
	git("commit", "-q", "-m", "configure billing")
	write(".ssh/id_rsa", pemKey)
	write("certs/server.key", pemKey)
	write("notes/deploy.txt", "how we deploy\n"+pemKey)
	write("docs/ops.md", "# Ops\n\nDeploy with make.\n")
	git("add", ".")
	git("commit", "-q", "-m", "add deploy keys")
	git("commit", "-q", "--allow-empty", "-m", "rotate the bot token, was "+githubToken)
	ts.Check(os.Symlink("../.env", filepath.Join(dir, "src", "settings.txt")))
	ts.Setenv("SECRETS", strings.Join([]string{stripeKey, githubToken, slackToken, "VTLw7onLRnrq0"}, "|"))
}

// Every secret of the corpus (the rules' seed cases and the prose forms)
// comes back [redacted:<rule>] from any tool, as text and as structured
// content, through the filter kontext mcp uses; text without one comes
// back unchanged.
func TestOutputFilterCorpus(t *testing.T) {
	root, err := fsroot.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cases := secretstest.Positives()
	negatives := secretstest.Negatives()
	object := json.RawMessage(`{"type":"object","additionalProperties":false}`)
	ts := &mcp.Toolset{Name: "corpus", Tools: []*mcp.Tool{
		{Name: "text", InputSchema: object, Call: func(context.Context, json.RawMessage) (*mcp.ToolResult, error) {
			var blocks []json.RawMessage
			for _, c := range cases {
				blocks = append(blocks, mcp.TextBlock(c.Text))
			}
			for _, n := range negatives {
				blocks = append(blocks, mcp.TextBlock(n))
			}
			return &mcp.ToolResult{Content: blocks}, nil
		}},
		{Name: "structured", InputSchema: object, Call: func(context.Context, json.RawMessage) (*mcp.ToolResult, error) {
			var texts []string
			for _, c := range cases {
				texts = append(texts, c.Text)
			}
			return mcp.StructuredResult(map[string]any{"secrets": texts, "plain": negatives})
		}},
	}}
	srv, err := mcp.NewServer(mcp.Implementation{Name: "kontext", Version: "test"}, mcp.Options{OutputFilter: inventory.SecretFilter(root)}, ts)
	if err != nil {
		t.Fatal(err)
	}
	serverEnd, clientEnd := mcp.NewInMemoryTransport()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go srv.Serve(ctx, serverEnd)
	client, err := mcp.Connect(ctx, clientEnd, mcp.ClientOptions{Info: mcp.Implementation{Name: "t", Version: "1"}, Era: mcp.EraLegacy})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()

	res, err := client.CallTool(ctx, "text", map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	redacted := 0
	for i, block := range res.Content {
		var b struct{ Text string }
		if err := json.Unmarshal(block, &b); err != nil {
			t.Fatal(err)
		}
		if i < len(cases) {
			c := cases[i]
			if strings.Contains(b.Text, "[redacted:"+c.Rule+"]") {
				redacted++
			} else {
				t.Errorf("%s comes back as %q", c.Name, b.Text)
			}
		} else if n := negatives[i-len(cases)]; b.Text != n {
			t.Errorf("%q comes back as %q", n, b.Text)
		}
	}
	res, err = client.CallTool(ctx, "structured", map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Secrets []string `json:"secrets"`
		Plain   []string `json:"plain"`
	}
	if err := json.Unmarshal(res.StructuredContent, &got); err != nil {
		t.Fatal(err)
	}
	var mirror struct{ Text string }
	json.Unmarshal(res.Content[0], &mirror)
	if mirror.Text != string(res.StructuredContent) {
		t.Errorf("the text block no longer mirrors the structured content")
	}
	for i, c := range cases {
		if !strings.Contains(got.Secrets[i], "[redacted:"+c.Rule+"]") {
			t.Errorf("structured %s comes back as %q", c.Name, got.Secrets[i])
		}
	}
	if strings.Join(got.Plain, "\n") != strings.Join(negatives, "\n") {
		t.Errorf("plain texts changed: %q", got.Plain)
	}
	t.Logf("%d of %d corpus secrets redacted on the way out (text and structured); %d plain texts unchanged", redacted, len(cases), len(negatives))
}
