package scan

import (
	"path"
	"sort"
	"strings"

	"github.com/kontext-dev/kontext/internal/jsonc"
	"github.com/kontext-dev/kontext/internal/repo/model"
)

// jsState resolves TypeScript/JavaScript specifiers: relative paths with
// the TypeScript/Node extension rules, tsconfig/jsconfig paths and
// baseUrl (following extends), workspace packages by name through their
// exports/main, Node's builtins, and bare names as npm packages.
type jsState struct {
	r        *resolver
	packages map[string]*manifestInfo // package.json name → manifest, inside the repository
	configs  map[string]*tsEffective  // by directory: the governing tsconfig
}

type tsEffective struct {
	baseURL   string // root-relative directory, or "-" when unset
	pathsBase string
	paths     []tsPath
}

type tsPath struct {
	prefix, suffix string
	wildcard       bool
	targets        []string
}

func (s *jsState) init(r *resolver) {
	s.r = r
	s.packages = map[string]*manifestInfo{}
	s.configs = map[string]*tsEffective{}
	for _, mi := range r.ix.manifests {
		if (path.Base(mi.m.Path) == "package.json" || strings.HasPrefix(path.Base(mi.m.Path), "deno.json")) && mi.m.Name != "" && !skipModuleDir(mi.dir) {
			if _, dup := s.packages[mi.m.Name]; !dup {
				s.packages[mi.m.Name] = mi
			}
		}
	}
}

// nodeBuiltins are Node's core modules (also importable with "node:").
var nodeBuiltins = wordSet{words: `assert async_hooks buffer child_process cluster console constants crypto
		dgram diagnostics_channel dns domain events fs http http2 https inspector module net os path
		perf_hooks process punycode querystring readline repl stream string_decoder sys timers tls
		trace_events tty url util v8 vm wasi worker_threads zlib test sqlite sea`}

var jsSourceFor = []struct {
	js string
	ts []string
}{
	{".js", []string{".ts", ".tsx", ".d.ts"}}, {".jsx", []string{".tsx"}},
	{".mjs", []string{".mts", ".d.mts"}}, {".cjs", []string{".cts", ".d.cts"}},
}

var jsExtensions = []string{".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts", ".json", ".vue", ".svelte"}

// file finds the file a path names, with TypeScript's and Node's rules:
// as is, with an extension, a .js written for a .ts source, a directory's
// package.json main or index file.
func (s *jsState) file(p string) (string, bool) {
	if p == "." {
		p = ""
	}
	if p != "" && s.r.ix.exists(p) {
		return p, true
	}
	for _, ext := range jsExtensions {
		if s.r.ix.exists(p + ext) {
			return p + ext, true
		}
	}
	// A ".js" written in TypeScript source names the ".ts" it compiles
	// from, or a declaration file.
	for _, swap := range jsSourceFor {
		if strings.HasSuffix(p, swap.js) {
			base := strings.TrimSuffix(p, swap.js)
			for _, ts := range swap.ts {
				if s.r.ix.exists(base + ts) {
					return base + ts, true
				}
			}
		}
	}
	if s.r.ix.dirs[p] {
		prefix := p + "/"
		if p == "" {
			prefix = ""
		}
		for _, ext := range jsExtensions {
			if s.r.ix.exists(prefix + "index" + ext) {
				return prefix + "index" + ext, true
			}
		}
	}
	return "", false
}

func (s *jsState) resolve(f *model.File, spec string) (model.ImportKind, string) {
	dir := dirOf(f.Path)
	switch {
	case spec == "":
		return model.ImportUnresolved, ""
	case strings.HasPrefix(spec, "node:") || strings.HasPrefix(spec, "bun:"):
		return model.ImportBuiltin, spec
	case strings.HasPrefix(spec, "npm:") || strings.HasPrefix(spec, "jsr:"):
		name, _ := denoSpecifier(spec)
		return model.ImportExternal, strings.TrimPrefix(strings.TrimPrefix(name, "npm:"), "jsr:")
	case strings.HasPrefix(spec, "http://") || strings.HasPrefix(spec, "https://"):
		return model.ImportExternal, spec
	case strings.HasPrefix(spec, "./") || strings.HasPrefix(spec, "../") || spec == "." || spec == "..":
		if full, ok := joinDir(dir, spec); ok {
			if t, ok := s.file(full); ok {
				return model.ImportInternalFile, t
			}
		}
		return model.ImportUnresolved, ""
	case strings.HasPrefix(spec, "/"):
		return model.ImportUnresolved, ""
	}
	if cfg := s.tsconfigFor(dir); cfg != nil {
		if t, matched := cfg.match(s, spec); matched {
			if t != "" {
				return model.ImportInternalFile, t
			}
			return model.ImportUnresolved, ""
		}
		if cfg.baseURL != "-" {
			if full, ok := joinDir(cfg.baseURL, spec); ok {
				if t, ok := s.file(full); ok {
					return model.ImportInternalFile, t
				}
			}
		}
	}
	name := npmPackageName(spec)
	if mi, ok := s.packages[name]; ok {
		return model.ImportWorkspacePackage, s.packageEntry(mi, strings.TrimPrefix(spec, name))
	}
	if nodeBuiltins.has(strings.SplitN(spec, "/", 2)[0]) {
		return model.ImportBuiltin, spec
	}
	if strings.HasPrefix(spec, "#") {
		return model.ImportUnresolved, ""
	}
	return model.ImportExternal, name
}

