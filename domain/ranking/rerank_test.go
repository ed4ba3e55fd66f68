package ranking

import (
	"math"
	"reflect"
	"testing"
	"time"
)

func TestScore(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	w := Weights{Retrieval: 0.6, Importance: 0.1, Confidence: 0.1, Recency: 0.1, ExactKey: 0.1, HalfLife: 10 * 24 * time.Hour}
	tests := []struct {
		name string
		c    Candidate
		want Breakdown
	}{
		{
			"every signal at its best scores the relevance",
			Candidate{Evidence: Evidence{Direct: 1}, Importance: 5, Confidence: 1, At: now, ExactKey: 1},
			Breakdown{Retrieval: 0.6, Importance: 0.1, Confidence: 0.1, Recency: 0.1, ExactKey: 0.1},
		},
		{
			"the other signals scale with the relevance",
			Candidate{Evidence: Evidence{Direct: 0.5}, Importance: 1, Confidence: 0.8, At: now.Add(-10 * 24 * time.Hour), ExactKey: 0},
			Breakdown{Retrieval: 0.3, Confidence: 0.04, Recency: 0.025},
		},
		{
			"context evidence is shown apart",
			Candidate{Evidence: Evidence{Direct: 0.25, Context: 0.25}, Importance: 5, Confidence: 1, At: now, ExactKey: 1},
			Breakdown{Retrieval: 0.15, Context: 0.15, Importance: 0.05, Confidence: 0.05, Recency: 0.05, ExactKey: 0.05},
		},
		{
			"a message's missing signals are left out, not counted as constants",
			Candidate{Evidence: Evidence{Direct: 0.7}, Importance: 0, Confidence: -1, At: now, ExactKey: -1},
			Breakdown{Retrieval: 0.7 * 0.6 / 0.7, Recency: 0.7 * 0.1 / 0.7},
		},
		{
			"no evidence scores nothing, whatever the other signals",
			Candidate{Importance: 5, Confidence: 1, At: now, ExactKey: 1},
			Breakdown{},
		},
		{
			"out-of-range inputs are clamped",
			Candidate{Evidence: Evidence{Direct: 3}, Importance: 9, Confidence: math.NaN(), At: now.Add(time.Hour), ExactKey: 2},
			Breakdown{Retrieval: 0.6, Importance: 0.1, Confidence: 0, Recency: 0.1, ExactKey: 0.1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := Score(tt.c, now, w)
			g := []float64{got.Retrieval, got.Context, got.Importance, got.Confidence, got.Recency, got.ExactKey}
			e := []float64{tt.want.Retrieval, tt.want.Context, tt.want.Importance, tt.want.Confidence, tt.want.Recency, tt.want.ExactKey}
			for i := range g {
				if !near(g[i], e[i]) {
					t.Errorf("Score = %+v, want %+v", got, tt.want)
					break
				}
			}
			if total := got.Total(); total > math.Min(1, tt.c.Evidence.Total())+1e-9 || total < 0 {
				t.Errorf("Total = %v, want within [0, relevance %v]", total, tt.c.Evidence.Total())
			}
		})
	}
}

func TestRerank(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	cands := []Candidate{
		{ID: "relevant-old", Evidence: Evidence{Direct: 1}, Importance: 3, Confidence: 0.8, At: now.AddDate(-2, 0, 0)},
		{ID: "off-topic-important", Evidence: Evidence{Direct: 0.2}, Importance: 5, Confidence: 1, At: now},
		{ID: "relevant-new", Evidence: Evidence{Direct: 0.95}, Importance: 3, Confidence: 0.8, At: now},
	}
	got := Rerank(cands, now, DefaultWeights)
	var order []string
	for _, r := range got {
		order = append(order, r.ID)
		if !near(r.Score, r.Breakdown.Total()) {
			t.Errorf("%s: score %v is not its breakdown's total %v", r.ID, r.Score, r.Breakdown.Total())
		}
	}
	want := []string{"relevant-new", "relevant-old", "off-topic-important"}
	if !reflect.DeepEqual(order, want) {
		t.Errorf("Rerank order = %q, want %q (recency breaks near ties; relevance beats importance)", order, want)
	}
	if got[2].Score > 0.2 {
		t.Errorf("an item of relevance 0.2 scores %v; the other signals must not lift it above its relevance", got[2].Score)
	}
	sum := DefaultWeights.Retrieval + DefaultWeights.Importance + DefaultWeights.Confidence + DefaultWeights.Recency + DefaultWeights.ExactKey
	if !near(sum, 1) {
		t.Errorf("default weights sum to %v, want 1", sum)
	}
}

func TestDecay(t *testing.T) {
	t.Parallel()
	day := 24 * time.Hour
	tests := []struct {
		age, halfLife time.Duration
		want          float64
	}{
		{0, day, 1}, {-day, day, 1}, {day, day, 0.5}, {2 * day, day, 0.25}, {day, 0, 0},
	}
	for _, tt := range tests {
		if got := Decay(tt.age, tt.halfLife); !near(got, tt.want) {
			t.Errorf("Decay(%v, %v) = %v, want %v", tt.age, tt.halfLife, got, tt.want)
		}
	}
}

func TestKeyMatch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		query, key []string
		want       float64
	}{
		{[]string{"diet", "prefer", "now"}, []string{"diet", "prefer"}, 1},
		{[]string{"diet"}, []string{"diet", "prefer"}, 0.5},
		{[]string{"food"}, []string{"diet", "prefer"}, 0},
		{[]string{"food"}, nil, 0},
	}
	for _, tt := range tests {
		if got := KeyMatch(tt.query, tt.key); !near(got, tt.want) {
			t.Errorf("KeyMatch(%q, %q) = %v, want %v", tt.query, tt.key, got, tt.want)
		}
	}
}
