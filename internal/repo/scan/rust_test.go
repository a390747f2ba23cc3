package scan

import (
	"slices"
	"testing"

	"github.com/kontext-dev/kontext/internal/repo/model"
)

// A Cargo package whose binary lives outside src/ ([[bin]] path, as
// ripgrep's crates/core/main.rs): crate::, self:: and super:: resolve in
// that crate's module tree; #[path] names a module's file; binaries,
// benches and tests of another package reach its library by crate name.
func TestRustBinPathCrate(t *testing.T) {
	g := scanFixture(t, map[string]string{
		"Cargo.toml": `[package]
name = "ripgrep"
version = "14.1.0"

[[bin]]
name = "rg"
path = "crates/core/main.rs"

[dependencies]
grep = { version = "0.3", path = "crates/grep" }

[workspace]
members = ["crates/grep", "crates/regex"]
`,
		"crates/core/main.rs":             "mod flags;\nmod haystack;\nmod search;\n\nuse crate::flags::Args;\n\nfn main() { let _ = Args; }\n",
		"crates/core/flags/mod.rs":        "mod defs;\n\npub use self::defs::Flag;\nuse super::search::Searcher;\n\npub struct Args;\n",
		"crates/core/flags/defs.rs":       "use crate::search::Searcher;\n\npub struct Flag;\n",
		"crates/core/haystack.rs":         "pub struct Haystack;\n",
		"crates/core/search.rs":           "use grep::Matcher;\n\npub struct Searcher;\n",
		"crates/grep/Cargo.toml":          "[package]\nname = \"grep\"\nversion = \"0.3.1\"\n\n[dev-dependencies]\ngrep-regex = { path = \"../regex\" }\n",
		"crates/grep/src/lib.rs":          "pub mod matcher;\n#[path = \"gen/tables.rs\"]\nmod tables;\n#[cfg(test)]\nmod support;\n\npub use matcher::Matcher;\n",
		"crates/grep/src/support.rs":      "use grep_regex::Regex;\n",
		"crates/grep/examples/demo.rs":    "use grep_regex::Regex;\nuse grep::Matcher;\n\nfn main() {}\n",
		"crates/regex/Cargo.toml":         "[package]\nname = \"grep-regex\"\nversion = \"0.1.0\"\n",
		"crates/regex/src/lib.rs":         "pub struct Regex;\n",
		"crates/grep/src/matcher.rs":      "use crate::tables::TABLE;\n\npub struct Matcher;\n\n#[cfg(test)]\nmod tests {\n    use super::*;\n}\n",
		"crates/grep/src/gen/tables.rs":   "pub const TABLE: [u8; 1] = [0];\n",
		"crates/grep/src/bin/grepdump.rs": "use grep::matcher::Matcher;\n\nfn main() {}\n",
		"crates/grep/benches/bench.rs":    "use grep::Matcher;\n\nfn main() {}\n",
		"tests/integration.rs":            "use grep::Matcher;\n",
	})
	wantImport(t, g, "crates/core/main.rs", "crate::flags::Args", model.ImportInternalFile, "crates/core/flags/mod.rs")
	wantImport(t, g, "crates/core/flags/mod.rs", "self::defs::Flag", model.ImportInternalFile, "crates/core/flags/defs.rs")
	wantImport(t, g, "crates/core/flags/mod.rs", "super::search::Searcher", model.ImportInternalFile, "crates/core/search.rs")
	wantImport(t, g, "crates/core/flags/defs.rs", "crate::search::Searcher", model.ImportInternalFile, "crates/core/search.rs")
	wantImport(t, g, "crates/core/search.rs", "grep::Matcher", model.ImportWorkspacePackage, "crates/grep/src/lib.rs")
	wantImport(t, g, "crates/grep/src/matcher.rs", "crate::tables::TABLE", model.ImportInternalFile, "crates/grep/src/gen/tables.rs")
	wantImport(t, g, "crates/grep/src/lib.rs", "matcher::Matcher", model.ImportInternalFile, "crates/grep/src/matcher.rs")
	wantImport(t, g, "crates/grep/src/bin/grepdump.rs", "grep::matcher::Matcher", model.ImportInternalFile, "crates/grep/src/matcher.rs")
	wantImport(t, g, "crates/grep/benches/bench.rs", "grep::Matcher", model.ImportInternalFile, "crates/grep/src/lib.rs")
	if imp := importOf(t, g, "crates/grep/src/matcher.rs", "super"); !imp.Test {
		t.Errorf("use super::* in #[cfg(test)] mod tests is a test import: %+v", imp)
	}
	if d := edge(t, g, ".", "crates/grep"); d.Scope != model.ScopeProduction {
		t.Errorf(". → crates/grep %+v", d)
	}
	if m := module(t, g, "crates/grep"); !slices.Contains(m.UsedBy, ".") {
		t.Errorf("grep is used by the rg binary's package: %v", m.UsedBy)
	}
	for _, m := range g.Modules {
		if m.ID == "crates" {
			t.Errorf("the rg binary's folder is the root package's code, not a top-level area")
		}
	}
	if m := file(t, g, "crates/core/search.rs").Module; m != "." {
		t.Errorf("crates/core/search.rs belongs to %q, want the ripgrep package", m)
	}
	if k := file(t, g, "tests/integration.rs").Kind; k != model.FileTest {
		t.Errorf("tests/integration.rs is %s", k)
	}
	// Examples and #[cfg(test)] modules build with the dev-dependencies:
	// grep uses grep-regex only there.
	for _, p := range []string{"crates/grep/src/support.rs", "crates/grep/examples/demo.rs"} {
		if f := file(t, g, p); !f.DevOnly || f.Kind == model.FileTest {
			t.Errorf("%s: dev only %v, kind %s", p, f.DevOnly, f.Kind)
		}
	}
	if d := edge(t, g, "crates/grep", "crates/regex"); d.Scope != model.ScopeTest {
		t.Errorf("grep → grep-regex is a dev edge: %+v", d)
	}
	if f := file(t, g, "crates/grep/src/lib.rs"); len(f.Submodules) != 3 || f.Submodules[1].Path != "gen/tables.rs" {
		t.Errorf("submodules %+v", f.Submodules)
	}
}
