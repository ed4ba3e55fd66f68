package ranking

import "math"

// Evidence is how much of a query an item answers, calibrated: absolute, in [0, 1]
// as a whole, and comparable across queries and users. It is split by where it
// was found: Direct in the item's own text or vector, Context only in the words of
// its neighbours (a message's messages around it, ContextFields).
type Evidence struct {
	Direct  float64
	Context float64
}

// Total is the item's relevance: Direct plus Context.
func (e Evidence) Total() float64 { return e.Direct + e.Context }

// TermMatch is one query term's lexical evidence in one text, weighted by the
// term's idf: BM25's term score (saturated term frequency, normalised by length)
// over its ceiling, idf·(k1 + 1), then saturated once more so that one occurrence
// in a text of average length is already most of the evidence (Saturate), and
// shared out by where the term was found.
//
// own is the term's count in the text itself; context its count in the neighbours,
// already multiplied by NeighbourWeight (BM25F: the term frequency is own +
// context); docLen and avgDocLen are BM25F lengths. The context share counts
// ContextDiscount times: a message found only through its neighbours' words is
// weaker evidence than one that says them itself.
//
// Dividing the sum over the query's terms by the query's IDF mass (QueryMass) gives
// the matched share of the query, in [0, 1): it depends on the query and the text,
// not on how well other texts match. Keyword stuffing is damped twice: by BM25's
// saturation and length normalisation, and by Saturate's ceiling, which a clean
// mention already nearly reaches.
func (r Recipe) TermMatch(idf, own, context, docLen, avgDocLen float64) (direct, contextual float64) {
	return r.Matcher(avgDocLen).Match(idf, own, context, docLen)
}

// Matcher is TermMatch for texts of one average length, prepared once for the
// many texts of one search.
type Matcher struct {
	k1, b, saturation, discount, invAvg float64
}

// Matcher prepares TermMatch for texts whose average length is avgDocLen.
func (r Recipe) Matcher(avgDocLen float64) Matcher {
	m := Matcher{k1: r.BM25.K1, b: r.BM25.B, saturation: r.TermSaturation, discount: r.ContextDiscount}
	if avgDocLen > 0 {
		m.invAvg = 1 / avgDocLen
	}
	return m
}

// Match is TermMatch: the term's idf-weighted evidence in a text of docLen.
func (m Matcher) Match(idf, own, context, docLen float64) (direct, contextual float64) {
	tf := own + context
	if tf <= 0 || idf <= 0 {
		return 0, 0
	}
	norm := 1.0
	if m.invAvg > 0 {
		norm = 1 - m.b + m.b*docLen*m.invAvg
	}
	// BM25's term score over its ceiling idf·(k1 + 1).
	x := tf / (tf + m.k1*norm)
	matched := idf * saturate(x, m.saturation)
	if context == 0 {
		return matched, 0
	}
	return matched * own / tf, m.discount * matched * context / tf
}

// Saturate maps a term's BM25 score over its ceiling, x in [0, 1], to its evidence:
// x(1 + c)/(x + c) with c = TermSaturation, 0 at 0, 1 at 1, concave. With the
// default c 0.3 one occurrence in a text of average length (x = 1/(k1 + 1)) is
// 0.78, five occurrences 0.94, and one in a text four times as long as the
// average 0.53.
func (r Recipe) Saturate(x float64) float64 { return saturate(clamp01(x), r.TermSaturation) }

func saturate(x, c float64) float64 {
	if c <= 0 {
		return math.Ceil(x) // presence only
	}
	return x * (1 + c) / (x + c)
}

// IDF is the idf lexical evidence weighs a term by: IDF over the user's n texts
// plus BackgroundDocs texts that do not contain it. A user's few texts say little
// about which words are rare (with three memories, a word in one of them has an
// idf of 1.0 and an unknown word 2.1, against 4.4 and 5.3 with a hundred), and the
// background keeps the matched share of a query comparable between users with
// three texts and with thousands; ranking within one user is unchanged
// (docs/BENCHMARKS.md "Calibrated relevance").
func (r Recipe) IDF(df, n int) float64 { return IDF(df, n+max(r.BackgroundDocs, 0)) }

