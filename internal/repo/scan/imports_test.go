package scan

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/kontext-dev/kontext/internal/repo/model"
)

func specs(f model.File) []string {
	var out []string
	for _, imp := range f.Imports {
		out = append(out, imp.Spec)
	}
	return out
}

func TestJavaScriptLexer(t *testing.T) {
	src := `import a from "a"; import "side-effect";
import {
  b,
  c as d,
} from 'multi-line';
import type { T } from "types-only";
export * from "./reexport";
export * as ns from "./ns";
export { e } from "./named";
const x = (y) / 2 / 3; const s = "import z from 'no'";
const r = /["'\/]import('no-regexp')/g.test(x) ? 1 : 2;
if (ok) /import("no-regexp-after-paren-is-division")/;
const t = ` + "`${ `${ \"import('no-nested')\" }` } import('no-template')`" + `;
const lazy = () => import("./lazy");
const cjs = require("cjs-module");
obj.require("no-member-call");
import x2 = require("ts-require");
/* import "no-comment" */
// import "no-line-comment"
const meta = import.meta.url;
export default class Widget {}
export enum Color { Red }
export abstract class Base {}
export { local as renamed, other };
`
	f := model.File{}
	parseJS([]byte(src), &f)
	want := []string{"a", "side-effect", "multi-line", "types-only", "./reexport", "./ns", "./named", "./lazy", "cjs-module", "ts-require"}
	got := specs(f)
	// "no-regexp-after-paren-is-division" is read as code: after ")" a
	// slash is a division, as in almost all real code.
	got = slices.DeleteFunc(got, func(s string) bool { return s == "no-regexp-after-paren-is-division" })
	if !slices.Equal(got, want) {
		t.Errorf("imports\n got %q\nwant %q", got, want)
	}
	if f.Imports[2].Line != 2 {
		t.Errorf("multi-line import at line %d", f.Imports[2].Line)
	}
	for _, s := range [][2]string{{"Widget", "class"}, {"Color", "enum"}, {"Base", "class"}, {"renamed", "export"}, {"other", "export"}} {
		if !hasSymbol(f, s[0], s[1]) {
			t.Errorf("missing symbol %v in %+v", s, f.Symbols)
		}
	}
}

func TestPythonScanner(t *testing.T) {
	src := `#!/usr/bin/env python
r'''Module doc.

Second paragraph.'''
import a.b as ab, c
from ..pkg.mod import (x,
    y)
from . import (one, two as second)
from .sibling import *
s = "import not_this"
t = '''
from nope import x
'''
try: import optional_dep
except ImportError: optional_dep = None
def f(): import inner
class _Hidden: pass
async def handler(): pass
CONSTANT: int = 3
`
	f := model.File{}
	parsePython([]byte(src), &f)
	want := []string{"a.b", "c", "..pkg.mod", ".one", ".two", ".sibling", "optional_dep", "inner"}
	if got := specs(f); !slices.Equal(got, want) {
		t.Errorf("imports\n got %q\nwant %q", got, want)
	}
	if f.Doc != "Module doc." {
		t.Errorf("doc %q", f.Doc)
	}
	if !hasSymbol(f, "f", "function") || !hasSymbol(f, "handler", "function") || !hasSymbol(f, "CONSTANT", "const") || hasSymbol(f, "_Hidden", "class") {
		t.Errorf("symbols %+v", f.Symbols)
	}
	if f.Imports[2].Line != 6 || f.Imports[6].Line != 14 {
		t.Errorf("lines %+v", f.Imports)
	}
}

func TestRustScanner(t *testing.T) {
	src := `//! Crate docs.
/* outer /* nested use fake::one; */ still comment use fake::two; */
use std::collections::{HashMap, hash_map::Entry};
use crate::a::{self, b::{C, D as E}};
pub use super::sibling::*;
extern crate alloc;
fn lifetimes<'a>(x: &'a str) -> char { let _ = r##"use fake::raw;"##; 'x' }
#[macro_export]
macro_rules! shout { () => {} }
pub struct S<'a> { s: &'a str }
pub(crate) fn private() {}
pub async fn run() {}
impl S<'_> { pub fn method(&self) {} }
`
	f := model.File{}
	parseRust([]byte(src), &f)
	want := []string{"std::collections::HashMap", "std::collections::hash_map::Entry", "crate::a", "crate::a::b::C", "crate::a::b::D", "super::sibling", "alloc"}
	if got := specs(f); !slices.Equal(got, want) {
		t.Errorf("imports\n got %q\nwant %q", got, want)
	}
	if f.Doc != "Crate docs." {
		t.Errorf("doc %q", f.Doc)
	}
	if !hasSymbol(f, "S", "struct") || !hasSymbol(f, "run", "function") || !hasSymbol(f, "shout", "macro") || hasSymbol(f, "private", "function") || hasSymbol(f, "method", "function") {
		t.Errorf("symbols %+v", f.Symbols)
	}
}

