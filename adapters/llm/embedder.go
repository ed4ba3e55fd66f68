package llm

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/tmc/langchaingo/embeddings"
	"github.com/tmc/langchaingo/llms/ollama"
	"github.com/tmc/langchaingo/llms/openai"

	"engram/ports"
)

// DefaultEmbedBatchSize is how many texts go into one embeddings request.
const DefaultEmbedBatchSize = 64

// EmbedderOptions configures an Embedder.
type EmbedderOptions struct {
	Provider Provider // ENGRAM_EMBEDDER: openai or ollama
	BaseURL  string   // MEMORY_EMBEDDING_API_BASE, else LLM_API_BASE
	APIKey   string   // MEMORY_EMBEDDING_API_KEY, else LLM_API_KEY
	Model    string   // MEMORY_EMBEDDING_MODEL; required
	// Dimension is the length every vector must have (MEMORY_EMBEDDING_DIM);
	// required. A vector of another length is an error, never stored.
	Dimension int
	// RequestDimensions sends Dimension to an OpenAI endpoint as "dimensions", so
	// text-embedding-3 models shorten their vectors. Other models refuse it.
	RequestDimensions bool
	BatchSize         int // texts per request; 0: DefaultEmbedBatchSize

	Timeout        time.Duration // per request; 0: DefaultTimeout
	MaxRetries     int           // retries of a transient failure per batch; 0: never
	RetryBaseDelay time.Duration
	RetryMaxDelay  time.Duration
}

// Embedder implements ports.Embedder over langchaingo's OpenAI and Ollama clients.
type Embedder struct {
	client    embeddings.EmbedderClient
	name      string
	dimension int
	batchSize int
	retry     retrier
}

var _ ports.Embedder = (*Embedder)(nil)

// NewEmbedder builds an embedder; it does not contact the endpoint.
func NewEmbedder(opts EmbedderOptions) (*Embedder, error) {
	if strings.TrimSpace(opts.Model) == "" {
		return nil, errors.New("llm: an embedding model is required (MEMORY_EMBEDDING_MODEL)")
	}
	if opts.Dimension <= 0 {
		return nil, fmt.Errorf("llm: embedding dimension %d: must be positive (MEMORY_EMBEDDING_DIM)", opts.Dimension)
	}
	ep, err := newEndpoint(opts.Provider, opts.BaseURL, opts.APIKey)
	if err != nil {
		return nil, err
	}
	var client embeddings.EmbedderClient
	switch ep.provider {
	case ProviderOpenAI:
		o := append(ep.openAIOptions(), openai.WithModel(opts.Model), openai.WithEmbeddingModel(opts.Model))
		if opts.RequestDimensions {
			o = append(o, openai.WithEmbeddingDimensions(opts.Dimension))
		}
		client, err = openai.New(o...)
	case ProviderOllama:
		client, err = ollama.New(append(ep.ollamaOptions(), ollama.WithModel(opts.Model))...)
	}
	if err != nil {
		return nil, fmt.Errorf("llm: %s embeddings client: %w", ep.provider, err)
	}
	e := &Embedder{
		client:    client,
		name:      string(ep.provider) + "/" + opts.Model + "/" + strconv.Itoa(opts.Dimension),
		dimension: opts.Dimension,
		batchSize: opts.BatchSize,
		retry:     newRetrier(opts.Timeout, opts.MaxRetries, opts.RetryBaseDelay, opts.RetryMaxDelay),
	}
	if e.batchSize <= 0 {
		e.batchSize = DefaultEmbedBatchSize
	}
	return e, nil
}

// Model is "provider/model/dimension", e.g. "openai/text-embedding-3-small/1536".
func (e *Embedder) Model() string { return e.name }

// Dimension is the length of every vector.
func (e *Embedder) Dimension() int { return e.dimension }

// Embed returns one vector per text, in order, each checked for length.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	for i, t := range texts {
		if strings.TrimSpace(t) == "" {
			return nil, fmt.Errorf("llm: embed: text %d is empty", i)
		}
	}
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += e.batchSize {
		batch := texts[start:min(start+e.batchSize, len(texts))]
		var vectors [][]float32
		_, err := e.retry.do(ctx, "embed "+e.name, func(actx context.Context) error {
			v, err := e.client.CreateEmbedding(actx, batch)
			if errors.Is(err, openai.ErrUnexpectedResponseLength) || errors.Is(err, ollama.ErrIncompleteEmbedding) ||
				errors.Is(err, openai.ErrEmptyResponse) || errors.Is(err, ollama.ErrEmptyResponse) {
				return permanent(badOutput("embed", "", "%d vectors for %d texts", len(v), len(batch)))
			}
			vectors = v
			return err
		})
		if err != nil {
			return nil, err
		}
		if err := e.check(vectors, len(batch), start); err != nil {
			return nil, err
		}
		out = append(out, vectors...)
	}
	return out, nil
}

func (e *Embedder) check(vectors [][]float32, want, offset int) error {
	if len(vectors) != want {
		return badOutput("embed", "", "%d vectors for %d texts", len(vectors), want)
	}
	for i, v := range vectors {
		if len(v) != e.dimension {
			return badOutput("embed", "", "text %d got a vector of %d values from %s, want %d: check MEMORY_EMBEDDING_MODEL and MEMORY_EMBEDDING_DIM",
				offset+i, len(v), e.name, e.dimension)
		}
		for _, x := range v {
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				return badOutput("embed", "", "text %d got a vector with NaN or infinite values", offset+i)
			}
		}
	}
	return nil
}
