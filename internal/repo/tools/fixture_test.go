package tools

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/sourcegraph/jsonrpc2"

	"github.com/kontext-dev/kontext/gen/protocol"
	"github.com/kontext-dev/kontext/internal/fsroot"
	"github.com/kontext-dev/kontext/internal/gittest"
	"github.com/kontext-dev/kontext/internal/mcp"
	"github.com/kontext-dev/kontext/internal/repo"
)

// gitFixture is a real repository made in a temporary directory.
type gitFixture struct {
	t   *testing.T
	dir string
}

func newGitFixture(t *testing.T, dir string) *gitFixture {
	t.Helper()
	f := &gitFixture{t: t, dir: dir}
	f.git(nil, "init", "-q", "-b", "main")
	return f
}

func (f *gitFixture) git(env []string, args ...string) string {
	f.t.Helper()
	return strings.TrimSpace(gittest.Run(f.t, f.dir, append(gittest.Ada(), env...), args...))
}

func (f *gitFixture) write(files map[string]string) {
	f.t.Helper()
	gittest.WriteFiles(f.t, f.dir, files)
}

// commit stages everything and commits as author, daysAgo days before now
// (inside the history window whatever the date the tests run on).
func (f *gitFixture) commit(msg, author string, daysAgo int) string {
	f.t.Helper()
	f.git(nil, "add", "-A")
	email := strings.ToLower(strings.Fields(author)[0]) + "@example.com"
	f.git(append(gittest.At(time.Now().Add(-time.Duration(daysAgo)*24*time.Hour).UTC().Format(time.RFC3339)), "GIT_AUTHOR_NAME="+author, "GIT_AUTHOR_EMAIL="+email),
		"commit", "-q", "-m", msg)
	return f.git(nil, "rev-parse", "HEAD")
}

