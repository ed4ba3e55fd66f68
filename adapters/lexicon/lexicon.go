package lexicon

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"engram/ports"
)

// lexicon is the loaded data: the concept table, the intents and the Chinese
// function words.
type lexicon struct {
	table   *table
	intents map[string][]string // a trigger (stem or Chinese word) → the words memories of its kind use
	zhStop  map[string]bool
	maxWord int // the longest dictionary word, in runes
	maxStop int // the longest function word
}

func load(an ports.TextAnalyzer) (*lexicon, error) {
	t, err := sharedTable()
	if err != nil {
		return nil, err
	}
	lx := &lexicon{table: t, intents: map[string][]string{}, zhStop: map[string]bool{}, maxWord: t.maxZH}
	for _, line := range dataLines(zhStopText) {
		for _, w := range strings.Fields(line) {
			lx.zhStop[w] = true
			lx.maxStop = max(lx.maxStop, utf8.RuneCountInString(w))
		}
	}
	for _, line := range dataLines(intentsText) {
		_, rule, ok := strings.Cut(line, ":")
		triggers, targets, ok2 := strings.Cut(rule, "=>")
		if !ok || !ok2 {
			continue
		}
		var reach []string
		for _, w := range strings.Fields(targets) {
			reach = append(reach, termsOf(an, w)...)
		}
		for _, w := range strings.Fields(triggers) {
			for _, trig := range triggerKeys(an, w) {
				for _, r := range reach {
					if !slices.Contains(lx.intents[trig], r) {
						lx.intents[trig] = append(lx.intents[trig], r)
					}
				}
			}
		}
	}
	return lx, nil
}

// termsOf is a data word as index terms: a Chinese word's own terms, an English
// word's stem.
func termsOf(an ports.TextAnalyzer, w string) []string {
	if r, _ := utf8.DecodeRuneInString(w); isHan(r) {
		return zhTerms(w)
	}
	return an.Terms(strings.ReplaceAll(w, "-", " "))
}

// triggerKeys is how a trigger word is looked up: a Chinese word as written, an
// English word as its stem (a stop word such as "where" as itself, lower-cased).
func triggerKeys(an ports.TextAnalyzer, w string) []string {
	if r, _ := utf8.DecodeRuneInString(w); isHan(r) {
		return []string{w}
	}
	if terms := an.Terms(strings.ReplaceAll(w, "-", " ")); len(terms) > 0 {
		return terms
	}
	return nil
}

func dataLines(text string) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			out = append(out, line)
		}
	}
	return out
}

// segment cuts a run of Chinese into words, longest dictionary (or function) word
// first at each position; a character in no word stands alone.
func (lx *lexicon) segment(s string) []string {
	runes := []rune(s)
	var out []string
	for i := 0; i < len(runes); {
		n := lx.stopAt(runes[i:])
		for l := min(lx.maxWord, len(runes)-i); n == 0 && l > 1; l-- {
			if _, ok := lx.table.word(string(runes[i : i+l])); ok {
				n = l
			}
		}
		n = max(n, 1)
		out = append(out, string(runes[i:i+n]))
		i += n
	}
	return out
}

// stopAt is the length of the longest function word of two characters or more
// that runes start with, 0 if none: a function word wins over a dictionary word
// that starts with it ("什么地方" is 什么 + 地方, "什么时候" a function word).
func (lx *lexicon) stopAt(runes []rune) int {
	for l := min(lx.maxStop, len(runes)); l > 1; l-- {
		if lx.zhStop[string(runes[:l])] {
			return l
		}
	}
	return 0
}

func isHan(r rune) bool {
	return r >= 0x4E00 && r <= 0x9FFF || r >= 0x3400 && r <= 0x4DBF || r > 0xFFFF && unicode.Is(unicode.Han, r)
}
