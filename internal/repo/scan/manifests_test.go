package scan

import (
	"slices"
	"testing"

	"github.com/kontext-dev/kontext/internal/repo/model"
)

func parseOne(t *testing.T, p, body string, existing ...string) *manifestInfo {
	t.Helper()
	exists := func(q string) bool { return slices.Contains(existing, q) }
	out := parseManifest(p, []byte(body), exists)
	if len(out) != 1 {
		t.Fatalf("%s: parsed %d manifests", p, len(out))
	}
	return out[0]
}

func dep(t *testing.T, mi *manifestInfo, name string) model.PackageDep {
	t.Helper()
	for _, d := range mi.m.Dependencies {
		if d.Name == name {
			return d
		}
	}
	t.Fatalf("%s: no dependency %q in %+v", mi.m.Path, name, mi.m.Dependencies)
	return model.PackageDep{}
}

func wantDep(t *testing.T, mi *manifestInfo, want model.PackageDep) {
	t.Helper()
	if got := dep(t, mi, want.Name); got != want {
		t.Errorf("%s: %+v, want %+v", mi.m.Path, got, want)
	}
}

func TestManifestGoMod(t *testing.T) {
	mi := parseOne(t, "svc/go.mod", `module github.com/acme/svc

go 1.22

require (
	github.com/acme/lib v0.0.0
	github.com/spf13/cobra v1.8.0
	golang.org/x/sys v0.20.0 // indirect
)

replace github.com/acme/lib => ../lib
`, "svc/vendor/modules.txt")
	if mi.m.Ecosystem != "go" || mi.m.Name != "github.com/acme/svc" || !mi.goVendor {
		t.Errorf("%+v", mi.m)
	}
	wantDep(t, mi, model.PackageDep{Name: "github.com/spf13/cobra", Version: "v1.8.0"})
	wantDep(t, mi, model.PackageDep{Name: "github.com/acme/lib", Version: "v0.0.0", Path: "lib"})
	if !mi.goIndirect["golang.org/x/sys"] || !slices.Equal(mi.m.Internal, []string{"github.com/acme/lib"}) {
		t.Errorf("indirect %v internal %v", mi.goIndirect, mi.m.Internal)
	}
	w := parseOne(t, "go.work", "go 1.22\n\nuse (\n\t./svc\n\t./lib\n)\n")
	if w.wsTool != "go" || !slices.Equal(w.wsGlobs, []string{"./svc", "./lib"}) {
		t.Errorf("go.work %+v", w)
	}
}

func TestManifestPackageJSON(t *testing.T) {
	mi := parseOne(t, "package.json", `{
  "name": "@acme/web", "version": "2.1.0", "description": "The web app",
  "bin": "cli.js",
  "scripts": {"dev": "vite", "build": "vite build"},
  "workspaces": {"packages": ["packages/*", "apps/*"]},
  "exports": {".": {"import": "./dist/index.mjs", "require": "./dist/index.cjs"}, "./utils": "./src/utils.ts"},
  "dependencies": {"react": "^18.3.1", "@acme/ui": "workspace:^", "local": "file:./libs/local", "outside": "file:../elsewhere"},
  "devDependencies": {"vite": "5.2.0"},
  "peerDependencies": {"react-dom": ">=18"}
}`, "yarn.lock")
	if mi.m.Name != "@acme/web" || mi.m.Version != "2.1.0" || mi.m.Description != "The web app" || mi.wsTool != "yarn" {
		t.Errorf("%+v tool %s", mi.m, mi.wsTool)
	}
	if !slices.Equal(mi.wsGlobs, []string{"packages/*", "apps/*"}) || !slices.Equal(mi.m.Scripts, []string{"build", "dev"}) || !slices.Equal(mi.m.Bins, []string{"web"}) {
		t.Errorf("globs %v scripts %v bins %v", mi.wsGlobs, mi.m.Scripts, mi.m.Bins)
	}
	wantDep(t, mi, model.PackageDep{Name: "react", Version: "^18.3.1"})
	wantDep(t, mi, model.PackageDep{Name: "vite", Version: "5.2.0", Dev: true})
	wantDep(t, mi, model.PackageDep{Name: "react-dom", Version: ">=18"})
	wantDep(t, mi, model.PackageDep{Name: "@acme/ui", Version: "workspace:^", Path: "workspace:"})
	if mi.entries["."] != "./dist/index.mjs" || mi.entries["./utils"] != "./src/utils.ts" {
		t.Errorf("entries %v", mi.entries)
	}
	if !slices.Equal(mi.m.Internal, []string{"@acme/ui", "local"}) && !slices.Equal(mi.m.Internal, []string{"local", "@acme/ui"}) {
		t.Errorf("internal %v", mi.m.Internal)
	}
	ws := parseOne(t, "pnpm-workspace.yaml", "packages:\n  - 'packages/*'\n  - \"!**/test/**\"\ncatalog:\n  react: ^18\n")
	if ws.wsTool != "pnpm" || !slices.Equal(ws.wsGlobs, []string{"packages/*", "!**/test/**"}) {
		t.Errorf("pnpm %+v", ws)
	}
}

