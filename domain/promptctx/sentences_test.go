package promptctx_test

import (
	"slices"
	"strings"
	"testing"

	"engram/domain/promptctx"
)

func TestSplitSentences_keepsEveryCharacterAndCutsAtSentenceEnds(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"one sentence", []string{"one sentence"}},
		{"Version 3.5 ships. Then docs! Done?", []string{"Version 3.5 ships. ", "Then docs! ", "Done?"}},
		{"用户在准备汇报。他说“好的。”然后走了；明天再谈", []string{"用户在准备汇报。", "他说“好的。”", "然后走了；", "明天再谈"}},
		{"line one\nline two\n", []string{"line one\n", "line two\n"}},
	} {
		got := promptctx.SplitSentences(tc.in)
		if !slices.Equal(got, tc.want) {
			t.Errorf("SplitSentences(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if strings.Join(got, "") != tc.in {
			t.Errorf("SplitSentences(%q) lost characters: %q", tc.in, got)
		}
	}
}
