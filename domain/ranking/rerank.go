package ranking

import (
	"math"
	"sort"
	"time"
)

// Candidate is what re-ranking knows about one retrieved item.
type Candidate struct {
	ID string
	// Retrieval is the item's relevance to the query in [0, 1]; see Normalize.
	Retrieval float64
	// Importance is 1–5 as memories store it; 0 means the item has none (a
	// message) and counts as the midpoint, so it neither gains nor loses.
	Importance int
	// Confidence is 0–1; a negative value means the item has none and counts as 1.
	Confidence float64
	// At is when the item was last confirmed (updated, or said); zero means
	// unknown and earns no recency.
	At time.Time
	// ExactKey is 0–1: how much of the memory's key the query spells out
	// (KeyMatch), 1 when the agent asked for exactly that key.
	ExactKey float64
}

// Weights say how much each signal counts. Total score is the weighted sum of the
// signals, each in [0, 1], so with weights summing to 1 the total is in [0, 1].
type Weights struct {
	Retrieval  float64
	Importance float64
	Confidence float64
	Recency    float64
	ExactKey   float64
	// HalfLife is the age at which recency is worth half; 0 turns recency off.
	HalfLife time.Duration
}

// DefaultWeights put relevance first: the other signals are worth together less
// than the gap between a relevant and an irrelevant memory (0.65), so they order
// comparable hits and never promote an off-topic memory over an on-topic one.
// Importance (0.12) is the extractor's or the agent's judgement of how much a
// memory matters; confidence (0.05) already passed a write threshold (0.75) so it
// varies little; recency (0.08, half-life 90 days) prefers the newer of two
// similar memories — preferences change — without burying stable facts; the exact
// key (0.10) rewards a query that names a memory ("what's my diet-preference").
var DefaultWeights = Weights{
	Retrieval:  0.65,
	Importance: 0.12,
	Confidence: 0.05,
	Recency:    0.08,
	ExactKey:   0.10,
	HalfLife:   90 * 24 * time.Hour,
}

// Breakdown is each signal's weighted contribution to a score; they add up to it.
type Breakdown struct {
	Retrieval  float64
	Importance float64
	Confidence float64
	Recency    float64
	ExactKey   float64
}

// Total is the score: the sum of the contributions.
func (b Breakdown) Total() float64 {
	return b.Retrieval + b.Importance + b.Confidence + b.Recency + b.ExactKey
}

// Ranked is a candidate with its score and how it was made.
type Ranked struct {
	ID        string
	Score     float64
	Breakdown Breakdown
}

// Score computes one candidate's breakdown at time now.
func Score(c Candidate, now time.Time, w Weights) Breakdown {
	importance := 0.5
	if c.Importance > 0 {
		importance = clamp01(float64(c.Importance-1) / 4)
	}
	confidence := clamp01(c.Confidence) // NaN counts as 0
	if c.Confidence < 0 {
		confidence = 1
	}
	recency := 0.0
	if !c.At.IsZero() && w.HalfLife > 0 {
		recency = Decay(now.Sub(c.At), w.HalfLife)
	}
	return Breakdown{
		Retrieval:  w.Retrieval * clamp01(c.Retrieval),
		Importance: w.Importance * importance,
		Confidence: w.Confidence * confidence,
		Recency:    w.Recency * recency,
		ExactKey:   w.ExactKey * clamp01(c.ExactKey),
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

// Normalize maps a ranked list's scores into [0, 1] by dividing by the best score,
// which keeps ratios (a result half as good as the best gets 0.5) and makes the
// retrieval signal of lists from different retrievers comparable. Scores ≤ 0 become
// 0. The input is not changed.
func Normalize(items []Scored) []Scored {
	out := make([]Scored, len(items))
	top := 0.0
	for _, it := range items {
		top = math.Max(top, it.Score)
	}
	for i, it := range items {
		out[i] = Scored{ID: it.ID}
		if top > 0 && it.Score > 0 {
			out[i].Score = it.Score / top
		}
	}
	return out
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
