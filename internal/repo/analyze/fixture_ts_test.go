package analyze

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/kontext-dev/kontext/internal/repo/model"
)

var fixtureNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func day(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 10, 0, 0, 0, time.UTC) }

// layeredApp builds the layered TypeScript fixture: an ADR, a domain →
// infrastructure import, a billing ↔ payments cycle, and a dated history
// by three authors. It returns the fixture and its commits in order.
func layeredApp(t *testing.T) (*fixture, []string) {
	f := newFixture(t)
	var shas []string
	f.write(map[string]string{"README.md": "# Shop\n"})
	shas = append(shas, f.commit("Initial commit", "Ada Lovelace", day(2024, 6, 1))) // outside the window

	f.write(map[string]string{
		"package.json": `{
  "name": "shop",
  "type": "module",
  "main": "dist/index.js",
  "scripts": {"start": "node dist/server.js", "test": "vitest run"},
  "dependencies": {"express": "^4.19.0", "pg": "^8.11.0", "pino": "^9.0.0"},
  "devDependencies": {"vitest": "^1.6.0", "typescript": "^5.4.0", "prettier": "^3.2.0"}
}
`,
		"package-lock.json": "{}\n",
		"tsconfig.json": `{
  // the compiler is strict, on purpose
  "compilerOptions": {
    "strict": true,
    "paths": {"@/*": ["src/*"]},
  },
}
`,
		".prettierrc":  "{}\n",
		"README.md":    "# Shop\n\nA small shop.\n\n## Architecture\n\nThe domain layer does not know about HTTP.\n",
		"src/index.ts": "export { startServer } from './server.js';\n",
		"src/server.ts": `import express from 'express';
import { orderRoutes } from './api/order-routes.js';

export function startServer(): void {
  const app = express();
  app.use(orderRoutes);
  app.listen(3000);
}
`,
	})
	shas = append(shas, f.commit("Initial skeleton", "Ada Lovelace", day(2025, 10, 1)))

	f.write(map[string]string{
		"src/domain/order.ts": `export interface OrderLine { sku: string; qty: number }

export class Order {
  constructor(readonly id: string, readonly lines: OrderLine[]) {}
}

export class OrderNotFoundError extends Error {}
`,
		"src/domain/place-order.ts": `import type { Order } from './order.js';
import { query } from '../infra/db.js';

export async function placeOrder(order: Order): Promise<void> {
  await query('insert into orders values ($1)', [order.id]);
}
`,
		"src/infra/db.ts": `import pg from 'pg';

const pool = new pg.Pool();

export function query(sql: string, args: unknown[]) {
  return pool.query(sql, args);
}
`,
		"src/infra/logger.ts": "import pino from 'pino';\n\nexport const logger = pino();\n",
	})
	shas = append(shas, f.commit("Add domain and infra", "Bob Builder", day(2025, 11, 15)))

	f.write(map[string]string{
		"src/api/order-routes.ts": `import { Router } from 'express';
import { placeOrder } from '../domain/place-order.js';

export const orderRoutes = Router();

orderRoutes.get('/orders', (_req, res) => res.json([]));
router.post('/orders', async (req, res) => { await placeOrder(req.body); res.sendStatus(201); });
`,
		"src/api/order-routes.test.ts": "import { describe, it } from 'vitest';\nimport { orderRoutes } from './order-routes.js';\n\ndescribe('routes', () => { it('exists', () => { orderRoutes; }); });\n",
	})
	shas = append(shas, f.commit("Add order routes", "Ada Lovelace", day(2026, 1, 20)))

	f.write(map[string]string{
		"src/billing/invoice-total.ts":  "import { charge } from '../payments/charge-card.js';\n\nexport function invoiceTotal(n: number) { return charge(n); }\n",
		"src/payments/charge-card.ts":   "import { invoiceTotal } from '../billing/invoice-total.js';\n\nexport function charge(n: number): number { return n > 0 ? n : invoiceTotal(1); }\n",
		"src/domain/order-errors.ts":    "export class InvalidOrderError extends Error {}\n",
		"src/domain/order-events.ts":    "export const ORDER_PLACED = 'order.placed';\n",
		"src/domain/order-validator.ts": "export function validateOrder(): boolean { return true; }\n",
	})
	shas = append(shas, f.commit("refactor: split billing and payments", "Bob Builder", day(2026, 2, 10)))

	f.write(map[string]string{
		"docs/adr/0001-use-postgres.md": `# 1. Use PostgreSQL

Date: 2025-01-10

Status: Accepted

## Context

We need a relational store for orders.

## Decision

We will use PostgreSQL through the pg driver.

## Consequences

Migrations are plain SQL.
`,
		"docs/adr/0002-event-bus.md": "---\ntitle: Publish domain events on a bus\nstatus: draft\ndate: 2026-02-20\n---\n\n# Event bus\n\nOrders publish events.\n",
		"docs/adr/README.md":         "# Decisions\n\nThe log of our decisions.\n",
	})
	shas = append(shas, f.commit("docs: ADR 1 use postgres", "Cy Young", day(2026, 2, 20)))

	f.write(map[string]string{
		"src/domain/place-order.ts": `import type { Order } from './order.js';
import { query } from '../infra/db.js';

export async function placeOrder(order: Order): Promise<void> {
  if (order.lines.length === 0) return;
  await query('insert into orders values ($1)', [order.id]);
}
`,
		"src/domain/place-order.test.ts": "import { it } from 'vitest';\nimport { placeOrder } from './place-order.js';\n\nit('places', async () => { await placeOrder({ id: '1', lines: [] } as never); });\n",
	})
	shas = append(shas, f.commit("Fix place order validation", "Ada Lovelace", day(2026, 2, 25)))
	return f, shas
}

