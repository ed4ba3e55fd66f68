package instruction

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// normalize rewrites text into the form the rules match: what an attacker changes to
// slip past a word list is undone, what a reader sees is kept.
//
//   - format characters (zero-width spaces and joiners, bidi controls, soft hyphens)
//     are removed: "ig\u200bnore" is "ignore";
//   - full-width ASCII becomes ASCII ("ＳＹＳＴＥＭ：" is "SYSTEM:"), the ideographic
//     space a space, curly quotes straight ones;
//   - Cyrillic and Greek letters that look like Latin ones become those ("іgnоrе"),
//     and so do styled letters (𝐈𝐠𝐧𝐨𝐫𝐞, Ⓘⓖⓝⓞⓡⓔ); the traditional forms of the
//     Chinese characters the rules use become simplified ones ("規則");
//   - inside a word that mixes letters and digits, digits that stand for letters
//     become them ("1gn0re", "pr3vious"); numbers alone are kept;
//   - "*", "~" and underscores that are not inside a word (Markdown emphasis) become
//     spaces; spaces and separators between Chinese characters are removed ("忽 略
//     之 前", "无-视");
//   - runs of spaces become one; "\r" becomes "\n". Letter case is kept, because a
//     few markers are only markers in capitals ("SYSTEM:").
func normalize(text string) string { return normalizeWith(text, leetDigits) }

func normalizeWith(text string, leet map[byte]byte) string {
	var b strings.Builder
	b.Grow(len(text))
	for _, r := range text {
		if r = normalRune(r); r >= 0 {
			b.WriteRune(r)
		}
	}
	s := unleet(emphasisUnderscores(b.String()), leet)
	return joinHan(tidySpaces(s))
}

// normalRune is the form of one character in the normalised text; -1 removes it.
func normalRune(r rune) rune {
	switch {
	case r == '\r' || r == '\n':
		return '\n'
	case unicode.Is(unicode.Cf, r):
		return -1
	case r >= 0xFF01 && r <= 0xFF5E: // full-width ASCII
		return r - 0xFF01 + '!'
	case r == '*' || r == '~' || unicode.IsSpace(r):
		return ' '
	}
	return plainLetter(r)
}

// plainLetter undoes what makes a letter look the same while reading differently:
// curly quotes, traditional characters, look-alike scripts, styled letters.
func plainLetter(r rune) rune {
	switch r {
	case '\u2018', '\u2019', '\u02BC':
		return '\''
	case '\u201C', '\u201D':
		return '"'
	}
	if s, ok := simplified[r]; ok {
		return s
	}
	if l, ok := lookalikes[r]; ok {
		return l
	}
	if l, ok := styledLetter(r); ok {
		return l
	}
	return r
}

// leetL reads 1 as l ("ru1es"); the other digits as leetDigits does. Only ASCII
// bytes change, so offsets into either reading are the same.
var leetL = map[byte]byte{'0': 'o', '1': 'l', '3': 'e', '4': 'a', '5': 's', '7': 't', '8': 'b'}

// hanSeparators are what may be put between Chinese characters to break up a word
// ("忽-略", "忽.略", "忽|略"); Chinese needs none of them inside a sentence.
const hanSeparators = "-_.·・*~|/\\'`"

// joinHan removes runs of hanSeparators (and spaces) between two Chinese characters.
func joinHan(s string) string {
	if !strings.ContainsAny(s, hanSeparators) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	runes := []rune(s)
	for i := 0; i < len(runes); i++ {
		r := runes[i]
		if (r == ' ' || strings.ContainsRune(hanSeparators, r)) && i > 0 && isHan(runes[i-1]) {
			j, marks := i, 0
			for j < len(runes) && (runes[j] == ' ' || strings.ContainsRune(hanSeparators, runes[j])) {
				if runes[j] != ' ' {
					marks++
				}
				j++
			}
			// One mark breaks up a word ("忽-略"); a run of them ("---") is a line.
			if j < len(runes) && isHan(runes[j]) && marks <= 1 {
				i = j - 1
				continue
			}
		}
		b.WriteRune(r)
	}
	return b.String()
}

// lookalikes maps Cyrillic and Greek letters that render like Latin ones.
var lookalikes = map[rune]rune{
	'а': 'a', 'е': 'e', 'о': 'o', 'р': 'p', 'с': 'c', 'х': 'x', 'у': 'y', 'і': 'i', 'ј': 'j', 'ѕ': 's', 'ԁ': 'd', 'һ': 'h', 'ɡ': 'g',
	'А': 'A', 'В': 'B', 'Е': 'E', 'К': 'K', 'М': 'M', 'Н': 'H', 'О': 'O', 'Р': 'P', 'С': 'C', 'Т': 'T', 'Х': 'X', 'І': 'I', 'Ѕ': 'S',
	'ο': 'o', 'α': 'a', 'ε': 'e', 'ι': 'i', 'κ': 'k', 'ν': 'v', 'ρ': 'p', 'τ': 't', 'υ': 'u',
	'Α': 'A', 'Β': 'B', 'Ε': 'E', 'Ι': 'I', 'Κ': 'K', 'Μ': 'M', 'Ν': 'N', 'Ο': 'O', 'Ρ': 'P', 'Τ': 'T', 'Χ': 'X', 'Υ': 'Y',
}

