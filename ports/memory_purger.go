package ports

import (
	"context"
	"time"

	"engram/domain/memory"
)

// MemoryPurger erases one memory with the content of its history (memory_delete
// with purge, and the cascade of a deleted message).
type MemoryPurger interface {
	// PurgeMemory deletes the memory under key and every event of the key, and
	// stores the event purge returns for the memory (the content-free PURGE of
	// memory.NewPurgeEvent), in one transaction. It returns the memory as it was,
	// so the caller can remove its vector and lexical document. ErrNotFound when
	// the key holds no memory (a purged key holds none: its PURGE event is all that
	// is left); ErrConflict while an indexer holds a live claim on the memory's
	// vector (it could write the vector back): try again shortly.
	PurgeMemory(ctx context.Context, scope memory.Scope, key memory.Key,
		purge func(current memory.Memory) memory.Event, now time.Time) (memory.Memory, error)
}
