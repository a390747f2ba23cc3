package scan

import (
	"context"
	"testing"

	"github.com/kontext-dev/kontext/internal/jsonc"
	"github.com/kontext-dev/kontext/internal/repo/model"
)

// The fuzzers feed arbitrary bytes to every scanner and manifest parser:
// none may panic or hang, whatever a repository contains. Crashers found
// are kept under testdata/fuzz as seeds.

func FuzzJavaScript(f *testing.F) {
	for _, s := range []string{layeredTS["src/application/createUser.ts"], "import(`a${", "/[/]/", "`${`${`", "export default function* () {}", "a = b / c / d"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		var file model.File
		parseJS(src, &file)
		for _, imp := range file.Imports {
			if imp.Line < 1 {
				t.Fatalf("import %+v has no line", imp)
			}
		}
	})
}

func FuzzPython(f *testing.F) {
	for _, s := range []string{pythonPackage["src/acme/core.py"], "from . import (", "'''", "r'''\\'", "from .. import *"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		var file model.File
		parsePython(src, &file)
	})
}

func FuzzRust(f *testing.F) {
	for _, s := range []string{cargoWorkspace["crates/core/src/model/mod.rs"], "use a::{b, {c", "r#\"", "br##\"x\"#", "'", "/* /* */", "use ::{"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		var file model.File
		parseRust(src, &file)
	})
}

func FuzzJVM(f *testing.F) {
	for _, s := range []string{"package a.b;\nimport c.D;\npublic class X {}", "import", "package", "\"\"\"", "fun <T"} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	f.Fuzz(func(t *testing.T, src []byte, kotlin bool) {
		var file model.File
		parseJVM(src, &file, kotlin)
	})
}

func FuzzGo(f *testing.F) {
	for _, s := range []string{goModule["internal/order/order.go"], "//go:build linux && !cgo\n\npackage x", "// +build a,b c\n\npackage x\n", "package x\nconst (\n", "type ["} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		var file model.File
		parseGo("x.go", src, &file)
		goGenerated(src)
	})
}

func FuzzManifests(f *testing.F) {
	names := []string{"go.mod", "go.work", "package.json", "pnpm-workspace.yaml", "deno.jsonc", "Cargo.toml", "pyproject.toml",
		"requirements.txt", "setup.cfg", "Pipfile", "pom.xml", "build.gradle.kts", "settings.gradle", "composer.json", "Gemfile",
		"mix.exs", "App.csproj", "tsconfig.json", "build.gradle", "settings.gradle.kts", "Chart.yaml"}
	seeds := map[string]string{
		"go.mod": goModule["go.mod"], "package.json": pnpmMonorepo["packages/core/package.json"], "Cargo.toml": cargoWorkspace["crates/core/Cargo.toml"],
		"pyproject.toml": pythonPackage["pyproject.toml"], "tsconfig.json": layeredTS["tsconfig.base.json"], "mix.exs": "defp deps do [{:a, \"1\"}] end",
		"Gemfile": "group :test do\ngem 'x', path: '../..'\nend\nend\n", "settings.gradle": "include ':a:b'",
		"build.gradle":        "ext.v = '1'\nproject(':a') {\n dependencies { implementation \"g:a:$v\", project(':b') }\n}\n",
		"settings.gradle.kts": "include(\n\":a\",\n)\nproject(\":a\").name = \"b\"\n",
		"Chart.yaml":          "name: x\ndependencies:\n  - name: y\n    repository: file://../y\n",
	}
	for i, n := range names {
		f.Add(uint8(i), []byte(seeds[n]))
	}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		name := names[int(which)%len(names)]
		for _, mi := range parseManifest("a/"+name, data, func(string) bool { return true }) {
			expandMembers(mi.dir, mi.wsGlobs, []string{"a", "a/b", "c"})
			for _, d := range mi.m.Dependencies {
				depLine(data, d.Name)
			}
		}
		var tc tsconfig
		_ = jsonc.Unmarshal(data, &tc)
		readmeIntro(data)
		parseVersionCatalog(data)
		parseGradleProperties(data)
		parseModulesTxt(data)
		buildSrcConstants(data, which%2 == 0, map[string]string{})
		linguistVendoredAttributes(data)
	})
}

func FuzzHCL(f *testing.F) {
	for _, s := range []string{"module \"a\" {\n  source = \"../b\"\n}\n", "terraform { source = \"x\" }\ndependency \"d\" { config_path = \"../d\" }", "# module \"x\" {", "module \"a\" {"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		var file model.File
		parseHCL(src, &file)
	})
}

func FuzzGitignore(f *testing.F) {
	f.Add([]byte("*.log\n!keep.log\n/build/\n**/tmp/**\n[!a-c]?.txt\n\\#x\n"), "a/b/keep.log")
	f.Fuzz(func(t *testing.T, data []byte, p string) {
		for _, r := range parseIgnore("", data) {
			r.match(p, false)
			r.match(p, true)
		}
	})
}

// FuzzBuildLinking assembles a Gradle and Maven build whose files are
// the fuzzer's, so the linking of settings, catalogs, applied scripts
// and parent POMs meets any content.
func FuzzBuildLinking(f *testing.F) {
	f.Add([]byte("include ':a'\nproject(':a').name = 'b'\n"), []byte("apply from: \"$rootDir/x.gradle\"\nproject(':b') { dependencies { api libs.x } }\n"),
		[]byte("[libraries]\nx = \"g:a:1\"\n"), []byte("<project><parent><artifactId>p</artifactId><relativePath>..</relativePath></parent><artifactId>c</artifactId></project>"))
	f.Fuzz(func(t *testing.T, settings, build, catalog, pom []byte) {
		configs := map[string][]byte{"settings.gradle": settings, "build.gradle": build, "x.gradle": build, "a/build.gradle.kts": build,
			"gradle/libs.versions.toml": catalog, "pom.xml": pom, "a/pom.xml": pom}
		var files []model.File
		for p := range configs {
			files = append(files, model.File{Path: p, Kind: model.FileConfig})
		}
		files = append(files, model.File{Path: "a/src/main/java/A.java", Language: "Java", Kind: model.FileSource, Package: "a",
			Imports: []model.Import{{Spec: "g.a.X", Line: 1}, {Spec: "a.*", Line: 2}}})
		if _, err := assemble(context.Background(), "/r", "", files, configs, Options{}.withDefaults()); err != nil {
			t.Fatal(err)
		}
	})
}
