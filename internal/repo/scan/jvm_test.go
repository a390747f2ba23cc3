package scan

import (
	"slices"
	"strings"
	"testing"

	"github.com/kontext-dev/kontext/internal/repo/model"
)

// A Groovy build: include spread over several lines, a projectDir
// override, an included build, project(':x') dependencies in both call
// forms, "g:a:$version" strings and an ext map.
func TestGradleGroovyMultiLineInclude(t *testing.T) {
	g := scanFixture(t, map[string]string{
		"settings.gradle": `rootProject.name = 'shop'
include ':core',
        ':api',
        ':storage:jdbc'
include(':tools')
project(':tools').projectDir = file('build-tools/cli')
includeBuild 'build-logic'
// include ':commented-out'
`,
		"build.gradle": `ext {
    versions = [okhttp: '4.12.0']
    deps = [junit: "junit:junit:4.13.2"]
}
ext.guavaVersion = '33.2.0-jre'
`,
		"core/build.gradle": `dependencies {
    implementation "com.google.guava:guava:$guavaVersion"
    implementation "com.squareup.okhttp3:okhttp:${versions.okhttp}"
    testImplementation deps.junit
}
`,
		"api/build.gradle": `dependencies {
    api project(':core')
    implementation(project(path: ':storage:jdbc'))
    testImplementation project(':tools')
}
`,
		"storage/jdbc/build.gradle":                           "dependencies {\n    implementation project(':core')\n}\n",
		"build-tools/cli/build.gradle":                        "apply plugin: 'application'\n",
		"build-logic/settings.gradle":                         "rootProject.name = 'build-logic'\n",
		"build-logic/build.gradle":                            "plugins { id 'groovy-gradle-plugin' }\n",
		"core/src/main/java/com/shop/core/Cart.java":          "package com.shop.core;\n\nimport com.google.common.collect.ImmutableList;\n\npublic class Cart {}\n",
		"api/src/main/java/com/shop/api/Api.java":             "package com.shop.api;\n\nimport com.shop.core.Cart;\nimport com.shop.jdbc.Store;\n\npublic class Api {}\n",
		"storage/jdbc/src/main/java/com/shop/jdbc/Store.java": "package com.shop.jdbc;\n\nimport com.shop.core.Cart;\n\npublic class Store {}\n",
		"build-tools/cli/src/main/java/com/shop/cli/Cli.java": "package com.shop.cli;\n\npublic class Cli {}\n",
	})
	var ws []string
	for _, w := range g.Workspaces {
		ws = append(ws, w.Manifest+"="+strings.Join(w.Members, ","))
	}
	if !slices.Contains(ws, "settings.gradle=api,build-logic,build-tools/cli,core,storage/jdbc") {
		t.Errorf("workspaces %v", ws)
	}
	wantModules(t, g, map[string]model.ModuleBasis{"core": model.BasisWorkspacePackage, "api": model.BasisWorkspacePackage,
		"storage/jdbc": model.BasisWorkspacePackage, "build-tools/cli": model.BasisWorkspacePackage})
	if d := edge(t, g, "api", "core"); d.Scope != model.ScopeProduction || d.Kind != model.ImportWorkspacePackage {
		t.Errorf("api → core %+v", d)
	}
	edge(t, g, "api", "storage/jdbc")
	edge(t, g, "storage/jdbc", "core")
	if d := edge(t, g, "api", "build-tools/cli"); d.Scope != model.ScopeTest {
		t.Errorf("testImplementation project(':tools') is a test edge: %+v", d)
	}
	for name, version := range map[string]string{"com.google.guava:guava": "33.2.0-jre", "com.squareup.okhttp3:okhttp": "4.12.0", "junit:junit": "4.13.2"} {
		if e := external(t, g, "gradle", name); e.Version != version {
			t.Errorf("%s version %q, want %q", name, e.Version, version)
		}
	}
	if !external(t, g, "gradle", "junit:junit").Dev {
		t.Errorf("junit is a test dependency")
	}
	if g.Summary.Name != "shop" {
		t.Errorf("name %q", g.Summary.Name)
	}
	wantImport(t, g, "core/src/main/java/com/shop/core/Cart.java", "com.google.common.collect.ImmutableList", model.ImportExternal, "com.google.guava:guava")
}

