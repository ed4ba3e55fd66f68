package main

import "context"

// Retriever is what the benchmark measures. The methods in this program implement it
// with the relevance core directly; the app's retrieval use case can implement it
// too (ingest the turns as messages of one user, one engram conversation per
// session, then search), and the same protocol scores it.
type Retriever interface {
	// Index replaces what the retriever knows with the turns of one conversation,
	// given in order (session by session, turn by turn).
	Index(ctx context.Context, turns []Turn) error
	// Search returns the ids of the k turns that best answer the question, best first.
	Search(ctx context.Context, question string, k int) ([]string, error)
}
