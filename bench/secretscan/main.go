// Command secretscan runs the program's secret rules (internal/secrets)
// over a tree, as if every file were shown by a tool: which files are
// withheld by their path and by their content, and which lines the output
// filter would redact. With -gitleaks it compares the lines with a
// gitleaks report of the same tree (gitleaks detect --no-git -s DIR -f json
// -r REPORT), an independent scanner. It validates the rules on real
// repositories; it is not part of make bench.
//
//	go run ./bench/secretscan -dir "$(go env GOROOT)/src" -gitleaks report.json
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/kontext-dev/kontext/internal/secrets"
)

type line struct {
	file string
	n    int
}

func main() {
	dir := flag.String("dir", ".", "the tree to scan")
	report := flag.String("gitleaks", "", "a gitleaks JSON report of the same tree, to compare with")
	verbose := flag.Bool("v", false, "list every finding and withheld file")
	flag.Parse()

	files := 0
	var byPath, byContent []string
	ours := map[line]string{}
	rules := map[string]int{}
	filepath.WalkDir(*dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			if d.Name() == ".git" || d.Name() == "node_modules" {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, _ := filepath.Rel(*dir, p)
		rel = filepath.ToSlash(rel)
		files++
		if secrets.IsSecretFile(rel) {
			byPath = append(byPath, rel)
		}
		if info, err := d.Info(); err != nil || info.Size() > 2<<20 {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil || bytes.IndexByte(data[:min(len(data), 8000)], 0) >= 0 || !utf8.Valid(data) {
			return nil
		}
		if r := secrets.SecretContent(rel, data); r != "" {
			byContent = append(byContent, rel+" ("+r+")")
		}
		for _, f := range secrets.Scan(string(data)) {
			ours[line{rel, f.Line}] = f.Rule
			rules[f.Rule]++
		}
		return nil
	})
	fmt.Printf("%s: %d files; withheld by path %d, by content %d; %d lines redacted\n", *dir, files, len(byPath), len(byContent), len(ours))
	fmt.Printf("by rule: %s\n", counts(rules))
	fmt.Printf("withheld by path, by extension: %s\n", counts(extensions(byPath)))
	fmt.Printf("withheld by content: %s\n", strings.Join(byContent, ", "))
	if *verbose {
		for _, p := range byPath {
			fmt.Println("  path:", p)
		}
		for _, l := range sorted(ours) {
			fmt.Printf("  redacted: %s:%d %s\n", l.file, l.n, ours[l])
		}
	}
	if *report != "" {
		compare(*dir, *report, ours)
	}
}

// compare prints how the redacted lines agree with gitleaks'.
func compare(dir, report string, ours map[line]string) {
	data, err := os.ReadFile(report)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var leaks []struct {
		File      string
		StartLine int
		RuleID    string
	}
	if err := json.Unmarshal(data, &leaks); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	theirs := map[line]string{}
	for _, l := range leaks {
		rel := l.File
		if filepath.IsAbs(rel) {
			rel, _ = filepath.Rel(dir, rel)
		}
		theirs[line{filepath.ToSlash(rel), l.StartLine}] = l.RuleID
	}
	both := 0
	var onlyTheirs, onlyOurs []line
	for l := range theirs {
		if _, ok := ours[l]; ok {
			both++
		} else {
			onlyTheirs = append(onlyTheirs, l)
		}
	}
	for l := range ours {
		if _, ok := theirs[l]; !ok {
			onlyOurs = append(onlyOurs, l)
		}
	}
	fmt.Printf("gitleaks: %d lines; both %d, gitleaks only %d, kontext only %d\n", len(theirs), both, len(onlyTheirs), len(onlyOurs))
	for _, l := range sortLines(onlyTheirs) {
		fmt.Printf("  gitleaks only: %s:%d %s\n", l.file, l.n, theirs[l])
	}
	for _, l := range sortLines(onlyOurs) {
		fmt.Printf("  kontext only:  %s:%d %s\n", l.file, l.n, ours[l])
	}
}

func extensions(paths []string) map[string]int {
	m := map[string]int{}
	for _, p := range paths {
		m[filepath.Ext(p)]++
	}
	return m
}

func counts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return m[keys[i]] > m[keys[j]] || m[keys[i]] == m[keys[j]] && keys[i] < keys[j] })
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

func sorted(m map[line]string) []line {
	var ls []line
	for l := range m {
		ls = append(ls, l)
	}
	return sortLines(ls)
}

func sortLines(ls []line) []line {
	sort.Slice(ls, func(i, j int) bool { return ls[i].file < ls[j].file || ls[i].file == ls[j].file && ls[i].n < ls[j].n })
	return ls
}
