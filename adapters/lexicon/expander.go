package lexicon

import (
	"strings"
	"sync"
	"unicode/utf8"

	"engram/ports"
)

// Weights are how much a related term counts of the term it stands in for.
type Weights struct {
	Synonym     float64   // another word of the term's concept
	Derived     float64   // a derived form or an attribute ("allergic" ↔ "allergy")
	Broader     float64   // the concept's hypernym ("penicillin" → "antibiotic")
	Narrower    []float64 // its hyponyms, by depth ("medicine" → … → "penicillin")
	Translation float64   // English ↔ Chinese, by CC-CEDICT
	Pivot       float64   // another Chinese word with the same English sense
	Character   float64   // a character of a Chinese word ("户外运动" ~ "运")
	Intent      float64   // the words memories of the question's kind use
	// SenseDecay multiplies the weights of a word's second and third senses.
	SenseDecay float64
}

// DefaultWeights are tuned on the tuning half of the natural-question set
// (docs/BENCHMARKS.md "Natural questions").
var DefaultWeights = Weights{
	Synonym: 0.6, Derived: 0.6, Broader: 0.35, Narrower: []float64{0.5, 0.4, 0.3},
	Translation: 0.6, Pivot: 0.45, Character: 0.35, Intent: 0.55, SenseDecay: 0.8,
}

// maxRelated bounds the related terms of one query term (a general word such as
// "food" has thousands of narrower concepts).
const maxRelated = 400

// Expander widens questions. It is safe for concurrent use; its data is read on
// the first question.
type Expander struct {
	analyzer ports.TextAnalyzer
	weights  Weights
	data     func() (*lexicon, error)
}

// New returns an expander whose analyzer must be the index's.
func New(analyzer ports.TextAnalyzer, w Weights) *Expander {
	if w.Synonym == 0 && w.Translation == 0 && w.Intent == 0 {
		w = DefaultWeights
	}
	return &Expander{analyzer: analyzer, weights: w, data: sync.OnceValues(func() (*lexicon, error) { return load(analyzer) })}
}

// sharedTable is the parsed table, one per process whatever the number of
// expanders (each test server builds one).
var sharedTable = sync.OnceValues(func() (*table, error) { return parseTable(tableGz) })

// Warm reads the table in the background, so that the first question does not
// wait for it.
func Warm() {
	go func() { _, _ = sharedTable() }()
}

// Load reads the data now (a server warms it before its first question); it
// is read once.
func (e *Expander) Load() error {
	_, err := e.data()
	return err
}

// Expand returns the query's terms and their related terms. Without its data
// (which cannot happen with the embedded table) it returns the analyzer's terms.
func (e *Expander) Expand(query string) ([]string, []ports.RelatedTerm) {
	lx, err := e.data()
	if err != nil {
		return e.analyzer.Terms(query), nil
	}
	x := expansion{lx: lx, w: e.weights, an: e.analyzer}
	x.query(query)
	return x.terms, x.related
}

// expansion is one question being widened.
type expansion struct {
	lx      *lexicon
	w       Weights
	an      ports.TextAnalyzer
	terms   []string
	related []ports.RelatedTerm
}

// query cuts the question into runs of Chinese and of everything else.
func (x *expansion) query(q string) {
	start, cjk := 0, false
	for i, r := range q {
		c := isHan(r)
		if i > start && c != cjk {
			x.run(q[start:i], cjk)
			start = i
		}
		cjk = c
	}
	if start < len(q) {
		x.run(q[start:], cjk)
	}
}

func (x *expansion) run(s string, cjk bool) {
	if cjk {
		x.chinese(s)
		return
	}
	for _, t := range x.an.Terms(s) {
		x.terms = append(x.terms, t)
		x.relate(t, x.english(t, 1))
	}
}

// relate records the related terms of a query term, at most maxRelated, the
// heaviest kept.
func (x *expansion) relate(of string, alts map[string]float64) {
	for term, w := range alts {
		if term != of {
			x.related = append(x.related, ports.RelatedTerm{Of: of, Term: term, Weight: w})
		}
	}
	if n := len(x.related); n > maxRelated {
		x.related = heaviest(x.related, of, maxRelated)
	}
}

