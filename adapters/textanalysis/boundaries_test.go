package textanalysis

import (
	"reflect"
	"testing"
)

// Where a word ends decides every index term: these cases pin the boundaries the
// scanner draws between words, numbers, apostrophes and CJK runs.
func TestTerms_wordBoundaries(t *testing.T) {
	t.Parallel()
	raw := Options{NoStem: true, KeepStopWords: true, CJKBigramsOnly: true}
	for _, tc := range []struct {
		name string
		text string
		want []string
	}{
		{"apostrophe at the end of a word is a boundary", "dogs' toys", []string{"dogs", "toys"}},
		{"apostrophe before a digit is a boundary", "rock'n'roll '90s it'9", []string{"rocknroll", "90s", "it", "9"}},
		{"apostrophe after digits only is a boundary", "90's", []string{"90", "s"}},
		{"typographic apostrophe at the end is a boundary", "James’ book", []string{"james", "book"}},
		{"apostrophe before CJK is a boundary", "it'茶", []string{"it", "茶"}},
		{"combining marks stay in the word", "cafe\u0301 ok", []string{"cafe\u0301", "ok"}},
		{"non-ASCII digits join words", "a١٢ ٣", []string{"a١٢", "٣"}},
		{"CJK right after a word ends it", "abc茶叶def", []string{"abc", "茶叶", "def"}},
		{"a digit right after CJK starts a number", "茶叶12", []string{"茶叶", "12"}},
		{"hangul is CJK", "한국어 text", []string{"한국", "국어", "text"}},
		{"symbols and emoji split", "a+b🙂c_d", []string{"a", "b", "c", "d"}},
		{"upper-case non-ASCII is lower-cased", "ÀB Σ", []string{"àb", "σ"}},
		{"invalid UTF-8 splits", "ab\xffcd", []string{"ab", "cd"}},
	} {
		if got := New(raw).Terms(tc.text); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: Terms(%q) = %q, want %q", tc.name, tc.text, got, tc.want)
		}
	}
}
