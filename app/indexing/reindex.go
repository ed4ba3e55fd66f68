package indexing

import (
	"context"
	"errors"
	"fmt"

	"engram/ports"
)

// Reindexer is the reindex use case: it marks memories and messages DIRTY and
// forgets what was embedded, so the indexers rebuild every vector (after a change of
// embedding model, or of vector backend). It only queues the work; the indexers do
// it in the background.
type Reindexer struct {
	store ports.VectorRequeuer
	clock ports.Clock
	wake  func()
}

// NewReindexer builds the use case; wake (may be nil) tells an indexer in this
// process to start at once.
func NewReindexer(store ports.VectorRequeuer, clock ports.Clock, wake func()) *Reindexer {
	return &Reindexer{store: store, clock: clock, wake: wake}
}

// ReindexTenant requeues one tenant's memories and messages (POST /v1/admin/reindex:
// a tenant may rebuild only its own vectors).
func (r *Reindexer) ReindexTenant(ctx context.Context, tenant string) (ports.Requeued, error) {
	if tenant == "" {
		return ports.Requeued{}, errors.New("reindex: no tenant given; use ReindexAll for every tenant")
	}
	return r.requeue(ctx, tenant)
}

// ReindexAll requeues every tenant's memories and messages (`engram reindex`).
func (r *Reindexer) ReindexAll(ctx context.Context) (ports.Requeued, error) {
	return r.requeue(ctx, "")
}

func (r *Reindexer) requeue(ctx context.Context, tenant string) (ports.Requeued, error) {
	n, err := r.store.Requeue(ctx, tenant, r.clock.Now())
	if err != nil {
		return ports.Requeued{}, fmt.Errorf("reindex: %w", err)
	}
	if r.wake != nil {
		r.wake()
	}
	return n, nil
}
