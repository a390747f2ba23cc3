package scan

import (
	"bytes"
	"path"
	"strings"
	"sync"

	"github.com/kontext-dev/kontext/internal/linguist"
	"github.com/kontext-dev/kontext/internal/repo/model"
)

// binaryExt are extensions whose content is never text: reading them
// would only cost time.
var binaryExt = wordSet{words: `.png .jpg .jpeg .gif .bmp .ico .icns .webp .tif .tiff .psd
		.woff .woff2 .ttf .otf .eot .mp3 .mp4 .m4a .wav .ogg .flac .avi .mov .webm .mkv
		.zip .gz .tgz .bz2 .xz .zst .7z .rar .tar .jar .war .ear .class .dll .exe .so .dylib
		.a .o .obj .lib .pyc .pyo .wasm .bin .dat .db .sqlite .pdf .doc .docx .xls .xlsx
		.ppt .pptx .syso .pack .idx .keystore .der`}

// wordSet is a set of words kept as the text that lists them and made a map
// the first time it is asked: a map built when the package initialises
// costs every run of the binary (each git hook), scanning or not.
type wordSet struct {
	words string // separated by white space
	once  sync.Once
	set   map[string]bool
}

func (w *wordSet) has(word string) bool {
	w.once.Do(func() {
		fields := strings.Fields(w.words)
		w.set = make(map[string]bool, len(fields))
		for _, f := range fields {
			w.set[f] = true
		}
	})
	return w.set[word]
}

// isAssetExt reports media and fonts among the binary extensions (object
// code and archives are binary but not assets).
func isAssetExt(ext string) bool {
	return binaryExt.has(ext) && ext != ".class" && ext != ".o" && ext != ".a" && ext != ".pyc"
}

// languageByName returns the language a file's name implies, and whether
// the name alone decides it (false when the extension is shared by
// several languages and only the content can tell).
func languageByName(p string) (lang string, ambiguous bool) {
	name := path.Base(p)
	if langs := linguist.LanguagesByFilename(name); len(langs) == 1 {
		return langs[0], false
	}
	langs := linguist.LanguagesByExtension(name)
	switch len(langs) {
	case 0:
		return "", false
	case 1:
		return langs[0], false
	}
	// Without content (an unread file), the common reading of a shared
	// extension: .rs is Rust before RenderScript, .ts TypeScript before XML.
	return linguist.Preferred(langs), true
}

// detectLanguage decides a file's language: by name when that is certain,
// by Linguist's strategies (modelines, shebang, heuristics)
// when the extension is ambiguous or absent and the content is at hand.
func detectLanguage(p string, content []byte, haveContent bool) string {
	lang, ambiguous := languageByName(p)
	if !haveContent {
		return lang
	}
	if ambiguous {
		// Linguist's heuristics decide from the first lines as
		// well as from the whole file, at a fraction of the cost.
		const sample = 4 << 10
		if len(content) > sample {
			content = content[:sample]
		}
		return linguist.Language(path.Base(p), content)
	}
	if lang == "" && path.Ext(p) == "" && bytes.HasPrefix(content, []byte("#!")) {
		if l, ok := linguist.LanguageByShebang(content); ok || l != "" {
			return l
		}
	}
	return lang
}

// manifestNames are the files that are configuration whatever Linguist says.
var manifestNames = map[string]bool{
	"go.mod": true, "go.sum": true, "go.work": true, "go.work.sum": true,
	"package.json": true, "package-lock.json": true, "pnpm-workspace.yaml": true, "pnpm-lock.yaml": true,
	"yarn.lock": true, "bun.lockb": true, "bun.lock": true, "tsconfig.json": true, "jsconfig.json": true,
	"Cargo.toml": true, "Cargo.lock": true, "pyproject.toml": true, "setup.cfg": true, "setup.py": true,
	"Pipfile": true, "Pipfile.lock": true, "poetry.lock": true, "uv.lock": true,
	"pom.xml": true, "build.gradle": true, "build.gradle.kts": true, "settings.gradle": true,
	"settings.gradle.kts": true, "composer.json": true, "composer.lock": true, "Gemfile": true,
	"Gemfile.lock": true, "mix.exs": true, "mix.lock": true, "deno.json": true, "deno.jsonc": true,
	"Makefile": true, "Dockerfile": true,
}

