package textanalysis

import (
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/kljensen/snowball/english"

	"engram/ports"
)

var _ ports.TextAnalyzer = (*Analyzer)(nil)

// Kind says what a token is.
type Kind uint8

const (
	KindWord   Kind = iota // a run of letters and digits with at least one letter
	KindNumber             // a run of digits
	KindCJK                // a character bigram (or a lone character) of Han, kana or Hangul
)

// Token is one unit of analysed text.
type Token struct {
	// Surface is the lower-cased word as written, apostrophes removed; for CJK the
	// bigram or lone character itself.
	Surface string
	// Term is what an index stores: the English stem for words, Surface otherwise.
	Term string
	Kind Kind
	// Stop is true for English stop words; Terms leaves them out.
	Stop bool
}

// Options choose the analysis. The zero value is the product's default.
type Options struct {
	// NoStem keeps words unstemmed ("running" stays "running").
	NoStem bool
	// KeepStopWords keeps English stop words in Terms.
	KeepStopWords bool
	// CJKBigramsOnly leaves out the single CJK characters that are emitted by
	// default besides the bigrams (see the package doc for the measurement).
	CJKBigramsOnly bool
}

// Analyzer is safe for concurrent use. Build it with New; it holds a bounded cache
// of stems because the stemmer allocates and vocabularies repeat.
type Analyzer struct {
	opts  Options
	stems *stemCache
}

// New returns an analyzer with the given options.
func New(opts Options) *Analyzer {
	return &Analyzer{opts: opts, stems: newStemCache(1 << 16)}
}

// Terms returns the index terms of text: stems of the words that are not stop
// words, numbers as written, and CJK characters and bigrams, in order, repeats kept.
func (a *Analyzer) Terms(text string) []string {
	terms := make([]string, 0, capacityFor(text))
	a.Analyze(text, func(t Token) {
		if !t.Stop || a.opts.KeepStopWords {
			terms = append(terms, t.Term)
		}
	})
	return terms
}

// capacityFor guesses the number of terms so that Terms allocates once: an English
// word is about six bytes, while a CJK character (three bytes) yields up to two terms.
func capacityFor(text string) int {
	for i := 0; i < len(text); i++ {
		if text[i] >= utf8.RuneSelf {
			return len(text)*2/3 + 1
		}
	}
	return len(text)/5 + 1
}

// Analyze calls emit for every token of text in order, stop words included (marked).
// It allocates only the strings of new words.
//
// A word runs while letters and digits follow (an apostrophe between letters stays
// inside it), a CJK run while CJK characters follow; anything else ends both.
func (a *Analyzer) Analyze(text string, emit func(Token)) {
	var (
		word    []byte // the current word, lower-cased
		letters bool   // the current word has a letter
		cjk     []int  // byte offsets of the current run of CJK characters, and its end
		buf     [64]byte
		cjkBuf  [64]int
	)
	word = buf[:0]
	cjk = cjkBuf[:0]
	flushWord := func() {
		if len(word) == 0 {
			return
		}
		a.emitWord(word, letters, emit)
		word = word[:0]
		letters = false
	}
	flushCJK := func() {
		if len(cjk) == 0 {
			return
		}
		a.emitCJK(text, cjk, emit)
		cjk = cjk[:0]
	}
	for i := 0; i < len(text); {
		r, size := rune(text[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(text[i:])
		}
		next := i + size
		switch {
		case r < utf8.RuneSelf && asciiWord[r] != 0: // most of every text
			word = append(word, asciiWord[r])
			letters = letters || r > '9'
			flushCJK()
		case r >= utf8.RuneSelf && isCJK(r):
			flushWord()
			cjk = extendRun(cjk, i, next)
		case letters && apostropheInWord(r, text[next:]):
			word = append(word, '\'')
		default:
			if w, letter := wordRune(r); w >= 0 {
				word = utf8.AppendRune(word, w)
				letters = letters || letter
			} else {
				flushWord()
			}
			flushCJK()
		}
		i = next
	}
	flushWord()
	flushCJK()
}

// extendRun adds the character at text[at:next] to a run of CJK characters: the
// run holds each character's offset and then the end of the last.
func extendRun(run []int, at, next int) []int {
	if len(run) == 0 {
		run = append(run, at)
	}
	return append(run, next)
}

// apostropheInWord reports whether an apostrophe r, in a word that has a letter,
// keeps the word going ("don't", "O’Brien"): only when a letter follows.
func apostropheInWord(r rune, rest string) bool {
	return (r == '\'' || r == '’') && rest != "" && isWordRune(rest)
}

// wordRune is r as it goes into a word, lower-cased, when it belongs in one (a
// letter, a combining mark or a digit), and whether it counts as a letter; -1 when
// it ends a word.
func wordRune(r rune) (rune, bool) {
	switch {
	case unicode.IsLetter(r) || unicode.IsMark(r):
		return unicode.ToLower(r), true
	case unicode.IsDigit(r):
		return r, false
	}
	return -1, false
}

// asciiWord is wordRune for ASCII as a table, 0 for what ends a word: A-Z as a-z,
// a-z and 0-9 as they are.
var asciiWord = func() (t [utf8.RuneSelf]byte) {
	for c := byte('a'); c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = c, c
	}
	for c := byte('0'); c <= '9'; c++ {
		t[c] = c
	}
	return t
}()

