package measure

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// GoBuild builds the package pkg (such as ./cmd/kontext) of the module in
// the directory repo ("" for the working directory) into out, with the go
// on PATH, else the one of the GOROOT this bench was built with. A failed
// build's error ends with the last lines the build printed.
func GoBuild(repo, pkg, out string) error {
	goTool, err := exec.LookPath("go")
	if err != nil {
		goTool = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	cmd := exec.Command(goTool, "build", "-o", out, pkg)
	cmd.Dir = repo
	if msg, err := cmd.CombinedOutput(); err != nil {
		lines := strings.Split(strings.TrimSpace(string(msg)), "\n")
		if len(lines) > 5 {
			lines = lines[len(lines)-5:]
		}
		return fmt.Errorf("go build %s failed: %v: %s", pkg, err, strings.Join(lines, " | "))
	}
	return nil
}

// BuildKontext builds ./cmd/kontext of the module in the working directory
// into dir/bin/kontext and returns its absolute path. bench names the
// benchmark in the line that says so on stderr.
func BuildKontext(bench, dir string) (string, error) {
	bin, err := filepath.Abs(filepath.Join(dir, "bin", "kontext"))
	if err != nil {
		return "", err
	}
	fmt.Fprintln(os.Stderr, bench+": building kontext")
	if err := GoBuild("", "./cmd/kontext", bin); err != nil {
		return "", fmt.Errorf("building kontext: %w", err)
	}
	return bin, nil
}
