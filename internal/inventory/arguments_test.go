package inventory_test

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/kontext-dev/kontext/gen/protocol"
	"github.com/kontext-dev/kontext/internal/fsroot"
	"github.com/kontext-dev/kontext/internal/gittest"
	"github.com/kontext-dev/kontext/internal/inventory"
	"github.com/kontext-dev/kontext/internal/knowledge/store"
	"github.com/kontext-dev/kontext/internal/mcp"
)

// storeRepo makes a repository whose store holds 60 decisions and one
// entry of every other kind, all about zebras, committed.
func storeRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	git := func(args ...string) { t.Helper(); gittest.Git(t, dir, args...) }
	write := func(rel, text string) { t.Helper(); gittest.WriteFile(t, dir, rel, text) }
	git("init", "-q", "-b", "main")
	write("README.md", "# zoo\n\nA zoo.\n")
	for i := 1; i <= 60; i++ {
		write(fmt.Sprintf(".ai/decisions/2026-01-%02d-zebra-%d.md", i%28+1, i), fmt.Sprintf("---\nkind: decision\ntitle: Zebra rule %d\nstatus: accepted\ndate: 2026-01-%02d\n---\n\n## Decision\n\nZebras are fed at %d.\n", i, i%28+1, i))
	}
	for _, kind := range []string{"convention", "learning", "incident"} {
		write(".ai/"+kind+"s/zebra-"+kind+".md", "---\nkind: "+kind+"\ntitle: Zebra "+kind+"\ndate: 2026-02-01\n---\n\nZebras bite.\n")
	}
	git("add", ".")
	git("commit", "-q", "-m", "The zoo")
	return dir
}

// knowledgeClient serves the knowledge toolset on dir through a real
// in-process session and returns a client of it.
func knowledgeClient(t *testing.T, dir string) *mcp.Client {
	t.Helper()
	t.Setenv("KONTEXT_CONFIG_DIR", t.TempDir())
	root, err := fsroot.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	ts, attach, err := inventory.Knowledge().Open(root)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := mcp.NewServer(mcp.Implementation{Name: "kontext", Version: "test"}, mcp.Options{}, ts)
	if err != nil {
		t.Fatal(err)
	}
	attach(srv)
	serverEnd, clientEnd := mcp.NewInMemoryTransport()
	done := make(chan struct{})
	go func() {
		srv.Serve(context.Background(), serverEnd)
		close(done)
	}()
	c, err := mcp.Connect(context.Background(), clientEnd, mcp.ClientOptions{Info: mcp.Implementation{Name: "t", Version: "1"}, Era: mcp.EraLegacy})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c.Close()
		clientEnd.Close()
		<-done
	})
	return c
}

// call returns a tool's text and whether it is an error.
func call(t *testing.T, c *mcp.Client, tool, args string) (string, bool) {
	t.Helper()
	res, err := c.CallTool(context.Background(), tool, json.RawMessage(args))
	if err != nil {
		t.Fatalf("%s %s: %v", tool, args, err)
	}
	return resultText(res), res.IsError != nil && *res.IsError
}

func resultText(res *protocol.CallToolResult) string {
	var parts []string
	for _, b := range res.Content {
		var block struct{ Text string }
		json.Unmarshal(b, &block)
		parts = append(parts, block.Text)
	}
	return strings.Join(parts, "\n")
}

var hitLine = regexp.MustCompile(`(?m)^\d+\. .* \[(\w+) ·`)

// TestKnowledgeWiderArguments (issue 10.18) calls the knowledge tools on a
// real store with the forms the original accepts: integers as strings of
// digits, limits above their maximum (clamped, with a note — 50 results,
// not a refusal), and the capture's kind aliases in ctx_search and ctx_log.
func TestKnowledgeWiderArguments(t *testing.T) {
	c := knowledgeClient(t, storeRepo(t))

	text, isErr := call(t, c, "ctx_search", `{"query":"zebra","limit":"100","kinds":"adr","budget_tokens":"20000"}`)
	if isErr {
		t.Fatalf("ctx_search with limit \"100\": %s", text)
	}
	hits := hitLine.FindAllStringSubmatch(text, -1)
	if len(hits) != 50 || !strings.HasSuffix(text, "Note: limit 100 is more than its maximum of 50, so 50 was used.") {
		t.Errorf("limit 100 gave %d hits, want the maximum of 50 and a note:\n%s", len(hits), text)
	}
	for _, h := range hits {
		if h[1] != "decision" {
			t.Errorf("kinds adr found a %s", h[1])
		}
	}
	if text, _ := call(t, c, "ctx_search", `{"query":"zebra","limit":"3"}`); len(hitLine.FindAllString(text, -1)) != 3 || strings.Contains(text, "Note:") {
		t.Errorf("limit \"3\":\n%s", text)
	}

	// Every alias the schema advertises finds only the kind the store
	// resolves it to — the spec's aliases and the store's agree.
	aliases := searchKindAliases(t, c)
	if len(aliases) != 9 {
		t.Fatalf("ctx_search advertises the aliases %v, want the nine of ctx_capture", aliases)
	}
	for _, alias := range aliases {
		want, _, ok := store.NormalizeKind(alias, nil)
		if !ok {
			t.Errorf("the store does not know the alias %s", alias)
			continue
		}
		for _, form := range []string{`"` + alias + `"`, `["` + alias + `"]`, `"doc, ` + alias + `"`} {
			text, isErr := call(t, c, "ctx_search", `{"query":"zebra","kinds":`+form+`}`)
			found := hitLine.FindAllStringSubmatch(text, -1)
			if isErr || len(found) == 0 {
				t.Errorf("kinds %s: %s", form, text)
			}
			for _, h := range found {
				if h[1] != want {
					t.Errorf("kinds %s found a %s, want only %s", form, h[1], want)
				}
			}
		}
	}

	// ctx_log: the kind aliases (the store resolves them) and a clamped limit.
	text, _ = call(t, c, "ctx_log", `{"kind":"adr","limit":"2"}`)
	if lines := strings.Count(text, "Zebra rule"); lines != 2 || !strings.Contains(text, "(+58 more") {
		t.Errorf("ctx_log kind adr limit \"2\":\n%s", text)
	}
	text, _ = call(t, c, "ctx_log", `{"kind":"gotcha","limit":5000}`)
	if !strings.Contains(text, "Zebra learning") || !strings.HasSuffix(text, "Note: limit 5000 is more than its maximum of 1000, so 1000 was used.") {
		t.Errorf("ctx_log kind gotcha limit 5000:\n%s", text)
	}
	text, isErr = call(t, c, "ctx_read", `{"uri":"kx:2026-01-02-zebra-1","level":"0"}`)
	if isErr || strings.Count(text, "\n") > 1 || !strings.Contains(text, "Zebra rule 1") {
		t.Errorf("ctx_read level \"0\" (one line):\n%s", text)
	}
	text, isErr = call(t, c, "ctx_why", `{"target":"README.md","limit":"1000"}`)
	if isErr || !strings.HasSuffix(text, "Note: limit 1000 is more than its maximum of 100, so 100 was used.") {
		t.Errorf("ctx_why limit \"1000\":\n%s", text)
	}
}

