package ports

import (
	"context"
	"time"
)

// APIKey is a stored credential. Only the hash of the secret is ever kept.
type APIKey struct {
	ID        string
	Tenant    string
	Hash      string // hex sha256 of the secret
	CreatedAt time.Time
}

// APIKeyStore keeps keys created with `engram keys create`.
type APIKeyStore interface {
	CreateAPIKey(ctx context.Context, key APIKey) error
	// APIKeyByHash returns ErrNotFound when no key has this hash.
	APIKeyByHash(ctx context.Context, hash string) (APIKey, error)
}
