package linguist

// Proof of equivalence with go-enry (imported by tests only): every function
// of the package is compared with go-enry's over real trees (GOROOT, this
// repository, go-enry's own test data) and over synthetic inputs built from
// every key of go-enry's tables.

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"reflect"
	"regexp/syntax"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	enry "github.com/go-enry/go-enry/v2"
	"github.com/go-enry/go-enry/v2/data"
)

const maxContent = 16 << 10 // read at most the first 16 KB of each file

// enryChain is enry.GetLanguages with the classifier strategy left out.
func enryChain(filename string, content []byte) []string {
	if enry.IsBinary(content) {
		return nil
	}
	strategies := []enry.Strategy{
		enry.GetLanguagesByModeline,
		enry.GetLanguagesByFilename,
		enry.GetLanguagesByShebang,
		enry.GetLanguagesByExtension,
		enry.GetLanguagesByXML,
		enry.GetLanguagesByManpage,
		enry.GetLanguagesByContent,
	}
	var languages []string
	for _, strategy := range strategies {
		candidates := strategy(filename, content, languages)
		if len(candidates) == 0 {
			continue
		}
		if len(candidates) == 1 {
			return candidates
		}
		languages = candidates
	}
	return languages
}

var refRank = func() map[string]int {
	m := map[string]int{}
	for i, l := range []string{"Rust", "TypeScript", "JavaScript", "Python", "Go", "Java", "Kotlin",
		"C", "C++", "Objective-C", "Markdown", "Shell", "PHP", "Ruby", "Perl", "XML", "JSON", "YAML",
		"TOML", "Text"} {
		m[l] = i
	}
	return m
}()

// enryLanguage is the reference for Language: enry's classifier-free chain,
// then the preference rule of the package documentation.
func enryLanguage(filename string, content []byte) string {
	langs := enryChain(filename, content)
	if len(langs) == 1 {
		return langs[0]
	}
	best, bestRank := "", len(refRank)
	for _, l := range langs {
		if r, ok := refRank[l]; ok && r < bestRank {
			best, bestRank = l, r
		}
	}
	if best != "" {
		return best
	}
	var sorted []string
	for _, l := range langs {
		if l != "" {
			sorted = append(sorted, l)
		}
	}
	sort.Strings(sorted)
	if len(sorted) == 0 {
		return ""
	}
	return sorted[0]
}

// TestStrategiesInSync guards the assumption that enry.GetLanguage is the
// chain above followed by the classifier.
func TestStrategiesInSync(t *testing.T) {
	want := []enry.Strategy{
		enry.GetLanguagesByModeline, enry.GetLanguagesByFilename, enry.GetLanguagesByShebang,
		enry.GetLanguagesByExtension, enry.GetLanguagesByXML, enry.GetLanguagesByManpage,
		enry.GetLanguagesByContent, enry.GetLanguagesByClassifier,
	}
	if len(enry.DefaultStrategies) != len(want) {
		t.Fatalf("enry.DefaultStrategies has %d strategies, want %d", len(enry.DefaultStrategies), len(want))
	}
	for i := range want {
		if reflect.ValueOf(enry.DefaultStrategies[i]).Pointer() != reflect.ValueOf(want[i]).Pointer() {
			t.Errorf("enry.DefaultStrategies[%d] changed", i)
		}
	}
	for _, c := range []struct {
		got, want Type
	}{{Unknown, Type(enry.Unknown)}, {Data, Type(enry.Data)}, {Programming, Type(enry.Programming)},
		{Markup, Type(enry.Markup)}, {Prose, Type(enry.Prose)}} {
		if c.got != c.want {
			t.Errorf("Type constant %d, enry has %d", c.got, c.want)
		}
	}
}

// TestGeneratedMatchersInSync guards the hand-written port of go-enry's
// data/generated.go.
func TestGeneratedMatchersInSync(t *testing.T) {
	if got := len(data.GeneratedCodeNameMatchers); got != generatedNameMatcherCount {
		t.Errorf("go-enry has %d GeneratedCodeNameMatchers, the port has %d: update isgenerated.go",
			got, generatedNameMatcherCount)
	}
	if len(data.GeneratedCodeMatchers) != len(generatedCodeMatchers) {
		t.Fatalf("go-enry has %d GeneratedCodeMatchers, the port has %d: update isgenerated.go",
			len(data.GeneratedCodeMatchers), len(generatedCodeMatchers))
	}
	for i, m := range data.GeneratedCodeMatchers {
		theirs := funcName(m)
		ours := funcName(generatedCodeMatchers[i])
		if theirs != ours {
			t.Errorf("GeneratedCodeMatchers[%d]: go-enry has %s, the port has %s", i, theirs, ours)
		}
	}
}

