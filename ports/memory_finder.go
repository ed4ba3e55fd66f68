package ports

import (
	"context"
	"time"

	"engram/domain/memory"
)

// MemoryFinder reads a tenant's memories without naming their user first: by id,
// which is unique across the server and never changes over a memory's life (the
// store refuses a change that renames it), so it needs no second identifier; or
// by a memory.Filter over users, agents, apps, runs, times, types and metadata. A
// user being erased is hidden, as in every read.
type MemoryFinder interface {
	// ByID returns the tenant's memory with this id, active or not; its Scope
	// says whose it is. ErrNotFound when absent or another tenant's.
	ByID(ctx context.Context, tenant, id string) (memory.Memory, error)

	// Find returns one page of the tenant's memories that match q.Filter, newest
	// first (created_at, then id, descending), and how many match in all.
	// Inactive, expired and noise-key memories are left out unless
	// IncludeInactive (noise keys always). An invalid filter is refused with the
	// domain's validation error.
	Find(ctx context.Context, tenant string, q FindQuery) (FoundPage, error)
}

// FindQuery is a filter and a page of a Find.
type FindQuery struct {
	Filter          memory.Filter // the zero Filter: every memory of the tenant
	IncludeInactive bool          // also deleted and expired memories
	Offset          int           // memories skipped, ≥ 0
	Limit           int           // 1..1000; 0: 100
	Now             time.Time     // what "expired" is measured against
}

// FoundPage is one page of a Find; Total counts every match, not only the page.
type FoundPage struct {
	Items []memory.Memory
	Total int
}
