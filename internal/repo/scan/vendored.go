package scan

import (
	"bufio"
	"bytes"
	"path"
	"sort"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// vendorDirNames are the folders that hold other people's code copied
// into the repository: Go's and PHP's vendor/, third_party/ in its
// spellings, installed JavaScript packages. Linguist marks them vendored;
// its other vendor patterns (dist/, cache/, jquery*.js, …) name build
// output or single files, not trees of dependencies.
var vendorDirNames = map[string]bool{
	"vendor": true, "vendors": true, "node_modules": true, "bower_components": true,
	"third_party": true, "third-party": true, "thirdparty": true, "third_parties": true, "ThirdParty": true,
	"Third_Party": true, "3rdparty": true, "3rd_party": true, "3rd-party": true, "3rdParty": true,
}

// vendoredTrees finds the vendored trees of a repository: every
// outermost vendor folder (vendorDirNames, Godeps/_workspace), as the
// root .gitattributes amends it (`dir linguist-vendored` marks a tree,
// `dir -linguist-vendored` or `linguist-vendored=false` unmarks one).
// Their code is never a module nor part of the import graph: an import
// into one is a use of the package vendored there.
type vendoredTrees struct {
	roots []string // sorted
	memo  map[string]string
	// unmarked are .gitattributes patterns that take a tree back.
	unmarked []string
}

func newVendoredTrees(dirs map[string]bool, gitattributes []byte) *vendoredTrees {
	v := &vendoredTrees{memo: map[string]string{}}
	marked, unmarked := linguistVendoredAttributes(gitattributes)
	v.unmarked = unmarked
	set := map[string]bool{}
	for d := range dirs {
		if d == "" {
			continue
		}
		if r := vendorRootByName(d); r != "" && !v.isUnmarked(r) {
			set[r] = true
		}
		for _, pat := range marked {
			if matchAttrDir(pat, d) {
				set[d] = true
			}
		}
	}
	for r := range set {
		v.roots = append(v.roots, r)
	}
	sort.Strings(v.roots)
	// Keep the outermost of nested roots.
	out := v.roots[:0]
	for _, r := range v.roots {
		if len(out) > 0 && (r == out[len(out)-1] || strings.HasPrefix(r, out[len(out)-1]+"/")) {
			continue
		}
		out = append(out, r)
	}
	v.roots = out
	return v
}

// vendorRootByName returns the outermost folder of dir named like a
// vendor tree, "" when there is none.
func vendorRootByName(dir string) string {
	parts := strings.Split(dir, "/")
	for i, p := range parts {
		if vendorDirNames[p] || p == "_workspace" && i > 0 && parts[i-1] == "Godeps" {
			return strings.Join(parts[:i+1], "/")
		}
	}
	return ""
}

func (v *vendoredTrees) isUnmarked(dir string) bool {
	for _, pat := range v.unmarked {
		if matchAttrDir(pat, dir) {
			return true
		}
	}
	return false
}

// rootOf returns the vendored tree holding dir, "" when dir is the
// project's own.
func (v *vendoredTrees) rootOf(dir string) string {
	if v == nil || len(v.roots) == 0 || dir == "" {
		return ""
	}
	if r, ok := v.memo[dir]; ok {
		return r
	}
	r := v.rootOf(dirOf(dir))
	if r == "" {
		i := sort.SearchStrings(v.roots, dir)
		if i < len(v.roots) && v.roots[i] == dir {
			r = dir
		}
	}
	v.memo[dir] = r
	return r
}

// linguistVendoredAttributes reads the patterns .gitattributes marks
// linguist-vendored and those it unmarks.
func linguistVendoredAttributes(data []byte) (marked, unmarked []string) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 2 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		for _, a := range fields[1:] {
			switch a {
			case "linguist-vendored", "linguist-vendored=true":
				marked = append(marked, fields[0])
			case "-linguist-vendored", "linguist-vendored=false", "!linguist-vendored":
				unmarked = append(unmarked, fields[0])
			}
		}
	}
	return marked, unmarked
}

// matchAttrDir reports whether a .gitattributes pattern names directory
// dir as a whole (dir/**, dir/*, dir/, or a glob matching dir).
func matchAttrDir(pattern, dir string) bool {
	p := strings.TrimPrefix(pattern, "/")
	for _, suffix := range []string{"/**", "/*", "/"} {
		p = strings.TrimSuffix(p, suffix)
	}
	if p == "" {
		return false
	}
	if !strings.ContainsAny(p, "*?[") {
		if !strings.Contains(strings.TrimPrefix(pattern, "/"), "/") && !strings.HasPrefix(pattern, "/") {
			return path.Base(dir) == p // a name without a slash matches at any depth
		}
		return dir == p
	}
	ok, _ := doublestar.Match(p, dir)
	return ok
}
