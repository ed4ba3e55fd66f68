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
