package scan

import (
	"path"
	"sort"
	"strings"

	"github.com/kontext-dev/kontext/internal/repo/model"
)

// jvmState resolves Java and Kotlin imports to the file that declares the
// imported type or top-level function (by the declared package, the file's
// class name, its public declarations, Kotlin's file facade FooKt and
// @file:JvmName), a wildcard to the package's directory, the platform's
// packages as builtin, others to the Maven/Gradle dependency whose
// coordinates name them.
//
// A package is often split — across modules, and across the main and test
// source sets of one module — so several files may declare a name. The
// importing module's own source set is preferred, then its main source
// set, then the modules its build declares, then any other module; main
// code never resolves into a test source set.
type jvmState struct {
	r       *resolver
	classes map[string][]string // fully qualified name → declaring files, sorted
	pkgs    map[string][]string // package → directories of its files, sorted
	deps    []jvmDep
	depEco  map[string]string          // dependency name → ecosystem
	declare map[string]map[string]bool // module → the modules its build declares → for its tests only
	modDeps map[string][]jvmDep        // module → the external dependencies its build declares
}

type jvmDep struct{ group, name string }

func (s *jvmState) init(r *resolver) {
	s.r = r
	s.classes = map[string][]string{}
	s.pkgs = map[string][]string{}
	s.depEco = map[string]string{}
	s.declare = map[string]map[string]bool{}
	s.modDeps = map[string][]jvmDep{}
	add := func(m map[string][]string, k, v string) {
		if l := m[k]; len(l) == 0 || l[len(l)-1] != v {
			m[k] = append(l, v)
		}
	}
	for i := range r.ix.files {
		f := &r.ix.files[i]
		if f.Language != "Java" && f.Language != "Kotlin" || f.Package == "" || r.ix.vendored.rootOf(dirOf(f.Path)) != "" {
			continue
		}
		base := path.Base(f.Path)
		base = strings.TrimSuffix(strings.TrimSuffix(base, ".java"), ".kt")
		add(s.classes, f.Package+"."+base, f.Path)
		if f.Language == "Kotlin" {
			add(s.classes, f.Package+"."+base+"Kt", f.Path) // the file facade Java code imports
		}
		add(s.pkgs, f.Package, dirOf(f.Path))
		for _, sym := range f.Symbols {
			add(s.classes, f.Package+"."+sym.Name, f.Path)
		}
	}
	for _, l := range s.classes {
		sort.Strings(l)
	}
	for k, l := range s.pkgs {
		sort.Strings(l)
		s.pkgs[k] = dedupeStrings(l)
	}
	for _, mi := range r.ix.manifests {
		if mi.m.Ecosystem != "maven" && mi.m.Ecosystem != "gradle" {
			continue
		}
		mi.eachDeclared(func(dir string, d model.PackageDep, _ int) {
			if d.Path != "" {
				from, to := r.mods.of(dir), r.mods.of(d.Path)
				if s.declare[from] == nil {
					s.declare[from] = map[string]bool{}
				}
				if testOnly, seen := s.declare[from][to]; !seen || testOnly {
					s.declare[from][to] = d.Dev
				}
				return
			}
			if g, _, ok := strings.Cut(d.Name, ":"); ok {
				s.deps = append(s.deps, jvmDep{group: g, name: d.Name})
				m := r.mods.of(dir)
				s.modDeps[m] = append(s.modDeps[m], jvmDep{group: g, name: d.Name})
				if _, ok := s.depEco[d.Name]; !ok {
					s.depEco[d.Name] = mi.m.Ecosystem
				}
			}
		})
	}
}

var jvmBuiltinPrefixes = []string{"java.", "javax.", "jdk.", "sun.", "com.sun.", "kotlin.", "org.w3c.dom.", "org.xml.sax.", "android.", "dalvik."}

// jvmTestPath reports a path in a test source set.
func jvmTestPath(p string) bool {
	set, ok := jvmSourceSet(p)
	return ok && jvmTestSet(set)
}