func (a *Analyzer) emitWord(word []byte, letters bool, emit func(Token)) {
	if !letters {
		s := string(word)
		emit(Token{Surface: s, Term: s, Kind: KindNumber})
		return
	}
	// Possessives: "Caroline's" is about Caroline.
	if n := len(word); n > 2 && word[n-2] == '\'' && word[n-1] == 's' {
		word = word[:n-2]
	}
	interned, stop := stopWord(word)
	if i := indexByte(word, '\''); i >= 0 {
		word = removeApostrophes(word)
		if !stop {
			interned, stop = stopWord(word)
		}
	}
	if stop {
		emit(Token{Surface: interned, Term: interned, Kind: KindWord, Stop: true})
		return
	}
	if a.opts.NoStem {
		s := string(word)
		emit(Token{Surface: s, Term: s, Kind: KindWord})
		return
	}
	surface, term := a.stems.get(word)
	emit(Token{Surface: surface, Term: term, Kind: KindWord})
}

// emitCJK emits the characters and bigrams of one run of CJK characters, in
// reading order ("品茶" → 品, 品茶, 茶); offsets holds the byte
// offset of each character and then the run's end, so every token is a substring
// of text and costs no allocation.
func (a *Analyzer) emitCJK(text string, offsets []int, emit func(Token)) {
	chars := len(offsets) - 1
	if chars == 1 {
		s := text[offsets[0]:offsets[1]]
		emit(Token{Surface: s, Term: s, Kind: KindCJK})
		return
	}
	for i := 0; i+1 < chars; i++ {
		if !a.opts.CJKBigramsOnly {
			s := text[offsets[i]:offsets[i+1]]
			emit(Token{Surface: s, Term: s, Kind: KindCJK})
		}
		s := text[offsets[i]:offsets[i+2]]
		emit(Token{Surface: s, Term: s, Kind: KindCJK})
	}
	if !a.opts.CJKBigramsOnly {
		s := text[offsets[chars-1]:offsets[chars]]
		emit(Token{Surface: s, Term: s, Kind: KindCJK})
	}
}

// isCJK reports the scripts written without spaces between words (Han, kana) and
// Hangul, whose words are best matched by character bigrams.
func isCJK(r rune) bool {
	switch {
	case r < 0x1100:
		return false
	case r >= 0x4E00 && r <= 0x9FFF, r >= 0x3041 && r <= 0x30FA, r >= 0xAC00 && r <= 0xD7A3:
		return true // the common blocks, without a table search
	}
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) ||
		unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r)
}

// isWordRune reports whether s starts with a letter that may continue a word after
// an apostrophe ("don't", "O’Brien").
func isWordRune(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsLetter(r) && !isCJK(r)
}

func indexByte(b []byte, c byte) int {
	for i, x := range b {
		if x == c {
			return i
		}
	}
	return -1
}

func removeApostrophes(word []byte) []byte {
	out := word[:0]
	for _, c := range word {
		if c != '\'' {
			out = append(out, c)
		}
	}
	return out
}

// stemCache remembers the stems of recent words. When full it starts again: a
// simple bound that costs one re-stem per word after a reset, never unbounded memory.
type stemCache struct {
	mu    sync.RWMutex
	max   int
	stems map[string]stemEntry
}

type stemEntry struct{ surface, stem string }

func newStemCache(max int) *stemCache {
	return &stemCache{max: max, stems: make(map[string]stemEntry, 1024)}
}

func (c *stemCache) get(word []byte) (surface, stem string) {
	c.mu.RLock()
	e, ok := c.stems[string(word)]
	c.mu.RUnlock()
	if ok {
		return e.surface, e.stem
	}
	surface = string(word)
	stem = surface
	if len(word) > 2 && isASCII(word) {
		stem = english.Stem(surface, true)
	}
	c.mu.Lock()
	if len(c.stems) >= c.max {
		c.stems = make(map[string]stemEntry, 1024)
	}
	c.stems[surface] = stemEntry{surface: surface, stem: stem}
	c.mu.Unlock()
	return surface, stem
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
