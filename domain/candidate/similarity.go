package candidate

import (
	"math"
	"strings"
	"unicode"
)

// Similarity is a lexical similarity of two texts in [0,1]: the cosine of their term
// sets (see Terms), i.e. |A∩B| / sqrt(|A|·|B|). It exists so the refiner and the upsert
// can find near-duplicates before (or without) vectors; 1 means the same content
// terms, 0 nothing in common or an empty side.
//
// Because the third-person frame ("User", "likes", "用户") is not a term, "User likes
// jazz" and "I like jazz" are identical, and a negation ("doesn't like") is too: the
// refiner then reuses the key, which is what a changed mind should do.
func Similarity(a, b string) float64 {
	return TermSimilarity(Terms(a), Terms(b))
}

// TermSimilarity is Similarity on term sets already taken (Terms), for callers
// that compare each text with many others.
func TermSimilarity(a, b map[string]bool) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	small, large := a, b
	if len(small) > len(large) {
		small, large = large, small
	}
	common := 0
	for t := range small {
		if large[t] {
			common++
		}
	}
	return float64(common) / math.Sqrt(float64(len(a))*float64(len(b)))
}

// NormalizeContent is the form in which two contents count as the same text:
// folded, lower case, whitespace collapsed, trailing punctuation dropped.
func NormalizeContent(s string) string {
	s = strings.ToLower(Fold(s))
	s = strings.Join(strings.Fields(s), " ")
	return strings.TrimRightFunc(s, func(r rune) bool {
		return unicode.IsPunct(r) || unicode.IsSpace(r)
	})
}

// SameContent reports whether two contents say exactly the same thing up to case,
// spacing and final punctuation.
func SameContent(a, b string) bool { return NormalizeContent(a) == NormalizeContent(b) }
