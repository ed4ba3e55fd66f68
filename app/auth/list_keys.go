package auth

import (
	"context"
	"fmt"
	"time"

	"engram/ports"
)

// KeyInfo is what an operator may see of a stored key: never its secret, nor
// its hash.
type KeyInfo struct {
	ID         string
	Tenant     string
	User       string // "": every user of the tenant
	CreatedAt  time.Time
	LastUsedAt time.Time // zero: never used
	RevokedAt  time.Time // zero: active
}

func keyInfo(k ports.APIKey) KeyInfo {
	return KeyInfo{ID: k.ID, Tenant: k.Tenant, User: k.User, CreatedAt: k.CreatedAt, LastUsedAt: k.LastUsedAt, RevokedAt: k.RevokedAt}
}

// ListKeys returns the stored keys, oldest first; revoked ones only when asked.
// Keys configured in ENGRAM_API_KEYS are not stored and not listed.
func (a *Authenticator) ListKeys(ctx context.Context, includeRevoked bool) ([]KeyInfo, error) {
	keys, err := a.store.ListAPIKeys(ctx, includeRevoked)
	if err != nil {
		return nil, fmt.Errorf("list API keys: %w", err)
	}
	out := make([]KeyInfo, len(keys))
	for i, k := range keys {
		out[i] = keyInfo(k)
	}
	return out, nil
}
