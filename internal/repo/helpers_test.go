package repo

import (
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/kontext-dev/kontext/internal/git"
	"github.com/kontext-dev/kontext/internal/gittest"
	"github.com/kontext-dev/kontext/internal/repo/analyze"
	"github.com/kontext-dev/kontext/internal/repo/model"
	"github.com/kontext-dev/kontext/internal/repo/scan"
)

// testNow fixes the clock of the history windows, so that two analyses
// of one history agree.
var testNow = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

// layeredApp is a small layered TypeScript service with an ADR, a Go tool
// beside it and a README: enough for modules, roles, imports, conventions
// and decisions to appear.
var layeredApp = map[string]string{
	"package.json":                           `{"name": "shop", "version": "1.0.0", "type": "module", "main": "src/index.ts", "dependencies": {"express": "^4.18.0", "pg": "^8.11.0"}, "devDependencies": {"typescript": "^5.4.0", "vitest": "^1.0.0"}}`,
	"tsconfig.json":                          `{"compilerOptions": {"strict": true, "baseUrl": ".", "paths": {"@domain/*": ["src/domain/*"]}}}`,
	".gitignore":                             "dist/\n*.log\n",
	"README.md":                              "# Shop\n\nA small shop service.\n\n## Architecture\n\nWe use a layered architecture: domain, services, infrastructure.\n",
	"docs/adr/0001-use-postgres.md":          "# ADR-1: Use PostgreSQL\n\nStatus: accepted\n\n## Context\n\nWe need a database.\n\n## Decision\n\nWe will use PostgreSQL.\n",
	"src/index.ts":                           "import { createServer } from './api/server';\n\ncreateServer().listen(3000);\n",
	"src/api/server.ts":                      "import express from 'express';\nimport { OrderService } from '../services/order-service';\n\nexport function createServer() {\n  const app = express();\n  app.get('/orders', (_req, res) => res.json(new OrderService().list()));\n  return app;\n}\n",
	"src/api/routes.ts":                      "import express from 'express';\n\nexport const router = express.Router();\n",
	"src/api/handlers.ts":                    "export function handleError(e: Error) {\n  return { error: e.message };\n}\n",
	"src/services/order-service.ts":          "import { Order } from '@domain/order';\nimport { OrderRepository } from '../infrastructure/order-repository';\n\nexport class OrderService {\n  list(): Order[] {\n    return new OrderRepository().all();\n  }\n}\n",
	"src/services/billing-service.ts":        "export class BillingService {\n  charge(amount: number) {\n    return amount;\n  }\n}\n",
	"src/services/mail-service.ts":           "export class MailService {}\n",
	"src/domain/order.ts":                    "export interface Order {\n  id: string;\n  total: number;\n}\n",
	"src/domain/customer.ts":                 "export interface Customer {\n  id: string;\n}\n",
	"src/domain/errors.ts":                   "export class OrderNotFoundError extends Error {}\n",
	"src/infrastructure/order-repository.ts": "import { Pool } from 'pg';\nimport type { Order } from '../domain/order';\n\nexport class OrderRepository {\n  pool = new Pool();\n  all(): Order[] {\n    return [];\n  }\n}\n",
	"src/infrastructure/db.ts":               "import { Pool } from 'pg';\n\nexport const pool = new Pool();\n",
	"src/infrastructure/cache.ts":            "export const cache = new Map<string, string>();\n",
	"test/order-service.test.ts":             "import { describe, it } from 'vitest';\nimport { OrderService } from '../src/services/order-service';\n\ndescribe('orders', () => { it('lists', () => { new OrderService(); }); });\n",
	"tools/gen/go.mod":                       "module example.com/gen\n\ngo 1.22\n",
	"tools/gen/main.go":                      "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"gen\") }\n",
}

// repoFixture is a git repository in a temp dir.
type repoFixture struct {
	t   *testing.T
	dir string
}

func newRepo(t *testing.T, files map[string]string) *repoFixture {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := &repoFixture{t: t, dir: dir}
	f.git("init", "-q", "-b", "main")
	f.write(files)
	f.age()
	f.commit("initial")
	return f
}

// newTree is newRepo without git.
func newTree(t *testing.T, files map[string]string) *repoFixture {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := &repoFixture{t: t, dir: dir}
	f.write(files)
	f.age()
	return f
}

