package scan

import (
	"path"
	"strings"

	"github.com/kontext-dev/kontext/internal/repo/model"
)

// jvmState resolves Java and Kotlin imports by declared packages: a
// class import to the file declaring that package with that file name,
// a wildcard or a Kotlin top-level member to the package's directory,
// the platform's packages as builtin, others to the Maven/Gradle
// dependency whose group prefixes them.
type jvmState struct {
	r       *resolver
	classes map[string]string // fully qualified class → file
	pkgs    map[string]string // package → directory of its first file
	deps    []jvmDep
	depEco  map[string]string // dependency name → ecosystem
}

type jvmDep struct{ group, name string }

func (s *jvmState) init(r *resolver) {
	s.r = r
	s.classes = map[string]string{}
	s.pkgs = map[string]string{}
	s.depEco = map[string]string{}
	for i := range r.ix.files {
		f := &r.ix.files[i]
		if f.Language != "Java" && f.Language != "Kotlin" || f.Package == "" {
			continue
		}
		base := path.Base(f.Path)
		base = strings.TrimSuffix(strings.TrimSuffix(base, ".java"), ".kt")
		if _, ok := s.classes[f.Package+"."+base]; !ok {
			s.classes[f.Package+"."+base] = f.Path
		}
		if _, ok := s.pkgs[f.Package]; !ok {
			s.pkgs[f.Package] = dirOf(f.Path)
		}
		for _, sym := range f.Symbols {
			if _, ok := s.classes[f.Package+"."+sym.Name]; !ok {
				s.classes[f.Package+"."+sym.Name] = f.Path
			}
		}
	}
	for _, mi := range r.ix.manifests {
		if mi.m.Ecosystem != "maven" && mi.m.Ecosystem != "gradle" {
			continue
		}
		for _, d := range mi.m.Dependencies {
			if g, _, ok := strings.Cut(d.Name, ":"); ok && d.Path == "" {
				s.deps = append(s.deps, jvmDep{group: g, name: d.Name})
				if _, ok := s.depEco[d.Name]; !ok {
					s.depEco[d.Name] = mi.m.Ecosystem
				}
			}
		}
	}
}

var jvmBuiltinPrefixes = []string{"java.", "javax.", "jdk.", "sun.", "com.sun.", "kotlin.", "org.w3c.dom.", "org.xml.sax."}

func (s *jvmState) resolve(f *model.File, spec string) (model.ImportKind, string) {
	if pkg, ok := strings.CutSuffix(spec, ".*"); ok {
		if d, ok := s.pkgs[pkg]; ok {
			return model.ImportInternalModule, moduleID(d)
		}
		if t, ok := s.classes[pkg]; ok { // import a.B.* (nested members)
			return model.ImportInternalFile, t
		}
		spec = pkg
	} else {
		name := spec
		for k := 0; k < 3 && name != ""; k++ {
			if t, ok := s.classes[name]; ok {
				return model.ImportInternalFile, t
			}
			i := strings.LastIndexByte(name, '.')
			if i < 0 {
				break
			}
			name = name[:i]
			if d, ok := s.pkgs[name]; ok && k == 0 {
				return model.ImportInternalModule, moduleID(d) // a Kotlin top-level member
			}
		}
	}
	for _, p := range jvmBuiltinPrefixes {
		if strings.HasPrefix(spec, p) {
			return model.ImportBuiltin, strings.TrimSuffix(p, ".")
		}
	}
	// Packages usually start with the group (org.slf4j); when they do not,
	// the group's last segment (com.squareup.okhttp3 → okhttp3) or the
	// artifact (kotlinx-coroutines-core → kotlinx.coroutines) names them.
	best, bestScore := jvmDep{}, 0
	segs := strings.Split(spec, ".")
	for _, d := range s.deps {
		score := 0
		switch {
		case spec == d.group || strings.HasPrefix(spec, d.group+"."):
			score = 2 + len(d.group)
		case d.group[strings.LastIndexByte(d.group, '.')+1:] == segs[0]:
			score = 1
		case len(segs) > 1 && strings.HasPrefix(d.name[strings.IndexByte(d.name, ':')+1:], segs[0]+"-"+segs[1]):
			score = 1
		}
		if score > bestScore {
			best, bestScore = d, score
		}
	}
	if best.name != "" {
		return model.ImportExternal, best.name
	}
	// Undeclared: name the package (the class is the last segment).
	parts := strings.Split(spec, ".")
	for len(parts) > 1 {
		last := parts[len(parts)-1]
		if last == "" || last[0] < 'A' || last[0] > 'Z' {
			break
		}
		parts = parts[:len(parts)-1]
	}
	return model.ImportExternal, strings.Join(parts, ".")
}
