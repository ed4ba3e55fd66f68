package memstore

import (
	"context"
	"maps"

	"engram/domain/memory"
	"engram/ports"
)

// Erasures: the JobStore holds the erasure jobs (messages_jobs.go); the memory and
// message stores consult it as the SQL tables consult jobs, once GuardErasures has
// given them the guard. Locks are taken in one order — vector bookkeeping, then a
// memory or message store, then the job store — so no two of them wait on each
// other in a cycle.

// GuardErasures makes the store refuse writes of users being erased and hide them
// from reads. Call it once, before the store is used.
func (s *MemoryStore) GuardErasures(g ports.ErasureGuard) { s.guard = g }

// GuardErasures makes the store refuse writes of users being erased and hide them
// from reads. Call it once, before the store is used.
func (s *MessageStore) GuardErasures(g ports.ErasureGuard) { s.guard = g }

// hidden reports whether the scope is being erased. A failing guard hides nothing
// (the in-memory job store never fails).
func hidden(ctx context.Context, g ports.ErasureGuard, scope memory.Scope) bool {
	id, err := ports.ErasingJob(ctx, g, scope)
	return err == nil && id != ""
}

// guardWrite refuses a write of a scope being erased.
func guardWrite(ctx context.Context, g ports.ErasureGuard, scope memory.Scope) error {
	return ports.RefuseErasing(ctx, g, scope)
}

// deleteOfScope deletes the values of m that belong to scope and says how many
// went (the purge of a store keyed by id).
func deleteOfScope[T any](m map[string]T, scope memory.Scope, scopeOf func(T) memory.Scope) int64 {
	var n int64
	maps.DeleteFunc(m, func(_ string, v T) bool {
		if scopeOf(v) != scope {
			return false
		}
		n++
		return true
	})
	return n
}
