package scan

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/kontext-dev/kontext/internal/repo/model"

	"github.com/kontext-dev/kontext/internal/gittest"
)

// newGitRepo makes a real repository with the files, committed.
func newGitRepo(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	runGit(t, dir, "init", "-q", "-b", "main")
	runGit(t, dir, "config", "user.name", "Ada Lovelace")
	runGit(t, dir, "config", "user.email", "ada@example.com")
	runGit(t, dir, "config", "commit.gpgsign", "false")
	writeFiles(t, dir, files)
	runGit(t, dir, "add", "-A")
	runGit(t, dir, "commit", "-q", "-m", "initial")
	return dir
}

func runGit(t *testing.T, dir string, args ...string) {
	t.Helper()
	gittest.Run(t, dir, append(gittest.Identity("Ada Lovelace", "ada@example.com"), gittest.At("2026-01-02T03:04:05Z")...), args...)
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for rel, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func scanFixture(t *testing.T, files map[string]string) *model.Graph {
	t.Helper()
	g, err := Scan(context.Background(), newGitRepo(t, files), Options{})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// Lookups that fail the test with what exists instead.

func module(t *testing.T, g *model.Graph, id string) model.Module {
	t.Helper()
	for _, m := range g.Modules {
		if m.ID == id {
			return m
		}
	}
	var ids []string
	for _, m := range g.Modules {
		ids = append(ids, m.ID+"("+string(m.Basis)+")")
	}
	t.Fatalf("no module %q; modules: %v", id, ids)
	return model.Module{}
}

func file(t *testing.T, g *model.Graph, p string) model.File {
	t.Helper()
	for _, f := range g.Files {
		if f.Path == p {
			return f
		}
	}
	t.Fatalf("no file %q", p)
	return model.File{}
}

func importOf(t *testing.T, g *model.Graph, p, spec string) model.Import {
	t.Helper()
	f := file(t, g, p)
	for _, imp := range f.Imports {
		if imp.Spec == spec {
			return imp
		}
	}
	t.Fatalf("%s has no import %q; imports: %+v", p, spec, f.Imports)
	return model.Import{}
}

func wantImport(t *testing.T, g *model.Graph, p, spec string, kind model.ImportKind, target string) {
	t.Helper()
	imp := importOf(t, g, p, spec)
	if imp.Kind != kind || imp.Target != target {
		t.Errorf("%s: import %q = %s %q, want %s %q", p, spec, imp.Kind, imp.Target, kind, target)
	}
}

func noImport(t *testing.T, g *model.Graph, p, spec string) {
	t.Helper()
	for _, imp := range file(t, g, p).Imports {
		if imp.Spec == spec {
			t.Errorf("%s: %q is not an import (it is in a string, comment or regexp)", p, spec)
		}
	}
}

func edge(t *testing.T, g *model.Graph, from, to string) model.Dependency {
	t.Helper()
	for _, d := range g.Dependencies {
		if d.From == from && d.To == to {
			return d
		}
	}
	var all []string
	for _, d := range g.Dependencies {
		all = append(all, d.From+"->"+d.To)
	}
	t.Fatalf("no dependency %s -> %s; have %v", from, to, all)
	return model.Dependency{}
}

func noEdge(t *testing.T, g *model.Graph, from, to string) {
	t.Helper()
	for _, d := range g.Dependencies {
		if d.From == from && d.To == to {
			t.Errorf("unexpected dependency %s -> %s: %+v", from, to, d.Evidence)
		}
	}
}

func external(t *testing.T, g *model.Graph, eco, name string) model.External {
	t.Helper()
	for _, e := range g.External {
		if e.Ecosystem == eco && e.Name == name {
			return e
		}
	}
	var all []string
	for _, e := range g.External {
		all = append(all, e.Ecosystem+":"+e.Name)
	}
	t.Fatalf("no external %s %s; have %v", eco, name, all)
	return model.External{}
}

func wantModules(t *testing.T, g *model.Graph, want map[string]model.ModuleBasis) {
	t.Helper()
	for id, basis := range want {
		if m := module(t, g, id); m.Basis != basis {
			t.Errorf("module %s basis %s, want %s", id, m.Basis, basis)
		}
	}
}

func hasSymbol(f model.File, name, kind string) bool {
	for _, s := range f.Symbols {
		if s.Name == name && s.Kind == kind {
			return true
		}
	}
	return false
}

var layeredTS = map[string]string{
	"package.json": `{
  "name": "layered-app",
  "version": "0.3.0",
  "description": "A layered TypeScript service",
  "scripts": {"build": "tsc", "test": "vitest"},
  "dependencies": {"express": "^4.19.2", "zod": "3.23.8"},
  "devDependencies": {"typescript": "^5.4.0", "vitest": "^1.6.0"}
}
`,
	"tsconfig.base.json": `{
  // shared by every tsconfig
  "compilerOptions": {
    "baseUrl": ".",
    "paths": {"@domain/*": ["src/domain/*"], "@app/*": ["src/application/*"],},
  },
}
`,
	"tsconfig.json": `{"extends": "./tsconfig.base.json", "compilerOptions": {"strict": true}}`,
	"src/domain/user.ts": `import { DomainError } from './errors';

export interface UserProps { name: string }
export class User {
  constructor(readonly props: UserProps) {
    if (!props.name) throw new DomainError('name');
  }
}
export const MAX_NAME = 80, MIN_NAME = 1;
`,
	"src/domain/order.ts":  "import { User } from './user';\nexport type OrderId = string;\nexport function place(u: User) { return u }\n",
	"src/domain/errors.ts": "export class DomainError extends Error {}\n",
	"src/application/createUser.ts": `import { z } from 'zod';
import { User } from '@domain/user';
import { DomainError } from '../domain/errors';

// require('commented-out')
const template = ` + "`import x from 'in-a-template' ${z.string()} and ${`nested ${'x'}`}`" + `;
const re = /import("in-a-regexp")/g;
const ratio = 4 / 2; const other = "export * from 'in-a-string'";
export async function createUser(name: string) { return new User({ name }) }
`,
	"src/application/listUsers.ts": "import type { User } from '@domain/user';\nexport default function listUsers(): User[] { return [] }\n",
	"src/application/index.ts":     "export * from './createUser';\nexport { default as listUsers } from './listUsers.js';\n",
	"src/infrastructure/db.ts":     "import * as fs from 'node:fs';\nimport path from 'path';\nexport const db = { fs, path };\n",
	"src/infrastructure/userRepository.ts": `import { User } from '@domain/user';
export async function load() {
  const { db } = await import('./db');
  const legacy = require('./legacy.cjs');
  return [db, legacy, User];
}
`,
	"src/infrastructure/legacy.cjs":               "module.exports.legacy = true;\nexports.old = 1;\n",
	"src/infrastructure/http.ts":                  "import express from 'express';\nexport const app = express();\n",
	"src/ui/App.tsx":                              "import { createUser } from '@app/createUser';\nimport React from 'react';\nexport function App() { return <button onClick={() => createUser('a')}>it's ok</button> }\n",
	"src/ui/Button.tsx":                           "import React from 'react';\nexport const Button = () => <button/>;\n",
	"src/ui/main.tsx":                             "import { App } from './App';\nimport { missing } from './nowhere';\nexport { App };\n",
	"docs/adr/0001-use-hexagonal-architecture.md": "# 1. Use hexagonal architecture\n\nStatus: accepted\n",
	"README.md":                                   "# layered-app\n\nA demo.\n",
}

func TestFixtureLayeredTypeScript(t *testing.T) {
	g := scanFixture(t, layeredTS)
	wantModules(t, g, map[string]model.ModuleBasis{
		".":                  model.BasisManifest,
		"src/domain":         model.BasisDirectory,
		"src/application":    model.BasisDirectory,
		"src/infrastructure": model.BasisDirectory,
		"src/ui":             model.BasisDirectory,
	})
	if m := module(t, g, "."); m.Name != "layered-app" || m.Description != "A layered TypeScript service" || m.Manifest != "package.json" {
		t.Errorf("root module %+v", m)
	}
	if g.Summary.Name != "layered-app" {
		t.Errorf("summary name %q", g.Summary.Name)
	}
	if f := file(t, g, "docs/adr/0001-use-hexagonal-architecture.md"); f.Kind != model.FileDocs || f.Module != "." {
		t.Errorf("ADR: %+v", f)
	}

	wantImport(t, g, "src/application/createUser.ts", "@domain/user", model.ImportInternalFile, "src/domain/user.ts")
	wantImport(t, g, "src/application/createUser.ts", "../domain/errors", model.ImportInternalFile, "src/domain/errors.ts")
	wantImport(t, g, "src/application/createUser.ts", "zod", model.ImportExternal, "zod")
	for _, fake := range []string{"commented-out", "in-a-template", "in-a-regexp", "in-a-string"} {
		noImport(t, g, "src/application/createUser.ts", fake)
	}
	wantImport(t, g, "src/application/index.ts", "./listUsers.js", model.ImportInternalFile, "src/application/listUsers.ts")
	wantImport(t, g, "src/infrastructure/db.ts", "node:fs", model.ImportBuiltin, "node:fs")
	wantImport(t, g, "src/infrastructure/db.ts", "path", model.ImportBuiltin, "path")
	wantImport(t, g, "src/infrastructure/userRepository.ts", "./db", model.ImportInternalFile, "src/infrastructure/db.ts")
	wantImport(t, g, "src/infrastructure/userRepository.ts", "./legacy.cjs", model.ImportInternalFile, "src/infrastructure/legacy.cjs")
	wantImport(t, g, "src/ui/App.tsx", "@app/createUser", model.ImportInternalFile, "src/application/createUser.ts")
	wantImport(t, g, "src/ui/main.tsx", "./nowhere", model.ImportUnresolved, "")
	if imp := importOf(t, g, "src/infrastructure/userRepository.ts", "./db"); imp.Line != 3 {
		t.Errorf("dynamic import line %d", imp.Line)
	}

	d := edge(t, g, "src/application", "src/domain")
	if d.Kind != model.ImportInternalModule || d.Imports != 3 || len(d.Evidence) == 0 || d.Evidence[0].File != "src/application/createUser.ts" || d.Evidence[0].Line != 2 {
		t.Errorf("application -> domain: %+v", d)
	}
	edge(t, g, "src/infrastructure", "src/domain")
	edge(t, g, "src/ui", "src/application")
	noEdge(t, g, "src/domain", "src/application")
	noEdge(t, g, "src/domain", "src/infrastructure")
	if m := module(t, g, "src/domain"); !slices.Equal(m.UsedBy, []string{"src/application", "src/infrastructure"}) || len(m.DependsOn) != 0 {
		t.Errorf("domain used by %v, depends on %v", m.UsedBy, m.DependsOn)
	}

	if e := external(t, g, "npm", "express"); e.Version != "^4.19.2" || e.Dev || !slices.Equal(e.UsedBy, []string{".", "src/infrastructure"}) || !slices.Equal(e.Manifests, []string{"package.json"}) {
		t.Errorf("express: %+v", e)
	}
	if e := external(t, g, "npm", "typescript"); !e.Dev || e.Version != "^5.4.0" {
		t.Errorf("typescript: %+v", e)
	}
	if e := external(t, g, "npm", "react"); len(e.Manifests) != 0 || !slices.Equal(e.UsedBy, []string{"src/ui"}) {
		t.Errorf("react (undeclared): %+v", e)
	}

	user := file(t, g, "src/domain/user.ts")
	for _, s := range [][2]string{{"UserProps", "interface"}, {"User", "class"}, {"MAX_NAME", "const"}, {"MIN_NAME", "const"}} {
		if !hasSymbol(user, s[0], s[1]) {
			t.Errorf("user.ts lacks %s %s: %+v", s[1], s[0], user.Symbols)
		}
	}
	if f := file(t, g, "src/application/listUsers.ts"); !hasSymbol(f, "default", "default") && !hasSymbol(f, "listUsers", "function") {
		t.Errorf("listUsers.ts symbols %+v", f.Symbols)
	}
	if f := file(t, g, "src/infrastructure/legacy.cjs"); !hasSymbol(f, "legacy", "var") || !hasSymbol(f, "old", "var") {
		t.Errorf("CommonJS exports %+v", f.Symbols)
	}
	if f := file(t, g, "src/ui/App.tsx"); f.Language != "TSX" || f.Kind != model.FileSource || f.Lines != 3 {
		t.Errorf("App.tsx: %+v", f)
	}
	if !slices.Contains(g.Summary.PackageManagers, "npm") {
		t.Errorf("package managers %v", g.Summary.PackageManagers)
	}
}

var goModule = map[string]string{
	"go.mod": `module example.com/shop

go 1.22

require (
	github.com/google/uuid v1.6.0
	golang.org/x/text v0.14.0 // indirect
)
`,
	"cmd/shop/main.go": `// Command shop runs the shop.
package main

import (
	"fmt"

	"example.com/shop/internal/order"
)

func main() { fmt.Println(order.New()) }
`,
	"internal/order/order.go": `package order

import (
	"github.com/google/uuid"

	"example.com/shop/internal/money"
)

// Order is a purchase.
type Order struct{ ID string; Total money.Amount }

const (
	StatusOpen = "open"
	statusHidden = "x"
)

func New() Order { return Order{ID: uuid.NewString()} }

func (o Order) Close() {}
`,
	"internal/order/order_test.go":    "package order_test\n\nimport (\n\t\"testing\"\n\n\t\"example.com/shop/internal/order\"\n)\n\nfunc TestNew(t *testing.T) { _ = order.New() }\n",
	"internal/money/doc.go":           "// Package money does arithmetic on amounts of money.\n//\n// It never uses floats.\npackage money\n",
	"internal/money/money.go":         "package money\n\n// Amount is in cents.\ntype Amount int64\n\nvar Zero, One Amount = 0, 1\n",
	"internal/money/gen.go":           "//go:build ignore\n\npackage main\n\nimport \"os\"\n\nfunc main() { os.Exit(0) }\n",
	"internal/money/money_windows.go": "// +build windows\n\npackage money\n\nimport \"syscall\"\n\nvar _ = syscall.Getpid\n",
	"internal/money/zz_generated.go":  "// Code generated by stringer; DO NOT EDIT.\n\npackage money\n",
}

func TestFixtureGoModule(t *testing.T) {
	g := scanFixture(t, goModule)
	wantModules(t, g, map[string]model.ModuleBasis{
		".":              model.BasisManifest,
		"cmd/shop":       model.BasisDirectory,
		"internal/order": model.BasisDirectory,
		"internal/money": model.BasisDirectory,
	})
	if m := module(t, g, "cmd/shop"); m.Name != "example.com/shop/cmd/shop" || m.Description != "Command shop runs the shop." {
		t.Errorf("cmd/shop: %+v", m)
	}
	if m := module(t, g, "internal/money"); m.Description != "Package money does arithmetic on amounts of money." {
		t.Errorf("money description %q", m.Description)
	}
	if f := file(t, g, "cmd/shop/main.go"); f.Package != "main" {
		t.Errorf("main.go package %q", f.Package)
	}
	wantImport(t, g, "cmd/shop/main.go", "fmt", model.ImportBuiltin, "fmt")
	wantImport(t, g, "cmd/shop/main.go", "example.com/shop/internal/order", model.ImportInternalModule, "internal/order")
	wantImport(t, g, "internal/order/order.go", "github.com/google/uuid", model.ImportExternal, "github.com/google/uuid")
	if f := file(t, g, "internal/money/gen.go"); f.Constraint != "ignore" {
		t.Errorf("gen.go constraint %q", f.Constraint)
	}
	if f := file(t, g, "internal/money/money_windows.go"); f.Constraint != "windows" {
		t.Errorf("+build converted: %q", f.Constraint)
	}
	if f := file(t, g, "internal/money/zz_generated.go"); !f.Generated {
		t.Error("generated header not recognised")
	}
	if f := file(t, g, "internal/order/order_test.go"); f.Kind != model.FileTest || f.Package != "order_test" {
		t.Errorf("test file %+v", f)
	}
	order := file(t, g, "internal/order/order.go")
	if !hasSymbol(order, "Order", "struct") || !hasSymbol(order, "StatusOpen", "const") || !hasSymbol(order, "New", "function") ||
		hasSymbol(order, "statusHidden", "const") || hasSymbol(order, "Close", "function") {
		t.Errorf("order.go symbols %+v", order.Symbols)
	}
	if money := file(t, g, "internal/money/money.go"); !hasSymbol(money, "Zero", "var") || !hasSymbol(money, "One", "var") {
		t.Errorf("money.go symbols %+v", money.Symbols)
	}

	if d := edge(t, g, "cmd/shop", "internal/order"); d.Imports != 1 || d.Evidence[0] != (model.Evidence{File: "cmd/shop/main.go", Line: 7, Detail: "imports example.com/shop/internal/order"}) {
		t.Errorf("cmd/shop -> internal/order %+v", d)
	}
	edge(t, g, "internal/order", "internal/money")
	noEdge(t, g, "internal/order", "internal/order")
	if e := external(t, g, "go", "github.com/google/uuid"); e.Version != "v1.6.0" || !slices.Equal(e.UsedBy, []string{".", "internal/order"}) {
		t.Errorf("uuid %+v", e)
	}
	for _, e := range g.External {
		if e.Name == "golang.org/x/text" {
			t.Errorf("an indirect requirement is listed as external: %+v", e)
		}
	}
	if m := g.Manifests[0]; m.Path != "go.mod" || m.Name != "example.com/shop" || len(m.Dependencies) != 2 {
		t.Errorf("go.mod manifest %+v", m)
	}
}

var cargoWorkspace = map[string]string{
	"Cargo.toml": "[workspace]\nmembers = [\"crates/*\"]\nresolver = \"2\"\n\n[workspace.dependencies]\nserde = { version = \"1.0.200\", features = [\"derive\"] }\n",
	"crates/core/Cargo.toml": `[package]
name = "shop-core"
version = "0.2.0"
description = "Domain types of the shop"
edition = "2021"

[dependencies]
serde = { workspace = true }
thiserror = "1.0"

[dev-dependencies]
proptest = "1"
`,
	"crates/core/src/lib.rs":       "//! Core domain types.\n//!\n//! More words.\n\npub mod model;\nmod util;\n\npub use model::Item;\n\npub fn version() -> &'static str { \"1\" }\npub(crate) fn hidden() {}\n",
	"crates/core/src/util.rs":      "pub fn helper() -> char { '{' }\n",
	"crates/core/src/model/mod.rs": "use crate::util::helper;\nuse serde::{Deserialize, Serialize};\nuse super::version;\n\n#[derive(Serialize, Deserialize)]\npub struct Item { pub name: String }\n\npub enum Kind { A, B }\nconst S: &str = r#\"use fake::path;\"#;\n",
	"crates/cli/Cargo.toml":        "[package]\nname = \"shop-cli\"\nversion = \"0.1.0\"\n\n[dependencies]\nshop-core = { path = \"../core\" }\nclap = { version = \"4.5\", features = [\"derive\"] }\n",
	"crates/cli/src/main.rs":       "use shop_core::model::Item;\nuse clap::Parser;\nuse std::{fs, io::{self, Read}};\n\nfn main() { let _ = Item { name: String::new() }; }\n",
}

func TestFixtureCargoWorkspace(t *testing.T) {
	g := scanFixture(t, cargoWorkspace)
	if len(g.Workspaces) != 1 || g.Workspaces[0].Tool != "cargo" || !slices.Equal(g.Workspaces[0].Members, []string{"crates/cli", "crates/core"}) {
		t.Fatalf("workspaces %+v", g.Workspaces)
	}
	wantModules(t, g, map[string]model.ModuleBasis{
		"crates/cli":            model.BasisWorkspacePackage,
		"crates/core":           model.BasisWorkspacePackage,
		"crates/core/src/model": model.BasisIndexFile,
	})
	if m := module(t, g, "crates/core"); m.Name != "shop-core" || m.Description != "Domain types of the shop" {
		t.Errorf("core %+v", m)
	}
	wantImport(t, g, "crates/cli/src/main.rs", "shop_core::model::Item", model.ImportWorkspacePackage, "crates/core/src/model/mod.rs")
	wantImport(t, g, "crates/cli/src/main.rs", "clap::Parser", model.ImportExternal, "clap")
	wantImport(t, g, "crates/cli/src/main.rs", "std::fs", model.ImportBuiltin, "std")
	wantImport(t, g, "crates/cli/src/main.rs", "std::io::Read", model.ImportBuiltin, "std")
	wantImport(t, g, "crates/core/src/model/mod.rs", "crate::util::helper", model.ImportInternalFile, "crates/core/src/util.rs")
	wantImport(t, g, "crates/core/src/model/mod.rs", "super::version", model.ImportInternalFile, "crates/core/src/lib.rs")
	wantImport(t, g, "crates/core/src/model/mod.rs", "serde::Serialize", model.ImportExternal, "serde")
	wantImport(t, g, "crates/core/src/lib.rs", "model::Item", model.ImportInternalFile, "crates/core/src/model/mod.rs")
	noImport(t, g, "crates/core/src/model/mod.rs", "fake::path")

	if d := edge(t, g, "crates/cli", "crates/core/src/model"); d.Kind != model.ImportWorkspacePackage || d.Imports != 1 || d.Evidence[0].Line != 1 {
		t.Errorf("cli -> core's model %+v", d)
	}
	d := edge(t, g, "crates/cli", "crates/core")
	if d.Kind != model.ImportWorkspacePackage {
		t.Errorf("cli -> core %+v", d)
	}
	manifestEvidence := false
	for _, ev := range d.Evidence {
		if ev.File == "crates/cli/Cargo.toml" && ev.Line == 6 {
			manifestEvidence = true
		}
	}
	if !manifestEvidence {
		t.Errorf("cli -> core lacks the path dependency as evidence: %+v", d.Evidence)
	}
	edge(t, g, "crates/core/src/model", "crates/core")
	if e := external(t, g, "cargo", "clap"); e.Version != "4.5" || !slices.Equal(e.UsedBy, []string{"crates/cli"}) {
		t.Errorf("clap %+v", e)
	}
	if e := external(t, g, "cargo", "serde"); !slices.Contains(e.UsedBy, "crates/core/src/model") || !slices.Contains(e.Manifests, "Cargo.toml") {
		t.Errorf("serde %+v", e)
	}
	if e := external(t, g, "cargo", "proptest"); !e.Dev {
		t.Errorf("proptest %+v", e)
	}
	lib := file(t, g, "crates/core/src/lib.rs")
	if lib.Doc != "Core domain types." || !hasSymbol(lib, "version", "function") || hasSymbol(lib, "hidden", "function") || !hasSymbol(lib, "model", "mod") {
		t.Errorf("lib.rs %+v", lib)
	}
	if m := module(t, g, "crates/core/src/model"); m.Description != "" {
		t.Logf("model description %q", m.Description)
	}
}

var pythonPackage = map[string]string{
	"pyproject.toml": `[project]
name = "acme-tools"
version = "1.4.0"
description = "Small tools for Acme"
dependencies = ["requests>=2.31", "PyYAML==6.0.1; python_version >= '3.8'"]

[project.optional-dependencies]
dev = ["pytest==8.2.0"]

[project.scripts]
acme = "acme.cli:main"
`,
	"requirements.txt":     "# pinned\nrequests>=2.31\nclick==8.1.7  # cli\n-r requirements-dev.txt\n",
	"requirements-dev.txt": "pytest==8.2.0\n",
	"src/acme/__init__.py": "\"\"\"Acme tools: small utilities.\n\nMore.\n\"\"\"\n\n__version__ = \"1.4.0\"\n",
	"src/acme/cli.py":      "import click\nfrom .core import run\nfrom . import util\n\n\ndef main():\n    run()\n",
	"src/acme/core.py":     "import os, sys\nimport requests\nimport yaml\nfrom acme.util import (\n    helper,\n    other,\n)\ntext = \"\"\"\nimport fake_in_docstring\n\"\"\"\n\nMAX_RETRIES = 3\n\n\ndef run():\n    import json\n    return helper()\n\n\nclass Runner:\n    pass\n\n\ndef _private():\n    pass\n",
	"src/acme/util.py":     "def helper():\n    return 1\n\n\ndef other():\n    return 2\n",
	"tests/test_core.py":   "import pytest\nfrom acme.core import run\n\n\ndef test_run():\n    assert run() == 1\n",
}

func TestFixturePythonPackage(t *testing.T) {
	g := scanFixture(t, pythonPackage)
	wantModules(t, g, map[string]model.ModuleBasis{".": model.BasisManifest, "src/acme": model.BasisDirectory})
	if m := module(t, g, "src/acme"); m.Description != "Acme tools: small utilities." {
		t.Errorf("acme description %q", m.Description)
	}
	if m := module(t, g, "."); m.Name != "acme-tools" || m.Manifest != "pyproject.toml" {
		t.Errorf("root %+v", m)
	}
	wantImport(t, g, "src/acme/cli.py", ".core", model.ImportInternalFile, "src/acme/core.py")
	wantImport(t, g, "src/acme/cli.py", ".util", model.ImportInternalFile, "src/acme/util.py")
	wantImport(t, g, "src/acme/cli.py", "click", model.ImportExternal, "click")
	wantImport(t, g, "src/acme/core.py", "acme.util", model.ImportInternalFile, "src/acme/util.py")
	wantImport(t, g, "src/acme/core.py", "os", model.ImportBuiltin, "os")
	wantImport(t, g, "src/acme/core.py", "sys", model.ImportBuiltin, "sys")
	wantImport(t, g, "src/acme/core.py", "json", model.ImportBuiltin, "json")
	wantImport(t, g, "src/acme/core.py", "yaml", model.ImportExternal, "PyYAML")
	wantImport(t, g, "tests/test_core.py", "acme.core", model.ImportInternalFile, "src/acme/core.py")
	noImport(t, g, "src/acme/core.py", "fake_in_docstring")
	if imp := importOf(t, g, "src/acme/core.py", "acme.util"); imp.Line != 4 {
		t.Errorf("multi-line from-import line %d", imp.Line)
	}
	core := file(t, g, "src/acme/core.py")
	if !hasSymbol(core, "run", "function") || !hasSymbol(core, "Runner", "class") || !hasSymbol(core, "MAX_RETRIES", "const") || hasSymbol(core, "_private", "function") {
		t.Errorf("core.py symbols %+v", core.Symbols)
	}
	if f := file(t, g, "tests/test_core.py"); f.Kind != model.FileTest {
		t.Errorf("test kind %s", f.Kind)
	}
	if e := external(t, g, "pypi", "requests"); e.Version != ">=2.31" || !slices.Equal(e.Manifests, []string{"pyproject.toml", "requirements.txt"}) || !slices.Contains(e.UsedBy, "src/acme") {
		t.Errorf("requests %+v", e)
	}
	if e := external(t, g, "pypi", "PyYAML"); e.Version != "==6.0.1" || !slices.Contains(e.UsedBy, "src/acme") {
		t.Errorf("PyYAML %+v", e)
	}
	if e := external(t, g, "pypi", "pytest"); !e.Dev {
		t.Errorf("pytest %+v", e)
	}
	if e := external(t, g, "pypi", "click"); e.Version != "==8.1.7" {
		t.Errorf("click %+v", e)
	}
	if !slices.Contains(g.Summary.PackageManagers, "pip") {
		t.Errorf("package managers %v", g.Summary.PackageManagers)
	}
}

var pnpmMonorepo = map[string]string{
	"package.json":        `{"name": "mono", "private": true, "devDependencies": {"typescript": "^5.4.0"}}`,
	"pnpm-workspace.yaml": "packages:\n  - 'packages/*'\n  - '!packages/ignored'\n",
	"pnpm-lock.yaml":      "lockfileVersion: '9.0'\n",
	"packages/core/package.json": `{
  "name": "@mono/core",
  "version": "1.0.0",
  "description": "Shared arithmetic",
  "main": "dist/index.js",
  "exports": {".": {"types": "./dist/index.d.ts", "import": "./dist/index.js"}},
  "dependencies": {"lodash": "^4.17.21"}
}`,
	"packages/core/src/index.ts": "import sum from 'lodash/sum';\nexport function add(a: number, b: number) { return sum([a, b]) }\n",
	"packages/api/package.json": `{
  "name": "@mono/api",
  "version": "0.1.0",
  "bin": {"mono-api": "dist/server.js"},
  "dependencies": {
    "@mono/core": "workspace:*",
    "fastify": "^4.0.0"
  }
}`,
	"packages/api/src/server.ts":    "import { add } from '@mono/core';\nimport Fastify from 'fastify';\n\nexport const app = Fastify();\nexport const two = add(1, 1);\n",
	"packages/ignored/package.json": `{"name": "@mono/ignored"}`,
	"packages/api/src/routes.ts":    "import { app } from './server';\nexport function routes() { return app }\n",
	"packages/api/src/plugins.ts":   "export const plugins = [];\n",
}

func TestFixturePnpmMonorepo(t *testing.T) {
	g := scanFixture(t, pnpmMonorepo)
	if len(g.Workspaces) != 1 || g.Workspaces[0].Tool != "pnpm" || g.Workspaces[0].Manifest != "pnpm-workspace.yaml" ||
		!slices.Equal(g.Workspaces[0].Members, []string{"packages/api", "packages/core"}) {
		t.Fatalf("workspaces %+v", g.Workspaces)
	}
	wantModules(t, g, map[string]model.ModuleBasis{
		".":                model.BasisManifest,
		"packages/api":     model.BasisWorkspacePackage,
		"packages/core":    model.BasisWorkspacePackage,
		"packages/ignored": model.BasisManifest,
	})
	for _, m := range g.Modules {
		if m.ID == "packages/api/src" {
			t.Errorf("a package's src is the package's code, not a module: %+v", m)
		}
	}
	if m := module(t, g, "packages/api"); m.Files != 4 {
		t.Errorf("api owns %d files", m.Files)
	}
	if m := module(t, g, "packages/core"); m.Name != "@mono/core" || m.Description != "Shared arithmetic" || m.Manifest != "packages/core/package.json" {
		t.Errorf("core %+v", m)
	}
	var api model.Manifest
	for _, m := range g.Manifests {
		if m.Path == "packages/api/package.json" {
			api = m
		}
	}
	if !slices.Equal(api.Internal, []string{"@mono/core"}) || !slices.Equal(api.Bins, []string{"mono-api"}) {
		t.Errorf("api manifest %+v", api)
	}
	wantImport(t, g, "packages/api/src/server.ts", "@mono/core", model.ImportWorkspacePackage, "packages/core/src/index.ts")
	wantImport(t, g, "packages/api/src/server.ts", "fastify", model.ImportExternal, "fastify")
	wantImport(t, g, "packages/core/src/index.ts", "lodash/sum", model.ImportExternal, "lodash")
	d := edge(t, g, "packages/api", "packages/core")
	if d.Kind != model.ImportWorkspacePackage || d.Imports != 1 || d.Evidence[0].File != "packages/api/src/server.ts" || d.Evidence[0].Line != 1 {
		t.Errorf("api -> core %+v", d)
	}
	if ev := d.Evidence[len(d.Evidence)-1]; ev.File != "packages/api/package.json" || ev.Line != 6 {
		t.Errorf("api -> core manifest evidence %+v", ev)
	}
	noEdge(t, g, "packages/core", "packages/api")
	if e := external(t, g, "npm", "fastify"); e.Version != "^4.0.0" || !slices.Equal(e.UsedBy, []string{"packages/api"}) {
		t.Errorf("fastify %+v", e)
	}
	if e := external(t, g, "npm", "lodash"); e.Version != "^4.17.21" || !slices.Equal(e.UsedBy, []string{"packages/core"}) {
		t.Errorf("lodash %+v", e)
	}
	for _, e := range g.External {
		if e.Name == "@mono/core" {
			t.Errorf("a workspace package is listed as external: %+v", e)
		}
	}
	if !slices.Contains(g.Summary.PackageManagers, "pnpm") || slices.Contains(g.Summary.PackageManagers, "npm") {
		t.Errorf("package managers %v", g.Summary.PackageManagers)
	}
}