func TestJVMScanner(t *testing.T) {
	java := `/* header */
package com.acme.app;

import java.util.List;
import static com.acme.core.Money.ZERO;
import com.acme.core.*;

public final class App {
  String s = "import fake.Thing;";
  public static void main(String[] args) {}
}
class Hidden {}
`
	f := model.File{}
	parseJVM([]byte(java), &f, false)
	if f.Package != "com.acme.app" || !slices.Equal(specs(f), []string{"java.util.List", "com.acme.core.Money.ZERO", "com.acme.core.*"}) {
		t.Errorf("java: package %q imports %q", f.Package, specs(f))
	}
	if !hasSymbol(f, "App", "class") || hasSymbol(f, "Hidden", "class") {
		t.Errorf("java symbols %+v", f.Symbols)
	}
	kt := `package com.acme.core

import kotlinx.coroutines.flow.Flow
import com.acme.util.Strings as S

data class Money(val cents: Long)
fun Money.format(): String = "$cents"
private fun hidden() {}
internal class Internal
object Registry
val ZERO = Money(0)
`
	k := model.File{}
	parseJVM([]byte(kt), &k, true)
	if k.Package != "com.acme.core" || !slices.Equal(specs(k), []string{"kotlinx.coroutines.flow.Flow", "com.acme.util.Strings"}) {
		t.Errorf("kotlin: package %q imports %q", k.Package, specs(k))
	}
	for _, s := range [][2]string{{"Money", "class"}, {"format", "function"}, {"Registry", "object"}, {"ZERO", "const"}} {
		if !hasSymbol(k, s[0], s[1]) {
			t.Errorf("kotlin lacks %v: %+v", s, k.Symbols)
		}
	}
	if hasSymbol(k, "hidden", "function") || hasSymbol(k, "Internal", "class") {
		t.Errorf("kotlin non-public symbols %+v", k.Symbols)
	}
}

func TestFixtureGradleJVM(t *testing.T) {
	g := scanFixture(t, map[string]string{
		"settings.gradle.kts":                         "rootProject.name = \"acme\"\ninclude(\":app\", \":core\")\n",
		"core/build.gradle.kts":                       "dependencies {\n    implementation(\"org.jetbrains.kotlinx:kotlinx-coroutines-core:1.8.1\")\n}\n",
		"core/src/main/kotlin/com/acme/core/Money.kt": "package com.acme.core\n\nimport kotlinx.coroutines.flow.Flow\n\ndata class Money(val cents: Long)\nfun format(m: Money) = \"\"\n",
		"app/build.gradle.kts":                        "dependencies {\n    implementation(project(\":core\"))\n    implementation(\"com.squareup.okhttp3:okhttp:4.12.0\")\n}\n",
		"app/src/main/java/com/acme/app/App.java":     "package com.acme.app;\n\nimport com.acme.core.Money;\nimport com.acme.core.*;\nimport okhttp3.OkHttpClient;\nimport java.util.List;\n\npublic class App {}\n",
	})
	if len(g.Workspaces) != 1 || g.Workspaces[0].Tool != "gradle" || !slices.Equal(g.Workspaces[0].Members, []string{"app", "core"}) {
		t.Fatalf("workspaces %+v", g.Workspaces)
	}
	wantModules(t, g, map[string]model.ModuleBasis{"app": model.BasisWorkspacePackage, "core": model.BasisWorkspacePackage})
	app := "app/src/main/java/com/acme/app/App.java"
	wantImport(t, g, app, "com.acme.core.Money", model.ImportInternalFile, "core/src/main/kotlin/com/acme/core/Money.kt")
	wantImport(t, g, app, "com.acme.core.*", model.ImportInternalModule, "core/src/main/kotlin/com/acme/core")
	wantImport(t, g, app, "java.util.List", model.ImportBuiltin, "java")
	wantImport(t, g, app, "okhttp3.OkHttpClient", model.ImportExternal, "com.squareup.okhttp3:okhttp")
	wantImport(t, g, "core/src/main/kotlin/com/acme/core/Money.kt", "kotlinx.coroutines.flow.Flow", model.ImportExternal, "org.jetbrains.kotlinx:kotlinx-coroutines-core")
	if d := edge(t, g, "app", "core"); d.Kind != model.ImportWorkspacePackage || d.Imports != 2 {
		t.Errorf("app -> core %+v", d)
	}
	if e := external(t, g, "gradle", "org.jetbrains.kotlinx:kotlinx-coroutines-core"); e.Version != "1.8.1" || !slices.Equal(e.UsedBy, []string{"core"}) {
		t.Errorf("coroutines %+v", e)
	}
}

// TestFirstParagraphCutsOnACharacter: a long doc without spaces is cut
// before a character, never through one.
func TestFirstParagraphCutsOnACharacter(t *testing.T) {
	for _, doc := range []string{strings.Repeat("文", 200), "a" + strings.Repeat("é", 300), strings.Repeat("word ", 100)} {
		got := firstParagraph(doc)
		if !utf8.ValidString(got) || !strings.HasSuffix(got, "…") || len(got) > 400+len("…") {
			t.Errorf("firstParagraph(%.12q…) = %q", doc, got)
		}
	}
}
