package pinyin

import "testing"

func TestSyllable(t *testing.T) {
	t.Parallel()
	r := New()
	for ch, want := range map[rune]string{'小': "xiao", '明': "ming", '王': "wang", '欧': "ou", '阳': "yang", '娜': "na", '绿': "lv", 'a': "", '1': "", '🙂': ""} {
		if got := r.Syllable(ch); got != want {
			t.Errorf("Syllable(%q) = %q, want %q", ch, got, want)
		}
	}
}
