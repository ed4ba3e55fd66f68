package bootstrap

import (
	"testing"

	"engram/app/retrieval"
	"engram/bootstrap/config"
	"engram/domain/ranking"
)

// The local embedder's cosine scale in configs/engram.yaml is the measured one that
// search uses without configuration; a remote model gets its own settings.
func TestDenseScale_localIsTheMeasuredOneAndRemoteIsConfigured(t *testing.T) {
	cfg, err := config.Load("", nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := denseScale(cfg.Embedding); got != retrieval.DefaultDenseScale {
		t.Errorf("local: %+v, want retrieval.DefaultDenseScale %+v", got, retrieval.DefaultDenseScale)
	}
	cfg, err = config.Load("", []string{"ENGRAM_EMBEDDER=openai", "LLM_API_KEY=sk-test", "MEMORY_EMBEDDING_MIN_COSINE=0.2",
		"MEMORY_EMBEDDING_FULL_COSINE=0.55", "MEMORY_EMBEDDING_DENSE_WEIGHT=0.8"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := denseScale(cfg.Embedding), (ranking.DenseScale{Floor: 0.2, Full: 0.55, Weight: 0.8}); got != want {
		t.Errorf("remote: %+v, want %+v", got, want)
	}
	for _, bad := range [][]string{
		{"ENGRAM_LOCAL_EMBEDDING_MIN_COSINE=0.6"}, // above the full cosine
		{"MEMORY_EMBEDDING_DENSE_WEIGHT=2"},
		{"LONG_TERM_MEMORY_MIN_SCORE=1.5"},
	} {
		if _, err := config.Load("", bad); err == nil {
			t.Errorf("%v was accepted", bad)
		}
	}
}
