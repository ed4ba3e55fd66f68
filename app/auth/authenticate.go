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

// openPrincipal is every request of open mode.
var openPrincipal = Principal{Tenant: OpenTenant, KeyID: "open"}

// Authenticate returns who a key acts as, or ErrUnauthenticated. A configured
// key costs no read; a stored key (and open mode) one read of the key
// generation, plus a lookup when the generation changed or the cached lookup is
// older than CacheTTL.
func (a *Authenticator) Authenticate(ctx context.Context, presented string) (Principal, error) {
	sum := sha256.Sum256([]byte(presented))
	if presented != "" {
		// Compare against every configured key without stopping early, so the time
		// taken says nothing about which key (or how much of one) matched.
		var found *configuredKey
		for i := range a.configured {
			if subtle.ConstantTimeCompare(sum[:], a.configured[i].hash) == 1 {
				found = &a.configured[i]
			}
		}
		if found != nil {
			return Principal{Tenant: found.tenant, KeyID: found.id}, nil
		}
	}
	open := a.Open()
	if presented == "" && !open {
		return Principal{}, fmt.Errorf("no API key presented: %w", ports.ErrUnauthenticated)
	}
	if a.store == nil {
		if open {
			return openPrincipal, nil // without a store no key can appear
		}
		return Principal{}, fmt.Errorf("unknown API key: %w", ports.ErrUnauthenticated)
	}
	gen, genErr := a.store.Generation(ctx)
	if genErr == nil {
		a.observeGeneration(gen)
	}
	if a.stillOpen(ctx, gen, genErr) {
		return openPrincipal, nil
	}
	if presented == "" {
		return Principal{}, fmt.Errorf("no API key presented: %w", ports.ErrUnauthenticated)
	}
	if genErr != nil {
		return Principal{}, fmt.Errorf("read the API key generation: %w", genErr)
	}
	return a.storedKey(ctx, hex.EncodeToString(sum[:]))
}

// observeGeneration drops the cached keys when another process (or this one)
// created or revoked a key since they were cached.
func (a *Authenticator) observeGeneration(gen int64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if gen != a.generation {
		a.generation = gen
		clear(a.cache)
	}
}

// storedKey looks a stored key up, unless the cache holds it, and records its use.
func (a *Authenticator) storedKey(ctx context.Context, hash string) (Principal, error) {
	now := a.clock.Now()
	a.mu.Lock()
	c, ok := a.cache[hash]
	gen := a.generation
	a.mu.Unlock()
	if !ok || !now.Before(c.until) {
		key, err := a.store.APIKeyByHash(ctx, hash)
		if errors.Is(err, ports.ErrNotFound) {
			a.mu.Lock()
			delete(a.cache, hash) // revoked since it was cached
			a.mu.Unlock()
			return Principal{}, fmt.Errorf("unknown or revoked API key: %w", ports.ErrUnauthenticated)
		}
		if err != nil {
			return Principal{}, fmt.Errorf("look up API key: %w", err)
		}
		c = cachedKey{principal: Principal{Tenant: key.Tenant, User: key.User, KeyID: key.ID}, until: now.Add(a.opts.CacheTTL)}
		a.mu.Lock()
		if a.generation == gen { // else a newer generation cleared the cache meanwhile: do not refill it with an old read
			a.cache[hash] = c
		}
		a.mu.Unlock()
	}
	a.touch(ctx, c.principal.KeyID, now)
	return c.principal, nil
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
// a stored key whenever the key generation changed; the first one ends open mode
// for good. When the generation cannot be read it stays open (loopback only) and
// looks again next time.
func (a *Authenticator) stillOpen(ctx context.Context, gen int64, genErr error) bool {
	a.mu.Lock()
	open, checked := a.open, a.openChecked
	a.mu.Unlock()
	if !open {
		return false
	}
	if genErr != nil || gen == checked {
		return true
	}
	has, err := a.store.HasActiveAPIKeys(ctx)
	if err != nil {
		return true
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.open {
		return false // another request ended it meanwhile
	}
	if !has {
		a.openChecked = gen
		return true
	}
	a.open = false
	a.opts.Logger.Warn("open mode ended: an API key was created; every request now needs \"Authorization: Bearer <key>\". " +
		"Data written in open mode belongs to tenant \"default\": `engram keys create --tenant default` reaches it")
	return false
}
