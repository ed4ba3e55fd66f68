package indexing

import (
	"context"
	"log/slog"
	"time"

	"engram/domain/memory"
	"engram/ports"
)

// IndexingMemoryStore is a MemoryStore whose committed changes reach the lexical
// index before Update returns (read-your-writes for search), for stores that
// cannot write the document in the change's transaction (the in-memory one). A
// failed index write does not fail the change, which is already committed: it is
// logged, and the repair pass fixes the document.
type IndexingMemoryStore struct {
	ports.MemoryStore
	indexer *LexicalIndexer
	log     *slog.Logger
}

// NewIndexingMemoryStore decorates store.
func NewIndexingMemoryStore(store ports.MemoryStore, indexer *LexicalIndexer, log *slog.Logger) *IndexingMemoryStore {
	if log == nil {
		log = slog.Default()
	}
	return &IndexingMemoryStore{MemoryStore: store, indexer: indexer, log: log}
}

// Update stores the change, then indexes the memory.
func (s *IndexingMemoryStore) Update(ctx context.Context, scope memory.Scope, key memory.Key,
	fn func(current *memory.Memory) (memory.Change, error),
) (memory.Memory, error) {
	m, err := s.MemoryStore.Update(ctx, scope, key, fn)
	if err != nil {
		return m, err
	}
	// The caller's deadline may be nearly spent by the change; the index write is
	// short and must not be lost to it.
	ictx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := s.indexer.IndexMemory(ictx, m); err != nil {
		s.log.WarnContext(ctx, "lexical index: memory not indexed; the repair pass will", "memory_id", m.ID(), "error", err)
	}
	return m, nil
}
