// Package clip cuts text to a length in characters (runes, as every content limit
// of engram counts them), marking the cut. It depends on the standard library only.
package clip

import "unicode/utf8"

// Ellipsis ends a clipped text.
const Ellipsis = "…"

// Runes cuts s to at most n characters (n ≥ 1), the last being Ellipsis when it
// was cut; s comes back as it is when it is short enough.
func Runes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + Ellipsis
}