// A Kotlin DSL build with type-safe project accessors and a version
// catalog: projects.fooBar is :foo-bar, libs.x.y and bundles are the
// catalog's coordinates; an undeclared import is no external package.
func TestGradleKotlinDSLAccessorsAndCatalog(t *testing.T) {
	g := scanFixture(t, map[string]string{
		"settings.gradle.kts":                       "rootProject.name = \"okapi\"\n\nenableFeaturePreview(\"TYPESAFE_PROJECT_ACCESSORS\")\n\ninclude(\n    \":okapi-core\",\n    \":foo-bar\",\n    \":samples:hello\",\n)\ninclude(\":mockserver\")\nproject(\":mockserver\").name = \"mockserver3\"\n",
		"mockserver/build.gradle.kts":               "dependencies {\n    \"friendsApi\"(projects.okapiCore)\n}\n",
		"mockserver/src/main/kotlin/mock/Server.kt": "package mock\n\nclass Server\n",
		"gradle/libs.versions.toml": `[versions]
kotlin = "2.0.0"
okio = { strictly = "3.9.0" }

[libraries]
okio = { module = "com.squareup.okio:okio", version.ref = "okio" }
kotlinx-coroutines-core = { group = "org.jetbrains.kotlinx", name = "kotlinx-coroutines-core", version = "1.8.1" }
assertk = "com.willowtreeapps.assertk:assertk:0.28.1"
junit_jupiter = { module = "org.junit.jupiter:junit-jupiter", version = "5.10.2" }

[bundles]
testing = ["assertk", "junit_jupiter"]
`,
		"okapi-core/build.gradle.kts": `plugins { kotlin("jvm") }
kotlin {
    sourceSets {
        commonMain {
            dependencies {
                api(libs.okio)
                implementation(libs.kotlinx.coroutines.core)
            }
        }
        commonTest {
            dependencies {
                implementation(libs.bundles.testing)
            }
        }
    }
}
`,
		"foo-bar/build.gradle.kts":                            "dependencies {\n    implementation(projects.okapiCore)\n    testImplementation(libs.assertk)\n}\n",
		"samples/hello/build.gradle.kts":                      "dependencies {\n    implementation(projects.fooBar)\n    implementation(projects.nope)\n    implementation(libs.missing.lib)\n    testImplementation(projects.mockserver3)\n}\n",
		"okapi-core/src/commonMain/kotlin/okapi/Okapi.kt":     "package okapi\n\nimport okio.Buffer\n\nfun okapi(): Buffer = Buffer()\n",
		"okapi-core/src/commonTest/kotlin/okapi/OkapiTest.kt": "package okapi\n\nimport assertk.assertThat\nimport assertk.assertions.isEqualTo\n\nclass OkapiTest\n",
		"foo-bar/src/main/kotlin/foo/Bar.kt":                  "package foo\n\nimport okapi.okapi\nimport org.undeclared.Thing\n\nfun bar() = okapi()\n",
		"samples/hello/src/main/kotlin/hello/Main.kt":         "package hello\n\nimport foo.bar\n\nfun main() { bar() }\n",
	})
	if d := edge(t, g, "foo-bar", "okapi-core"); d.Scope != model.ScopeProduction {
		t.Errorf("foo-bar → okapi-core %+v", d)
	}
	edge(t, g, "samples/hello", "foo-bar")
	if d := edge(t, g, "samples/hello", "mockserver"); d.Scope != model.ScopeTest {
		t.Errorf("projects.mockserver3, the renamed :mockserver, in its directory: %+v", d)
	}
	edge(t, g, "mockserver", "okapi-core")
	wantImport(t, g, "foo-bar/src/main/kotlin/foo/Bar.kt", "okapi.okapi", model.ImportInternalFile, "okapi-core/src/commonMain/kotlin/okapi/Okapi.kt")
	wantImport(t, g, "foo-bar/src/main/kotlin/foo/Bar.kt", "org.undeclared.Thing", model.ImportExternal, "")
	wantImport(t, g, "okapi-core/src/commonTest/kotlin/okapi/OkapiTest.kt", "assertk.assertions.isEqualTo", model.ImportExternal, "com.willowtreeapps.assertk:assertk")
	if e := external(t, g, "gradle", "com.squareup.okio:okio"); e.Version != "3.9.0" || e.Dev {
		t.Errorf("okio %+v", e)
	}
	if e := external(t, g, "gradle", "org.jetbrains.kotlinx:kotlinx-coroutines-core"); e.Version != "1.8.1" {
		t.Errorf("coroutines %+v", e)
	}
	if e := external(t, g, "gradle", "org.junit.jupiter:junit-jupiter"); e.Version != "5.10.2" || !e.Dev {
		t.Errorf("junit from the testing bundle of a commonTest block: %+v", e)
	}
	for _, e := range g.External {
		if strings.Contains(e.Name, "assertions") || strings.HasPrefix(e.Name, "org.undeclared") || !strings.Contains(e.Name, ":") {
			t.Errorf("external %q is not Maven coordinates", e.Name)
		}
	}
	var problems []string
	for _, m := range g.Manifests {
		if m.Path == "samples/hello/build.gradle.kts" {
			problems = m.Problems
		}
	}
	if len(problems) != 2 || !strings.Contains(problems[0], "projects.nope") || !strings.Contains(problems[1], "libs.missing.lib") {
		t.Errorf("what the build cannot resolve is reported: %q", problems)
	}
}

