package ranking

import (
	"math"
	"sort"
	"time"
)

// Candidate is what re-ranking knows about one retrieved item.
type Candidate struct {
	ID string
	// Evidence is the item's calibrated relevance to the query (Fuse).
	Evidence Evidence
	// Importance is 1–5 as memories store it; 0 means the item has none (a
	// message) and the signal is left out.
	Importance int
	// Confidence is 0–1; a negative value means the item has none (a message) and
	// the signal is left out.
	Confidence float64
	// At is when the item was last confirmed (updated, or said); zero means
	// unknown and the signal is left out.
	At time.Time
	// ExactKey is 0–1: how much of the memory's key the query spells out
	// (KeyMatch), 1 when the agent asked for exactly that key; a negative value
	// means the item has no key (a message) and the signal is left out.
	ExactKey float64
}

// Weights say how much each signal counts. With weights summing to 1, an item that
// has every signal scores relevance × (the weighted sum of its signals), in [0, 1];
// an item without some signals (a message has no importance, confidence or key)
// has the remaining weights scaled up to fill their place.
type Weights struct {
	Retrieval  float64
	Importance float64
	Confidence float64
	Recency    float64
	ExactKey   float64
	// HalfLife is the age at which recency is worth half; 0 turns recency off.
	HalfLife time.Duration
}

// DefaultWeights put relevance first: whatever its other signals, an item scores
// between 0.65 and 1 times its relevance, so they order items of comparable
// relevance and can never make an irrelevant one relevant. Importance (0.12) is
// the extractor's or the agent's judgement of how much a memory matters;
// confidence (0.05) already passed a write threshold (0.75) so it varies little;
// recency (0.08, half-life 90 days) prefers the newer of two similar memories —
// preferences change — without burying stable facts; the exact key (0.10)
// rewards a query that names a memory ("what's my diet-preference").
var DefaultWeights = Weights{
	Retrieval:  0.65,
	Importance: 0.12,
	Confidence: 0.05,
	Recency:    0.08,
	ExactKey:   0.10,
	HalfLife:   90 * 24 * time.Hour,
}

// Breakdown is each signal's contribution to a score; they add up to it. Retrieval
// and Context are the relevance found in the item itself and only through its
// neighbours, at the retrieval weight; the other signals' contributions are their
// weighted values times the relevance.
type Breakdown struct {
	Retrieval  float64
	Context    float64
	Importance float64
	Confidence float64
	Recency    float64
	ExactKey   float64
}

// Total is the score: the sum of the contributions.
func (b Breakdown) Total() float64 {
	return b.Retrieval + b.Context + b.Importance + b.Confidence + b.Recency + b.ExactKey
}

// Ranked is a candidate with its score and how it was made.
type Ranked struct {
	ID        string
	Score     float64
	Breakdown Breakdown
}

// Score computes one candidate's breakdown at time now:
//
//	score = relevance × (Σ weight·signal) / (Σ weight)
//
// over the retrieval signal (1) and the other signals the item has, where
// relevance = Evidence.Total(). The score is thus absolute like the evidence: 0
// without evidence, at most the relevance, and at least Retrieval/(Σ weight) of it.
func Score(c Candidate, now time.Time, w Weights) Breakdown {
	direct, context := clamp01(c.Evidence.Direct), clamp01(c.Evidence.Context)
	if t := direct + context; t > 1 {
		direct, context = direct/t, context/t
	}
	relevance := direct + context
	total := w.Retrieval
	signal := func(weight, value float64, present bool) float64 {
		if !present {
			return 0
		}
		total += weight
		return weight * value
	}
	importance := signal(w.Importance, clamp01(float64(c.Importance-1)/4), c.Importance > 0)
	confidence := signal(w.Confidence, clamp01(c.Confidence), !(c.Confidence < 0)) // NaN counts as 0
	recency := 0.0
	if w.HalfLife > 0 {
		recency = Decay(now.Sub(c.At), w.HalfLife)
	}
	recent := signal(w.Recency, recency, !c.At.IsZero())
	key := signal(w.ExactKey, clamp01(c.ExactKey), !(c.ExactKey < 0))
	if total <= 0 || relevance == 0 {
		return Breakdown{}
	}
	scale := relevance / total
	return Breakdown{
		Retrieval:  w.Retrieval * direct / total,
		Context:    w.Retrieval * context / total,
		Importance: importance * scale,
		Confidence: confidence * scale,
		Recency:    recent * scale,
		ExactKey:   key * scale,
	}
}

// Rerank scores the candidates and returns them best first; equal scores keep the
// given order (the retrieval order).
func Rerank(cands []Candidate, now time.Time, w Weights) []Ranked {
	out := make([]Ranked, len(cands))
	for i, c := range cands {
		b := Score(c, now, w)
		out[i] = Ranked{ID: c.ID, Score: b.Total(), Breakdown: b}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Score > out[j].Score })
	return out
}

// Decay is exponential decay: 1 for age ≤ 0, ½ at one half-life, ¼ at two.
func Decay(age, halfLife time.Duration) float64 {
	if age <= 0 {
		return 1
	}
	if halfLife <= 0 {
		return 0
	}
	return math.Exp2(-float64(age) / float64(halfLife))
}

// KeyMatch is the share of a memory key's terms that the query contains, both
// analysed by the same analyzer (a key "diet-preference" has terms "diet",
// "prefer"). No key terms give 0.
func KeyMatch(queryTerms, keyTerms []string) float64 {
	if len(keyTerms) == 0 {
		return 0
	}
	inQuery := make(map[string]bool, len(queryTerms))
	for _, t := range queryTerms {
		inQuery[t] = true
	}
	found := 0
	for _, t := range keyTerms {
		if inQuery[t] {
			found++
		}
	}
	return float64(found) / float64(len(keyTerms))
}

func clamp01(x float64) float64 {
	switch {
	case math.IsNaN(x) || x < 0:
		return 0
	case x > 1:
		return 1
	}
	return x
}
