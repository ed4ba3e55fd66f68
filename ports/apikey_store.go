package ports

import (
	"context"
	"time"
)

// APIKey is a stored credential. Only the hash of the secret is ever kept.
type APIKey struct {
	ID         string
	Tenant     string
	User       string // "": every user of the tenant; else the one user the key reaches
	Hash       string // hex sha256 of the secret
	CreatedAt  time.Time
	LastUsedAt time.Time // zero: never used (recorded at most about once a minute)
	RevokedAt  time.Time // zero: active; a revoked key never authenticates again
}

// Active reports whether the key still authenticates.
func (k APIKey) Active() bool { return k.RevokedAt.IsZero() }

// APIKeyStore keeps keys created with `engram keys create`.
type APIKeyStore interface {
	CreateAPIKey(ctx context.Context, key APIKey) error
	// APIKeyByHash returns the active key with this hash; ErrNotFound when no key
	// has it or the key is revoked.
	APIKeyByHash(ctx context.Context, hash string) (APIKey, error)
	// HasActiveAPIKeys reports whether any key is active (with none, and none
	// configured, the server runs in open mode).
	HasActiveAPIKeys(ctx context.Context) (bool, error)
	// ListAPIKeys returns the keys, oldest first; revoked ones only when asked.
	ListAPIKeys(ctx context.Context, includeRevoked bool) ([]APIKey, error)
	// RevokeAPIKey marks the key revoked at at and returns it; ErrNotFound when no
	// key has this id. Revoking a revoked key changes nothing and returns it with
	// its first revocation time.
	RevokeAPIKey(ctx context.Context, id string, at time.Time) (APIKey, error)
	// TouchAPIKey records that the key was used at at (a later time than the one
	// stored wins). An unknown id is not an error.
	TouchAPIKey(ctx context.Context, id string, at time.Time) error
	// Generation is a number that changes with every key created or revoked, in
	// the same transaction, and is read on every request that presents a stored
	// key: what a process cached of keys is good while it stays the same.
	Generation(ctx context.Context) (int64, error)
}