// A package split across modules and source sets: an import resolves to
// the file declaring the name, the importer's own module and main source
// set first; main never depends on a test source set; a generated class
// (not in the tree) of the importer's own package is its own module's.
func TestJVMSplitPackage(t *testing.T) {
	g := scanFixture(t, map[string]string{
		"settings.gradle":                                       "include 'lib', 'app', 'testing'\n",
		"lib/build.gradle":                                      "\n",
		"app/build.gradle":                                      "dependencies {\n    implementation project(':lib')\n    testImplementation project(':testing')\n}\n",
		"testing/build.gradle":                                  "dependencies {\n    implementation project(':lib')\n}\n",
		"lib/src/main/java/com/acme/util/Strings.java":          "package com.acme.util;\n\npublic class Strings {}\n",
		"lib/src/test/java/com/acme/util/StringsTest.java":      "package com.acme.util;\n\nimport com.acme.util.Fixtures;\n\npublic class StringsTest {}\n",
		"lib/src/test/java/com/acme/util/Fixtures.java":         "package com.acme.util;\n\npublic class Fixtures {}\n",
		"app/src/main/java/com/acme/util/AppStrings.java":       "package com.acme.util;\n\npublic class AppStrings {}\n",
		"app/src/main/java/com/acme/app/App.java":               "package com.acme.app;\n\nimport com.acme.util.Strings;\nimport com.acme.util.AppStrings;\nimport com.acme.util.Fixtures;\nimport com.acme.app.BuildConfig;\nimport com.acme.util.*;\n\npublic class App {}\n",
		"app/src/test/java/com/acme/app/AppTest.java":           "package com.acme.app;\n\nimport com.acme.util.Fixtures;\nimport com.acme.testing.FakeClock;\n\npublic class AppTest {}\n",
		"testing/src/main/java/com/acme/testing/FakeClock.java": "package com.acme.testing;\n\nimport com.acme.util.Strings;\n\npublic class FakeClock {}\n",
		"testing/src/main/java/com/acme/util/Strings.java":      "package com.acme.util;\n\npublic class Strings {}\n", // a shadow of lib's
		"lib/src/main/kotlin/com/acme/util/Text.kt":             "@file:JvmName(\"TextUtils\")\npackage com.acme.util\n\nfun slug(s: String) = s\n",
		"app/src/main/java/com/acme/app/Slugs.java":             "package com.acme.app;\n\nimport com.acme.util.TextUtils;\nimport com.acme.util.TextKt;\n\npublic class Slugs {}\n",
	})
	app := "app/src/main/java/com/acme/app/App.java"
	wantImport(t, g, app, "com.acme.util.Strings", model.ImportInternalFile, "lib/src/main/java/com/acme/util/Strings.java")
	wantImport(t, g, app, "com.acme.util.AppStrings", model.ImportInternalFile, "app/src/main/java/com/acme/util/AppStrings.java")
	wantImport(t, g, app, "com.acme.util.*", model.ImportInternalModule, "app/src/main/java/com/acme/util")
	if imp := importOf(t, g, app, "com.acme.util.Fixtures"); imp.Kind == model.ImportInternalFile && strings.Contains(imp.Target, "src/test") {
		t.Errorf("main code resolved into a test source set: %+v", imp)
	}
	wantImport(t, g, app, "com.acme.app.BuildConfig", model.ImportInternalModule, "app/src/main/java/com/acme/app")
	wantImport(t, g, "app/src/test/java/com/acme/app/AppTest.java", "com.acme.util.Fixtures", model.ImportInternalFile, "lib/src/test/java/com/acme/util/Fixtures.java")
	wantImport(t, g, "testing/src/main/java/com/acme/testing/FakeClock.java", "com.acme.util.Strings", model.ImportInternalFile, "testing/src/main/java/com/acme/util/Strings.java")
	wantImport(t, g, "app/src/main/java/com/acme/app/Slugs.java", "com.acme.util.TextUtils", model.ImportInternalFile, "lib/src/main/kotlin/com/acme/util/Text.kt")
	wantImport(t, g, "app/src/main/java/com/acme/app/Slugs.java", "com.acme.util.TextKt", model.ImportInternalFile, "lib/src/main/kotlin/com/acme/util/Text.kt")
	if d := edge(t, g, "app", "testing"); d.Scope != model.ScopeTest {
		t.Errorf("app → testing is only its tests' %+v", d)
	}
	noEdge(t, g, "testing", "app")
	noEdge(t, g, "lib", "app")
	if len(g.Cycles) != 0 {
		t.Errorf("cycles %+v", g.Cycles)
	}
	for _, d := range g.Dependencies {
		if d.From == "lib" || d.From == "testing" && d.To != "lib" {
			t.Errorf("false edge %s → %s: %+v", d.From, d.To, d.Evidence)
		}
	}
}

