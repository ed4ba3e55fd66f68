package ports

import (
	"context"
	"time"

	"engram/domain/memory"
)

// MemoryStore keeps the truth about long-term memories and their events.
//
// The adapter owns the transaction: Update loads the current memory, lets the
// caller decide, and stores the result together with its event, so that concurrent
// writers to one key never lose an update.
type MemoryStore interface {
	// Get returns the memory with this key, active or not. ErrNotFound if absent.
	Get(ctx context.Context, scope memory.Scope, key memory.Key) (memory.Memory, error)

	// Update runs fn with the current memory (nil when the key has never been
	// written) inside one transaction and stores the change fn returns, memory and
	// event together. If fn returns an error nothing is written and the error is
	// returned as it is (ErrNoChange included).
	Update(ctx context.Context, scope memory.Scope, key memory.Key,
		fn func(current *memory.Memory) (memory.Change, error)) (memory.Memory, error)

	// List returns one page of the user's memories ordered by key.
	List(ctx context.Context, scope memory.Scope, q MemoryQuery) (MemoryPage, error)

	// History returns the events of one key, oldest first.
	History(ctx context.Context, scope memory.Scope, key memory.Key) ([]memory.Event, error)

	// Event returns one event of the scope. ErrNotFound if absent or another scope's.
	Event(ctx context.Context, scope memory.Scope, eventID string) (memory.Event, error)
}

// MemoryQuery filters a listing. Inactive, expired and noise-key memories are left
// out unless IncludeInactive is set (noise keys are always left out).
type MemoryQuery struct {
	Types           []memory.Type // empty: every type
	IncludeInactive bool          // also deleted and expired memories
	Contains        string        // case-insensitive substring of key or content
	AfterKey        memory.Key    // cursor: keys strictly greater than this
	Limit           int           // 1..1000
	Now             time.Time     // what "expired" is measured against
}

// MemoryPage is one page of a listing. NextKey is empty on the last page.
type MemoryPage struct {
	Items   []memory.Memory
	NextKey memory.Key
}
