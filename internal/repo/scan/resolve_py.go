package scan

import (
	"path"
	"sort"
	"strings"

	"github.com/kontext-dev/kontext/internal/repo/model"
)

// pyState resolves Python imports: relative ones from the file's package,
// absolute ones against the repository's import roots (the root, src/
// layouts, project directories, and the parents of top-level packages),
// the standard library, then installed distributions by their declared
// names.
type pyState struct {
	r     *resolver
	roots []string          // import roots, sorted
	dists map[string]string // normalised distribution name → declared name
}

func (s *pyState) init(r *resolver) {
	s.r = r
	s.dists = map[string]string{}
	roots := map[string]bool{"": true}
	for _, mi := range r.ix.byPrecedence() {
		if mi.m.Ecosystem != "pypi" {
			continue
		}
		roots[mi.dir] = true
		if src := path.Join(mi.dir, "src"); r.ix.dirs[src] {
			roots[src] = true
		}
		for _, d := range mi.m.Dependencies {
			if _, ok := s.dists[normalizePyName(d.Name)]; !ok && d.Path == "" {
				s.dists[normalizePyName(d.Name)] = d.Name // the root project's spelling first
			}
		}
	}
	if r.ix.dirs["src"] {
		roots["src"] = true
	}
	for i := range r.ix.files {
		p := r.ix.files[i].Path
		if path.Base(p) != "__init__.py" || skipModuleDir(dirOf(p)) {
			continue
		}
		pkg := dirOf(p)
		parent := dirOf(pkg)
		if !r.ix.exists(path.Join(parent, "__init__.py")) {
			roots[parent] = true
		}
	}
	for d := range roots {
		s.roots = append(s.roots, d)
	}
	sort.Strings(s.roots)
}

// module finds the file for a dotted module under base, trying the
// longest prefix first (a name imported from a module is not a file).
func (s *pyState) module(base string, parts []string, allowPackage bool) (string, bool) {
	for k := len(parts); k >= 1; k-- {
		p := path.Join(append([]string{base}, parts[:k]...)...)
		for _, cand := range []string{p + ".py", p + "/__init__.py", p + ".pyi", p + "/__init__.pyi"} {
			if s.r.ix.exists(cand) {
				return cand, true
			}
		}
	}
	if allowPackage {
		init := path.Join(base, "__init__.py")
		if s.r.ix.exists(init) {
			return init, true
		}
	}
	return "", false
}

func (s *pyState) resolve(f *model.File, spec string) (model.ImportKind, string) {
	if strings.HasPrefix(spec, ".") {
		level := len(spec) - len(strings.TrimLeft(spec, "."))
		base := dirOf(f.Path)
		for i := 1; i < level; i++ {
			if base == "" {
				return model.ImportUnresolved, ""
			}
			base = dirOf(base)
		}
		var parts []string
		if rest := spec[level:]; rest != "" {
			parts = strings.Split(rest, ".")
		}
		if t, ok := s.module(base, parts, true); ok {
			return model.ImportInternalFile, t
		}
		return model.ImportUnresolved, ""
	}
	parts := strings.Split(spec, ".")
	if pyStdlib.has(parts[0]) {
		return model.ImportBuiltin, parts[0]
	}
	// Roots that contain the importing file first: its own project wins.
	dir := dirOf(f.Path)
	ordered := make([]string, 0, len(s.roots))
	for _, r := range s.roots {
		if r == "" || dir == r || strings.HasPrefix(dir, r+"/") {
			ordered = append(ordered, r)
		}
	}
	sort.SliceStable(ordered, func(i, j int) bool { return len(ordered[i]) > len(ordered[j]) })
	for _, r := range s.roots {
		if !(r == "" || dir == r || strings.HasPrefix(dir, r+"/")) {
			ordered = append(ordered, r)
		}
	}
	for _, r := range ordered {
		if t, ok := s.module(r, parts, false); ok {
			return model.ImportInternalFile, t
		}
	}
	return model.ImportExternal, s.distribution(parts[0])
}

// distribution names the PyPI distribution providing a top-level import:
// a declared one when its normalised name matches, else the well-known
// differing names, else the import name.
func (s *pyState) distribution(top string) string {
	if d, ok := s.dists[normalizePyName(top)]; ok {
		return d
	}
	if d, ok := pyKnownDists[top]; ok {
		if declared, ok := s.dists[normalizePyName(d)]; ok {
			return declared
		}
		return d
	}
	return top
}

// pyKnownDists are imports whose distribution has another name.
var pyKnownDists = map[string]string{
	"yaml": "PyYAML", "PIL": "Pillow", "cv2": "opencv-python", "sklearn": "scikit-learn", "bs4": "beautifulsoup4",
	"dateutil": "python-dateutil", "jwt": "PyJWT", "dotenv": "python-dotenv", "attr": "attrs", "magic": "python-magic",
	"serial": "pyserial", "Crypto": "pycryptodome", "OpenSSL": "pyOpenSSL", "git": "GitPython", "docx": "python-docx",
	"pptx": "python-pptx", "fitz": "PyMuPDF", "MySQLdb": "mysqlclient", "zmq": "pyzmq", "websocket": "websocket-client",
	"jose": "python-jose", "multipart": "python-multipart", "slugify": "python-slugify", "google": "protobuf",
	"skimage": "scikit-image", "psycopg2": "psycopg2", "pkg_resources": "setuptools", "usb": "pyusb",
	"dns": "dnspython", "nacl": "PyNaCl", "gi": "PyGObject", "win32api": "pywin32", "Levenshtein": "python-Levenshtein",
}