// packageEntry finds the file a workspace package specifier leads to,
// falling back to the package's module when it names built output that is
// not in the repository.
func (s *jsState) packageEntry(mi *manifestInfo, sub string) string {
	key := "." + sub
	candidates := []string{}
	if e, ok := mi.entries[key]; ok {
		candidates = append(candidates, e)
	} else {
		for pattern, e := range mi.entries {
			if strings.Contains(pattern, "*") && strings.Contains(e, "*") {
				pre, suf, _ := strings.Cut(pattern, "*")
				if strings.HasPrefix(key, pre) && strings.HasSuffix(key, suf) && len(key) >= len(pre)+len(suf) {
					star := key[len(pre) : len(key)-len(suf)]
					candidates = append(candidates, strings.ReplaceAll(e, "*", star))
				}
			}
		}
		sort.Strings(candidates)
	}
	if sub != "" {
		candidates = append(candidates, "."+sub, "./src"+sub)
	} else {
		candidates = append(candidates, "./src/index", "./index")
	}
	for _, c := range candidates {
		for _, variant := range []string{c, builtToSource(c)} {
			if variant == "" {
				continue
			}
			if full, ok := joinDir(mi.dir, variant); ok {
				if t, ok := s.file(full); ok {
					return t
				}
			}
		}
	}
	return moduleID(s.r.mods.of(mi.dir))
}

// builtToSource maps "./dist/x.js" to "./src/x": the usual layout of a
// workspace package whose built output is not committed.
func builtToSource(p string) string {
	p = strings.TrimPrefix(p, "./")
	for _, out := range []string{"dist/", "build/", "lib/", "out/", "esm/", "cjs/"} {
		if strings.HasPrefix(p, out) {
			rest := p[len(out):]
			for _, ext := range []string{".d.ts", ".js", ".mjs", ".cjs"} {
				rest = strings.TrimSuffix(rest, ext)
			}
			return "./src/" + rest
		}
	}
	return ""
}

// tsconfigFor returns the configuration governing a directory: the
// nearest tsconfig.json or jsconfig.json above it.
func (s *jsState) tsconfigFor(dir string) *tsEffective {
	if c, ok := s.configs[dir]; ok {
		return c
	}
	var c *tsEffective
	for _, name := range []string{"tsconfig.json", "jsconfig.json"} {
		p := name
		if dir != "" {
			p = dir + "/" + name
		}
		if _, ok := s.r.ix.configs[p]; ok {
			c = s.load(p, 0)
			break
		}
	}
	if c == nil && dir != "" {
		c = s.tsconfigFor(dirOf(dir))
	}
	s.configs[dir] = c
	return c
}

// load reads a tsconfig and what it extends (relative paths inside the
// repository; a package's config from node_modules is not there).
func (s *jsState) load(p string, depth int) *tsEffective {
	eff := &tsEffective{baseURL: "-"}
	data, ok := s.r.ix.configs[p]
	if !ok || depth > 8 {
		return eff
	}
	var tc tsconfig
	if jsonc.Unmarshal(data, &tc) != nil {
		return eff
	}
	dir := dirOf(p)
	for _, ext := range tc.Extends {
		if !strings.HasPrefix(ext, ".") {
			continue
		}
		target, ok := joinDir(dir, ext)
		if !ok {
			continue
		}
		if !strings.HasSuffix(target, ".json") {
			if _, ok := s.r.ix.configs[target+".json"]; ok {
				target += ".json"
			} else {
				target += "/tsconfig.json"
			}
		}
		base := s.load(target, depth+1)
		if base.baseURL != "-" {
			eff.baseURL = base.baseURL
		}
		if base.paths != nil {
			eff.paths, eff.pathsBase = base.paths, base.pathsBase
		}
	}
	if tc.CompilerOptions.BaseURL != nil {
		if b, ok := joinDir(dir, *tc.CompilerOptions.BaseURL); ok {
			eff.baseURL = b
		}
	}
	if tc.CompilerOptions.Paths != nil {
		eff.paths = nil
		eff.pathsBase = dir
		if eff.baseURL != "-" {
			eff.pathsBase = eff.baseURL
		}
		keys := make([]string, 0, len(tc.CompilerOptions.Paths))
		for k := range tc.CompilerOptions.Paths {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			pre, suf, wild := strings.Cut(k, "*")
			eff.paths = append(eff.paths, tsPath{prefix: pre, suffix: suf, wildcard: wild, targets: tc.CompilerOptions.Paths[k]})
		}
		// TypeScript tries the pattern with the longest prefix first.
		sort.SliceStable(eff.paths, func(i, j int) bool { return len(eff.paths[i].prefix) > len(eff.paths[j].prefix) })
	} else if eff.baseURL != "-" && eff.paths != nil && tc.CompilerOptions.BaseURL != nil {
		eff.pathsBase = eff.baseURL
	}
	return eff
}

// match applies paths patterns; matched is true when a pattern matched
// (even if no file was found: TypeScript then reports an error, and so the
// import is unresolved rather than a package).
func (c *tsEffective) match(s *jsState, spec string) (string, bool) {
	for _, p := range c.paths {
		var star string
		switch {
		case !p.wildcard && spec == p.prefix:
		case p.wildcard && strings.HasPrefix(spec, p.prefix) && strings.HasSuffix(spec, p.suffix) && len(spec) >= len(p.prefix)+len(p.suffix):
			star = spec[len(p.prefix) : len(spec)-len(p.suffix)]
		default:
			continue
		}
		for _, t := range p.targets {
			t = strings.Replace(t, "*", star, 1)
			if full, ok := joinDir(c.pathsBase, t); ok {
				if f, ok := s.file(full); ok {
					return f, true
				}
			}
		}
		if p.wildcard && p.prefix == "" && p.suffix == "" {
			continue // "*": a fallback for everything, packages included
		}
		return "", true
	}
	return "", false
}
