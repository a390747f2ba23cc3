package scan

import (
	"bytes"
	"encoding/xml"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/kontext-dev/kontext/internal/repo/model"
)

// pomDependency is a <dependency> of a POM.
type pomDependency struct {
	GroupID    string `xml:"groupId"`
	ArtifactID string `xml:"artifactId"`
	Version    string `xml:"version"`
	Scope      string `xml:"scope"`
	Type       string `xml:"type"`
	Classifier string `xml:"classifier"`
	Optional   string `xml:"optional"`
}

// pomProperty is one element of <properties>.
type pomProperty struct {
	XMLName xml.Name
	Value   string `xml:",chardata"`
}

// pomInfo is what linking a POM to its parents needs.
type pomInfo struct {
	groupID, artifactID, version string
	parentGroup, parentArtifact  string
	parentVersion, parentPath    string
	props                        map[string]string
	managed                      map[string]string // groupId:artifactId → version, from <dependencyManagement>
	deps                         []pomDependency
}

// parsePom reads a Maven pom.xml: coordinates, dependencies (test and
// provided scopes are dev, as are test-jar and tests-classifier
// dependencies), <modules> (of profiles too) as the workspace, and what
// linking to its parent needs — properties, dependencyManagement, the
// parent's coordinates and relativePath. Versions and groups that name
// properties are resolved by linkMaven.
func parsePom(p string, data []byte) *manifestInfo {
	var pom struct {
		GroupID     string `xml:"groupId"`
		ArtifactID  string `xml:"artifactId"`
		Version     string `xml:"version"`
		Description string `xml:"description"`
		Parent      struct {
			GroupID      string  `xml:"groupId"`
			ArtifactID   string  `xml:"artifactId"`
			Version      string  `xml:"version"`
			RelativePath *string `xml:"relativePath"`
		} `xml:"parent"`
		Modules    []string `xml:"modules>module"`
		Properties struct {
			Entries []pomProperty `xml:",any"`
		} `xml:"properties"`
		Dependencies []pomDependency `xml:"dependencies>dependency"`
		Managed      []pomDependency `xml:"dependencyManagement>dependencies>dependency"`
		Profiles     []struct {
			Modules      []string        `xml:"modules>module"`
			Dependencies []pomDependency `xml:"dependencies>dependency"`
		} `xml:"profiles>profile"`
	}
	mi := &manifestInfo{m: model.Manifest{Ecosystem: "maven"}}
	dec := xml.NewDecoder(bytes.NewReader(data))
	dec.Strict = false
	if err := dec.Decode(&pom); err != nil {
		mi.m.Problems = append(mi.m.Problems, "pom.xml: "+err.Error())
		return mi
	}
	pi := &pomInfo{
		groupID: strings.TrimSpace(pom.GroupID), artifactID: strings.TrimSpace(pom.ArtifactID), version: strings.TrimSpace(pom.Version),
		parentGroup: strings.TrimSpace(pom.Parent.GroupID), parentArtifact: strings.TrimSpace(pom.Parent.ArtifactID),
		parentVersion: strings.TrimSpace(pom.Parent.Version), parentPath: "../pom.xml",
		props: map[string]string{}, managed: map[string]string{},
	}
	if pom.Parent.RelativePath != nil {
		pi.parentPath = strings.TrimSpace(*pom.Parent.RelativePath)
	}
	for _, e := range pom.Properties.Entries {
		pi.props[e.XMLName.Local] = strings.TrimSpace(e.Value)
	}
	for _, d := range pom.Managed {
		if d.Version != "" {
			pi.managed[strings.TrimSpace(d.GroupID)+":"+strings.TrimSpace(d.ArtifactID)] = strings.TrimSpace(d.Version)
		}
	}
	pi.deps = pom.Dependencies
	modules := pom.Modules
	for _, pr := range pom.Profiles {
		modules = append(modules, pr.Modules...)
		pi.deps = append(pi.deps, pr.Dependencies...)
	}
	mi.pom = pi
	group := firstNonEmpty(pi.groupID, pi.parentGroup)
	if pi.artifactID != "" {
		mi.m.Name = group + ":" + pi.artifactID
	}
	mi.m.Version = firstNonEmpty(pi.version, pi.parentVersion)
	mi.m.Description = strings.Join(strings.Fields(pom.Description), " ")
	for _, d := range pi.deps {
		if d.ArtifactID == "" {
			continue
		}
		mi.m.Dependencies = append(mi.m.Dependencies, model.PackageDep{
			Name:    strings.TrimSpace(d.GroupID) + ":" + strings.TrimSpace(d.ArtifactID),
			Version: strings.TrimSpace(d.Version),
			Dev:     d.Scope == "test" || d.Scope == "provided" || d.Type == "test-jar" || d.Classifier == "tests",
		})
	}
	seen := map[string]bool{}
	for _, m := range modules {
		if m = strings.TrimSuffix(strings.TrimSpace(m), "/pom.xml"); m != "" && !seen[m] {
			seen[m] = true
			mi.wsGlobs = append(mi.wsGlobs, m)
		}
	}
	if len(mi.wsGlobs) > 0 {
		mi.wsTool = "maven"
	}
	return mi
}

