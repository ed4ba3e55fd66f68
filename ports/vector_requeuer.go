package ports

import (
	"context"
	"time"
)

// VectorRequeuer queues every vector for a rebuild (a reindex).
type VectorRequeuer interface {
	// Requeue marks every memory and message of the tenant ("" for all
	// tenants) DIRTY and forgets what was embedded, so the indexer rebuilds every
	// vector (a reindex, e.g. after a model change). Claims in flight are
	// released, so their outcomes are not stored.
	Requeue(ctx context.Context, tenant string, now time.Time) (Requeued, error)
}

// Requeued counts what a reindex queued.
type Requeued struct {
	Memories int64
	Messages int64
}
