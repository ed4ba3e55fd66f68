package main

import (
	"math/rand/v2"
	"strings"
)

// vocabulary makes the synthetic texts: 20,000 pronounceable words drawn with a
// Zipf distribution (s = 1.1), as word frequencies in real text fall, plus the
// frame words every memory shares ("User likes …"), which make the worst case for
// BM25: a query term found in every one of the 100,000 memories.
type vocabulary struct {
	words []string
	names []string
}

var verbs = []string{"likes", "prefers", "uses", "wants", "works on", "is learning", "avoids", "plans", "enjoys", "needs"}

func newVocabulary(seed uint64) *vocabulary {
	r := rand.New(rand.NewPCG(seed, 3))
	onsets := []string{"b", "br", "c", "ch", "d", "dr", "f", "g", "gr", "h", "j", "k", "l", "m", "n", "p", "pl", "r", "s", "st", "t", "tr", "v", "w", "z"}
	vowels := []string{"a", "e", "i", "o", "u", "ai", "ou", "ea"}
	codas := []string{"", "n", "r", "s", "t", "l", "m", "nd", "st", "ck"}
	seen := map[string]bool{}
	v := &vocabulary{}
	for len(v.words) < 20000 {
		var b strings.Builder
		for range 2 + r.IntN(2) {
			b.WriteString(onsets[r.IntN(len(onsets))])
			b.WriteString(vowels[r.IntN(len(vowels))])
			b.WriteString(codas[r.IntN(len(codas))])
		}
		if w := b.String(); !seen[w] {
			seen[w] = true
			v.words = append(v.words, w)
		}
	}
	v.names = []string{"Alice", "Bob", "Carol", "Dave", "Erin", "Frank", "Grace", "Heidi", "Ivan", "Judy", "Mallory", "Niaj",
		"Olivia", "Peggy", "Rupert", "Sybil", "Trent", "Victor", "Walter", "Xavier", "Yasmin", "Zoe"}
	return v
}

// word draws one word; the first words of the list are the most frequent.
func (v *vocabulary) word(r *rand.Rand) string {
	// Zipf by inversion of a power law: cheap and stateless per call.
	x := r.Float64()
	i := int(float64(len(v.words)) * x * x * x * x)
	return v.words[min(i, len(v.words)-1)]
}

func (v *vocabulary) words_(r *rand.Rand, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = v.word(r)
	}
	return out
}

func (v *vocabulary) sentence(r *rand.Rand, n int) string {
	w := v.words_(r, n)
	w[0] = strings.ToUpper(w[0][:1]) + w[0][1:]
	return strings.Join(w, " ") + "."
}

func (v *vocabulary) memoryContent(r *rand.Rand) string {
	return "User " + verbs[r.IntN(len(verbs))] + " " + strings.Join(v.words_(r, 3+r.IntN(6)), " ")
}

// memoryQuery names the user and a verb (terms of every memory) and 1–3 content
// words.
func (v *vocabulary) memoryQuery(r *rand.Rand) string {
	return "what does the user " + verbs[r.IntN(len(verbs))] + " about " + strings.Join(v.words_(r, 1+r.IntN(3)), " ")
}

// messageQuery is 2–5 content words, a third of the time with a speaker's name.
func (v *vocabulary) messageQuery(r *rand.Rand) string {
	q := strings.Join(v.words_(r, 2+r.IntN(4)), " ")
	if r.IntN(3) == 0 {
		q = "what did " + v.names[r.IntN(len(v.names))] + " say about " + q
	}
	return q
}
