package auth

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"

	"engram/ports"
)

// Authenticate returns the tenant a key belongs to, or ErrUnauthenticated.
func (a *Authenticator) Authenticate(ctx context.Context, presented string) (string, error) {
	if a.open {
		return OpenTenant, nil
	}
	if presented == "" {
		return "", fmt.Errorf("no API key presented: %w", ports.ErrUnauthenticated)
	}
	sum := sha256.Sum256([]byte(presented))
	// Compare against every configured key without stopping early, so the time taken
	// says nothing about which key (or how much of one) matched.
	tenant := ""
	for _, k := range a.configured {
		if subtle.ConstantTimeCompare(sum[:], k.hash) == 1 {
			tenant = k.tenant
		}
	}
	if tenant != "" {
		return tenant, nil
	}
	hash := hex.EncodeToString(sum[:])
	now := a.clock.Now()
	a.mu.Lock()
	c, ok := a.cache[hash]
	a.mu.Unlock()
	if ok && now.Before(c.until) {
		return c.tenant, nil
	}
	key, err := a.store.APIKeyByHash(ctx, hash)
	if errors.Is(err, ports.ErrNotFound) {
		return "", fmt.Errorf("unknown API key: %w", ports.ErrUnauthenticated)
	}
	if err != nil {
		return "", fmt.Errorf("look up API key: %w", err)
	}
	a.mu.Lock()
	a.cache[hash] = cachedTenant{tenant: key.Tenant, until: now.Add(positiveCacheTTL)}
	a.mu.Unlock()
	return key.Tenant, nil
}