// pick chooses among the files or directories declaring a name the one
// the importing file sees; ok is false when none may be used (only test
// code declares it and the importer is main code). own reports whether
// a candidate was in the importer's own module, usable or not.
func (s *jvmState) pick(f *model.File, cands []string, dirs bool) (best string, ok, own bool) {
	best, ok, own, _ = s.pickScored(f, cands, dirs)
	return best, ok, own
}

// pickScored is pick that also says whether the choice is in a module the
// importer's build does not declare.
func (s *jvmState) pickScored(f *model.File, cands []string, dirs bool) (best string, ok, own, undeclared bool) {
	fDir := dirOf(f.Path)
	fMod := s.r.mods.of(fDir)
	fSet, _ := jvmSourceSet(f.Path)
	fTest := f.Kind == model.FileTest || jvmTestPath(f.Path)
	bestScore := 1 << 30
	for _, c := range cands {
		cDir := c
		if !dirs {
			cDir = dirOf(c)
		}
		cMod := s.r.mods.of(cDir)
		cSet, _ := jvmSourceSet(c + "/x")
		cTest := jvmTestPath(c + "/x")
		if !dirs {
			cSet, _ = jvmSourceSet(c)
			cTest = jvmTestPath(c) || s.r.ix.exists(c) && s.r.ix.files[s.r.ix.byPath[c]].Kind == model.FileTest
		}
		if cMod == fMod {
			own = true
		}
		testOnly, declared := s.declare[fMod][cMod]
		declared = declared && (fTest || !testOnly) // main code sees what the build declares for main
		if cTest && !fTest {
			continue // main code never depends on tests
		}
		score := 0
		switch {
		case cMod == fMod && cSet == fSet:
			score = 0
		case cMod == fMod && !cTest:
			score = 1
		case cMod == fMod:
			score = 2
		case declared && !cTest:
			score = 10
		case !cTest:
			score = 20
		case declared:
			score = 30
		default:
			score = 40
		}
		if score < bestScore {
			best, bestScore, ok = c, score, true
		}
	}
	return best, ok, own, bestScore == 20 || bestScore == 40
}

func (s *jvmState) resolve(f *model.File, spec string) (model.ImportKind, string) {
	ownModule := func() (model.ImportKind, string) {
		// Declared in the importer's own module but not where it may see
		// it in the tree: generated into its source set at build time.
		return model.ImportInternalModule, moduleID(s.r.mods.of(dirOf(f.Path)))
	}
	if pkg, ok := strings.CutSuffix(spec, ".*"); ok {
		if dirs := s.pkgs[pkg]; len(dirs) > 0 {
			if d, ok, own, undeclared := s.pickScored(f, dirs, true); ok {
				if dep := s.dependencyIn(pkg, s.modDeps[s.r.mods.of(dirOf(f.Path))]); undeclared && dep != "" {
					return model.ImportExternal, dep
				}
				return model.ImportInternalModule, moduleID(d)
			} else if own {
				return ownModule()
			}
		} else if files := s.classes[pkg]; len(files) > 0 { // import a.B.* (nested members)
			if t, ok, own := s.pick(f, files, false); ok {
				return model.ImportInternalFile, t
			} else if own {
				return ownModule()
			}
		}
		spec = pkg
	} else {
		name := spec
		for k := 0; k < 3 && name != ""; k++ {
			if files := s.classes[name]; len(files) > 0 {
				if t, ok, own, undeclared := s.pickScored(f, files, false); ok {
					if undeclared {
						// Another module declares the name, but this one's build
						// does not depend on it and does declare an artifact
						// providing the package (streams' upgrade tests use
						// kafka-streams 0.10, not the repository's streams).
						if d := s.dependencyIn(spec, s.modDeps[s.r.mods.of(dirOf(f.Path))]); d != "" {
							return model.ImportExternal, d
						}
					}
					return model.ImportInternalFile, t
				} else if own {
					return ownModule()
				}
				break
			}
			i := strings.LastIndexByte(name, '.')
			if i < 0 {
				break
			}
			name = name[:i]
			if dirs := s.pkgs[name]; len(dirs) > 0 && k == 0 {
				// A member of a known package no file declares by that name
				// (a generated class, a Kotlin declaration kontext does not
				// list): the package's directory the importer sees.
				if d, ok, own, undeclared := s.pickScored(f, dirs, true); ok {
					if dep := s.dependencyIn(spec, s.modDeps[s.r.mods.of(dirOf(f.Path))]); undeclared && dep != "" {
						return model.ImportExternal, dep
					}
					return model.ImportInternalModule, moduleID(d)
				} else if own {
					return ownModule()
				}
				break
			}
		}
	}
	for _, p := range jvmBuiltinPrefixes {
		if strings.HasPrefix(spec, p) {
			return model.ImportBuiltin, strings.TrimSuffix(p, ".")
		}
	}
	if d := s.dependencyOf(spec); d != "" {
		return model.ImportExternal, d
	}
	// A third-party package no build file declares: its Maven coordinates
	// are unknown, and a package or symbol name is no dependency.
	return model.ImportExternal, ""
}

