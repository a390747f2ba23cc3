package interop_test

// The seed's real-client check of the repo toolset: clients written by
// someone else (the official Go SDK, and the TypeScript SDK v1 through
// testdata/node/repo-check.mjs) drive `kontext mcp --toolsets repo` over stdio
// against real repositories — a layered TypeScript fixture made here, and
// kontext's own — and every message the server writes is validated against
// the official schema of the negotiated revision.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/kontext-dev/kontext/internal/gittest"
)

// repoTools are the repo toolset's tools, sorted.
var repoTools = []string{
	"explain_module", "get_architecture", "get_change_impact", "get_context_for_task", "get_conventions", "get_decisions",
	"get_dependencies", "get_dependents", "get_module_history", "get_repository_context", "get_revision_diff",
	"get_revision_snapshot", "search_context",
}

// repoScriptChecks are the checks testdata/node/repo-check.mjs must report.
var repoScriptChecks = []string{
	"handshake",
	"tools/list",
	"call get_repository_context",
	"call get_context_for_task",
	"call get_change_impact",
	"call explain_module",
	"call get_dependents",
	"call search_context",
	"compact/full size contract",
	"invalid detail is -32602",
	"unknown argument is -32602",
	"resources/read agent://repository/context",
	"prompts/get review_change_impact",
}