func funcName(f any) string {
	name := runtime.FuncForPC(reflect.ValueOf(f).Pointer()).Name()
	return name[strings.LastIndexByte(name, '.')+1:]
}

// comparer compares every function of the package with go-enry's on one
// input and counts the differences.
type comparer struct {
	mu        sync.Mutex
	inputs    int
	compared  int // individual function comparisons
	diffs     int
	examples  []string
	fullAgree int // Language == enry.GetLanguage (with its classifier)
	fullTotal int
	fullDiffs map[string]int
}

func (c *comparer) diff(format string, args ...any) {
	c.diffs++
	if len(c.examples) < 30 {
		c.examples = append(c.examples, fmt.Sprintf(format, args...))
	}
}

func (c *comparer) check(name string, got, want any, input string) {
	c.compared++
	if !reflect.DeepEqual(got, want) {
		c.diff("%s(%s): got %#v, enry %#v", name, input, got, want)
	}
}

func normal(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}

// compare runs all comparisons for a file name (a slash-separated path
// relative to its tree) and content; full also compares with enry.GetLanguage.
func (c *comparer) compare(p string, content []byte, full bool) {
	base := path.Base(p)
	in := fmt.Sprintf("%q, %d bytes", p, len(content))

	lang := Language(p, content)
	langBase := Language(base, content)
	var full1 string
	if full {
		full1 = enry.GetLanguage(base, content)
	}
	ref := enryLanguage(p, content)
	refBase := enryLanguage(base, content)
	chain, refChain := languages(p, content), enryChain(p, content)
	shebang, safe := LanguageByShebang(content)
	eShebang, eSafe := enry.GetLanguageByShebang(content)
	eCont := normal(enry.GetLanguagesByContent(p, content, nil))
	eExt, _ := enry.GetLanguageByExtension(p)

	c.mu.Lock()
	defer c.mu.Unlock()
	c.inputs++
	c.check("Language", lang, ref, in)
	c.check("Language(base)", langBase, refBase, in)
	c.check("languages", normal(chain), normal(refChain), in)
	c.check("LanguagesByFilename", LanguagesByFilename(p), enry.GetLanguagesByFilename(p, nil, nil), in)
	c.check("LanguagesByExtension", LanguagesByExtension(p), enry.GetLanguagesByExtension(p, nil, nil), in)
	c.check("LanguageByShebang", [2]any{shebang, safe}, [2]any{eShebang, eSafe}, in)
	c.check("byContent", normal(byContent(p, content)), eCont, in)
	c.check("LanguageType", LanguageType(lang), Type(enry.GetLanguageType(lang)), in)
	c.check("LanguageType(ext)", LanguageType(eExt), Type(enry.GetLanguageType(eExt)), in)
	c.check("IsBinary", IsBinary(content), enry.IsBinary(content), in)
	c.check("IsGenerated", IsGenerated(p, content), enry.IsGenerated(p, content), in)
	c.check("IsVendor", IsVendor(p), enry.IsVendor(p), in)
	c.check("IsDocumentation", IsDocumentation(p), enry.IsDocumentation(p), in)
	c.check("IsConfiguration", IsConfiguration(p), enry.IsConfiguration(p), in)
	c.check("IsDotFile", IsDotFile(p), enry.IsDotFile(p), in)
	c.check("IsImage", IsImage(p), enry.IsImage(p), in)
	if full {
		c.fullTotal++
		if langBase == full1 {
			c.fullAgree++
		} else {
			if c.fullDiffs == nil {
				c.fullDiffs = map[string]int{}
			}
			c.fullDiffs[fmt.Sprintf("%s -> ours %q, enry %q", strings.ToLower(path.Ext(base)), langBase, full1)]++
		}
	}
}

