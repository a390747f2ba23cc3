package main

// The generated repository: a polyglot monorepo (npm workspaces, a Go
// module, a Python package, ADRs) with a few years of history, written
// through `git fast-import` in seconds. Everything derives from the seed:
// two runs with the same seed make the same commits, byte for byte.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// genStats is what was generated.
type genStats struct {
	Files, Commits, Swaps int
	// Automated are the commits of bots and the dependency bumps: what the
	// bootstrap's history reads and never scores.
	Automated int
}

// unit is one part of the monorepo: a workspace, the Go module, the Python
// package, the docs or the root.
type unit struct {
	dir, name, scope string
	kind             string // "app", "pkg", "go", "py", "docs", "root"
	flavor           string // TS: "react", "express", "lib", "cli"
	desc             string
	deps             []string // sibling workspaces (names without @acme/)
	ext              []string // external packages
	start            int      // the first commit that may add its files
	queue            []*file  // planned, not yet added
	added            []*file
	version          int             // bumps of its manifest
	swapped          map[string]bool // libraries swapped out
	bumps            map[string]int  // patch updates of each dependency (bots and people)
	majors           map[string]int  // major-version updates of a Go module's path (renovate)
}

// file is a planned file and its history.
type file struct {
	path    string
	u       *unit
	role    string // "manifest", "readme", "tsconfig", "index", "source", "test", "doc", "static", "dates", "validation", "logging", "http"
	export  string // the name a source file exports
	thing   string // what it is about, in words ("order summary")
	imports []string
	target  *file // a test's subject
	rev     int
}

// swap is a dependency swap: one commit changes the manifest and the file
// that uses the library.
type swap struct {
	at         int
	unit       string
	from, to   string
	designated string // the role of the file that imports the library
	msg        string
	done       bool
}

var (
	nouns    = strings.Fields("order invoice customer cart price tax discount shipment refund session token user account product catalog stock warehouse report metric event webhook email coupon subscription plan payment ledger audit search filter page cache queue job schedule export profile address review rating category tag banner menu tenant quota region currency")
	suffixes = strings.Fields("summary list detail form table card service store client mapper parser formatter validator builder policy handler view selector reducer adapter provider")
)

var extVersions = map[string]string{
	"react": "^18.2.0", "react-dom": "^18.2.0", "react-router-dom": "^6.22.0", "express": "^4.19.2", "moment": "^2.29.4",
	"date-fns": "^3.6.0", "joi": "^17.12.0", "zod": "^3.23.8", "cors": "^2.8.5", "helmet": "^7.1.0", "commander": "^12.0.0",
	"clsx": "^2.1.0", "pg": "^8.11.3", "kysely": "^0.27.3", "jsonwebtoken": "^9.0.2", "stripe": "^14.21.0",
	"nodemailer": "^6.9.13", "dotenv": "^16.4.5", "pino": "^8.19.0", "@faker-js/faker": "^8.4.1",
	"typescript": "^5.4.5", "eslint": "^8.57.0", "prettier": "^3.2.5", "jest": "^29.7.0", "vitest": "^1.5.0", "@types/node": "^20.12.7",
}

type generator struct {
	rng     *rand.Rand
	commits int
	units   []*unit
	byDir   map[string]*unit
	byName  map[string]*unit
	names   map[string]bool
	swaps   []*swap
}

type wsPlan struct {
	name, flavor, desc string
	files              int
	deps, ext          []string
	start              float64
}

func newGenerator(commits int, seed uint64) *generator {
	g := &generator{rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), commits: commits,
		byDir: map[string]*unit{}, byName: map[string]*unit{}, names: map[string]bool{}}
	g.plan()
	return g
}

func (g *generator) at(frac float64) int { return int(frac * float64(g.commits)) }

func (g *generator) plan() {
	apps := []wsPlan{
		{"web", "react", "The customer-facing storefront: catalog, cart and checkout, rendered with React.", 262, []string{"ui", "core", "orders", "auth", "config", "dates"}, []string{"react", "react-dom", "react-router-dom"}, 0.05},
		{"admin", "react", "The back-office console where staff manage products, refunds and customer accounts.", 196, []string{"ui", "core", "inventory", "billing", "auth"}, []string{"react", "react-dom"}, 0.2},
		{"api", "express", "The public HTTP API: orders, payments and accounts behind one Express server.", 245, []string{"core", "db", "auth", "billing", "orders", "logger", "validation", "config"}, []string{"express", "moment", "joi", "cors"}, 0.03},
		{"gateway", "express", "The edge gateway: authentication, rate limits and routing to the internal services.", 138, []string{"auth", "logger", "config"}, []string{"express", "helmet"}, 0.3},
		{"mobile-bff", "express", "Backend for the mobile apps: it aggregates the API into the screens the apps render.", 95, []string{"core", "orders", "logger"}, []string{"express"}, 0.45},
		{"cli", "cli", "The ops command line: imports catalogs, replays webhooks and rotates keys.", 68, []string{"core", "db", "config"}, []string{"commander"}, 0.5},
	}
	pkgs := []wsPlan{
		{"ui", "react", "Shared React components and design tokens for every web surface.", 228, []string{"dates"}, []string{"react", "clsx"}, 0.08},
		{"core", "lib", "Domain types and pure business rules shared by every app: money, orders, customers.", 196, []string{"logger", "config"}, []string{"zod"}, 0},
		{"db", "lib", "Database access: the connection pool, migrations and typed repositories over Postgres.", 170, []string{"core", "config", "logger"}, []string{"pg", "kysely"}, 0.04},
		{"auth", "lib", "Sessions, tokens and permissions: who may do what, checked in one place.", 138, []string{"core", "db", "config"}, []string{"jsonwebtoken"}, 0.1},
		{"billing", "lib", "Invoices, payments and refunds, with the payment provider behind an adapter.", 158, []string{"core", "db", "dates"}, []string{"stripe", "moment"}, 0.15},
		{"orders", "lib", "The order lifecycle: carts become orders, orders become shipments.", 148, []string{"core", "db", "billing"}, nil, 0.12},
		{"inventory", "lib", "Stock levels, reservations and warehouse transfers.", 116, []string{"core", "db"}, nil, 0.25},
		{"notifications", "lib", "Email, SMS and webhook delivery with templates and retries.", 100, []string{"core", "logger"}, []string{"nodemailer"}, 0.35},
		{"analytics", "lib", "Event tracking and the metrics the dashboards read.", 90, []string{"core", "dates"}, nil, 0.4},
		{"config", "lib", "Typed configuration loaded from the environment.", 44, nil, []string{"dotenv"}, 0},
		{"logger", "lib", "Structured logging with request ids.", 40, nil, []string{"pino"}, 0},
		{"validation", "lib", "Request and payload validation schemas.", 66, []string{"core"}, []string{"joi"}, 0.06},
		{"dates", "lib", "Date arithmetic, time zones and business-day calendars.", 50, nil, []string{"moment"}, 0.02},
		{"testing", "lib", "Fixtures, factories and test helpers for every workspace.", 58, []string{"core", "db"}, []string{"@faker-js/faker"}, 0.2},
	}
	root := &unit{dir: ".", name: "acme", kind: "root", desc: "The Acme commerce platform: storefront, back office, APIs, services and workers in one repository."}
	g.add(root)
	for _, f := range []string{"package.json", "README.md", ".gitignore", "AGENTS.md", "Makefile", ".env.example", "tsconfig.base.json", ".editorconfig", ".nvmrc", "docker-compose.yml", "CONTRIBUTING.md", "LICENSE"} {
		role := "static"
		if f == "package.json" {
			role = "manifest"
		}
		root.queue = append(root.queue, &file{path: f, u: root, role: role, thing: strings.TrimPrefix(f, ".")})
	}
	for _, w := range apps {
		g.planTS("apps", "app", w)
	}
	for _, w := range pkgs {
		g.planTS("packages", "pkg", w)
	}
	g.planGo()
	g.planPython()
	g.planDocs()

	g.swaps = []*swap{
		{at: g.at(0.35), unit: "packages/dates", from: "moment", to: "date-fns", designated: "dates",
			msg: "refactor(dates)!: migrate from moment to date-fns because moment is in maintenance mode\n\nmoment is no longer developed and cannot be tree-shaken: it was a third of the storefront bundle. date-fns works on plain Date values, so nothing shares a mutable instance any more. The public helpers of @acme/dates keep their names; only the return types change from Moment to Date."},
		{at: g.at(0.42), unit: "apps/api", from: "moment", to: "date-fns", designated: "dates",
			msg: "chore(api): replace moment with date-fns\n\nFollows the dates package: the API formatted invoice dates with moment directly."},
		{at: g.at(0.5), unit: "packages/validation", from: "joi", to: "zod", designated: "validation",
			msg: "feat(validation)!: switch to zod instead of joi\n\nzod infers the TypeScript types from the schemas, so the request types and their validation can no longer drift apart. Every schema moved; the error format of the API stays the same because the adapter maps zod issues onto the old joi details."},
		{at: g.at(0.56), unit: "apps/api", from: "joi", to: "zod", designated: "validation",
			msg: "refactor(api): use zod schemas instead of joi so that request types come from one place"},
		{at: g.at(0.62), unit: ".", from: "jest", to: "vitest",
			msg: "chore!: switch from jest to vitest since jest's ESM support keeps breaking\n\nThe workspaces are ESM; jest needed a babel transform per package and still broke on top-level await. vitest reads the same describe/it/expect, so the tests did not change."},
		{at: g.at(0.7), unit: "services", from: "github.com/sirupsen/logrus", to: "github.com/rs/zerolog", designated: "logging",
			msg: "refactor(services): replace logrus with zerolog\n\nlogrus is in maintenance mode and allocates on every field; zerolog allocates nothing per event and writes the same JSON lines, so the log pipeline keeps working."},
		{at: g.at(0.78), unit: "worker", from: "requests", to: "httpx", designated: "http",
			msg: "feat(worker): migrate from requests to httpx so that the clients can run async"},
		{at: g.at(0.85), unit: "packages/billing", from: "moment", to: "date-fns", designated: "dates",
			msg: "fix(billing): no longer use moment for invoice dates\n\nmoment mutated a shared instance and shifted due dates by a day across a DST change; date-fns instead, like the rest of the repository."},
	}
}

