//go:build linux

package main

import (
	"fmt"
	"slices"
	"time"

	"github.com/kontext-dev/kontext/bench/internal/measure"
)

// latencySummary condenses a set of round-trip times into what the report
// shows. Percentiles use the nearest-rank method: every figure is a time
// that was actually observed, never an interpolation.
type latencySummary struct {
	Count int     `json:"count"`
	P50us float64 `json:"p50_us"`
	P99us float64 `json:"p99_us"`
	Maxus float64 `json:"max_us"`
}

func summarize(samples []time.Duration) latencySummary {
	if len(samples) == 0 {
		return latencySummary{}
	}
	return latencySummary{
		Count: len(samples),
		P50us: measure.Micros(measure.Pct(samples, 50)),
		P99us: measure.Micros(measure.Pct(samples, 99)),
		Maxus: measure.Micros(measure.Pct(samples, 100)),
	}
}

// median of a few samples (the process starts); the mean of the two middle
// ones for an even count.
func median(samples []time.Duration) time.Duration {
	if len(samples) == 0 {
		return 0
	}
	sorted := slices.Clone(samples)
	slices.Sort(sorted)
	mid := len(sorted) / 2
	if len(sorted)%2 == 1 {
		return sorted[mid]
	}
	return (sorted[mid-1] + sorted[mid]) / 2
}

func millis(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// The formatters below print "-" for a value that was not measured.

func formatMillis(ms float64) string {
	if ms <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f ms", ms)
}

func formatKiB(kib int64) string {
	if kib <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f MiB", float64(kib)/1024)
}