// repoFixture makes a layered TypeScript repository: ui → application →
// domain ← adapters, an ADR, tests, and a history of three commits.
func repoFixture(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	git := func(env []string, args ...string) {
		t.Helper()
		gittest.Run(t, dir, append(gittest.Ada(), env...), args...)
	}
	commit := func(msg string, daysAgo int, files map[string]string) {
		for rel, body := range files {
			p := filepath.Join(dir, filepath.FromSlash(rel))
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		d := time.Now().Add(-time.Duration(daysAgo) * 24 * time.Hour).UTC().Format(time.RFC3339)
		git(nil, "add", "-A")
		git(gittest.At(d), "commit", "-q", "-m", msg)
	}
	git(nil, "init", "-q", "-b", "main")
	commit("Initial skeleton", 30, map[string]string{
		"package.json":  `{"name": "shop", "type": "module", "scripts": {"start": "node dist/ui/main.js", "test": "vitest"}, "dependencies": {"zod": "3.23.8", "pg": "^8.11.0"}, "devDependencies": {"vitest": "^1.6.0", "typescript": "^5.4.0"}}` + "\n",
		"tsconfig.json": `{"compilerOptions": {"strict": true, "baseUrl": ".", "paths": {"@domain/*": ["src/domain/*"]}}}` + "\n",
		"README.md":     "# shop\n\nRegisters users and takes orders.\n",
	})
	commit("Add the domain and the application services", 10, map[string]string{
		"src/domain/user.ts":                 "import { DomainError } from './errors';\n\nexport class User {\n  constructor(readonly name: string) { if (!name) throw new DomainError('name'); }\n}\n",
		"src/domain/errors.ts":               "export class DomainError extends Error {}\n",
		"src/domain/order.ts":                "import { User } from './user';\n\nexport function placeOrder(u: User) { return u; }\n",
		"src/domain/user.test.ts":            "import { it } from 'vitest';\nimport { User } from './user';\n\nit('needs a name', () => { new User('a'); });\n",
		"src/application/createUser.ts":      "import { z } from 'zod';\nimport { User } from '@domain/user';\n\nexport function createUser(name: string) { z.string().parse(name); return new User(name); }\n",
		"src/application/listUsers.ts":       "import type { User } from '@domain/user';\n\nexport function listUsers(): User[] { return []; }\n",
		"src/application/index.ts":           "export * from './createUser';\nexport * from './listUsers';\n",
		"src/application/createUser.test.ts": "import { it } from 'vitest';\nimport { createUser } from './createUser';\n\nit('creates', () => { createUser('a'); });\n",
		"src/adapters/index.ts":              "export * from './userRepository';\n",
		"src/adapters/userRepository.ts":     "import pg from 'pg';\nimport { User } from '@domain/user';\n\nexport async function loadUser(name: string) { new pg.Pool(); return new User(name); }\n",
		"src/adapters/db.ts":                 "import pg from 'pg';\n\nexport const pool = new pg.Pool();\n",
	})
	commit("Add the UI and ADR 1", 2, map[string]string{
		"src/ui/App.tsx":                        "import { createUser } from '../application/createUser';\n\nexport function App() { return <button onClick={() => createUser('a')}>add</button>; }\n",
		"src/ui/Button.tsx":                     "export function Button() { return <button/>; }\n",
		"src/ui/main.tsx":                       "import { App } from './App';\n\nexport default App;\n",
		"docs/adr/0001-keep-the-domain-pure.md": "# 1. Keep the domain pure\n\nStatus: Accepted\n\n## Decision\n\nThe domain imports nothing from adapters or the UI.\n",
	})
	return dir
}

// TestRepoToolsetGoSDK drives the repo toolset with the official Go SDK:
// on the fixture in both eras, and on this repository.
func TestRepoToolsetGoSDK(t *testing.T) {
	requireSetup(t)
	fixture := repoFixture(t)
	for _, c := range []struct {
		name, root, ask, want string
		fixture               bool
	}{
		{"fixture/legacy", fixture, "2025-11-25", "2025-11-25", true},
		{"fixture/modern", fixture, "", "2026-07-28", true},
		{"kontext/legacy", repoRoot, "2025-11-25", "2025-11-25", false},
	} {
		t.Run(c.name, func(t *testing.T) { repoGoSDK(t, c.root, c.ask, c.want, c.fixture) })
	}
}

func repoGoSDK(t *testing.T, root, ask, want string, fixture bool) {
	traces := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	t.Run("checks", func(t *testing.T) {
		cmd := exec.Command(kontextBin, "mcp", "--toolsets", "repo", "--root", root, "--log-level", "warn")
		cmd.Env = append(os.Environ(), "KONTEXT_TRACE="+traceFile(traces, "kontext"))
		stderr := &syncBuffer{}
		cmd.Stderr = stderr
		logOnFailure(t, "kontext", stderr)
		var opts *mcp.ClientSessionOptions
		if ask != "" {
			opts = &mcp.ClientSessionOptions{ProtocolVersion: ask}
		}
		client := mcp.NewClient(&mcp.Implementation{Name: "kontext-repo-check-go", Version: "1.0.0"}, &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}})
		cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, opts)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()

		if got := cs.InitializeResult(); got.ProtocolVersion != want || got.ServerInfo == nil || got.ServerInfo.Name != "kontext" {
			t.Fatalf("negotiated %q with %+v, want %s with kontext", got.ProtocolVersion, got.ServerInfo, want)
		}

		tools, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tool := range tools.Tools {
			names = append(names, tool.Name)
			in, _ := tool.InputSchema.(map[string]any)
			props, _ := in["properties"].(map[string]any)
			detail, _ := props["detail"].(map[string]any)
			if in["type"] != "object" || in["additionalProperties"] != false || props["root"] == nil ||
				fmt.Sprint(detail["enum"]) != "[compact full]" || detail["default"] != "compact" {
				t.Errorf("%s: inputSchema %v", tool.Name, in)
			}
			out, _ := tool.OutputSchema.(map[string]any)
			if outProps, _ := out["properties"].(map[string]any); out["type"] != "object" || outProps["schemaVersion"] == nil {
				t.Errorf("%s: outputSchema %v", tool.Name, tool.OutputSchema)
			}
			if a := tool.Annotations; a == nil || !a.ReadOnlyHint || a.OpenWorldHint == nil || *a.OpenWorldHint {
				t.Errorf("%s: annotations %+v", tool.Name, a)
			}
		}
		sort.Strings(names)
		if !slices.Equal(names, repoTools) {
			t.Fatalf("tools %v, want the 13 repo tools", names)
		}

		// call runs a tool that must succeed; it returns the structured
		// content decoded and the size of the JSON.
		call := func(name string, args map[string]any) (map[string]any, int) {
			t.Helper()
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
			if err != nil {
				t.Fatalf("%s %v: %v", name, args, err)
			}
			text := textContent(t, res)
			if res.IsError {
				t.Fatalf("%s %v failed: %s", name, args, text)
			}
			var data map[string]any
			if err := json.Unmarshal([]byte(text), &data); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			structured, _ := json.Marshal(res.StructuredContent)
			var sdata map[string]any
			json.Unmarshal(structured, &sdata)
			if !jsonEqual(data, sdata) {
				t.Errorf("%s: the text block is not the structuredContent", name)
			}
			return data, len(text)
		}
		strs := func(v any) []string {
			var out []string
			list, _ := v.([]any)
			for _, x := range list {
				switch x := x.(type) {
				case string:
					out = append(out, x)
				case map[string]any:
					for _, k := range []string{"id", "from", "path"} {
						if s, ok := x[k].(string); ok {
							out = append(out, s)
							break
						}
					}
				}
			}
			return out
		}

		// Six tools, with values asserted.
		rc, _ := call("get_repository_context", nil)
		modules := strs(rc["modules"])
		if len(modules) == 0 {
			t.Fatalf("no modules: %v", rc)
		}
		central := modules[0]
		first, _ := rc["modules"].([]any)[0].(map[string]any)
		usedBy := strs(first["usedBy"])
		if cutFields(rc)["modules[].usedBy"] {
			// The summary cut the list to fit (and says so): explain_module
			// holds the module whole.
			explained, _ := call("explain_module", map[string]any{"path": central})
			if cutFields(explained)["module.usedBy"] {
				t.Fatalf("explain_module(%s) cut its usedBy too", central)
			}
			m, _ := explained["module"].(map[string]any)
			usedBy = strs(m["usedBy"])
		}
		if fixture && (central != "src/domain" || strings.Join(usedBy, ",") != "src/adapters,src/application") {
			t.Errorf("the domain should be the most used module: %s used by %v", central, usedBy)
		}
		if !fixture && central != "internal/fsroot" && central != "internal/mcp" {
			t.Logf("kontext's most central module is %s", central)
		}

		dependents, _ := call("get_dependents", map[string]any{"module": central})
		direct := strs(dependents["direct"])
		sort.Strings(direct)
		if !slices.Equal(direct, usedBy) {
			t.Errorf("get_dependents(%s) = %v, usedBy %v", central, direct, usedBy)
		}
		for _, from := range direct {
			deps, _ := call("get_dependencies", map[string]any{"module": from})
			edges, _ := deps["internal"].([]any)
			if !slices.ContainsFunc(edges, func(e any) bool { m, _ := e.(map[string]any); return m["to"] == central }) {
				t.Errorf("get_dependencies(%s) does not list %s: %v", from, central, deps["internal"])
			}
		}
		if fixture && !slices.Contains(strs(dependents["transitive"]), "src/ui") {
			t.Errorf("src/ui depends on the domain through the application: %v", dependents["transitive"])
		}

		impactTarget := central
		if fixture {
			impactTarget = "src/domain/user.ts"
		}
		impact, _ := call("get_change_impact", map[string]any{"target": impactTarget})
		for _, m := range usedBy {
			if !slices.Contains(strs(impact["directDependents"]), m) {
				t.Errorf("impact of %s: direct dependents %v lack %s", impactTarget, impact["directDependents"], m)
			}
		}
		if fixture {
			tests := strs(impact["tests"])
			if !slices.Contains(tests, "src/domain/user.test.ts") || !slices.Contains(tests, "src/application/createUser.test.ts") {
				t.Errorf("impact tests %v", tests)
			}
		}

		explained, _ := call("explain_module", map[string]any{"path": central})
		if m, _ := explained["module"].(map[string]any); m["id"] != central || len(strs(explained["files"])) == 0 {
			t.Errorf("explain_module(%s): %v", central, explained["module"])
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "explain_module", Arguments: map[string]any{"path": "no/such/module"}})
		if err != nil || !res.IsError || !strings.Contains(textContent(t, res), "no/such/module") {
			t.Errorf("an unknown path must be a failed tool result naming it: %v %+v", err, res)
		}

		query := central[strings.LastIndex(central, "/")+1:]
		found, _ := call("search_context", map[string]any{"query": query, "limit": 5})
		results, _ := found["results"].([]any)
		if len(results) == 0 {
			t.Errorf("search %q found nothing", query)
		}
		prev := 1e18
		for _, r := range results {
			r := r.(map[string]any)
			score, _ := r["score"].(float64)
			reason, _ := r["reason"].(string)
			if score > prev || !strings.HasPrefix(reason, "matched terms: ") || !strings.HasSuffix(reason, "; ranked by bm25") {
				t.Errorf("search result %v", r)
			}
			prev = score
		}

		task, _ := call("get_context_for_task", map[string]any{"task": "change how " + query + " works", "target": central, "maxModules": 3})
		if strs(task["modules"])[0] != central {
			t.Errorf("the target should lead the task context: %v", strs(task["modules"]))
		}

		if fixture {
			same, _ := call("get_revision_diff", map[string]any{"revision": "HEAD..HEAD"})
			if same["hasChanges"] != false || len(strs(same["files"])) != 0 {
				t.Errorf("HEAD..HEAD: %v", same)
			}
		}

		// The size contract: compact and full within 25,000 characters,
		// compact without evidence, full with it, the same keys; full is
		// larger unless it says what it cut to stay within the bound, and
		// every cut says its counts and how to ask for the rest.
		evidence := 0
		for _, c := range []struct {
			name string
			args map[string]any
		}{
			{"get_repository_context", map[string]any{"maxModules": 100, "maxEntryPoints": 200, "maxExternalDependencies": 200, "maxConventions": 200, "maxDecisions": 200, "maxCycles": 200}},
			{"get_architecture", nil},
			{"get_dependencies", nil},
			{"explain_module", map[string]any{"path": central}},
			{"get_decisions", nil},
		} {
			compact, size := call(c.name, c.args)
			fullArgs := map[string]any{"detail": "full"}
			for k, v := range c.args {
				fullArgs[k] = v
			}
			full, fullSize := call(c.name, fullArgs)
			if size > 25000 || countEvidence(compact) > 0 {
				t.Errorf("%s compact: %d characters, %d evidence lists", c.name, size, countEvidence(compact))
			}
			cuts, _ := full["truncated"].([]any)
			if fullSize > 25000 || (fullSize <= size && len(cuts) == 0) {
				t.Errorf("%s full: %d characters (compact %d), cuts %v", c.name, fullSize, size, cuts)
			}
			for _, answer := range []map[string]any{compact, full} {
				list, _ := answer["truncated"].([]any)
				for _, raw := range list {
					cut, _ := raw.(map[string]any)
					if cut["field"] == nil || cut["kept"] == nil || cut["narrow"] == nil {
						t.Errorf("%s: a cut without its field, counts or how to narrow: %v", c.name, raw)
					}
				}
			}
			// Full adds one key to one answer: get_architecture's map.
			if c.name == "get_architecture" {
				if m, _ := full["map"].(string); !strings.HasPrefix(m, "flowchart TD\n") {
					t.Errorf("get_architecture full: no Mermaid map (%.80q)", m)
				}
				delete(full, "map")
			}
			if !slices.Equal(keysBut(compact, "truncated"), keysBut(full, "truncated")) {
				t.Errorf("%s: compact keys %v, full keys %v", c.name, keysBut(compact, "truncated"), keysBut(full, "truncated"))
			}
			evidence += countEvidence(full)
		}
		if evidence == 0 {
			t.Errorf("no full answer carries evidence")
		}

		// Refusals are protocol errors: the tool never ran.
		for _, args := range []map[string]any{{"detail": "verbose"}, {"bogus": true}, {"maxModules": 0}} {
			_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_repository_context", Arguments: args})
			werr, data := wireError(t, err)
			if werr.Code != -32602 || data["tool"] != "get_repository_context" {
				t.Errorf("%v: code %d data %v, want -32602", args, werr.Code, data)
			}
		}

		// Resources and prompts.
		read, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "agent://repository/architecture"})
		if err != nil || len(read.Contents) != 1 || read.Contents[0].MIMEType != "application/json" || !strings.Contains(read.Contents[0].Text, `"modules"`) {
			t.Errorf("agent://repository/architecture: %v %+v", err, read)
		}
		prompt, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "explain_architecture", Arguments: map[string]string{"target": central}})
		if err != nil || !strings.Contains(prompt.Messages[0].Content.(*mcp.TextContent).Text, "get_architecture") {
			t.Errorf("explain_architecture: %v", err)
		}
	})
	validateWire(t, readTraces(t, tracesIn(t, traces)))
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

