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
	for _, mi := range r.ix.manifests {
		if mi.m.Ecosystem != "pypi" {
			continue
		}
		roots[mi.dir] = true
		if src := path.Join(mi.dir, "src"); r.ix.dirs[src] {
			roots[src] = true
		}
		for _, d := range mi.m.Dependencies {
			if d.Path == "" {
				s.dists[normalizePyName(d.Name)] = d.Name
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
	if pyStdlib.has(parts[0]) {
		return model.ImportBuiltin, parts[0]
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

// pyStdlib is sys.stdlib_module_names (CPython 3.11) plus modules of
// later versions.
var pyStdlib = wordSet{words: `
	__future__ _abc _aix_support _ast _asyncio _bisect _blake2 _bootsubprocess _bz2 _codecs 
	_codecs_cn _codecs_hk _codecs_iso2022 _codecs_jp _codecs_kr _codecs_tw _collections 
	_collections_abc _compat_pickle _compression _contextvars _crypt _csv _ctypes _curses 
	_curses_panel _datetime _dbm _decimal _elementtree _frozen_importlib 
	_frozen_importlib_external _functools _gdbm _hashlib _heapq _imp _io _json _locale 
	_lsprof _lzma _markupbase _md5 _msi _multibytecodec _multiprocessing _opcode _operator 
	_osx_support _overlapped _pickle _posixshmem _posixsubprocess _py_abc _pydecimal _pyio 
	_queue _random _scproxy _sha1 _sha256 _sha3 _sha512 _signal _sitebuiltins _socket 
	_sqlite3 _sre _ssl _stat _statistics _string _strptime _struct _symtable _thread 
	_threading_local _tkinter _tokenize _tracemalloc _typing _uuid _warnings _weakref 
	_weakrefset _winapi _zoneinfo abc aifc antigravity argparse array ast asynchat asyncio 
	asyncore atexit audioop base64 bdb binascii bisect builtins bz2 cProfile calendar cgi 
	cgitb chunk cmath cmd code codecs codeop collections colorsys compileall concurrent 
	configparser contextlib contextvars copy copyreg crypt csv ctypes curses dataclasses 
	datetime dbm decimal difflib dis distutils doctest email encodings ensurepip enum errno 
	faulthandler fcntl filecmp fileinput fnmatch fractions ftplib functools gc genericpath 
	getopt getpass gettext glob graphlib grp gzip hashlib heapq hmac html http idlelib 
	imaplib imghdr imp importlib inspect io ipaddress itertools json keyword lib2to3 
	linecache locale logging lzma mailbox mailcap marshal math mimetypes mmap modulefinder 
	msilib msvcrt multiprocessing netrc nis nntplib nt ntpath nturl2path numbers opcode 
	operator optparse os ossaudiodev pathlib pdb pickle pickletools pipes pkgutil platform 
	plistlib poplib posix posixpath pprint profile pstats pty pwd py_compile pyclbr pydoc 
	pydoc_data pyexpat queue quopri random re readline reprlib resource rlcompleter runpy 
	sched secrets select selectors shelve shlex shutil signal site smtpd smtplib sndhdr 
	socket socketserver spwd sqlite3 sre_compile sre_constants sre_parse ssl stat statistics 
	string stringprep struct subprocess sunau symtable sys sysconfig syslog tabnanny tarfile 
	telnetlib tempfile termios textwrap this threading time timeit tkinter token tokenize 
	tomllib trace traceback tracemalloc tty turtle turtledemo types typing unicodedata 
	unittest urllib uu uuid venv warnings wave weakref webbrowser winreg winsound wsgiref 
	xdrlib xml xmlrpc zipapp zipfile zipimport zlib zoneinfo
	tomllib _interpreters _pyrepl`}