// classify decides a file's kind from its path and language.
func classify(p, lang string, binary bool) model.FileKind {
	name := path.Base(p)
	ext := strings.ToLower(path.Ext(name))
	typ := linguist.Unknown
	if lang != "" {
		typ = linguist.LanguageType(lang)
	}
	if (lang == "" && isAssetExt(ext)) || linguist.IsImage(p) {
		return model.FileAsset
	}
	if binary {
		return model.FileOther // object code, archives, databases
	}
	if isTestPath(p, lang) && (typ == linguist.Programming || typ == linguist.Markup) {
		return model.FileTest
	}
	if manifestNames[name] || strings.HasPrefix(name, "tsconfig.") || strings.HasSuffix(name, ".csproj") ||
		strings.HasPrefix(name, "requirements") && ext == ".txt" {
		return model.FileConfig
	}
	switch typ {
	case linguist.Programming, linguist.Markup:
		if lang == "Markdown" { // Linguist types Markdown as prose, older data as markup
			return model.FileDocs
		}
		return model.FileSource
	case linguist.Prose:
		return model.FileDocs
	case linguist.Data:
		return model.FileConfig
	}
	if linguist.IsDocumentation(p) {
		return model.FileDocs
	}
	if linguist.IsConfiguration(p) || linguist.IsDotFile(p) {
		return model.FileConfig
	}
	return model.FileOther
}

// testDirs are the directories whose code is tests or test support in
// the languages without a rule of their own (Ruby, PHP, C#, C, …).
var testDirs = map[string]bool{
	"test": true, "tests": true, "testdata": true, "__tests__": true, "spec": true, "specs": true,
	"__mocks__": true, "__fixtures__": true, "fixtures": true, "e2e": true,
}

// isTestPath reports test code by the rules of each language: what its
// toolchain runs as tests, not what a directory happens to be called.
// Go: only _test.go files (a package under tests/ or e2e/ is code like any
// other, whose imports count). JavaScript and TypeScript: *.test.*,
// *.spec.*, Cypress's *.cy.*, and __tests__/ and __mocks__/ folders.
// Python: test_*.py, *_test.py, conftest.py and the files of test
// packages (tests/, test/). Rust: integration tests (a tests/ folder that
// is not a crate of its own) and test modules by name (tests.rs,
// *_test.rs). JVM languages: the test source sets (src/test*, src/*Test:
// integrationTest, androidTest, jvmTest); outside a source-set layout,
// test folders and *Test names. testdata/ is test data in every language.
func isTestPath(p, lang string) bool {
	name := path.Base(p)
	if underDir(p, "testdata") {
		return true
	}
	switch lang {
	case "Go":
		return strings.HasSuffix(name, "_test.go")
	case "JavaScript", "TypeScript", "TSX", "Vue", "Svelte", "Astro", "CoffeeScript":
		return strings.Contains(name, ".test.") || strings.Contains(name, ".spec.") || strings.Contains(name, ".cy.") ||
			underDir(p, "__tests__") || underDir(p, "__mocks__")
	case "Python":
		return strings.HasPrefix(name, "test_") && strings.HasSuffix(name, ".py") || strings.HasSuffix(name, "_test.py") ||
			name == "conftest.py" || underDir(p, "tests") || underDir(p, "test")
	case "Rust":
		return rustTestPath(p, name)
	case "Java", "Kotlin", "Scala", "Groovy", "Clojure":
		if set, ok := jvmSourceSet(p); ok {
			return jvmTestSet(set)
		}
		stem := strings.TrimSuffix(name, path.Ext(name))
		return strings.HasSuffix(stem, "Test") || strings.HasSuffix(stem, "Tests") || strings.HasSuffix(stem, "Spec") ||
			underDir(p, "test") || underDir(p, "tests")
	}
	switch {
	case strings.HasSuffix(name, "_spec.rb"), strings.HasSuffix(name, "_test.rb"), strings.HasSuffix(name, "Test.php"),
		strings.HasSuffix(name, "Tests.cs"), strings.HasSuffix(name, "Test.cs"), strings.HasSuffix(name, "_test.exs"):
		return true
	}
	if strings.Contains(name, ".test.") || strings.Contains(name, ".spec.") {
		return true
	}
	for d := dirOf(p); d != ""; d = dirOf(d) {
		if testDirs[path.Base(d)] {
			return true
		}
	}
	return false
}

