package analyze

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// The whole-text forms observeJS replaced; the reference its answers must
// equal.
var (
	refJSFrom       = regexp.MustCompile(`(?m)^[ \t]*(?:import|export)\b[^;'"]*?\bfrom\s*['"]([^'"\n]+)['"]`)
	refJSSideEffect = regexp.MustCompile(`(?m)^[ \t]*import\s*['"]([^'"\n]+)['"]`)
	refJSTypeOnly   = regexp.MustCompile(`(?m)^[ \t]*(?:import|export)\s+type\s+[\w{*]`)
	refJSDefault    = regexp.MustCompile(`(?m)^[ \t]*export\s+default\b`)
	refJSNamed      = regexp.MustCompile(`(?m)^[ \t]*export\s+(?:declare\s+)?(?:const|let|var|function|async\s+function|class|abstract\s+class|interface|type\s+\w|enum|namespace)\b|^[ \t]*export\s*\{`)
)

func referenceObserveJS(content []byte) FileObservation {
	var fo FileObservation
	specs := refJSFrom.FindAllSubmatch(content, -1)
	specs = append(specs, refJSSideEffect.FindAllSubmatch(content, -1)...)
	for _, m := range specs {
		fo.ESMImports++
		spec := string(m[1])
		if strings.HasPrefix(spec, ".") {
			fo.Relative++
			switch strings.ToLower(path.Ext(spec)) {
			case ".js", ".mjs", ".cjs", ".jsx":
				fo.ExplicitJS++
			}
		}
	}
	fo.TypeOnly = refJSTypeOnly.Match(content)
	fo.RequireCalls = len(reJSRequire.FindAllIndex(content, -1))
	fo.DefaultExports = len(refJSDefault.FindAllIndex(content, -1))
	fo.NamedExports = len(refJSNamed.FindAllIndex(content, -1))
	return fo
}

var jsSamples = []string{
	"import a from './a.js';\nexport { b } from \"../b\";\n",
	"  import {\n  x,\n  y,\n} from './xy';\n\timport './side.css';\n",
	"export default function f() {}\nexport  default class X {}\nexport const a = 1\nexport {a, b}\n",
	"export type T = string;\nimport type { U } from './u';\nexport declare const z: number;\n",
	"const x = require('x'); const y = require( \"y\" );\n// import not from here\n",
	"import\nfrom './weird';\nexport\n  default 1;\nexporter = 1;\nimported from './no';\n",
	"export {\nimport_x\n} from './q';\nimport x from './y'; import z from './z';\n",
	"\r\nimport a from './a';\r\n  export * from './all.mjs';\r\n",
	"export abstract class A {}\nexport async function g() {}\nexport enum E {}\nexport namespace N {}\nexport interface I {}\n",
	"", "import", "export", "import '", "export {", "x\nimport y from 'z'",
}

func TestObserveJSEqualsWholeTextRegexps(t *testing.T) {
	check := func(name string, content []byte) {
		var got FileObservation
		observeJS(&got, content)
		if want := referenceObserveJS(content); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: observeJS = %+v, the whole-text regexps say %+v", name, got, want)
		}
	}
	for i, s := range jsSamples {
		check("sample "+string(rune('0'+i)), []byte(s))
	}
	// Real code: the JavaScript in GOROOT and, when installed, the interop
	// suite's npm packages.
	files := 0
	for _, dir := range []string{runtime.GOROOT(), "../../interop/testdata/node/node_modules"} {
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			switch path.Ext(p) {
			case ".js", ".mjs", ".cjs", ".ts", ".tsx", ".jsx", ".mts", ".cts":
			default:
				return nil
			}
			content, err := os.ReadFile(p)
			if err != nil || len(content) > 1<<20 {
				return nil
			}
			files++
			if raceEnabled && files%8 != 0 {
				return nil // one file in eight under the race detector
			}
			check(p, content)
			return nil
		})
	}
	t.Logf("compared %d files", files)
}

func FuzzObserveJS(f *testing.F) {
	for _, s := range jsSamples {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, content []byte) {
		var got FileObservation
		observeJS(&got, content)
		if want := referenceObserveJS(content); !reflect.DeepEqual(got, want) {
			t.Fatalf("observeJS(%q) = %+v, want %+v", content, got, want)
		}
	})
}