func (f *repoFixture) git(args ...string) string {
	f.t.Helper()
	return strings.TrimSpace(gittest.Run(f.t, f.dir, append(gittest.Ada(), gittest.At("2026-05-20T10:00:00Z")...), args...))
}

func (f *repoFixture) commit(msg string) string {
	f.t.Helper()
	f.git("add", "-A")
	f.git("commit", "-q", "--allow-empty", "-m", msg)
	return f.git("rev-parse", "HEAD")
}

func (f *repoFixture) path(rel string) string { return filepath.Join(f.dir, filepath.FromSlash(rel)) }

func (f *repoFixture) write(files map[string]string) {
	f.t.Helper()
	for rel, body := range files {
		p := f.path(rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			f.t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			f.t.Fatal(err)
		}
	}
}

func (f *repoFixture) remove(rel string) {
	f.t.Helper()
	if err := os.RemoveAll(f.path(rel)); err != nil {
		f.t.Fatal(err)
	}
}

func (f *repoFixture) rename(from, to string) {
	f.t.Helper()
	if err := os.MkdirAll(filepath.Dir(f.path(to)), 0o755); err != nil {
		f.t.Fatal(err)
	}
	if err := os.Rename(f.path(from), f.path(to)); err != nil {
		f.t.Fatal(err)
	}
}

// age sets every file's times an hour back: files written just before an
// analysis are "racy" (re-read rather than trusted by fingerprint), which
// is right but would hide what a warm start skips.
func (f *repoFixture) age() {
	f.t.Helper()
	old := time.Now().Add(-time.Hour)
	filepath.WalkDir(f.dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Name() == ".git" && d.IsDir() {
			return filepath.SkipDir
		}
		if err == nil {
			os.Chtimes(p, old, old)
		}
		return nil
	})
}

func testOptions(t *testing.T) Options {
	return Options{
		Analyze:    analyze.Options{Now: testNow},
		Logger:     slog.New(slog.NewTextHandler(io.Discard, nil)),
		NoTerminal: true,
	}
}

func newEngine(t *testing.T, opts Options) *Engine {
	t.Helper()
	e := NewEngine(opts)
	t.Cleanup(func() { e.Close() })
	return e
}

func snapshot(t *testing.T, e *Engine, dir string) *Snapshot {
	t.Helper()
	snap, err := e.Snapshot(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// scratch is the analysis of dir from scratch, as analyze.Run does it.
func scratch(t *testing.T, dir string, opts Options) (*model.Graph, *analyze.History) {
	t.Helper()
	ctx := context.Background()
	g, err := scan.Scan(ctx, dir, opts.Scan)
	if err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	src := func(p string) ([]byte, error) { return root.ReadFile(filepath.FromSlash(p)) }
	repo, err := git.Open(ctx, dir)
	if err != nil {
		repo = nil
	} else {
		defer repo.Close()
	}
	if err := analyze.Run(ctx, g, src, repo, opts.Analyze); err != nil {
		t.Fatal(err)
	}
	var hist *analyze.History
	if repo != nil {
		if hist, err = analyze.ReadHistory(ctx, repo, opts.Analyze); err != nil {
			t.Fatal(err)
		}
	}
	return g, hist
}

// sameAsScratch fails unless snap equals a from-scratch analysis of its
// root (the graph, and the commits of the history; the times at which
// things were read are not compared).
func sameAsScratch(t *testing.T, snap *Snapshot, opts Options, what string) {
	t.Helper()
	want, hist := scratch(t, snap.Root, opts)
	if diff := cmp.Diff(want, snap.Graph); diff != "" {
		t.Fatalf("%s: the engine's graph differs from a from-scratch analysis (-scratch +engine):\n%s", what, diff)
	}
	if hist != nil {
		if snap.History == nil {
			t.Fatalf("%s: no history", what)
		}
		if diff := cmp.Diff(hist.Commits, snap.History.Commits); diff != "" {
			t.Fatalf("%s: history differs (-scratch +engine):\n%s", what, diff)
		}
	}
}

func hasFile(g *model.Graph, p string) bool {
	for i := range g.Files {
		if g.Files[i].Path == p {
			return true
		}
	}
	return false
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
