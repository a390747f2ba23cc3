package analyze

import (
	"path"
	"strings"
)

// Periphery is what a path is when it is not the code the project ships:
// its examples, documentation, fuzz corpora, test support, benchmarks and
// build tooling. The rankings put the periphery last, so that a bounded
// list names the project's own binaries and libraries before the example
// apps beside them.
type Periphery string

const (
	Core        Periphery = ""
	Example     Periphery = "example"
	Docs        Periphery = "docs"
	Fuzz        Periphery = "fuzz"
	TestSupport Periphery = "test-support"
	Benchmark   Periphery = "benchmark"
	Tooling     Periphery = "tooling"
)

// peripheryDirs are the directory names that make everything under them
// periphery. Lower case; a leading "_" or "." is ignored (_examples).
var peripheryDirs = map[string]Periphery{
	"example": Example, "examples": Example, "sample": Example, "samples": Example, "demo": Example, "demos": Example,
	"playground": Example, "playgrounds": Example, "tutorial": Example, "tutorials": Example, "cookbook": Example,
	"doc": Docs, "docs": Docs, "documentation": Docs, "website": Docs, "docs_src": Docs,
	"fuzz": Fuzz, "fuzzing": Fuzz, "corpus": Fuzz, "fuzz_targets": Fuzz,
	"test": TestSupport, "tests": TestSupport, "testing": TestSupport, "testutil": TestSupport, "testutils": TestSupport,
	"test_utils": TestSupport, "test-utils": TestSupport, "testhelper": TestSupport, "testhelpers": TestSupport,
	"testkit": TestSupport, "testlib": TestSupport, "mock": TestSupport, "mocks": TestSupport, "__mocks__": TestSupport,
	"fake": TestSupport, "fakes": TestSupport, "fixture": TestSupport, "fixtures": TestSupport, "__fixtures__": TestSupport,
	"__tests__": TestSupport, "testdata": TestSupport, "test-data": TestSupport, "e2e": TestSupport,
	"integration-tests": TestSupport, "integration_tests": TestSupport, "spec": TestSupport, "specs": TestSupport,
	"bench": Benchmark, "benches": Benchmark, "benchmark": Benchmark, "benchmarks": Benchmark,
	"scripts": Tooling, "script": Tooling, "hack": Tooling, "tools": Tooling, "build-logic": Tooling,
	"buildsrc": Tooling, "gradle": Tooling, "github": Tooling, "circleci": Tooling, "ci": Tooling, "devtools": Tooling,
}

// PeripheryOf classifies a slash path (a file or a module's directory) by
// its directories and, for a file, its name: test helpers and mocks
// (testing.go, *_mock.go, mock_*.go, *.mock.ts, conftest.py) are test
// support, build scripts (build.rs, setup.py, *.gradle.kts) tooling. The
// outermost periphery directory decides: docs/examples/x is docs.
func PeripheryOf(p string) Periphery {
	p = strings.ToLower(strings.Trim(p, "/"))
	if p == "" || p == "." {
		return Core
	}
	for rest := p; rest != ""; {
		seg, tail, _ := strings.Cut(rest, "/")
		if tail == "" && strings.Contains(seg, ".") && seg != p {
			break // the file's own name is judged below
		}
		if kind, ok := peripheryDirs[strings.TrimLeft(seg, "_.")]; ok {
			return kind
		}
		if kind, ok := peripheryDirs[seg]; ok {
			return kind
		}
		if isTestName(seg) {
			return TestSupport
		}
		rest = tail
	}
	return peripheryFile(path.Base(p))
}

// isTestName: a directory named for the tests it supports, as Go names
// its test packages (httptest, promqltest, testenv, teststorage).
func isTestName(seg string) bool {
	switch seg {
	case "latest", "contest", "protest", "attest", "detest", "greatest", "fastest", "smallest", "largest", "shortest", "longest", "testament":
		return false
	}
	if len(seg) > 4 && (strings.HasPrefix(seg, "test") || strings.HasSuffix(seg, "test") || strings.HasSuffix(seg, "tests")) {
		return true
	}
	// okhttp-testing-support, test_helpers, integration-test
	for _, part := range strings.FieldsFunc(seg, func(r rune) bool { return r == '-' || r == '_' || r == '.' }) {
		if part != seg && (part == "test" || part == "tests" || part == "testing" || peripheryDirs[part] == TestSupport && part != "spec") {
			return true
		}
	}
	return false
}

// peripheryFile classifies a file by its name alone.
func peripheryFile(base string) Periphery {
	switch base {
	case "build.rs", "setup.py", "build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts",
		"gulpfile.js", "gruntfile.js", "rollup.config.js", "rollup.config.mjs", "rollup.config.ts", "webpack.config.js",
		"vite.config.ts", "vite.config.js", "vite.config.mts", "vitest.config.ts", "jest.config.js", "jest.config.ts",
		"babel.config.js", "tsup.config.ts", "esbuild.config.js", "eslint.config.js", "eslint.config.mjs", "noxfile.py",
		"fabfile.py", "tasks.py", "magefile.go":
		return Tooling
	case "testing.go", "mock.go", "mocks.go", "fake.go", "fakes.go", "testutil.go", "testutils.go", "testhelpers.go",
		"helpers_test.go", "conftest.py", "setuptests.ts", "setuptests.js", "jest.setup.js", "jest.setup.ts",
		"vitest.setup.ts", "test-utils.ts", "test-utils.tsx", "test-utils.js", "testutils.ts", "test_utils.py":
		return TestSupport
	}
	stem := base
	if i := strings.IndexByte(stem, '.'); i > 0 {
		stem = stem[:i]
	}
	switch {
	case strings.HasSuffix(base, ".gradle.kts") || strings.HasSuffix(base, ".gradle"):
		return Tooling
	case strings.HasSuffix(stem, "_mock") || strings.HasSuffix(stem, "_mocks") || strings.HasPrefix(stem, "mock_") ||
		strings.HasSuffix(stem, "_fake") || strings.HasPrefix(stem, "fake_") || strings.HasSuffix(stem, "_testutil") ||
		strings.HasSuffix(stem, "_testing"):
		return TestSupport
	case strings.Contains(base, ".mock.") || strings.Contains(base, ".mocks.") || strings.Contains(base, ".fixture.") ||
		strings.Contains(base, ".stories."):
		return TestSupport
	}
	return Core
}

// isBuildScript reports the files that run when the project is built
// rather than when it is used: Cargo's build.rs, setuptools' setup.py,
// Gradle's build files and build logic (buildSrc/, build-logic/), mage.
func isBuildScript(p string) bool {
	base := path.Base(p)
	switch base {
	case "build.rs", "setup.py", "magefile.go":
		return true
	}
	if strings.HasSuffix(base, ".gradle") || strings.HasSuffix(base, ".gradle.kts") {
		return true
	}
	return strings.HasPrefix(p, "buildSrc/") || strings.Contains(p, "/buildSrc/") ||
		strings.HasPrefix(p, "build-logic/") || strings.Contains(p, "/build-logic/")
}