// english is what an English stem reaches: its concepts' words, derived forms,
// broader and narrower concepts, its Chinese translations and its intents, each
// at its weight times scale.
func (x *expansion) english(stem string, scale float64) map[string]float64 {
	alts := map[string]float64{}
	add := func(term string, w float64) {
		if w > alts[term] {
			alts[term] = w
		}
	}
	t, w := x.lx.table, x.w
	if id, ok := t.stem(stem); ok {
		senseW := scale
		for _, syn := range t.senses.of(id) {
			x.concept(syn, w.Synonym*senseW, add)
			for _, rel := range t.related.of(syn) {
				x.concept(rel, w.Derived*senseW, add)
			}
			for _, b := range t.broader.of(syn) {
				x.concept(b, w.Broader*senseW, add)
			}
			budget := maxNarrower
			x.narrower(syn, 0, senseW, &budget, add)
			senseW *= w.SenseDecay
		}
		for _, zh := range t.enZH.of(id) {
			for _, term := range zhTerms(t.words[zh]) {
				add(term, w.Translation*scale)
			}
		}
	}
	for _, term := range x.lx.intents[stem] {
		add(term, w.Intent*scale)
	}
	return alts
}

// maxNarrower bounds the narrower concepts read for one sense ("food" has
// thousands).
const maxNarrower = 600

func (x *expansion) concept(syn int32, weight float64, add func(string, float64)) {
	for _, st := range x.lx.table.members.of(syn) {
		add(x.lx.table.stems[st], weight)
	}
}

func (x *expansion) narrower(syn int32, depth int, scale float64, budget *int, add func(string, float64)) {
	if depth >= len(x.w.Narrower) {
		return
	}
	for _, n := range x.lx.table.narrower.of(syn) {
		if *budget <= 0 {
			return
		}
		*budget--
		x.concept(n, x.w.Narrower[depth]*scale, add)
		x.narrower(n, depth+1, scale, budget, add)
	}
}

// chinese segments a run of Chinese into dictionary words (longest first), leaves
// out function words, and adds each remaining word's index terms with its
// related terms. Characters outside any dictionary word are grouped into runs and
// cut as the analyzer cuts them (a name the dictionary lacks still matches).
func (x *expansion) chinese(s string) {
	var loose []string // consecutive characters not in a dictionary word
	flush := func() {
		if len(loose) > 0 {
			for _, t := range x.an.Terms(strings.Join(loose, "")) {
				x.terms = append(x.terms, t)
				x.relate(t, x.chineseWord(t))
			}
			loose = loose[:0]
		}
	}
	for _, word := range x.lx.segment(s) {
		switch {
		case x.lx.zhStop[word]:
			flush()
		case utf8.RuneCountInString(word) == 1:
			loose = append(loose, word)
		default:
			flush()
			alts := x.chineseWord(word)
			for _, r := range word {
				if c := string(r); !x.lx.zhStop[c] && x.w.Character > alts[c] {
					alts[c] = x.w.Character
				}
			}
			for _, t := range zhTerms(word) {
				x.terms = append(x.terms, t)
				x.relate(t, alts)
			}
		}
	}
	flush()
}

// chineseWord is what a Chinese word reaches: the English stems of its senses
// (and their first concept's words and derived forms), the other Chinese words
// that share a sense with it, and its intents.
func (x *expansion) chineseWord(word string) map[string]float64 {
	alts := map[string]float64{}
	add := func(term string, w float64) {
		if w > alts[term] {
			alts[term] = w
		}
	}
	t, w := x.lx.table, x.w
	if id, ok := t.word(word); ok {
		for i, st := range t.zhExact.of(id) {
			tw := w.Translation
			if i >= 3 {
				tw *= w.SenseDecay
			}
			add(t.stems[st], tw)
			for _, syn := range firstSense(t.senses.of(st)) {
				x.concept(syn, tw*w.Synonym, add)
				for _, rel := range t.related.of(syn) {
					x.concept(rel, tw*w.Derived, add)
				}
			}
			for _, zh := range t.enZH.of(st) {
				if zh != id {
					for _, term := range zhTerms(t.words[zh]) {
						add(term, w.Pivot)
					}
				}
			}
		}
	}
	for _, term := range x.lx.intents[word] {
		add(term, w.Intent)
	}
	return alts
}

func firstSense(ids []int32) []int32 {
	if len(ids) > 1 {
		return ids[:1]
	}
	return ids
}

// zhTerms are the index terms a Chinese word is found by: itself when it is one
// or two characters, its bigrams when longer.
func zhTerms(word string) []string {
	n := utf8.RuneCountInString(word)
	if n <= 2 {
		return []string{word}
	}
	var out []string
	var offs []int
	for i := range word {
		offs = append(offs, i)
	}
	offs = append(offs, len(word))
	for i := 0; i+2 < len(offs); i++ {
		out = append(out, word[offs[i]:offs[i+2]])
	}
	return out
}

// heaviest keeps the n heaviest related terms of one query term (and all of the
// others', which come first in the list).
func heaviest(related []ports.RelatedTerm, of string, n int) []ports.RelatedTerm {
	cut := len(related)
	for cut > 0 && related[cut-1].Of == of {
		cut--
	}
	mine := related[cut:]
	if len(mine) <= n {
		return related
	}
	sortByWeight(mine)
	return related[:cut+n]
}
