package candidate

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file holds the small text toolkit the boundaries, the pre-filter, the grounding
// check and the similarity share. It is deliberately crude and deterministic: no
// dictionaries beyond short word lists, no stemming beyond a few English suffixes,
// and CJK text handled as characters and character bigrams, which is what works for
// Chinese without a segmenter.

// Fold makes text easier to match without changing what it says: full-width ASCII
// forms (，？！：；（）) become ASCII, the ideographic space becomes a space, curly quotes
// become straight ones. Case is kept. Byte offsets change, so match on the result.
func Fold(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case r >= 0xFF01 && r <= 0xFF5E:
			b.WriteRune(r - 0xFF01 + '!')
		case r == 0x3000:
			b.WriteByte(' ')
		case r == '\u2018' || r == '\u2019' || r == '\u02BC':
			b.WriteByte('\'')
		case r == '\u201C' || r == '\u201D':
			b.WriteByte('"')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// lowerASCII lower-cases A-Z only, so byte offsets of the result match the input.
func lowerASCII(s string) string {
	hasUpper := false
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			hasUpper = true
			break
		}
	}
	if !hasUpper {
		return s
	}
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + ('a' - 'A')
		}
	}
	return string(b)
}

// IsCJK reports whether r is a Han, kana or Hangul character.
func IsCJK(r rune) bool {
	if r < 0x1100 { // below Hangul Jamo: Latin, Greek, Cyrillic… (the hot path)
		return false
	}
	return unicode.Is(unicode.Han, r) || unicode.In(r, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// HasCJK reports whether s holds a Han, kana or Hangul character.
func HasCJK(s string) bool { return hasCJK(s) }

func hasCJK(s string) bool {
	for _, r := range s {
		if IsCJK(r) {
			return true
		}
	}
	return false
}

// cjkShare is the share of letters in s that are CJK, 0 when s has no letters.
func cjkShare(s string) float64 {
	var cjk, letters int
	for _, r := range s {
		switch {
		case IsCJK(r):
			cjk++
			letters++
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			letters++
		}
	}
	if letters == 0 {
		return 0
	}
	return float64(cjk) / float64(letters)
}

// contentRunes counts letters, digits and CJK characters.
func contentRunes(s string) int {
	n := 0
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			n++
		}
	}
	return n
}

// words splits lower-cased ASCII-folded text into runs of letters, digits and
// apostrophes outside CJK ("i'm", "don't").
func words(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'') || IsCJK(r)
	})
}

// containsWord reports whether phrase occurs in s at word boundaries (for Latin text;
// a CJK phrase matches anywhere, since Chinese has no spaces).
func containsWord(s, phrase string) bool {
	if phrase == "" {
		return false
	}
	if phrase[0] >= utf8.RuneSelf && hasCJK(phrase) {
		return strings.Contains(s, phrase)
	}
	for from := 0; ; {
		i := strings.Index(s[from:], phrase)
		if i < 0 {
			return false
		}
		i += from
		end := i + len(phrase)
		if boundaryBefore(s, i) && boundaryAfter(s, end) {
			return true
		}
		from = i + 1
	}
}

func boundaryBefore(s string, i int) bool {
	if i == 0 {
		return true
	}
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return !isWordRune(r)
}

func boundaryAfter(s string, end int) bool {
	if end >= len(s) {
		return true
	}
	r, _ := utf8.DecodeRuneInString(s[end:])
	return !isWordRune(r)
}

func isWordRune(r rune) bool {
	return (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'') && !IsCJK(r)
}

// firstWordMatch returns the first phrase of the list found in s, or "".
func firstWordMatch(s string, phrases []string) string {
	for _, p := range phrases {
		if containsWord(s, p) {
			return p
		}
	}
	return ""
}

// hasPrefixWord reports whether s starts with phrase followed by a word boundary.
func hasPrefixWord(s, phrase string) bool {
	if !strings.HasPrefix(s, phrase) {
		return false
	}
	if phrase[0] >= utf8.RuneSelf && hasCJK(phrase) {
		return true
	}
	return boundaryAfter(s, len(phrase))
}

func firstPrefixWord(s string, phrases []string) string {
	for _, p := range phrases {
		if hasPrefixWord(s, p) {
			return p
		}
	}
	return ""
}

// Sentences splits text at sentence ends, keeping each terminator with its
// sentence (a final "?" marks a question). Fold the text first.
func Sentences(s string) []string { return sentences(s) }

// LowerASCII lower-cases A-Z only, so byte offsets of the result match the input and
// a match found in the lower-cased copy can be cut from the original.
func LowerASCII(s string) string { return lowerASCII(s) }

