package measure

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestPct: nearest rank, so every figure is one that was observed; 0 is
// the least, 100 the greatest, and the input is left as it was.
func TestPct(t *testing.T) {
	ds := []time.Duration{5, 1, 4, 2, 3}
	for p, want := range map[int]time.Duration{0: 1, 20: 1, 21: 2, 50: 3, 99: 5, 100: 5} {
		if got := Pct(ds, p); got != want {
			t.Errorf("Pct(%v, %d) = %v, want %v", ds, p, got, want)
		}
	}
	if ds[0] != 5 {
		t.Errorf("Pct sorted its input: %v", ds)
	}
	if got := Pct([]time.Duration{1, 2, 3, 4}, 50); got != 2 {
		t.Errorf("p50 of an even count = %v, want the lower middle 2", got)
	}
	if got := Pct(nil, 50); got != 0 {
		t.Errorf("Pct(nil) = %v, want 0", got)
	}
}

func TestPeakRSSKiB(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("VmHWM is read from /proc")
	}
	self := PeakRSSKiB(0)
	if self <= 0 {
		t.Fatalf("PeakRSSKiB(0) = %d", self)
	}
	if byPid := PeakRSSKiB(os.Getpid()); byPid < self {
		t.Errorf("PeakRSSKiB(own pid) = %d, below PeakRSSKiB(0) = %d read before it", byPid, self)
	}
	if got := PeakRSSKiB(-1); got != 0 {
		t.Errorf("PeakRSSKiB of no process = %d, want 0", got)
	}
}

// TestGoBuild: a package of the module is built where asked; a package that
// does not build is an error that carries the compiler's words.
func TestGoBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go build")
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "echo")
	if err := GoBuild("../../..", "./bench/echo", out); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(out); err != nil || st.Mode()&0o111 == 0 {
		t.Fatalf("no executable at %s: %v", out, err)
	}
	broken := filepath.Join(dir, "broken")
	os.MkdirAll(broken, 0o755)
	os.WriteFile(filepath.Join(broken, "go.mod"), []byte("module broken\n\ngo 1.21\n"), 0o644)
	os.WriteFile(filepath.Join(broken, "main.go"), []byte("package main\n\nfunc main() { undefinedThing() }\n"), 0o644)
	err := GoBuild(broken, ".", filepath.Join(dir, "b"))
	if err == nil || !strings.Contains(err.Error(), "undefinedThing") {
		t.Fatalf("a broken build: %v", err)
	}
}

func TestOnly(t *testing.T) {
	known := []string{"kontext", "gosdk", "everything"}
	if got, err := Only("", known); got != nil || err != nil {
		t.Errorf("an empty -only selects %v, %v; want every server (nil)", got, err)
	}
	got, err := Only("kontext, gosdk", known)
	if err != nil || len(got) != 2 || !got["kontext"] || !got["gosdk"] {
		t.Errorf("Only(\"kontext, gosdk\") = %v, %v", got, err)
	}
	if _, err := Only("kontext,nope", known); err == nil || !strings.Contains(err.Error(), `unknown server "nope"`) {
		t.Errorf("an unknown server is refused, got %v", err)
	}
}
