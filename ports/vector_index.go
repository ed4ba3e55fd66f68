package ports

import (
	"context"
	"strings"
	"time"
	"unicode/utf8"

	"engram/domain/invalid"
	"engram/domain/memory"
)

// VectorRecord is one vector with the fields the index filters on.
type VectorRecord struct {
	ID             string // the memory or message id
	Tenant         string
	User           string
	Kind           memory.Kind
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
	Kinds          []memory.Kind // empty: all kinds
	MemoryTypes    []string      // empty: all types
	ConversationID string        // empty: any conversation
	Since, Until   time.Time     // zero: unbounded
	Vector         []float32
	Limit          int
}

// VectorHit is one search result; Score is cosine similarity in [-1, 1].
type VectorHit struct {
	ID    string
	Kind  memory.Kind
	Score float64
}

// VectorIndex is the retrieval layer: it decides what to recall, never what is true.
// Errors are ErrUnavailable (wrapped) when the backing service cannot answer.
type VectorIndex interface {
	Upsert(ctx context.Context, records []VectorRecord) error
	Delete(ctx context.Context, tenant string, ids []string) error
	Search(ctx context.Context, q VectorQuery) ([]VectorHit, error)
}

// Validate checks what every vector index requires of a record before the vector
// itself (see vector.Check): an id, a scope and a kind, and text fields that are
// valid UTF-8 without NUL characters. field prefixes the names in the error
// ("records[3]"); adapters add their own limits on top.
func (r VectorRecord) Validate(field string) error {
	for _, required := range []struct{ name, value string }{
		{"id", r.ID}, {"tenant", r.Tenant}, {"user", r.User}, {"kind", string(r.Kind)},
	} {
		if required.value == "" {
			return invalid.Field(field+"."+required.name, "must not be empty")
		}
	}
	for name, s := range map[string]string{"id": r.ID, "tenant": r.Tenant, "user": r.User, "kind": string(r.Kind),
		"memory_type": r.MemoryType, "conversation_id": r.ConversationID} {
		if !utf8.ValidString(s) || strings.ContainsRune(s, 0) {
			return invalid.Field(field+"."+name, "must be valid UTF-8 without NUL characters")
		}
	}
	return nil
}

// Validate checks what every vector index requires of a query besides its vector:
// a tenant and a user (a search is always confined to one user) and a limit.
func (q VectorQuery) Validate() error {
	switch {
	case q.Tenant == "":
		return invalid.Field("tenant", "must not be empty: a search is always confined to one tenant")
	case q.User == "":
		return invalid.Field("user", "must not be empty: a search is always confined to one user")
	case q.Limit <= 0:
		return invalid.FieldValue("limit", q.Limit, "must be at least 1, got %d", q.Limit)
	}
	return nil
}