func countEvidence(v any) int {
	n := 0
	switch x := v.(type) {
	case map[string]any:
		for k, sub := range x {
			if k == "evidence" {
				n++
			}
			n += countEvidence(sub)
		}
	case []any:
		for _, sub := range x {
			n += countEvidence(sub)
		}
	}
	return n
}

// cutFields are the fields an answer's truncated list names.
func cutFields(answer map[string]any) map[string]bool {
	out := map[string]bool{}
	list, _ := answer["truncated"].([]any)
	for _, raw := range list {
		if cut, ok := raw.(map[string]any); ok {
			if f, ok := cut["field"].(string); ok {
				out[f] = true
			}
		}
	}
	return out
}

func keysBut(m map[string]any, skip string) []string {
	var out []string
	for k := range m {
		if k != skip {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// TestRepoToolsetTypeScriptSDK runs testdata/node/repo-check.mjs, the TypeScript
// SDK v1 client, on the fixture and on this repository.
func TestRepoToolsetTypeScriptSDK(t *testing.T) {
	node, dir := npmDir(t)
	fixture := repoFixture(t)
	for _, c := range []struct{ name, root string }{{"fixture", fixture}, {"kontext", repoRoot}} {
		t.Run(c.name, func(t *testing.T) {
			traces := t.TempDir()
			checks := runChecks(t, node, dir, "repo-check.mjs", []string{kontextBin, c.root}, traceFile(traces, "kontext"), repoScriptChecks)
			if checks == nil {
				return
			}
			logs := readTraces(t, tracesIn(t, traces))
			t.Run("wire", func(t *testing.T) {
				checkPairing(t, logs)
				for _, l := range logs {
					for _, r := range l.Requests {
						if r.Revision != "2025-11-25" {
							t.Errorf("%s was served as %s, want 2025-11-25", r.Method, r.Revision)
						}
					}
				}
			})
			t.Run("schema", func(t *testing.T) { validateWire(t, logs) })
		})
	}
}

// runChecks runs a node script that prints one JSON check per line and
// fails t for every failed or missing check. It returns the checks seen.
func runChecks(t *testing.T, node, dir, script string, args []string, trace string, want []string) []scriptCheck {
	t.Helper()
	var stdout bytes.Buffer
	var stderr syncBuffer
	logOnFailure(t, script, &stderr)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, append([]string{filepath.Join(dir, script)}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "KONTEXT_TRACE="+trace)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()

	return scriptChecks(t, script, &stdout, runErr, want)
}
