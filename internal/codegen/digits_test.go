package codegen

import (
	"regexp"
	"strconv"
	"testing"
)

// TestDecimalRange compares the range patterns with arithmetic, for every
// number up to 25,000 (and some far beyond) over ranges of every shape:
// one digit, across digit counts, open above, a single value.
func TestDecimalRange(t *testing.T) {
	ranges := [][2]int64{
		{0, -1}, {1, -1}, {100, -1}, {7, -1}, {19, -1}, {999, -1}, {1000, -1}, {12345, -1},
		{0, 0}, {0, 9}, {1, 5}, {1, 50}, {1, 100}, {100, 20000}, {0, 200}, {1, 1000},
		{37, 37}, {18, 23}, {190, 2101}, {99, 101}, {5, 3}, {10, 99}, {1, 3600000},
	}
	probes := []int64{99999, 100000, 3599999, 3600000, 3600001, 1 << 40, 9223372036854775807}
	for _, r := range ranges {
		lo, hi := r[0], r[1]
		pattern := "^(?:" + decimalRange(lo, hi) + ")$"
		re, err := regexp.Compile(pattern)
		if err != nil {
			t.Fatalf("[%d, %d]: %s does not compile: %v", lo, hi, pattern, err)
		}
		check := func(n int64) {
			s := strconv.FormatInt(n, 10)
			want := n >= lo && (hi < 0 || n <= hi)
			if got := re.MatchString(s); got != want {
				t.Errorf("[%d, %d]: %s matches %s = %v, want %v", lo, hi, pattern, s, got, want)
			}
		}
		for n := int64(0); n <= 25000; n++ {
			check(n)
		}
		for _, n := range probes {
			check(n)
		}
		for _, bad := range []string{"", "-1", "1.5", "01x", " 1"} {
			if re.MatchString(bad) {
				t.Errorf("[%d, %d]: %s matches %q", lo, hi, pattern, bad)
			}
		}
	}
}
