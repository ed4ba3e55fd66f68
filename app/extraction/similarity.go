package extraction

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"engram/domain/candidate"
	"engram/domain/ranking"
	"engram/ports"
)

// Scorer says how alike memory texts are, in [0, 1]. Stage 3 compares its scores
// with DuplicateSimilarity (reuse an existing key) and MergeSimilarity (fold a
// redundant copy), seed 000's 0.82 and 0.90.
type Scorer interface {
	// Scores returns the similarity of text to each of others, in order.
	Scores(ctx context.Context, text string, others []string) []float64
}

// LexicalScorer compares words and CJK characters (candidate.Similarity). It needs
// nothing and is the scorer whenever no embedding model is configured.
type LexicalScorer struct{}

func (LexicalScorer) Scores(_ context.Context, text string, others []string) []float64 {
	out := make([]float64, len(others))
	for i, o := range others {
		out[i] = candidate.Similarity(text, o)
	}
	return out
}

// EmbeddingScorer is the cosine of the texts' embeddings: seed 000's semantic
// similarity, which catches paraphrases ("has a peanut allergy" / "is allergic to
// peanuts") that share few words. Use it with an embedding model. The offline
// local embedder hashes words and character n-grams, so its cosines measure
// overlap on another scale (different facts in the same frame, "likes Sichuan
// food" / "likes Hunan food", score 0.77 there; see docs/BENCHMARKS.md) and the
// lexical scorer serves better. When the embedder fails or is slow, Fallback
// answers, so dedupe never fails extraction.
type EmbeddingScorer struct {
	Embedder ports.Embedder
	Fallback Scorer        // LexicalScorer when nil
	Timeout  time.Duration // 0: 2 s
	Logger   *slog.Logger
}

func (e *EmbeddingScorer) Scores(ctx context.Context, text string, others []string) []float64 {
	if len(others) == 0 {
		return nil
	}
	scores, err := e.cosines(ctx, text, others)
	if err == nil {
		return scores
	}
	log := e.Logger
	if log == nil {
		log = slog.Default()
	}
	log.WarnContext(ctx, "similarity by embeddings failed; comparing lexically", "error", err)
	fallback := e.Fallback
	if fallback == nil {
		fallback = LexicalScorer{}
	}
	return fallback.Scores(ctx, text, others)
}

func (e *EmbeddingScorer) cosines(ctx context.Context, text string, others []string) ([]float64, error) {
	timeout := e.Timeout
	if timeout <= 0 {
		timeout = DefaultVectorTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	vecs, err := e.Embedder.Embed(ctx, append([]string{text}, others...))
	if err != nil {
		return nil, fmt.Errorf("embed: %w", err)
	}
	if len(vecs) != len(others)+1 {
		return nil, fmt.Errorf("embed: %d vectors for %d texts", len(vecs), len(others)+1)
	}
	out := make([]float64, len(others))
	for i := range others {
		out[i] = ranking.Cosine(vecs[0], vecs[i+1])
	}
	return out, nil
}
