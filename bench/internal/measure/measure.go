// Package measure holds what the benchmarks under bench/ share: percentiles
// of timings, their printing, and how busy the machine was.
package measure

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"time"
)

// Pct returns the p-th percentile (nearest rank) of ds, 0 for none.
func Pct(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := (len(s)*p + 99) / 100
	if i > 0 {
		i--
	}
	return s[i]
}

// Ms prints a duration in milliseconds, or seconds from one second up.
func Ms(d time.Duration) string {
	if d >= time.Second {
		return fmt.Sprintf("%.2f s", d.Seconds())
	}
	return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000)
}

// LoadLine says how busy the machine was ("load average 0.71 0.80 1.02"):
// timings on a loaded machine are slower, and a reader should know.
func LoadLine() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "load average n/a"
	}
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return "load average n/a"
	}
	return "load average " + strings.Join(f[:3], " ")
}

// PeakRSS is this process's peak resident memory (VmHWM), printed.
func PeakRSS() string {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "n/a"
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			var kb int
			fmt.Sscan(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), &kb)
			return fmt.Sprintf("%.1f MiB", float64(kb)/1024)
		}
	}
	return "n/a"
}