// Maven: a parent POM's groupId, version, properties and managed versions
// reach its modules; inter-module dependencies are edges; an
// unparseable POM says so.
func TestMavenParentAndProperties(t *testing.T) {
	g := scanFixture(t, map[string]string{
		"pom.xml": `<project>
  <groupId>com.acme</groupId><artifactId>shop-parent</artifactId><version>2.1.0</version><packaging>pom</packaging>
  <modules><module>shop-core</module><module>shop-web</module></modules>
  <properties><jackson.version>2.17.1</jackson.version></properties>
  <dependencyManagement><dependencies>
    <dependency><groupId>org.slf4j</groupId><artifactId>slf4j-api</artifactId><version>2.0.13</version></dependency>
  </dependencies></dependencyManagement>
  <profiles><profile><id>it</id><modules><module>shop-it</module></modules></profile></profiles>
</project>`,
		"shop-core/pom.xml": `<project>
  <parent><groupId>com.acme</groupId><artifactId>shop-parent</artifactId><version>2.1.0</version></parent>
  <artifactId>shop-core</artifactId>
  <dependencies>
    <dependency><groupId>com.fasterxml.jackson.core</groupId><artifactId>jackson-databind</artifactId><version>${jackson.version}</version></dependency>
    <dependency><groupId>org.slf4j</groupId><artifactId>slf4j-api</artifactId></dependency>
  </dependencies>
</project>`,
		"shop-web/pom.xml": `<project>
  <parent><groupId>com.acme</groupId><artifactId>shop-parent</artifactId><version>2.1.0</version></parent>
  <artifactId>shop-web</artifactId>
  <dependencies>
    <dependency><groupId>${project.groupId}</groupId><artifactId>shop-core</artifactId><version>${project.version}</version></dependency>
  </dependencies>
</project>`,
		"shop-it/pom.xml": `<project>
  <parent><groupId>com.acme</groupId><artifactId>shop-parent</artifactId><version>2.1.0</version></parent>
  <artifactId>shop-it</artifactId>
  <dependencies>
    <dependency><groupId>com.acme</groupId><artifactId>shop-web</artifactId><version>2.1.0</version><scope>test</scope></dependency>
  </dependencies>
</project>`,
		"broken/pom.xml": "<project><artifactId>broken</artifactId><dependencies><dependency>",
		"shop-core/src/main/java/com/acme/core/Order.java": "package com.acme.core;\n\nimport com.fasterxml.jackson.databind.ObjectMapper;\nimport org.slf4j.Logger;\nimport com.acme.shared.Missing;\n\npublic class Order {}\n",
		"shop-web/src/main/java/com/acme/web/Web.java":     "package com.acme.web;\n\nimport com.acme.core.Order;\n\npublic class Web {}\n",
	})
	if d := edge(t, g, "shop-web", "shop-core"); d.Scope != model.ScopeProduction {
		t.Errorf("shop-web → shop-core %+v", d)
	}
	if d := edge(t, g, "shop-it", "shop-web"); d.Scope != model.ScopeTest {
		t.Errorf("a test-scoped module dependency: %+v", d)
	}
	order := "shop-core/src/main/java/com/acme/core/Order.java"
	wantImport(t, g, order, "com.fasterxml.jackson.databind.ObjectMapper", model.ImportExternal, "com.fasterxml.jackson.core:jackson-databind")
	wantImport(t, g, order, "org.slf4j.Logger", model.ImportExternal, "org.slf4j:slf4j-api")
	wantImport(t, g, order, "com.acme.shared.Missing", model.ImportExternal, "")
	if e := external(t, g, "maven", "com.fasterxml.jackson.core:jackson-databind"); e.Version != "2.17.1" {
		t.Errorf("jackson %+v", e)
	}
	if e := external(t, g, "maven", "org.slf4j:slf4j-api"); e.Version != "2.0.13" {
		t.Errorf("slf4j, managed by the parent: %+v", e)
	}
	for _, e := range g.External {
		if !strings.Contains(e.Name, ":") {
			t.Errorf("external %q is a Java package, not an artifact", e.Name)
		}
		if strings.HasPrefix(e.Name, "com.acme:") {
			t.Errorf("the repository's own module %s is listed as external", e.Name)
		}
	}
	for _, m := range g.Manifests {
		if m.Path == "shop-web/pom.xml" && m.Name != "com.acme:shop-web" {
			t.Errorf("shop-web's name %q: the group comes from the parent", m.Name)
		}
		if m.Path == "broken/pom.xml" && len(m.Problems) == 0 {
			t.Errorf("an unparseable POM is reported: %+v", m)
		}
	}
	var members []string
	for _, w := range g.Workspaces {
		if w.Manifest == "pom.xml" {
			members = w.Members
		}
	}
	if strings.Join(members, ",") != "shop-core,shop-it,shop-web" {
		t.Errorf("maven members %v (profiles' modules included)", members)
	}
}

