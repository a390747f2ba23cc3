// Package faultinject kills the process at a named point of a write path,
// so that a test can check what a crash exactly there leaves behind (and
// what the next process makes of it) without racing a signal against the
// write. KONTEXT_TEST_KILL_AT=<point> kills the process (SIGKILL, no
// deferred function runs) the first time it reaches the point;
// <point>#<n> the n-th time. Unset, a point costs a comparison.
package faultinject

import (
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// EnvVar names the point to die at.
const EnvVar = "KONTEXT_TEST_KILL_AT"

var (
	once  sync.Once
	point string
	nth   int64 = 1
	hits  atomic.Int64
)

func load() {
	v := os.Getenv(EnvVar)
	if name, n, ok := strings.Cut(v, "#"); ok {
		if k, err := strconv.ParseInt(n, 10, 64); err == nil && k > 0 {
			v, nth = name, k
		}
	}
	point = v
}

// Point is a place a crash can happen. It returns at once unless the
// environment names it.
func Point(name string) {
	once.Do(load)
	if point == "" || name != point {
		return
	}
	if hits.Add(1) == nth {
		die()
	}
}