// TestKnowledgeInvalidArgumentsAreResults (issue 10.17): what fails the
// schema, and what a handler refuses, is a tool result with isError naming
// the parameter; the tool does not run (nothing is captured).
func TestKnowledgeInvalidArgumentsAreResults(t *testing.T) {
	dir := storeRepo(t)
	c := knowledgeClient(t, dir)
	cases := map[string]string{
		`ctx_search {"limit":5}`:                                "Invalid arguments for ctx_search: query: missing (required).",
		`ctx_search {"query":"zebra","kinds":"decision,adrs"}`:  `kinds[1]: must be one of decision, convention`,
		`ctx_search {"query":"zebra","kinds":["recipe"]}`:       `kinds[0]: must be one of decision, convention`,
		`ctx_search {"query":"zebra","sources":"wiki"}`:         `sources: unknown source "wiki"`,
		`ctx_capture {"kind":"decision","title":"","body":"b"}`: "Invalid arguments for ctx_capture: title: must not be empty.",
		`ctx_capture {"kind":"decision","title":"t","body":"b","tags":"a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p,q,r,s,t,u,v,w,x,y,z,a1,b1,c1,d1,e1,f1,g1,h1,i1,j1,k1,l1,m1,n1,o1,p1,q1,r1,s1,t1,u1,v1,w1,x1,y1"}`: "tags: takes at most 50 items, got 51",
		`ctx_brief {"budget_tokens":"lots"}`: `budget_tokens: must be an integer or a string of digits, got "lots"`,
		`ctx_init {"count":0}`:               "count: must be at least 1, got 0",
	}
	for req, want := range cases {
		tool, args, _ := strings.Cut(req, " ")
		text, isErr := call(t, c, tool, args)
		if !isErr || !strings.Contains(text, want) || !strings.Contains(text, tool+" did not run") {
			t.Errorf("%s: isError=%v %q, want isError naming %q", req, isErr, text, want)
		}
	}
	if inbox, _ := call(t, c, "ctx_inbox", `{}`); !strings.Contains(inbox, "empty") {
		t.Errorf("a refused capture reached the inbox:\n%s", inbox)
	}
	// An unknown tool stays a protocol error.
	if _, err := c.CallTool(context.Background(), "ctx_nope", json.RawMessage(`{}`)); err == nil || !strings.Contains(err.Error(), "-32602") && !strings.Contains(err.Error(), "Invalid params") {
		t.Errorf("an unknown tool: %v, want -32602", err)
	}
}

// searchKindAliases reads the aliases ctx_search advertises: the values of
// its kinds enum that are not kinds of its own.
func searchKindAliases(t *testing.T, c *mcp.Client) []string {
	t.Helper()
	tools, err := c.ListTools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools {
		if tool.Name != "ctx_search" {
			continue
		}
		var s struct {
			Properties struct {
				Kinds struct {
					AnyOf []struct {
						Items struct {
							Enum []string `json:"enum"`
						} `json:"items"`
					} `json:"anyOf"`
				} `json:"kinds"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(tool.InputSchema, &s); err != nil {
			t.Fatal(err)
		}
		own := []string{"decision", "convention", "learning", "incident", "architecture", "doc", "commit"}
		var out []string
		for _, v := range s.Properties.Kinds.AnyOf[0].Items.Enum {
			if !slices.Contains(own, v) {
				out = append(out, v)
			}
		}
		return out
	}
	t.Fatal("ctx_search is not listed")
	return nil
}