func (g *generator) add(u *unit) {
	u.swapped = map[string]bool{}
	u.bumps = map[string]int{}
	u.majors = map[string]int{}
	g.units = append(g.units, u)
	g.byDir[u.dir] = u
	g.byName[u.name] = u
}

// uniqueName picks an unused noun-suffix name inside a unit.
func (g *generator) uniqueName(u *unit) (string, string) {
	for {
		n, s := nouns[g.rng.IntN(len(nouns))], suffixes[g.rng.IntN(len(suffixes))]
		key := u.dir + "/" + n + "-" + s
		if !g.names[key] {
			g.names[key] = true
			return n + "-" + s, n + " " + s
		}
	}
}

func (g *generator) pick(list []string) string { return list[g.rng.IntN(len(list))] }

func relImport(from, to string) string {
	rel, _ := filepath.Rel(path.Dir(from), to)
	rel = strings.TrimSuffix(strings.TrimSuffix(rel, ".tsx"), ".ts")
	if !strings.HasPrefix(rel, ".") {
		rel = "./" + rel
	}
	return rel
}

func (g *generator) planTS(parent, kind string, w wsPlan) {
	w.files = w.files * 15 / 16
	u := &unit{dir: parent + "/" + w.name, name: w.name, scope: w.name, kind: kind, flavor: w.flavor, desc: w.desc, deps: w.deps, ext: w.ext, start: g.at(w.start)}
	g.add(u)
	q := func(p, role, thing string) *file {
		f := &file{path: u.dir + "/" + p, u: u, role: role, thing: thing}
		u.queue = append(u.queue, f)
		return f
	}
	q("package.json", "manifest", "package manifest")
	q("README.md", "readme", "README")
	q("tsconfig.json", "tsconfig", "TypeScript config")
	q("src/index.ts", "index", "entry point")
	for _, e := range w.ext {
		switch e {
		case "moment":
			q("src/dates.ts", "dates", "date helpers")
		case "joi":
			q("src/schema.ts", "validation", "request schemas")
		}
	}
	areas := map[string][]string{
		"react":   {"components", "components", "hooks", "pages", "state", "utils"},
		"express": {"routes", "handlers", "middleware", "services", "models", "utils"},
		"lib":     {"lib", "models", "adapters", "utils", "internal"},
		"cli":     {"commands", "utils", "io"},
	}[w.flavor]
	var sources []*file
	for len(u.queue) < w.files {
		area := g.pick(areas)
		name, thing := g.uniqueName(u)
		ext := ".ts"
		export := camel(name)
		if w.flavor == "react" && (area == "components" || area == "pages") {
			ext = ".tsx"
			export = pascal(name)
		}
		if area == "hooks" {
			export = camel("use-" + name)
			name = "use-" + name
		}
		f := q("src/"+area+"/"+name+ext, "source", thing)
		f.export = export
		if ext == ".tsx" {
			f.imports = append(f.imports, `import React from "react";`)
		}
		for k, n := 0, g.rng.IntN(3); k < n && len(sources) > 0; k++ {
			t := sources[g.rng.IntN(len(sources))]
			line := fmt.Sprintf("import { %s } from %q;", t.export, relImport(f.path, t.path))
			if !contains(f.imports, line) {
				f.imports = append(f.imports, line)
			}
		}
		if len(w.deps) > 0 && g.rng.IntN(3) == 0 {
			d := g.pick(w.deps)
			f.imports = append(f.imports, fmt.Sprintf("import { %sVersion } from \"@acme/%s\";", camel(d), d))
		}
		if g.rng.IntN(6) == 0 {
			switch {
			case contains(w.ext, "express") && area == "routes":
				f.imports = append(f.imports, `import { Router } from "express";`)
			case contains(w.ext, "zod"):
				f.imports = append(f.imports, `import { z } from "zod";`)
			case contains(w.ext, "pg"):
				f.imports = append(f.imports, `import { Pool } from "pg";`)
			}
		}
		sources = append(sources, f)
		if g.rng.IntN(5) == 0 && len(u.queue) < w.files {
			t := q("src/"+area+"/"+name+".test.ts", "test", thing)
			t.target = f
		}
	}
	// The entry point re-exports the first few sources.
	for _, s := range sources[:min(6, len(sources))] {
		u.queue[3].imports = append(u.queue[3].imports, fmt.Sprintf("export { %s } from %q;", s.export, relImport(u.queue[3].path, s.path)))
	}
}

var goPackages = []struct{ name, desc string }{
	{"config", "loads the services' configuration from the environment and flags"},
	{"logging", "sets up structured logging for every service"},
	{"db", "opens the Postgres pool and runs the migrations"},
	{"store", "holds the typed repositories over the database"},
	{"orders", "implements the order lifecycle on the server side"},
	{"billing", "talks to the payment provider and keeps the ledger"},
	{"inventory", "tracks stock levels and reservations"},
	{"auth", "verifies tokens issued by the gateway"},
	{"events", "publishes and consumes domain events over the queue"},
	{"httpapi", "serves the internal HTTP API"},
	{"grpcapi", "serves the internal gRPC API"},
	{"scheduler", "runs periodic jobs with leases so that one replica runs each"},
	{"metrics", "exports Prometheus metrics"},
	{"migrate", "holds the schema migrations"},
}

const goModule = "github.com/acme/platform/services"