// A root build script that configures its projects (Kafka's style):
// dependencies declared in project(':x') { } are x's, those in
// subprojects { } every subproject's.
func TestGradleRootScriptConfiguresProjects(t *testing.T) {
	g := scanFixture(t, map[string]string{
		"settings.gradle": "include 'clients',\n    'core',\n    'connect:api'\n",
		"gradle/dependencies.gradle": `ext {
  versions = [:]
  libs = [:]
}
versions += [
  slf4j: "2.0.13",
]
libs += [
  slf4jApi: "org.slf4j:slf4j-api:$versions.slf4j",
]
`,
		"build.gradle": `buildscript {
    apply from: "$rootDir/gradle/dependencies.gradle"
}

subprojects {
    dependencies {
        testImplementation "junit:junit:4.13.2"
    }
}

project(':core') {
    dependencies {
        implementation project(':clients')
        implementation "org.scala-lang:scala-library:2.13.14"
        implementation libs.slf4jApi
    }
}

project(':connect:api') {
    dependencies {
        api project(':clients')
    }
}
`,
		"clients/src/main/java/org/k/clients/Client.java":  "package org.k.clients;\n\npublic class Client {}\n",
		"core/src/main/java/org/k/core/Broker.java":        "package org.k.core;\n\nimport org.k.clients.Client;\n\npublic class Broker {}\n",
		"connect/api/src/main/java/org/k/connect/Api.java": "package org.k.connect;\n\npublic class Api {}\n",
	})
	if d := edge(t, g, "core", "clients"); d.Scope != model.ScopeProduction || d.Evidence[0].File == "" {
		t.Errorf("core → clients %+v", d)
	}
	edge(t, g, "connect/api", "clients")
	noEdge(t, g, ".", "clients")
	if e := external(t, g, "gradle", "org.scala-lang:scala-library"); strings.Join(e.UsedBy, ",") != "core" {
		t.Errorf("scala-library is core's: %+v", e)
	}
	if e := external(t, g, "gradle", "org.slf4j:slf4j-api"); e.Version != "2.0.13" || strings.Join(e.UsedBy, ",") != "core" {
		t.Errorf("slf4j from the applied gradle/dependencies.gradle: %+v", e)
	}
	for _, m := range g.Manifests {
		if len(m.Problems) > 0 {
			t.Errorf("%s: %q", m.Path, m.Problems)
		}
	}
	if e := external(t, g, "gradle", "junit:junit"); strings.Join(e.UsedBy, ",") != "clients,connect/api,core" || !e.Dev {
		t.Errorf("junit is every subproject's test dependency: %+v", e)
	}
}