// sentences splits text at sentence ends (. ! ? ; 。 and newlines). A period only
// ends a sentence before a space, a CJK character or the end, so "3.5" and "e.g"
// inside words survive.
func sentences(s string) []string {
	var out []string
	start := 0
	emit := func(end int) {
		if part := strings.TrimSpace(s[start:end]); part != "" {
			out = append(out, part)
		}
	}
	for i, r := range s {
		cut := false
		width := utf8.RuneLen(r)
		switch r {
		case '!', '?', ';', '\n', '。', '…', '！', '？', '；':
			cut = true
		case '.':
			next, _ := utf8.DecodeRuneInString(s[i+width:])
			cut = i+width >= len(s) || unicode.IsSpace(next) || IsCJK(next) || next == '"'
		}
		if cut {
			// Keep the terminator with its sentence: "?" marks a question.
			emit(i + width)
			start = i + width
		}
	}
	emit(len(s))
	return out
}

// clauses splits a sentence at commas, colons and dashes.
func clauses(s string) []string {
	parts := strings.FieldsFunc(s, func(r rune) bool {
		switch r {
		case ',', ':', '，', '：', '—', '(', ')', '"':
			return true
		}
		return false
	})
	out := parts[:0]
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// trimPunct removes punctuation and spaces from both ends.
func trimPunct(s string) string {
	return strings.TrimFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsPunct(r) || unicode.IsSymbol(r)
	})
}

// englishStop are words that carry no content for overlap measures: function words
// and the third-person frame LLM extractors wrap facts in ("User prefers …").
var englishStop = toSet(strings.Fields(`
a an the and or but if then else of to in on at by for with from as into about over
under than so too very really quite just also only even still is am are was were be
been being do does did done have has had having will would shall should can could may
might must i me my mine myself you your yours we us our they them their he him his she
her it its this that these those there here what which who whom whose when where why
how not no nor all any some each every more most much many such own same other s t
user user's users they'd i'm i've i'd i'll you're it's that's don't doesn't didn't
wants want prefers prefer likes like said says`))

// cjkStop are characters that glue Chinese sentences together without carrying what a
// memory is about. They split CJK runs before bigrams are taken.
var cjkStop = toSet(strings.Split("的了是我你他她它们在和与也都很就还吧呢啊吗着把被让给这那个些其之而及或又地得么呀哦嘛啦真挺太超", ""))

// cjkFrames are multi-character words LLM output wraps Chinese facts in.
// Degree adverbs go with them: "很喜欢川菜" and "喜欢川菜" say the same thing.
var cjkFrames = []string{"用户", "使用者", "非常", "特别", "比较", "十分", "相当"}

func toSet(list []string) map[string]bool {
	m := make(map[string]bool, len(list))
	for _, w := range list {
		m[w] = true
	}
	return m
}

// stem strips a few English inflections so "peanuts"/"peanut" and "likes"/"liked"
// meet. It only needs to be consistent, not linguistically right.
func stem(w string) string {
	w = strings.TrimSuffix(w, "'s")
	w = strings.Trim(w, "'")
	switch {
	case len(w) > 4 && strings.HasSuffix(w, "ies"):
		return w[:len(w)-3] + "y"
	case len(w) > 4 && strings.HasSuffix(w, "sses"):
		return w[:len(w)-2]
	case len(w) > 5 && strings.HasSuffix(w, "ing"):
		return w[:len(w)-3]
	case len(w) > 4 && strings.HasSuffix(w, "ed"):
		return w[:len(w)-2]
	case len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us"):
		return w[:len(w)-1]
	}
	return w
}

// Terms turns text into the set of content terms used by Similarity and Grounded:
// lower-cased, stemmed Latin words without stop words, and for CJK runs every
// character and every adjacent pair (runs are cut at glue characters such as 的 and
// 了). Numbers are terms too, so "May 5" and "May 6" differ.
func Terms(s string) map[string]bool {
	s = lowerASCII(Fold(s))
	for _, f := range cjkFrames {
		s = strings.ReplaceAll(s, f, " ")
	}
	out := make(map[string]bool)
	var run []rune
	flush := func() {
		for i, r := range run {
			out[string(r)] = true
			if i > 0 {
				out[string(run[i-1:i+1])] = true
			}
		}
		run = run[:0]
	}
	var word strings.Builder
	flushWord := func() {
		if word.Len() == 0 {
			return
		}
		w := strings.ToLower(word.String())
		word.Reset()
		if englishStop[w] {
			return
		}
		if w = stem(w); w != "" && !englishStop[w] {
			out[w] = true
		}
	}
	for _, r := range s {
		switch {
		case IsCJK(r):
			flushWord()
			if cjkStop[string(r)] {
				flush()
				continue
			}
			run = append(run, r)
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'':
			flush()
			word.WriteRune(r)
		default:
			flush()
			flushWord()
		}
	}
	flush()
	flushWord()
	return out
}

func quote(s string) string { return strconv.Quote(s) }

func itoa(n int) string { return strconv.Itoa(n) }

func ftoa(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