// linkMaven resolves what a POM inherits: its parent (by relativePath,
// else by coordinates among the repository's POMs) gives the groupId,
// the version, properties and managed versions; ${…} in versions and
// groups are substituted; a dependency on another POM of the repository
// is an internal one.
func (ix *index) linkMaven() {
	byPath := map[string]*manifestInfo{}
	byName := map[string]*manifestInfo{}
	for _, mi := range ix.manifests {
		if mi.pom != nil {
			byPath[mi.m.Path] = mi
		}
	}
	parentOf := func(mi *manifestInfo) *manifestInfo {
		pi := mi.pom
		if pi.parentArtifact == "" {
			return nil
		}
		if pi.parentPath != "" {
			rel := pi.parentPath
			if !strings.HasSuffix(rel, ".xml") {
				rel = path.Join(rel, "pom.xml")
			}
			if p, ok := joinDir(mi.dir, rel); ok {
				if pm := byPath[p]; pm != nil && pm != mi && pm.pom.artifactID == pi.parentArtifact {
					return pm
				}
			}
		}
		for _, pm := range byPath {
			if pm != mi && pm.pom.artifactID == pi.parentArtifact && firstNonEmpty(pm.pom.groupID, pm.pom.parentGroup) == pi.parentGroup {
				return pm
			}
		}
		return nil
	}
	// The chain of each POM, itself first (a cycle of parents is cut).
	chain := func(mi *manifestInfo) []*manifestInfo {
		out := []*manifestInfo{mi}
		for p := parentOf(mi); p != nil && len(out) < 16; p = parentOf(p) {
			if slices.Contains(out, p) {
				break
			}
			out = append(out, p)
		}
		return out
	}
	for _, mi := range byPath {
		c := chain(mi)
		prop := func(name string) (string, bool) {
			switch name {
			case "project.version", "pom.version", "version":
				for _, x := range c {
					if v := firstNonEmpty(x.pom.version, x.pom.parentVersion); v != "" {
						return v, true
					}
				}
			case "project.groupId", "pom.groupId", "groupId":
				for _, x := range c {
					if g := firstNonEmpty(x.pom.groupID, x.pom.parentGroup); g != "" {
						return g, true
					}
				}
			case "project.artifactId":
				return mi.pom.artifactID, true
			case "project.parent.version":
				return mi.pom.parentVersion, mi.pom.parentVersion != ""
			case "project.parent.groupId":
				return mi.pom.parentGroup, mi.pom.parentGroup != ""
			}
			for _, x := range c {
				if v, ok := x.pom.props[name]; ok {
					return v, true
				}
			}
			return "", false
		}
		subst := func(s string) (string, bool) {
			ok := true
			for depth := 0; strings.Contains(s, "${") && depth < 8; depth++ {
				i := strings.Index(s, "${")
				j := strings.IndexByte(s[i:], '}')
				if j < 0 {
					return s, false
				}
				v, found := prop(s[i+2 : i+j])
				if !found {
					ok = false
					v = ""
				}
				s = s[:i] + v + s[i+j+1:]
			}
			return s, ok
		}
		group, _ := subst(firstNonEmpty(mi.pom.groupID, mi.pom.parentGroup))
		if mi.pom.artifactID != "" {
			mi.m.Name = group + ":" + mi.pom.artifactID
		}
		// A parent's <dependencies> are its children's too (Guice's
		// extensions/pom.xml gives every extension the core).
		own := map[string]bool{}
		for _, d := range mi.m.Dependencies {
			own[d.Name] = true
		}
		for _, parent := range c[1:] {
			for _, d := range parent.pom.deps {
				name := strings.TrimSpace(d.GroupID) + ":" + strings.TrimSpace(d.ArtifactID)
				if d.ArtifactID == "" || own[name] {
					continue
				}
				own[name] = true
				mi.m.Dependencies = append(mi.m.Dependencies, model.PackageDep{Name: name, Version: strings.TrimSpace(d.Version),
					Dev: d.Scope == "test" || d.Scope == "provided" || d.Type == "test-jar" || d.Classifier == "tests"})
				if mi.depFrom == nil {
					mi.depFrom = map[string]string{}
				}
				if mi.depLines == nil {
					mi.depLines = map[string]int{}
				}
				mi.depFrom[name] = parent.m.Path // declared in the parent
				if l := lineOf(parent.raw, "<artifactId>"+strings.TrimSpace(d.ArtifactID)+"</artifactId>"); l > 0 {
					mi.depLines[name] = l
				}
			}
		}
		mi.m.Version, _ = subst(mi.m.Version)
		for i := range mi.m.Dependencies {
			d := &mi.m.Dependencies[i]
			if strings.Contains(d.Name, "${") {
				d.Name, _ = subst(d.Name)
			}
			if d.Version == "" {
				for _, x := range c {
					if v, ok := x.pom.managed[d.Name]; ok {
						d.Version = v
						break
					}
				}
			}
			if strings.Contains(d.Version, "${") {
				v, ok := subst(d.Version)
				if !ok {
					v = "" // unknown rather than misspelt
				}
				d.Version = v
			}
		}
		byName[mi.m.Name] = mi
	}
	for _, mi := range byPath {
		for i := range mi.m.Dependencies {
			d := &mi.m.Dependencies[i]
			if other := byName[d.Name]; other != nil && other != mi && d.Path == "" {
				d.Path = other.dir
				mi.m.Internal = append(mi.m.Internal, d.Name)
			}
		}
		sortDeps(mi)
		sort.Strings(mi.m.Internal)
		mi.m.Internal = dedupeStrings(mi.m.Internal)
	}
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
		mi.m.Problems = append(mi.m.Problems, path.Base(p)+": "+err.Error())
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