// What the build declares decides among the modules declaring a name:
// okhttp's split okhttp3.internal package is in okhttp (main) and
// okhttp-testing-support, and mockwebserver's main code, which declares
// okhttp for main and the testing support for its tests, uses okhttp's;
// a module whose build declares a published artifact of a package the
// repository also holds (Kafka's streams upgrade tests use kafka-streams
// 0.10.0) uses the artifact. A project's source sets are its code, never
// modules of their own.
func TestJVMDeclaredDependencyDecides(t *testing.T) {
	g := scanFixture(t, map[string]string{
		"settings.gradle.kts":                                                         "include(\":okhttp\", \":testing-support\", \":mockwebserver\", \":streams\", \":upgrade-tests\")\n",
		"okhttp/build.gradle.kts":                                                     "plugins { kotlin(\"multiplatform\") }\n",
		"testing-support/build.gradle.kts":                                            "dependencies {\n    api(projects.okhttp)\n}\n",
		"mockwebserver/build.gradle.kts":                                              "dependencies {\n    \"friendsApi\"(projects.okhttp)\n    testImplementation(projects.testingSupport)\n}\n",
		"streams/build.gradle.kts":                                                    "\n",
		"upgrade-tests/build.gradle.kts":                                              "dependencies {\n    testImplementation(\"org.apache.kafka:kafka-streams:0.10.0.1\")\n}\n",
		"okhttp/src/commonJvmAndroid/kotlin/okhttp3/internal/internal.kt":             "package okhttp3.internal\n\ninternal fun addHeaderLenient() {}\n",
		"okhttp/src/commonJvmAndroid/kotlin/okhttp3/internal/Util.kt":                 "package okhttp3.internal\n\nobject Util\n",
		"okhttp/src/commonJvmAndroid/kotlin/okhttp3/Headers.kt":                       "package okhttp3\n\nclass Headers\n",
		"okhttp/src/androidMain/kotlin/okhttp3/OkHttp.android.kt":                     "package okhttp3\n\nimport okhttp3.internal.CONST_VERSION\n\nobject OkHttp\n",
		"testing-support/src/main/kotlin/okhttp3/internal/Recording.kt":               "package okhttp3.internal\n\nclass Recording\n",
		"mockwebserver/src/main/kotlin/mockwebserver3/MockResponse.kt":                "package mockwebserver3\n\nimport okhttp3.Headers\nimport okhttp3.internal.addHeaderLenient\n\nclass MockResponse\n",
		"mockwebserver/src/test/kotlin/mockwebserver3/MockResponseTest.kt":            "package mockwebserver3\n\nimport okhttp3.internal.Recording\n\nclass MockResponseTest\n",
		"streams/src/main/java/org/apache/kafka/streams/KafkaStreams.java":            "package org.apache.kafka.streams;\n\npublic class KafkaStreams {}\n",
		"streams/src/main/java/org/apache/kafka/streams/kstream/KStream.java":         "package org.apache.kafka.streams.kstream;\n\npublic interface KStream {}\n",
		"upgrade-tests/src/test/java/org/apache/kafka/streams/tests/UpgradeTest.java": "package org.apache.kafka.streams.tests;\n\nimport org.apache.kafka.streams.KafkaStreams;\nimport org.apache.kafka.streams.kstream.KStreamBuilder;\n\npublic class UpgradeTest {}\n",
	})
	for _, m := range g.Modules {
		if strings.Contains(m.ID, "/src") {
			t.Errorf("module %s is a source set of a project", m.ID)
		}
	}
	mr := "mockwebserver/src/main/kotlin/mockwebserver3/MockResponse.kt"
	wantImport(t, g, mr, "okhttp3.Headers", model.ImportInternalFile, "okhttp/src/commonJvmAndroid/kotlin/okhttp3/Headers.kt")
	wantImport(t, g, mr, "okhttp3.internal.addHeaderLenient", model.ImportInternalModule, "okhttp/src/commonJvmAndroid/kotlin/okhttp3/internal")
	wantImport(t, g, "mockwebserver/src/test/kotlin/mockwebserver3/MockResponseTest.kt", "okhttp3.internal.Recording", model.ImportInternalFile, "testing-support/src/main/kotlin/okhttp3/internal/Recording.kt")
	if imp := importOf(t, g, "okhttp/src/androidMain/kotlin/okhttp3/OkHttp.android.kt", "okhttp3.internal.CONST_VERSION"); !strings.HasPrefix(imp.Target, "okhttp/") {
		t.Errorf("a generated constant of okhttp's own package is okhttp's: %+v", imp)
	}
	if d := edge(t, g, "mockwebserver", "testing-support"); d.Scope != model.ScopeTest {
		t.Errorf("mockwebserver uses the testing support in its tests only: %+v", d)
	}
	edge(t, g, "mockwebserver", "okhttp")
	noEdge(t, g, "okhttp", "testing-support")
	ut := "upgrade-tests/src/test/java/org/apache/kafka/streams/tests/UpgradeTest.java"
	wantImport(t, g, ut, "org.apache.kafka.streams.KafkaStreams", model.ImportExternal, "org.apache.kafka:kafka-streams")
	wantImport(t, g, ut, "org.apache.kafka.streams.kstream.KStreamBuilder", model.ImportExternal, "org.apache.kafka:kafka-streams")
	noEdge(t, g, "upgrade-tests", "streams")
	if len(g.Cycles) != 0 {
		t.Errorf("cycles %+v", g.Cycles)
	}
}

