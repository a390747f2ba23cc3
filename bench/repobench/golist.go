//go:build linux

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// goRepoModule is the real Go repository measured side by side with
// `go list`: Prometheus, a large Go server with some 200 dependencies (the
// issue's measure: go list loads every package the repository depends
// on, which is what an agent's tooling pays), fetched once through the
// module proxy. The exact version keeps the tree the same from run to
// run; -gorepo measures a checkout of your choice instead.
const goRepoModule = "github.com/prometheus/prometheus@v0.316.0"

// goRepoTree is the Go repository of -gorepo, or goRepoModule from the
// module cache.
func goRepoTree(cfg config) *tree {
	t := &tree{Name: "gorepo", coldOnly: true, goList: true}
	if cfg.goRepo != "" {
		abs, err := filepath.Abs(cfg.goRepo)
		if err != nil {
			t.skipped = err.Error()
			return t
		}
		t.Root, t.About = abs, "the Go repository at "+abs+" (-gorepo)"
		return t
	}
	out, err := exec.Command("go", "mod", "download", "-json", goRepoModule).Output()
	if err != nil {
		t.skipped = "go mod download " + goRepoModule + ": " + err.Error()
		return t
	}
	var dl struct{ Dir, Error string }
	if err := json.Unmarshal(out, &dl); err != nil || dl.Dir == "" {
		t.skipped = fmt.Sprintf("go mod download %s: %s %v", goRepoModule, dl.Error, err)
		return t
	}
	// The module's go.work names nested modules that a module zip leaves
	// out: go list reads the module alone.
	t.Root, t.About, t.goEnv = dl.Dir, goRepoModule+" from the module proxy (a module zip: no git history, no nested modules)", []string{"GOWORK=off"}
	return t
}

// goList runs `go list -e -json ./...` in root once, the command an agent's
// tooling runs to learn a Go repository's packages, and returns how long it
// took. Its output is read and dropped, as a consumer would read it.
func goList(root string, env []string) (time.Duration, int, error) {
	cmd := exec.Command("go", "list", "-e", "-json", "./...")
	cmd.Dir = root
	// Never a download in the measured run: the warm-up run fetched what
	// the module needs.
	cmd.Env = append(append(os.Environ(), env...), "GOFLAGS=-mod=readonly", "GOPROXY=off")
	began := time.Now()
	out, err := cmd.Output()
	took := time.Since(began)
	if err != nil {
		msg := err.Error()
		if ee, ok := err.(*exec.ExitError); ok {
			msg += ": " + strings.TrimSpace(string(ee.Stderr))
		}
		return 0, 0, fmt.Errorf("go list in %s: %s", root, msg)
	}
	return took, strings.Count(string(out), "\n\t\"ImportPath\": "), nil
}

// measureGoList runs go list once to warm up (downloads, the file cache),
// then runs times, interleaved with nothing else.
func measureGoList(t *tree, runs int) {
	progressf("%s: go list -e -json ./... to warm up (downloads the dependencies the first time)", t.Name)
	warm := exec.Command("go", "list", "-e", "-json", "./...")
	warm.Dir = t.Root
	warm.Env = append(os.Environ(), t.goEnv...)
	if _, err := warm.Output(); err != nil {
		msg := err.Error()
		if ee, ok := err.(*exec.ExitError); ok {
			msg += ": " + strings.TrimSpace(string(ee.Stderr))
		}
		t.Failed = fmt.Sprintf("go list warm-up in %s: %.500s", t.Root, msg)
		return
	}
	for i := 0; i < runs; i++ {
		progressf("%s: go list -e -json ./... %d of %d", t.Name, i+1, runs)
		d, pkgs, err := goList(t.Root, t.goEnv)
		if err != nil {
			t.Failed = err.Error()
			return
		}
		t.GoList = append(t.GoList, d)
		t.GoPackages = pkgs
	}
}