func (c *comparer) report(t *testing.T, what string) {
	t.Helper()
	t.Logf("%s: %d inputs, %d comparisons, %d differences", what, c.inputs, c.compared, c.diffs)
	if c.fullTotal > 0 {
		t.Logf("%s: Language agrees with full enry.GetLanguage (naive Bayes classifier) on %d of %d (%.2f%%)",
			what, c.fullAgree, c.fullTotal, 100*float64(c.fullAgree)/float64(c.fullTotal))
		type kv struct {
			k string
			n int
		}
		var top []kv
		for k, n := range c.fullDiffs {
			top = append(top, kv{k, n})
		}
		sort.Slice(top, func(i, j int) bool { return top[i].n > top[j].n || top[i].n == top[j].n && top[i].k < top[j].k })
		for i, e := range top {
			if i == 15 {
				break
			}
			t.Logf("  disagreement with the classifier: %5d × %s", e.n, e.k)
		}
	}
	if c.diffs > 0 {
		t.Errorf("%s: %d differences from enry, e.g.:\n%s", what, c.diffs, strings.Join(c.examples, "\n"))
	}
}

type file struct {
	rel     string
	content []byte
}

// readTree returns every regular file under root (without .git), as paths
// relative to root with at most the first maxContent bytes of content. With
// every > 1 it keeps one file in every.
func readTree(t testing.TB, root string, every int) []file {
	var files []file
	n := 0
	buf := make([]byte, maxContent)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return err
			}
			return nil // unreadable, or removed while we walk (other work in the tree)
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if !d.Type().IsRegular() {
			return nil
		}
		n++
		if every > 1 && n%every != 0 {
			return nil
		}
		f, err := os.Open(p)
		if err != nil {
			return nil
		}
		defer f.Close()
		k, err := io.ReadFull(f, buf)
		if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		files = append(files, file{filepath.ToSlash(rel), bytes.Clone(buf[:k])})
		return nil
	})
	if err != nil {
		t.Fatalf("walk %s: %v", root, err)
	}
	return files
}

func goroot(t testing.TB) string {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err == nil {
		if r := strings.TrimSpace(string(out)); r != "" {
			return r
		}
	}
	if r := runtime.GOROOT(); r != "" { //nolint:staticcheck // fallback only
		return r
	}
	t.Skip("GOROOT unknown")
	return ""
}

func enryDir(t testing.TB) string {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/go-enry/go-enry/v2").Output()
	if err != nil {
		t.Skipf("go list go-enry: %v", err)
	}
	return strings.TrimSpace(string(out))
}

func repoRoot(t testing.TB) string {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(wd, "..", "..")
}

// compareFiles compares files on all CPUs.
func compareFiles(c *comparer, files []file, full bool) {
	var wg sync.WaitGroup
	ch := make(chan file)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for f := range ch {
				c.compare(f.rel, f.content, full)
			}
		})
	}
	for _, f := range files {
		ch <- f
	}
	close(ch)
	wg.Wait()
}

// TestEquivalenceTrees compares with enry over every file of GOROOT, of this
// repository and of go-enry's test data. Under the race detector, which makes
// both sides ~10x slower, GOROOT is sampled (one file in raceSampleEvery).
func TestEquivalenceTrees(t *testing.T) {
	trees := []struct {
		name, root string
		every      int
	}{
		{"GOROOT", goroot(t), 1},
		{"repository", repoRoot(t), 1},
		{"go-enry _testdata", filepath.Join(enryDir(t), "_testdata"), 1},
	}
	if raceEnabled {
		trees[0].every = raceSampleEvery * 2
		trees[1].every = raceSampleEvery
	}
	if testing.Short() {
		trees[0].every *= 10
		trees[1].every *= 10
	}
	for _, tr := range trees {
		t.Run(tr.name, func(t *testing.T) {
			start := time.Now()
			files := readTree(t, tr.root, tr.every)
			read := time.Since(start)
			var c comparer
			compareFiles(&c, files, true)
			if tr.every > 1 {
				t.Logf("%s sampled: one file in %d", tr.root, tr.every)
			}
			t.Logf("%s: %d files read in %v, compared in %v", tr.root, len(files), read.Round(time.Millisecond),
				(time.Since(start) - read).Round(time.Millisecond))
			c.report(t, tr.name)
		})
	}
}

