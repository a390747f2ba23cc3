//go:build linux

package main

import (
	"encoding/json"
	"math"
	"testing"
	"time"
)

func TestSummarizeIsNearestRank(t *testing.T) {
	var samples []time.Duration
	for i := 100; i >= 1; i-- { // unsorted on purpose
		samples = append(samples, time.Duration(i)*time.Millisecond)
	}
	got := summarize(samples)
	if got.Count != 100 || got.P50us != 50000 || got.P99us != 99000 {
		t.Errorf("summarize(1..100 ms) = %+v, want count 100, p50 50000 µs, p99 99000 µs", got)
	}
	few := summarize([]time.Duration{3 * time.Microsecond, time.Microsecond, 2 * time.Microsecond})
	if few.P50us != 2 || few.P99us != 3 {
		t.Errorf("summarize(1,2,3 µs) = %+v, want p50 2, p99 3 (observed values only)", few)
	}
	if (summarize(nil) != latencySummary{}) {
		t.Errorf("summarize(nil) = %+v, want zero", summarize(nil))
	}
}

func TestMedianRate(t *testing.T) {
	for _, tc := range []struct {
		rates []float64
		want  float64
	}{
		{nil, 0},
		{[]float64{5}, 5},
		{[]float64{9, 1, 5}, 5},
		{[]float64{9, 1, 5, 3}, 4},
	} {
		if got := medianRate(tc.rates); got != tc.want {
			t.Errorf("medianRate(%v) = %v, want %v", tc.rates, got, tc.want)
		}
	}
}

func TestPerSessionKiB(t *testing.T) {
	if got := perSessionKiB(20000, 40480, 200); got != 102.4 {
		t.Errorf("perSessionKiB(20000, 40480, 200) = %v, want 102.4", got)
	}
	if got := perSessionKiB(20000, 19800, 100); got != -2 {
		t.Errorf("a shrinking RSS gives %v, want -2 (reported, not hidden)", got)
	}
	for _, tc := range [][3]int64{{20000, 30000, 0}, {0, 30000, 10}, {20000, 0, 10}} {
		if got := perSessionKiB(tc[0], tc[1], int(tc[2])); !math.IsNaN(got) {
			t.Errorf("perSessionKiB%v = %v, want NaN (not measured)", tc, got)
		}
	}
}

func TestStatusKiB(t *testing.T) {
	status := "Name:\tkontext\nVmHWM:\t   30000 kB\nVmRSS:\t   21332 kB\nThreads:\t7\n"
	if got := statusKiB(status, "VmRSS"); got != 21332 {
		t.Errorf("VmRSS = %d, want 21332", got)
	}
	if got := statusKiB(status, "VmSwap"); got != 0 {
		t.Errorf("a missing field = %d, want 0", got)
	}
}

func TestFigureMarshalsNaNAsNull(t *testing.T) {
	b, err := json.Marshal([]figure{figure(math.NaN()), 1.5})
	if err != nil || string(b) != "[null,1.5]" {
		t.Errorf("json.Marshal = %s, %v; want [null,1.5]", b, err)
	}
}

func TestMedianReading(t *testing.T) {
	readings := []idleReading{
		{BeforeKiB: 1, AfterKiB: 2, PerSessionKiB: 193},
		{BeforeKiB: 3, AfterKiB: 4, PerSessionKiB: figure(math.NaN())},
		{BeforeKiB: 5, AfterKiB: 6, PerSessionKiB: 25},
		{BeforeKiB: 7, AfterKiB: 8, PerSessionKiB: 30},
	}
	if got := medianReading(readings); got.BeforeKiB != 7 || got.PerSessionKiB != 30 {
		t.Errorf("medianReading = %+v, want the 30 KiB reading (NaN sorts last, lower middle of four)", got)
	}
	if got := medianReading(readings[:3]); got.PerSessionKiB != 193 {
		t.Errorf("medianReading of 193, NaN, 25 = %+v, want 193", got)
	}
	if got := medianReading(nil); !math.IsNaN(float64(got.PerSessionKiB)) {
		t.Errorf("medianReading(nil) = %+v, want NaN", got)
	}
}
