// Package clip cuts text to a length in characters (runes, as every content limit
// of engram counts them), marking the cut. It depends on the standard library only.
package clip

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

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

// Tail keeps the last n characters of s (n ≥ 1): the end of a long question,
// where its ask usually is. A cut inside a word moves on to the word's end, so
// no fragment of a word starts the tail, unless that would leave nothing.
// cut reports whether anything was left out.
func Tail(s string, n int) (tail string, cut bool) {
	rs := []rune(s)
	if len(rs) <= n {
		return s, false
	}
	start := len(rs) - n
	if isWordRune(rs[start-1]) {
		for i := start; i < len(rs); i++ {
			if !isWordRune(rs[i]) {
				if i+1 < len(rs) {
					start = i
				}
				break
			}
		}
	}
	return strings.TrimSpace(string(rs[start:])), true
}

// isWordRune is a letter or digit of a script that separates words with spaces.
func isWordRune(r rune) bool {
	return (unicode.IsLetter(r) || unicode.IsDigit(r)) && !unicode.Is(unicode.Han, r) &&
		!unicode.Is(unicode.Hiragana, r) && !unicode.Is(unicode.Katakana, r) && !unicode.Is(unicode.Hangul, r)
}

// Ask is the end of a long text that holds its question: the last sentence
// (after the last ". ", "?", "!", "。", "？", "！" or line break that is not at
// its very end), at most n characters (its end when longer).
func Ask(s string, n int) string {
	s = strings.TrimSpace(s)
	rs := []rune(s)
	start := 0
	for i := len(rs) - 2; i >= 0; i-- {
		r := rs[i]
		if r == '\n' || r == '?' || r == '!' || r == '。' || r == '？' || r == '！' || (r == '.' && rs[i+1] == ' ') {
			start = i + 1
			break
		}
	}
	ask, _ := Tail(strings.TrimSpace(string(rs[start:])), n)
	return ask
}
