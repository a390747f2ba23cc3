package scan

import (
	"bufio"
	"bytes"
	"encoding/xml"
	"path"
	"sort"
	"strings"

	"github.com/kontext-dev/kontext/internal/repo/model"
)

// parsePom reads a Maven pom.xml: coordinates, dependencies (test and
// provided scopes are dev) and <modules> as the workspace.
func parsePom(p string, data []byte) *manifestInfo {
	var pom struct {
		GroupID     string `xml:"groupId"`
		ArtifactID  string `xml:"artifactId"`
		Version     string `xml:"version"`
		Description string `xml:"description"`
		Parent      struct {
			GroupID string `xml:"groupId"`
			Version string `xml:"version"`
		} `xml:"parent"`
		Modules      []string `xml:"modules>module"`
		Dependencies []struct {
			GroupID    string `xml:"groupId"`
			ArtifactID string `xml:"artifactId"`
			Version    string `xml:"version"`
			Scope      string `xml:"scope"`
		} `xml:"dependencies>dependency"`
	}
	mi := &manifestInfo{m: model.Manifest{Ecosystem: "maven"}}
	dec := xml.NewDecoder(bytes.NewReader(data))
	dec.Strict = false
	if err := dec.Decode(&pom); err != nil {
		return mi
	}
	group := firstNonEmpty(pom.GroupID, pom.Parent.GroupID)
	if pom.ArtifactID != "" {
		mi.m.Name = group + ":" + pom.ArtifactID
	}
	mi.m.Version = firstNonEmpty(pom.Version, pom.Parent.Version)
	mi.m.Description = strings.Join(strings.Fields(pom.Description), " ")
	for _, d := range pom.Dependencies {
		if d.ArtifactID == "" {
			continue
		}
		mi.m.Dependencies = append(mi.m.Dependencies, model.PackageDep{
			Name:    strings.TrimSpace(d.GroupID) + ":" + strings.TrimSpace(d.ArtifactID),
			Version: strings.TrimSpace(d.Version),
			Dev:     d.Scope == "test" || d.Scope == "provided",
		})
	}
	if len(pom.Modules) > 0 {
		mi.wsTool = "maven"
		for _, m := range pom.Modules {
			mi.wsGlobs = append(mi.wsGlobs, strings.TrimSpace(m))
		}
	}
	return mi
}

// gradleConfigs are the dependency configurations kontext reads, and
// whether each is for tests or tooling only.
var gradleConfigs = map[string]bool{
	"implementation": false, "api": false, "compile": false, "compileOnly": false, "runtimeOnly": false,
	"runtime": false, "kapt": true, "ksp": true, "annotationProcessor": true, "testImplementation": true,
	"testCompileOnly": true, "testRuntimeOnly": true, "androidTestImplementation": true, "testCompile": true,
	"debugImplementation": true, "compileOnlyApi": false, "testFixturesImplementation": true,
}

// parseGradleBuild reads build.gradle(.kts) dependencies line by line:
// `implementation "g:a:v"`, `implementation("g:a:v")`, `api(project(":core"))`.
func parseGradleBuild(p string, data []byte) *manifestInfo {
	mi := &manifestInfo{m: model.Manifest{Ecosystem: "gradle"}}
	if d := dirOf(p); d != "" {
		mi.m.Name = path.Base(d) // a project's default name; the root's is settings.gradle's
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "//") {
			continue
		}
		word := line
		if i := strings.IndexAny(line, " (\t"); i > 0 {
			word = line[:i]
		} else {
			continue
		}
		dev, ok := gradleConfigs[word]
		if !ok {
			continue
		}
		rest := line[len(word):]
		if i := strings.Index(rest, "project("); i >= 0 {
			if q := quoted(rest[i:]); q != "" {
				member := strings.ReplaceAll(strings.TrimPrefix(q, ":"), ":", "/")
				mi.m.Dependencies = append(mi.m.Dependencies, model.PackageDep{Name: q, Path: member, Dev: dev})
				mi.m.Internal = append(mi.m.Internal, q)
			}
			continue
		}
		q := quoted(rest)
		parts := strings.Split(q, ":")
		if len(parts) < 2 {
			continue
		}
		d := model.PackageDep{Name: parts[0] + ":" + parts[1], Dev: dev}
		if len(parts) >= 3 {
			d.Version = parts[2]
		}
		mi.m.Dependencies = append(mi.m.Dependencies, d)
	}
	return mi
}

