package linguist

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/kontext-dev/kontext/internal/linguist/internal/generator"
)

// TestGenerated fails when data_gen.go is not what the generator makes of
// the go-enry version in go.mod.
func TestGenerated(t *testing.T) {
	want, err := generator.Generate()
	if err != nil {
		t.Fatalf("generator: %v", err)
	}
	got, err := os.ReadFile("data_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("data_gen.go is stale: run go generate ./internal/linguist")
	}
	again, err := generator.Generate()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again, want) {
		t.Fatalf("generator output is not deterministic")
	}
}

// TestNoEnryDependency: the package must not link go-enry (nor anything
// else outside the standard library).
func TestNoEnryDependency(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if dep != "github.com/kontext-dev/kontext/internal/linguist" {
			t.Errorf("package linguist depends on %s", dep)
		}
	}
}

// TestInitCost runs a program that imports only this package with
// GODEBUG=inittrace=1: the package must do no (or next to no) work at init.
func TestInitCost(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program")
	}
	bin := filepath.Join(t.TempDir(), "inittrace")
	if out, err := exec.Command("go", "build", "-o", bin, "./internal/inittrace").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	line := regexp.MustCompile(`(?m)^init (\S+) @\S+ ms, (\S+) ms clock, (\d+) bytes, (\d+) allocs$`)
	var totalBytes int
	var totalMs float64
	for _, m := range line.FindAllStringSubmatch(string(out), -1) {
		ms, _ := strconv.ParseFloat(m[2], 64)
		b, _ := strconv.Atoi(m[3])
		totalMs += ms
		totalBytes += b
		if m[1] == "github.com/kontext-dev/kontext/internal/linguist" {
			t.Logf("%s", m[0])
			if b > 50<<10 || ms > 1 {
				t.Errorf("package linguist init costs %s ms, %d bytes; want ~0", m[2], b)
			}
		}
	}
	t.Logf("whole program (runtime and standard library included): %.3f ms, %d bytes at init; package linguist has no init work unless listed above", totalMs, totalBytes)
	if totalBytes > 50<<10 {
		t.Errorf("program importing linguist allocates %d bytes at init, want < 50 KB:\n%s", totalBytes, out)
	}
}