func (g *generator) planGo() {
	u := &unit{dir: "services", name: "services", scope: "services", kind: "go", desc: "The Go services behind the API: orders, billing, inventory and the scheduler, sharing one module.", start: g.at(0.1),
		ext: []string{"github.com/go-chi/chi/v5", "github.com/jackc/pgx/v5", "google.golang.org/grpc", "github.com/sirupsen/logrus", "github.com/prometheus/client_golang"}}
	g.add(u)
	q := func(p, role, thing string) *file {
		f := &file{path: u.dir + "/" + p, u: u, role: role, thing: thing}
		u.queue = append(u.queue, f)
		return f
	}
	q("go.mod", "manifest", "module")
	q("README.md", "readme", "README")
	var done []string
	cmds := map[int]string{3: "migrate", 6: "api-server", 10: "scheduler", 13: "worker-bridge"}
	for i, p := range goPackages {
		doc := q("internal/"+p.name+"/doc.go", "doc", p.name+" package doc")
		doc.export = p.desc
		if p.name == "logging" {
			q("internal/logging/logging.go", "logging", "logger")
		}
		n := 20 + g.rng.IntN(12)
		for k := 0; k < n; k++ {
			name, thing := g.uniqueName(u)
			f := q("internal/"+p.name+"/"+strings.ReplaceAll(name, "-", "_")+".go", "source", thing)
			f.export = pascal(name)
			for j, m := 0, g.rng.IntN(3); j < m && len(done) > 0; j++ {
				imp := goModule + "/internal/" + done[g.rng.IntN(len(done))]
				if !contains(f.imports, imp) {
					f.imports = append(f.imports, imp)
				}
			}
			if g.rng.IntN(4) == 0 {
				t := q("internal/"+p.name+"/"+strings.ReplaceAll(name, "-", "_")+"_test.go", "test", thing)
				t.target = f
			}
		}
		done = append(done, p.name)
		if c, ok := cmds[i]; ok {
			f := q("cmd/"+c+"/main.go", "main", c+" command")
			f.export = c
			for _, d := range done[max(0, len(done)-4):] {
				f.imports = append(f.imports, goModule+"/internal/"+d)
			}
		}
	}
}

var pySubpackages = []struct{ name, desc string }{
	{"utils", "Small helpers shared by the worker's jobs."},
	{"models", "Typed records the jobs read and write."},
	{"clients", "Clients of the HTTP API and the payment provider."},
	{"storage", "Object storage and database access for the jobs."},
	{"emails", "Rendering and sending the transactional emails."},
	{"reports", "Nightly reports: sales, stock and refunds."},
	{"jobs", "The Celery jobs, one module per queue."},
	{"tasks", "Periodic tasks and their schedules."},
}

func (g *generator) planPython() {
	u := &unit{dir: "worker", name: "worker", scope: "worker", kind: "py", desc: "Background jobs: emails, nightly reports and catalog imports, run by Celery.", start: g.at(0.15),
		ext: []string{"celery", "sqlalchemy", "pydantic", "requests", "redis"}}
	g.add(u)
	q := func(p, role, thing string) *file {
		f := &file{path: u.dir + "/" + p, u: u, role: role, thing: thing}
		u.queue = append(u.queue, f)
		return f
	}
	q("pyproject.toml", "manifest", "project")
	q("README.md", "readme", "README")
	root := q("acme_worker/__init__.py", "doc", "package")
	root.export = "The Acme background worker: Celery jobs for emails, reports and imports."
	var done []*file
	for _, sp := range pySubpackages {
		d := q("acme_worker/"+sp.name+"/__init__.py", "doc", sp.name+" package")
		d.export = sp.desc
		if sp.name == "clients" {
			q("acme_worker/clients/http.py", "http", "HTTP session")
		}
		var here []*file
		for k, n := 0, 22+g.rng.IntN(10); k < n; k++ {
			name, thing := g.uniqueName(u)
			mod := strings.ReplaceAll(name, "-", "_")
			f := q("acme_worker/"+sp.name+"/"+mod+".py", "source", thing)
			f.export = mod
			if len(here) > 0 && g.rng.IntN(2) == 0 {
				t := here[g.rng.IntN(len(here))]
				f.imports = append(f.imports, "from . import "+t.export)
			}
			if len(done) > 0 && g.rng.IntN(2) == 0 {
				t := done[g.rng.IntN(len(done))]
				line := fmt.Sprintf("from acme_worker.%s import %s", path.Base(path.Dir(t.path)), t.export)
				if !contains(f.imports, line) {
					f.imports = append(f.imports, line)
				}
			}
			here = append(here, f)
			if g.rng.IntN(6) == 0 {
				t := q("tests/test_"+mod+".py", "test", thing)
				t.target = f
			}
		}
		done = append(done, here...)
	}
}

var adrs = []struct{ slug, title, context, decision string }{
	{"record-architecture-decisions", "Record architecture decisions", "Decisions were made in chat threads and forgotten within a quarter.", "We record every decision that shapes more than one workspace as an ADR in docs/adr, numbered, never deleted: a reversed decision gets a new ADR that supersedes it."},
	{"use-npm-workspaces", "Use npm workspaces for the TypeScript code", "The apps copied shared code between repositories and drifted apart.", "All TypeScript lives in one repository as npm workspaces: apps/* deploy, packages/* are libraries. We chose npm over pnpm and yarn because it ships with Node and the team knows it."},
	{"postgres-as-the-system-of-record", "Postgres is the system of record", "Orders lived in three stores (Mongo, Redis and Postgres) and disagreed.", "Postgres is the only system of record; Redis holds caches and queues that can be rebuilt from it."},
	{"write-services-in-go", "Write the internal services in Go", "The Node services struggled with CPU-bound work such as invoice rendering and stock reconciliation.", "New internal services are written in Go in one module under services/; the public API stays in TypeScript."},
	{"validate-with-zod", "Validate payloads with zod", "joi schemas and TypeScript types were maintained twice and drifted.", "We validate with zod and infer the types from the schemas, instead of joi."},
	{"date-fns-over-moment", "Use date-fns instead of moment", "moment is in maintenance mode and mutates shared instances.", "We use date-fns on plain Date values; moment is no longer allowed in new code."},
	{"celery-for-background-jobs", "Run background jobs on Celery", "Cron jobs on one VM failed silently.", "Background jobs run on Celery workers with Redis as the broker; every job is idempotent so that a retry never sends an email twice."},
}

var docPages = strings.Fields("getting-started local-development testing deployment release-process code-review observability feature-flags data-model api-versioning security incident-response on-call database-migrations performance-budget accessibility")