// A parent POM's <dependencies> are its children's (Guice: every
// extension depends on the core through extensions/pom.xml).
func TestMavenInheritedDependencies(t *testing.T) {
	g := scanFixture(t, map[string]string{
		"pom.xml":      "<project><groupId>com.google.inject</groupId><artifactId>guice-parent</artifactId><version>7.0.0</version><modules><module>core</module><module>extensions</module></modules></project>",
		"core/pom.xml": "<project><parent><groupId>com.google.inject</groupId><artifactId>guice-parent</artifactId><version>7.0.0</version></parent><artifactId>guice</artifactId></project>",
		"extensions/pom.xml": `<project><parent><groupId>com.google.inject</groupId><artifactId>guice-parent</artifactId><version>7.0.0</version></parent>
  <groupId>com.google.inject.extensions</groupId><artifactId>extensions-parent</artifactId><packaging>pom</packaging>
  <modules><module>servlet</module></modules>
  <dependencies>
    <dependency><groupId>com.google.inject</groupId><artifactId>guice</artifactId><version>${project.version}</version></dependency>
    <dependency><groupId>com.google.guava</groupId><artifactId>guava-testlib</artifactId><version>33.0.0-jre</version><scope>test</scope></dependency>
  </dependencies>
</project>`,
		"extensions/servlet/pom.xml":                                   "<project><parent><groupId>com.google.inject.extensions</groupId><artifactId>extensions-parent</artifactId><version>7.0.0</version></parent><artifactId>guice-servlet</artifactId></project>",
		"core/src/com/google/inject/Injector.java":                     "package com.google.inject;\n\npublic interface Injector {}\n",
		"extensions/servlet/src/com/google/inject/servlet/Filter.java": "package com.google.inject.servlet;\n\npublic class Filter {}\n",
	})
	d := edge(t, g, "extensions/servlet", "core")
	if d.Scope != model.ScopeProduction || d.Evidence[0].File != "extensions/pom.xml" || d.Evidence[0].Line != 5 {
		t.Errorf("servlet → core, inherited from extensions/pom.xml: %+v", d)
	}
	if e := external(t, g, "maven", "com.google.guava:guava-testlib"); !slices.Contains(e.UsedBy, "extensions/servlet") || !e.Dev {
		t.Errorf("guava-testlib %+v", e)
	}
}

