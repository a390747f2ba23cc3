package measure

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Micros is d in microseconds.
func Micros(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// Ratio returns a/b, or NaN when either side is missing, so a skipped
// server shows up as "n/a" rather than as a misleading 0 or +Inf.
func Ratio(a, b float64) float64 {
	if a <= 0 || b <= 0 || math.IsNaN(a) || math.IsNaN(b) {
		return math.NaN()
	}
	return a / b
}

// FormatRate prints a rate per second, "-" for one not measured.
func FormatRate(perSecond float64) string {
	if perSecond <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f/s", perSecond)
}

// FormatMicros prints microseconds, "-" for a value not measured.
func FormatMicros(us float64) string {
	if us <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f µs", us)
}

// LastLines joins the last n lines of s on one line, for a server's
// stderr in an error message.
func LastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}

// FindRepo walks up from the working directory to the kontext go.mod.
func FindRepo() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("working directory: %w", err)
	}
	for {
		mod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && bytes.Contains(mod, []byte("module github.com/kontext-dev/kontext\n")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("not inside the kontext repository (use -repo)")
		}
		dir = parent
	}
}

// Only reads an -only flag: a comma list of the servers to run, each one
// of known; nil (run them all) for an empty list.
func Only(list string, known []string) (map[string]bool, error) {
	if list == "" {
		return nil, nil
	}
	only := map[string]bool{}
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		if !slices.Contains(known, name) {
			return nil, fmt.Errorf("-only: unknown server %q (known: %s)", name, strings.Join(known, ", "))
		}
		only[name] = true
	}
	return only, nil
}
