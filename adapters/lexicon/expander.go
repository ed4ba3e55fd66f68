package lexicon

import (
	"cmp"
	"slices"
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
	Synonym: 0.6, Derived: 0.8, Broader: 0.35, Narrower: []float64{0.5, 0.4, 0.3},
	Translation: 0.8, Pivot: 0.45, Character: 0.35, Intent: 0.9, SenseDecay: 0.8,
}

// Scaled is w with every weight multiplied by f (SenseDecay aside).
func (w Weights) Scaled(f float64) Weights {
	out := w
	out.Synonym, out.Derived, out.Broader = w.Synonym*f, w.Derived*f, w.Broader*f
	out.Translation, out.Pivot, out.Character, out.Intent = w.Translation*f, w.Pivot*f, w.Character*f, w.Intent*f
	out.Narrower = make([]float64, len(w.Narrower))
	for i, n := range w.Narrower {
		out.Narrower[i] = n * f
	}
	return out
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
// expanders (a test process builds several).
var sharedTable = sync.OnceValues(func() (*table, error) { return parseTable(tableGz) })

// Load reads the data now rather than on the first question (benchmarks); it
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

// bag is a query term's related terms with their weights, in the order they were
// first reached (the closest concepts first), so that results do not depend on
// map order.
type bag struct {
	at    map[string]int
	terms []string
	ws    []float64
}

func newBag() *bag { return &bag{at: make(map[string]int, 64)} }

// add records term at weight w unless it has a higher one.
func (b *bag) add(term string, w float64) {
	if i, ok := b.at[term]; ok {
		b.ws[i] = max(b.ws[i], w)
		return
	}
	b.at[term] = len(b.terms)
	b.terms = append(b.terms, term)
	b.ws = append(b.ws, w)
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
		x.relate(t, x.english(t))
	}
}

// subjectWord opens every English memory ("User is allergic to…"), as 用户 (a
// function word here) opens Chinese ones: reaching it would reach them all.
const subjectWord = "user"

// relate records the related terms of a query term, the maxRelated heaviest.
func (x *expansion) relate(of string, b *bag) {
	idx := make([]int, 0, len(b.terms))
	for i, term := range b.terms {
		if term != of && b.ws[i] > 0 && !x.lx.zhStop[term] && term != subjectWord {
			idx = append(idx, i)
		}
	}
	if len(idx) > maxRelated {
		slices.SortStableFunc(idx, func(i, j int) int { return cmp.Compare(b.ws[j], b.ws[i]) })
		idx = idx[:maxRelated]
	}
	for _, i := range idx {
		x.related = append(x.related, ports.RelatedTerm{Of: of, Term: b.terms[i], Weight: b.ws[i]})
	}
}

// english is what an English stem reaches: the words of its concepts and of
// their derived forms and broader concepts, the Chinese words that translate
// those, the narrower concepts, and its intents.
func (x *expansion) english(stem string) *bag {
	b := newBag()
	x.close(stem, 1, b)
	x.translate(b, x.w.Translation)
	x.narrowerOf(stem, 1, b)
	for _, term := range x.lx.intents[stem] {
		b.add(term, x.w.Intent)
	}
	return b
}

// close adds the words of a stem's concepts, their derived forms and broader
// concepts, most frequent sense first.
func (x *expansion) close(stem string, scale float64, b *bag) {
	t, w := x.lx.table, x.w
	id, ok := t.stem(stem)
	if !ok {
		return
	}
	senseW := scale
	for _, syn := range t.senses.of(id) {
		x.concept(syn, w.Synonym*senseW, b)
		for _, rel := range t.related.of(syn) {
			x.concept(rel, w.Derived*senseW, b)
		}
		for _, br := range t.broader.of(syn) {
			x.concept(br, w.Broader*senseW, b)
		}
		senseW *= w.SenseDecay
	}
}

// narrowerOf adds the narrower concepts of a stem's senses, level by level, at
// most maxNarrower concepts per sense.
func (x *expansion) narrowerOf(stem string, scale float64, b *bag) {
	t, w := x.lx.table, x.w
	id, ok := t.stem(stem)
	if !ok {
		return
	}
	senseW := scale
	for _, syn := range t.senses.of(id) {
		level, budget := []int32{syn}, maxNarrower
		for depth := 0; depth < len(w.Narrower) && len(level) > 0 && budget > 0; depth++ {
			var next []int32
			for _, s := range level {
				for _, n := range t.narrower.of(s) {
					if budget == 0 {
						break
					}
					budget--
					x.concept(n, w.Narrower[depth]*senseW, b)
					next = append(next, n)
				}
			}
			level = next
		}
		senseW *= w.SenseDecay
	}
}

// maxNarrower bounds the narrower concepts read for one sense ("food" has
// thousands).
const maxNarrower = 300

// maxTranslated bounds the English terms translate reads, the closest first.
const maxTranslated = 40

// translate adds the Chinese words that translate the first English terms of b,
// at their weight times factor.
func (x *expansion) translate(b *bag, factor float64) {
	t := x.lx.table
	n := min(len(b.terms), maxTranslated)
	for i := range n {
		id, ok := t.stem(b.terms[i])
		if !ok {
			continue
		}
		w := b.ws[i] * factor
		for _, word := range t.enZH.of(id) {
			for _, zt := range zhTerms(t.words[word]) {
				b.add(zt, w)
			}
		}
	}
}

func (x *expansion) concept(syn int32, weight float64, b *bag) {
	for _, st := range x.lx.table.members.of(syn) {
		b.add(x.lx.table.stems[st], weight)
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
				if c := string(r); !x.lx.zhStop[c] {
					alts.add(c, x.w.Character)
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
// and their close concepts, the Chinese words that translate those (another
// word with a sense of this one: 生活 → live → 住), the narrower concepts of its
// senses, and its intents.
func (x *expansion) chineseWord(word string) *bag {
	b := newBag()
	t, w := x.lx.table, x.w
	if id, ok := t.word(word); ok {
		exact := t.zhExact.of(id)
		weight := func(i int) float64 {
			if i >= 3 {
				return w.Translation * w.SenseDecay
			}
			return w.Translation
		}
		for i, st := range exact {
			b.add(t.stems[st], weight(i))
		}
		for i, st := range exact {
			x.close(t.stems[st], weight(i), b)
		}
		x.translate(b, w.Pivot/w.Translation)
		for i, st := range exact {
			x.narrowerOf(t.stems[st], weight(i), b)
		}
	}
	for _, term := range x.lx.intents[word] {
		b.add(term, w.Intent)
	}
	return b
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