// Outside a source-set layout, a test and a main file may share a
// folder: the test may resolve into test code, the main file may not,
// whichever is resolved first.
func TestJVMTestAndMainInOneFolder(t *testing.T) {
	g := scanFixture(t, map[string]string{
		"build.gradle":                      "\n",
		"java/com/acme/Fixtures.java":       "package com.acme;\n\npublic class Fixtures {}\n",
		"test/com/acme/support/Helper.java": "package com.acme.support;\n\npublic class Helper {}\n",
		"java/com/acme/AppTest.java":        "package com.acme;\n\nimport com.acme.support.Helper;\n\npublic class AppTest {}\n",
		"java/com/acme/App.java":            "package com.acme;\n\nimport com.acme.support.Helper;\n\npublic class App {}\n",
	})
	wantImport(t, g, "java/com/acme/AppTest.java", "com.acme.support.Helper", model.ImportInternalFile, "test/com/acme/support/Helper.java")
	if imp := importOf(t, g, "java/com/acme/App.java", "com.acme.support.Helper"); imp.Kind == model.ImportInternalFile {
		t.Errorf("main code resolved into test code: %+v", imp)
	}
}

// Every form of include, and what settings cannot say statically.
func TestGradleSettingsForms(t *testing.T) {
	for _, c := range []struct {
		file, src string
		want      []string
		problems  int
	}{
		{"settings.gradle", "include 'a',\n  'b:c'\ninclude(':d')\ninclude([':e', ':f'])\n", []string{"a", "b/c", "d", "e", "f"}, 0},
		{"settings.gradle.kts", "include(\n  \":a\",\n  \":b\",\n)\ninclude(listOf(\":c\"))\nincludeBuild(\"tools\")\n", []string{"a", "b", "c", "tools"}, 0},
		{"settings.gradle", "include ':a'\nproject(':a').projectDir = new File(rootDir, 'libs/a')\ninclude ':a:x'\n", []string{"libs/a", "libs/a/x"}, 0},
		{"settings.gradle", "def mods = ['x', 'y']\ninclude(*mods)\ninclude \":gen-${v}\"\nfile('plugins').eachDir { include \":plugins:${it.name}\" }\n", nil, 4},
	} {
		mi := parseOne(t, c.file, c.src)
		if !slices.Equal(mi.wsGlobs, c.want) || len(mi.m.Problems) != c.problems {
			t.Errorf("%q: members %v, problems %q; want %v and %d problems", c.src, mi.wsGlobs, mi.m.Problems, c.want, c.problems)
		}
	}
}