// TestEquivalenceSynthetic compares with enry over names and contents built
// from every key of go-enry's extension, file name, interpreter and alias
// tables, and over contents synthesised from every heuristic regexp.
func TestEquivalenceSynthetic(t *testing.T) {
	samples := fixedSamples()
	heur := heuristicSamples(t)
	var c comparer
	var inputs []file
	add := func(name string, content []byte) { inputs = append(inputs, file{name, content}) }

	// Extensions: with and without content samples.
	for _, ext := range sortedKeys(data.LanguagesByExtension) {
		names := []string{"file" + ext, "dir/File" + strings.ToUpper(ext), ext, "a.b" + ext, "x" + ext + ".in"}
		for _, n := range names {
			add(n, nil)
		}
		for _, s := range samples {
			add(names[0], s)
		}
	}
	// File names.
	for _, name := range sortedKeys(data.LanguagesByFilename) {
		for _, n := range []string{name, "sub/dir/" + name, strings.ToLower(name), strings.ToUpper(name), name + ".bak"} {
			add(n, nil)
		}
		for _, s := range samples[:6] {
			add(name, s)
		}
	}
	// Interpreters: shebang forms.
	for _, interp := range sortedKeys(data.LanguagesByInterpreter) {
		contents := []string{
			"#!/usr/bin/" + interp + "\n",
			"#! /usr/local/bin/" + interp + " -w\nbody\n",
			"#!/usr/bin/env " + interp + "\n",
			"#!/usr/bin/env -S " + interp + " --flag\n",
			"#!/usr/bin/env -i FOO=bar " + interp + " x\n",
			"#!/usr/bin/env --ignore-environment " + interp + " x\n",
			"#!/bin/sh\n# comment\nexec " + interp + " \"$0\" \"$@\"\n",
			"#!/bin/sh\nexec " + interp + " -x \"$0\" \"$@\"\n",
			"#!/usr/bin/" + interp + "3.11\n",
			"#!/usr/bin/env " + interp + "2.7 -u\n",
			"#!" + interp,
			"#!/usr/bin/" + interp + " -l JavaScript\n",
		}
		for _, s := range contents {
			add("script", []byte(s))
			add("script.txt", []byte(s))
		}
	}
	for _, s := range []string{"#!/usr/bin/osascript -l JavaScript\n", "#!/usr/bin/env osascript\n", "#!\n",
		"#!/usr/bin/env\n", "#!/usr/bin/env -S\n", "#!/usr/bin/python3.11.2\n", "#!/bin/sh\n" + strings.Repeat("x", 70000) + "\n",
		"#!/usr/bin/env foo.python3.1\n"} {
		add("script", []byte(s))
	}
	// Aliases: emacs and vim modelines.
	for _, alias := range sortedKeys(data.LanguageByAliasMap) {
		a := strings.ReplaceAll(alias, "_", " ")
		for _, s := range []string{
			"-*- mode: " + alias + " -*-\n",
			"// -*- Mode: " + a + "; tab-width: 4 -*-\nx\n",
			"-*-" + alias + "-*-\n",
			"# vim: set ft=" + alias + ":\n",
			"/* vim: set syntax=" + alias + " filetype=" + alias + ": */\n",
			"# vim: set ft=" + alias + " syntax=c:\n",
			"x\n" + strings.Repeat("line\n", 20) + "# vi: ft=" + alias + "\n",
			"ex: filetype=" + alias + "\n",
		} {
			add("file.txt", []byte(s))
		}
	}
	// Heuristics: every extension with heuristics against every synthesised
	// sample, directly and through the whole chain.
	for _, ext := range sortedKeys(data.ContentHeuristics) {
		for _, s := range heur.byExt[ext] {
			add("file"+ext, s)
			add("FILE"+strings.ToUpper(ext), s)
		}
	}
	every := 1
	if raceEnabled {
		every = raceSampleEvery * 4
	}
	for i, ext := range sortedKeys(data.ContentHeuristics) {
		h := *data.ContentHeuristics[ext]
		for j, s := range heur.all {
			if (i+j)%every != 0 {
				continue
			}
			c.check("contentHeuristics", normal(contentHeuristics(ext, s)), normal(h.Match(s)), fmt.Sprintf("%s, %q", ext, s))
		}
	}
	// Types and aliases: every language and alias key, and variants.
	for _, lang := range append(sortedKeys(data.LanguagesType), "", "go", "GO", "Nope", "C++ ") {
		c.check("LanguageType", LanguageType(lang), Type(enry.GetLanguageType(lang)), lang)
	}
	for _, alias := range sortedKeys(data.LanguageByAliasMap) {
		for _, a := range []string{alias, strings.ToUpper(alias), strings.ReplaceAll(alias, "_", " "), alias + ",x", alias + "x"} {
			want, ok := data.LanguageByAlias(a)
			var wantL []string
			if ok {
				wantL = []string{want}
			}
			c.check("languageByAlias", languageByAlias(a), wantL, a)
		}
	}
	// Path classification on synthetic paths.
	for _, p := range syntheticPaths() {
		add(p, nil)
	}
	var sampled []file
	for i, in := range inputs {
		if i%every == 0 {
			sampled = append(sampled, in)
		}
	}
	if every > 1 {
		t.Logf("race detector: one synthetic input in %d", every)
	}
	compareFiles(&c, sampled, false)
	c.report(t, "synthetic")
}