func TestManifestDeno(t *testing.T) {
	mi := parseOne(t, "deno.jsonc", `{
  // the app
  "name": "@acme/deno-app", "version": "0.1.0",
  "imports": {"@std/path": "jsr:@std/path@^1.0.0", "chalk": "npm:chalk@5.3.0", "~/": "./src/",},
  "workspace": ["./tools/a"],
  "tasks": {"dev": "deno run main.ts"}
}`)
	wantDep(t, mi, model.PackageDep{Name: "jsr:@std/path", Version: "^1.0.0"})
	wantDep(t, mi, model.PackageDep{Name: "npm:chalk", Version: "5.3.0"})
	wantDep(t, mi, model.PackageDep{Name: "~", Path: "src"})
	if mi.wsTool != "deno" || !slices.Equal(mi.wsGlobs, []string{"./tools/a"}) || mi.m.Name != "@acme/deno-app" {
		t.Errorf("%+v", mi)
	}
}

func TestManifestCargo(t *testing.T) {
	mi := parseOne(t, "crates/app/Cargo.toml", `[package]
name = "acme-app"
version = "0.4.0"
description = "The app"

[lib]
name = "acme"

[[bin]]
name = "acme-cli"

[dependencies]
tokio = { version = "1.37", features = ["full"] }
anyhow = "1"
acme-core = { path = "../core" }
json = { package = "serde_json", version = "1.0" }

[dev-dependencies]
insta = "1.38"

[target.'cfg(unix)'.dependencies]
nix = "0.28"
`)
	if mi.m.Name != "acme-app" || mi.crate != "acme" || !slices.Equal(mi.m.Bins, []string{"acme-cli"}) {
		t.Errorf("%+v crate %s", mi.m, mi.crate)
	}
	wantDep(t, mi, model.PackageDep{Name: "tokio", Version: "1.37"})
	wantDep(t, mi, model.PackageDep{Name: "acme-core", Path: "crates/core"})
	wantDep(t, mi, model.PackageDep{Name: "serde_json", Version: "1.0"})
	wantDep(t, mi, model.PackageDep{Name: "insta", Version: "1.38", Dev: true})
	wantDep(t, mi, model.PackageDep{Name: "nix", Version: "0.28"})
	if mi.renames["json"] != "serde_json" {
		t.Errorf("renames %v", mi.renames)
	}
	ws := parseOne(t, "Cargo.toml", "[workspace]\nmembers = [\"crates/*\"]\nexclude = [\"crates/old\"]\n")
	if ws.wsTool != "cargo" || !slices.Equal(ws.wsGlobs, []string{"crates/*", "!crates/old"}) {
		t.Errorf("workspace %+v", ws)
	}
	if got := expandMembers("", ws.wsGlobs, []string{"crates/app", "crates/old", "tools/x"}); !slices.Equal(got, []string{"crates/app"}) {
		t.Errorf("members %v", got)
	}
}