// jvmKnownPackages are packages whose artifact's coordinates share no
// prefix with them.
var jvmKnownPackages = map[string]string{
	"com.google.common": "com.google.guava:guava", "com.google.thirdparty": "com.google.guava:guava",
	"org.hamcrest": "org.hamcrest:hamcrest", "org.assertj": "org.assertj:assertj-core",
}

// dependencyOf names the declared dependency a package belongs to:
// packages usually start with the group (org.slf4j); when they do not,
// they share its first segments and name the artifact
// (com.fasterxml.jackson.databind is jackson-databind of
// com.fasterxml.jackson.core), or the group's last segment starts them
// (com.squareup.okhttp3 → okhttp3), or the artifact does
// (kotlinx-coroutines-core → kotlinx.coroutines).
func (s *jvmState) dependencyOf(spec string) string { return s.dependencyIn(spec, s.deps) }

// dependencyIn is dependencyOf among the given dependencies.
func (s *jvmState) dependencyIn(spec string, deps []jvmDep) string {
	if len(deps) == 0 {
		return ""
	}
	for prefix, name := range jvmKnownPackages {
		if spec == prefix || strings.HasPrefix(spec, prefix+".") {
			for _, d := range deps {
				if d.name == name || strings.HasPrefix(d.name, name) {
					return d.name
				}
			}
		}
	}
	segs := strings.Split(spec, ".")
	inSpec := map[string]bool{}
	for _, seg := range segs {
		inSpec[seg] = true
	}
	best, bestScore := "", 0
	for _, d := range deps {
		artifact := d.name[strings.IndexByte(d.name, ':')+1:]
		score := 0
		switch {
		case spec == d.group || strings.HasPrefix(spec, d.group+"."):
			score = 1000 + len(d.group)
		case d.group[strings.LastIndexByte(d.group, '.')+1:] == segs[0]:
			score = 50
		case len(segs) > 1 && strings.HasPrefix(artifact, segs[0]+"-"+segs[1]):
			score = 50
		default:
			gsegs := strings.Split(d.group, ".")
			common := 0
			for common < len(gsegs) && common < len(segs) && gsegs[common] == segs[common] {
				common++
			}
			named := 0
			for _, part := range strings.FieldsFunc(artifact, func(r rune) bool { return r == '-' || r == '_' || r == '.' }) {
				if inSpec[part] && !inSpec[gsegs[len(gsegs)-1]] {
					named++
				}
			}
			if common >= 2 && named > 0 {
				score = 10*common + named
			}
		}
		if score > bestScore {
			best, bestScore = d.name, score
		}
	}
	return best
}
