//go:build linux

package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// npmPackages make the JavaScript/TypeScript tree. The scan never enters
// node_modules (installed code is not the project), so the packages are
// installed once into a cache and copied out into an npm workspaces
// monorepo, packages/<name>, with a root package.json declaring them:
// that is a tree the engine treats as a project of its own — several
// thousand ES modules, CommonJS files and .d.ts declarations, components
// in directories of their own (antd, MUI), workspace packages that depend
// on each other (@mui/material on @mui/system and @mui/utils), and plenty
// of imports to resolve. Exact versions keep the tree the same from run to
// run.
var npmPackages = []string{
	"antd@5.29.3",
	"date-fns@3.6.0",
	"@mui/material@6.5.0",
	"@mui/system@6.5.0",
	"@mui/utils@6.4.9",
	"lodash-es@4.18.1",
}

func npmTree(cfg config, tmp string) *tree {
	t := &tree{Name: "npm", About: "an npm workspaces monorepo of " + strings.Join(npmPackages, ", ") + " (installed from the registry)"}
	cache := cfg.npmCache
	if cache == "" {
		dir, err := os.UserCacheDir()
		if err != nil {
			dir = os.TempDir()
		}
		sum := sha256.Sum256([]byte(strings.Join(npmPackages, " ")))
		cache = filepath.Join(dir, "kontext-repobench", "npm-"+hex.EncodeToString(sum[:6]))
	}
	installed := filepath.Join(cache, "node_modules")
	marker := filepath.Join(cache, ".complete")
	if _, err := os.Stat(marker); err != nil {
		progressf("npm: installing %s into %s", strings.Join(npmPackages, " "), cache)
		os.RemoveAll(cache)
		if err := os.MkdirAll(cache, 0o755); err != nil {
			t.skipped = err.Error()
			return t
		}
		args := append([]string{"install", "--no-audit", "--no-fund", "--ignore-scripts", "--no-save", "--prefix", cache}, npmPackages...)
		cmd := exec.Command("npm", args...)
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			t.skipped = fmt.Sprintf("npm install failed (%v); is the registry reachable?", err)
			return t
		}
		if err := os.WriteFile(marker, nil, 0o644); err != nil {
			t.skipped = err.Error()
			return t
		}
	}
	root := filepath.Join(tmp, "npm-monorepo")
	progressf("npm: assembling the monorepo in %s", root)
	for _, spec := range npmPackages {
		name := spec[:strings.LastIndexByte(spec, '@')]
		dir := strings.ReplaceAll(strings.TrimPrefix(name, "@"), "/", "-")
		if err := copyTree(filepath.Join(installed, filepath.FromSlash(name)), filepath.Join(root, "packages", dir)); err != nil {
			t.skipped = "assembling the tree: " + err.Error()
			return t
		}
	}
	manifest := `{"name": "npm-monorepo", "private": true, "workspaces": ["packages/*"]}` + "\n"
	if err := os.WriteFile(filepath.Join(root, "package.json"), []byte(manifest), 0o644); err != nil {
		t.skipped = err.Error()
		return t
	}
	t.Root = root
	return t
}
