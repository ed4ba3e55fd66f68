package extraction_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"engram/app/extraction"
	"engram/domain/candidate"
	"engram/domain/memory"
)

// topicEmbedder stands in for an embedding model: texts about the same topic get
// the same direction whatever their words, as a model's paraphrase vectors do.
type topicEmbedder struct {
	topics []string
	err    error
}

func (e topicEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	if e.err != nil {
		return nil, e.err
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, len(e.topics)+1)
		v[len(e.topics)] = 0.05 // no text is orthogonal to everything
		for j, topic := range e.topics {
			if strings.Contains(strings.ToLower(t), topic) {
				v[j] = 1
			}
		}
		out[i] = v
	}
	return out, nil
}
func (e topicEmbedder) Model() string  { return "topics" }
func (e topicEmbedder) Dimension() int { return len(e.topics) + 1 }

func TestPipeline_duplicateThresholdComparesEmbeddingsWhenAModelEmbeds(t *testing.T) {
	t.Parallel()
	paraphrase := []candidate.Candidate{{Op: candidate.OpAdd, Type: memory.TypeFact, Key: "health.nut_allergy",
		Content: "User has a peanut allergy.", Importance: 4, Confidence: 0.9}}
	model := topicEmbedder{topics: []string{"peanut"}}
	tests := []struct {
		name   string
		scorer extraction.Scorer
		want   []memory.Key
	}{
		// The wording shares little: lexically it is a new fact, so a second key.
		{"lexical", extraction.LexicalScorer{}, []memory.Key{memory.MustParseKey("allergy.peanuts"), memory.MustParseKey("health.nut_allergy")}},
		// By meaning it is the same fact: it reuses the existing key.
		{"embeddings", &extraction.EmbeddingScorer{Embedder: model}, []memory.Key{memory.MustParseKey("allergy.peanuts")}},
		// The model failing falls back to the lexical comparison, not to a failure.
		{"embeddings down", &extraction.EmbeddingScorer{Embedder: topicEmbedder{err: errors.New("down")}}, []memory.Key{memory.MustParseKey("allergy.peanuts"), memory.MustParseKey("health.nut_allergy")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, envOptions{extractor: stubExtractor{cands: paraphrase}, refiner: keepAll{}, scorer: tt.scorer})
			e.save(memory.MustParseKey("allergy.peanuts"), memory.TypeFact, "User is allergic to peanuts.", 4)
			e.post("c1", user("m1", "I have a peanut allergy, remember that."))
			e.tick()
			got := keysOf(e.live())
			if !slices.Equal(got, tt.want) {
				t.Errorf("live keys %v, want %v", got, tt.want)
			}
		})
	}
}
