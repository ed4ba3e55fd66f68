package auth

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"engram/ports"
)

// Authenticate returns the tenant a key belongs to, or ErrUnauthenticated.
func (a *Authenticator) Authenticate(ctx context.Context, presented string) (string, error) {
	if a.stillOpen(ctx) {
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
	return a.storedKey(ctx, hex.EncodeToString(sum[:]))
}

// storedKey looks a stored key up, at most once per CacheTTL, and records its use.
func (a *Authenticator) storedKey(ctx context.Context, hash string) (string, error) {
	now := a.clock.Now()
	a.mu.Lock()
	c, ok := a.cache[hash]
	a.mu.Unlock()
	if !ok || !now.Before(c.until) {
		key, err := a.store.APIKeyByHash(ctx, hash)
		if errors.Is(err, ports.ErrNotFound) {
			a.mu.Lock()
			delete(a.cache, hash) // revoked since it was cached
			a.mu.Unlock()
			return "", fmt.Errorf("unknown or revoked API key: %w", ports.ErrUnauthenticated)
		}
		if err != nil {
			return "", fmt.Errorf("look up API key: %w", err)
		}
		c = cachedKey{id: key.ID, tenant: key.Tenant, until: now.Add(a.opts.CacheTTL)}
		a.mu.Lock()
		a.cache[hash] = c
		a.mu.Unlock()
	}
	a.touch(ctx, c.id, now)
	return c.tenant, nil
}

// touch writes a key's last use, at most once per TouchEvery. It is best effort:
// a failed write is tried again after TouchEvery, and never fails the request.
func (a *Authenticator) touch(ctx context.Context, id string, now time.Time) {
	a.mu.Lock()
	last, seen := a.touched[id]
	due := !seen || now.Sub(last) >= a.opts.TouchEvery
	if due {
		a.touched[id] = now
	}
	a.mu.Unlock()
	if !due {
		return
	}
	tctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	if err := a.store.TouchAPIKey(tctx, id, now); err != nil {
		a.opts.Logger.Debug("auth: last use of an API key not recorded", "key_id", id, "error", err)
	}
}

// stillOpen reports whether the server is in open mode. While it is, it looks for
// a stored key at most once per CacheTTL; the first one ends open mode for good.
func (a *Authenticator) stillOpen(ctx context.Context) bool {
	a.mu.Lock()
	open, checked := a.open, a.openChecked
	a.mu.Unlock()
	if !open || a.store == nil || a.clock == nil {
		return open // without a store no key can appear
	}
	now := a.clock.Now()
	if now.Sub(checked) < a.opts.CacheTTL {
		return true
	}
	has, err := a.store.HasActiveAPIKeys(ctx)
	if err != nil {
		// Cannot tell: stay open (loopback only) and look again next time.
		return true
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.open {
		return false // another request ended it meanwhile
	}
	if !has {
		a.openChecked = now
		return true
	}
	a.open = false
	a.opts.Logger.Warn("open mode ended: an API key was created; every request now needs \"Authorization: Bearer <key>\". " +
		"Data written in open mode belongs to tenant \"default\": `engram keys create --tenant default` reaches it")
	return false
}
