package ranking

import (
	"math"
	"testing"
)

func TestTermMatch(t *testing.T) {
	t.Parallel()
	r := Recipe{BM25: DefaultBM25, ContextDiscount: 0.5, TermSaturation: 0.1}
	sat := func(x float64) float64 { return x * 1.1 / (x + 0.1) }
	once := sat(1 / 2.2) // one occurrence at average length
	tests := []struct {
		name                       string
		own, context, docLen, avg  float64
		wantDirect, wantContextual float64
	}{
		{"once at average length is most of the idf", 1, 0, 10, 10, 2 * once, 0},
		{"repeats earn a little more, never the double", 5, 0, 10, 10, 2 * sat(5/(5+1.2)), 0},
		{"a long text earns less", 1, 0, 40, 10, 2 * sat(1/(1+1.2*(0.25+0.75*4))), 0},
		{"absent", 0, 0, 10, 10, 0, 0},
		{"only in the neighbours: discounted", 0, 1, 10, 10, 0, 0.5 * 2 * once},
		{"half own, half context", 0.5, 0.5, 10, 10, once, 0.5 * once},
	}
	for _, tt := range tests {
		d, c := r.TermMatch(2, tt.own, tt.context, tt.docLen, tt.avg)
		if !near(d, tt.wantDirect) || !near(c, tt.wantContextual) {
			t.Errorf("%s: TermMatch = %v, %v; want %v, %v", tt.name, d, c, tt.wantDirect, tt.wantContextual)
		}
	}
	if once < 0.9 || once > 0.92 {
		t.Errorf("one clean mention is %v of the ceiling with c 0.1, want about 0.91", once)
	}
	if d, _ := r.TermMatch(2, 50, 0, 10, 10); d >= 2 {
		t.Errorf("stuffing reached %v, at or above the idf 2", d)
	}
}

func TestLexicalEvidence_isTheMatchedShareOfTheQuery(t *testing.T) {
	t.Parallel()
	ix := NewIndex(DefaultBM25)
	ix.Add("both", Field{Terms: []string{"oat", "milk", "flat", "white"}, Weight: 1})
	ix.Add("one", Field{Terms: []string{"milk", "tea", "green", "cup"}, Weight: 1})
	ix.Add("stuffed", Field{Terms: []string{"milk", "milk", "milk", "milk"}, Weight: 1})
	ix.Add("other", Field{Terms: []string{"dog", "walk", "park", "morn"}, Weight: 1})
	r := DefaultRecipe
	got := map[string]float64{}
	for _, m := range ix.Match([]string{"oat", "milk"}, r, 0) {
		got[m.ID] = m.Evidence.Total()
	}
	if got["both"] < 0.75 {
		t.Errorf("every query term once at average length: %v, want most of 1", got["both"])
	}
	share := r.IDF(3, 4) / (r.IDF(3, 4) + r.IDF(1, 4)) // milk is in 3 of the 4 texts, oat in 1
	if got["one"] > share || got["one"] < 0.7*share {
		t.Errorf("one term of two: %v, want most of the term's share of the idf mass %v", got["one"], share)
	}
	if got["stuffed"] > share || got["stuffed"] >= got["both"] {
		t.Errorf("stuffed with the one term: %v, want at most its share %v and below the text that has both", got["stuffed"], share)
	}
	if _, ok := got["other"]; ok {
		t.Error("a text without a query term was matched")
	}
	none := ix.Match([]string{"quantum", "chromodynam"}, r, 0)
	if len(none) != 0 {
		t.Errorf("unknown terms matched %v", none)
	}
	partial := ix.Match([]string{"milk", "quantum"}, r, 0)
	for _, m := range partial {
		if m.Evidence.Total() >= 0.5 {
			t.Errorf("%s: %v for a query half made of a word the user never used, want below 0.5", m.ID, m.Evidence.Total())
		}
	}
}

func TestLexicalEvidence_contextOnlyRanksBelowDirect(t *testing.T) {
	t.Parallel()
	terms := [][]string{{"pari", "trip"}, {"ye", "twice"}, {"pari", "love"}}
	ix := NewIndex(DefaultBM25)
	for i := range terms {
		ix.Add([]string{"q", "a", "r"}[i], ContextFields(terms, i, 2, 0.5)...)
	}
	ix.Add("direct", Field{Terms: []string{"pari", "again"}, Weight: 1}) // alone in its conversation
	got := ix.Match([]string{"pari"}, DefaultRecipe, 0)
	ev := map[string]Evidence{}
	for _, m := range got {
		ev[m.ID] = m.Evidence
	}
	// "a" has "pari" twice at 0.5 in its neighbours: the BM25F strength of one
	// direct occurrence, at a similar length.
	if ev["a"].Direct != 0 || ev["a"].Context <= 0 {
		t.Fatalf("context-only hit: %+v, want context evidence only", ev["a"])
	}
	if ev["a"].Total() >= ev["direct"].Total() {
		t.Errorf("context-only %v must rank below a direct hit of the same strength %v", ev["a"].Total(), ev["direct"].Total())
	}
	if ev["q"].Direct <= 0 {
		t.Errorf("a direct hit with a matching neighbour: %+v, want direct evidence", ev["q"])
	}
}

