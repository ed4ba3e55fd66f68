package clip_test

import (
	"testing"

	"engram/domain/clip"
)

func TestRunes_cutsByCharactersAndMarksTheCut(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"", 3, ""},
		{"abc", 3, "abc"},
		{"abcd", 3, "ab…"},
		{"用户画像", 4, "用户画像"},
		{"用户画像块", 4, "用户画…"},
		{"ab", 1, "…"},
	} {
		if got := clip.Runes(tc.in, tc.n); got != tc.want {
			t.Errorf("Runes(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}

func TestTail_keepsTheEndAndNoWordFragment(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		n    int
		want string
		cut  bool
	}{
		{"short", 10, "short", false},
		{"error at line 3 what does it mean", 13, "does it mean", true},
		{"日志很长很长。这是什么意思？", 7, "这是什么意思？", true},
		{"abcdefghij", 4, "ghij", true}, // one word: its end rather than nothing
	} {
		got, cut := clip.Tail(tc.in, tc.n)
		if got != tc.want || cut != tc.cut {
			t.Errorf("Tail(%q, %d) = %q, %v; want %q, %v", tc.in, tc.n, got, cut, tc.want, tc.cut)
		}
	}
}

func TestAsk_isTheLastSentence(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"INFO ok INFO ok. When is the release?", "When is the release?"},
		{"line one\nline two\nwhat does it mean?", "what does it mean?"},
		{"日志很长。这是什么意思？", "这是什么意思？"},
		{"no sentence end at all", "no sentence end at all"},
	} {
		if got := clip.Ask(tc.in, 300); got != tc.want {
			t.Errorf("Ask(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