// fixedSamples are small contents in many languages and shapes.
func fixedSamples() [][]byte {
	ss := []string{
		"",
		"\n",
		"hello world\n",
		"#!/usr/bin/env python3\nprint(1)\n",
		"<?xml version=\"1.0\"?>\n<root/>\n",
		"package main\n\nfunc main() {}\n",
		"#include <stdio.h>\nint main(void) { return 0; }\n",
		"#include <iostream>\nnamespace x { class Y {}; }\nstd::string s;\n",
		"@interface Foo : NSObject\n@end\n",
		"#import <Foundation/Foundation.h>\n",
		"use strict;\nmy $x = 1;\nsub foo { }\n",
		":- module(foo, []).\nfoo(X) :- bar(X).\n",
		"fn main() { let x = 1; }\n",
		"import React from 'react';\nexport default function App() {}\n",
		"interface Foo { x: number }\nexport const y: string = '';\n",
		"# Title\n\nSome *markdown* text.\n",
		"---\nkey: value\n",
		"{\"a\": 1}\n",
		"[section]\nkey = \"value\"\n",
		"<?php echo 1; ?>\n",
		"class Foo\n  def bar; end\nend\n",
		".TH FOO 1 \"2020\"\n.SH NAME\nfoo\n",
		"%%Creator: inkscape 1.0\n",
		"\x00\x01binary",
		"(function() {\n  var _i, _len;\n}).call(this);\n",
		"-- vim: set ft=lua:\nlocal x = 1\n",
		"\xff\xfe invalid utf8 \xc3\x28\n",
		strings.Repeat("a", 300) + "\n" + strings.Repeat("b", 300),
		strings.Repeat("line\n", 30),
	}
	out := make([][]byte, len(ss))
	for i, s := range ss {
		out[i] = []byte(s)
	}
	return out
}

func syntheticPaths() []string {
	var ps []string
	for _, base := range []string{
		"docs/README.md", "Documentation/x", "src/vendor/github.com/x/y.go", "node_modules/a/b.js",
		"a/b/jquery-1.2.3.min.js", "foo.d.ts", "x/.idea/workspace.xml", "Pods/x.m", "x/Pods/y",
		"Carthage/Build/z", "Form1.Designer.cs", "a.feature.cs", "vendor/golang.org/x/net", "Gopkg.lock",
		"glide.lock", "poetry.lock", "pdm.lock", "uv.lock", "my.esy.lock", "deno.lock", "npm-shrinkwrap.json",
		"package-lock.json", "pnpm-lock.yaml", ".pnp.cjs", "Godeps/x", "composer.lock", "a.zep.c", "Cargo.lock",
		"Cargo.toml.orig", "flake.lock", "MODULE.bazel.lock", "Pipfile.lock", ".terraform.lock.hcl",
		"__generated__/x.js", "Foo_TLB.pas", "htmlcov/index.html", ".sqlx/query-abc.json", "x.nib",
		"a.xcworkspacedata", "a.xcuserstate", "a.js.map", "a.css.map", "ppport.h", "LICENSE", "COPYING.txt",
		"CHANGELOG", "examples/x", "man/x.1", ".", "..", "/", "", ".hidden", "a/.hidden/", "x.PNG", "x.png",
		"y.jpeg", "z.GIF", "a.yml", "b.YAML", "c.json", "d.toml", "e.ini", "f.sql", "g.xml", "h.miniyaml",
		"testdata/x", "third_party/y", "3rdparty/z", ".github/workflows/a.yml", "debian/rules", "x.1.in",
		"x.3pm", "x.mdoc", "x.n", "x.0p", "a/b/c/", "weird\x00name", "ünïcödé.ПY", "İ.JS", "K.tS",
	} {
		ps = append(ps, base, "root/"+base, strings.ToUpper(base))
	}
	return ps
}