// layeredApp is a layered TypeScript service with ADRs and a history by
// three authors: ui → application → domain ← adapters, a domain →
// infrastructure import (a layering violation) and a billing ↔ payments
// cycle, made in dir. It returns the fixture and its commits, oldest first.
func layeredAppIn(t *testing.T, dir string) (*gitFixture, []string) {
	f := newGitFixture(t, dir)
	var shas []string
	f.write(map[string]string{
		"package.json": `{
  "name": "layered-app",
  "version": "0.3.0",
  "description": "A layered TypeScript service",
  "type": "module",
  "scripts": {"start": "node dist/ui/main.js", "build": "tsc", "test": "vitest"},
  "dependencies": {"express": "^4.19.2", "zod": "3.23.8", "pg": "^8.11.0", "pino": "^9.0.0"},
  "devDependencies": {"typescript": "^5.4.0", "vitest": "^1.6.0"}
}
`,
		"package-lock.json": "{}\n",
		"tsconfig.json": `{
  "compilerOptions": {
    "strict": true,
    "baseUrl": ".",
    "paths": {"@domain/*": ["src/domain/*"], "@app/*": ["src/application/*"]}
  }
}
`,
		"README.md": "# layered-app\n\nA demo service that registers users and takes orders.\n",
	})
	shas = append(shas, f.commit("Initial skeleton", "Ada Lovelace", 40))

	f.write(map[string]string{
		"src/domain/user.ts": `import { DomainError } from './errors';

export interface UserProps { name: string }
export class User {
  constructor(readonly props: UserProps) {
    if (!props.name) throw new DomainError('name');
  }
}
export const MAX_NAME = 80;
`,
		"src/domain/errors.ts":         "export class DomainError extends Error {}\nexport class UserNotFoundError extends Error {}\n",
		"src/domain/order.ts":          "import { User } from './user';\nimport { logger } from '../infrastructure/logger';\n\nexport type OrderId = string;\nexport function placeOrder(u: User) { logger.info('order'); return u; }\n",
		"src/domain/user.test.ts":      "import { it } from 'vitest';\nimport { User } from './user';\n\nit('needs a name', () => { new User({ name: 'a' }); });\n",
		"src/infrastructure/db.ts":     "import pg from 'pg';\n\nexport const db = { pool: new pg.Pool(), save: (x: unknown) => x };\n",
		"src/infrastructure/logger.ts": "import pino from 'pino';\n\nexport const logger = pino();\n",
		"src/infrastructure/config.ts": "export const config = { port: Number(process.env.PORT ?? 3000) };\n",
		"src/adapters/index.ts":        "export { loadUser } from './userRepository';\n",
		"src/adapters/httpServer.ts":   "import express from 'express';\n\nexport const app = express();\n",
		"src/adapters/userRepository.ts": `import { User } from '@domain/user';
import { db } from '../infrastructure/db';

export async function loadUser(name: string): Promise<User> {
  db.save(name);
  return new User({ name });
}
`,
	})
	shas = append(shas, f.commit("Add the user domain and its storage", "Bob Builder", 20))

	f.write(map[string]string{
		"src/application/createUser.ts": `import { z } from 'zod';
import { User } from '@domain/user';
import { DomainError } from '../domain/errors';

const Name = z.string();
export async function createUser(name: string) {
  if (!Name.safeParse(name).success) throw new DomainError('name');
  return new User({ name });
}
`,
		"src/application/listUsers.ts":       "import type { User } from '@domain/user';\n\nexport function listUsers(): User[] { return []; }\n",
		"src/application/index.ts":           "export * from './createUser';\nexport { listUsers } from './listUsers';\n",
		"src/application/createUser.test.ts": "import { it } from 'vitest';\nimport { createUser } from './createUser';\n\nit('creates', async () => { await createUser('a'); });\n",
	})
	shas = append(shas, f.commit("Add application services", "Ada Lovelace", 10))

	f.write(map[string]string{
		"src/ui/App.tsx":         "import { createUser } from '@app/createUser';\nimport { Button } from './Button';\n\nexport function App() { return <Button onClick={() => createUser('a')} />; }\n",
		"src/ui/Button.tsx":      "export function Button(props: { onClick: () => void }) { return <button onClick={props.onClick}>add</button>; }\n",
		"src/ui/main.tsx":        "import { App } from './App';\n\nexport default App;\n",
		"src/billing/index.ts":   "export * from './invoice';\n",
		"src/billing/invoice.ts": "import { charge } from '../payments/charge';\n\nexport function invoiceTotal(n: number) { return charge(n); }\n",
		"src/payments/index.ts":  "export * from './charge';\n",
		"src/payments/charge.ts": "import { invoiceTotal } from '../billing/invoice';\n\nexport function charge(n: number): number { return n > 0 ? n : invoiceTotal(1); }\n",
	})
	shas = append(shas, f.commit("Add the UI, billing and payments", "Cy Young", 5))

	f.write(map[string]string{
		"docs/adr/0001-use-hexagonal-architecture.md": "# 1. Use hexagonal architecture\n\nDate: 2026-01-10\n\nStatus: Accepted\n\n## Context\n\nThe domain must not depend on storage.\n\n## Decision\n\nWe keep the domain free of infrastructure; adapters live in src/infrastructure.\n",
		"docs/adr/0002-validate-with-zod.md":          "# 2. Validate input with zod\n\nStatus: Proposed\n\n## Decision\n\nInput is validated with zod schemas at the application boundary.\n",
	})
	shas = append(shas, f.commit("docs: ADR 1 and 2", "Cy Young", 3))

	f.write(map[string]string{
		"src/domain/user.ts": `import { DomainError } from './errors';

export interface UserProps { name: string }
export class User {
  constructor(readonly props: UserProps) {
    if (!props.name || props.name.length > MAX_NAME) throw new DomainError('name');
  }
}
export const MAX_NAME = 80;
`,
	})
	shas = append(shas, f.commit("refactor: validate user names in the domain", "Bob Builder", 1))
	return f, shas
}

// session is an in-memory MCP session with the repo toolset served on a
// root: the real protocol path (schema validation, structured results).
type session struct {
	t      *testing.T
	client *mcp.Client
	h      *Handlers
	tools  map[string]protocol.Tool
}

func serveRepo(t *testing.T, dir string) *session {
	t.Helper()
	root, err := fsroot.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	engine := repo.NewEngine(repo.Options{})
	// Closed after the session (cleanups run last first): its watcher,
	// inotify instance and barrier directory go with the test.
	t.Cleanup(func() { engine.Close() })
	return serveHandlers(t, New(root, engine))
}

