package profile

import (
	"strings"
	"time"
	"unicode"
)

// fakeTerms stands in for adapters/textanalysis: lower-cased words with a naive
// stem (trailing "s" and "ing" cut), a few stop words, and CJK runs cut into
// characters and overlapping bigrams, as the real analyser does.
func fakeTerms(text string) []string {
	stop := map[string]bool{"the": true, "a": true, "to": true, "i": true, "my": true, "for": true, "and": true, "is": true, "on": true, "of": true, "me": true}
	var out []string
	var word []rune
	var cjk []rune
	flushWord := func() {
		if len(word) == 0 {
			return
		}
		w := strings.ToLower(string(word))
		word = word[:0]
		if stop[w] {
			return
		}
		w = strings.TrimSuffix(w, "ing")
		if len(w) > 3 {
			w = strings.TrimSuffix(w, "s")
		}
		out = append(out, w)
	}
	flushCJK := func() {
		for i, r := range cjk {
			out = append(out, string(r))
			if i+1 < len(cjk) {
				out = append(out, string(cjk[i:i+2]))
			}
		}
		cjk = cjk[:0]
	}
	for _, r := range text {
		switch {
		case unicode.Is(unicode.Han, r):
			flushWord()
			cjk = append(cjk, r)
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			flushCJK()
			word = append(word, r)
		default:
			flushWord()
			flushCJK()
		}
	}
	flushWord()
	flushCJK()
	return out
}

var testNow = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

// at is a time on testNow's day minus daysAgo, at hh:mm in loc.
func at(daysAgo, hh, mm int, loc *time.Location) time.Time {
	d := testNow.In(loc).AddDate(0, 0, -daysAgo)
	return time.Date(d.Year(), d.Month(), d.Day(), hh, mm, 0, 0, loc)
}

func mustZone(name string) *time.Location {
	loc, err := time.LoadLocation(name)
	if err != nil {
		panic(err)
	}
	return loc
}