type heurSamples struct {
	all   [][]byte            // one sample per alternative of every heuristic regexp
	byExt map[string][][]byte // the samples of the regexps of an extension, singly and joined
}

// heuristicSamples synthesises, for every heuristic regexp, strings that it
// (probably) matches, so that every rule of every extension is exercised.
func heuristicSamples(t *testing.T) heurSamples {
	hs := heurSamples{byExt: map[string][][]byte{}}
	bySrc := map[string][][]byte{}
	for i := range heuristicRegexps {
		src := heuristicRegexps[i].src
		re, err := syntax.Parse(src, syntax.Perl)
		if err != nil {
			t.Fatalf("parse %q: %v", src, err)
		}
		var ss [][]byte
		for _, v := range variants(re.Simplify()) {
			ss = append(ss, []byte(v), []byte("x\n  "+v+"\ny\n"))
		}
		bySrc[src] = ss
		hs.all = append(hs.all, ss...)
	}
	// Per extension: the samples of the regexps its rules use (found in
	// go-enry's rules by reflection), singly, joined in pairs and all
	// together, as and-rules need several patterns to match at once.
	for _, ext := range sortedKeys(data.ContentHeuristics) {
		var srcs []string
		for _, h := range *data.ContentHeuristics[ext] {
			collectRegexps(reflect.ValueOf(h), &srcs)
		}
		var own, firsts [][]byte
		for _, src := range srcs {
			own = append(own, bySrc[src]...)
			if len(bySrc[src]) > 0 {
				firsts = append(firsts, bySrc[src][0])
			}
		}
		for i := range firsts {
			for j := range firsts {
				if i != j {
					own = append(own, slices.Concat(firsts[i], []byte("\n"), firsts[j]))
				}
			}
		}
		own = append(own, bytes.Join(firsts, []byte("\n")))
		hs.byExt[ext] = own
	}
	return hs
}

// collectRegexps appends the sources of the regexps in a go-enry rule (or
// rule.Matcher) value, walking the unexported fields of package rule.
func collectRegexps(v reflect.Value, srcs *[]string) {
	switch v.Kind() {
	case reflect.Interface:
		if !v.IsNil() {
			collectRegexps(v.Elem(), srcs)
		}
	case reflect.Pointer:
		if v.IsNil() {
			return
		}
		if src := v.Elem().FieldByName("expr"); src.IsValid() && src.Kind() == reflect.String {
			if !slices.Contains(*srcs, src.String()) {
				*srcs = append(*srcs, src.String())
			}
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			collectRegexps(v.Field(i), srcs)
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			collectRegexps(v.Index(i), srcs)
		}
	}
}

// variants returns up to maxVariants strings that re (probably) matches:
// every branch of alternations, the minimum of repetitions but one for plus,
// a newline for line anchors.
func variants(re *syntax.Regexp) []string {
	const maxVariants = 16
	switch re.Op {
	case syntax.OpLiteral:
		return []string{string(re.Rune)}
	case syntax.OpCharClass:
		if len(re.Rune) == 0 {
			return []string{""}
		}
		r := re.Rune[0]
		if r < ' ' && re.Rune[1] >= 'a' {
			r = 'a'
		}
		return []string{string(r)}
	case syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		return []string{"a"}
	case syntax.OpBeginLine, syntax.OpEndLine:
		return []string{"\n"}
	case syntax.OpCapture:
		return variants(re.Sub[0])
	case syntax.OpPlus:
		return variants(re.Sub[0])
	case syntax.OpRepeat:
		out := []string{""}
		for i := 0; i < re.Min; i++ {
			out = product(out, variants(re.Sub[0]), maxVariants)
		}
		return out
	case syntax.OpConcat:
		out := []string{""}
		for _, s := range re.Sub {
			out = product(out, variants(s), maxVariants)
		}
		return out
	case syntax.OpAlternate:
		var out []string
		for _, s := range re.Sub {
			out = append(out, variants(s)...)
		}
		if len(out) > maxVariants {
			out = out[:maxVariants]
		}
		return out
	}
	// Star, quest, \A, \z, \b, \B, empty.
	return []string{""}
}