func serveHandlers(t *testing.T, h *Handlers) *session {
	t.Helper()
	srv, err := mcp.NewServer(mcp.Implementation{Name: "kontext", Version: "test"}, mcp.Options{}, h.Toolset())
	if err != nil {
		t.Fatal(err)
	}
	serverEnd, clientEnd := mcp.NewInMemoryTransport()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		srv.Serve(ctx, serverEnd)
		close(done)
	}()
	client, err := mcp.Connect(ctx, clientEnd, mcp.ClientOptions{Info: mcp.Implementation{Name: "test", Version: "1"}, Era: mcp.EraLegacy})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		client.Close()
		clientEnd.Close()
		cancel()
		<-done
	})
	s := &session{t: t, client: client, h: h, tools: map[string]protocol.Tool{}}
	list, err := client.ListTools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range list {
		s.tools[tool.Name] = tool
	}
	return s
}

// call calls a tool and returns its result; a protocol error fails the test.
func (s *session) call(name string, args map[string]any) *protocol.CallToolResult {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := s.client.CallTool(ctx, name, args)
	if err != nil {
		s.t.Fatalf("%s %v: %v", name, args, err)
	}
	return res
}

// ok calls a tool that must succeed and decodes its structured content
// into out; it checks the content against the advertised outputSchema and
// that the text block carries the same JSON.
func (s *session) ok(name string, args map[string]any, out any) json.RawMessage {
	s.t.Helper()
	res := s.call(name, args)
	if res.IsError != nil && *res.IsError {
		s.t.Fatalf("%s %v failed: %s", name, args, text(res))
	}
	if len(res.StructuredContent) == 0 {
		s.t.Fatalf("%s: no structuredContent", name)
	}
	if text(res) != string(res.StructuredContent) {
		s.t.Errorf("%s: the text block differs from structuredContent", name)
	}
	s.validate(name, res.StructuredContent)
	if out != nil {
		if err := json.Unmarshal(res.StructuredContent, out); err != nil {
			s.t.Fatalf("%s: %v", name, err)
		}
	}
	return res.StructuredContent
}

// fails calls a tool that must run and fail (isError) and returns its text.
func (s *session) fails(name string, args map[string]any) string {
	s.t.Helper()
	res := s.call(name, args)
	if res.IsError == nil || !*res.IsError {
		s.t.Fatalf("%s %v: want isError, got %s", name, args, res.StructuredContent)
	}
	return text(res)
}

// refused calls a tool that the server must refuse with -32602 before it
// runs; it returns the error.
func (s *session) refused(name string, args map[string]any) *jsonrpc2.Error {
	s.t.Helper()
	res, err := s.client.CallTool(context.Background(), name, args)
	var rpcErr *jsonrpc2.Error
	if !errors.As(err, &rpcErr) {
		s.t.Fatalf("%s %v: want a protocol error, got %v %+v", name, args, err, res)
	}
	if rpcErr.Code != -32602 {
		s.t.Fatalf("%s %v: code %d, want -32602", name, args, rpcErr.Code)
	}
	return rpcErr
}

func (s *session) validate(name string, content json.RawMessage) {
	s.t.Helper()
	tool, ok := s.tools[name]
	if !ok || len(tool.OutputSchema) == 0 {
		s.t.Fatalf("%s: no outputSchema advertised", name)
	}
	schema, err := jsonschema.UnmarshalJSON(strings.NewReader(string(tool.OutputSchema)))
	if err != nil {
		s.t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("out.json", schema); err != nil {
		s.t.Fatal(err)
	}
	sch, err := c.Compile("out.json")
	if err != nil {
		s.t.Fatalf("%s: outputSchema does not compile: %v", name, err)
	}
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(string(content)))
	if err != nil {
		s.t.Fatal(err)
	}
	if err := sch.Validate(inst); err != nil {
		s.t.Errorf("%s: structuredContent does not match its outputSchema: %v", name, err)
	}
}

func text(res *protocol.CallToolResult) string {
	var b strings.Builder
	for _, raw := range res.Content {
		var block struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if json.Unmarshal(raw, &block) == nil && block.Type == "text" {
			b.WriteString(block.Text)
		}
	}
	return b.String()
}
