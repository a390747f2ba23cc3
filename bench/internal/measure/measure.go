// Package measure holds what the benchmarks under bench/ share: percentiles
// of timings, their printing, how busy the machine was, and peak memory.
package measure

import (
	"fmt"
	"os"
	"slices"
	"strconv"
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
	if l := loadAverages(); l != nil {
		return "load average " + strings.Join(l, " ")
	}
	return "load average n/a"
}

// Load1 is the 1-minute load average ("0.71"), "?" when unknown.
func Load1() string {
	if l := loadAverages(); l != nil {
		return l[0]
	}
	return "?"
}

// loadAverages returns the 1, 5 and 15-minute load averages, nil when
// /proc/loadavg cannot be read.
func loadAverages() []string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return nil
	}
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return nil
	}
	return f[:3]
}

// PeakRSS is this process's peak resident memory (VmHWM), printed.
func PeakRSS() string {
	kib := PeakRSSKiB(0)
	if kib == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.1f MiB", float64(kib)/1024)
}

// PeakRSSKiB is the peak resident memory (VmHWM) of process pid in KiB, 0
// when it cannot be read; pid 0 is this process. VmHWM covers the whole
// life of the process, so it is read while the process still exists.
func PeakRSSKiB(pid int) int64 {
	path := "/proc/self/status"
	if pid != 0 {
		path = "/proc/" + strconv.Itoa(pid) + "/status"
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kib, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kib
		}
	}
	return 0
}
