package textanalysis

import (
	"reflect"
	"strings"
	"testing"
)

func TestTerms(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		opts Options
		text string
		want []string
	}{
		{"stems and drops stop words", Options{}, "I went running with the dogs", []string{"went", "run", "dog"}},
		{"lower-cases unicode", Options{}, "ÉCOLE Straße", []string{"école", "straße"}},
		{"keeps numbers", Options{}, "Born in 1990, 3 kids", []string{"born", "1990", "3", "kid"}},
		{"drops possessive s", Options{}, "Caroline's painting", []string{"carolin", "paint"}},
		{"contractions are stop words", Options{}, "I'm sure you're right, don't worry", []string{"sure", "right", "worri"}},
		{"typographic apostrophe", Options{}, "Melanie’s kids don’t", []string{"melani", "kid"}},
		{"ambiguous contraction forms stay words", Options{}, "a sea shell, she was ill", []string{"sea", "shell", "ill"}},
		{"no stemming", Options{NoStem: true}, "running dogs", []string{"running", "dogs"}},
		{"keep stop words", Options{KeepStopWords: true, NoStem: true}, "the dog", []string{"the", "dog"}},
		{"chinese characters and bigrams", Options{}, "我喜欢绘画", []string{"我", "我喜", "喜", "喜欢", "欢", "欢绘", "绘", "绘画", "画"}},
		{"chinese bigrams only", Options{CJKBigramsOnly: true}, "我喜欢绘画", []string{"我喜", "喜欢", "欢绘", "绘画"}},
		{"lone han character", Options{}, "茶", []string{"茶"}},
		{"chinese punctuation splits runs", Options{CJKBigramsOnly: true}, "你好，世界", []string{"你好", "世界"}},
		{"mixed chinese and english", Options{CJKBigramsOnly: true}, "我在学Python编程", []string{"我在", "在学", "python", "编程"}},
		{"two characters", Options{}, "品茶", []string{"品", "品茶", "茶"}},
		{"japanese kana", Options{CJKBigramsOnly: true}, "ありがとう", []string{"あり", "りが", "がと", "とう"}},
		{"letters and digits join", Options{}, "mp3 player", []string{"mp3", "player"}},
		{"empty", Options{}, "  ,,, ", []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := New(tt.opts).Terms(tt.text)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Terms(%q) = %q, want %q", tt.text, got, tt.want)
			}
		})
	}
}

func TestAnalyze_marksStopWordsAndKinds(t *testing.T) {
	t.Parallel()
	var got []Token
	New(Options{}).Analyze("The 2 cats 喝茶", func(tok Token) { got = append(got, tok) })
	want := []Token{
		{Surface: "the", Term: "the", Kind: KindWord, Stop: true},
		{Surface: "2", Term: "2", Kind: KindNumber},
		{Surface: "cats", Term: "cat", Kind: KindWord},
		{Surface: "喝", Term: "喝", Kind: KindCJK},
		{Surface: "喝茶", Term: "喝茶", Kind: KindCJK},
		{Surface: "茶", Term: "茶", Kind: KindCJK},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Analyze = %+v, want %+v", got, want)
	}
}

func TestTerms_concurrentUseAgrees(t *testing.T) {
	t.Parallel()
	a := New(Options{})
	text := strings.Repeat("Caroline went to the LGBTQ support group yesterday. ", 4)
	want := a.Terms(text)
	done := make(chan []string, 8)
	for range 8 {
		go func() { done <- a.Terms(text) }()
	}
	for range 8 {
		if got := <-done; !reflect.DeepEqual(got, want) {
			t.Fatalf("concurrent Terms = %q, want %q", got, want)
		}
	}
}

func TestStemCache_staysBounded(t *testing.T) {
	t.Parallel()
	c := newStemCache(4)
	for _, w := range []string{"apples", "pears", "plums", "grapes", "cherries", "lemons"} {
		c.get([]byte(w))
	}
	if n := len(c.stems); n > 4 {
		t.Errorf("cache holds %d entries, want at most 4", n)
	}
	if _, stem := c.get([]byte("cherries")); stem != "cherri" {
		t.Errorf("stem after reset = %q, want cherri", stem)
	}
}

var (
	benchEnglish = "Melanie: Hey Caroline! I'm swamped with the kids & work. We went camping at the beach last weekend and roasted marshmallows; the kids loved it. What's up with you?"
	benchChinese = "我今天去了绿禾公园散步，看到了一朵开得特别美的樱花，还有一只超级可爱的松鼠！回家以后我弹了一会儿钢琴，又泡了一壶龙井茶，感觉很放松。明天打算去图书馆看看有没有新的绘画书。"
)

func BenchmarkTerms(b *testing.B) {
	for _, bc := range []struct{ name, text string }{
		{"english_200", benchEnglish[:160] + " " + benchEnglish[:39]},
		{"chinese_200runes", string([]rune(benchChinese + benchChinese + benchChinese)[:200])},
	} {
		a := New(Options{})
		a.Terms(bc.text) // warm the stem cache, as a running service has it
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.text)))
			b.ReportAllocs()
			for b.Loop() {
				a.Terms(bc.text)
			}
		})
	}
}
