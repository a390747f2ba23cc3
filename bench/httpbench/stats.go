//go:build linux

package main

import (
	"cmp"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kontext-dev/kontext/bench/internal/measure"
)

// latencySummary condenses round-trip times into what the report shows.
// Percentiles are nearest-rank (measure.Pct): every figure is a time that
// was actually observed.
type latencySummary struct {
	Count int     `json:"count"`
	P50us float64 `json:"p50_us"`
	P99us float64 `json:"p99_us"`
}

func summarize(samples []time.Duration) latencySummary {
	if len(samples) == 0 {
		return latencySummary{}
	}
	return latencySummary{
		Count: len(samples),
		P50us: measure.Micros(measure.Pct(samples, 50)),
		P99us: measure.Micros(measure.Pct(samples, 99)),
	}
}

// medianRate is the median of the rounds' rates, the mean of the two
// middle ones for an even count: one round slowed by the machine's other
// work does not move it.
func medianRate(rates []float64) float64 {
	if len(rates) == 0 {
		return 0
	}
	sorted := slices.Clone(rates)
	slices.Sort(sorted)
	mid := len(sorted) / 2
	if len(sorted)%2 == 1 {
		return sorted[mid]
	}
	return (sorted[mid-1] + sorted[mid]) / 2
}

// perSessionKiB is what one idle session costs the server: its resident
// memory after opening n sessions minus before, shared among them. A
// shrinking RSS (the collector returned memory meanwhile) is reported as
// it is, negative, rather than hidden; no sessions or no reading is NaN.
func perSessionKiB(beforeKiB, afterKiB int64, n int) float64 {
	if n <= 0 || beforeKiB <= 0 || afterKiB <= 0 {
		return math.NaN()
	}
	return float64(afterKiB-beforeKiB) / float64(n)
}

// idleReading is one measurement of the memory idle sessions cost.
type idleReading struct {
	BeforeKiB     int64  `json:"rss_before_kib"`
	AfterKiB      int64  `json:"rss_after_kib"`
	PerSessionKiB figure `json:"per_session_kib"`
}

// medianReading is the reading with the median cost per session (the
// lower middle one for an even count), kept whole so that its RSS figures
// are printed with it. A reading that could not be computed sorts last.
func medianReading(readings []idleReading) idleReading {
	if len(readings) == 0 {
		return idleReading{PerSessionKiB: figure(math.NaN())}
	}
	sorted := slices.Clone(readings)
	slices.SortStableFunc(sorted, func(a, b idleReading) int {
		x, y := float64(a.PerSessionKiB), float64(b.PerSessionKiB)
		switch {
		case math.IsNaN(x) && math.IsNaN(y):
			return 0
		case math.IsNaN(x):
			return 1
		case math.IsNaN(y):
			return -1
		}
		return cmp.Compare(x, y)
	})
	return sorted[(len(sorted)-1)/2]
}

// rssKiB is the current resident memory (VmRSS) of process pid in KiB, 0
// when it cannot be read.
func rssKiB(pid int) int64 {
	status, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	return statusKiB(string(status), "VmRSS")
}

// statusKiB reads one "Field:   1234 kB" line of /proc/PID/status.
func statusKiB(status, field string) int64 {
	for _, line := range strings.Split(status, "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			kib, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				return 0
			}
			return kib
		}
	}
	return 0
}

func formatRatio(r float64) string {
	if math.IsNaN(r) {
		return "n/a"
	}
	return fmt.Sprintf("%.2f×", r)
}

func formatSessionKiB(kib float64) string {
	if math.IsNaN(kib) {
		return "-"
	}
	return fmt.Sprintf("%.1f KiB", kib)
}

// figure is a number of the JSON report that may not have been measured:
// NaN, which JSON cannot carry, is written as null.
type figure float64

func (f figure) MarshalJSON() ([]byte, error) {
	if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, float64(f), 'g', 6, 64), nil
}
