package main

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

const fixture = `[{
  "sample_id": "conv-x",
  "conversation": {
    "speaker_a": "Ann", "speaker_b": "Bob",
    "session_2_date_time": "3:00 pm on 9 May, 2023",
    "session_2": [{"speaker": "Ann", "dia_id": "D2:1", "text": "Back from the lake."}],
    "session_1_date_time": "1:56 pm on 8 May, 2023",
    "session_1": [
      {"speaker": "Ann", "dia_id": "D1:1", "text": "I adopted a puppy!", "blip_caption": "a photo of a dog"},
      {"speaker": "Bob", "dia_id": "D1:2", "text": "What's its name?"}
    ]
  },
  "qa": [
    {"question": "What did Ann adopt?", "answer": "a puppy", "evidence": ["D1:1"], "category": 4},
    {"question": "Where was Ann?", "answer": "lake", "evidence": ["D2:1", "D9:99", "D2:1"], "category": 1},
    {"question": "Broken", "answer": "x", "evidence": ["D:1:1"], "category": 2},
    {"question": "Adversarial", "adversarial_answer": "x", "evidence": ["D1:1"], "category": 5}
  ]
}]`

func loadFixture(t *testing.T) []Conversation {
	t.Helper()
	path := filepath.Join(t.TempDir(), "locomo.json")
	if err := os.WriteFile(path, []byte(fixture), 0o600); err != nil {
		t.Fatal(err)
	}
	convs, err := loadLoCoMo(path)
	if err != nil {
		t.Fatal(err)
	}
	return convs
}

func TestLoadLoCoMo_appliesTheProtocol(t *testing.T) {
	t.Parallel()
	convs := loadFixture(t)
	if len(convs) != 1 {
		t.Fatalf("got %d conversations, want 1", len(convs))
	}
	c := convs[0]
	var ids, texts []string
	for _, turn := range c.Turns {
		ids = append(ids, turn.ID)
		texts = append(texts, turn.Text())
	}
	if want := []string{"D1:1", "D1:2", "D2:1"}; !reflect.DeepEqual(ids, want) {
		t.Errorf("turn order = %q, want sessions in number order %q", ids, want)
	}
	if want := "Ann: I adopted a puppy! [image: a photo of a dog]"; texts[0] != want {
		t.Errorf("text = %q, want %q", texts[0], want)
	}
	if got := c.Turns[0].At.Format("2006-01-02 15:04"); got != "2023-05-08 13:56" {
		t.Errorf("time = %s, want the session date", got)
	}
	wantQ := []Question{
		{Text: "What did Ann adopt?", Category: 4, Evidence: []string{"D1:1"}},
		{Text: "Where was Ann?", Category: 1, Evidence: []string{"D2:1"}},
	}
	if !reflect.DeepEqual(c.Questions, wantQ) {
		t.Errorf("questions = %+v, want %+v (unresolved ids dropped, duplicates once, category 5 and unresolvable skipped)", c.Questions, wantQ)
	}
}

// fixedRetriever returns the same ranking for every question.
type fixedRetriever struct{ ranking []string }

func (f fixedRetriever) Index(context.Context, []Turn) error { return nil }
func (f fixedRetriever) Search(_ context.Context, _ string, k int) ([]string, error) {
	return f.ranking[:min(k, len(f.ranking))], nil
}

func TestEvaluate_recallAndHit(t *testing.T) {
	t.Parallel()
	convs := []Conversation{{
		ID: "c",
		Questions: []Question{
			{Category: 1, Evidence: []string{"a", "z"}},
			{Category: 4, Evidence: []string{"c"}},
		},
	}}
	r := fixedRetriever{ranking: []string{"x", "a", "y", "c"}}
	rep, err := evaluate(context.Background(), func() Retriever { return r }, convs, []int{1, 2, 4}, 1)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		k           int
		recall, hit float64
	}{
		{1, 0, 0},
		{2, (0.5 + 0) / 2, 0.5},
		{4, (0.5 + 1) / 2, 1},
	}
	for _, tt := range tests {
		if got := rep.Overall.R(tt.k); math.Abs(got-tt.recall) > 1e-9 {
			t.Errorf("recall@%d = %v, want %v", tt.k, got, tt.recall)
		}
		if got := rep.Overall.H(tt.k); math.Abs(got-tt.hit) > 1e-9 {
			t.Errorf("hit@%d = %v, want %v", tt.k, got, tt.hit)
		}
	}
	if rep.ByCat[4].R(4) != 1 || rep.ByCat[1].R(4) != 0.5 {
		t.Errorf("per-category recall@4 = %v / %v, want 0.5 / 1", rep.ByCat[1].R(4), rep.ByCat[4].R(4))
	}
}

func TestProduct_findsAMessageThroughItsNeighbours(t *testing.T) {
	t.Parallel()
	convs := loadFixture(t)
	search := func(cfg hybridConfig) []string {
		r := newHybrid(cfg)()
		if err := r.Index(context.Background(), convs[0].Turns); err != nil {
			t.Fatal(err)
		}
		got, err := r.Search(context.Background(), "Which question followed the puppy adoption?", 3)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	// "What's its name?" shares no word with the question; its neighbour does.
	if got := search(productConfig); !contains(got, "D1:2") {
		t.Errorf("product Search = %q, want D1:2 among them", got)
	}
	alone := with(productConfig, func(c *hybridConfig) { c.Window, c.DenseWindow, c.Dense = 0, 0, false })
	if got := search(alone); contains(got, "D1:2") {
		t.Errorf("without neighbours Search = %q, want no D1:2 (else this test proves nothing)", got)
	}
}

func contains(ids []string, id string) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}
