package scan

import (
	"strings"
	"testing"
)

// The repository is called what its root manifest calls it, never ".".
func TestRepositoryNameFromRootManifest(t *testing.T) {
	cases := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"pyproject", map[string]string{"pyproject.toml": "[project]\nname = \"acme-tools\"\n", "acme/__init__.py": ""}, "acme-tools"},
		{"gradle settings over the root build file", map[string]string{
			"settings.gradle": "rootProject.name = 'okio-parent'\ninclude ':okio'\n", "build.gradle": "plugins { id 'java' }\n",
			"okio/build.gradle": "plugins { id 'java' }\n"}, "okio-parent"},
		{"kotlin settings", map[string]string{"settings.gradle.kts": "rootProject.name = \"kt\"\n", "build.gradle.kts": "plugins { java }\n"}, "kt"},
		{"cargo", map[string]string{"Cargo.toml": "[package]\nname = \"ripgrep\"\nversion = \"14.0.0\"\n\n[workspace]\nmembers = [\"crates/*\"]\n",
			"crates/cli/Cargo.toml": "[package]\nname = \"grep-cli\"\nversion = \"0.1.0\"\n", "crates/cli/src/lib.rs": ""}, "ripgrep"},
		{"package.json", map[string]string{"package.json": `{"name": "@acme/web"}`}, "@acme/web"},
		{"go.mod with a major version", map[string]string{"go.mod": "module github.com/acme/svc/v3\n\ngo 1.22\n", "main.go": "package main\n"}, "svc"},
		{"go.mod", map[string]string{"go.mod": "module example.com/tool\n\ngo 1.22\n"}, "tool"},
		{"the language's manifest before JS tooling", map[string]string{"go.mod": "module example.com/engine\n", "package.json": `{"name": "engine-docs"}`}, "engine"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := scanFixture(t, c.files)
			if g.Summary.Name != c.want {
				t.Errorf("summary name %q, want %q", g.Summary.Name, c.want)
			}
			if m := module(t, g, "."); m.Name == "." || m.Name == "" {
				t.Errorf("the root module is called %q", m.Name)
			}
		})
	}
	// Without a manifest naming it, the directory's name.
	g := scanFixture(t, map[string]string{"build.gradle": "plugins { id 'java' }\n", "src/main/java/a/A.java": "package a;\nclass A {}\n"})
	if g.Summary.Name == "." || g.Summary.Name == "" || g.Summary.Name != module(t, g, ".").Name {
		t.Errorf("summary name %q, root module %q", g.Summary.Name, module(t, g, ".").Name)
	}
}

// A Cargo workspace whose root is a package has that package among its
// members; so do its path dependencies inside the workspace.
func TestCargoWorkspaceMembersIncludeTheRootPackage(t *testing.T) {
	g := scanFixture(t, map[string]string{
		"Cargo.toml":         "[package]\nname = \"app\"\nversion = \"0.1.0\"\n\n[dependencies]\nhelper = { path = \"helper\" }\n\n[workspace]\n",
		"src/main.rs":        "fn main() { helper::go(); }\n",
		"helper/Cargo.toml":  "[package]\nname = \"helper\"\nversion = \"0.1.0\"\n",
		"helper/src/lib.rs":  "pub fn go() {}\n",
		"virtual/Cargo.toml": "[workspace]\nmembers = [\"none/*\"]\n",
	})
	var got []string
	for _, w := range g.Workspaces {
		got = append(got, w.Manifest+"="+strings.Join(w.Members, ","))
	}
	if strings.Join(got, " ") != "Cargo.toml=.,helper virtual/Cargo.toml=" {
		t.Errorf("workspaces %v", got)
	}
}
