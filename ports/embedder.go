package ports

import "context"

// Embedder turns texts into vectors of a fixed dimension.
type Embedder interface {
	// Embed returns one vector per text, in order, each of Dimension() values.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	// Model names the model and its settings; vectors of different models are never
	// compared, and a change of model means a reindex.
	Model() string
	// Dimension is the length of every vector.
	Dimension() int
}