// simplified maps the traditional forms of the characters the Chinese word lists use
// to their simplified ones ("無視你的規則" is "无视你的规则"). It is not a converter:
// only what the rules need.
var simplified = func() map[rune]rune {
	pairs := "規规則则無无視视統统設设製制過过濾滤審审開开發发員员詞词記记憶忆對对話话錄录聯联絡络資资傳传給给這这個个們们實实體体盡尽請请為为於于與与從从現现後后時时說说讓让還还會会麼么邊边機机權权限限變变準准護护欄栏禁禁區区態态戲戏裝装圖图網网鏈链址址廣广告告輸输應应訊讯息息隱隐藏藏級级權权管管試试鐘钟專专業业應应檢检測测"
	m := map[rune]rune{}
	rs := []rune(pairs)
	for i := 0; i+1 < len(rs); i += 2 {
		if rs[i] != rs[i+1] {
			m[rs[i]] = rs[i+1]
		}
	}
	return m
}()

const (
	upperLatin = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	lowerLatin = "abcdefghijklmnopqrstuvwxyz"
	digits     = "0123456789"
)

// styledRanges are the blocks of styled Latin letters and digits that Unicode keeps
// for mathematics and decoration, in ascending order, each with the plain
// characters it repeats: a rune stands for plain[(r-lo) % len(plain)].
var styledRanges = []struct {
	lo, hi rune
	plain  string
}{
	{0x249C, 0x24B5, lowerLatin},                // ⒜
	{0x24B6, 0x24CF, upperLatin},                // Ⓐ
	{0x24D0, 0x24E9, lowerLatin},                // ⓐ
	{0x1D400, 0x1D6A3, upperLatin + lowerLatin}, // 𝐈𝐠: bold, italic, script, fraktur, double-struck, sans, mono
	{0x1D7CE, 0x1D7FF, digits},                  // the same styles of digits
	{0x1F130, 0x1F149, upperLatin},              // 🄰
	{0x1F150, 0x1F169, upperLatin},              // 🅐
	{0x1F170, 0x1F189, upperLatin},              // 🅰
	{0x1F1E6, 0x1F1FF, upperLatin},              // regional indicators
}

// styledLetter maps a styled letter or digit (𝐈𝐠𝐧𝐨𝐫𝐞, Ⓘⓖⓝ, 🅸) to the plain one.
func styledLetter(r rune) (rune, bool) {
	for _, sr := range styledRanges {
		if r < sr.lo {
			break // ascending: no later block holds it either
		}
		if r <= sr.hi {
			return rune(sr.plain[int(r-sr.lo)%len(sr.plain)]), true
		}
	}
	return 0, false
}

// emphasisUnderscores turns "_" into a space unless it joins two letters or digits
// ("im_start", "memory_save" stay; "__ignore__" is "  ignore  ").
func emphasisUnderscores(s string) string {
	if !strings.Contains(s, "_") {
		return s
	}
	b := []byte(s)
	for i, c := range b {
		if c != '_' {
			continue
		}
		before, _ := utf8.DecodeLastRuneInString(s[:i])
		after, _ := utf8.DecodeRuneInString(s[i+1:])
		if !isAlnum(before) || !isAlnum(after) {
			b[i] = ' '
		}
	}
	return string(b)
}

// leetDigits are the digits that stand for letters inside words.
var leetDigits = map[byte]byte{'0': 'o', '1': 'i', '3': 'e', '4': 'a', '5': 's', '7': 't', '8': 'b'}

// unleet maps digits to letters inside ASCII words of at least two letters that also
// hold a digit ("1gn0re", "instruct1ons"). Numbers, "3pm" or "mp3" may change too;
// nothing is stored from this text, and no rule is written around such words.
func unleet(s string, leet map[byte]byte) string {
	b := []byte(s)
	changed := false
	for i := 0; i < len(b); {
		if !isASCIIAlnum(b[i]) {
			i++
			continue
		}
		j, letters, digits := i, 0, 0
		for j < len(b) && isASCIIAlnum(b[j]) {
			if b[j] >= '0' && b[j] <= '9' {
				digits++
			} else {
				letters++
			}
			j++
		}
		if letters >= 2 && digits > 0 {
			for k := i; k < j; k++ {
				if l, ok := leet[b[k]]; ok {
					b[k] = l
					changed = true
				}
			}
		}
		i = j
	}
	if !changed {
		return s
	}
	return string(b)
}

// tidySpaces collapses runs of spaces, trims them around line breaks and removes
// them between two Chinese characters.
func tidySpaces(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	pending := false
	var last rune
	for _, r := range s {
		if r == ' ' {
			pending = true
			continue
		}
		if pending && last != 0 && last != '\n' && r != '\n' && !(isHan(last) && isHan(r)) {
			b.WriteByte(' ')
		}
		pending = false
		b.WriteRune(r)
		last = r
	}
	return b.String()
}

// squashed is text with everything but letters and digits removed and lower-cased,
// with the offset in text of each of its bytes.
type squashed struct {
	text    string
	offsets []int
}

// squash builds the view that long phrases are looked up in: "i g n o r e  a l l
// p r e v i o u s" and "ignore_all-previous" are both "ignoreallprevious".
func squash(text string) squashed {
	var b strings.Builder
	b.Grow(len(text))
	offsets := make([]int, 0, len(text))
	for i, r := range text {
		if !isAlnum(r) {
			continue
		}
		r = unicode.ToLower(r)
		n := utf8.RuneLen(r)
		b.WriteRune(r)
		for range n {
			offsets = append(offsets, i)
		}
	}
	return squashed{text: b.String(), offsets: offsets}
}

func isAlnum(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

func isASCIIAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func isHan(r rune) bool { return r >= 0x2E80 && unicode.Is(unicode.Han, r) }
