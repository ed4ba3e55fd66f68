package ports

import (
	"context"

	"engram/domain/memory"
)

// MemoryFinder reads a tenant's memories without naming their user first: by id,
// which is unique across the server and never changes over a memory's life (the
// store refuses a change that renames it), so it needs no second identifier. A
// user being erased is hidden, as in every read.
type MemoryFinder interface {
	// ByID returns the tenant's memory with this id, active or not; its Scope
	// says whose it is. ErrNotFound when absent or another tenant's.
	ByID(ctx context.Context, tenant, id string) (memory.Memory, error)
}