func TestManifestPython(t *testing.T) {
	pep := parseOne(t, "pyproject.toml", `[project]
name = "acme"
version = "1.0"
description = "Acme"
dependencies = ["httpx[http2]>=0.27", "pydantic (>=2,<3)", "rich"]
[project.optional-dependencies]
test = ["pytest>=8"]
[dependency-groups]
lint = ["ruff==0.4.4"]
[tool.uv.workspace]
members = ["libs/*"]
`)
	wantDep(t, pep, model.PackageDep{Name: "httpx", Version: ">=0.27"})
	wantDep(t, pep, model.PackageDep{Name: "pydantic", Version: ">=2,<3"})
	wantDep(t, pep, model.PackageDep{Name: "rich"})
	wantDep(t, pep, model.PackageDep{Name: "pytest", Version: ">=8", Dev: true})
	wantDep(t, pep, model.PackageDep{Name: "ruff", Version: "==0.4.4", Dev: true})
	if pep.wsTool != "uv" {
		t.Errorf("uv workspace %+v", pep)
	}
	poetry := parseOne(t, "svc/pyproject.toml", `[tool.poetry]
name = "svc"
version = "0.1.0"
description = "A service"
[tool.poetry.dependencies]
python = "^3.11"
fastapi = "^0.110"
shared = { path = "../shared", develop = true }
[tool.poetry.group.dev.dependencies]
mypy = "^1.10"
`)
	if poetry.m.Name != "svc" || poetry.m.Description != "A service" {
		t.Errorf("%+v", poetry.m)
	}
	wantDep(t, poetry, model.PackageDep{Name: "fastapi", Version: "^0.110"})
	wantDep(t, poetry, model.PackageDep{Name: "shared", Path: "shared"})
	wantDep(t, poetry, model.PackageDep{Name: "mypy", Version: "^1.10", Dev: true})
	for _, d := range poetry.m.Dependencies {
		if d.Name == "python" {
			t.Error("python is not a dependency")
		}
	}
	req := parseOne(t, "requirements-dev.txt", "# tools\n--index-url https://example.invalid/simple\n-r requirements.txt\nblack==24.4.2 ; python_version >= \"3.9\"\nDjango>=4.2,<5  # web\n-e ./libs/common\ngit+https://example.invalid/x.git\n")
	wantDep(t, req, model.PackageDep{Name: "black", Version: "==24.4.2", Dev: true})
	wantDep(t, req, model.PackageDep{Name: "Django", Version: ">=4.2,<5", Dev: true})
	wantDep(t, req, model.PackageDep{Name: "./libs/common", Path: "libs/common", Dev: true})
	cfg := parseOne(t, "setup.cfg", "[metadata]\nname = legacy\nversion = 0.9\ndescription = Old style\n\n[options]\ninstall_requires =\n    click>=8\n    attrs\n\n[options.extras_require]\ntest =\n    pytest\n")
	if cfg.m.Name != "legacy" || cfg.m.Description != "Old style" {
		t.Errorf("%+v", cfg.m)
	}
	wantDep(t, cfg, model.PackageDep{Name: "click", Version: ">=8"})
	wantDep(t, cfg, model.PackageDep{Name: "attrs"})
	wantDep(t, cfg, model.PackageDep{Name: "pytest", Dev: true})
	pip := parseOne(t, "Pipfile", "[packages]\nflask = \"*\"\nrequests = {version = \">=2.0\"}\n\n[dev-packages]\npytest = \"*\"\n")
	wantDep(t, pip, model.PackageDep{Name: "requests", Version: ">=2.0"})
	wantDep(t, pip, model.PackageDep{Name: "pytest", Version: "*", Dev: true})
}

func TestManifestJVM(t *testing.T) {
	pom := parseOne(t, "pom.xml", `<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <parent><groupId>com.acme</groupId><artifactId>parent</artifactId><version>1.2.0</version></parent>
  <artifactId>orders</artifactId>
  <description>
    Order service
  </description>
  <modules><module>orders-api</module><module>orders-core</module></modules>
  <dependencies>
    <dependency><groupId>org.springframework.boot</groupId><artifactId>spring-boot-starter-web</artifactId><version>3.2.5</version></dependency>
    <dependency><groupId>org.junit.jupiter</groupId><artifactId>junit-jupiter</artifactId><scope>test</scope></dependency>
  </dependencies>
  <dependencyManagement><dependencies><dependency><groupId>x</groupId><artifactId>managed</artifactId></dependency></dependencies></dependencyManagement>
</project>`)
	if pom.m.Name != "com.acme:orders" || pom.m.Version != "1.2.0" || pom.m.Description != "Order service" || pom.wsTool != "maven" || !slices.Equal(pom.wsGlobs, []string{"orders-api", "orders-core"}) {
		t.Errorf("%+v %v", pom.m, pom.wsGlobs)
	}
	wantDep(t, pom, model.PackageDep{Name: "org.springframework.boot:spring-boot-starter-web", Version: "3.2.5"})
	wantDep(t, pom, model.PackageDep{Name: "org.junit.jupiter:junit-jupiter", Dev: true})
	if len(pom.m.Dependencies) != 2 {
		t.Errorf("dependencyManagement is not a dependency: %+v", pom.m.Dependencies)
	}
	kts := parseOne(t, "app/build.gradle.kts", `plugins { kotlin("jvm") version "2.0.0" }
dependencies {
    implementation("io.ktor:ktor-server-core:2.3.11")
    implementation(project(":core"))
    testImplementation("io.kotest:kotest-runner-junit5:5.9.0")
    // implementation("commented:out:1")
}
`)
	wantDep(t, kts, model.PackageDep{Name: "io.ktor:ktor-server-core", Version: "2.3.11"})
	wantDep(t, kts, model.PackageDep{Name: ":core", Path: "core"})
	wantDep(t, kts, model.PackageDep{Name: "io.kotest:kotest-runner-junit5", Version: "5.9.0", Dev: true})
	groovy := parseOne(t, "build.gradle", "dependencies {\n    implementation 'com.google.guava:guava:33.2.0-jre'\n    api project(':lib:util')\n}\n")
	wantDep(t, groovy, model.PackageDep{Name: "com.google.guava:guava", Version: "33.2.0-jre"})
	wantDep(t, groovy, model.PackageDep{Name: ":lib:util", Path: "lib/util"})
	settings := parseOne(t, "settings.gradle.kts", "rootProject.name = \"acme\"\ninclude(\":app\", \":core\")\ninclude(\":lib:util\")\n")
	if settings.m.Name != "acme" || settings.wsTool != "gradle" || !slices.Equal(settings.wsGlobs, []string{"app", "core", "lib/util"}) {
		t.Errorf("settings %+v %v", settings.m, settings.wsGlobs)
	}
}