// parseGradleSettings reads settings.gradle(.kts): rootProject.name and
// the included projects (":a:b" is the directory a/b).
func parseGradleSettings(p string, data []byte) *manifestInfo {
	mi := &manifestInfo{m: model.Manifest{Ecosystem: "gradle"}, wsTool: "gradle"}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(line, "rootProject.name"):
			mi.m.Name = quoted(line)
		case strings.HasPrefix(line, "include"):
			for _, q := range allQuoted(line) {
				mi.wsGlobs = append(mi.wsGlobs, strings.ReplaceAll(strings.TrimPrefix(q, ":"), ":", "/"))
			}
		}
	}
	if len(mi.wsGlobs) == 0 {
		mi.wsTool = ""
	}
	return mi
}

// quoted returns the first '…' or "…" string in s.
func quoted(s string) string {
	if q := allQuoted(s); len(q) > 0 {
		return q[0]
	}
	return ""
}

func allQuoted(s string) []string {
	var out []string
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '"' && c != '\'' {
			continue
		}
		j := strings.IndexByte(s[i+1:], c)
		if j < 0 {
			break
		}
		out = append(out, s[i+1:i+1+j])
		i += j + 1
	}
	return out
}

// parseCsproj reads a .NET project: PackageReference (Version as an
// attribute or an element) and ProjectReference (internal).
func parseCsproj(p string, data []byte) *manifestInfo {
	var proj struct {
		ItemGroups []struct {
			Packages []struct {
				Include string `xml:"Include,attr"`
				Version string `xml:"Version,attr"`
				VerElem string `xml:"Version"`
			} `xml:"PackageReference"`
			Projects []struct {
				Include string `xml:"Include,attr"`
			} `xml:"ProjectReference"`
		} `xml:"ItemGroup"`
		PropertyGroups []struct {
			Description string `xml:"Description"`
			Version     string `xml:"Version"`
			PackageID   string `xml:"PackageId"`
		} `xml:"PropertyGroup"`
	}
	name := strings.TrimSuffix(path.Base(p), path.Ext(p))
	mi := &manifestInfo{m: model.Manifest{Ecosystem: "nuget", Name: name}}
	dec := xml.NewDecoder(bytes.NewReader(data))
	dec.Strict = false
	if err := dec.Decode(&proj); err != nil {
		return mi
	}
	dir := dirOf(p)
	for _, pg := range proj.PropertyGroups {
		mi.m.Description = firstNonEmpty(mi.m.Description, pg.Description)
		mi.m.Version = firstNonEmpty(mi.m.Version, pg.Version)
		mi.m.Name = firstNonEmpty(pg.PackageID, mi.m.Name)
	}
	for _, ig := range proj.ItemGroups {
		for _, pk := range ig.Packages {
			if pk.Include != "" {
				mi.m.Dependencies = append(mi.m.Dependencies, model.PackageDep{Name: pk.Include, Version: firstNonEmpty(pk.Version, strings.TrimSpace(pk.VerElem))})
			}
		}
		for _, pr := range ig.Projects {
			target, ok := joinDir(dir, pr.Include)
			if !ok || pr.Include == "" {
				continue
			}
			ref := strings.TrimSuffix(path.Base(target), path.Ext(target))
			mi.m.Dependencies = append(mi.m.Dependencies, model.PackageDep{Name: ref, Path: dirOf(target)})
			mi.m.Internal = append(mi.m.Internal, ref)
		}
	}
	sort.Strings(mi.m.Internal)
	return mi
}