func TestDenseScale(t *testing.T) {
	t.Parallel()
	s := DenseScale{Floor: 0.2, Full: 0.6, Weight: 0.5}
	for _, tt := range []struct{ cos, want float64 }{
		{-0.5, 0}, {0.1, 0}, {0.2, 0}, {0.4, 0.5}, {0.6, 1}, {0.9, 1}, {math.NaN(), 0},
	} {
		if got := s.Evidence(tt.cos); !near(got, tt.want) {
			t.Errorf("Evidence(%v) = %v, want %v", tt.cos, got, tt.want)
		}
	}
}

func TestDenseScaleFuse(t *testing.T) {
	t.Parallel()
	s := DenseScale{Weight: 0.3}
	tests := []struct {
		name    string
		lexical Evidence
		dense   float64
		want    Evidence
	}{
		{"nothing is nothing", Evidence{}, 0, Evidence{}},
		{"lexical alone keeps its evidence", Evidence{Direct: 0.6, Context: 0.2}, 0, Evidence{Direct: 0.6, Context: 0.2}},
		{"dense alone counts at its weight", Evidence{}, 1, Evidence{Direct: 0.3}},
		{"both: noisy-or", Evidence{Direct: 0.5}, 0.5, Evidence{Direct: 1 - 0.5*0.85}},
		{"the dense share is direct", Evidence{Direct: 0.2, Context: 0.3}, 1, Evidence{Direct: 1 - 0.5*0.7 - 0.3, Context: 0.3}},
	}
	for _, tt := range tests {
		got := s.Fuse(tt.lexical, tt.dense)
		if !near(got.Direct, tt.want.Direct) || !near(got.Context, tt.want.Context) {
			t.Errorf("%s: Fuse = %+v, want %+v", tt.name, got, tt.want)
		}
	}
	// Monotone and bounded: more evidence never scores less.
	for l := 0.0; l <= 1; l += 0.1 {
		for d := 0.0; d <= 1; d += 0.1 {
			a := s.Fuse(Evidence{Direct: l}, d).Total()
			if a > 1+1e-12 || a < 0 {
				t.Fatalf("Fuse(%v, %v) = %v outside [0, 1]", l, d, a)
			}
			if b := s.Fuse(Evidence{Direct: math.Min(l+0.1, 1)}, d).Total(); b < a-1e-12 {
				t.Fatalf("more lexical evidence scored less: %v < %v", b, a)
			}
			if b := s.Fuse(Evidence{Direct: l}, math.Min(d+0.1, 1)).Total(); b < a-1e-12 {
				t.Fatalf("more dense evidence scored less: %v < %v", b, a)
			}
		}
	}
}

func TestRecipeLift(t *testing.T) {
	t.Parallel()
	r := Recipe{SpeakerBoost: 0.5}
	tests := []struct {
		name  string
		in    Evidence
		named bool
		want  Evidence
	}{
		{"no evidence stays none", Evidence{}, true, Evidence{}},
		{"not named: unchanged", Evidence{Direct: 0.4}, false, Evidence{Direct: 0.4}},
		{"named: lifted by what is left to gain", Evidence{Direct: 0.4, Context: 0.2}, true, Evidence{Direct: 0.4 * 1.2, Context: 0.2 * 1.2}},
		{"full evidence cannot be lifted", Evidence{Direct: 1}, true, Evidence{Direct: 1}},
	}
	for _, tt := range tests {
		if got := r.Lift(tt.in, tt.named); !near(got.Direct, tt.want.Direct) || !near(got.Context, tt.want.Context) {
			t.Errorf("%s: Lift = %+v, want %+v", tt.name, got, tt.want)
		}
	}
	full := Recipe{SpeakerBoost: 1}
	for x := 0.0; x < 1; x += 0.05 {
		a, b := full.Lift(Evidence{Direct: x}, true).Total(), full.Lift(Evidence{Direct: x + 0.05}, true).Total()
		if b < a || b > 1+1e-12 {
			t.Fatalf("Lift not monotone or above 1 at %v: %v then %v", x, a, b)
		}
	}
}

func TestCosine(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		a, b []float32
		want float64
	}{
		{[]float32{1, 0}, []float32{2, 0}, 1},
		{[]float32{1, 0}, []float32{0, 3}, 0},
		{[]float32{1, 1}, []float32{-1, -1}, -1},
		{[]float32{0, 0}, []float32{1, 0}, 0},
	} {
		if got := Cosine(tt.a, tt.b); !near(got, tt.want) {
			t.Errorf("Cosine(%v, %v) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}