func product(a, b []string, limit int) []string {
	var out []string
	for _, x := range a {
		for _, y := range b {
			if len(out) == limit {
				return out
			}
			out = append(out, x+y)
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// FuzzLanguage: Language never panics and agrees with enry's classifier-free
// chain; so do the other content and path functions.
func FuzzLanguage(f *testing.F) {
	for _, s := range fixedSamples() {
		f.Add("main.go", s)
		f.Add("x.h", s)
		f.Add("script", s)
		f.Add("a.pl", s)
		f.Add("README", s)
	}
	f.Add("a.1.in", []byte(".TH X 1\n"))
	f.Add("Makefile", []byte("-*- mode: ruby -*-"))
	f.Fuzz(func(t *testing.T, filename string, content []byte) {
		if got, want := Language(filename, content), enryLanguage(filename, content); got != want {
			t.Errorf("Language(%q, %q) = %q, enry's chain %q", filename, content, got, want)
		}
		if got, want := normal(languages(filename, content)), normal(enryChain(filename, content)); !reflect.DeepEqual(got, want) {
			t.Errorf("languages(%q, %q) = %q, enry %q", filename, content, got, want)
		}
		l, s := LanguageByShebang(content)
		el, es := enry.GetLanguageByShebang(content)
		if l != el || s != es {
			t.Errorf("LanguageByShebang(%q) = %q %v, enry %q %v", content, l, s, el, es)
		}
		if got, want := IsGenerated(filename, content), enry.IsGenerated(filename, content); got != want {
			t.Errorf("IsGenerated(%q, %q) = %v, enry %v", filename, content, got, want)
		}
		if got, want := IsVendor(filename), enry.IsVendor(filename); got != want {
			t.Errorf("IsVendor(%q) = %v, enry %v", filename, got, want)
		}
		if got, want := IsDocumentation(filename), enry.IsDocumentation(filename); got != want {
			t.Errorf("IsDocumentation(%q) = %v, enry %v", filename, got, want)
		}
		if got, want := IsConfiguration(filename), enry.IsConfiguration(filename); got != want {
			t.Errorf("IsConfiguration(%q) = %v, enry %v", filename, got, want)
		}
		if got, want := IsDotFile(filename), enry.IsDotFile(filename); got != want {
			t.Errorf("IsDotFile(%q) = %v, enry %v", filename, got, want)
		}
	})
}

var benchFiles struct {
	once  sync.Once
	files []file
}

func benchInputs(b *testing.B) []file {
	benchFiles.once.Do(func() {
		benchFiles.files = readTree(b, filepath.Join(goroot(b), "src"), 8)
	})
	return benchFiles.files
}

// BenchmarkLanguage classifies the same inputs (one file in 8 of GOROOT/src,
// first 16 KB) with this package, enry's classifier-free chain and full
// enry.GetLanguage. Regexps are compiled lazily on both sides of the first
// iteration; go-enry's init cost is not in the numbers.
func BenchmarkLanguage(b *testing.B) {
	files := benchInputs(b)
	run := func(b *testing.B, f func(string, []byte) string) {
		var bytes int64
		for _, in := range files {
			bytes += int64(len(in.content))
		}
		b.SetBytes(bytes)
		b.ReportAllocs()
		for b.Loop() {
			for _, in := range files {
				f(path.Base(in.rel), in.content)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(files)), "ns/file")
	}
	b.Run("linguist", func(b *testing.B) { run(b, Language) })
	b.Run("enry-chain", func(b *testing.B) { run(b, enryLanguage) })
	b.Run("enry-GetLanguage", func(b *testing.B) { run(b, enry.GetLanguage) })
}
