package ports

import (
	"context"
	"time"
)

// VectorKind says what an indexed vector stands for.
type VectorKind string

const (
	VectorKindMemory  VectorKind = "memory"
	VectorKindMessage VectorKind = "message"
)

// VectorRecord is one vector with the fields the index filters on.
type VectorRecord struct {
	ID             string // the memory or message id
	Tenant         string
	User           string
	Kind           VectorKind
	MemoryType     string // memories only
	ConversationID string // messages only
	At             time.Time
	Vector         []float32
}

// VectorQuery asks for the nearest vectors of one user. Every filter is applied
// inside the index query, never by fetching more and dropping the rest: another
// tenant's or user's vectors must not even be candidates.
type VectorQuery struct {
	Tenant         string
	User           string
	Kinds          []VectorKind // empty: all kinds
	MemoryTypes    []string     // empty: all types
	ConversationID string       // empty: any conversation
	Since, Until   time.Time    // zero: unbounded
	Vector         []float32
	Limit          int
}

// VectorHit is one search result; Score is cosine similarity in [-1, 1].
type VectorHit struct {
	ID    string
	Kind  VectorKind
	Score float64
}

// VectorIndex is the retrieval layer: it decides what to recall, never what is true.
// Errors are ErrUnavailable (wrapped) when the backing service cannot answer.
type VectorIndex interface {
	Upsert(ctx context.Context, records []VectorRecord) error
	Delete(ctx context.Context, tenant string, ids []string) error
	Search(ctx context.Context, q VectorQuery) ([]VectorHit, error)
}
