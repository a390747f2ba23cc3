// Package textclip cuts text to a size in bytes without splitting a
// character: a cut in the middle of a multi-byte character is invalid
// UTF-8 in a tool's answer or in a file kontext writes.
package textclip

import "unicode/utf8"

// Prefix returns the longest prefix of s of at most n bytes that ends on a
// character boundary.
func Prefix(s string, n int) string {
	if n >= len(s) {
		return s
	}
	if n < 0 {
		n = 0
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// Ellipsis returns s when it fits in n bytes, else its Prefix of n bytes
// followed by "…".
func Ellipsis(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return Prefix(s, n) + "…"
}