// QueryMass is the IDF mass of a query: the sum over its terms (repeats counted)
// of their idf, terms that no text contains included at the idf of an absent term.
// A query whose words the user's texts lack is thus matched only in part however
// well its other words match.
func QueryMass(idfs []float64) float64 {
	mass := 0.0
	for _, idf := range idfs {
		mass += math.Max(idf, 0)
	}
	return mass
}

// LexicalEvidence turns the sums of TermMatch over a query's terms into evidence:
// each divided by the query's mass, clamped into [0, 1].
func LexicalEvidence(direct, contextual, mass float64) Evidence {
	if mass <= 0 {
		return Evidence{}
	}
	e := Evidence{Direct: clamp01(direct / mass), Context: clamp01(contextual / mass)}
	if t := e.Total(); t > 1 {
		e.Direct, e.Context = e.Direct/t, e.Context/t
	}
	return e
}

// DenseScale maps the cosine similarity of a query and a vector to dense evidence,
// and says how much that evidence adds to lexical evidence. All three values are
// the embedder's (docs/BENCHMARKS.md "Calibrated relevance"), since a cosine means
// nothing by itself: unrelated texts reach 0.25 with one model and 0.7 with
// another.
type DenseScale struct {
	// Floor is as high as unrelated pairs go (their 99th percentile): a cosine at
	// or below it is no evidence.
	Floor float64
	// Full is as high as related pairs commonly go (their 95th percentile): a
	// cosine at or above it is full evidence. Evidence is linear between.
	Full float64
	// Weight is how much dense evidence adds to lexical evidence when both are
	// fused (Fuse): little for an embedder that matches words, which BM25 already
	// counts (the local one), up to 1 for a semantic model, whose evidence is
	// independent of the words.
	Weight float64
}

// Evidence is the dense evidence of a cosine similarity, as mode dense scores it.
func (s DenseScale) Evidence(cosine float64) float64 {
	if math.IsNaN(cosine) || cosine <= s.Floor {
		return 0
	}
	if s.Full <= s.Floor || cosine >= s.Full {
		return 1
	}
	return (cosine - s.Floor) / (s.Full - s.Floor)
}

// Fuse combines an item's lexical evidence with its dense evidence (Evidence) into
// its relevance: a noisy-OR, 1 − (1 − lexical)(1 − Weight·dense), so that either
// retriever alone can show relevance, both together show more, and an item that
// one of them misses keeps what the other found (a search that falls back to
// lexical scores lexical hits as auto does when the vectors have nothing to add).
// The dense share counts as direct evidence: a vector has no separable context.
func (s DenseScale) Fuse(lexical Evidence, dense float64) Evidence {
	lexical.Direct, lexical.Context = clamp01(lexical.Direct), clamp01(lexical.Context)
	total := 1 - (1-clamp01(lexical.Total()))*(1-clamp01(s.Weight)*clamp01(dense))
	return Evidence{Direct: math.Max(total-lexical.Context, 0), Context: math.Min(lexical.Context, total)}
}

// Lift is the speaker lift: when the query names the item's speaker (a message said
// by "Melanie", asked about Melanie), the relevance R becomes R + SpeakerBoost ×
// R × (1 − R): relative to what is left to gain, so it stays in [0, 1], never
// makes an item without evidence relevant, and never reorders two items of one
// speaker (SpeakerBoost is at most 1).
func (r Recipe) Lift(e Evidence, named bool) Evidence {
	if !named || r.SpeakerBoost <= 0 {
		return e
	}
	lift := 1 + math.Min(r.SpeakerBoost, 1)*(1-clamp01(e.Total()))
	return Evidence{Direct: e.Direct * lift, Context: e.Context * lift}
}
