package scan

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/kontext-dev/kontext/internal/repo/model"
)

// A repository folder named like a standard library module does not
// shadow it: `import tomllib` is the standard library's. A src/ layout
// resolves; the root pyproject's requirements win over an example's and
// the docs'.
func TestPythonStdlibAndPrecedence(t *testing.T) {
	g := scanFixture(t, map[string]string{
		"pyproject.toml":                "[project]\nname = \"acme\"\ndependencies = [\"requests>=2.31\", \"attrs==23.1\"]\n\n[project.optional-dependencies]\ntest = [\"pytest>=8\"]\n",
		"src/acme/__init__.py":          "import tomllib\nimport json\nimport requests\nfrom acme import config\nfrom acme.io import reader\n",
		"src/acme/config.py":            "import attr\n",
		"src/acme/io/__init__.py":       "",
		"src/acme/io/reader.py":         "from ..config import load\n",
		"tomllib/__init__.py":           "# a vendored backport of tomli, for old Pythons\n",
		"tomllib/_parser.py":            "",
		"json/__init__.py":              "",
		"examples/web/requirements.txt": "requests==2.0.0\nflask==3.0\nAcme>=1\n",
		"examples/web/app.py":           "import flask\nimport requests\nimport acme\n",
		"docs/requirements.txt":         "sphinx==7.2\nattrs==21.0\n",
		"tests/test_config.py":          "import pytest\nfrom acme import config\n",
	})
	wantImport(t, g, "src/acme/__init__.py", "tomllib", model.ImportBuiltin, "tomllib")
	wantImport(t, g, "src/acme/__init__.py", "json", model.ImportBuiltin, "json")
	wantImport(t, g, "src/acme/__init__.py", "acme", model.ImportInternalFile, "src/acme/__init__.py")
	wantImport(t, g, "src/acme/__init__.py", "acme.io", model.ImportInternalFile, "src/acme/io/__init__.py")
	wantImport(t, g, "src/acme/io/reader.py", "..config", model.ImportInternalFile, "src/acme/config.py")
	wantImport(t, g, "examples/web/app.py", "acme", model.ImportInternalFile, "src/acme/__init__.py")
	wantImport(t, g, "src/acme/config.py", "attr", model.ImportExternal, "attrs")
	if e := external(t, g, "pypi", "requests"); e.Version != ">=2.31" || e.Dev {
		t.Errorf("requests: %+v; the root pyproject's declaration wins", e)
	}
	if e := external(t, g, "pypi", "attrs"); e.Version != "==23.1" || e.Dev {
		t.Errorf("attrs: %+v; the root pyproject's declaration wins over the docs'", e)
	}
	if e := external(t, g, "pypi", "flask"); !e.Dev {
		t.Errorf("flask, which only an example requires, is not what the project is built on: %+v", e)
	}
	if e := external(t, g, "pypi", "sphinx"); !e.Dev {
		t.Errorf("sphinx, which only the docs require: %+v", e)
	}
	module(t, g, "examples/web")
	if d := edge(t, g, "examples/web", "."); d.Kind != model.ImportWorkspacePackage {
		t.Errorf("an example requiring the project itself depends on it: %+v", d)
	}
	for _, e := range g.External {
		if normalizePyName(e.Name) == "acme" {
			t.Errorf("the project itself is listed as external: %+v", e)
		}
	}
	for _, e := range g.External {
		if e.Name == "tomllib" || e.Name == "json" {
			t.Errorf("the standard library's %s is listed as external", e.Name)
		}
	}
}

// The embedded standard library list holds every module the python3 at
// hand names (sys.stdlib_module_names, Python 3.10 and later).
func TestPythonStdlibList(t *testing.T) {
	out, err := exec.Command("python3", "-c", "import sys; print(' '.join(sorted(getattr(sys, 'stdlib_module_names', []))))").Output()
	if err != nil {
		t.Skip("no python3")
	}
	names := strings.Fields(string(out))
	if len(names) == 0 {
		t.Skip("python3 older than 3.10 has no sys.stdlib_module_names")
	}
	for _, n := range names {
		if !pyStdlib.has(n) {
			t.Errorf("%s is in this python3's standard library, not in pyStdlib", n)
		}
	}
	for _, n := range []string{"tomllib", "distutils", "imp", "asynchat", "formatter", "parser", "_pyrepl"} {
		if !pyStdlib.has(n) {
			t.Errorf("%s (3.8–3.13) is missing", n)
		}
	}
}
