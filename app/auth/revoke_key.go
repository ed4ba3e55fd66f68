package auth

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// RevokeKey revokes the stored key with this id. Every running server refuses it
// from its next request on (the revocation bumps the key generation). already says the key had been revoked before (its first
// revocation time is kept). ports.ErrNotFound when no key has the id.
func (a *Authenticator) RevokeKey(ctx context.Context, id string) (key KeyInfo, already bool, err error) {
	id = strings.TrimSpace(id)
	now := a.clock.Now()
	k, err := a.store.RevokeAPIKey(ctx, id, now)
	if err != nil {
		return KeyInfo{}, false, fmt.Errorf("revoke API key %q: %w", id, err)
	}
	// Stores keep times to the microsecond: another time is an earlier revocation.
	return keyInfo(k), !k.RevokedAt.Equal(now.UTC().Truncate(time.Microsecond)), nil
}