func TestManifestOthers(t *testing.T) {
	composer := parseOne(t, "composer.json", `{"name": "acme/shop", "description": "Shop", "require": {"php": ">=8.2", "ext-json": "*", "laravel/framework": "^11.0"}, "require-dev": {"phpunit/phpunit": "^11"}}`)
	wantDep(t, composer, model.PackageDep{Name: "laravel/framework", Version: "^11.0"})
	wantDep(t, composer, model.PackageDep{Name: "phpunit/phpunit", Version: "^11", Dev: true})
	if len(composer.m.Dependencies) != 2 {
		t.Errorf("platform packages are not dependencies: %+v", composer.m.Dependencies)
	}
	gem := parseOne(t, "Gemfile", `source "https://rubygems.org"
ruby "3.3.0"
gem "rails", "~> 7.1.3"
gem "pg"
gem "engine", path: "engines/engine"
group :development, :test do
  gem "rspec-rails", "~> 6.1"
end
gem "puma", ">= 5.0" # server
`)
	wantDep(t, gem, model.PackageDep{Name: "rails", Version: "~> 7.1.3"})
	wantDep(t, gem, model.PackageDep{Name: "pg"})
	wantDep(t, gem, model.PackageDep{Name: "engine", Path: "engines/engine"})
	wantDep(t, gem, model.PackageDep{Name: "rspec-rails", Version: "~> 6.1", Dev: true})
	wantDep(t, gem, model.PackageDep{Name: "puma", Version: ">= 5.0"})
	mix := parseOne(t, "apps/web/mix.exs", `defmodule Web.MixProject do
  use Mix.Project

  def project do
    [app: :web, version: "0.3.1", deps: deps()]
  end

  defp deps do
    [
      {:phoenix, "~> 1.7.12"},
      {:ecto_sql, "~> 3.10"},
      {:floki, ">= 0.30.0", only: :test},
      {:core, in_umbrella: true},
      {:shared, path: "../../shared"}
    ]
  end
end
`)
	if mix.m.Name != "web" || mix.m.Version != "0.3.1" {
		t.Errorf("%+v", mix.m)
	}
	wantDep(t, mix, model.PackageDep{Name: "phoenix", Version: "~> 1.7.12"})
	wantDep(t, mix, model.PackageDep{Name: "floki", Version: ">= 0.30.0", Dev: true})
	wantDep(t, mix, model.PackageDep{Name: "core", Path: "umbrella:"})
	wantDep(t, mix, model.PackageDep{Name: "shared", Path: "shared"})
	cs := parseOne(t, "src/Api/Api.csproj", `<Project Sdk="Microsoft.NET.Sdk.Web">
  <PropertyGroup><TargetFramework>net8.0</TargetFramework><Description>The API</Description></PropertyGroup>
  <ItemGroup>
    <PackageReference Include="Serilog" Version="3.1.1" />
    <PackageReference Include="Dapper"><Version>2.1.35</Version></PackageReference>
    <ProjectReference Include="..\Domain\Domain.csproj" />
  </ItemGroup>
</Project>`)
	if cs.m.Name != "Api" || cs.m.Description != "The API" || cs.m.Ecosystem != "nuget" {
		t.Errorf("%+v", cs.m)
	}
	wantDep(t, cs, model.PackageDep{Name: "Serilog", Version: "3.1.1"})
	wantDep(t, cs, model.PackageDep{Name: "Dapper", Version: "2.1.35"})
	wantDep(t, cs, model.PackageDep{Name: "Domain", Path: "src/Domain"})
}