// underDir reports whether one of p's directories is named dir.
func underDir(p, dir string) bool {
	for d := dirOf(p); d != ""; d = dirOf(d) {
		if path.Base(d) == dir {
			return true
		}
	}
	return false
}

// rustTestPath: Cargo's integration tests are the files of a tests/
// folder beside a package's src/ (a workspace crate that is itself named
// tests has its code in tests/src/, which is not a test); test modules
// are conventionally tests.rs, test.rs, *_test.rs, *_tests.rs or a
// tests/ folder inside src/.
func rustTestPath(p, name string) bool {
	switch {
	case name == "tests.rs", name == "test.rs", strings.HasSuffix(name, "_test.rs"), strings.HasSuffix(name, "_tests.rs"):
		return true
	}
	parts := strings.Split(p, "/")
	for i := len(parts) - 2; i >= 0; i-- {
		if parts[i] == "tests" {
			return !(i+1 < len(parts)-1 && parts[i+1] == "src")
		}
	}
	return false
}

// jvmSourceSet returns the Gradle/Maven source set a JVM file is in: the
// folder between src/ and the language folder (src/main/java,
// src/integrationTest/kotlin, src/commonMain/kotlin), else a src/ child
// named like a source set (main, test*, *Main, *Test).
func jvmSourceSet(p string) (string, bool) {
	parts := strings.Split(p, "/")
	for i := 0; i+3 < len(parts); i++ {
		if parts[i] == "src" && jvmLangDirs[parts[i+2]] {
			return parts[i+1], true
		}
	}
	for i := 0; i+2 < len(parts); i++ {
		if set := parts[i+1]; parts[i] == "src" && (set == "main" || strings.HasSuffix(set, "Main") || jvmTestSet(set)) {
			return set, true
		}
	}
	return "", false
}

var jvmLangDirs = map[string]bool{"java": true, "kotlin": true, "scala": true, "groovy": true, "clojure": true, "resources": true}

// jvmTestSet reports the source sets that hold tests: test,
// testFixtures, integrationTest, androidTest, jvmTest, commonTest, jmh
// benchmarks.
func jvmTestSet(set string) bool {
	return strings.HasPrefix(set, "test") || strings.HasSuffix(set, "Test") || strings.HasSuffix(set, "Tests") || set == "jmh"
}

// goGenerated reports the Go convention for generated files: a line
// `// Code generated … DO NOT EDIT.` before the first non-comment text.
func goGenerated(content []byte) bool {
	for len(content) > 0 {
		line := content
		if i := bytes.IndexByte(content, '\n'); i >= 0 {
			line, content = content[:i], content[i+1:]
		} else {
			content = nil
		}
		line = bytes.TrimRight(line, "\r")
		if bytes.HasPrefix(line, []byte("// Code generated ")) && bytes.HasSuffix(line, []byte(" DO NOT EDIT.")) {
			return true
		}
		t := bytes.TrimSpace(line)
		if len(t) > 0 && !bytes.HasPrefix(t, []byte("//")) && !bytes.HasPrefix(t, []byte("/*")) && !bytes.HasPrefix(t, []byte("*")) {
			return false
		}
	}
	return false
}