func (g *generator) planDocs() {
	u := &unit{dir: "docs", name: "docs", scope: "docs", kind: "docs", desc: "Guides, runbooks and architecture decision records.", start: g.at(0.02)}
	g.add(u)
	u.queue = append(u.queue, &file{path: "docs/README.md", u: u, role: "readme", thing: "docs index"})
	// ADRs spread over the history: put them between the guides.
	pages := append([]string(nil), docPages...)
	for i, a := range adrs {
		f := &file{path: fmt.Sprintf("docs/adr/%04d-%s.md", i+1, a.slug), u: u, role: "adr", thing: a.title, export: fmt.Sprint(i)}
		u.queue = append(u.queue, f)
		for k := 0; k < 2 && len(pages) > 0; k++ {
			p := pages[0]
			pages = pages[1:]
			dir := "guides"
			if k == 1 {
				dir = "runbooks"
			}
			u.queue = append(u.queue, &file{path: "docs/" + dir + "/" + p + ".md", u: u, role: "page", thing: strings.ReplaceAll(p, "-", " ")})
		}
	}
	for _, p := range pages {
		u.queue = append(u.queue, &file{path: "docs/guides/" + p + ".md", u: u, role: "page", thing: strings.ReplaceAll(p, "-", " ")})
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func camel(s string) string {
	var b strings.Builder
	for j, w := range strings.FieldsFunc(s, func(r rune) bool { return r == '-' || r == '_' || r == '/' || r == ' ' || r == '@' }) {
		if j == 0 {
			b.WriteString(w)
			continue
		}
		b.WriteString(strings.ToUpper(w[:1]) + w[1:])
	}
	return b.String()
}

func pascal(s string) string {
	c := camel(s)
	return strings.ToUpper(c[:1]) + c[1:]
}

// --- contents ---------------------------------------------------------

// content is f's text now, from its unit's state and its revision.
func (g *generator) content(f *file) string {
	u := f.u
	switch u.kind {
	case "root":
		return rootFile(f)
	case "app", "pkg":
		return tsFile(f)
	case "go":
		return goFile(f)
	case "py":
		return pyFile(f)
	case "docs":
		return docFile(f)
	}
	return ""
}

// revNotes are lines an edited file gains, one per revision.
func revNotes(prefix string, rev int) string {
	var b strings.Builder
	for i := 1; i <= rev; i++ {
		fmt.Fprintf(&b, "%s revision %d: %s %s.\n", prefix, i, nouns[(i*7)%len(nouns)], suffixes[(i*5)%len(suffixes)])
	}
	return b.String()
}

type pkgJSON struct {
	Name            string            `json:"name"`
	Version         string            `json:"version"`
	Private         bool              `json:"private"`
	Description     string            `json:"description"`
	Main            string            `json:"main,omitempty"`
	Workspaces      []string          `json:"workspaces,omitempty"`
	Scripts         map[string]string `json:"scripts"`
	Dependencies    map[string]string `json:"dependencies,omitempty"`
	DevDependencies map[string]string `json:"devDependencies,omitempty"`
}

func swappedName(u *unit, lib string) string {
	switch {
	case lib == "moment" && u.swapped["moment"]:
		return "date-fns"
	case lib == "joi" && u.swapped["joi"]:
		return "zod"
	case lib == "jest" && u.swapped["jest"]:
		return "vitest"
	case lib == "github.com/sirupsen/logrus" && u.swapped[lib]:
		return "github.com/rs/zerolog"
	case lib == "requests" && u.swapped[lib]:
		return "httpx"
	}
	return lib
}

// bumped is a version after n patch updates: its last number grows by n.
func bumped(version string, n int) string {
	if n == 0 {
		return version
	}
	loc := regexp.MustCompile(`\d+`).FindAllStringIndex(version, -1)
	if len(loc) == 0 {
		return version
	}
	last := loc[len(loc)-1]
	v, _ := strconv.Atoi(version[last[0]:last[1]])
	return version[:last[0]] + strconv.Itoa(v+n) + version[last[1]:]
}

// goMajor is a Go module's path and version after n major updates (renovate
// moves github.com/go-chi/chi/v5 to /v6: the same dependency, a new path).
func goMajor(path, version string, n int) (string, string) {
	if n == 0 {
		return path, version
	}
	m := regexp.MustCompile(`/v(\d+)$`).FindStringSubmatch(path)
	if m == nil {
		return path, version
	}
	major, _ := strconv.Atoi(m[1])
	return strings.TrimSuffix(path, m[0]) + "/v" + strconv.Itoa(major+n), "v" + strconv.Itoa(major+n) + ".0.0"
}

func marshal(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	return b.String()
}

func rootFile(f *file) string {
	u := f.u
	switch f.path {
	case "package.json":
		test := "jest"
		if u.swapped["jest"] {
			test = "vitest run"
		}
		dev := map[string]string{}
		for _, d := range []string{"typescript", "eslint", "prettier", "jest", "@types/node"} {
			n := swappedName(u, d)
			dev[n] = bumped(extVersions[n], u.bumps[n])
		}
		return marshal(pkgJSON{Name: "acme", Version: fmt.Sprintf("1.%d.0", u.version), Private: true, Description: u.desc,
			Workspaces:      []string{"apps/*", "packages/*"},
			Scripts:         map[string]string{"build": "tsc -b", "test": test, "lint": "eslint .", "dev": "npm run dev -w @acme/web", "typecheck": "tsc -b --noEmit"},
			DevDependencies: dev})
	case "README.md":
		return "# Acme platform\n\n" + u.desc + " The storefront and the back office are React apps, the public API is an Express server, the internal services are written in Go and the background jobs run on a Python worker.\n\n## Layout\n\n- `apps/` — deployable TypeScript apps (npm workspaces)\n- `packages/` — shared TypeScript libraries\n- `services/` — the Go services\n- `worker/` — the Python worker\n- `docs/` — guides, runbooks and ADRs\n\n## Getting started\n\n```sh\nnpm install\nmake dev\n```\n" + revNotes("-", f.rev)
	case ".gitignore":
		return "node_modules/\ndist/\ncoverage/\n.env\n__pycache__/\n*.pyc\n.venv/\nbin/\n"
	case "AGENTS.md":
		return "# Working in this repository\n\n- TypeScript lives in npm workspaces: apps never import other apps, only packages.\n- Validate payloads with zod (see docs/adr/0005-validate-with-zod.md); never add joi back.\n- Dates go through @acme/dates; never import moment.\n- Run `make test` before pushing; `make lint` must be clean.\n- Go services: one module under services/, `go test ./...` from there.\n- The worker's jobs must be idempotent.\n" + revNotes("-", f.rev)
	case "Makefile":
		return ".PHONY: install build test lint dev services worker migrate clean\n\ninstall:\n\tnpm install\n\nbuild:\n\tnpm run build\n\tcd services && go build ./...\n\ntest:\n\tnpm test\n\tcd services && go test ./...\n\tcd worker && pytest\n\nlint:\n\tnpm run lint\n\ndev:\n\tnpm run dev\n\nservices:\n\tcd services && go run ./cmd/api-server\n\nworker:\n\tcd worker && celery -A acme_worker.jobs worker\n\nmigrate:\n\tcd services && go run ./cmd/migrate\n\nclean:\n\trm -rf node_modules dist\n" + revNotes("#", f.rev)
	case ".env.example":
		return "# Copy to .env and fill in.\nDATABASE_URL=\nREDIS_URL=\nPORT=3000\nLOG_LEVEL=info\nJWT_ISSUER=\nSTRIPE_API_KEY=\nSMTP_HOST=\nSMTP_PORT=587\nSENTRY_DSN=\nFEATURE_FLAGS=\n"
	case "tsconfig.base.json":
		return "{\n  \"compilerOptions\": {\n    \"target\": \"ES2022\",\n    \"module\": \"NodeNext\",\n    \"strict\": true,\n    \"composite\": true,\n    \"declaration\": true,\n    \"jsx\": \"react-jsx\"\n  }\n}\n"
	case ".editorconfig":
		return "root = true\n\n[*]\nindent_style = space\nindent_size = 2\n\n[*.go]\nindent_style = tab\n\n[*.py]\nindent_size = 4\n"
	case ".nvmrc":
		return "20\n"
	case "docker-compose.yml":
		return "services:\n  postgres:\n    image: postgres:16\n    ports: [\"5432:5432\"]\n  redis:\n    image: redis:7\n    ports: [\"6379:6379\"]\n"
	case "CONTRIBUTING.md":
		return "# Contributing\n\nUse Conventional Commits (feat:, fix:, refactor:, chore:). Record decisions that shape more than one workspace as an ADR in docs/adr.\n" + revNotes("-", f.rev)
	case "LICENSE":
		return "Copyright (c) 2022 Acme Inc. All rights reserved.\n"
	}
	return ""
}

func tsFile(f *file) string {
	u := f.u
	switch f.role {
	case "manifest":
		deps := map[string]string{}
		for _, d := range u.deps {
			deps["@acme/"+d] = "*"
		}
		for _, e := range u.ext {
			n := swappedName(u, e)
			deps[n] = bumped(extVersions[n], u.bumps[n])
		}
		p := pkgJSON{Name: "@acme/" + u.name, Version: fmt.Sprintf("0.%d.0", u.version+1), Private: true, Description: u.desc, Main: "src/index.ts",
			Scripts: map[string]string{"build": "tsc -b", "test": "vitest run", "lint": "eslint src"}, Dependencies: deps}
		if u.kind == "app" {
			p.Scripts["dev"] = "tsx watch src/index.ts"
			p.Scripts["start"] = "node dist/index.js"
		}
		return marshal(p)
	case "readme":
		return "# @acme/" + u.name + "\n\n" + u.desc + " It is part of the Acme platform's npm workspaces; see the repository's README for the whole picture.\n\n## Usage\n\n```sh\nnpm run build -w @acme/" + u.name + "\nnpm test -w @acme/" + u.name + "\n```\n\n## Layout\n\n- `src/index.ts` — the entry point\n" + revNotes("-", f.rev)
	case "tsconfig":
		var refs []string
		for _, d := range u.deps {
			refs = append(refs, fmt.Sprintf("{ \"path\": \"../../packages/%s\" }", d))
		}
		return "{\n  \"extends\": \"../../tsconfig.base.json\",\n  \"compilerOptions\": { \"outDir\": \"dist\", \"rootDir\": \"src\" },\n  \"include\": [\"src\"],\n  \"references\": [" + strings.Join(refs, ", ") + "]\n}\n"
	case "index":
		return strings.Join(f.imports, "\n") + "\n\nexport const " + camel(u.name) + "Version = \"0." + fmt.Sprint(u.version+1) + ".0\";\n" + revNotes("//", f.rev)
	case "dates":
		if u.swapped["moment"] {
			return "import { addDays, format, parseISO } from \"date-fns\";\n\nexport function businessDay(iso: string, days: number): string {\n  return format(addDays(parseISO(iso), days), \"yyyy-MM-dd\");\n}\n" + revNotes("//", f.rev)
		}
		return "import moment from \"moment\";\n\nexport function businessDay(iso: string, days: number): string {\n  return moment(iso).add(days, \"days\").format(\"YYYY-MM-DD\");\n}\n" + revNotes("//", f.rev)
	case "validation":
		if u.swapped["joi"] {
			return "import { z } from \"zod\";\n\nexport const orderSchema = z.object({ id: z.string(), total: z.number().nonnegative() });\nexport type Order = z.infer<typeof orderSchema>;\n" + revNotes("//", f.rev)
		}
		return "import Joi from \"joi\";\n\nexport const orderSchema = Joi.object({ id: Joi.string().required(), total: Joi.number().min(0) });\n" + revNotes("//", f.rev)
	case "test":
		t := f.target
		var b strings.Builder
		fmt.Fprintf(&b, "import { %s } from %q;\n\ndescribe(%q, () => {\n", t.export, relImport(f.path, t.path), t.export)
		for i := 0; i <= f.rev; i++ {
			fmt.Fprintf(&b, "  it(\"handles case %d\", () => {\n    expect(%s).toBeDefined();\n  });\n", i, t.export)
		}
		b.WriteString("});\n")
		return b.String()
	}
	// A source file.
	var b strings.Builder
	for _, imp := range f.imports {
		b.WriteString(imp + "\n")
	}
	if len(f.imports) > 0 {
		b.WriteString("\n")
	}
	opts := pascal(f.export) + "Options"
	limit := strings.ToUpper(strings.ReplaceAll(camelToSnake(f.export), "-", "_")) + "_LIMIT"
	fmt.Fprintf(&b, "/** Options of %s. */\nexport interface %s {\n  limit: number;\n  strict?: boolean;\n}\n\nexport const %s = %d;\n\n", f.export, opts, limit, 10+3*f.rev)
	fmt.Fprintf(&b, "/**\n * %s handles the %s of %s.\n */\n", f.export, f.thing, "@acme/"+u.name)
	if strings.HasSuffix(f.path, ".tsx") {
		fmt.Fprintf(&b, "export function %s(props: { label: string; options?: %s }) {\n  const limit = props.options?.limit ?? %s;\n  return <div className=%q>{props.label.slice(0, limit)}</div>;\n}\n", f.export, opts, limit, strings.ReplaceAll(f.thing, " ", "-"))
	} else {
		fmt.Fprintf(&b, "export function %s(input: string, options: %s = { limit: %s }): string {\n  const trimmed = input.trim();\n  if (options.strict && trimmed.length > options.limit) {\n    throw new Error(%q);\n  }\n  return `${trimmed}:${options.limit}`;\n}\n", f.export, opts, limit, f.thing+" too long")
	}
	for k := 1; k <= f.rev/2; k++ {
		fmt.Fprintf(&b, "\nexport function %sStep%d(value: number): number {\n  return value * %d;\n}\n", f.export, k, k+1)
	}
	return b.String()
}

func camelToSnake(s string) string {
	var b strings.Builder
	for i, r := range s {
		if r >= 'A' && r <= 'Z' {
			if i > 0 {
				b.WriteByte('_')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

func goFile(f *file) string {
	u := f.u
	pkg := path.Base(path.Dir(f.path))
	switch f.role {
	case "manifest":
		var b strings.Builder
		b.WriteString("module " + goModule + "\n\ngo 1.22\n\nrequire (\n")
		vers := map[string]string{"github.com/go-chi/chi/v5": "v5.0.12", "github.com/jackc/pgx/v5": "v5.5.5", "google.golang.org/grpc": "v1.63.2", "github.com/sirupsen/logrus": "v1.9.3", "github.com/rs/zerolog": "v1.32.0", "github.com/prometheus/client_golang": "v1.19.0"}
		for _, e := range u.ext {
			n := swappedName(u, e)
			path, version := goMajor(n, vers[n], u.majors[n])
			fmt.Fprintf(&b, "\t%s %s\n", path, bumped(version, u.bumps[n]))
		}
		b.WriteString(")\n")
		return b.String()
	case "readme":
		return "# services\n\n" + u.desc + "\n\n```sh\ngo test ./...\ngo run ./cmd/api-server\n```\n" + revNotes("-", f.rev)
	case "doc":
		return fmt.Sprintf("// Package %s %s.\npackage %s\n\n// Name is the package's name in logs.\nconst Name = %q\n", pkg, f.export, pkg, pkg)
	case "logging":
		if u.swapped["github.com/sirupsen/logrus"] {
			return "package logging\n\nimport (\n\t\"os\"\n\n\t\"github.com/rs/zerolog\"\n)\n\n// New returns the service's logger.\nfunc New(service string) zerolog.Logger {\n\treturn zerolog.New(os.Stderr).With().Str(\"service\", service).Timestamp().Logger()\n}\n"
		}
		return "package logging\n\nimport \"github.com/sirupsen/logrus\"\n\n// New returns the service's logger.\nfunc New(service string) *logrus.Entry {\n\tl := logrus.New()\n\tl.SetFormatter(&logrus.JSONFormatter{})\n\treturn l.WithField(\"service\", service)\n}\n"
	case "main":
		var b strings.Builder
		b.WriteString("// Command " + f.export + " runs the " + f.export + " service.\npackage main\n\nimport (\n\t\"context\"\n\t\"log\"\n\n")
		for _, imp := range f.imports {
			fmt.Fprintf(&b, "\t%q\n", imp)
		}
		b.WriteString(")\n\nfunc main() {\n\tctx := context.Background()\n")
		for _, imp := range f.imports {
			fmt.Fprintf(&b, "\tlog.Printf(\"starting %%s\", %s.Name)\n", path.Base(imp))
		}
		b.WriteString("\t<-ctx.Done()\n}\n")
		return b.String()
	case "test":
		var b strings.Builder
		fmt.Fprintf(&b, "package %s\n\nimport (\n\t\"context\"\n\t\"testing\"\n)\n\n", pkg)
		for i := 0; i <= f.rev; i++ {
			fmt.Fprintf(&b, "func Test%s%d(t *testing.T) {\n\tif _, err := New%s(context.Background(), \"id-%d\"); err != nil {\n\t\tt.Fatal(err)\n\t}\n}\n\n", f.target.export, i, f.target.export, i)
		}
		return b.String()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "package %s\n\nimport (\n\t\"context\"\n\t\"fmt\"\n", pkg)
	if len(f.imports) > 0 {
		b.WriteString("\n")
		for _, imp := range f.imports {
			fmt.Fprintf(&b, "\t%q\n", imp)
		}
	}
	b.WriteString(")\n\n")
	fmt.Fprintf(&b, "// %s is the %s.\ntype %s struct {\n\tID    string\n\tLimit int\n}\n\n", f.export, f.thing, f.export)
	fmt.Fprintf(&b, "// New%s returns the %s of id.\nfunc New%s(ctx context.Context, id string) (*%s, error) {\n\tif id == \"\" {\n\t\treturn nil, fmt.Errorf(\"%s: empty id\")\n\t}\n", f.export, f.thing, f.export, f.export, pkg)
	for _, imp := range f.imports {
		fmt.Fprintf(&b, "\t_ = %s.Name\n", path.Base(imp))
	}
	fmt.Fprintf(&b, "\treturn &%s{ID: id, Limit: %d}, nil\n}\n", f.export, 10+3*f.rev)
	for k := 1; k <= f.rev/2; k++ {
		fmt.Fprintf(&b, "\n// Step%d scales v.\nfunc (x *%s) Step%d(v int) int { return v * %d }\n", k, f.export, k, k+1)
	}
	return b.String()
}

func pyFile(f *file) string {
	u := f.u
	switch f.role {
	case "manifest":
		var b strings.Builder
		fmt.Fprintf(&b, "[project]\nname = \"acme-worker\"\nversion = \"0.%d.0\"\ndescription = %q\nrequires-python = \">=3.11\"\ndependencies = [\n", u.version+1, u.desc)
		vers := map[string]string{"celery": ">=5.3", "sqlalchemy": ">=2.0", "pydantic": ">=2.6", "requests": ">=2.31", "httpx": ">=0.27", "redis": ">=5.0"}
		for _, e := range u.ext {
			n := swappedName(u, e)
			fmt.Fprintf(&b, "    \"%s%s\",\n", n, bumped(vers[n], u.bumps[n]))
		}
		b.WriteString("]\n\n[project.optional-dependencies]\ndev = [\n    \"pytest>=8.0\",\n]\n\n[build-system]\nrequires = [\"setuptools>=68\"]\nbuild-backend = \"setuptools.build_meta\"\n")
		return b.String()
	case "readme":
		return "# worker\n\n" + u.desc + "\n\n```sh\npip install -e .[dev]\ncelery -A acme_worker.jobs worker\n```\n" + revNotes("-", f.rev)
	case "doc":
		return "\"\"\"" + f.export + "\"\"\"\n"
	case "http":
		if u.swapped["requests"] {
			return "\"\"\"The shared HTTP client.\"\"\"\n\nimport httpx\n\n\ndef session() -> httpx.Client:\n    return httpx.Client(timeout=10.0)\n"
		}
		return "\"\"\"The shared HTTP session.\"\"\"\n\nimport requests\n\n\ndef session() -> requests.Session:\n    return requests.Session()\n"
	case "test":
		var b strings.Builder
		fmt.Fprintf(&b, "from acme_worker.%s import %s\n\n", path.Base(path.Dir(f.target.path)), f.target.export)
		for i := 0; i <= f.rev; i++ {
			fmt.Fprintf(&b, "\ndef test_%s_%d():\n    assert %s.%s({\"id\": %d})[\"limit\"] >= 0\n\n", f.target.export, i, f.target.export, f.target.export, i)
		}
		return b.String()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\"\"\"%s for the worker's jobs.\"\"\"\n\n", strings.ToUpper(f.thing[:1])+f.thing[1:])
	for _, imp := range f.imports {
		b.WriteString(imp + "\n")
	}
	if len(f.imports) > 0 {
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "\nLIMIT = %d\n\n\ndef %s(payload: dict, limit: int = LIMIT) -> dict:\n    \"\"\"Return the %s of payload.\"\"\"\n    result = dict(payload)\n    result[\"limit\"] = limit\n    return result\n", 10+3*f.rev, f.export, f.thing)
	for k := 1; k <= f.rev/2; k++ {
		fmt.Fprintf(&b, "\n\ndef step_%d(value: int) -> int:\n    return value * %d\n", k, k+1)
	}
	return b.String()
}

func docFile(f *file) string {
	switch f.role {
	case "readme":
		return "# Documentation\n\n- `guides/` — how we work\n- `runbooks/` — what to do when something breaks\n- `adr/` — architecture decision records\n" + revNotes("-", f.rev)
	case "adr":
		var i int
		fmt.Sscan(f.export, &i)
		a := adrs[i]
		return fmt.Sprintf("# %d. %s\n\nDate: %d-%02d-01\n\n## Status\n\nAccepted\n\n## Context\n\n%s\n\n## Decision\n\n%s\n\n## Consequences\n\nEvery workspace follows this from now on; exceptions need a new ADR.\n", i+1, a.title, 2022+i/3, 1+(i*4)%12, a.context, a.decision) + revNotes("-", f.rev)
	}
	title := strings.ToUpper(f.thing[:1]) + f.thing[1:]
	return "# " + title + "\n\nThis page describes " + f.thing + " at Acme: what we do, why, and who to ask.\n\n## Steps\n\n1. Read the README of the workspace you change.\n2. Follow the checklist below.\n\n" + revNotes("-", f.rev)
}

// --- history ----------------------------------------------------------

type author struct{ name, email, tz string }

var authors = []author{
	{"Ada Park", "ada@acme.dev", "+0200"}, {"Ben Okafor", "ben@acme.dev", "+0100"}, {"Chloé Martin", "chloe@acme.dev", "+0100"},
	{"Dmitri Volkov", "dmitri@acme.dev", "+0300"}, {"Elena García", "elena@acme.dev", "+0100"}, {"Farid Haddad", "farid@acme.dev", "+0400"},
	{"Grace Liu", "grace@acme.dev", "-0700"}, {"Hiro Tanaka", "hiro@acme.dev", "+0900"},
}
var authorWeights = []int{26, 20, 15, 12, 10, 8, 6, 3}

var reasons = []string{
	"because the totals drifted between the two", "since the old path timed out under load", "so that retries stay idempotent",
	"because support could not explain the numbers", "to keep the hot path allocation-free", "otherwise two replicas run the same job",
}

var bodySentences = []string{
	"The previous approach worked while we had one replica, but the gateway now runs several and they disagreed.",
	"We measured the change on the staging data set: p95 went from 480 ms to 120 ms and the error rate did not move.",
	"This keeps the public behaviour the same; only the internals change, so no client needs a release.",
	"The alternative was a feature flag per tenant, which we rejected because nobody would ever remove it.",
	"Tests cover the edge cases found in the incident review, including empty carts and refunds after a partial shipment.",
	"A follow-up will remove the compatibility shim once the mobile apps stop sending the old field.",
	"See the discussion in the weekly architecture sync; the ADR will be updated once the migration is complete.",
	"Nothing in the database changes; the migration only touches the code that reads it.",
}

func (g *generator) body() string {
	n := 3 + g.rng.IntN(4)
	var s []string
	for i := 0; i < n; i++ {
		s = append(s, bodySentences[g.rng.IntN(len(bodySentences))])
	}
	return strings.Join(s, " ")
}

func (g *generator) scoped(kind string, u *unit, bang bool) string {
	s := kind
	if u.scope != "" {
		s += "(" + u.scope + ")"
	}
	if bang {
		s += "!"
	}
	return s + ": "
}

// message writes a commit's message from what it changes.
func (g *generator) message(u *unit, adds, mods []*file) string {
	var msg string
	if len(adds) > 0 {
		f := adds[0]
		switch {
		case f.role == "manifest":
			msg = g.scoped("chore", u, false) + "scaffold " + u.dir
		case f.role == "adr":
			msg = "docs(adr): record the decision: " + strings.ToLower(f.thing[:1]) + f.thing[1:]
		case f.role == "readme":
			msg = "docs(" + u.scope + "): add a README"
			if u.scope == "" || u.scope == "docs" {
				msg = "docs: add a README"
			}
		case f.role == "test":
			msg = g.scoped("test", u, false) + "cover " + f.thing
		case u.kind == "docs":
			msg = "docs: add the " + f.thing + " page"
		default:
			switch g.rng.IntN(4) {
			case 0:
				msg = "Add " + f.thing
			default:
				msg = g.scoped("feat", u, false) + "add " + f.thing
			}
		}
		if g.rng.IntN(10) == 0 {
			msg += "\n\n" + g.body()
		}
		return msg
	}
	f := mods[0]
	thing := f.thing
	r := g.rng.Float64()
	switch {
	case f.role == "manifest":
		return g.scoped("chore", u, false) + "bump the version of " + u.dir
	case u.kind == "docs":
		return "docs: update the " + thing + " page"
	case r < 0.025:
		return g.scoped("refactor", u, false) + "compute the " + thing + " on the server instead of in the client " + g.pick(reasons)
	case r < 0.04:
		return "no longer retry the " + thing + " on 4xx responses\n\n" + g.body()
	case r < 0.05:
		return g.scoped("feat", u, true) + "drop the v1 " + thing + " endpoints\n\nBREAKING CHANGE: clients must use v2."
	case r < 0.06:
		return g.scoped("refactor", u, false) + "replace the hand-rolled " + thing + " cache with an LRU"
	case r < 0.07:
		return g.scoped("fix", u, false) + "never log " + thing + " payloads, they may hold personal data"
	case r < 0.075:
		return g.scoped("chore", u, false) + "deprecate the legacy " + thing + " export"
	case r < 0.08:
		return g.scoped("refactor", u, false) + "keep the " + thing + " immutable, not shared"
	case r < 0.40:
		msg = g.scoped("fix", u, false) + g.pick([]string{"handle an empty ", "correct rounding in the ", "guard against a missing ", "stop double-counting in the ", "fix the off-by-one in the "}) + thing
	case r < 0.55:
		msg = g.scoped("refactor", u, false) + g.pick([]string{"simplify the ", "split the ", "rename helpers of the ", "extract the "}) + thing
	case r < 0.65:
		msg = g.scoped("chore", u, false) + g.pick([]string{"tidy the ", "lint the ", "update comments in the "}) + thing
	case r < 0.70:
		msg = g.scoped("perf", u, false) + "cache the " + thing
	case r < 0.78:
		msg = g.scoped("test", u, false) + "more cases for the " + thing
	default:
		msg = g.pick([]string{"Fix ", "Tweak ", "Update ", "Clean up ", "WIP: "}) + thing
	}
	if g.rng.IntN(9) == 0 {
		msg += "\n\n" + g.body()
	}
	return msg
}

// automatedShare is the part of the history that bots and dependency bumps
// make (goreleaser: 1,182 of its last 3,000 commits).
const automatedShare = 0.35

// bots commit as GitHub Apps do.
var (
	dependabot    = author{"dependabot[bot]", "49699333+dependabot[bot]@users.noreply.github.com", "+0000"}
	renovate      = author{"renovate[bot]", "29139614+renovate[bot]@users.noreply.github.com", "+0000"}
	githubActions = author{"github-actions[bot]", "41898282+github-actions[bot]@users.noreply.github.com", "+0000"}
)

// releaseNotes is what a bump's body quotes: the dependency's changelog,
// full of the words that mark a decision, none of them the team's.
func releaseNotes(dep, from, to string) string {
	return fmt.Sprintf("Bumps [%[1]s](https://github.com/example/%[1]s) from %[2]s to %[3]s.\n<details>\n<summary>Release notes</summary>\n<p><em>Sourced from <a href=\"https://github.com/example/%[1]s/releases\">%[1]s's releases</a>.</em></p>\n<blockquote>\n<h2>%[3]s</h2>\n<h3>BREAKING CHANGES</h3>\n<ul>\n<li>Migrate the configuration: the old loader is deprecated and replaced by the new one, instead of keeping both, because it could not be made safe.</li>\n<li>We decided to switch to ESM since CommonJS is no longer supported.</li>\n</ul>\n</blockquote>\n</details>\n<details>\n<summary>Commits</summary>\n<ul>\n<li>See full diff in <a href=\"https://github.com/example/%[1]s/compare\">compare view</a></li>\n</ul>\n</details>\n<br />\n\nDependabot will resolve any conflicts with this PR as long as you don't alter it yourself.\n", dep, from, to)
}

// automated makes a bot's commit or a dependency bump, as a third of an
// active repository's history is: dependabot bumping a manifest's
// dependency (with its release notes), renovate moving a Go module to its
// next major version, github-actions regenerating docs, a person bumping
// a tool. It reports false when no unit is ready for one.
func (g *generator) automated(i int) (*unit, []*file, author, string, bool) {
	var ready []*unit
	for _, u := range g.units {
		for _, f := range u.added {
			if f.role == "manifest" && len(u.ext) > 0 {
				ready = append(ready, u)
				break
			}
		}
	}
	if len(ready) == 0 {
		return nil, nil, author{}, "", false
	}
	manifest := func(u *unit) *file {
		for _, f := range u.added {
			if f.role == "manifest" {
				return f
			}
		}
		return nil
	}
	r := g.rng.Float64()
	switch {
	case r < 0.62: // dependabot
		u := ready[g.rng.IntN(len(ready))]
		dep := swappedName(u, u.ext[g.rng.IntN(len(u.ext))])
		base := extVersions[dep]
		if u.kind == "go" {
			base = "v1.0.0"
		} else if u.kind == "py" {
			base = ">=1.0"
		}
		from := strings.TrimLeft(bumped(base, u.bumps[dep]), "^~>=v")
		u.bumps[dep]++
		to := strings.TrimLeft(bumped(base, u.bumps[dep]), "^~>=v")
		kind := map[string]string{"go": "chore(deps)", "py": "build(deps)"}[u.kind]
		if kind == "" {
			kind = "build(deps)"
		}
		msg := fmt.Sprintf("%s: bump %s from %s to %s", kind, dep, from, to)
		if u.dir != "." {
			msg += " in /" + u.dir
		}
		return u, []*file{manifest(u)}, dependabot, msg + fmt.Sprintf(" (#%d)\n\n", 1000+i) + releaseNotes(dep, from, to), true
	case r < 0.72: // renovate: a Go module's next major version
		u := g.byDir["services"]
		if manifest(u) == nil {
			return g.automated(i)
		}
		var mods []string
		for _, e := range u.ext {
			if regexp.MustCompile(`/v\d+$`).MatchString(e) {
				mods = append(mods, e)
			}
		}
		dep := mods[g.rng.IntN(len(mods))]
		from, _ := goMajor(dep, "", u.majors[dep])
		u.majors[dep]++
		to, version := goMajor(dep, "", u.majors[dep])
		return u, []*file{manifest(u)}, renovate, fmt.Sprintf("fix(deps): update module %s to %s\n\nThis PR contains the following updates: %s → %s. It migrates the module path; the old major version is deprecated and replaced.", from, version, from, to), true
	case r < 0.9: // github-actions regenerates the docs index
		u := g.byDir["docs"]
		var readme *file
		for _, f := range u.added {
			if f.role == "readme" {
				readme = f
			}
		}
		if readme == nil {
			return g.automated(i)
		}
		return u, []*file{readme}, githubActions, "docs: regenerate the index because the pages changed, instead of by hand", true
	default: // a person bumps a tool of the root
		u := g.byDir["."]
		if manifest(u) == nil {
			return g.automated(i)
		}
		dep := g.pick([]string{"typescript", "eslint", "prettier", "@types/node"})
		from := strings.TrimLeft(bumped(extVersions[dep], u.bumps[dep]), "^")
		u.bumps[dep]++
		to := strings.TrimLeft(bumped(extVersions[dep], u.bumps[dep]), "^")
		return u, []*file{manifest(u)}, g.pickAuthor(), fmt.Sprintf("Bump %s from %s to %s\n\n"+releaseNotes(dep, from, to), dep, from, to), true
	}
}

// automatedIf is automated when want is true.
func (g *generator) automatedIf(want bool, i int) (*unit, []*file, author, string, bool) {
	if !want {
		return nil, nil, author{}, "", false
	}
	return g.automated(i)
}

func (g *generator) pickAuthor() author {
	n := g.rng.IntN(100)
	for i, w := range authorWeights {
		if n < w {
			return authors[i]
		}
		n -= w
	}
	return authors[0]
}

// pickAdding chooses the unit the next new files go to, weighted by what
// it has left.
func (g *generator) pickAdding(i int) *unit {
	total := 0
	for _, u := range g.units {
		if u.start <= i {
			total += len(u.queue)
		}
	}
	if total == 0 {
		for _, u := range g.units {
			if len(u.queue) > 0 {
				return u
			}
		}
		return nil
	}
	n := g.rng.IntN(total)
	for _, u := range g.units {
		if u.start <= i {
			if n < len(u.queue) {
				return u
			}
			n -= len(u.queue)
		}
	}
	return nil
}

func (g *generator) pickModifying() *unit {
	total := 0
	for _, u := range g.units {
		total += len(u.added)
	}
	n := g.rng.IntN(total)
	for _, u := range g.units {
		if n < len(u.added) {
			return u
		}
		n -= len(u.added)
	}
	return g.units[0]
}

func (g *generator) dueSwap(i int) (*swap, []*file) {
	for _, s := range g.swaps {
		if s.done || i < s.at {
			continue
		}
		u := g.byDir[s.unit]
		var files []*file
		ok := false
		for _, f := range u.added {
			if f.role == "manifest" {
				files = append(files, f)
				ok = true
			}
		}
		if s.designated != "" {
			found := false
			for _, f := range u.added {
				if f.role == s.designated {
					files = append(files, f)
					found = true
				}
			}
			ok = ok && found
		}
		if ok {
			return s, files
		}
	}
	return nil, nil
}

// generate writes the repository into dir (created empty) with git
// fast-import, then checks out its work tree. Its last commit is at until:
// anchored to the day of the run, the history always ends recently, as an
// active repository's does, so the engine's window of recent history (the
// last 180 days) holds the same commits every day; everything else derives
// from the seed.
func generate(dir string, commits int, seed uint64, until time.Time, env []string) (genStats, error) {
	g := newGenerator(commits, seed)
	var st genStats
	total := 0
	for _, u := range g.units {
		total += len(u.queue)
	}
	var in bytes.Buffer
	trng := rand.New(rand.NewPCG(seed+1, seed))
	gaps := make([]time.Duration, commits)
	var span time.Duration
	for i := range gaps {
		gaps[i] = time.Duration(2+trng.IntN(40))*time.Hour + time.Duration(trng.IntN(3600))*time.Second
		if i > 0 {
			span += gaps[i]
		}
	}
	when := until.Add(-span)
	deadline := commits - commits/25
	added := 0
	root := g.byDir["."]
	take := func(u *unit, n int) []*file {
		n = min(n, len(u.queue))
		out := u.queue[:n]
		u.queue = u.queue[n:]
		u.added = append(u.added, out...)
		added += n
		return out
	}
	for i := 0; i < commits; i++ {
		var u *unit
		var adds, mods []*file
		var msg string
		var bot *author // the author of an automated commit
		if i == 0 {
			u, adds = root, take(root, 4)
			msg = "Initial commit: the Acme platform as npm workspaces"
		} else if s, files := g.dueSwap(i); s != nil {
			s.done = true
			u, mods, msg = g.byDir[s.unit], files, s.msg
			u.swapped[s.from] = true
			st.Swaps++
		} else if bu, files, by, m, ok := g.automatedIf(i > 0 && i < deadline && g.rng.Float64() < automatedShare, i); ok {
			u, mods, msg, bot = bu, files, m, &by
			st.Automated++
		} else {
			t := 1 + g.rng.IntN(6)
			target := min(total, total*(i+1)/deadline)
			need := target - added + g.rng.IntN(3) - 1
			if i >= deadline {
				need = total - added
			}
			nAdd := max(0, min(need, t))
			if nAdd > 0 {
				u = g.pickAdding(i)
			}
			if u == nil {
				nAdd = 0
				u = g.pickModifying()
			}
			adds = take(u, nAdd)
			// Edits: files of the same unit, not the new ones.
			old := u.added[:len(u.added)-len(adds)]
			for k := 0; k < t-len(adds) && len(old) > 0; k++ {
				f := old[g.rng.IntN(len(old))]
				if (f.role == "manifest" || f.role == "static" && f.path != "README.md") && g.rng.IntN(4) != 0 {
					continue
				}
				if !containsFile(mods, f) {
					mods = append(mods, f)
				}
			}
			if len(adds)+len(mods) == 0 {
				u = root
				mods = []*file{root.added[1]} // README.md
			}
			msg = g.message(u, adds, mods)
		}
		for _, f := range mods {
			if bot != nil && f.role == "manifest" {
				continue // a bump changes a dependency's version, not the package's
			}
			f.rev++
			if f.role == "manifest" {
				u.version++
			}
		}
		a := g.pickAuthor()
		if bot != nil {
			a = *bot
		}
		if i > 0 {
			when = when.Add(gaps[i])
		}
		fmt.Fprintf(&in, "commit refs/heads/main\nmark :%d\nauthor %s <%s> %d %s\ncommitter %s <%s> %d %s\ndata %d\n%s\n",
			i+1, a.name, a.email, when.Unix(), a.tz, a.name, a.email, when.Unix(), a.tz, len(msg)+1, msg)
		if i > 0 {
			fmt.Fprintf(&in, "from :%d\n", i)
		}
		for _, f := range append(append([]*file(nil), adds...), mods...) {
			c := g.content(f)
			fmt.Fprintf(&in, "M 100644 inline %s\ndata %d\n%s\n", f.path, len(c), c)
		}
		st.Commits++
	}
	in.WriteString("done\n")
	if added != total {
		return st, fmt.Errorf("generator: %d of %d files added; the plan needs more commits", added, total)
	}
	st.Files = total
	gitIn := func(stdin *bytes.Buffer, args ...string) error {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = dir, env
		if stdin != nil {
			cmd.Stdin = stdin
		}
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return nil
	}
	if err := gitIn(nil, "init", "-q", "-b", "main"); err != nil {
		return st, err
	}
	if err := gitIn(&in, "fast-import", "--quiet", "--done"); err != nil {
		return st, err
	}
	if err := gitIn(nil, "reset", "-q", "--hard", "main"); err != nil {
		return st, err
	}
	return st, nil
}

func containsFile(list []*file, f *file) bool {
	for _, x := range list {
		if x == f {
			return true
		}
	}
	return false
}
