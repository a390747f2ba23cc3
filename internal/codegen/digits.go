package codegen

import (
	"strconv"
	"strings"
)

// decimalRange returns a regular expression (RE2 and ECMA-262 alike, no
// anchors) that matches exactly the decimal numbers from lo to hi written
// without leading zeros; hi < 0 means no upper bound. lo must be >= 0 (and
// the spec check refuses a minimum above the maximum; such a range matches
// nothing).
//
// JSON Schema cannot compare a string of digits with a number, so a
// parameter that takes "10" as well as 10 spells its range this way.
func decimalRange(lo, hi int64) string {
	if hi >= 0 && lo > hi {
		return `\b\B`
	}
	var alts []string
	loDigits := len(strconv.FormatInt(lo, 10))
	top := 19
	if hi >= 0 {
		top = len(strconv.FormatInt(hi, 10))
	}
	for d := loDigits; d <= top; d++ {
		a := max(lo, pow10(d-1))
		if d == 1 {
			a = lo
		}
		b := pow10(d) - 1
		if hi >= 0 {
			b = min(b, hi)
		}
		if a > b {
			continue
		}
		alts = append(alts, sameLength(pad(a, d), pad(b, d)))
		if hi < 0 {
			// Every longer number is in range.
			alts = append(alts, "[1-9][0-9]{"+strconv.Itoa(d)+",}")
			break
		}
	}
	return strings.Join(alts, "|")
}

func pow10(n int) int64 {
	p := int64(1)
	for range n {
		p *= 10
	}
	return p
}

func pad(n int64, width int) string {
	s := strconv.FormatInt(n, 10)
	return strings.Repeat("0", width-len(s)) + s
}

// sameLength matches the digit strings of len(a) characters from a to b
// (a <= b), leading zeros included.
func sameLength(a, b string) string {
	if a == b {
		return a
	}
	if len(a) == 1 {
		return class(a[0], b[0])
	}
	if a[0] == b[0] {
		return a[:1] + group(sameLength(a[1:], b[1:]))
	}
	rest := len(a) - 1
	nines, zeros := strings.Repeat("9", rest), strings.Repeat("0", rest)
	var alts []string
	if a[1:] == zeros && b[1:] == nines {
		return class(a[0], b[0]) + anyDigits(rest)
	}
	lowFull := a[1:] == zeros
	highFull := b[1:] == nines
	first, last := a[0], b[0]
	if !lowFull {
		alts = append(alts, a[:1]+group(sameLength(a[1:], nines)))
		first++
	}
	if !highFull {
		last--
	}
	if first <= last {
		alts = append(alts, class(first, last)+anyDigits(rest))
	}
	if !highFull {
		alts = append(alts, b[:1]+group(sameLength(zeros, b[1:])))
	}
	return strings.Join(alts, "|")
}

func class(lo, hi byte) string {
	switch {
	case lo == hi:
		return string(lo)
	case lo == '0' && hi == '9':
		return "[0-9]"
	}
	return "[" + string(lo) + "-" + string(hi) + "]"
}

func anyDigits(n int) string {
	if n == 1 {
		return "[0-9]"
	}
	return "[0-9]{" + strconv.Itoa(n) + "}"
}

// group wraps alternatives so that they bind to what precedes them.
func group(s string) string {
	if strings.Contains(s, "|") {
		return "(?:" + s + ")"
	}
	return s
}