func runFixture(t *testing.T, f *fixture) *model.Graph {
	t.Helper()
	g := miniScan(t, f.dir)
	if err := Run(context.Background(), g, f.source(), f.repo(), Options{Now: fixtureNow, Workers: 2}); err != nil {
		t.Fatal(err)
	}
	checkConfidences(t, g)
	return g
}

func TestLayeredTypeScriptApp(t *testing.T) {
	f, shas := layeredApp(t)
	g := runFixture(t, f)

	t.Run("roles", func(t *testing.T) {
		dom := findModule(g, "src/domain")
		top, ok := TopRole(dom)
		if !ok || top.Role != "domain" {
			t.Fatalf("src/domain roles = %s", dumpJSON(dom.Roles))
		}
		// name "domain" (0.4) and error classes (0.35): 1 − 0.6·0.65
		if top.Confidence != 0.61 {
			t.Errorf("domain confidence = %v, want 0.61", top.Confidence)
		}
		var files []string
		for _, ev := range top.Evidence {
			files = append(files, ev.File)
		}
		if !strings.Contains(strings.Join(files, " "), "src/domain/order-errors.ts") {
			t.Errorf("domain evidence should name the file with the error class: %s", dumpJSON(top.Evidence))
		}
		infra, _ := TopRole(findModule(g, "src/infra"))
		if infra.Role != "infrastructure" || infra.Confidence != 0.698 { // name 0.45, logging 0.45
			t.Errorf("src/infra top role = %s", dumpJSON(infra))
		}
		api, _ := TopRole(findModule(g, "src/api"))
		if api.Role != "controller" || api.Confidence != 0.78 { // routes 0.6, express 0.45
			t.Errorf("src/api top role = %s", dumpJSON(api))
		}
		if len(findModule(g, "src/api").Roles) > maxRoles {
			t.Errorf("more than %d roles", maxRoles)
		}
		src := findModule(g, "src")
		hasApp := false
		for _, r := range src.Roles {
			hasApp = hasApp || r.Role == "application"
		}
		if !hasApp {
			t.Errorf("src should have the application role (server.ts is started by npm start): %s", dumpJSON(src.Roles))
		}
	})

	t.Run("entry points", func(t *testing.T) {
		main := findEntry(g, "src/index.ts", "package-main")
		if main == nil || main.Confidence != confDeclared || main.Evidence[0].File != "package.json" {
			t.Fatalf("package main: %s", dumpJSON(g.EntryPoints))
		}
		if app := findEntry(g, "src/server.ts", "application"); app == nil || !strings.Contains(app.Evidence[0].Detail, `script "start"`) {
			t.Errorf("src/server.ts should be the application started by npm start: %s", dumpJSON(g.EntryPoints))
		}
		if r := findEntry(g, "src/api/order-routes.ts", "http-routes"); r == nil || r.Evidence[0].Line != 6 {
			t.Errorf("http routes entry: %s", dumpJSON(r))
		}
		if findEntry(g, "src/domain/place-order.test.ts", "test") == nil {
			t.Errorf("test entry missing")
		}
		if got := findModule(g, "src").EntryPoints; strings.Join(got, ",") != "src/index.ts,src/server.ts" {
			t.Errorf("module entry points = %v", got)
		}
	})

	t.Run("layering violation", func(t *testing.T) {
		// The original's application-controller rule also fires on the
		// bootstrap (src, started by npm start) wiring its routes.
		var v *model.Violation
		for i := range g.Violations {
			if g.Violations[i].Rule == "domain-infrastructure" {
				v = &g.Violations[i]
			}
		}
		if v == nil || len(g.Violations) != 2 {
			t.Fatalf("violations = %s", dumpJSON(g.Violations))
		}
		if v.From != "src/domain" || v.To != "src/infra" || v.Confidence != confViolation {
			t.Errorf("violation = %s", dumpJSON(v))
		}
		if ev := v.Evidence[0]; ev.File != "src/domain/place-order.ts" || ev.Line != 2 || !strings.Contains(ev.Detail, "../infra/db.js") {
			t.Errorf("violation evidence should be the import: %s", dumpJSON(v.Evidence))
		}
		if last := v.Evidence[len(v.Evidence)-1]; last.Detail != "src/infra's top role is infrastructure (0.70)" {
			t.Errorf("violation should name the roles: %s", dumpJSON(v.Evidence))
		}
	})

	t.Run("cycle", func(t *testing.T) {
		if len(g.Cycles) != 1 || strings.Join(g.Cycles[0].Modules, ",") != "src/billing,src/payments" {
			t.Fatalf("cycles = %s", dumpJSON(g.Cycles))
		}
		evs := g.Cycles[0].Evidence
		if len(evs) != 2 || evs[0].File != "src/billing/invoice-total.ts" || evs[0].Line != 1 || evs[1].File != "src/payments/charge-card.ts" {
			t.Errorf("cycle evidence = %s", dumpJSON(evs))
		}
	})

	t.Run("decisions", func(t *testing.T) {
		adr := findDecision(g, "ADR-001")
		if adr == nil {
			t.Fatalf("no ADR-001 in %s", dumpJSON(g.Decisions))
		}
		if adr.Status != "accepted" || adr.Confidence != 0.95 || adr.Title != "Use PostgreSQL" || adr.Kind != "adr" ||
			adr.Origin != "explicit" || adr.Date != "2025-01-10" || adr.Source != "docs/adr/0001-use-postgres.md" {
			t.Errorf("ADR-001 = %s", dumpJSON(adr))
		}
		if adr.Excerpt != "We will use PostgreSQL through the pg driver." {
			t.Errorf("ADR-001 excerpt = %q", adr.Excerpt)
		}
		if adr.Evidence[1].Line != 5 {
			t.Errorf("status evidence should point at line 5: %s", dumpJSON(adr.Evidence))
		}
		if d := findDecision(g, "ADR-002"); d == nil || d.Status != "proposed" || d.Title != "Publish domain events on a bus" || d.Confidence != 0.95 {
			t.Errorf("ADR-002 = %s", dumpJSON(d))
		}
		for _, d := range g.Decisions {
			if d.Source == "docs/adr/README.md" {
				t.Errorf("the ADR directory's README is not a decision: %s", dumpJSON(d))
			}
		}
		if d := findDecision(g, "INF-MODULE-FORMAT"); d == nil || !strings.Contains(d.Title, "ES modules") || d.Confidence != 0.9 {
			t.Errorf("INF-MODULE-FORMAT = %s", dumpJSON(d))
		}
		if d := findDecision(g, "INF-PACKAGE-MANAGER"); d == nil || d.Title != "Dependencies are managed with npm" || d.Confidence != 0.8 {
			t.Errorf("INF-PACKAGE-MANAGER = %s", dumpJSON(d))
		}
		if d := findDecision(g, "INF-STRICT-TS"); d == nil || d.Evidence[0].Line != 4 || d.Confidence != 0.95 {
			t.Errorf("INF-STRICT-TS (tsconfig with comments and trailing commas) = %s", dumpJSON(d))
		}
		if d := findDecision(g, "INF-DEP-EXPRESS"); d == nil || d.Confidence > 0.7 || d.Kind != "dependency-signal" {
			t.Errorf("INF-DEP-EXPRESS = %s", dumpJSON(d))
		}
		if d := findDecision(g, "INF-DEP-PINO"); d != nil {
			t.Errorf("pino is neither framework nor infrastructure: %s", dumpJSON(d))
		}
		refactor := findDecision(g, "GIT-"+shas[4][:8])
		adrCommit := findDecision(g, "GIT-"+shas[5][:8])
		if refactor == nil || adrCommit == nil || refactor.Confidence != 0.45 || refactor.Evidence[0].Commit != shas[4] {
			t.Errorf("git decisions: %s", dumpJSON(g.Decisions))
		}
		if d := findDecision(g, "GIT-"+shas[6][:8]); d != nil {
			t.Errorf("%q is not an architectural subject", d.Title)
		}
		// README's "Architecture" section: a documented section, inferred (not a design doc).
		var doc *model.Decision
		for i := range g.Decisions {
			if g.Decisions[i].Kind == "documented-section" {
				doc = &g.Decisions[i]
			}
		}
		if doc == nil || doc.Origin != "inferred" || doc.Confidence != 0.45 || !strings.HasPrefix(doc.ID, "DOC-") || doc.Source != "README.md#L5" {
			t.Errorf("documented section = %s", dumpJSON(doc))
		}
		// Explicit first.
		seenInferred := false
		for _, d := range g.Decisions {
			if d.Origin == "inferred" {
				seenInferred = true
			} else if seenInferred {
				t.Errorf("explicit %s listed after an inferred decision", d.ID)
			}
		}
	})

	t.Run("conventions", func(t *testing.T) {
		c := findConvention(g, "TypeScript source files are named in kebab-case")
		// 11 non-index source files: 7 kebab-case, 4 one-word names that fit.
		if c == nil || c.Samples != 11 || c.Category != "Naming" || c.Origin != "observed" || c.Confidence != 0.95 || !strings.HasPrefix(c.ID, "naming:") {
			t.Fatalf("file naming = %s\nall: %s", dumpJSON(c), dumpJSON(g.Conventions))
		}
		if c.Evidence[0].Detail != "11 of 11 TypeScript file names fit kebab-case" || len(c.Evidence) > maxConvEvidence {
			t.Errorf("file naming evidence = %s", dumpJSON(c.Evidence))
		}
		if c := findConvention(g, "TypeScript tests are named *.test.ts"); c == nil || c.Samples != 2 {
			t.Errorf("test naming = %s", dumpJSON(c))
		}
		if c := findConvention(g, "Tests sit next to the code they cover"); c == nil || c.Samples != 2 {
			t.Errorf("colocated tests = %s", dumpJSON(c))
		}
		if c := findConvention(g, "Tests run with vitest"); c == nil || c.Origin != "config" {
			t.Errorf("runner = %s", dumpJSON(c))
		}
		if c := findConvention(g, "Code is formatted with Prettier"); c == nil || c.Origin != "config" || c.Evidence[0].File != ".prettierrc" {
			t.Errorf("prettier = %s", dumpJSON(c))
		}
		if c := findConvention(g, "TypeScript code declares its own errors as classes extending Error"); c == nil || c.Samples != 2 {
			t.Errorf("error classes = %s", dumpJSON(c))
		}
		if c := findConvention(g, "Modules use named exports rather than default exports"); c == nil {
			t.Errorf("named exports missing: %s", dumpJSON(g.Conventions))
		}
		if c := findConvention(g, "Relative imports carry explicit .js extensions"); c == nil {
			t.Errorf("explicit .js extensions missing")
		}
		if c := findConvention(g, "Architectural decisions are recorded as documents under docs/adr/"); c == nil || c.Samples != 2 {
			t.Errorf("ADR convention = %s", dumpJSON(c))
		}
	})

	t.Run("git signals", func(t *testing.T) {
		want := map[string][2]int{ // changes, recent changes (30 days before 2026-03-01)
			"src/domain": {3, 2}, "src/infra": {1, 0}, "src/api": {1, 0}, "src": {1, 0}, "src/billing": {1, 1}, ".": {2, 1}, // docs/ has no module of its own: it counts in the root
		}
		for id, w := range want {
			m := findModule(g, id)
			if m == nil || m.Git == nil || m.Git.Changes != w[0] || m.Git.RecentChanges != w[1] {
				t.Errorf("%s git = %s, want changes %d recent %d", id, dumpJSON(m.Git), w[0], w[1])
			}
		}
		dom := findModule(g, "src/domain").Git
		if dom.Contributors != 2 || dom.TopContributors[0] != (model.Contributor{Name: "Bob Builder", Commits: 2}) {
			t.Errorf("src/domain contributors = %s", dumpJSON(dom))
		}
		if !dom.LastChanged.Equal(day(2026, 2, 25)) || dom.ChangeFrequency != "high" {
			t.Errorf("src/domain last change / frequency = %s", dumpJSON(dom))
		}
		if f := findModule(g, "src/infra").Git.ChangeFrequency; f != "medium" {
			t.Errorf("src/infra frequency = %s", f)
		}
		if g.Git == nil || g.Git.Commits != 6 || g.Git.Contributors != 3 || g.Git.WindowDays != 180 || !g.Git.FirstCommit.Equal(day(2025, 10, 1)) {
			t.Errorf("git summary = %s", dumpJSON(g.Git))
		}
	})

	t.Run("revision diff", func(t *testing.T) {
		d, err := RevisionDiff(context.Background(), f.repo(), g, shas[3], shas[4])
		if err != nil {
			t.Fatal(err)
		}
		if len(d.Files) != 5 || d.Files[0].Path != "src/billing/invoice-total.ts" || d.Files[0].Status != "added" || d.Files[0].Module != "src/billing" {
			t.Errorf("diff files = %s", dumpJSON(d.Files))
		}
		if len(d.Modules) != 3 || d.Modules[1].Module != "src/domain" || d.Modules[1].Added != 3 {
			t.Errorf("diff modules = %s", dumpJSON(d.Modules))
		}
		same, err := RevisionDiff(context.Background(), f.repo(), g, "HEAD", "HEAD")
		if err != nil || same.HasChanges || len(same.Files) != 0 {
			t.Errorf("HEAD..HEAD = %s %v", dumpJSON(same), err)
		}
		root, err := RevisionDiff(context.Background(), f.repo(), g, "", shas[0])
		if err != nil || root.Base != "" || len(root.Files) != 1 || root.Files[0].Path != "README.md" {
			t.Errorf("root commit diff = %s %v", dumpJSON(root), err)
		}
		if _, err := RevisionDiff(context.Background(), f.repo(), g, "", "no-such-rev"); err == nil {
			t.Errorf("unknown revision accepted")
		}
	})

	t.Run("revision snapshot", func(t *testing.T) {
		s, err := RevisionSnapshot(context.Background(), f.repo(), g, shas[2], 0)
		if err != nil {
			t.Fatal(err)
		}
		if s.SHA != shas[2] || s.Author != "Bob Builder" || s.Subject != "Add domain and infra" || s.FileCount != 11 {
			t.Errorf("snapshot = %s", dumpJSON(s))
		}
		ids := map[string]SnapshotModule{}
		for _, m := range s.Modules {
			ids[m.ID] = m
		}
		if root := ids["."]; root.Name != "shop" || root.Manifest != "package.json" || root.Ecosystem != "npm" {
			t.Errorf("root module at the revision = %s", dumpJSON(root))
		}
		if ids["src/domain"].Files != 2 {
			t.Errorf("src/domain at the revision = %s", dumpJSON(ids["src/domain"]))
		}
		if _, ok := ids["src/api"]; ok {
			t.Errorf("src/api did not exist yet")
		}
		small, _ := RevisionSnapshot(context.Background(), f.repo(), g, "HEAD", 3)
		if len(small.Files) != 3 || !small.Truncated {
			t.Errorf("bounded snapshot = %d files, truncated %v", len(small.Files), small.Truncated)
		}
	})

	t.Run("impact", func(t *testing.T) {
		res, err := Impact(g, "./src/infra/db.ts", 0)
		if err != nil {
			t.Fatal(err)
		}
		if res.Kind != "file" || strings.Join(res.Modules, ",") != "src/infra" {
			t.Errorf("impact target = %s", dumpJSON(res))
		}
		if strings.Join(res.DirectDependents, ",") != "src/domain" || strings.Join(res.TransitiveDependents, ",") != "src,src/api" {
			t.Errorf("dependents = %v / %v", res.DirectDependents, res.TransitiveDependents)
		}
		if len(res.Files) == 0 || res.Files[0].Path != "src/domain/place-order.ts" || res.Files[0].Depth != 1 {
			t.Errorf("files = %s", dumpJSON(res.Files))
		}
		var tests []string
		for _, tf := range res.Tests {
			tests = append(tests, tf.Path)
		}
		if strings.Join(tests, ",") != "src/domain/place-order.test.ts,src/api/order-routes.test.ts" {
			t.Errorf("tests = %s", dumpJSON(res.Tests))
		}
		mod, err := Impact(g, "src/domain", 2)
		if err != nil || mod.Kind != "module" || !mod.Truncated || len(mod.Files)+len(mod.Tests) != 2 {
			t.Errorf("bounded module impact = %s %v", dumpJSON(mod), err)
		}
		if strings.Join(mod.Cut, ",") != "files,tests" {
			t.Errorf("the bound cut %v, want files,tests", mod.Cut)
		}
		if full, _ := Impact(g, "src/domain", 1000); full.Truncated || len(full.Cut) > 0 {
			t.Errorf("an unbounded impact says cut %v", full.Cut)
		}
		docs, err := Impact(g, "docs/adr", 0)
		if err != nil || docs.Kind != "directory" || len(docs.Decisions) < 2 {
			t.Errorf("decisions touching docs/adr = %s %v", dumpJSON(docs), err)
		}
		if _, err := Impact(g, "nope/nothing", 0); err == nil {
			t.Errorf("unknown target accepted")
		}
	})
}
